"""``python -m webclient`` (``make run``) on a game-server port that is taken."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
