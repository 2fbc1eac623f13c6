"""TakeBack: a seat undoes its own last decision while no tile was drawn and nobody
else decided; every other case is refused with a reason code. Bots pace themselves
in games with a person's seat."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path

from server_harness import COLOURS, Stub, auth, new_game, refused, running

from engine import Game
from server.game.authority import Limits
from server.play.botseats import BotConfig
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

YELLOW, ORANGE, RED = COLOURS[:3]
WHOLE_LOG = Limits(resume_window=100_000)


async def snapshot(stub: Stub, name: str) -> pb.GameSnapshot:
    got: spb.GetGameResponse = await stub.GetGame(spb.GetGameRequest(name=name))
    return got.snapshot


async def act(stub: Stub, name: str, token: str, rng: random.Random) -> pb.LogEntry:
    """Answer the pending decision with a random option; the accepted entry."""
    now = await snapshot(stub, name)
    request = spb.SubmitActionRequest(
        name=name,
        sequence=now.sequence,
        request_id=f"r{now.sequence}",
        action=rng.choice(list(now.view.decision.options)),
    )
    reply: spb.SubmitActionResponse = await stub.SubmitAction(request, metadata=auth(token))
    return reply.entry


async def take_back(
    stub: Stub, name: str, token: str | None, sequence: int, request_id: str = "t1"
) -> pb.LogEntry:
    request = spb.TakeBackRequest(name=name, sequence=sequence, request_id=request_id)
    reply: spb.TakeBackResponse = await stub.TakeBack(request, metadata=auth(token))
    return reply.entry


def test_a_seat_takes_back_its_own_last_decision(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2)
            before = await snapshot(stub, name)
            assert before.view.decision.player == YELLOW
            placed = await act(stub, name, tokens[YELLOW], random.Random(1))

            entry = await take_back(stub, name, tokens[YELLOW], placed.sequence)
            assert entry.sequence == placed.sequence + 1
            taken = entry.action_taken_back
            assert (taken.player, taken.taken_back) == (YELLOW, placed.sequence)
            # The board is as it was before the decision, the same decision pending.
            assert taken.view == before.view
            after = await snapshot(stub, name)
            assert after.sequence == entry.sequence
            assert after.view == before.view
            # A retried request answers the same entry and changes nothing.
            again = await take_back(stub, name, tokens[YELLOW], placed.sequence)
            assert again == entry
            assert (await snapshot(stub, name)).sequence == entry.sequence
            # Nothing before it can be taken back: the take-back is the last entry now.
            _, reason, meta = await refused(
                take_back(stub, name, tokens[YELLOW], entry.sequence, "t2")
            )
            assert reason == "TAKE_BACK_NOT_LAST" and meta["sequence"] == str(entry.sequence)

            # Spectators and replays see it: in the log, and the past state at that entry.
            page = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
            assert page.entries[-1] == entry
            past = await stub.GetGame(spb.GetGameRequest(name=name, at_sequence=entry.sequence))
            assert past.snapshot.view == before.view

            # Play on to the end: the record leaves the taken-back decision out and replays.
            rng = random.Random(2)
            while True:
                now = await snapshot(stub, name)
                if not now.view.HasField("decision"):
                    break
                await act(stub, name, tokens[now.view.decision.player], rng)
            record = await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))
            game = Game.from_record(json.loads(record.record_json), checked=True)
            assert game.over
            log = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
            applied = sum(1 for e in log.entries if e.HasField("action_applied"))
            undone = sum(1 for e in log.entries if e.HasField("action_taken_back"))
            assert undone == 1 and len(game.actions) == applied - undone

        # After a restart the game is rebuilt with the take-back applied.
        async with running(tmp_path, WHOLE_LOG) as (_server, stub, _channel):
            final = await snapshot(stub, name)
            assert final.game.state == pb.GAME_STATE_FINISHED
            assert final.view == now.view

    asyncio.run(main())


def test_take_backs_that_are_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2, start_game=False)
            _, reason, _ = await refused(take_back(stub, name, tokens[YELLOW], 1))
            assert reason == "GAME_NOT_STARTED"
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(tokens[YELLOW]))
            _, reason, _ = await refused(take_back(stub, name, None, 1))
            assert reason == "TOKEN_MISSING"
            # The game's start is no decision.
            started = (await snapshot(stub, name)).sequence
            _, reason, _ = await refused(take_back(stub, name, tokens[YELLOW], started))
            assert reason == "TAKE_BACK_NOT_LAST"
            _, reason, _ = await refused(take_back(stub, name, tokens[YELLOW], 0))
            assert reason == "INVALID_REQUEST"

            rng = random.Random(3)
            placed = await act(stub, name, tokens[YELLOW], rng)
            # Another seat cannot take it back.
            _, reason, meta = await refused(take_back(stub, name, tokens[ORANGE], placed.sequence))
            assert reason == "TAKE_BACK_NOT_YOURS" and meta["player"] == "yellow"
            # Once another seat has decided, it stands.
            answered = await act(stub, name, tokens[ORANGE], rng)
            _, reason, _ = await refused(take_back(stub, name, tokens[YELLOW], placed.sequence))
            assert reason == "TAKE_BACK_NOT_LAST"
            assert (await snapshot(stub, name)).sequence == answered.sequence

            # A decision that drew a tile stands.
            drew = None
            while drew is None:
                now = await snapshot(stub, name)
                assert now.view.HasField("decision"), "the game ended without a draw"
                entry = await act(stub, name, tokens[now.view.decision.player], rng)
                events = entry.action_applied.events
                if any(e.HasField("tile_placed") for e in events) and not any(
                    e.HasField("game_over") for e in events
                ):
                    drew = entry
            player = drew.action_applied.player
            _, reason, _ = await refused(take_back(stub, name, tokens[player], drew.sequence))
            assert reason == "TAKE_BACK_AFTER_DRAW"
            assert (await snapshot(stub, name)).sequence == drew.sequence

    asyncio.run(main())


def test_a_bot_waits_in_a_game_with_a_person_and_not_among_bots(tmp_path: Path) -> None:
    pace = 0.6

    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG, BotConfig(strong_budget=0.05, pace=pace)) as (
            _server,
            stub,
            _channel,
        ):
            settings = pb.GameSettings(bots=[pb.BotSeat(colour=ORANGE, level=pb.BOT_LEVEL_RANDOM)])
            created = await stub.CreateGame(
                spb.CreateGameRequest(seats=[YELLOW, ORANGE], settings=settings)
            )
            name = created.game.name
            joined = await stub.JoinGame(spb.JoinGameRequest(name=name, colour=YELLOW))
            token = joined.seat_token
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(token))
            rng = random.Random(4)

            # The bot waits: the person can take back a decision before the bot answers it.
            placed = await act(stub, name, token, rng)
            taken = await take_back(stub, name, token, placed.sequence)
            assert taken.action_taken_back.taken_back == placed.sequence
            await asyncio.sleep(pace * 2)
            now = await snapshot(stub, name)
            assert now.sequence == taken.sequence
            assert now.view.decision.player == YELLOW

            # Its answer comes no sooner than `pace` after the person's decision.
            placed = await act(stub, name, token, rng)
            sent = time.monotonic()
            watch = stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=placed.sequence))
            async for message in watch:
                if message.entries:
                    assert message.entries[0].action_applied.player == ORANGE
                    break
            assert time.monotonic() - sent >= pace * 0.9
            watch.cancel()

            # A game of bots only does not wait: a whole game ends long before
            # its ~100 decisions could have waited `pace` each.
            settings = pb.GameSettings(
                bots=[pb.BotSeat(colour=c, level=pb.BOT_LEVEL_RANDOM) for c in (YELLOW, RED)]
            )
            bots = await stub.CreateGame(
                spb.CreateGameRequest(seats=[YELLOW, RED], settings=settings)
            )

            async def finished() -> None:
                while (await snapshot(stub, bots.game.name)).game.state != pb.GAME_STATE_FINISHED:
                    await asyncio.sleep(0.1)

            await asyncio.wait_for(finished(), 20 * pace)

    asyncio.run(main())


def test_a_bot_holds_its_answer_for_the_undo_window(tmp_path: Path) -> None:
    """After a person's decision that drew no tile, a bot answers no sooner than the
    undo window, so the person can still take it back; then the bot thinks again."""
    window = 3.0

    async def main() -> None:
        config = BotConfig(strong_budget=0.05, undo_window=window)
        async with running(tmp_path, WHOLE_LOG, config) as (_server, stub, _channel):
            settings = pb.GameSettings(bots=[pb.BotSeat(colour=ORANGE, level=pb.BOT_LEVEL_RANDOM)])
            created = await stub.CreateGame(
                spb.CreateGameRequest(seats=[YELLOW, ORANGE], settings=settings)
            )
            name = created.game.name
            joined = await stub.JoinGame(spb.JoinGameRequest(name=name, colour=YELLOW))
            token = joined.seat_token
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(token))
            rng = random.Random(5)

            # The bot's answer to the set-up pick comes no sooner than the window.
            placed = await act(stub, name, token, rng)
            sent = time.monotonic()
            watch = stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=placed.sequence))
            async for message in watch:
                if message.entries:
                    assert message.entries[0].action_applied.player == ORANGE
                    break
            assert time.monotonic() - sent >= window * 0.9
            watch.cancel()

            # Within the window the person takes the next decision back; the bot,
            # whose answer went stale, leaves the decision to the person.
            before = await snapshot(stub, name)
            placed = await act(stub, name, token, rng)
            taken = await take_back(stub, name, token, placed.sequence, "t-window")
            assert taken.action_taken_back.taken_back == placed.sequence
            assert taken.action_taken_back.view == before.view
            # Decided again: the bot answers once the new window has passed.
            placed = await act(stub, name, token, rng)
            watch = stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=placed.sequence))
            async for message in watch:
                if message.entries:
                    assert message.entries[0].action_applied.player == ORANGE
                    assert message.entries[0].sequence == placed.sequence + 1
                    break
            watch.cancel()

    asyncio.run(main())


def test_a_take_back_undoes_the_bots_answers_that_drew_no_tile(tmp_path: Path) -> None:
    """With bots that answer at once, a person's decision can still be taken back
    after the bots' answers (none drew a tile): they are undone with it. A bot's
    draw, or another person's decision, makes it stand."""

    async def main() -> None:
        config = BotConfig(strong_budget=0.05)
        async with running(tmp_path, WHOLE_LOG, config) as (_server, stub, _channel):
            bots = [pb.BotSeat(colour=c, level=pb.BOT_LEVEL_RANDOM) for c in (ORANGE, RED)]
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[YELLOW, ORANGE, RED], settings=pb.GameSettings(bots=bots)
                )
            )
            name = created.game.name
            joined = await stub.JoinGame(spb.JoinGameRequest(name=name, colour=YELLOW))
            token = joined.seat_token
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(token))

            async def my_turn() -> pb.GameSnapshot:
                while True:
                    now = await snapshot(stub, name)
                    assert now.game.state == pb.GAME_STATE_ACTIVE, "the game ended first"
                    if now.view.decision.player == YELLOW:
                        return now
                    await asyncio.sleep(0.02)

            async def entries_after(sequence: int) -> list[pb.LogEntry]:
                page = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
                return [e for e in page.entries if e.sequence > sequence]

            rng = random.Random(8)
            undone = stood = 0
            for _ in range(400):
                if undone >= 2 and stood:
                    break
                before = await my_turn()
                placed = await act(stub, name, token, rng)
                await my_turn()
                since = await entries_after(placed.sequence)
                bots_answers = [e for e in since if e.HasField("action_applied")]
                drew = any(
                    ev.HasField("tile_placed")
                    for e in [placed, *bots_answers]
                    for ev in e.action_applied.events
                )
                if not bots_answers:
                    continue
                assert all(e.action_applied.player != YELLOW for e in bots_answers)
                request = f"t{placed.sequence}"
                if drew:
                    _, reason, _ = await refused(
                        take_back(stub, name, token, placed.sequence, request)
                    )
                    assert reason in ("TAKE_BACK_NOT_LAST", "TAKE_BACK_AFTER_DRAW")
                    stood += 1
                    continue
                if undone >= 2:
                    continue  # the game goes on (until a draw makes a decision stand)
                taken = await take_back(stub, name, token, placed.sequence, request)
                assert taken.action_taken_back.taken_back == placed.sequence
                # The board and the decision are as before the person's decision.
                assert taken.action_taken_back.view == before.view
                assert (await snapshot(stub, name)).view == before.view
                undone += 1
            assert undone >= 2 and stood
            last = await my_turn()
        # After a restart the game is rebuilt with the take-backs applied.
        async with running(tmp_path, WHOLE_LOG, config) as (_server, stub, _channel):
            again = await snapshot(stub, name)
            assert (again.sequence, again.view) == (last.sequence, last.view)

    asyncio.run(main())


