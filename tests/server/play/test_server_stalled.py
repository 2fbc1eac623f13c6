"""A game that stops progressing is stopped: one ``game_stopped`` entry, durable, and
every reader (GetGame, WatchGame, ListGames, ListGameEntries, a replay at any
sequence) shows it; actions are refused with its reason code, after a restart too.

The stalling game: three greedy bots on ``shuffled_stack(224933333)`` (see
docs/bots.md) go more than one round without a draw, so a stall limit of one
round stops it early.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from server_harness import Stub, running, stalling_game

from server.game.authority import Authority, Limits
from server.game.errors import ServiceError
from server.play.botseats import BotConfig
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

#: Every entry stays replayable, so a watch after_sequence=0 sees the whole log.
WHOLE_LOG = Limits(resume_window=100_000)
#: Stop a game of bots only after one round without a draw.
STALL = BotConfig(strong_budget=0.05, stall_rounds=1)
STOPPED = pb.GameStopped(reason="GAME_STALLED", rounds=1)


async def whole_log(stub: Stub, name: str) -> list[pb.LogEntry]:
    """Every entry from the start; the stream ends with the game."""
    entries: list[pb.LogEntry] = []
    async for message in stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=0)):
        assert not message.HasField("snapshot")
        entries.extend(message.entries)
    assert [e.sequence for e in entries] == list(range(1, len(entries) + 1))
    return entries


def quiet_turns(entries: list[pb.LogEntry]) -> int:
    """Turns begun since the last tile was drawn, as the log tells it."""
    quiet = 0
    for entry in entries:
        for event in entry.action_applied.events:
            if event.HasField("tile_placed"):
                quiet = 0
            elif event.HasField("turn_started"):
                quiet += 1
    return quiet


async def refused_action(authority: Authority) -> ServiceError:
    """What submitting the board's last pending option, and a take-back, are told."""
    engine = authority.game
    assert engine is not None and engine.decision is not None  # the engine's game goes on
    option = engine.decision.options[0]
    with pytest.raises(ServiceError) as submitted:
        await authority.submit(engine.decision.player, authority.sequence, "late-1", option)
    with pytest.raises(ServiceError) as taken_back:
        await authority.take_back(engine.decision.player, authority.sequence, "late-2")
    assert taken_back.value.reason == submitted.value.reason
    return submitted.value


async def shows_it_stopped(stub: Stub, name: str, last: int) -> None:
    """GetGame (now and at each of the last two sequences), ListGames, ListGameEntries,
    WatchGame and GetGameRecord all say the game was stopped at ``last``."""
    get = stub.GetGame
    now = (await get(spb.GetGameRequest(name=name))).snapshot
    assert now.sequence == last
    assert now.game.state == pb.GAME_STATE_FINISHED
    assert now.game.stopped == STOPPED
    assert not now.game.results and not now.view.result
    assert not now.view.HasField("decision")  # nobody is to decide
    at = (await get(spb.GetGameRequest(name=name, at_sequence=last))).snapshot
    assert at.game.stopped == STOPPED and not at.view.HasField("decision")
    before = (await get(spb.GetGameRequest(name=name, at_sequence=last - 1))).snapshot
    assert before.game.state == pb.GAME_STATE_ACTIVE
    assert not before.game.HasField("stopped") and before.view.HasField("decision")

    listed = await stub.ListGames(spb.ListGamesRequest(state=pb.GAME_STATE_FINISHED))
    [game] = [g for g in listed.games if g.name == name]
    assert game.stopped == STOPPED and not game.results

    page = await stub.ListGameEntries(
        spb.ListGameEntriesRequest(name=name, after_sequence=last - 1)
    )
    assert [e.WhichOneof("change") for e in page.entries] == ["game_stopped"]
    assert page.entries[0].game_stopped == STOPPED

    # A new watch starts with the stopped game's snapshot, and ends there.
    messages = [m async for m in stub.WatchGame(spb.WatchGameRequest(name=name))]
    assert len(messages) == 1
    assert messages[0].snapshot.game.stopped == STOPPED

    # Its record is public, and ends where it stopped.
    record = await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))
    assert len(record.record.actions) > 0


