"""Each guide of the README runs exactly as written there.

The commands are read from README.md at test time (never from a copy kept
here), written to a temporary script and run by bash from the repository's
root (or from a copy of it). Ports and folders are moved out of the way only
through the flags and environment variables the README and docs/web.md document:
``TONGIAKI_WEB_PORT``, ``TONGIAKI_GAME_PORT`` and ``TONGIAKI_DATA_DIR`` for
``make run``, ``TONGIAKI_SERVER`` for the clients.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def guide(title: str) -> str:
    """The shell block of the README's paragraph that starts with ``**title.**``."""
    text = README.read_text("utf-8")
    start = text.index(f"**{title}.**")
    following = re.search(r"\n(\*\*[A-Z][^*\n]*\.\*\*|#+ )", text[start + 1 :])
    section = text[start : start + 1 + following.start()] if following else text[start:]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 1, f"the guide {title!r} has {len(blocks)} shell blocks"
    return str(blocks[0])


def first_block() -> str:
    match = re.search(r"```sh\n(.*?)```", README.read_text("utf-8"), re.S)
    assert match is not None
    return match.group(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without any TONGIAKI_ setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TONGIAKI_")}
    env.update(extra)
    return env


def run_guide(
    script: str, cwd: Path, env: dict[str, str], tmp_path: Path, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run the guide's lines with bash, stopping at the first failing one."""
    path = tmp_path / "guide.sh"
    path.write_text("set -euo pipefail\n" + script, encoding="utf-8")
    done = subprocess.run(
        ["bash", str(path)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return done


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@dataclass
class Started:
    """``make run`` as the README's first lines start it."""

    process: subprocess.Popen[str]
    ready: str
    web_port: int
    game_port: int


@pytest.fixture(scope="module")
def make_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Started]:
    lines = [line.split("#")[0].strip() for line in first_block().splitlines()]
    assert lines[0] == "make run"
    web_port, game_port = free_port(), free_port()
    env = clean_env(
        TONGIAKI_WEB_PORT=str(web_port),
        TONGIAKI_GAME_PORT=str(game_port),
        TONGIAKI_DATA_DIR=str(tmp_path_factory.mktemp("data")),
    )
    process = subprocess.Popen(
        ["bash", "-c", lines[0]],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    ready = ""
    for line in process.stdout:
        if line.startswith("Tongiaki is running"):
            ready = line.strip()
            break
    try:
        assert ready, "make run printed no ready line"
        yield Started(process, ready, web_port, game_port)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_make_run_prints_both_addresses(make_run: Started) -> None:
    web, game = make_run.web_port, make_run.game_port
    assert make_run.ready == (
        f"Tongiaki is running: open http://127.0.0.1:{web}/"
        f" (game server 127.0.0.1:{game} for gRPC clients)"
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_several_nodes_from_one_command(tmp_path: Path) -> None:
    (line,) = [x for x in guide("Several nodes from one command").splitlines() if x.strip()]
    data = tmp_path / "data"
    data.mkdir()
    # (PostgreSQL runs as its own user when the tests run as root: it must reach the folder.)
    temporary = Path(tempfile.gettempdir())
    for folder in (data, *data.parents):
        if folder == temporary or temporary not in folder.parents:
            break
        folder.chmod(folder.stat().st_mode | 0o755)
    web_port = free_port()
    env = clean_env(
        TONGIAKI_WEB_PORT=str(web_port), TONGIAKI_GAME_PORT="0", TONGIAKI_DATA_DIR=str(data)
    )
    process = subprocess.Popen(
        ["bash", "-c", line],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    try:
        ready = next((x for x in process.stdout if x.startswith("Tongiaki is running")), "")
        servers = re.search(r"game server (\S+) for gRPC", ready)
        assert servers is not None, "no ready line"
        assert len(servers.group(1).split(",")) == 3
        created = _post_json(
            f"http://127.0.0.1:{web_port}/api/v1/games", {"seats": ["COLOUR_YELLOW", "COLOUR_RED"]}
        )
        assert created["game"]["name"].startswith("games/")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
    # PostgreSQL stopped with it; its data stays in the data directory.
    assert (data / "postgresql" / "data" / "PG_VERSION").exists()
    assert not (data / "postgresql" / "data" / "postmaster.pid").exists()


def _post_json(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def test_the_node_guide(make_run: Started, tmp_path: Path) -> None:
    env = clean_env(TONGIAKI_SERVER=f"localhost:{make_run.game_port}")
    done = run_guide(guide("A client in another language"), ROOT, env, tmp_path)
    lines = json_lines(done.stdout)
    played = [line for line in lines if "submitted" in line]
    final = [line for line in lines if line.get("done")]
    events = [line for line in lines if "kind" in line]
    assert played and len(final) == 1
    assert (final[0]["colour"], final[0]["end"]) == ("COLOUR_YELLOW", "game_over")
    assert {r["colour"] for r in final[0]["results"]} == {"COLOUR_YELLOW", "COLOUR_RED"}
    # The spectator saw the whole game, its last event the end.
    assert events[-1]["kind"] == "game_over"
    assert events[-1]["data"]["results"] == final[0]["results"]


def test_the_python_client_guide(make_run: Started, tmp_path: Path) -> None:
    env = clean_env(TONGIAKI_SERVER=f"localhost:{make_run.game_port}")
    done = run_guide(guide("A Python client"), ROOT, env, tmp_path)
    lines = json_lines(done.stdout)
    final = [line for line in lines if line.get("done")]
    entries = [line["sequence"] for line in lines if "sequence" in line]
    assert len(final) == 1
    assert {r["colour"] for r in final[0]["results"]} == {"COLOUR_YELLOW", "COLOUR_RED"}
    # Every entry of the game once, in order, from the start.
    assert entries == list(range(entries[0], entries[-1] + 1)) and entries[0] <= 4


def test_the_ruby_guide(make_run: Started, tmp_path: Path) -> None:
    env = clean_env(TONGIAKI_SERVER=f"localhost:{make_run.game_port}")
    done = run_guide(guide("A client in a third language"), ROOT, env, tmp_path)
    lines = json_lines(done.stdout)
    final = next(line for line in lines if line.get("done"))
    assert final["end"] == "game_over" and final["colour"] == "COLOUR_YELLOW"
    events = [line for line in lines if "kind" in line and line["kind"] != "snapshot"]
    assert events[-1]["kind"] == "game_over"
    assert events[-1]["data"]["results"] == final["results"]
    listed = [line for line in lines if "name" in line and "seats" in line]
    assert listed and all(g["state"] == "GAME_STATE_FINISHED" for g in listed)


#: What copy_project leaves out: environments, caches and build output.
_ANYWHERE = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache"}
_AT_ROOT = {"build", "dist", "data", "test-artifacts", ".pytest_cache", "tongiaki.egg-info"}


def copy_project(target: Path) -> Path:
    """The repository's files (not its environments, caches or build output)."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        left_out = {n for n in names if n in _ANYWHERE}
        if Path(folder) == ROOT:
            left_out |= {n for n in names if n in _AT_ROOT}
        return left_out

    shutil.copytree(ROOT, target, ignore=ignore)
    return target


def test_the_library_guide(tmp_path: Path) -> None:
    """``pip install .`` into a new environment: the engine alone, then the example."""
    project = copy_project(tmp_path / "project")
    environment = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(environment)
    env = clean_env(PATH=f"{environment / 'bin'}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHONPATH", None)
    done = run_guide(guide("The engine as a library"), project, env, tmp_path)
    assert "deprecated" not in (done.stdout + done.stderr).lower()
    assert re.search(r"won \d+ of 20", done.stdout), done.stdout
    installed = subprocess.run(
        [str(environment / "bin" / "python"), "-m", "pip", "list", "--format=json"],
        capture_output=True,
        text=True,
        check=True,
    )
    names = {p["name"].lower() for p in json.loads(installed.stdout)}
    assert "tongiaki" in names
    assert not names & {"grpcio", "protobuf", "flask"}, names
    assert sys.prefix != str(environment)
