"""The embeddable board: framed by a page of another origin, it reports the game by
postMessage (docs/embedding.md) and takes a player's seat token from the host."""

from __future__ import annotations

import functools
import http.server
import json
import random
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

from engine.game import Game
from tests.webclient.conftest import CHROMIUM, CHROMIUM_ARGS, Api, Running, watch_raw_ids
from tests.webclient.test_browser import play_until, shot, watch_errors

HOST_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A host</title></head>
<body>
<script>
const params = new URLSearchParams(location.search);
const board = params.get("board");
const game = params.get("game");
const origin = encodeURIComponent(location.origin);
window.received = { spectator: [], player: [], other: [] };
function frame(name, query) {
  const node = document.createElement("iframe");
  node.name = name;
  node.width = 1000;
  node.height = 700;
  node.src = `${board}/embed/games/${game}?${query}`;
  document.body.append(node);
  return node;
}
const spectator = frame("spectator", `spectate=1&lang=fi&origin=${origin}`);
const player = frame("player", `seat=yellow&lang=ja&origin=${origin}`);
window.addEventListener("message", (event) => {
  if (event.origin !== board || event.data?.source !== "tongiaki") return;
  const who = event.source === spectator.contentWindow ? "spectator"
    : event.source === player.contentWindow ? "player" : "other";
  window.received[who].push(event.data);
});
window.giveSeat = (name, token) => {
  const target = name === "player" ? player : spectator;
  target.contentWindow.postMessage({ type: "seat", token }, board);
};
</script>
</body></html>
"""


#: The host page's own host name: another site than the gateway's 127.0.0.1, mapped
#: to the loopback address by Chromium alone (nothing on the machine is changed).
HOST_NAME = "tongiaki-host.test"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium as in the other browser tests, resolving HOST_NAME to 127.0.0.1.

    The board on 127.0.0.1 framed by a page of HOST_NAME is a third-party frame
    of another site: Chromium refuses it storage, as browsers do for embeds.
    """
    args = [*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {HOST_NAME} 127.0.0.1"]
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
        yield watch_raw_ids(launched)
        launched.close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def host() -> Iterator[str]:
    """A static host page on another site than the gateway's (another host name and port)."""
    with tempfile.TemporaryDirectory(prefix="tongiaki-host-") as root:
        (Path(root) / "host.html").write_text(HOST_PAGE, encoding="utf-8")
        handler = functools.partial(QuietHandler, directory=root)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://{HOST_NAME}:{server.server_address[1]}"
        server.shutdown()
        server.server_close()


STORAGE = """() => {
  try { localStorage.getItem("x"); return "allowed"; } catch (error) { return error.name; }
}"""

LIVE = "document.getElementById('connection').dataset.state === 'live'"

OVERLAP = """() => {
  const a = document.getElementById("connection").getBoundingClientRect();
  return [...document.querySelectorAll(".zoom button")].some((button) => {
    const b = button.getBoundingClientRect();
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  });
}"""


def headers(url: str) -> Any:
    """The response headers of a GET of ``url``."""
    with urllib.request.urlopen(url, timeout=15) as response:
        return response.headers


def test_only_the_embedded_board_may_be_framed(gateway: Running, api: Api) -> None:
    game = api.new_game(["red", "blue"])
    for path in ("/", f"/games/{game}", "/how-to-play"):
        got = headers(gateway.url + path)
        assert got["X-Frame-Options"] == "DENY", path
        assert got["Content-Security-Policy"] == "frame-ancestors 'none'", path
    anyone = headers(f"{gateway.url}/embed/games/{game}?spectate=1")
    assert anyone["X-Frame-Options"] is None
    assert anyone["Content-Security-Policy"] == "frame-ancestors *"
    named = headers(f"{gateway.url}/embed/games/{game}?origin=https://host.example:8443")
    assert named["Content-Security-Policy"] == "frame-ancestors https://host.example:8443"
    junk = headers(f"{gateway.url}/embed/games/{game}?origin=https://x.example/path")
    assert junk["Content-Security-Policy"] == "frame-ancestors *"


def received(page: Any, who: str) -> list[dict[str, Any]]:
    """The messages the host page received from one of its frames."""
    got: list[dict[str, Any]] = page.evaluate(f"window.received.{who}")
    return got


def test_a_host_of_another_origin_follows_and_plays_an_embedded_game(
    browser: Browser, gateway: Running, api: Api, host: str
) -> None:
    game = api.new_game(
        ["yellow", "red"], bots=[{"colour": "COLOUR_RED", "level": "BOT_LEVEL_RANDOM"}]
    )
    token = api.ok("POST", f"/api/v1/games/{game}/join", {"colour": "COLOUR_YELLOW"})["seat_token"]
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1100, "height": 1500})
    page = context.new_page()
    watch_errors(page, errors)
    try:
        page.goto(f"{host}/host.html?board={gateway.url}&game={game}")
        page.wait_for_function(
            "['spectator', 'player'].every((w) => window.received[w]"
            ".some((m) => m.type === 'snapshot'))"
        )
        spectator, player = page.frame(name="spectator"), page.frame(name="player")
        assert spectator is not None and player is not None
        # Framed by another site, the boards get no storage at all, and work without it.
        assert player.evaluate(STORAGE) == spectator.evaluate(STORAGE) == "SecurityError"
        assert player.get_by_test_id("seats").count() == 1
        # The connection label keeps clear of the zoom buttons.
        for frame in (player, spectator):
            frame.wait_for_function(LIVE)
        assert not player.evaluate(OVERLAP) and not spectator.evaluate(OVERLAP)
        page.evaluate("document.querySelector('iframe[name=player]').width = 390")
        player.wait_for_function("window.innerWidth === 390")
        assert not player.evaluate(OVERLAP)
        page.evaluate("document.querySelector('iframe[name=player]').width = 1000")
        # Without the site's chrome, in the language asked for.
        assert player.locator(".topbar").count() == 0
        assert spectator.evaluate("document.documentElement.lang") == "fi"
        assert player.evaluate("document.documentElement.lang") == "ja"
        player.get_by_test_id("waiting-seat").wait_for()

        # A spectator's board takes no seat; the player's takes its token from the host.
        page.evaluate("(token) => window.giveSeat('spectator', token)", token)
        page.wait_for_function("window.received.spectator.some((m) => m.type === 'error')")
        page.evaluate("(token) => window.giveSeat('player', token)", token)
        page.wait_for_function("window.received.player.some((m) => m.type === 'seat')")
        player.get_by_test_id("you").wait_for()
        for frame in (player, spectator):
            assert token not in frame.url
        assert player.get_by_test_id("join-yellow").count() == 0
        assert player.get_by_test_id("share-link").count() == 0

        player.get_by_test_id("start").click()
        # Without storage a choice lasts for the page: both boards show each entry at once.
        for frame in (player, spectator):
            frame.get_by_test_id("speed").select_option("0")
            assert frame.evaluate(STORAGE) == "SecurityError"
        clicks = play_until(
            [player],
            random.Random(3),
            "document.body.dataset.state === 'finished'",
            time.monotonic() + 240,
        )
        assert clicks > 10
        page.wait_for_function(
            "['spectator', 'player'].every((w) => window.received[w]"
            ".some((m) => m.type === 'game_over'))"
        )
        shot(page, "embed-host")
        final = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        record = api.ok("GET", f"/api/v1/games/{game}/record")
        spectated, played = received(page, "spectator"), received(page, "player")
        assert received(page, "other") == []
    finally:
        context.close()
    assert errors == []

    for messages in (spectated, played):
        assert {(m["source"], m["version"], m["game"]) for m in messages} == {("tongiaki", 1, game)}
        assert messages[0]["type"] == "ready"
        assert messages[-1]["type"] == "game_over"
        first = next(m for m in messages if m["type"] == "snapshot")
        assert first["snapshot"]["game"]["name"] == f"games/{game}"
        events = [m["sequence"] for m in messages if m["type"] == "event"]
        # Every entry after the first snapshot, once each and in order, up to the last.
        assert events == list(range(first["sequence"] + 1, int(final["sequence"]) + 1))
        over = messages[-1]
        assert over["sequence"] == int(final["sequence"])
        assert over["ranking"] == final["view"]["result"]
    assert spectated[0]["mode"] == "spectator" and spectated[0]["locale"] == "fi"
    assert played[0]["mode"] == "player" and played[0]["seat"] == "yellow"
    refused = [m for m in spectated if m["type"] == "error"]
    assert [m.get("reason") for m in refused] == ["SEAT_REFUSED"]
    assert [m for m in played if m["type"] == "error"] == []
    kinds = {m["type"] for m in played}
    assert {"ready", "snapshot", "seat", "event", "decision", "game_over"} <= kinds
    decisions = [m for m in played if m["type"] == "decision"]
    assert {m["player"] for m in decisions} == {"COLOUR_YELLOW", "COLOUR_RED"}
    assert all(m["yours"] == (m["player"] == "COLOUR_YELLOW") for m in decisions)
    assert not any(m["yours"] for m in spectated if m["type"] == "decision")

    # The ranking the host saw is the one the record replays to.
    replayed = Game.from_record(json.loads(record["record_json"]), checked=True)
    assert replayed.over and replayed.result is not None
    seen = {
        r["colour"].removeprefix("COLOUR_").lower(): (r["points"], r["rank"])
        for r in spectated[-1]["ranking"]
    }
    assert seen == {
        c: (replayed.result["points"][c], replayed.result["rank"][c]) for c in replayed.seats
    }
