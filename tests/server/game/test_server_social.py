"""Quick messages and rematches: asides in a game's log that change nothing in the
game, so actions chosen before them stand; on both stores, across restarts."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import grpc
import pytest
from server_harness import CHATTY, COLOURS, Stub, auth, new_game, refused, running

from server.game.authority import Limits
from server.rpc.service import MAX_TEXT, rematch_title
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

YELLOW, ORANGE = COLOURS[:2]


async def snapshot(stub: Stub, name: str, token: str | None = None) -> pb.GameSnapshot:
    got: spb.GetGameResponse = await stub.GetGame(
        spb.GetGameRequest(name=name), metadata=auth(token)
    )
    return got.snapshot


async def say(
    stub: Stub, name: str, token: str | None, phrase: int, request_id: str
) -> pb.LogEntry:
    request = spb.SendMessageRequest(name=name, phrase=phrase, request_id=request_id)  # type: ignore[arg-type]
    reply: spb.SendMessageResponse = await stub.SendMessage(request, metadata=auth(token))
    return reply.entry


async def act(
    stub: Stub, name: str, token: str, sequence: int, action: pb.Action, *, rid: str
) -> pb.LogEntry:
    request = spb.SubmitActionRequest(name=name, sequence=sequence, request_id=rid, action=action)
    reply: spb.SubmitActionResponse = await stub.SubmitAction(request, metadata=auth(token))
    return reply.entry


async def play_out(stub: Stub, name: str, tokens: dict[int, str], seed: int = 3) -> None:
    """Play random options for every seat until the game is over."""
    rng = random.Random(seed)
    while True:
        now = await snapshot(stub, name)
        if now.game.state == pb.GAME_STATE_FINISHED:
            return
        decision = now.view.decision
        option = rng.choice(list(decision.options))
        await act(stub, name, tokens[decision.player], now.sequence, option, rid=f"p{now.sequence}")


def test_quick_messages_leave_actions_current(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2)
            before = await snapshot(stub, name)
            assert before.view.decision.player == YELLOW
            said = await say(stub, name, tokens[ORANGE], pb.PHRASE_GOOD_LUCK, "m1")
            assert said.sequence == before.sequence + 1
            assert said.message_sent == pb.MessageSent(player=ORANGE, phrase=pb.PHRASE_GOOD_LUCK)
            # A retry answers the same entry and adds none.
            assert await say(stub, name, tokens[ORANGE], pb.PHRASE_GOOD_LUCK, "m1") == said
            after = await snapshot(stub, name)
            assert after.sequence == said.sequence and after.view == before.view

            # Yellow chose at the sequence before the message: still current.
            option = before.view.decision.options[0]
            acted = await act(stub, name, tokens[YELLOW], before.sequence, option, rid="a1")
            assert acted.sequence == said.sequence + 1
            # Now the message's sequence is stale, as any before the action.
            now = await snapshot(stub, name)
            code, reason, _ = await refused(
                act(
                    stub,
                    name,
                    tokens[ORANGE],
                    said.sequence,
                    now.view.decision.options[0],
                    rid="a2",
                )
            )
            assert (code, reason) == (grpc.StatusCode.ABORTED, "STALE_SEQUENCE")

            # Yellow's own decision can be taken back past a message after it.
            await say(stub, name, tokens[ORANGE], pb.PHRASE_THINKING, "m2")
            back = await stub.TakeBack(
                spb.TakeBackRequest(name=name, sequence=acted.sequence, request_id="t1"),
                metadata=auth(tokens[YELLOW]),
            )
            assert back.entry.action_taken_back.taken_back == acted.sequence

            # A spectator cannot speak, nor can anybody send a phrase the server does not know.
            _, reason, _ = await refused(say(stub, name, None, pb.PHRASE_GOOD_GAME, "m3"))
            assert reason == "TOKEN_MISSING"
            code, reason, _ = await refused(say(stub, name, tokens[YELLOW], 99, "m4"))
            assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_PHRASE")
            _, reason, _ = await refused(
                say(stub, name, tokens[YELLOW], pb.PHRASE_UNSPECIFIED, "m5")
            )
            assert reason == "UNKNOWN_PHRASE"

            # Every reader finds them in the log, the game unchanged by them.
            page = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
            phrases = [e.message_sent.phrase for e in page.entries if e.HasField("message_sent")]
            assert phrases == [pb.PHRASE_GOOD_LUCK, pb.PHRASE_THINKING]

    asyncio.run(main())


def test_quick_messages_are_limited_per_seat_and_per_game(tmp_path: Path) -> None:
    limits = Limits(messages_per_game=5, message_burst=3, message_every=3600.0)

    async def main() -> None:
        async with running(tmp_path, limits) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2, start_game=False)
            for i in range(3):
                await say(stub, name, tokens[YELLOW], pb.PHRASE_GOOD_LUCK, f"y{i}")
            code, reason, meta = await refused(
                say(stub, name, tokens[YELLOW], pb.PHRASE_GOOD_LUCK, "y3")
            )
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
            assert float(meta["retry_after_seconds"]) > 0
            # Another seat has its own allowance, up to the game's total.
            for i in range(2):
                await say(stub, name, tokens[ORANGE], pb.PHRASE_OOPS, f"o{i}")
            code, reason, meta = await refused(
                say(stub, name, tokens[ORANGE], pb.PHRASE_OOPS, "o2")
            )
            assert (code, reason, meta["limit"]) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "MESSAGE_LIMIT",
                "5",
            )
        # The total is counted from the log: it holds after a restart.
        async with running(tmp_path, limits) as (_server, stub, _channel):
            _, reason, _ = await refused(say(stub, name, tokens[ORANGE], pb.PHRASE_OOPS, "o3"))
            assert reason == "MESSAGE_LIMIT"

    asyncio.run(main())


def test_a_watch_carries_messages_to_spectators(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2)
            start = await snapshot(stub, name)
            call = stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=start.sequence))
            said = await say(stub, name, tokens[YELLOW], pb.PHRASE_WELL_PLAYED, "m1")
            async for message in call:
                if message.entries:
                    assert list(message.entries) == [said]
                    break
            call.cancel()

    asyncio.run(main())


def test_the_first_rematch_is_everyones(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2)

            def propose(token: str | None) -> Any:
                return stub.ProposeRematch(
                    spb.ProposeRematchRequest(name=name), metadata=auth(token)
                )

            _, reason, _ = await refused(propose(tokens[YELLOW]))
            assert reason == "GAME_NOT_FINISHED"
            await play_out(stub, name, tokens)
            _, reason, _ = await refused(propose(None))
            assert reason == "TOKEN_MISSING"

            # Both players ask at once: one game is made, both get it.
            first, second = await asyncio.gather(propose(tokens[YELLOW]), propose(tokens[ORANGE]))
            assert first.game.name == second.game.name
            assert sorted([first.created, second.created]) == [False, True]
            rematch = first.game
            assert rematch.state == pb.GAME_STATE_OPEN
            assert [s.colour for s in rematch.seats] == [YELLOW, ORANGE]
            assert not any(s.occupied for s in rematch.seats)
            # Later requests and every reader see the same game.
            again = await propose(tokens[YELLOW])
            assert (again.game.name, again.created) == (rematch.name, False)
            finished = await snapshot(stub, name)
            assert finished.game.rematch == rematch.name
            page = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
            proposed = page.entries[-1].rematch_proposed
            assert proposed.rematch == rematch.name and proposed.player in (YELLOW, ORANGE)
            # "Good game" after the end.
            said = await say(stub, name, tokens[ORANGE], pb.PHRASE_GOOD_GAME, "gg")
            assert said.sequence == page.entries[-1].sequence + 1
        # Durable: the rematch is the same after a restart.
        async with running(tmp_path) as (_server, stub, _channel):
            assert (await snapshot(stub, name)).game.rematch == rematch.name
            reply = await stub.ProposeRematch(
                spb.ProposeRematchRequest(name=name), metadata=auth(tokens[ORANGE])
            )
            assert (reply.game.name, reply.created) == (rematch.name, False)

    asyncio.run(main())


def test_a_rematch_keeps_the_bots_and_settings(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            settings = pb.GameSettings(
                display_name="Friday",
                bots=[pb.BotSeat(colour=ORANGE, level=pb.BOT_LEVEL_RANDOM)],
                turn_timeout_seconds=600,
            )
            created = await stub.CreateGame(
                spb.CreateGameRequest(seats=[YELLOW, ORANGE], settings=settings)
            )
            name = created.game.name
            joined = await stub.JoinGame(spb.JoinGameRequest(name=name))
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(joined.seat_token))
            rng = random.Random(5)
            while True:
                now = await snapshot(stub, name, joined.seat_token)
                if now.game.state == pb.GAME_STATE_FINISHED:
                    break
                decision = now.view.decision
                if decision.player != YELLOW:
                    await asyncio.sleep(0.05)
                    continue
                try:
                    await act(
                        stub,
                        name,
                        joined.seat_token,
                        now.sequence,
                        rng.choice(list(decision.options)),
                        rid=f"p{now.sequence}",
                    )
                except grpc.aio.AioRpcError:
                    continue  # the bot moved meanwhile
            reply = await stub.ProposeRematch(
                spb.ProposeRematchRequest(name=name), metadata=auth(joined.seat_token)
            )
            seats = {s.colour: s for s in reply.game.seats}
            assert seats[ORANGE].bot == pb.BOT_LEVEL_RANDOM and seats[ORANGE].occupied
            assert not seats[YELLOW].occupied
            # Told apart from the game it follows.
            assert reply.game.settings.display_name == "Friday · 2"
            assert reply.game.settings.turn_timeout_seconds == 600
            # It starts by itself once the player has taken their seat back: no Start to press.
            assert not created.game.settings.auto_start and reply.game.settings.auto_start
            back = await stub.JoinGame(
                spb.JoinGameRequest(name=reply.game.name, colour=YELLOW, display_name="Yellow")
            )
            assert back.game.state == pb.GAME_STATE_ACTIVE

    asyncio.run(main())


@pytest.mark.postgres_only
def test_two_nodes_agree_on_the_rematch_and_relay_messages(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            running(tmp_path / "a") as (_a, one, _ca),
            running(tmp_path / "b") as (_b, two, _cb),
        ):
            name, tokens = await new_game(one, 2)
            await play_out(one, name, tokens)
            # A message sent through one node reaches a reader of the other.
            said = await say(two, name, tokens[YELLOW], pb.PHRASE_GOOD_GAME, "gg")
            page = await one.ListGameEntries(
                spb.ListGameEntriesRequest(name=name, after_sequence=said.sequence - 1)
            )
            assert list(page.entries) == [said]
            # Each player asks a different node, at once: one rematch.
            first, second = await asyncio.gather(
                one.ProposeRematch(
                    spb.ProposeRematchRequest(name=name), metadata=auth(tokens[YELLOW])
                ),
                two.ProposeRematch(
                    spb.ProposeRematchRequest(name=name), metadata=auth(tokens[ORANGE])
                ),
            )
            assert first.game.name == second.game.name
            assert sorted([first.created, second.created]) == [False, True]
            for stub in (one, two):
                assert (await snapshot(stub, name)).game.rematch == first.game.name

    asyncio.run(main())


def test_quick_messages_do_not_restart_a_turn_clock(tmp_path: Path) -> None:
    """A clock of 1.5 s runs out while the other seat keeps chattering (every 0.2 s:
    were each message to restart it, it would never run out)."""

    async def main() -> None:
        async with running(tmp_path, CHATTY) as (_server, stub, _channel):
            settings = pb.GameSettings(turn_timeout_seconds=1.5)
            created = await stub.CreateGame(
                spb.CreateGameRequest(seats=[YELLOW, ORANGE], settings=settings)
            )
            name = created.game.name
            tokens = {}
            for _ in range(2):
                joined = await stub.JoinGame(spb.JoinGameRequest(name=name))
                tokens[joined.colour] = joined.seat_token
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(tokens[YELLOW]))
            for i in range(300):  # at most a minute
                game = (await snapshot(stub, name)).game
                if game.seats[0].bot:
                    break
                await say(stub, name, tokens[ORANGE], pb.PHRASE_THINKING, f"m{i}")
                await asyncio.sleep(0.2)
            assert game.seats[0].takeover == pb.TAKEOVER_REASON_TIMED_OUT

    asyncio.run(main())


def test_a_rematch_is_numbered_after_the_game_it_follows() -> None:
    assert rematch_title("Friday") == "Friday · 2"
    assert rematch_title("Friday · 2") == "Friday · 3"
    assert rematch_title("Friday · 9") == "Friday · 10"
    assert rematch_title("· 2") == "· 2 · 2"
    assert rematch_title("") == ""
    long = rematch_title("x" * MAX_TEXT)
    assert len(long) == MAX_TEXT and long.endswith(" · 2")
