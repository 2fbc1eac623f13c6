"""Accessibility in Chromium: axe-core finds no serious or critical violation on the
lobby, a game being decided, the end screen, a replay and the how-to page."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.webclient.axe import violations
from tests.webclient.conftest import Api, Running
from tests.webclient.test_browser import DESKTOP, INSTANT, PHONE, watch_errors

#: A page to check: its path (given the games below), and what shows it is ready.
Screen = tuple[Callable[[dict[str, Any]], str], str]

#: Every screen axe-core checks; a new screen is one more line.
SCREENS: dict[str, Screen] = {
    "lobby": (lambda g: "/", "document.querySelector('[data-testid=games]') !== null"),
    "game": (lambda g: f"/games/{g['running']}", "document.body.dataset.myturn === '1'"),
    "end": (
        lambda g: f"/games/{g['finished']}",
        "document.querySelector('[data-testid=ranking]') !== null",
    ),
    "replay": (
        lambda g: f"/games/{g['finished']}?replay=1&at=20",
        "document.body.dataset.replayAt === '20'",
    ),
    "howto": (lambda g: "/how-to-play", "document.querySelector('svg') !== null"),
}


@pytest.fixture(scope="module")
def games(gateway: Running) -> dict[str, Any]:
    """A finished game, and a running one whose pending decision this browser holds."""
    api = Api(gateway.url)
    finished, done = api.seated_game(["yellow", "purple", "green"])
    api.play(finished, done, seed=31)
    running, tokens = api.seated_game(["red", "blue"])
    now = api.play(running, tokens, steps=14, seed=5)
    colour = now["view"]["decision"]["player"]
    return {"finished": finished, "running": running, "colour": colour, "token": tokens[colour]}


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_axe_finds_no_serious_violation(
    browser: Browser, gateway: Running, games: dict[str, Any], screen: str, viewport: str
) -> None:
    errors: list[str] = []
    size = DESKTOP if viewport == "desktop" else PHONE
    context = browser.new_context(viewport=size, is_mobile=viewport == "phone")
    context.add_init_script(INSTANT)
    seat = json.dumps({"colour": games["colour"], "token": games["token"]})
    context.add_init_script(
        f"localStorage.setItem('tongiaki.seat.{games['running']}', {json.dumps(seat)})"
    )
    page = context.new_page()
    watch_errors(page, errors)
    try:
        path, ready = SCREENS[screen]
        page.goto(f"{gateway.url}{path(games)}")
        page.wait_for_function(ready, timeout=60_000)
        found = violations(page)
        assert not found, "\n".join(found)
    finally:
        context.close()
    assert errors == []
