"""Bot seats, takeovers (leave, turn clock), restarts with bots, caught-up resume, port file."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from server_harness import (
    COLOURS,
    Seen,
    Stub,
    auth,
    error_info,
    finished,
    new_game,
    play_seat,
    random_chooser,
    refused,
    running,
)

from engine import Game
from engine.playout import SplitMix64, shuffled_stack
from server.game.authority import Limits
from server.play.botseats import ANSWER_TIME, BotConfig, Job, think
from server.rpc import codec as convert
from tests.faults import children
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

YELLOW, ORANGE, RED = COLOURS[:3]
#: Every entry stays replayable, so a watch after_sequence=0 sees the whole log.
WHOLE_LOG = Limits(resume_window=100_000)


async def whole_log(stub: Stub, name: str, *, until: int | None = None) -> list[pb.LogEntry]:
    """Every entry of the game from the start, until it ends (or the sequence ``until``)."""
    entries: list[pb.LogEntry] = []
    call = stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=0))
    async for message in call:
        assert not message.HasField("snapshot")
        entries.extend(message.entries)
        if until is not None and entries and entries[-1].sequence >= until:
            call.cancel()
            break
    assert [e.sequence for e in entries] == list(range(1, len(entries) + 1))
    return entries


def offered_only(entries: list[pb.LogEntry]) -> int:
    """Check every action answered the pending decision with one of its options; count them."""
    decision: pb.Decision | None = None
    actions = 0
    for entry in entries:
        if entry.HasField("game_started"):
            decision = entry.game_started.view.decision
        elif entry.HasField("action_applied"):
            applied = entry.action_applied
            assert decision is not None
            assert applied.player == decision.player
            assert applied.action in list(decision.options)
            decision = applied.decision if applied.HasField("decision") else None
            actions += 1
    return actions


async def replays_to_the_same_end(stub: Stub, name: str) -> None:
    """The record replays (checked) with the engine to the result the server reports."""
    got = await stub.GetGame(spb.GetGameRequest(name=name))
    assert got.snapshot.game.state == pb.GAME_STATE_FINISHED
    record = await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))
    game = Game.from_record(json.loads(record.record_json), checked=True)
    assert game.over and game.result is not None
    reported = {convert.COLOUR_NAME[r.colour]: (r.points, r.rank) for r in got.snapshot.view.result}
    assert reported == {c: (game.result["points"][c], game.result["rank"][c]) for c in game.seats}


def bot_settings(*levels: pb.BotLevel.ValueType, **more: float) -> pb.GameSettings:
    """Settings with bots of ``levels`` on the first seats."""
    settings = pb.GameSettings(
        bots=[pb.BotSeat(colour=c, level=level) for c, level in zip(COLOURS, levels, strict=False)]
    )
    for key, value in more.items():
        setattr(settings, key, value)
    return settings


def test_a_game_of_bots_plays_to_the_end(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG) as (server, stub, _channel):
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=COLOURS[:3],
                    settings=bot_settings(
                        pb.BOT_LEVEL_RANDOM, pb.BOT_LEVEL_GREEDY, pb.BOT_LEVEL_UNSPECIFIED
                    ),
                )
            )
            assert [(s.occupied, s.bot) for s in created.game.seats] == [
                (True, pb.BOT_LEVEL_RANDOM),
                (True, pb.BOT_LEVEL_GREEDY),
                (True, pb.BOT_LEVEL_RANDOM),
            ]
            assert created.game.state != pb.GAME_STATE_OPEN  # nobody else could start it
            name = created.game.name
            entries = await asyncio.wait_for(whole_log(stub, name), 600)
            assert entries[0].HasField("game_started")
            actions = offered_only(entries)
            assert entries[-1].action_applied.events[-1].HasField("game_over")
            authority = await server.registry.find(name)
            assert authority.bot_refusals == 0
            assert authority.bot_moves == actions > 0
            await replays_to_the_same_end(stub, name)
            _code, reason, _ = await refused(stub.JoinGame(spb.JoinGameRequest(name=name)))
            assert reason == "GAME_FULL"
            # Caught up with a finished game: told so, then the stream ends.
            last = entries[-1].sequence
            told = [
                m
                async for m in stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=last))
            ]
            assert told == [spb.WatchGameResponse(sequence=last, caught_up=True)]

    asyncio.run(main())


def test_a_seat_left_mid_game_is_taken_over(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG) as (server, stub, _channel):
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[YELLOW, RED],
                    # A clock a quick player never meets: nobody times out.
                    settings=pb.GameSettings(
                        leave_bot=pb.BOT_LEVEL_GREEDY, turn_timeout_seconds=30, auto_start=True
                    ),
                )
            )
            name = created.game.name
            yellow = (await stub.JoinGame(spb.JoinGameRequest(name=name))).seat_token
            red = (await stub.JoinGame(spb.JoinGameRequest(name=name))).seat_token

            async def red_plays_then_leaves() -> int:
                rng = random.Random(5)
                seen = Seen()
                acted = 0
                async for message in stub.WatchGame(
                    spb.WatchGameRequest(name=name), metadata=auth(red)
                ):
                    seen.take(message)
                    while seen.decision is not None and seen.decision.player == RED:
                        if acted == 3:
                            await stub.LeaveGame(
                                spb.LeaveGameRequest(name=name), metadata=auth(red)
                            )
                            return seen.sequence
                        response = await stub.SubmitAction(
                            spb.SubmitActionRequest(
                                name=name,
                                sequence=seen.sequence,
                                request_id=f"r{seen.sequence}",
                                action=rng.choice(list(seen.decision.options)),
                            ),
                            metadata=auth(red),
                        )
                        acted += 1
                        seen.follow(response.entry)
                raise AssertionError("the game ended before red left")

            left_at, _ = await asyncio.wait_for(
                asyncio.gather(
                    red_plays_then_leaves(),
                    play_seat(stub, name, YELLOW, yellow, random_chooser(3)),
                ),
                300,
            )
            entries = await whole_log(stub, name)
            offered_only(entries)
            kinds = [e.WhichOneof("change") for e in entries]
            assert kinds.count("seat_taken_over") == 1
            at = kinds.index("seat_taken_over")
            assert at > left_at and kinds[at - 1] == "seat_left"
            assert entries[at].seat_taken_over == pb.SeatTakenOver(
                colour=RED, level=pb.BOT_LEVEL_GREEDY, reason=pb.TAKEOVER_REASON_LEFT
            )
            assert kinds[at + 1 :].count("action_applied") > 0
            seat = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.game.seats[1]
            assert (seat.occupied, seat.bot, seat.takeover) == (
                True,
                pb.BOT_LEVEL_GREEDY,
                pb.TAKEOVER_REASON_LEFT,
            )
            yellow_seat = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.game.seats[0]
            assert yellow_seat.takeover == pb.TAKEOVER_REASON_UNSPECIFIED
            assert (await server.registry.find(name)).bot_refusals == 0
            await replays_to_the_same_end(stub, name)

    asyncio.run(main())


def test_a_timed_out_seat_is_taken_over(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG) as (server, stub, _channel):
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[YELLOW, RED],
                    settings=bot_settings(pb.BOT_LEVEL_RANDOM, turn_timeout_seconds=0.05),
                )
            )
            name = created.game.name
            joined = await stub.JoinGame(
                spb.JoinGameRequest(name=name, colour=RED, display_name="Sleepy")
            )
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(joined.seat_token))
            # Red never acts: its clock runs out and a random bot plays on.
            entries = await asyncio.wait_for(whole_log(stub, name), 300)
            offered_only(entries)
            takeovers = [e.seat_taken_over for e in entries if e.HasField("seat_taken_over")]
            assert takeovers == [
                pb.SeatTakenOver(
                    colour=RED, level=pb.BOT_LEVEL_RANDOM, reason=pb.TAKEOVER_REASON_TIMED_OUT
                )
            ]
            _code, reason, _ = await refused(
                stub.GetGame(spb.GetGameRequest(name=name), metadata=auth(joined.seat_token))
            )
            assert reason == "TOKEN_INVALID"
            seat = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.game.seats[1]
            assert (seat.occupied, seat.bot, seat.takeover, seat.display_name) == (
                True,
                pb.BOT_LEVEL_RANDOM,
                pb.TAKEOVER_REASON_TIMED_OUT,
                "Sleepy",
            )
            assert (await server.registry.find(name)).bot_refusals == 0
            await replays_to_the_same_end(stub, name)

    asyncio.run(main())


def test_bots_keep_playing_after_a_restart(tmp_path: Path) -> None:
    # The strong bot thinks briefly: what is checked is the restart, not its play.
    quick = BotConfig(strong_budget=0.01)

    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG, quick) as (_server, stub, _channel):
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[YELLOW, ORANGE],
                    settings=bot_settings(pb.BOT_LEVEL_STRONG, pb.BOT_LEVEL_RANDOM),
                )
            )
            name = created.game.name
            await asyncio.wait_for(whole_log(stub, name, until=8), 300)
        async with running(tmp_path, WHOLE_LOG, quick) as (server, stub, _channel):
            stopped_at = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.sequence
            # A whole game: as long as a busy machine needs (the bound only stops a hang).
            entries = await asyncio.wait_for(whole_log(stub, name), 600)
            assert len(entries) > stopped_at
            offered_only(entries)
            authority = await server.registry.find(name)
            assert authority.bot_moves > 0
            assert authority.bot_refusals == 0
            seats = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.game.seats
            assert [s.bot for s in seats] == [pb.BOT_LEVEL_STRONG, pb.BOT_LEVEL_RANDOM]
            await replays_to_the_same_end(stub, name)

    asyncio.run(main())


def test_a_resume_at_the_current_sequence_says_caught_up(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            name, tokens = await new_game(stub, 2)
            at = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
            call = stub.WatchGame(
                spb.WatchGameRequest(name=name, after_sequence=at.sequence),
                metadata=auth(tokens[YELLOW]),
            )
            first = await call.read()
            assert first == spb.WatchGameResponse(sequence=at.sequence, caught_up=True)
            await stub.SubmitAction(
                spb.SubmitActionRequest(
                    name=name,
                    sequence=at.sequence,
                    request_id="a",
                    action=at.view.decision.options[0],
                ),
                metadata=auth(tokens[YELLOW]),
            )
            second = await call.read()
            assert not second.caught_up
            assert [e.sequence for e in second.entries] == [at.sequence + 1]
            call.cancel()
            # A resume with something to replay is not marked.
            again = stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=at.sequence))
            replay = await again.read()
            assert not replay.caught_up and len(replay.entries) == 1
            again.cancel()

    asyncio.run(main())


def test_bot_settings_are_checked(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_server, stub, _channel):
            for settings in (
                pb.GameSettings(bots=[pb.BotSeat(colour=COLOURS[5])]),
                pb.GameSettings(bots=[pb.BotSeat(colour=YELLOW), pb.BotSeat(colour=YELLOW)]),
                pb.GameSettings(bots=[pb.BotSeat(colour=YELLOW, level=9)]),  # type: ignore[arg-type]
                pb.GameSettings(turn_timeout_seconds=-1),
                pb.GameSettings(turn_timeout_seconds=float("nan")),
                pb.GameSettings(leave_bot=7),  # type: ignore[arg-type]
            ):
                code, reason, _ = await refused(
                    stub.CreateGame(spb.CreateGameRequest(seats=[YELLOW, RED], settings=settings))
                )
                assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
            # A game with a bot seat and a person: the person joins the open seat only.
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[YELLOW, ORANGE],
                    settings=bot_settings(pb.BOT_LEVEL_UNSPECIFIED, pb.BOT_LEVEL_UNSPECIFIED),
                )
            )
            assert created.game.settings.bots[0] == pb.BotSeat(
                colour=YELLOW, level=pb.BOT_LEVEL_RANDOM
            )
            mixed = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[YELLOW, RED],
                    settings=pb.GameSettings(bots=[pb.BotSeat(colour=RED)]),
                )
            )
            code, reason, _ = await refused(
                stub.JoinGame(spb.JoinGameRequest(name=mixed.game.name, colour=RED))
            )
            assert reason == "SEAT_TAKEN"
            joined = await stub.JoinGame(spb.JoinGameRequest(name=mixed.game.name))
            assert joined.colour == YELLOW

    asyncio.run(main())


def test_port_file(tmp_path: Path) -> None:
    port_file = tmp_path / "port"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path / "data"),
            "--port-file",
            str(port_file),
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TONGIAKI_LOG_LEVEL": "INFO"},
    )
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        port = int(port_file.read_text())
        assert port > 0

        async def ask() -> int:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                listed = await Stub(channel).ListGames(spb.ListGamesRequest())
                return len(listed.games)

        assert asyncio.run(ask()) == 0
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    lines = [json.loads(line) for line in (out + err).splitlines() if line.startswith("{")]
    listening = [line for line in lines if line.get("message", line.get("msg")) == "listening"]
    assert listening and listening[0]["port"] == port


def test_a_turn_too_long_is_taken_over(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG) as (server, stub, _channel):
            # One decision per turn at most: the first follow-up decision is a bot's.
            settings = bot_settings(
                pb.BOT_LEVEL_UNSPECIFIED, pb.BOT_LEVEL_RANDOM, max_turn_decisions=1
            )
            del settings.bots[0]
            settings.timeout_bot = pb.BOT_LEVEL_GREEDY
            created = await stub.CreateGame(
                spb.CreateGameRequest(seats=[YELLOW, ORANGE], settings=settings)
            )
            name = created.game.name
            token = (await stub.JoinGame(spb.JoinGameRequest(name=name))).seat_token
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(token))
            rng = random.Random(11)
            refusals: list[str] = []

            async def yellow_plays() -> None:
                seen = Seen()
                async for message in stub.WatchGame(spb.WatchGameRequest(name=name)):
                    seen.take(message)
                    if seen.decision is None or seen.decision.player != YELLOW:
                        continue
                    try:
                        await stub.SubmitAction(
                            spb.SubmitActionRequest(
                                name=name,
                                sequence=seen.sequence,
                                request_id=f"y{seen.sequence}",
                                action=rng.choice(list(seen.decision.options)),
                            ),
                            metadata=auth(token),
                        )
                    except grpc.aio.AioRpcError as error:
                        refusals.append(error_info(error)[1])

            await asyncio.wait_for(yellow_plays(), 300)
            # Racing the takeover, yellow may have been told its decision was stale or
            # its token gone; nothing else.
            assert set(refusals) <= {"STALE_SEQUENCE", "TOKEN_INVALID"}
            entries = await whole_log(stub, name)
            offered_only(entries)
            kinds = [e.WhichOneof("change") for e in entries]
            assert kinds.count("seat_taken_over") == 1
            at = kinds.index("seat_taken_over")
            assert entries[at].seat_taken_over == pb.SeatTakenOver(
                colour=YELLOW, level=pb.BOT_LEVEL_GREEDY, reason=pb.TAKEOVER_REASON_TURN_TOO_LONG
            )
            # It happened at yellow's first follow-up decision, and only then.
            before = entries[at - 1].action_applied
            assert before.player == YELLOW and before.decision.player == YELLOW
            assert before.decision.kind not in (pb.DECISION_KIND_SETUP, pb.DECISION_KIND_TURN)
            for entry in entries[: at - 1]:
                if entry.HasField("action_applied") and entry.action_applied.player == YELLOW:
                    decision = entry.action_applied.decision
                    follow_up = decision.kind not in (
                        pb.DECISION_KIND_SETUP,
                        pb.DECISION_KIND_TURN,
                    )
                    assert not (decision.player == YELLOW and follow_up)
            assert (await server.registry.find(name)).bot_refusals == 0
            await replays_to_the_same_end(stub, name)

    asyncio.run(main())


def test_a_game_of_bots_that_stops_drawing_is_stopped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A bots-only game without a draw for ``stall_rounds`` rounds is stopped, logged.

    With a limit of one round, most games of six random bots go more than six
    turns without a draw at some point; a game with a person's seat never stops.
    """

    async def main() -> None:
        bots = BotConfig(strong_budget=0.05, stall_rounds=1)
        async with running(tmp_path, WHOLE_LOG, bots=bots) as (server, stub, _channel):
            names = []
            for _ in range(4):
                created = await stub.CreateGame(
                    spb.CreateGameRequest(
                        seats=COLOURS[:6], settings=bot_settings(*[pb.BOT_LEVEL_RANDOM] * 6)
                    )
                )
                names.append(created.game.name)
            person = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[YELLOW, RED], settings=bot_settings(pb.BOT_LEVEL_RANDOM)
                )
            )
            joined = await stub.JoinGame(spb.JoinGameRequest(name=person.game.name, colour=RED))
            await stub.StartGame(
                spb.StartGameRequest(name=person.game.name), metadata=auth(joined.seat_token)
            )
            await play_seat(stub, person.game.name, RED, joined.seat_token, random_chooser(3))
            got = await stub.GetGame(spb.GetGameRequest(name=person.game.name))
            assert got.snapshot.game.state == pb.GAME_STATE_FINISHED

            stopped = 0
            for name in names:
                game = (await asyncio.wait_for(finished(stub, name), 120)).game
                authority = await server.registry.find(name)
                assert authority.bot_refusals == 0
                kinds = [e.WhichOneof("change") for e in await whole_log(stub, name)]
                if game.HasField("stopped"):
                    stopped += 1
                    assert game.stopped == pb.GameStopped(reason="GAME_STALLED", rounds=1)
                    assert not game.results
                    assert kinds.count("game_stopped") == 1 and kinds[-1] == "game_stopped"
                else:
                    assert game.results and "game_stopped" not in kinds
            assert stopped > 0
            reasons = [getattr(r, "reason", None) for r in caplog.records]
            assert reasons.count("GAME_STALLED") == stopped

    caplog.set_level(logging.WARNING, logger="server.play.autoplay")
    asyncio.run(main())