def test_a_stalled_game_is_stopped_once_and_every_reader_shows_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> None:
        async with running(tmp_path, WHOLE_LOG, bots=STALL) as (server, stub, _channel):
            authority = await stalling_game(server)
            name = authority.name
            entries = await asyncio.wait_for(whole_log(stub, name), 300)
            kinds = [e.WhichOneof("change") for e in entries]
            assert kinds.count("game_stopped") == 1
            assert kinds[-1] == "game_stopped", "the stop is the last entry"
            assert entries[-1].game_stopped == STOPPED
            assert not any(
                event.HasField("game_over") for e in entries for event in e.action_applied.events
            )
            # It stopped at the first bot decision past one round (three turns) without a draw.
            assert quiet_turns(entries) == 4 == authority.quiet_turns
            last = entries[-1].sequence
            await shows_it_stopped(stub, name, last)

            error = await refused_action(authority)
            assert error.reason == "GAME_STALLED"
            assert error.metadata == {"rounds": "1"}
            # Stopping it again changes nothing.
            assert not await authority.stop_stalled(authority.decided, 1)
            await asyncio.sleep(0.3)  # the bots play no more
            assert authority.sequence == last
            assert authority.bot_refusals == 0 and not authority.busy
            reasons = [getattr(r, "reason", None) for r in caplog.records]
            assert reasons.count("GAME_STALLED") == 1

        # After a restart the game is read back stopped: nothing is appended, nothing plays.
        async with running(tmp_path, WHOLE_LOG, bots=STALL) as (server, stub, _channel):
            entries = await asyncio.wait_for(whole_log(stub, name), 60)
            assert [e.WhichOneof("change") for e in entries].count("game_stopped") == 1
            assert entries[-1].sequence == last
            await shows_it_stopped(stub, name, last)
            # The copy SubmitAction and TakeBack change (the owner's, taken up here).
            owned = await server.registry.owned(name)
            assert isinstance(owned, Authority) and owned.owner
            authority = owned
            assert authority.stopped == {"reason": "GAME_STALLED", "rounds": 1}
            assert authority.quiet_turns == 4
            error = await refused_action(authority)
            assert error.reason == "GAME_STALLED"
            authority.resume()
            await asyncio.sleep(0.3)
            assert authority.sequence == last and authority.bot_moves == 0

    caplog.set_level(logging.WARNING, logger="server.play.autoplay")
    asyncio.run(main())


@pytest.mark.postgres_only
def test_a_node_that_takes_a_stopped_game_over_leaves_it_stopped(tmp_path: Path) -> None:
    """Two nodes on one database: the other node reads the game stopped, and once the
    owner is gone it takes the game over without appending or playing anything."""

    async def main() -> None:
        async with running(tmp_path / "b", WHOLE_LOG, bots=STALL, lease=2.0) as (other, two, _):
            async with running(tmp_path / "a", WHOLE_LOG, bots=STALL, lease=2.0) as (
                owner,
                one,
                _channel,
            ):
                name = (await stalling_game(owner)).name
                entries = await asyncio.wait_for(whole_log(one, name), 300)
                last = entries[-1].sequence
                assert entries[-1].game_stopped == STOPPED
                await shows_it_stopped(two, name, last)
            # The owner is gone: the other node takes the game once its lease ran out.
            deadline = time.monotonic() + 60
            while not isinstance(owned := await other.registry.owned(name), Authority):
                assert time.monotonic() < deadline, owned
                await asyncio.sleep(0.1)
            assert owned.owner and owned.stopped == {"reason": "GAME_STALLED", "rounds": 1}
            error = await refused_action(owned)
            assert error.reason == "GAME_STALLED"
            owned.resume()
            await asyncio.sleep(0.3)
            assert owned.sequence == last and owned.bot_moves == 0
            entries = await asyncio.wait_for(whole_log(two, name), 60)
            assert [e.WhichOneof("change") for e in entries].count("game_stopped") == 1
            assert entries[-1].sequence == last

    asyncio.run(main())
