"""The fault suite (tests/faults.py), short: each fault once, a few games."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import grpc
import pytest
import server_harness
from server_harness import Stub, running

from engine import Game
from server.game.authority import Limits
from server.play.botseats import BotConfig
from tests import faults
from tests.pgcluster import PgCluster
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

pytestmark = pytest.mark.postgres_only

T = TypeVar("T")


def test_nodes_survive_kills_pauses_database_restarts_and_wrong_addresses(
    tmp_path: Path,
) -> None:
    # A cluster of its own: the suite restarts it.
    with PgCluster(durable=False) as pg:
        report = asyncio.run(faults.run(pg, tmp_path, games=6, log=print))
    figures = report.figures()
    print(figures)
    assert report.faults == dict.fromkeys(faults.FAULTS, 1)
    assert report.acknowledged > 0
    assert not report.lost, report.lost
    assert not report.doubled, report.doubled
    assert report.unwritable_after_restart == 0
    assert not report.processes_left, report.processes_left
    assert not report.address_faults, report.address_faults
    assert report.takeover, "no game was taken over"
    assert not report.unfinished, report.unfinished
    assert not report.watch_mismatches, report.watch_mismatches


async def _call(call: Callable[[], Awaitable[T]]) -> T:
    """``call()``, sent again while the node cannot reach its database (a retryable refusal)."""
    while True:
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            if error.code() not in faults.RETRYABLE:
                raise
            await asyncio.sleep(0.05)


async def _watch_whole(stub: Stub, name: str) -> list[pb.LogEntry]:
    """Every entry of the game from the start, resuming whenever the stream breaks."""
    entries: list[pb.LogEntry] = []
    while True:
        request = spb.WatchGameRequest(name=name, after_sequence=len(entries))
        try:
            async for message in stub.WatchGame(request):
                entries.extend(message.entries)
            return entries
        except grpc.aio.AioRpcError as error:
            if error.code() not in (*faults.RETRYABLE, grpc.StatusCode.ABORTED):
                raise
            await asyncio.sleep(0.05)


def test_a_game_whose_bot_is_to_move_at_a_database_restart_ends(tmp_path: Path) -> None:
    # A game of bots only: a bot is to move (thinking or writing) when the database
    # restarts. The node's copy breaks at the failed write; the node, still the
    # game's owner in the database, takes it up again and its bots play it to the end.
    async def main(pg: PgCluster) -> None:
        bots = BotConfig(strong_budget=0.02)
        async with running(tmp_path, Limits(resume_window=100_000), bots) as (_, stub, _):
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[pb.COLOUR_YELLOW, pb.COLOUR_ORANGE],
                    settings=pb.GameSettings(
                        bots=[
                            pb.BotSeat(colour=pb.COLOUR_YELLOW, level=pb.BOT_LEVEL_STRONG),
                            pb.BotSeat(colour=pb.COLOUR_ORANGE, level=pb.BOT_LEVEL_STRONG),
                        ]
                    ),
                )
            )
            name = created.game.name
            watched = asyncio.ensure_future(_watch_whole(stub, name))
            request = spb.GetGameRequest(name=name)
            while (await _call(lambda: stub.GetGame(request))).snapshot.sequence < 10:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(pg.restart)
            # The bound only stops a hang: a busy machine plays on as long as it needs.
            seen = await asyncio.wait_for(watched, 600)
            got = await _call(lambda: stub.GetGame(request))
            assert got.snapshot.game.state == pb.GAME_STATE_FINISHED
            listed = await _call(
                lambda: stub.ListGameEntries(spb.ListGameEntriesRequest(name=name, page_size=2000))
            )
            log = list(listed.entries)
            assert [e.sequence for e in log] == list(range(1, len(log) + 1))
            assert log[-1].action_applied.events[-1].HasField("game_over")
            assert seen == log  # each entry once, in order, across the restart
            record = await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))
            assert Game.from_record(json.loads(record.record_json), checked=True).over

    with PgCluster(durable=False) as pg:
        server_harness.DATABASE[0] = pg.create_database()
        asyncio.run(main(pg))
