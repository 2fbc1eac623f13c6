"""Fixtures: a real game server (``python -m server``), the gateway in front of it, Chromium."""

from __future__ import annotations

import json
import random
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, sync_playwright

from webclient import close_app, create_app
from webclient.run import ServerProcess
from webclient.wsgi import Gateway

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "webclient"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless."""
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed: make browser"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def game_server() -> Iterator[ServerProcess]:
    """The real gRPC game server in a subprocess, on a free port, with a fresh data dir."""
    with tempfile.TemporaryDirectory(prefix="tongiaki-web-") as data:
        # Bots answer at once here; tests of pacing start servers of their own.
        server = ServerProcess(
            Path(data), quiet=True, args=["--bot-pace", "0", "--undo-window", "0"]
        )
        yield server
        server.stop()


@dataclass
class Running:
    """A gateway being served: its app, server and base URL."""

    app: Flask
    gateway: Gateway
    url: str

    def stop(self) -> None:
        """Stop its feeds, then the HTTP server."""
        close_app(self.app)
        self.gateway.stop()


def serve_gateway(target: str, port: int = 0, threads: int = 64, **config: Any) -> Running:
    """A gateway for the game server at ``target``, served on ``port``."""
    app = create_app({"TONGIAKI_SERVER": target, "TONGIAKI_HEARTBEAT": 2.0, **config})
    gateway = Gateway(app, "127.0.0.1", port, threads=threads)
    url = gateway.start()
    return Running(app, gateway, url)


@pytest.fixture(scope="session")
def gateway(game_server: ServerProcess) -> Iterator[Running]:
    """The gateway served over HTTP for the whole session."""
    running = serve_gateway(game_server.target)
    yield running
    running.stop()


class Api:
    """A small JSON client of the gateway's API."""

    def __init__(self, base: str) -> None:
        self.base = base

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """Status and JSON answer."""
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def ok(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """The JSON answer of a call that must succeed."""
        status, answer = self.request(method, path, body, token)
        assert status == 200, answer
        return answer

    def new_game(self, colours: list[str], **settings: Any) -> str:
        """Create a game; its id."""
        answer = self.ok(
            "POST",
            "/api/v1/games",
            {"seats": [f"COLOUR_{c.upper()}" for c in colours], "settings": settings},
        )
        name: str = answer["game"]["name"]
        return name.split("/", 1)[1]

    def seated_game(self, colours: list[str]) -> tuple[str, dict[str, str]]:
        """A started game with every seat taken; its id and the tokens by colour name."""
        game = self.new_game(colours)
        tokens = {}
        for colour in colours:
            joined = self.ok(
                "POST", f"/api/v1/games/{game}/join", {"colour": f"COLOUR_{colour.upper()}"}
            )
            tokens[joined["colour"]] = joined["seat_token"]
        self.ok("POST", f"/api/v1/games/{game}/start", {}, next(iter(tokens.values())))
        return game, tokens

    def play(
        self, game: str, tokens: dict[str, str], steps: int | None = None, seed: int = 1
    ) -> Any:
        """Answer ``steps`` decisions (all, if None) with options drawn by a seeded generator
        (always the first option could walk a chain reaction round forever); the last
        snapshot."""
        rng = random.Random(seed)
        done = 0
        while True:
            snapshot = self.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            decision = snapshot["view"].get("decision")
            if decision is None or (steps is not None and done >= steps):
                return snapshot
            self.ok(
                "POST",
                f"/api/v1/games/{game}/actions",
                {
                    "sequence": snapshot["sequence"],
                    "request_id": f"r{snapshot['sequence']}",
                    "action": rng.choice(decision["options"]),
                },
                tokens[decision["player"]],
            )
            done += 1


@pytest.fixture
def api(gateway: Running) -> Api:
    """A JSON client of the session's gateway."""
    return Api(gateway.url)
