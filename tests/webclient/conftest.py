"""Fixtures: a real game server (``python -m server``), the gateway in front of it, Chromium."""

from __future__ import annotations

import contextlib
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
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from webclient import catalogs, close_app, create_app
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
    """Debian's Chromium, headless; a page that shows a raw message id fails the test."""
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed: make browser"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield watch_raw_ids(launched)
        launched.close()


# ------------------------------------------------------------------ raw message ids
#
# A message id with no text in the catalogs is shown as the id itself ("end.winners").
# Every page of a browser from watch_raw_ids() looks for ids in its text whenever the
# page changes (and once more when it is closed) and reports them; the autouse fixture
# no_raw_message_ids fails the test that showed one. raw_message_ids(page) asks a page
# directly.

RAW_IDS: list[str] = []


def raw_id_pattern() -> str:
    """A JavaScript regular expression for a message id in a page's text: an id of a
    namespace of the catalogs ("end.winners", "error.GAME_OVER"), or anything shaped
    like one (word.word_word) for namespaces still to come."""
    namespaces = sorted({key.split(".", 1)[0] for key in catalogs.export("en")["messages"]})
    named = rf"(?:{'|'.join(namespaces)})\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*"
    return rf"(?<![\w./@-])(?:{named}|[a-z]+\.[a-z]+_[a-z_]+)(?![\w/@-])"


RAW_ID_SCRIPT = """
((pattern) => {
  const seen = new Set();
  const scan = () => {
    if (!document.body) return [];
    // Code samples (the API reference's field names) are not messages.
    let body = document.body.innerText;
    for (const code of document.querySelectorAll("code, pre")) {
      body = body.split(code.innerText).join(" ");
    }
    const texts = [body, document.title];
    const names = ["title", "aria-label", "placeholder", "alt"];
    for (const node of document.querySelectorAll(names.map((name) => `[${name}]`).join(","))) {
      for (const name of names) texts.push(node.getAttribute(name) || "");
    }
    const found = [...new Set(texts.flatMap((text) => text.match(new RegExp(pattern, "g")) || []))];
    const fresh = found.filter((id) => !seen.has(id));
    fresh.forEach((id) => seen.add(id));
    if (fresh.length && window.__tongiakiRawIds) window.__tongiakiRawIds(fresh);
    return found;
  };
  let timer = null;
  const later = () => {
    if (timer === null) timer = setTimeout(() => { timer = null; scan(); }, 250);
  };
  window.__tongiakiScan = scan;
  new MutationObserver(later).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ["title", "aria-label", "placeholder", "alt"],
  });
})(%s);
"""


def raw_message_ids(page: Page) -> list[str]:
    """The message ids ``page`` shows raw now (text, title, labels, placeholders)."""
    found: list[str] = page.evaluate("() => (window.__tongiakiScan ? window.__tongiakiScan() : [])")
    return found


def _scan_before_close(page: Page) -> None:
    # A page that is navigating or already gone has nothing more to report.
    with contextlib.suppress(PlaywrightError):
        raw_message_ids(page)


def _watch_context(context: BrowserContext) -> BrowserContext:
    """Report every raw id shown on a page of ``context`` to RAW_IDS."""

    def report(source: dict[str, Any], ids: list[str]) -> None:
        RAW_IDS.extend(f"{source['page'].url}: {key}" for key in ids)

    context.expose_binding("__tongiakiRawIds", report)
    context.add_init_script(RAW_ID_SCRIPT % json.dumps(raw_id_pattern()))
    close = context.close

    def close_after_scan(**kwargs: Any) -> None:
        for page in context.pages:
            _scan_before_close(page)
        close(**kwargs)

    context.close = close_after_scan  # type: ignore[method-assign]
    return context


def watch_raw_ids(browser: Browser) -> Browser:
    """``browser``, whose new contexts and pages report raw message ids (see RAW_IDS)."""
    new_context, new_page = browser.new_context, browser.new_page

    def watched_context(**kwargs: Any) -> BrowserContext:
        return _watch_context(new_context(**kwargs))

    def watched_page(**kwargs: Any) -> Page:
        page = new_page(**kwargs)
        _watch_context(page.context)
        page.reload()  # the init script applies from the next document on
        close = page.close

        def close_after_scan(**options: Any) -> None:
            _scan_before_close(page)
            close(**options)

        page.close = close_after_scan  # type: ignore[method-assign]
        return page

    browser.new_context = watched_context  # type: ignore[method-assign]
    browser.new_page = watched_page  # type: ignore[method-assign]
    return browser


@pytest.fixture(autouse=True)
def no_raw_message_ids() -> Iterator[None]:
    """Fail a test during which a page showed a message id instead of its text."""
    RAW_IDS.clear()
    yield
    shown = sorted(set(RAW_IDS))
    RAW_IDS.clear()
    assert shown == [], f"message ids shown raw: {shown}"


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


@contextlib.contextmanager
def own_gateway(prefix: str, args: list[str]) -> Iterator[Running]:
    """A game server of its own started with ``args`` (in a temporary folder named
    with ``prefix``), and a gateway to it; both stopped after."""
    with tempfile.TemporaryDirectory(prefix=prefix) as data:
        server = ServerProcess(Path(data), quiet=True, args=args)
        running = serve_gateway(server.target)
        try:
            yield running
        finally:
            running.stop()
            server.stop()


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
