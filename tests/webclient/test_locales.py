"""Every locale in Chromium: lobby, a game in progress, the ranking and the "How to play"
page, with screenshots under test-artifacts/webclient/locales; right to left for Hebrew
with the board kept as a map; plural forms as the browser's CLDR rules pick them."""

from __future__ import annotations

import gettext
import re

import pytest
from playwright.sync_api import Browser, Page

from tests.webclient.conftest import ARTIFACTS, Api, Running
from webclient import catalogs, i18n

LOCALES = ["en", "hu", "nl", "fi", "he", "ja"]
SHOTS = ARTIFACTS / "locales"
MESSAGE_ID = re.compile(r"^[a-z_]+(?:\.[A-Za-z_-]+)+$")


@pytest.fixture(scope="module")
def games(gateway: Running) -> dict[str, str]:
    """A game some way in and a finished one, both played through the API."""
    api = Api(gateway.url)
    running, tokens = api.seated_game(["red", "blue", "green"])
    api.play(running, tokens, steps=24, seed=3)
    finished, done = api.seated_game(["yellow", "purple"])
    api.play(finished, done, seed=5)
    return {"running": running, "finished": finished, **tokens}


def page_in(browser: Browser, locale: str) -> Page:
    """A page of a browser whose language is ``locale`` (Accept-Language and navigator)."""
    context = browser.new_context(
        locale=locale,
        extra_http_headers={"Accept-Language": f"{locale},en;q=0.5"},
        viewport={"width": 1280, "height": 860},
    )
    return context.new_page()


def text(locale: str, msgid: str) -> str:
    """The catalog text of ``msgid`` (first form of a plural)."""
    value = catalogs.export(locale)["messages"][msgid]
    return value if isinstance(value, str) else value[0]


