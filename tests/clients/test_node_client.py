"""The Node.js client in clients/node, built from proto/ alone, against the real server."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from server_harness import (
    COLOURS,
    new_game,
    play_seat,
    random_chooser,
    running,
    spectate,
)

from engine import Game
from server.convert import action_from_proto
from server.gen.tongiaki.v1 import game_pb2 as pb
from server.gen.tongiaki.v1 import game_service_pb2 as spb

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"
NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(NODE is None or NPM is None, reason="Node.js is not installed")


@pytest.fixture(scope="module", autouse=True)
def node_modules() -> None:
    """Install the client's two packages from the npm registry once (npm ci)."""
    if not (CLIENT / "node_modules" / "@grpc" / "grpc-js").exists():
        assert NPM is not None
        subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, check=True)


async def node(*args: str) -> list[dict[str, Any]]:
    """Run the client; its JSON lines."""
    assert NODE is not None
    process = await asyncio.create_subprocess_exec(
        NODE,
        str(CLIENT / "tongiaki.mjs"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, err.decode()
    return [json.loads(line) for line in out.decode().splitlines()]


def test_a_node_seat_plays_a_whole_game_with_python_seats(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            name, tokens = await new_game(stub, 3)
            node_colour = COLOURS[1]
            python_seats = [
                play_seat(stub, name, colour, token, random_chooser(colour))
                for colour, token in tokens.items()
                if colour != node_colour
            ]
            played, *seen = await asyncio.gather(
                node("play", name, "--server", address, "--token", tokens[node_colour]),
                *python_seats,
            )
            listed = await node("list", "--server", address)
            record = (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record

        assert played[-1] == {"done": True, "colour": "COLOUR_ORANGE"}
        submitted = [line for line in played if "submitted" in line]
        # Replay the record with the engine: every action legal, the same end.
        seats = [pb.Colour.Name(c).removeprefix("COLOUR_").lower() for c in record.seats]
        actions = [action_from_proto(a) for a in record.actions]
        game = Game.from_record({"seats": seats, "stack": list(record.stack), "actions": actions})
        assert game.over
        mine = 0
        replay = Game.new(seats, list(record.stack))
        for action in actions:
            decision = replay.decision
            assert decision is not None
            mine += decision.player == "orange"
            replay.apply(action)
        assert len(submitted) == mine > 0
        over = [
            event.game_over
            for entry in seen[0].entries()
            if entry.WhichOneof("change") == "action_applied"
            for event in entry.action_applied.events
            if event.WhichOneof("kind") == "game_over"
        ]
        assert game.result is not None and len(over) == 1
        ranks = {
            pb.Colour.Name(r.colour).removeprefix("COLOUR_").lower(): r.rank
            for r in over[0].results
        }
        assert ranks == game.result["rank"]
        assert [g["name"] for g in listed] == [name]
        assert listed[0]["state"] == "GAME_STATE_FINISHED"

    asyncio.run(main())


def test_a_node_spectator_sees_what_a_python_watcher_sees(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            name, tokens = await new_game(stub, 4)
            watcher = asyncio.create_task(spectate(stub, name))
            # The Node watcher drops its stream every third message and resumes.
            lines_task = asyncio.create_task(
                node("watch", name, "--server", address, "--after", "0", "--drop-every", "3")
            )
            await asyncio.sleep(0.3)
            await asyncio.gather(
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in tokens.items())
            )
            reference = await watcher
            lines = await lines_task

        expected: list[tuple[int, str | None]] = []
        for entry in reference.entries():
            change = entry.WhichOneof("change")
            if change == "action_applied":
                for event in entry.action_applied.events:
                    expected.append((entry.sequence, event.WhichOneof("kind")))
            else:
                expected.append((entry.sequence, change))
        got = [(line["sequence"], line["kind"]) for line in lines if line["kind"] != "snapshot"]
        start = reference.messages[0].snapshot.sequence
        assert [g for g in got if g[0] > start] == expected
        assert ("game_over" in {kind for _, kind in got}) and len(got) > 50
        tiles = [line["data"]["tile"] for line in lines if line["kind"] == "tile_placed"]
        assert len(tiles) == len(set(tiles)) > 0

    asyncio.run(main())
