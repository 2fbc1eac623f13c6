"""Seat links, in Chromium against the real server and gateway: a player's seat link
opened in another browser plays that seat there (the token in the fragment only, off
the address bar at once); a wrong one says so and leaves the page watching; a
spectator of a game waiting for a person is told of seat links; My games shows each
seat's link. Screenshots of the link in English, Hebrew and Japanese."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.webclient.axe import violations
from tests.webclient.conftest import ARTIFACTS, Api, Running
from tests.webclient.pages import BUSY, DESKTOP, INSTANT, PHONE, game_page
from tests.webclient.test_decide import seat_to_move
from tests.webclient.test_follow import pick_and_confirm
from webclient import i18n

SHOTS = ARTIFACTS / "seat-link"
MINE = "document.body.dataset.myturn === '1' && document.body.dataset.busy !== '1'"


def plain(colour: str) -> str:
    """``COLOUR_RED`` -> ``red``."""
    return colour.removeprefix("COLOUR_").lower()


def stored_seat(page: Page, game: str) -> Any:
    return page.evaluate(f"JSON.parse(localStorage.getItem('tongiaki.seat.{game}') || 'null')")


def seat_link(where: Page | Locator) -> str:
    """The seat link offered on ``where``, unfolded first."""
    box = where.get_by_test_id("seat-link-box").first
    box.locator("summary").click()
    link = box.get_by_test_id("seat-link")
    expect(link).to_be_visible()
    return link.input_value()


def test_a_seat_link_plays_the_seat_in_another_browser(
    browser: Browser, gateway: Running, api: Api
) -> None:
    game, tokens = api.seated_game(["yellow", "red"])
    snapshot = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
    colour, token = seat_to_move(snapshot, tokens)
    errors: list[str] = []
    with game_page(browser, gateway.url, game, (colour, token), errors=errors) as page:
        expect(page.get_by_test_id("you")).to_be_visible()
        link = seat_link(page)
        assert page.get_by_test_id("seat-link-box").locator("p").inner_text() == (
            i18n.translate("en", "share.seat_hint")
        )
    assert link == f"{gateway.url}/games/{game}#seat={plain(colour)}.{token}"

    # A browser that never held the seat: the link alone gives it.
    context = browser.new_context(viewport=DESKTOP, locale="en")
    context.add_init_script(INSTANT)
    asked: list[str] = []
    try:
        page = context.new_page()
        page.set_default_timeout(BUSY)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: asked.append(request.url))
        page.goto(link)
        page.get_by_test_id("board").wait_for()
        # Off the address bar (and the history) at once.
        assert page.url == f"{gateway.url}/games/{game}"
        assert page.evaluate("window.location.hash") == ""
        assert stored_seat(page, game) == {"colour": colour, "token": token}
        expect(page.get_by_test_id("you")).to_be_visible()
        expect(page.get_by_test_id("error")).to_be_empty()
        page.wait_for_function(MINE, timeout=BUSY)
        pick_and_confirm(page, random.Random(1))
        page.wait_for_function(
            f"Number(document.body.dataset.sequence) > {int(snapshot['sequence'])}", timeout=BUSY
        )
        after = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        assert int(after["sequence"]) > int(snapshot["sequence"])
        # The token went only where a seat token goes: never into an address.
        assert not [url for url in asked if token in url]
    finally:
        context.close()
    assert errors == []


@pytest.mark.parametrize("fragment", ["#seat=yellow.not-a-seat-token", "#seat=yellow"])
def test_a_wrong_seat_link_says_so_and_leaves_the_page_watching(
    browser: Browser, gateway: Running, api: Api, fragment: str
) -> None:
    game, _ = api.seated_game(["yellow", "red"])
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP, locale="en")
    context.add_init_script(INSTANT)
    try:
        page = context.new_page()
        page.set_default_timeout(BUSY)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{gateway.url}/games/{game}{fragment}")
        page.get_by_test_id("board").wait_for()
        assert page.url == f"{gateway.url}/games/{game}"
        expect(page.get_by_test_id("error")).to_have_text(
            i18n.translate("en", "share.seat_refused")
        )
        expect(page.get_by_test_id("spectator")).to_be_visible()
        assert stored_seat(page, game) is None
        expect(page.get_by_test_id("seat-link-box")).to_have_count(0)
        # The game waits for a person: whoever plays that seat is told how to take it.
        expect(page.get_by_test_id("seat-link-note")).to_have_text(
            i18n.translate("en", "status.seat_link")
        )
    finally:
        context.close()
    assert errors == []


def test_a_wrong_seat_link_leaves_the_seat_held_before(
    browser: Browser, gateway: Running, api: Api
) -> None:
    game, tokens = api.seated_game(["yellow", "red"])
    errors: list[str] = []
    with game_page(browser, gateway.url, game, ("COLOUR_RED", tokens["COLOUR_RED"])) as page:
        expect(page.get_by_test_id("you")).to_be_visible()
        expect(page.get_by_test_id("seat-link-note")).to_have_count(0)
        # Pasted over this game's own address: the page opens anew to take it.
        page.evaluate("window.location.hash = '#seat=yellow.not-a-seat-token'")
        expect(page.get_by_test_id("error")).to_have_text(
            i18n.translate("en", "share.seat_refused")
        )
        assert page.evaluate("window.location.hash") == ""
        assert stored_seat(page, game) == {"colour": "COLOUR_RED", "token": tokens["COLOUR_RED"]}
        expect(page.get_by_test_id("you")).to_be_visible()
    assert errors == []


def test_my_games_shows_each_seats_link(browser: Browser, gateway: Running, api: Api) -> None:
    game, tokens = api.seated_game(["yellow", "red"])
    with game_page(browser, gateway.url, game, ("COLOUR_RED", tokens["COLOUR_RED"])) as page:
        page.goto(f"{gateway.url}/my?lang=en")
        row = page.locator(f"[data-testid=my-game][data-game='{game}']")
        expect(row).to_be_visible()
        link = seat_link(row)
        assert link == f"{gateway.url}/games/{game}#seat=red.{tokens['COLOUR_RED']}"
        # A refresh of the list leaves it open.
        page.wait_for_timeout(11_000)
        expect(row.get_by_test_id("seat-link")).to_be_visible()


@pytest.mark.parametrize("locale", ["en", "he", "ja"])
@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_screens_of_the_seat_link(
    browser: Browser, gateway: Running, api: Api, locale: str, viewport: str
) -> None:
    game, tokens = api.seated_game(["yellow", "red"])
    api.play(game, tokens, steps=6, seed=2)
    size = DESKTOP if viewport == "desktop" else PHONE
    errors: list[str] = []
    with game_page(
        browser,
        gateway.url,
        game,
        ("COLOUR_RED", tokens["COLOUR_RED"]),
        locale=locale,
        viewport=size,
        errors=errors,
    ) as page:
        if viewport == "phone":
            page.get_by_test_id("drawer-open").click()
        box = page.get_by_test_id("seat-link-box")
        box.scroll_into_view_if_needed()
        box.locator("summary").click()
        box.evaluate("(node) => node.scrollIntoView({ block: 'center' })")
        shot(page, f"game-{locale}-{viewport}")
        found = violations(page)
        assert not found, "\n".join(found)
        page.goto(f"{gateway.url}/my?lang={locale}")
        row = page.locator(f"[data-testid=my-game][data-game='{game}']")
        row.get_by_test_id("seat-link-box").locator("summary").click()
        shot(page, f"my-{locale}-{viewport}")
        found = violations(page)
        assert not found, "\n".join(found)
    with game_page(browser, gateway.url, game, locale=locale, viewport=size) as page:
        if viewport == "phone":
            page.get_by_test_id("drawer-open").click()
        note = page.get_by_test_id("seat-link-note")
        page.locator("[data-testid=log] li").first.wait_for()
        page.wait_for_timeout(500)  # the log's last render: it would scroll the drawer back
        note.evaluate("(node) => node.scrollIntoView({ block: 'center' })")
        expect(note).to_be_visible()
        shot(page, f"watching-{locale}-{viewport}")
    assert errors == []


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
