"""Every client (Python, the gateway, Node, Ruby) sends CreateGame, JoinGame and
StartGame with a fresh request id and, when the answer is lost, sends the same
request again: one game is made, each join takes one seat, the game starts once."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from server_harness import Stub, running

from tests.clients.lossy import Lossy
from tongiaki.client import Client
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from webclient import close_app, create_app

ROOT = Path(__file__).resolve().parents[2]
NODE_CLIENT = ROOT / "clients" / "node"
LOST = {"CreateGame", "JoinGame", "StartGame"}


def _python(address: str) -> tuple[str, list[str]]:
    client = Client(address)
    try:
        name = client.create(["yellow", "red"]).game.name
        tokens = [client.join(name, display_name=f"p{i}").seat_token for i in range(2)]
        client.start(name, tokens[0])
        return name, tokens
    finally:
        client.close()


def _gateway(address: str) -> tuple[str, list[str]]:
    app = create_app({"TONGIAKI_SERVER": address, "TONGIAKI_HEARTBEAT": 2.0})
    try:
        http = app.test_client()

        def post(path: str, body: dict[str, Any], token: str = "") -> Any:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            reply = http.post(f"/api/v1{path}", json=body, headers=headers)
            assert reply.status_code == 200, reply.get_json()
            return reply.get_json()

        name = post("/games", {"seats": ["COLOUR_YELLOW", "COLOUR_RED"]})["game"]["name"]
        game = name.removeprefix("games/")
        tokens = [post(f"/games/{game}/join", {})["seat_token"] for _ in range(2)]
        post(f"/games/{game}/start", {}, tokens[0])
        return name, tokens
    finally:
        close_app(app)


async def _run(*command: str) -> str:
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=180)
    assert process.returncode == 0, err.decode()
    return out.decode().strip()


async def _cli(command: list[str], address: str) -> tuple[str, list[str]]:
    """Create, join twice and start with a command-line client (Node or Ruby)."""
    server = ["--server", address]
    name = await _run(*command, "create", *server, "--seats", "yellow,red")
    tokens = [await _run(*command, "join", name, *server) for _ in range(2)]
    started = json.loads(await _run(*command, "start", name, *server, "--token", tokens[0]))
    assert started["state"] == "GAME_STATE_ACTIVE"
    return name, tokens


def _node() -> list[str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js is not installed")
    if not (NODE_CLIENT / "node_modules" / "@grpc" / "grpc-js").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_CLIENT, check=True)
    return [node, str(NODE_CLIENT / "tongiaki.mjs")]


def _ruby() -> list[str]:
    subprocess.run(["make", "--no-print-directory", "ruby-client"], cwd=ROOT, check=True)
    ruby = shutil.which("ruby")
    assert ruby is not None
    return [ruby, str(ROOT / "clients" / "ruby" / "tongiaki.rb")]


async def _check(stub: Stub, relay: Lossy, name: str, tokens: list[str]) -> None:
    """One game, two seats taken with the tokens given, one start; each lost call
    was sent again with its request id, and each logical call had its own."""
    listed = await stub.ListGames(spb.ListGamesRequest())
    assert [game.name for game in listed.games] == [name]
    snapshot = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
    assert snapshot.game.state == pb.GAME_STATE_ACTIVE
    for token in tokens:  # each token is a seat's
        seat = await stub.GetGame(
            spb.GetGameRequest(name=name), metadata=[("authorization", f"Bearer {token}")]
        )
        assert seat.snapshot.view.viewer
    entries = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
    kinds = [e.WhichOneof("change") for e in entries.entries]
    assert kinds == ["seat_joined", "seat_joined", "game_started"]
    assert not relay.lose, "an answer was to be lost and was not"
    for method, calls in (("CreateGame", 1), ("JoinGame", 2), ("StartGame", 1)):
        ids = relay.request_ids(method)
        assert len(ids) > calls, (method, ids)  # the lost answer's call came again
        assert all(ids) and ids[0] == ids[1], (method, ids)
        assert len(set(ids)) == calls, (method, ids)


@pytest.mark.parametrize("client", ["python", "gateway", "node", "ruby"])
def test_a_lost_answer_to_create_join_or_start_is_sent_again_and_acted_on_once(
    tmp_path: Path, client: str
) -> None:
    command = _node() if client == "node" else _ruby() if client == "ruby" else []

    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            relay = Lossy(f"127.0.0.1:{server.port}", LOST)
            address = await relay.start()
            try:
                if client == "python":
                    name, tokens = await asyncio.to_thread(_python, address)
                elif client == "gateway":
                    name, tokens = await asyncio.to_thread(_gateway, address)
                else:
                    name, tokens = await _cli(command, address)
                await _check(stub, relay, name, tokens)
            finally:
                await relay.stop()

    asyncio.run(main())