def test_a_retried_take_back_or_message_answers_the_same_after_a_restart(
    tmp_path: Path,
) -> None:
    """The answer to a take-back or a quick message is lost, the server restarts, the
    client sends the same request again: it gets the first answer, and nothing is
    done twice (the ids are read back from the log)."""

    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2)
            placed = await act(stub, name, tokens[YELLOW], random.Random(1))
            taken = await take_back(stub, name, tokens[YELLOW], placed.sequence, "undo-1")
            request = spb.SendMessageRequest(
                name=name, phrase=pb.PHRASE_GOOD_LUCK, request_id="say-1"
            )
            said: spb.SendMessageResponse = await stub.SendMessage(
                request, metadata=auth(tokens[ORANGE])
            )
            last = (await snapshot(stub, name)).sequence
        async with running(tmp_path, WHOLE_LOG) as (_server, stub, _channel):
            again = await take_back(stub, name, tokens[YELLOW], placed.sequence, "undo-1")
            assert again == taken
            repeated: spb.SendMessageResponse = await stub.SendMessage(
                request, metadata=auth(tokens[ORANGE])
            )
            assert repeated.entry == said.entry
            assert (await snapshot(stub, name)).sequence == last

    asyncio.run(main())


async def against_bots(stub: Stub, level: pb.BotLevel.ValueType) -> tuple[str, str]:
    """A started game of yellow (a person) against orange and red, bots of ``level``:
    its name and yellow's token."""
    bots = [pb.BotSeat(colour=c, level=level) for c in (ORANGE, RED)]
    created = await stub.CreateGame(
        spb.CreateGameRequest(seats=[YELLOW, ORANGE, RED], settings=pb.GameSettings(bots=bots))
    )
    name = created.game.name
    joined = await stub.JoinGame(spb.JoinGameRequest(name=name, colour=YELLOW))
    await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(joined.seat_token))
    return name, joined.seat_token


