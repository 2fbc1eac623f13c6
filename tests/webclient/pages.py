"""Opening the game page in Chromium as a player: one place for the set-up the
browser tests share (a context at a size and locale, the seat given to the
browser, the page opened and its board drawn)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize

DESKTOP: ViewportSize = {"width": 1366, "height": 768}
PHONE: ViewportSize = {"width": 390, "height": 844}
#: Others' moves play at once (no animation), every decision asks for a confirm.
INSTANT = "localStorage.setItem('tongiaki.prefs', JSON.stringify({speed: 0, confirm: true}))"
#: How long a page waits for a condition (ms): long enough for a busy 2-core machine.
BUSY = 90_000


def sit(page: Page, game: str, colour: str, token: str) -> None:
    """Give this browser the seat (as JoinGame in this browser would have)."""
    seat = json.dumps({"colour": colour, "token": token})
    page.evaluate(f"localStorage.setItem('tongiaki.seat.{game}', {json.dumps(seat)})")


@contextmanager
def game_page(
    browser: Browser,
    base: str,
    game: str,
    seat: tuple[str, str] | None = None,
    *,
    locale: str = "en",
    viewport: ViewportSize = DESKTOP,
    touch: bool = False,
    prefs: str = INSTANT,
    errors: list[str] | None = None,
) -> Iterator[Page]:
    """The page of ``game`` at ``base`` (a gateway's URL), in ``locale`` at ``viewport``
    (a touch screen if ``touch``), for the ``seat`` (colour, token) or a spectator;
    its board drawn. Page errors go to ``errors``. The context is closed after."""
    context = browser.new_context(
        viewport=viewport, locale=locale, has_touch=touch, is_mobile=touch
    )
    context.add_init_script(prefs)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    if errors is not None:
        page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        if seat is not None:
            page.goto(f"{base}/?lang={locale}")
            sit(page, game, *seat)
        page.goto(f"{base}/games/{game}?lang={locale}")
        page.get_by_test_id("board").wait_for()
        yield page
    finally:
        context.close()


def on_lobby(browser: Browser, base: str, script: str, arg: Any = None) -> Any:
    """``script`` evaluated on the English lobby at ``base``, once its catalogue is
    loaded (a module of the client run against the real page)."""
    page = browser.new_page()
    try:
        page.goto(f"{base}/?lang=en")
        page.get_by_test_id("create-game").wait_for()
        return page.evaluate(script, arg)
    finally:
        page.close()
