"""``python -m engine``: replay to a trace, random games, exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine import canonical

from .helpers import VECTORS, load

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_replay_prints_the_trace() -> None:
    path = VECTORS / "overflow.json"
    done = run("replay", str(path))
    assert done.returncode == 0, done.stderr
    expected = "".join(canonical(s) + "\n" for s in load(path)["trace"])
    assert done.stdout == expected


def test_replay_reads_a_bare_record_from_stdin() -> None:
    vector = load(VECTORS / "royal-bounce.json")
    done = run("replay", "-", stdin=json.dumps(vector["record"]))
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == canonical(vector["trace"][-1])


def test_an_illegal_action_ends_the_trace_with_an_error_line() -> None:
    record: dict[str, Any] = load(VECTORS / "overflow.json")["record"]
    record["actions"] = [*record["actions"][:3], {"act": "settle"}]
    done = run("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 3
    lines = done.stdout.splitlines()
    assert len(lines) == 5  # the start, three actions, then the error
    assert json.loads(lines[-1])["error"]["step"] == 3


def test_an_action_after_the_game_is_over_is_an_error() -> None:
    record: dict[str, Any] = load(VECTORS / "settle-ends-game.json")["record"]
    record["actions"].append({"act": "settle"})
    done = run("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 3
    assert json.loads(done.stdout.splitlines()[-1])["error"]["step"] == len(record["actions"]) - 1


def test_a_float_is_not_an_integer() -> None:
    record: dict[str, Any] = load(VECTORS / "overflow.json")["record"]
    record["actions"][0] = {"act": "setup", "beach": [0, 0, 1.0]}
    done = run("replay", "-", stdin=json.dumps(record))
    assert done.returncode == 3


def test_invalid_records_exit_with_status_2() -> None:
    good: dict[str, Any] = load(VECTORS / "overflow.json")["record"]
    bad_records = [
        "not json",
        json.dumps({**good, "seats": ["yellow"]}),
        json.dumps({**good, "seats": ["yellow", "yellow"]}),
        json.dumps({**good, "seats": ["yellow", "pink"]}),
        json.dumps({**good, "stack": good["stack"][:-1]}),
        json.dumps({**good, "stack": [*good["stack"][:-1], good["stack"][0]]}),
        json.dumps([1, 2, 3]),
    ]
    for text in bad_records:
        done = run("replay", "-", stdin=text)
        assert done.returncode == 2, text
        assert done.stdout == ""
        assert "invalid record" in done.stderr


def test_random_prints_a_record_that_replays() -> None:
    done = run("random", "--seats", "3", "--seed", "11")
    assert done.returncode == 0
    record = json.loads(done.stdout)
    assert record["seats"] == ["yellow", "orange", "red"]
    again = run("random", "--seats", "3", "--seed", "11")
    assert again.stdout == done.stdout, "a seed gives the same game"
    trace = run("replay", "-", stdin=done.stdout)
    assert trace.returncode == 0
    assert json.loads(trace.stdout.splitlines()[-1])["result"] is not None


def test_a_reader_that_stops_early_is_no_invalid_record() -> None:
    """``python -m engine replay RECORD | head``: quiet, status 141 as for SIGPIPE."""
    process = subprocess.Popen(
        [sys.executable, "-m", "engine", "replay", str(VECTORS / "random-6-1.json")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # as `head -1` does; the trace is far longer than a pipe holds
    status = process.wait(timeout=60)
    error = process.stderr.read()
    assert json.loads(first)["decision"]["kind"] == "setup"
    assert status == 141
    assert error == ""
