"""``python -m webclient`` (``make run``) on a game-server port that is taken."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import grpc
import pytest

from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc
from webclient.run import GAME_PORT, ServerProcess, parse

ROOT = Path(__file__).resolve().parents[2]


def test_the_game_server_port_is_50051_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TONGIAKI_GAME_PORT", raising=False)
    assert parse([]).game_port == GAME_PORT == 50051
    assert parse(["--game-port", "6000"]).game_port == 6000
    monkeypatch.setenv("TONGIAKI_GAME_PORT", "6001")
    assert parse([]).game_port == 6001


def test_a_taken_game_server_port_is_an_error_that_says_what_to_do(tmp_path: Path) -> None:
    running = ServerProcess(tmp_path / "first", quiet=True)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "webclient",
                "--port",
                "0",
                "--game-port",
                str(running.port),
                "--data-dir",
                str(tmp_path / "second"),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        running.stop()
    assert done.returncode == 1
    assert "Tongiaki is running" not in done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert f"port {running.port} is taken: --game-port (or TONGIAKI_GAME_PORT)" in last


def _ready(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("Tongiaki is running"):
            return line.strip()
    raise AssertionError("no ready line")


def test_several_nodes_on_one_database_behind_one_gateway(tmp_path: Path, pg_url: str) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "webclient",
            "--port",
            "0",
            "--game-port",
            "0",
            "--nodes",
            "3",
            "--database",
            pg_url,
            "--data-dir",
            str(tmp_path),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        ready = _ready(process)
        match = re.fullmatch(
            r"Tongiaki is running: open (http://\S+)/ \(game server (\S+) for gRPC clients\)",
            ready,
        )
        assert match is not None, ready
        url, servers = match.groups()
        nodes = servers.split(",")
        assert len(nodes) == 3 and len(set(nodes)) == 3
        names = []
        for _ in range(6):
            request = urllib.request.Request(
                f"{url}/api/v1/games",
                data=json.dumps({"seats": ["COLOUR_RED", "COLOUR_BLUE"]}).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as answer:
                names.append(json.load(answer)["game"]["name"])
        # One database: every node knows every game, whichever node created it.
        for node in nodes:
            with grpc.insecure_channel(node) as channel:
                listed = rpc.GameServiceStub(channel).ListGames(spb.ListGamesRequest()).games
                assert {g.name for g in listed} == set(names)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)


def test_several_nodes_need_a_shared_database(tmp_path: Path) -> None:
    # (Without --database the launcher starts a PostgreSQL of its own for them.)
    single = str(tmp_path / "tongiaki.sqlite3")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "webclient",
            "--port",
            "0",
            "--game-port",
            "0",
            "--nodes",
            "2",
            "--database",
            single,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "TONGIAKI_DATA_DIR": str(tmp_path)},
    )
    assert done.returncode == 1
    assert "--nodes above 1 needs --database postgresql://" in done.stderr
