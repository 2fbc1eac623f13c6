"""Accessibility in Chromium: axe-core finds no serious or critical violation on the
lobby, a game being decided, the end screen, a replay, the how-to page, the
tutorial (its page and a game with its coach) and this browser's games."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.webclient.axe import violations
from tests.webclient.conftest import Api, Running
from tests.webclient.test_browser import DESKTOP, INSTANT, PHONE, watch_errors

#: A page to check: its path (given the games below), what shows it is ready, and
#: what to do there first (None: nothing).
Screen = tuple[Callable[[dict[str, Any]], str], str, Callable[[Page], None] | None]


def start_the_tutorial(page: Page) -> None:
    """Start a tutorial game from /learn and wait for its coach."""
    page.get_by_test_id("learn").click()
    page.wait_for_function(
        "document.querySelector('[data-testid=coach]')?.hidden === false", timeout=60_000
    )


#: Every screen axe-core checks; a new screen is one more line.
SCREENS: dict[str, Screen] = {
    "lobby": (lambda g: "/", "document.querySelector('[data-testid=games]') !== null", None),
    "game": (lambda g: f"/games/{g['running']}", "document.body.dataset.myturn === '1'", None),
    "end": (
        lambda g: f"/games/{g['finished']}",
        "document.querySelector('[data-testid=ranking]') !== null",
        None,
    ),
    "replay": (
        lambda g: f"/games/{g['finished']}?replay=1&at=20",
        "document.body.dataset.replayAt === '20'",
        None,
    ),
    "howto": (lambda g: "/how-to-play", "document.querySelector('svg') !== null", None),
    "learn": (lambda g: "/learn", "document.querySelector('[data-testid=learn]') !== null", None),
    "tutorial": (
        lambda g: "/learn",
        "document.querySelector('[data-testid=learn]') !== null",
        start_the_tutorial,
    ),
    "my": (lambda g: "/my", "document.querySelector('[data-testid=my-games]') !== null", None),
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
        path, ready, then = SCREENS[screen]
        page.goto(f"{gateway.url}{path(games)}")
        page.wait_for_function(ready, timeout=60_000)
        if then is not None:
            then(page)
        found = violations(page)
        assert not found, "\n".join(found)
    finally:
        context.close()
    assert errors == []
