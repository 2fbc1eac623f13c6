"""The Ruby client in clients/ruby, its code generated from proto/ alone, on the real server."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from server_harness import (
    CHATTY,
    COLOURS,
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

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "ruby" / "tongiaki.rb"


@pytest.fixture(scope="module", autouse=True)
def generated() -> None:
    """Debian's ruby-grpc and the code from proto/, as `make ruby-client` makes them."""
    subprocess.run(["make", "--no-print-directory", "ruby-client"], cwd=ROOT, check=True)
    assert shutil.which("ruby") is not None


async def run_ruby(*args: str) -> tuple[int, str, str]:
    """Run the client: its exit status, standard output and standard error."""
    process = await asyncio.create_subprocess_exec(
        "ruby",
        str(CLIENT),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=180)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def ruby(*args: str) -> list[dict[str, Any]]:
    """Run the client, which must succeed; its JSON lines."""
    status, out, err = await run_ruby(*args)
    assert status == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_a_ruby_seat_plays_a_whole_game_with_python_seats(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            name, tokens = await new_game(stub, 3)
            ruby_colour = COLOURS[2]
            python_seats = [
                play_seat(stub, name, colour, token, random_chooser(colour))
                for colour, token in tokens.items()
                if colour != ruby_colour
            ]
            played, *_ = await asyncio.gather(
                ruby("play", name, "--server", address, "--token", tokens[ruby_colour]),
                *python_seats,
            )
            listed = await ruby("list", "--server", address, "--state", "finished")
            record = (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record

        done = played[-1]
        assert (done["colour"], done["end"], done["state"]) == (
            "COLOUR_RED",
            "game_over",
            "GAME_STATE_FINISHED",
        )
        seats = [pb.Colour.Name(c).removeprefix("COLOUR_").lower() for c in record.seats]
        actions = [action_from_proto(a) for a in record.actions]
        replay = Game.new(seats, list(record.stack))
        mine = 0
        for action in actions:
            assert replay.decision is not None
            mine += replay.decision.player == "red"
            replay.apply(action)
        assert replay.over and replay.result is not None
        assert len(played) - 1 == mine > 0
        ranks = {r["colour"]: r["rank"] for r in done["results"]}
        assert ranks == {f"COLOUR_{c.upper()}": r for c, r in replay.result["rank"].items()}
        assert [g["name"] for g in listed] == [name]

    asyncio.run(main())


def test_a_ruby_spectator_resumes_and_sees_what_a_python_watcher_sees(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            name, tokens = await new_game(stub, 4)
            watcher = asyncio.create_task(spectate(stub, name))
            # The Ruby watcher drops its stream every third message and resumes.
            lines_task = asyncio.create_task(
                ruby("watch", name, "--server", address, "--after", "0", "--drop-every", "3")
            )
            await asyncio.sleep(1.0)
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
        assert "game_over" in {kind for _, kind in got} and len(got) > 50

    asyncio.run(main())


def test_a_ruby_seat_joined_before_the_start_waits_then_starts_the_game(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, _stub, _):
            address = f"127.0.0.1:{server.port}"
            status, out, _ = await run_ruby(
                "create", "--server", address, "--seats", "yellow,green", "--bots", "green"
            )
            assert status == 0
            name = out.strip()
            status, out, err = await run_ruby("join", name, "--server", address)
            assert status == 0 and "COLOUR_YELLOW" in err
            played = await ruby(
                "play", name, "--server", address, "--token", out.strip(), "--start"
            )
            again = await ruby("play", name, "--server", address, "--token", out.strip())
            status, _, err = await run_ruby("play", name, "--server", address, "--token", "nope")
            assert (status, err.split(":")[0]) == (1, "TOKEN_INVALID")
            status, _, err = await run_ruby("join", "--server", address)
            assert status == 2 and "games/ID" in err

        assert played[-1]["end"] == "game_over" and len(played) > 2
        assert again == [played[-1]]

    asyncio.run(main())


def test_a_ruby_seat_plays_on_while_the_others_send_quick_messages(tmp_path: Path) -> None:
    """Quick messages are entries of the log that change nothing: the client follows
    them and its actions, chosen before or after them, are taken."""

    async def main() -> None:
        async with running(tmp_path, CHATTY) as (server, stub, _):
            address = f"127.0.0.1:{server.port}"
            name, tokens = await new_game(stub, 3)
            mine = COLOURS[2]
            others = {c: t for c, t in tokens.items() if c != mine}
            played, sent, *_ = await asyncio.gather(
                ruby("play", name, "--server", address, "--token", tokens[mine]),
                chatter(stub, name, [*others.values(), tokens[mine]]),
                *(play_seat(stub, name, c, t, random_chooser(c)) for c, t in others.items()),
            )
            page = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name, page_size=2000))
        assert played[-1]["end"] == "game_over" and played[-1]["colour"] == "COLOUR_RED"
        assert sent > 0
        assert any(e.HasField("message_sent") for e in page.entries)

    asyncio.run(main())


#: The scenario's script for the Ruby client (tests/clients/outcomes.py).
SCRIPT = """
require 'json'
require CLIENT

address, name, json = ARGV
tokens = JSON.parse(json)
stub = Tongiaki::V1::GameService::Stub.new(address, :this_channel_is_insecure,
                                           channel_args: Tongiaki::CHANNEL_ARGS)
out = ->(value) { puts(JSON.generate(value)) || $stdout.flush }
[10, 1].each do |seconds|
  snapshot = stub.get_game(Tongiaki::V1::GetGameRequest.new(name: name)).snapshot
  token = tokens[snapshot.view.decision.player.to_s]
  mine = stub.get_game(Tongiaki::V1::GetGameRequest.new(name: name),
                      **Tongiaki.auth(token)).snapshot
  request = Tongiaki::V1::SubmitActionRequest.new(name: name, sequence: mine.sequence,
                                                  request_id: "r#{mine.sequence}",
                                                  action: mine.view.decision.options[0])
  out.call(ready: mine.sequence)
  $stdin.gets
  retried = ->(e) { out.call(retry: e.code) }
  reply = Tongiaki.change(stub, :submit_action, request, token, seconds: seconds, on_retry: retried)
  out.call(entry: reply.entry.sequence)
end
"""


def test_a_decision_of_unknown_outcome_is_sent_again_and_applied_once(tmp_path: Path) -> None:
    script = tmp_path / "decide.rb"
    script.write_text(SCRIPT.replace("CLIENT", repr(str(CLIENT))))
    assert outcomes.check(["ruby", str(script)], tmp_path) == outcomes.RETRIED


def test_a_ruby_watcher_sees_the_game_the_server_stopped(tmp_path: Path) -> None:
    """The game_stopped entry is one more line, the last; the watch ends with it."""

    async def main() -> None:
        stall = BotConfig(strong_budget=0.05, stall_rounds=1)
        async with running(tmp_path, bots=stall) as (server, stub, _):
            name = (await stalling_game(server)).name
            snapshot = await asyncio.wait_for(finished(stub, name), 120)
            assert snapshot.game.stopped.reason == "GAME_STALLED"
            lines = await ruby(
                "watch", name, "--server", f"127.0.0.1:{server.port}", "--after", "0"
            )
        assert lines[-1]["kind"] == "game_stopped"
        assert lines[-1]["sequence"] == snapshot.sequence
        assert lines[-1]["data"] == {"reason": "GAME_STALLED", "rounds": 1}
        assert [line["kind"] for line in lines].count("game_stopped") == 1

    asyncio.run(main())
