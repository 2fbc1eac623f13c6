"""The Node.js client in clients/node, built from proto/ alone, against the real server."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import server_harness
from server_harness import (
    CHATTY,
    COLOURS,
    auth,
    chatter,
    finished,
    new_game,
    play_seat,
    random_chooser,
    running,
    spectate,
    stalling_game,
)

from engine import Game
from server.play.botseats import BotConfig
from server.rpc.codec import action_from_proto
from tests.clients import outcomes
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

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


async def run_node(*args: str) -> tuple[int, str, str]:
    """Run the client: its exit status, standard output and standard error."""
    assert NODE is not None
    process = await asyncio.create_subprocess_exec(
        NODE,
        str(CLIENT / "tongiaki.mjs"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def node(*args: str) -> list[dict[str, Any]]:
    """Run the client, which must succeed; its JSON lines."""
    status, out, err = await run_node(*args)
    assert status == 0, err
    return [json.loads(line) for line in out.splitlines()]


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

        assert played[-1]["done"] is True and played[-1]["colour"] == "COLOUR_ORANGE"
        assert played[-1]["end"] == "game_over"
        assert played[-1]["state"] == "GAME_STATE_FINISHED"
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


def results_of(record: pb.GameRecord) -> dict[str, int]:
    """The ranks of a finished game, replayed with the engine."""
    seats = [pb.Colour.Name(c).removeprefix("COLOUR_").lower() for c in record.seats]
    actions = [action_from_proto(a) for a in record.actions]
    game = Game.from_record({"seats": seats, "stack": list(record.stack), "actions": actions})
    assert game.result is not None
    return {f"COLOUR_{c.upper()}": r for c, r in game.result["rank"].items()}


def test_play_right_after_join_waits_for_the_start(tmp_path: Path) -> None:
    """The guide's order: join, then play, before anyone started the game."""

    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            status, out, _ = await run_node(
                "create", "--server", address, "--seats", "yellow,red", "--bots", "red"
            )
            assert status == 0
            name = out.strip()
            assert name.startswith("games/")
            status, out, err = await run_node(
                "join", name, "--server", address, "--colour", "yellow"
            )
            assert status == 0 and "COLOUR_YELLOW" in err
            token = out.strip()
            player = asyncio.create_task(node("play", name, "--server", address, "--token", token))
            await asyncio.sleep(1.0)
            assert not player.done()  # waiting for the start, not crashing
            status, out, _ = await run_node("start", name, "--server", address, "--token", token)
            assert status == 0 and json.loads(out)["state"] == "GAME_STATE_ACTIVE"
            played = await player
            record = (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record
            # A finished game: play answers at once with the result.
            again = await node("play", name, "--server", address, "--token", token)

        done = played[-1]
        assert (done["colour"], done["end"]) == ("COLOUR_YELLOW", "game_over")
        assert {r["colour"]: r["rank"] for r in done["results"]} == results_of(record)
        assert any("submitted" in line for line in played)
        assert len(again) == 1 and again[0]["end"] == "game_over"
        assert again[0]["results"] == done["results"]

    asyncio.run(main())


def test_play_with_start_starts_the_game_once_every_seat_is_taken(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            name, tokens = await new_game(stub, 2, start_game=False)
            # Both seats play in Node; only one of them starts the game.
            played = await asyncio.gather(
                node("play", name, "--server", address, "--token", tokens[COLOURS[0]], "--start"),
                node("play", name, "--server", address, "--token", tokens[COLOURS[1]]),
            )
            record = (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record

        assert [p[-1]["end"] for p in played] == ["game_over", "game_over"]
        assert sum(len(p) - 1 for p in played) == len(record.actions)

    asyncio.run(main())


def test_play_stops_when_its_seat_is_given_up(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            created = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[pb.COLOUR_YELLOW, pb.COLOUR_RED],
                    settings=pb.GameSettings(leave_bot=pb.BOT_LEVEL_RANDOM),
                )
            )
            name = created.game.name
            token = (
                await stub.JoinGame(spb.JoinGameRequest(name=name, colour=pb.COLOUR_YELLOW))
            ).seat_token
            # Red is a person who never moves: yellow's Node seat waits for red's turns.
            red = (
                await stub.JoinGame(spb.JoinGameRequest(name=name, colour=pb.COLOUR_RED))
            ).seat_token
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(red))
            player = asyncio.create_task(node("play", name, "--server", address, "--token", token))
            while True:  # yellow placed its first ship: red is to decide
                view = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.view
                if view.decision.player == pb.COLOUR_RED:
                    break
                await asyncio.sleep(0.05)
            await stub.LeaveGame(spb.LeaveGameRequest(name=name), metadata=auth(token))
            played = await player

        assert played[-1]["end"] == "seat_left" and played[-1]["state"] == "GAME_STATE_ACTIVE"
        assert [line["submitted"] for line in played[:-1]] == ["setup"]

    asyncio.run(main())


def test_bad_input_gets_a_reason_and_a_usage_status(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            name, _ = await new_game(stub, 2, start_game=False)
            status, _, err = await run_node("play", name, "--server", address, "--token", "nope")
            assert (status, err.split(":")[0]) == (1, "TOKEN_INVALID")
            status, _, err = await run_node("create", "--server", address, "--seats", "pink")
            assert status == 2 and "pink is not a colour" in err
            status, _, err = await run_node("join", "--server", address)
            assert status == 2 and "games/ID" in err
            status, _, err = await run_node("frobnicate")
            assert status == 2 and "usage" in err
            status, _, err = await run_node("list", "--server", "127.0.0.1:1", "--wait", "0.5")
            assert status == 1 and "no game server answers" in err

    asyncio.run(main())


def test_the_node_client_spreads_over_nodes_and_goes_on_while_one_is_down(
    tmp_path: Path, pg_url: str
) -> None:
    async def main() -> None:
        server_harness.DATABASE[0] = pg_url
        try:
            async with (
                running(tmp_path / "one") as (first, _, _),
                running(tmp_path / "two") as (second, _, _),
            ):
                servers = f"127.0.0.1:{first.port},localhost:{second.port}"
                names = set()
                for _ in range(4):
                    code, out, err = await run_node(
                        "create", "--seats", "yellow,red", "--server", servers
                    )
                    assert code == 0, err
                    names.add(out.strip())
                listed = await node("list", "--server", servers)
                assert {g["name"] for g in listed} == names
                await first.stop(0.5)
                # The first node is gone: every call goes on at the second.
                for _ in range(4):
                    again = await node("list", "--server", servers)
                    assert {g["name"] for g in again} == names
                code, _, err = await run_node("list", "--server", "nowhere")
                assert code == 2 and "HOST:PORT" in err
        finally:
            server_harness.DATABASE[0] = None

    asyncio.run(main())


def test_a_node_seat_plays_on_while_the_others_send_quick_messages(tmp_path: Path) -> None:
    """Quick messages are entries of the log that change nothing: the client follows
    them and its actions, chosen before or after them, are taken."""

    async def main() -> None:
        async with running(tmp_path, CHATTY) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            name, tokens = await new_game(stub, 3)
            mine = COLOURS[1]
            others = {c: t for c, t in tokens.items() if c != mine}
            played, sent, *_ = await asyncio.gather(
                node("play", name, "--server", address, "--token", tokens[mine]),
                chatter(stub, name, [*others.values(), tokens[mine]]),
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in others.items()),
            )
            page = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name, page_size=2000))
        assert played[-1]["end"] == "game_over" and played[-1]["colour"] == "COLOUR_ORANGE"
        assert sent > 0
        assert any(e.HasField("message_sent") for e in page.entries)

    asyncio.run(main())