async def yellows_turn(stub: Stub, name: str) -> pb.GameSnapshot | None:
    """The game once it is yellow's decision again (the bots answered); None: it ended."""
    while True:
        now = await snapshot(stub, name)
        if now.game.state != pb.GAME_STATE_ACTIVE:
            return None
        if now.view.decision.player == YELLOW:
            return now
        await asyncio.sleep(0.02)


async def decide(
    stub: Stub, name: str, token: str, action: pb.Action, *, sequence: int, request_id: str
) -> pb.LogEntry:
    """Submit yellow's ``action`` at ``sequence``; the accepted entry."""
    request = spb.SubmitActionRequest(
        name=name, sequence=sequence, request_id=request_id, action=action
    )
    reply: spb.SubmitActionResponse = await stub.SubmitAction(request, metadata=auth(token))
    return reply.entry


async def answers_to(stub: Stub, name: str, placed: pb.LogEntry) -> list[pb.LogEntry] | None:
    """The bots' answers to yellow's decision ``placed``, once it is yellow's decision
    again (None: the game ended)."""
    if await yellows_turn(stub, name) is None:
        return None
    page = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
    return [e for e in page.entries if e.sequence > placed.sequence]


def moves(entries: list[pb.LogEntry] | None) -> list[tuple[int, pb.Action]]:
    """Who played what, in order."""
    assert entries is not None, "the game ended"
    return [(e.action_applied.player, e.action_applied.action) for e in entries]


