"""Long display names and game titles (100 characters, no place to break) and names
with bidi controls are laid out safely on every screen, on a desktop and a phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.webclient.conftest import Api, Running
from tests.webclient.pages import sit
from tests.webclient.test_browser import DESKTOP, INSTANT, PHONE, shot, watch_errors

LONG = "W" * 100
TITLE = "T" * 100
SPOOF = "\u202emoc.elpmaxe"


def named_game(
    api: Api, names: list[str], steps: int | None, seed: int
) -> tuple[str, dict[str, str]]:
    """A started game titled TITLE whose seats carry ``names``; played ``steps`` decisions."""
    colours = ["red", "blue", "green"][: len(names)]
    game = api.new_game(colours, display_name=TITLE)
    tokens = {}
    for colour, name in zip(colours, names, strict=True):
        joined = api.ok(
            "POST",
            f"/api/v1/games/{game}/join",
            {"colour": f"COLOUR_{colour.upper()}", "display_name": name},
        )
        tokens[joined["colour"]] = joined["seat_token"]
    api.ok("POST", f"/api/v1/games/{game}/start", {}, next(iter(tokens.values())))
    api.play(game, tokens, steps=steps, seed=seed)
    return game, tokens


@pytest.fixture(scope="module")
def named(gateway: Running) -> dict[str, Any]:
    api = Api(gateway.url)
    names = [LONG, SPOOF, "אבישג " + LONG[:40]]
    finished, _ = named_game(api, names, None, 11)
    running, tokens = named_game(api, names, 12, 4)
    return {"finished": finished, "running": running, "tokens": tokens}


# Every element whose text is wider than the page, or reaches past its right edge.
OVERFLOW = """
() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const page = document.documentElement.scrollWidth;
  if (page > width + 1) out.push("page " + page);
  for (const node of document.querySelectorAll("body *")) {
    const text = node.textContent;
    if (!text.includes("WWWWWWWWWW") && !text.includes("TTTTTTTTTT")) continue;
    const box = node.getBoundingClientRect();
    if (box.width === 0) continue;
    const style = getComputedStyle(node);
    const spills = style.overflowX === "visible" && node.clientWidth > 0
      && node.scrollWidth > node.clientWidth + 1;
    if (box.right > width + 1 || box.left < -1 || spills) {
      const where = `${Math.round(box.left)}..${Math.round(box.right)}`;
      out.push(`${node.tagName}.${node.className} ${where}`);
    }
  }
  return out;
}
"""


def overflow(page: Page) -> list[str]:
    found: list[str] = page.evaluate(OVERFLOW)
    return found


@pytest.mark.parametrize("locale", ["en", "he"])
def test_long_names_stay_inside_every_screen(
    browser: Browser, gateway: Running, named: dict[str, Any], locale: str
) -> None:
    errors: list[str] = []
    problems: dict[str, list[str]] = {}
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport, locale=locale)
        context.add_init_script(INSTANT)
        page = context.new_page()
        watch_errors(page, errors)
        try:
            screens = {
                "lobby": f"{gateway.url}/?lang={locale}",
                "game": f"{gateway.url}/games/{named['running']}?lang={locale}",
                "end": f"{gateway.url}/games/{named['finished']}?lang={locale}",
                "replay": f"{gateway.url}/games/{named['finished']}?replay=1&at=30&lang={locale}",
            }
            for screen, url in screens.items():
                page.goto(url)
                if screen == "lobby":
                    page.get_by_test_id("game-link").first.wait_for()
                elif screen == "game":
                    page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
                    page.wait_for_function("document.body.dataset.playing !== '1'")
                elif screen == "end":
                    page.get_by_test_id("winner").wait_for()
                else:
                    page.wait_for_function("document.body.dataset.replayAt === '30'")
                shot(page, f"names-{locale}-{size}-{screen}")
                found = overflow(page)
                if found:
                    problems[f"{size} {screen}"] = found
            # The spoofing name is shown without its override character.
            page.goto(screens["game"])
            page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
            text = page.inner_text("body")
            assert "moc.elpmaxe" in text and "\u202e" not in text
        finally:
            context.close()
    assert problems == {}
    assert errors == []


def test_a_seated_player_with_a_long_name_sees_the_decision_on_a_phone(
    browser: Browser, gateway: Running, named: dict[str, Any]
) -> None:
    game = named["running"]
    snapshot = Api(gateway.url).ok("GET", f"/api/v1/games/{game}")["snapshot"]
    colour = snapshot["view"]["decision"]["player"]
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(INSTANT)
    page = context.new_page()
    try:
        page.goto(f"{gateway.url}/")
        sit(page, game, colour, named["tokens"][colour])
        page.goto(f"{gateway.url}/games/{game}")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        shot(page, "names-phone-decision")
        assert overflow(page) == []
    finally:
        context.close()


# Each player's name in the players table: its text, and whether any of it is cut off.
NAME_CELLS = """
() => [...document.querySelectorAll("[data-testid=players] td.name-cell .who")].map((n) => ({
  text: n.textContent.trim(),
  cut: n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1,
}))
"""


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_names_of_ordinary_length_show_whole_in_the_players_table(
    browser: Browser, gateway: Running, viewport: str
) -> None:
    """Four players with names of 11 to 19 letters: each reads whole, wrapped if need be."""
    api = Api(gateway.url)
    names = ["Bartholomew", "Reviewer", "Maximiliana", "Constantinopolitan"]
    colours = ["red", "blue", "green", "yellow"]
    game = api.new_game(colours, display_name="Names")
    for colour, name in zip(colours, names, strict=True):
        token = api.ok(
            "POST",
            f"/api/v1/games/{game}/join",
            {"colour": f"COLOUR_{colour.upper()}", "display_name": name},
        )["seat_token"]
    api.ok("POST", f"/api/v1/games/{game}/start", {}, token)
    context = browser.new_context(viewport=DESKTOP if viewport == "desktop" else PHONE)
    page = context.new_page()
    try:
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.locator("[data-testid=players] td.name-cell").first.wait_for()
        if viewport == "phone":
            page.get_by_test_id("drawer-open").click()
        cells = page.evaluate(NAME_CELLS)
        assert sorted(c["text"] for c in cells) == sorted(names)
        assert not any(c["cut"] for c in cells), cells
        page.get_by_test_id("players").scroll_into_view_if_needed()
        shot(page, f"names-table-{viewport}")
    finally:
        context.close()


# At the fitted view: royal masks over another island's name or points, and danger
# numbers over one another (each as "what / what", empty when nothing overlaps).
CROWDED = """
() => {
  const box = (n) => n.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
    && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const out = [];
  const texts = [...document.querySelectorAll("[data-testid=board] .island-label")]
    .flatMap((label) => [...label.querySelectorAll(":scope > .grow > text")]
      .map((t) => [label, t]));
  for (const mask of document.querySelectorAll("[data-testid=board] .royal .mask")) {
    const own = mask.closest(".island-label");
    for (const [label, text] of texts) {
      const shown = getComputedStyle(text).display !== "none";
      if (label !== own && shown && meets(box(mask), box(text))) {
        out.push(`mask of ${own?.dataset.hex} / ${text.textContent}`);
      }
    }
  }
  if (!window.checkDangers) return out;
  const dangers = [...document.querySelectorAll("[data-testid=board] .danger-label circle")]
    .filter((c) => getComputedStyle(c.closest(".danger-label")).display !== "none");
  dangers.forEach((a, i) => dangers.slice(i + 1).forEach((b) => {
    const hex = (n) => n.closest(".danger-label").dataset.hex;
    if (meets(box(a), box(b))) out.push(`danger ${hex(a)} / ${hex(b)}`);
  }));
  return out;
}
"""


def test_at_the_fitted_view_masks_and_danger_numbers_cover_nothing(
    browser: Browser, gateway: Running, named: dict[str, Any]
) -> None:
    """The end of a whole game, fitted on a desktop: no royal mask lies over another
    island's name. (Danger numbers keep 11 px there and may still touch: the check is
    off, ``window.checkDangers``.)"""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_init_script(INSTANT)
    page = context.new_page()
    try:
        page.goto(f"{gateway.url}/games/{named['finished']}?lang=en")
        page.get_by_test_id("winner").wait_for()
        page.get_by_test_id("zoom-fit").click()
        # The camera glides to the fitted view: wait until the view box holds still.
        page.wait_for_function(
            """() => new Promise((done) => {
              const board = document.querySelector('[data-testid=board]');
              const box = () => board.getAttribute('viewBox');
              const before = box();
              setTimeout(() => done(box() === before), 300);
            })"""
        )
        assert page.locator("[data-testid=board] .royal").count() >= 1
        shot(page, "names-fitted-end")
        assert page.evaluate(CROWDED) == []
    finally:
        context.close()
