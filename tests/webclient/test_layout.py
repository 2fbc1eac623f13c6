"""The layout in every locale, measured from the boxes Chromium gives the page's text:
on a desktop (1366 x 768) and a phone (390 x 844), the lobby, a game with bots, the end
screen, a replay, the "How to play" page, the player's own games and the tutorial's
page show no number broken over two lines, no
header broken into single characters or inside a word, and no text lying over other
text. One browser, one page per screen size, every locale visited in turn."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.webclient.conftest import ARTIFACTS, RAW_IDS, Api, Running, raw_message_ids
from tests.webclient.test_browser import INSTANT
from webclient import i18n

LOCALES = i18n.locales()
SIZES = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
SHOTS = ARTIFACTS / "layout"

# The measure of a page's layout (see its comments).
MEASURE = (Path(__file__).parent / "layout.js").read_text(encoding="utf-8")
# The folded parts (game options, points per island, settings) opened and measured in
# one task, so that no redraw of the page can come between the two.
OPEN_AND_MEASURE = (
    "() => { document.querySelectorAll('details').forEach((d) => { d.open = true; });"
    f" return ({MEASURE})(); }}"
)


def run_bots(api: Api, game: str, token: str, colour: str, turns: int) -> None:
    """Let the bots play and answer the person's decisions, ``turns`` times."""
    done = 0
    deadline = time.monotonic() + 120
    while done < turns and time.monotonic() < deadline:
        snapshot = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        decision = snapshot["view"].get("decision")
        if decision is None:
            return
        if decision["player"] != colour:
            time.sleep(0.05)  # the bots answer on the server
            continue
        api.ok(
            "POST",
            f"/api/v1/games/{game}/actions",
            {
                "sequence": snapshot["sequence"],
                "request_id": f"r{snapshot['sequence']}",
                "action": decision["options"][done % len(decision["options"])],
            },
            token,
        )
        done += 1


@pytest.fixture(scope="module")
def shown(gateway: Running) -> dict[str, Any]:
    """A finished game of three people, and a game of one person against five bots of
    every level (the longest labels of the players' table) waiting for the person."""
    api = Api(gateway.url)
    finished, done = api.seated_game(["yellow", "purple", "green"])
    api.play(finished, done, seed=31)
    bots = ["orange", "red", "green", "blue", "purple"]
    levels = ["BOT_LEVEL_STRONG", "BOT_LEVEL_GREEDY", "BOT_LEVEL_RANDOM"]
    answer = api.ok(
        "POST",
        "/api/v1/games",
        {
            "seats": [f"COLOUR_{c.upper()}" for c in ["yellow", *bots]],
            "settings": {
                "bots": [
                    {"colour": f"COLOUR_{c.upper()}", "level": levels[i % 3]}
                    for i, c in enumerate(bots)
                ]
            },
        },
    )
    running = answer["game"]["name"].split("/", 1)[1]
    joined = api.ok("POST", f"/api/v1/games/{running}/join", {"colour": "COLOUR_YELLOW"})
    token = joined["seat_token"]
    api.request("POST", f"/api/v1/games/{running}/start", {}, token)
    run_bots(api, running, token, "COLOUR_YELLOW", turns=6)
    return {"finished": finished, "running": running, "token": token}