def centre_x(page: Page, selector: str) -> float:
    """The horizontal centre of the first element matching ``selector``, in page pixels."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2


@pytest.mark.parametrize("locale", LOCALES)
def test_each_locale_shows_lobby_game_and_ranking_in_its_language(
    browser: Browser, gateway: Running, games: dict[str, str], locale: str
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = page_in(browser, locale)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{gateway.url}/")
        page.get_by_test_id("create-game").wait_for()
        assert page.get_attribute("html", "lang") == locale
        assert page.get_attribute("html", "dir") == i18n.direction(locale)
        assert page.get_by_test_id("create-game").inner_text() == text(
            locale, "lobby.create_button"
        )
        page.locator(f"[data-testid=game-link][href='/games/{games['finished']}']").wait_for()
        page.screenshot(path=str(SHOTS / f"{locale}-lobby.png"))

        page.goto(f"{gateway.url}/games/{games['running']}")
        page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
        page.wait_for_function("document.getElementById('connection').dataset.state === 'live'")
        # The log shows what happens while the page watches: a few more moves.
        tokens = {k: v for k, v in games.items() if k.startswith("COLOUR_")}
        Api(gateway.url).play(games["running"], tokens, steps=8, seed=7)
        page.locator("[data-testid=log] li").nth(5).wait_for(state="attached")
        lines = page.locator("[data-testid=log] li").all_inner_texts()
        assert len(lines) > 5
        assert [line for line in lines if MESSAGE_ID.match(line.strip())] == []
        page.screenshot(path=str(SHOTS / f"{locale}-game.png"))

        page.goto(f"{gateway.url}/games/{games['finished']}")
        page.get_by_test_id("ranking").wait_for()
        assert text(locale, "ranking.title") in page.get_by_test_id("ranking").inner_text()
        page.screenshot(path=str(SHOTS / f"{locale}-ranking.png"), full_page=True)

        page.goto(f"{gateway.url}/how-to-play")
        page.wait_for_function("document.body.dataset.ready === '1'")
        assert page.locator("h1").inner_text() == text(locale, "howto.title")
        assert page.locator("[data-testid=diagram-start] [data-testid=tile]").count() == 1
        assert page.locator("[data-testid=diagram-voyage] [data-testid=tile]").count() == 3
        assert page.locator("[data-testid=diagram-voyage] [data-testid=ship]").count() == 6
        page.screenshot(path=str(SHOTS / f"{locale}-howto.png"), full_page=True)
    finally:
        page.context.close()
    assert errors == []


def test_hebrew_mirrors_the_page_but_not_the_board(
    browser: Browser, gateway: Running, games: dict[str, str]
) -> None:
    sides: dict[str, tuple[bool, bool]] = {}
    for locale in ("en", "he"):
        page = page_in(browser, locale)
        try:
            page.goto(f"{gateway.url}/games/{games['running']}")
            page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
            assert page.evaluate("getComputedStyle(document.body).direction") == (
                "rtl" if locale == "he" else "ltr"
            )
            svg = "document.querySelector('[data-testid=board]')"
            assert page.evaluate(f"getComputedStyle({svg}).direction") == "ltr"
            assert page.evaluate(f"getComputedStyle({svg}).transform") == "none"
            # Tonga lies at (0, 0); every tile east of it (q > 0) is drawn to its right.
            # Measured in one step, so that a redraw in between cannot move anything.
            tonga, east = page.evaluate(
                """() => {
                  const x = (n) => {
                    const b = n.getBoundingClientRect();
                    return b.x + b.width / 2;
                  };
                  const board = document.querySelector('[data-testid=board]');
                  const tiles = [...board.querySelectorAll('[data-testid=tile]')];
                  const tonga = tiles.find((n) => n.dataset.hex === '0,0');
                  const east = tiles.filter((n) => Number(n.dataset.hex.split(',')[0]) > 0);
                  return [x(tonga), east.map(x)];
                }"""
            )
            assert east, "the game has no tile east of Tonga yet"
            board_kept = all(x > tonga for x in east)
            brand_first = centre_x(page, "[data-testid=home]") < centre_x(
                page, "[data-testid=lang-form]"
            )
            sides[locale] = (board_kept, brand_first)
        finally:
            page.context.close()
    assert sides["en"] == (True, True)
    assert sides["he"] == (True, False)


def test_the_language_switch_changes_and_keeps_the_language(
    browser: Browser, gateway: Running
) -> None:
    page = page_in(browser, "en")
    try:
        page.goto(f"{gateway.url}/")
        page.get_by_test_id("create-game").wait_for()
        with page.expect_navigation():
            page.get_by_test_id("lang").select_option("ja")
        page.get_by_test_id("create-game").wait_for()
        assert page.get_attribute("html", "lang") == "ja"
        page.goto(f"{gateway.url}/how-to-play")
        assert page.get_attribute("html", "lang") == "ja"
        assert page.locator("h1").inner_text() == text("ja", "howto.title")
    finally:
        page.context.close()


def test_the_browsers_plural_rules_pick_the_catalogs_forms(
    browser: Browser, gateway: Running
) -> None:
    page = page_in(browser, "en")
    try:
        page.goto(f"{gateway.url}/")
        for locale in LOCALES:
            exported = catalogs.export(locale)
            form = gettext.c2py(i18n.read_catalog(locale).plural_expr)
            picked = page.evaluate(
                "([locale, plural]) => { const rules = new Intl.PluralRules(locale);"
                " return [...Array(201).keys()].map((n) => plural[rules.select(n)]"
                " ?? plural.other); }",
                [locale, exported["plural"]],
            )
            assert picked == [form(n) for n in range(201)], locale
    finally:
        page.context.close()


FSI, RLI, PDI = "\u2068", "\u2067", "\u2069"


def test_every_value_inserted_in_a_right_to_left_locale_is_isolated(
    browser: Browser, gateway: Running, games: dict[str, str]
) -> None:
    """The one function that fills placeholders isolates each value in Hebrew (U+2068
    … U+2069, or U+2067 … U+2069 for a value with Hebrew in it) and leaves English
    alone; the game's log and status show it."""
    for locale in ("he", "en"):
        page = page_in(browser, locale)
        try:
            page.goto(f"{gateway.url}/games/{games['running']}")
            page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
            page.wait_for_function("document.getElementById('connection').dataset.state === 'live'")
            tokens = {k: v for k, v in games.items() if k.startswith("COLOUR_")}
            Api(gateway.url).play(games["running"], tokens, steps=6, seed=11)
            page.locator("[data-testid=log] li").nth(3).wait_for(state="attached")
            filled = page.evaluate(
                """async () => {
                  const { t } = await import('/static/js/i18n.js');
                  const lang = document.documentElement.lang;
                  const catalog = await (await fetch(`/static/i18n/${lang}.json`)).json();
                  const out = [];
                  for (const [id, entry] of Object.entries(catalog.messages)) {
                    for (const form of Array.isArray(entry) ? entry : [entry]) {
                      const keys = [...form.matchAll(/\\{(\\w+)\\}/g)].map((m) => m[1]);
                      if (!keys.length) continue;
                      const value = (k) => (k === 'count' ? 7 : 'Ab' + k);
                      const params = Object.fromEntries(keys.map((k) => [k, value(k)]));
                      out.push([id, keys, t(id, params)]);
                    }
                  }
                  return out;
                }"""
            )
            assert len(filled) > 60
            for msgid, keys, text in filled:
                for key in keys:
                    value = "7" if key == "count" else f"Ab{key}"
                    isolated = f"{FSI}{value}{PDI}"
                    if locale == "he":
                        assert isolated in text, f"{msgid}: {key} is not isolated in {text!r}"
                    else:
                        assert FSI not in text and value in text, msgid
            lines = page.locator("[data-testid=log] li").all_inner_texts()
            with_values = [line for line in lines if FSI in line or RLI in line]
            if locale == "he":
                assert with_values, "the Hebrew log inserts names and numbers"
                for line in with_values:
                    assert line.count(FSI) + line.count(RLI) == line.count(PDI)
                    # The sentence starts with a Hebrew word, not with an inserted value.
                    assert "\u05d0" <= line.lstrip(FSI + RLI)[0] <= "\u05ea", line
            else:
                assert with_values == []
        finally:
            page.context.close()