async def undoable_answers(
    stub: Stub, name: str, token: str, rng: random.Random
) -> tuple[pb.Action, pb.LogEntry, list[pb.LogEntry]] | None:
    """Yellow decides at random until the bots answer without drawing a tile (so the
    decision can be taken back): the action, its entry and the bots' answers (None:
    the game ended first)."""
    while (now := await yellows_turn(stub, name)) is not None:
        action = rng.choice(list(now.view.decision.options))
        placed = await decide(
            stub, name, token, action, sequence=now.sequence, request_id=f"r{now.sequence}"
        )
        answers = await answers_to(stub, name, placed)
        if answers is None:
            return None
        drew = any(
            event.HasField("tile_placed")
            for entry in [placed, *answers]
            for event in entry.action_applied.events
        )
        if answers and not drew:
            assert all(e.HasField("action_applied") for e in answers)
            return action, placed, answers
    return None


def _bots_answer_the_same_after_a_take_back(
    tmp_path: Path, level: pb.BotLevel.ValueType, decisions: int, redos: int
) -> None:
    """A person decides, two bots answer (no tile drawn), the person takes the decision
    back and makes the same one again: the bots answer as they did the first time,
    remembered by position (not searched again). ``decisions`` such decisions (in as
    many games as it takes), each taken back and made again ``redos`` times, and one
    more across a restart. (With a bot's seed from the log's sequence and no memory,
    each of ten runs of this test saw an answer differ.)"""
    config = BotConfig(strong_budget=0.1)

    async def main() -> None:
        rng = random.Random(12)
        async with running(tmp_path, WHOLE_LOG, config) as (server, stub, _channel):
            name, token = await against_bots(stub, level)
            done = 0
            while done <= decisions:
                found = await undoable_answers(stub, name, token, rng)
                if found is None:  # the game ended: another one
                    name, token = await against_bots(stub, level)
                    continue
                action, placed, first = found
                if done == decisions:  # the last one is made again after a restart
                    taken = await take_back(stub, name, token, placed.sequence, "t-last")
                    break
                authority = await server.registry.find(name)
                for _ in range(redos):
                    taken = await take_back(
                        stub, name, token, placed.sequence, f"t{placed.sequence}"
                    )
                    repeats = authority.bot_repeats
                    placed = await decide(
                        stub,
                        name,
                        token,
                        action,
                        sequence=taken.sequence,
                        request_id=f"a{taken.sequence}",
                    )
                    assert placed.action_applied.action == action
                    assert moves(await answers_to(stub, name, placed)) == moves(first)
                    # Given again as remembered, not searched again (which could differ).
                    assert authority.bot_repeats == repeats + len(first)
                done += 1
        # The answers are read back from the game's log: the same after a restart.
        async with running(tmp_path, WHOLE_LOG, config) as (server, stub, _channel):
            again = await decide(
                stub, name, token, action, sequence=taken.sequence, request_id="a-last"
            )
            assert moves(await answers_to(stub, name, again)) == moves(first)
            authority = await server.registry.find(name)
            assert (authority.bot_repeats, authority.bot_refusals) == (len(first), 0)

    asyncio.run(main())


def test_greedy_bots_answer_the_same_after_a_take_back(tmp_path: Path) -> None:
    _bots_answer_the_same_after_a_take_back(tmp_path, pb.BOT_LEVEL_GREEDY, 5, 5)


def test_strong_bots_answer_the_same_after_a_take_back(tmp_path: Path) -> None:
    """The strong bot searches for a CPU budget: its answer varies with the machine's
    load, so only the remembered answer makes it the same."""
    _bots_answer_the_same_after_a_take_back(tmp_path, pb.BOT_LEVEL_STRONG, 3, 2)
