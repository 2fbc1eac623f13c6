"""Durability: a server killed with SIGKILL mid-play restarts with every acknowledged
action, and every game continues exactly where it was."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path

import grpc
from server_harness import DATABASE, auth, new_game, random_chooser

from engine import Game
from server.rpc import codec as convert
from tests.launch import Launched, launch
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc

LEASE = 1.0


def _launch(data: Path, folder: Path) -> Launched:
    """``python -m server`` on a free port, its data in ``data``."""
    shared = ["--database", DATABASE[0], "--lease", str(LEASE)] if DATABASE[0] else []
    # Shared with other nodes, a killed node's games wait for its lease to run out.
    return launch(["--host", "127.0.0.1", "--data-dir", str(data), *shared], folder)


async def _drive(
    stub: rpc.GameServiceStub,
    name: str,
    tokens: dict[int, str],
    *,
    acked: list[spb.SubmitActionResponse],
    seed: int,
    stop_at: int | None,
) -> None:
    """Play the game by submitting for whoever decides; record every acknowledgement."""
    choose = random_chooser(seed)
    snapshot = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
    sequence, decision = snapshot.sequence, snapshot.view.decision
    while decision.options and (stop_at is None or len(acked) < stop_at):
        response = await stub.SubmitAction(
            spb.SubmitActionRequest(
                name=name, sequence=sequence, request_id=f"d{sequence}", action=choose(decision)
            ),
            metadata=auth(tokens[decision.player]),
        )
        acked.append(response)
        sequence = response.entry.sequence
        decision = response.entry.action_applied.decision


def test_sigkill_mid_play_loses_no_acknowledged_action(tmp_path: Path) -> None:
    data, folder = tmp_path / "data", tmp_path / "server"
    server = _launch(data, folder)
    games: dict[str, dict[int, str]] = {}
    acked: dict[str, list[spb.SubmitActionResponse]] = {}

    async def before_kill() -> None:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = rpc.GameServiceStub(channel)
            for seats in (2, 3, 4, 5):
                name, tokens = await new_game(stub, seats)
                games[name], acked[name] = tokens, []
            drivers = [
                asyncio.create_task(_drive(stub, n, t, acked=acked[n], seed=i, stop_at=None))
                for i, (n, t) in enumerate(games.items())
            ]
            while sum(len(a) for a in acked.values()) < 120:
                await asyncio.sleep(0.005)
            server.kill()  # in mid-play, submissions in flight
            for driver in drivers:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await driver

    asyncio.run(before_kill())
    if DATABASE[0]:
        time.sleep(LEASE * 1.5)
    server = _launch(data, folder)
    try:

        async def after_restart() -> None:
            async with grpc.aio.insecure_channel(server.address) as channel:
                stub = rpc.GameServiceStub(channel)
                for i, (name, tokens) in enumerate(games.items()):
                    got = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
                    if acked[name]:
                        assert got.sequence >= acked[name][-1].entry.sequence
                    start = len(tokens) + 1
                    before = list(acked[name])
                    await _drive(stub, name, tokens, acked=acked[name], seed=100 + i, stop_at=None)
                    record = json.loads(
                        (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record_json
                    )
                    for response in before:  # every acknowledged action, in its place
                        entry = response.entry
                        step = entry.sequence - start
                        assert record["actions"][step - 1] == convert.action_from_proto(
                            entry.action_applied.action
                        )
                    # The restarted game was exactly the replay of its durable prefix.
                    prefix = Game.from_record(
                        {**record, "actions": record["actions"][: got.sequence - start]}
                    )
                    assert got.view == convert.view_to_proto(prefix.view(None))
                    final = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
                    replay = Game.from_record(record)
                    assert replay.over
                    assert final.view == convert.view_to_proto(replay.view(None))

        asyncio.run(after_restart())
    finally:
        assert server.stop() == 0
    assert os.path.exists(data / "tongiaki.sqlite3") != bool(DATABASE[0])