#: Where each word of a failed voyage's log line lies on screen (left edges).
RETURNED_LINE = """
async () => {
  const { entryLines } = await import("/static/js/text.js");
  const returned = [{ colour: "COLOUR_RED", count: 2 }, { colour: "COLOUR_YELLOW", count: 1 }];
  const event = { voyage_failed: { colours: 1, danger: 3, returned } };
  const entry = { action_applied: { player: "COLOUR_YELLOW", action: {}, events: [event] } };
  const [text] = entryLines(entry, { tiles: [] });
  const line = document.createElement("p");
  line.style.cssText = "position: absolute; top: 0; right: 0; white-space: nowrap";
  line.textContent = text;
  document.body.append(line);
  const node = line.firstChild;
  const left = (word) => {
    const range = document.createRange();
    const at = node.textContent.lastIndexOf(word);
    range.setStart(node, at);
    range.setEnd(node, at + word.length);
    return range.getBoundingClientRect().left;
  };
  const found = { supply: left("למלאי"), red: left("אדום"), two: left("2"), yellow: left("צהוב") };
  line.remove();
  return found;
}
"""


def test_a_list_of_colours_reads_right_to_left_in_a_hebrew_sentence(
    browser: Browser, gateway: Running
) -> None:
    """The ships back to supply (red twice, then yellow) read from the right in that
    order: a list whose items are isolated runs right to left as a whole (the list
    read yellow first, its comma at the far left)."""
    page = browser.new_page()
    try:
        page.goto(f"{gateway.url}/?lang=he")
        page.get_by_test_id("create-game").wait_for()  # drawn once the catalogue is loaded
        at = page.evaluate(RETURNED_LINE)
        assert at["supply"] > at["red"] > at["two"] > at["yellow"], at
    finally:
        page.close()


def test_a_tutorial_is_titled_in_each_readers_language(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """A tutorial named by its creator's browser in Japanese reads "Tutorial" to an
    English spectator: a tutorial's title is the reader's."""
    game = api.new_game(["yellow", "red"], tutorial="first_game", display_name="チュートリアル")
    page = browser.new_page()
    try:
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        heading = page.locator("h1").first
        heading.wait_for()
        page.wait_for_function("document.querySelector('h1')?.textContent === 'Tutorial'")
    finally:
        page.close()