#: The scenario's script for the Node client (tests/clients/outcomes.py).
SCRIPT = """
import readline from "node:readline";
import { call, change, connect } from "CLIENT";

const [address, name, json] = process.argv.slice(2);
const tokens = JSON.parse(json);
const client = await connect(address);
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const out = (value) => process.stdout.write(`${JSON.stringify(value)}\\n`);
for (const seconds of [10, 1]) {
  const { snapshot } = await call(client, "GetGame", { name });
  const token = tokens[snapshot.view.decision.player];
  const mine = (await call(client, "GetGame", { name }, token)).snapshot;
  const request = {
    name,
    sequence: mine.sequence,
    request_id: `r${mine.sequence}`,
    action: mine.view.decision.options[0],
  };
  out({ ready: mine.sequence });
  await lines.next();
  const { entry } = await change(client, "SubmitAction", request, token, {
    seconds,
    onRetry: (error) => out({ retry: error.code }),
  });
  out({ entry: entry.sequence });
}
client.close();
process.exit(0);
"""


def test_a_decision_of_unknown_outcome_is_sent_again_and_applied_once(tmp_path: Path) -> None:
    assert NODE is not None
    script = tmp_path / "decide.mjs"
    script.write_text(SCRIPT.replace("CLIENT", (CLIENT / "tongiaki.mjs").as_uri()))
    assert outcomes.check([NODE, str(script)], tmp_path) == outcomes.RETRIED


def test_a_node_watcher_sees_the_game_the_server_stopped(tmp_path: Path) -> None:
    """The game_stopped entry is one more line, the last; the watch ends with it."""

    async def main() -> None:
        stall = BotConfig(strong_budget=0.05, stall_rounds=1)
        async with running(tmp_path, bots=stall) as (server, stub, _):
            name = (await stalling_game(server)).name
            snapshot = await asyncio.wait_for(finished(stub, name), 120)
            assert snapshot.game.stopped.reason == "GAME_STALLED"
            lines = await node(
                "watch", name, "--server", f"127.0.0.1:{server.port}", "--after", "0"
            )
        assert lines[-1] == {
            "sequence": snapshot.sequence,
            "kind": "game_stopped",
            "data": {"reason": "GAME_STALLED", "rounds": 1},
        }
        assert [line["kind"] for line in lines].count("game_stopped") == 1

    asyncio.run(main())