def pages(shown: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Each screen: its address (``{locale}`` filled in) and when it is ready."""
    finished, running = shown["finished"], shown["running"]
    return {
        "lobby": ("/?lang={locale}", "document.querySelector('[data-testid=finished-game]')"),
        "game": ("/games/" + running + "?lang={locale}", "document.body.dataset.myturn === '1'"),
        "end": (
            "/games/" + finished + "?lang={locale}",
            "document.querySelector('[data-testid=winner]')",
        ),
        "replay": (
            "/games/" + finished + "?replay=1&at=40&lang={locale}",
            "document.body.dataset.replayAt === '40'",
        ),
        "howto": ("/how-to-play?lang={locale}", "document.body.dataset.ready === '1'"),
        "mygames": ("/my?lang={locale}", "document.querySelector('[data-testid=my-game]')"),
        "learn": (
            "/learn?lang={locale}",
            "document.querySelector('[data-testid=learn-start] :is(button, a)')",
        ),
    }


# Resolves once the fonts are in and the page has not changed for 300 ms (a screen
# that is still being drawn is measured when it is done, whatever the machine's speed).
QUIET = """
() => document.fonts.ready.then(() => new Promise((done) => {
  const finish = () => {
    observer.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(done));
  };
  let timer = setTimeout(finish, 300);
  const observer = new MutationObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(finish, 300);
  });
  const all = { subtree: true, childList: true, characterData: true, attributes: true };
  observer.observe(document.body, all);
}))
"""


def settle(page: Page) -> None:
    """Wait until the page is drawn and still."""
    page.evaluate(QUIET)


@pytest.fixture(scope="module")
def screens(browser: Browser) -> Iterator[dict[str, Page]]:
    """One page per screen size, reused for every locale and screen."""
    opened = {}
    for size, viewport in SIZES.items():
        context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
        context.add_init_script(INSTANT)
        opened[size] = context.new_page()
    yield opened
    for page in opened.values():
        page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("locale", LOCALES)
def test_no_text_breaks_or_overlaps_on_any_screen(
    screens: dict[str, Page], gateway: Running, shown: dict[str, Any], locale: str, size: str
) -> None:
    page = screens[size]
    SHOTS.mkdir(parents=True, exist_ok=True)
    seat = json.dumps({"colour": "COLOUR_YELLOW", "token": shown["token"]})
    faults: dict[str, list[str]] = {}
    for screen, (address, ready) in pages(shown).items():
        page.goto(gateway.url + address.format(locale=locale))
        if screen == "lobby":
            key = f"tongiaki.seat.{shown['running']}"
            page.evaluate(f"localStorage.setItem({json.dumps(key)}, {json.dumps(seat)})")
        page.wait_for_function(ready)
        settle(page)
        # A fault counts when two measures, the page settled between them, both see it
        # (a screen caught while it is redrawn is not a fault of its layout).
        first: list[str] = page.evaluate(OPEN_AND_MEASURE)
        settle(page)
        found = [fault for fault in page.evaluate(OPEN_AND_MEASURE) if fault in first]
        page.screenshot(path=str(SHOTS / f"{locale}-{size}-{screen}.png"))
        if found:
            faults[screen] = found
    (SHOTS / f"{locale}-{size}-faults.json").write_text(
        json.dumps(faults, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    assert faults == {}


def test_a_raw_message_id_on_a_page_fails_the_test(
    screens: dict[str, Page], gateway: Running
) -> None:
    page = screens["desktop"]
    page.goto(f"{gateway.url}/how-to-play?lang=en")
    page.wait_for_function("document.body.dataset.ready === '1'")
    assert raw_message_ids(page) == []
    page.evaluate(
        "document.body.append(Object.assign(document.createElement('p'),"
        " { textContent: 'The winners: end.winners and tutor.first_step.' }))"
    )
    assert raw_message_ids(page) == ["end.winners", "tutor.first_step"]
    # The page reports what it shows (to the fixture that fails the test), on its own.
    deadline = time.monotonic() + 30
    while len(RAW_IDS) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # lets Playwright deliver the page's report
    assert sorted(key.split(": ")[-1] for key in RAW_IDS) == ["end.winners", "tutor.first_step"]
    RAW_IDS.clear()


def test_two_winners_are_named_with_the_languages_and(
    screens: dict[str, Page], gateway: Running
) -> None:
    """A first place shared by two players shows end.winners, the names joined by the
    language's "and" (the end screen showed the raw id)."""
    page = screens["desktop"]
    said = {}
    for locale in ("en", "hu", "ja"):
        page.goto(f"{gateway.url}/how-to-play?lang={locale}")
        page.wait_for_function("document.body.dataset.ready === '1'")
        said[locale] = page.evaluate(
            """async () => {
              const { renderEnd } = await import('/static/js/endgame.js');
              const row = (colour, rank) => ({ colour, rank, points: 9, islands: 2, ships: 3 });
              const view = { result: [row('COLOUR_RED', 1), row('COLOUR_BLUE', 1),
                row('COLOUR_GREEN', 3)], tiles: [], beaches: [] };
              const node = renderEnd(view, null, {});
              return node.querySelector('[data-testid=winner]').textContent;
            }"""
        )
    for locale, text in said.items():
        players = [i18n.translate(locale, f"player.{c}") for c in ("red", "blue")]
        both = i18n.translate(locale, "list.and", head=players[0], final=players[1])
        assert text == i18n.translate(locale, "end.winners", players=both), locale
    assert said["en"] == "Red and Blue share the win!"


@pytest.mark.parametrize("locale", ["en", "fi", "he", "hu", "ja", "nl"])
def test_a_phones_header_is_one_row_with_every_link_whole(
    browser: Browser, gateway: Running, locale: str
) -> None:
    """At 390 px the header is one row, its links all in sight (none cut or scrolled)."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    try:
        page.goto(f"{gateway.url}/?lang={locale}")
        page.get_by_test_id("create-game").wait_for()
        header = page.locator(".topbar").bounding_box()
        assert header is not None and header["height"] <= 56, header
        widths = page.evaluate(
            "() => [document.querySelector('.nav').scrollWidth,"
            " document.querySelector('.nav').clientWidth]"
        )
        assert widths[0] <= widths[1], widths
    finally:
        context.close()


def test_every_choice_of_the_lobbys_bot_lists_is_named_once(
    browser: Browser, gateway: Running
) -> None:
    """Who takes a seat over (a leaver's, a clock's): each list names each choice once."""
    page = browser.new_page()
    try:
        page.goto(f"{gateway.url}/?lang=en")
        page.get_by_test_id("create-game").wait_for()
        for select in ("leave-bot", "timeout-bot"):
            names = page.locator(f"[data-testid={select}] option").all_text_contents()
            assert len(names) == len(set(names)) >= 4, (select, names)
    finally:
        page.close()