def test_an_expert_bot_plays_a_seat(tmp_path: Path) -> None:
    """BOT_LEVEL_EXPERT plays through the same path as every bot (a small budget here)."""

    async def main() -> None:
        bots = BotConfig(strong_budget=0.01, expert_budget=0.02)
        async with running(tmp_path, WHOLE_LOG, bots=bots) as (server, stub, _channel):
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=COLOURS[:2],
                    settings=bot_settings(pb.BOT_LEVEL_EXPERT, pb.BOT_LEVEL_GREEDY),
                )
            )
            assert [s.bot for s in created.game.seats] == [
                pb.BOT_LEVEL_EXPERT,
                pb.BOT_LEVEL_GREEDY,
            ]
            name = created.game.name
            entries = await asyncio.wait_for(whole_log(stub, name), 300)
            offered_only(entries)
            assert (await server.registry.find(name)).bot_refusals == 0
            await replays_to_the_same_end(stub, name)

    asyncio.run(main())


def test_a_bot_thinks_no_longer_than_the_pace() -> None:
    config = BotConfig(strong_budget=0.1, expert_budget=1.0)
    assert config.budget("strong", 0.8) == 0.1
    assert config.budget("expert", 0.8) == 0.8
    assert config.budget("expert", 0.0) == 1.0


