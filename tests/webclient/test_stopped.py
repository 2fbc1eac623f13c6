"""A game the server stopped, in Chromium against a real server and gateway: the log
says why in the reader's language, the status and the end card say it was
stopped with no winner, and so do the replay's last step and the Games page.

The server stops a game of bots only after one round without a draw here
(``--bot-stall-rounds 1``); of a few games of random bots, one soon stalls.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.webclient.conftest import Api, Running, own_gateway
from tests.webclient.test_browser import DESKTOP, INSTANT, PHONE, shot, state, watch_errors
from webclient import i18n

#: Long enough for a busy machine; every wait is for a condition.
WAIT = 30_000
COLOURS = ["yellow", "orange", "red"]


@pytest.fixture(scope="module")
def stalling() -> Iterator[Running]:
    """A gateway to a server of its own that stops a game of bots only after one
    round without a draw."""
    args = ["--bot-pace", "0", "--undo-window", "0", "--bot-stall-rounds", "1"]
    with own_gateway("tongiaki-stopped-", args) as running:
        yield running


def stopped_game(api: Api) -> tuple[str, dict[str, Any]]:
    """A game of random bots that the server stopped: its id and last snapshot."""
    bots = [{"colour": f"COLOUR_{c.upper()}", "level": "BOT_LEVEL_RANDOM"} for c in COLOURS]
    games = [api.new_game(COLOURS, display_name="Becalmed", bots=bots) for _ in range(4)]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for game in games:
            snapshot = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            if snapshot["game"]["state"] == "GAME_STATE_FINISHED" and "stopped" in snapshot["game"]:
                return game, snapshot
        time.sleep(0.2)
    raise AssertionError("no game of random bots stalled for a round")


def test_a_stopped_game_says_so_in_the_log_the_status_and_the_end_card(
    browser: Browser, stalling: Running
) -> None:
    api = Api(stalling.url)
    game, snapshot = stopped_game(api)
    stopped = snapshot["game"]["stopped"]
    assert stopped == {"reason": "GAME_STALLED", "rounds": 1}
    assert snapshot["game"]["results"] == [] and "decision" not in snapshot["view"]
    entries = api.ok("GET", f"/api/v1/games/{game}/entries?after_sequence=0&page_size=1000")
    last = entries["entries"][-1]
    assert last["game_stopped"] == stopped and last["sequence"] == snapshot["sequence"]

    errors: list[str] = []
    for locale, phone in (("en", False), ("he", False), ("ja", True)):
        context = browser.new_context(viewport=PHONE if phone else DESKTOP)
        context.add_init_script(INSTANT)
        try:
            page = context.new_page()
            watch_errors(page, errors)
            page.goto(stalling.url + f"/games/{game}?lang={locale}")
            expect(page.locator("body[data-state='finished']")).to_have_count(1, timeout=WAIT)
            line = i18n.translate(locale, "log.game_stopped", count=1)
            expect(page.get_by_test_id("log").locator("li").last).to_have_text(line, timeout=WAIT)
            expect(page.get_by_test_id("turn")).to_have_text(
                i18n.translate(locale, "status.stopped")
            )
            card = page.get_by_test_id("stopped")
            expect(card.get_by_test_id("stopped-title")).to_have_text(
                i18n.translate(locale, "end.stopped")
            )
            expect(card.get_by_test_id("stopped-why")).to_have_text(
                i18n.translate(locale, "end.stopped_stalled", count=1)
            )
            expect(page.get_by_test_id("ranking").get_by_test_id("winner")).to_have_count(0)
            assert state(page)["sequence"] == snapshot["sequence"]
            if phone:
                page.get_by_test_id("drawer-open").click()
            shot(page, f"stopped-{locale}")
        finally:
            context.close()

    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        watch_errors(page, errors)
        # The replay's last step is the stopped game; the step before it is not.
        page.goto(stalling.url + f"/games/{game}?replay=1&at={snapshot['sequence']}&lang=en")
        expect(page.get_by_test_id("stopped-title")).to_have_text(
            i18n.translate("en", "end.stopped"), timeout=WAIT
        )
        page.get_by_test_id("replay-back").click()
        expect(page.get_by_test_id("stopped")).to_have_count(0, timeout=WAIT)
        # The Games page lists it as finished, stopped rather than won.
        page.goto(stalling.url + "/?lang=en")
        row = page.locator(f"[data-testid=finished-game][data-game='{game}']")
        expect(row.get_by_test_id("winner")).to_have_text(
            i18n.translate("en", "status.stopped"), timeout=WAIT
        )
    finally:
        context.close()
    assert errors == []
