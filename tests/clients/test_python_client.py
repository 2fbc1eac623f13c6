"""The Python client (tongiaki.client) against a real server: a game, a refusal,
and a watch and decisions that go on across a server killed and restarted."""

from __future__ import annotations

import asyncio
import random
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.clients import outcomes
from tests.launch import launch
from tests.pgcluster import free_port
from tongiaki.client import AsyncClient, Client, Refused
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb


def _decision(client: Client, name: str) -> tuple[int, pb.Decision | None]:
    snapshot = client.call("GetGame", spb.GetGameRequest(name=name)).snapshot
    decision = snapshot.view.decision if snapshot.view.HasField("decision") else None
    return snapshot.sequence, decision


def test_a_watch_and_decisions_go_on_across_a_restart(tmp_path: Path) -> None:
    port = free_port()
    args = ["--host", "127.0.0.1", "--data-dir", str(tmp_path / "data"), "--bot-pace", "0"]
    server = launch(args, tmp_path / "first", port=port)
    client = Client(f"127.0.0.1:{port}")
    try:
        name = client.create(["red", "blue"]).game.name
        tokens = {}
        for seat in ("red", "blue"):
            joined = client.join(name, seat, display_name=seat.title())
            tokens[joined.colour] = joined.seat_token
        client.start(name, tokens[pb.COLOUR_RED])

        seen: list[int] = []
        failure: list[BaseException] = []

        def watch() -> None:
            try:
                for message in client.watch(name, after=0):
                    seen.extend(entry.sequence for entry in message.entries)
            except BaseException as error:
                failure.append(error)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()

        rng = random.Random(5)

        def play(decisions: int) -> None:
            for _ in range(decisions):
                sequence, decision = _decision(client, name)
                if decision is None:
                    return
                entry = client.submit(
                    name, tokens[decision.player], rng.choice(decision.options), sequence
                )
                assert entry.sequence == sequence + 1

        play(12)
        server.kill()  # mid-game: the watch breaks, the channel finds nobody
        server = launch(args, tmp_path / "second", port=port)
        play(200)
        last, _ = _decision(client, name)
        deadline = time.monotonic() + 60
        while (not seen or seen[-1] < last) and time.monotonic() < deadline:
            assert failure == []
            time.sleep(0.05)
        # Every entry once, in order, across the restart.
        assert seen == list(range(1, last + 1))
        assert failure == []

        # A refusal carries the contract's reason.
        with pytest.raises(Refused) as refused:
            client.join(name, "red")
        assert refused.value.reason == "GAME_FULL"
        assert not refused.value.retryable
    finally:
        client.close()
        server.stop()


def test_the_async_client_plays_a_game_and_retries_a_decision_once(tmp_path: Path) -> None:
    server = launch(["--host", "127.0.0.1", "--data-dir", str(tmp_path)], tmp_path / "server")

    async def main() -> None:
        client = AsyncClient(server.address)
        try:
            name = (await client.create(["yellow", "green"])).game.name
            tokens = {}
            for _ in range(2):
                joined = await client.join(name)
                tokens[joined.colour] = joined.seat_token
            await client.start(name, tokens[pb.COLOUR_YELLOW])
            got = await client.call("GetGame", spb.GetGameRequest(name=name))
            decision = got.snapshot.view.decision
            token = tokens[decision.player]
            at = got.snapshot.sequence
            first = await client.submit(name, token, decision.options[0], at, rid="r1")
            # The same request id again (as after a lost answer): the same entry, once.
            again = await client.submit(name, token, decision.options[0], at, rid="r1")
            assert again == first
            messages = []
            async for message in client.watch(name, after=0):
                messages.append(message)
                if message.entries and message.entries[-1].sequence == first.sequence:
                    break
            assert [e.sequence for m in messages for e in m.entries] == list(
                range(1, first.sequence + 1)
            )
        finally:
            await client.close()

    try:
        asyncio.run(main())
    finally:
        server.stop()


#: The scenario's script for the Python client (tests/clients/outcomes.py); with
#: ``gateway``, the decisions go through the gateway's upstream calls instead.
SCRIPT = """
import json, sys, threading, time
import grpc
from tongiaki.client import Client
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from webclient.upstream import Upstream

address, name, tokens = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
gateway = sys.argv[4:] == ["gateway"]


def out(value):
    print(json.dumps(value), flush=True)


def retried(refused):
    out({"retry": grpc.StatusCode[refused.status].value[0]})


for seconds, code in ((10, 14), (1, 4)):
    client = Client(address, timeout=seconds)
    snapshot = client.call("GetGame", spb.GetGameRequest(name=name)).snapshot
    token = tokens[pb.Colour.Name(snapshot.view.decision.player)]
    mine = client.call("GetGame", spb.GetGameRequest(name=name), token).snapshot
    request = spb.SubmitActionRequest(
        name=name,
        sequence=mine.sequence,
        request_id=f"r{mine.sequence}",
        action=mine.view.decision.options[0],
    )
    out({"ready": mine.sequence})
    sys.stdin.readline()
    if gateway:
        upstream = Upstream(address, timeout=seconds)

        def tell():
            while not upstream.resent["SubmitAction"]:
                time.sleep(0.01)
            out({"retry": code})

        threading.Thread(target=tell, daemon=True).start()
        reply = upstream.call("SubmitAction", request, token)
        upstream.close()
    else:
        reply = client.change("SubmitAction", request, token, retried)
    out({"entry": reply.entry.sequence})
    client.close()
"""


@pytest.mark.parametrize("through", ["client", "gateway"])
def test_a_decision_of_unknown_outcome_is_sent_again_and_applied_once(
    tmp_path: Path, through: str
) -> None:
    script = tmp_path / "decide.py"
    script.write_text(SCRIPT)
    command = [sys.executable, str(script)]
    retried = outcomes.check(command, tmp_path, extra=["gateway"] if through == "gateway" else [])
    assert retried == outcomes.RETRIED