def test_a_bot_answers_by_the_end_of_the_pace() -> None:
    """With a person waiting, a bot's job carries a deadline; past it, the bot answers at once."""
    config = BotConfig()
    assert config.deadline(0.0) == 0.0
    before = time.time()
    assert before + 0.8 - ANSWER_TIME <= config.deadline(0.8) <= time.time() + 0.8
    game = Game.new(["yellow", "red"], shuffled_stack(5))
    rng = SplitMix64(5)
    while game.decision_kind != "turn" or len(game.options()) < 3:
        game.apply_option(rng.below(len(game.options())))
    drawn = len(game.initial_stack) - len(game.stack_remaining)
    for level in ("greedy", "strong", "expert"):
        job = Job(
            level=level,
            budget=1e6,  # a budget it never reaches: the deadline ends the search
            seats=tuple(game.seats),
            actions=tuple(game.actions),
            drawn=tuple(game.initial_stack[:drawn]),
            viewer=game.active_player,
            seed=1,
            deadline=1.0,
        )
        assert think(job) == {"act": "settle"}, level


def _bot_workers() -> set[int]:
    """The bot worker processes of this process's servers (spawned children)."""
    found = set()
    for pid in children(os.getpid()):
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"spawn_main" in command:
                found.add(pid)
    return found


def test_a_bot_whose_workers_die_tries_again_and_its_game_ends(tmp_path: Path) -> None:
    # One worker, killed at every search until a decision fails (the runner starts a
    # fresh pool once per decision): the bot tries again a little later, and its game
    # ends. (A bot that gave up would leave its game standing for ever: nobody else
    # moves for it.)
    bots = BotConfig(strong_budget=0.05, workers=1, processes=True)

    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG, bots) as (server, stub, _channel):
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[YELLOW, ORANGE],
                    settings=bot_settings(pb.BOT_LEVEL_STRONG, pb.BOT_LEVEL_STRONG),
                )
            )
            name = created.game.name
            authority = await server.registry.find(name)
            while authority.bot_refusals == 0 and authority.busy:
                if server.runner.searching:
                    for pid in _bot_workers():
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                await asyncio.sleep(0.01)
            stopped_at = authority.sequence
            # A whole game: as long as a busy machine needs (the bound only stops a hang).
            entries = await asyncio.wait_for(whole_log(stub, name), 600)
            assert len(entries) > stopped_at
            assert authority.bot_refusals == 1  # the decision that failed, tried again
            assert authority.bot_moves == offered_only(entries)
            await replays_to_the_same_end(stub, name)

    asyncio.run(main())
