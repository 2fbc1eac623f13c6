"""The board in Chromium as a player follows it: the view goes where each move
happens and holds a drawn tile long enough to see it; a decision is framed once
and nothing moves under the finger; a grown board stays readable (no text under
11 px at any zoom); log lines show where they happened; and the small bugs of
the decision panel stay fixed. Screenshots go to test-artifacts/webclient/camera."""

from __future__ import annotations

import json
import math
import random
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from tests.webclient.conftest import ARTIFACTS, Api, Running
from tests.webclient.pages import game_page, sit
from tests.webclient.test_browser import INSTANT, PHONE, decide, state, watch_errors
from tests.webclient.test_follow import bots_game
from webclient import i18n

SHOTS = ARTIFACTS / "camera"
DESKTOP: ViewportSize = {"width": 1366, "height": 768}
SIZE = 100.0
APOTHEM = SIZE * math.sqrt(3) / 2
#: A voyage plays at twice the normal speed here.
FAST = "localStorage.setItem('tongiaki.prefs', JSON.stringify({speed: 2, confirm: true}))"

#: What the board showed and when: every voyage as it set out (its route, the beach
#: it left, the view, the ships still drawn on that beach), every tile as it first
#: appeared (the view then), and every change of the view.
WATCH = """
window.seen = { voyages: [], tiles: [], views: [] };
window.addEventListener("DOMContentLoaded", () => {
  const known = new Set();
  new MutationObserver((changes) => {
    const svg = document.querySelector("[data-testid=board]");
    if (!svg) return;
    const now = performance.now();
    for (const change of changes) {
      if (change.type === "attributes" && change.target === svg) {
        window.seen.views.push({ t: now, box: svg.getAttribute("viewBox") });
      }
      for (const node of change.addedNodes ?? []) {
        if (node.nodeType !== 1) continue;
        if (node.dataset?.testid === "voyage") {
          const ships = `[data-testid=ship][data-beach="${node.dataset.from}"]`;
          const left = [...svg.querySelectorAll(ships)]
            .filter((n) => getComputedStyle(n).visibility !== "hidden").length;
          window.seen.voyages.push({ t: now, route: node.dataset.route, from: node.dataset.from,
            box: svg.getAttribute("viewBox"), left });
        }
        if (node.dataset?.testid === "tile" && !known.has(node.dataset.hex)) {
          const box = svg.getAttribute("viewBox");
          if (window.seen.armed) window.seen.tiles.push({ t: now, hex: node.dataset.hex, box });
          known.add(node.dataset.hex);
        }
      }
    }
  }).observe(document.body,
    { subtree: true, childList: true, attributes: true, attributeFilter: ["viewBox"] });
});
"""

#: Every visible text on the page smaller than 11 CSS px: HTML text nodes by their
#: font size, SVG texts by their font size times the scale they are drawn at.
SMALL_TEXT = """
() => {
  const small = [];
  const onScreen = (r) => r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0
    && r.left < innerWidth && r.top < innerHeight;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let count = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || !parent) continue;
    if (parent.closest("svg, script, style, option")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (!onScreen(range.getBoundingClientRect())) continue;
    if (getComputedStyle(parent).visibility === "hidden") continue;
    count += 1;
    const px = parseFloat(getComputedStyle(parent).fontSize);
    if (px < 11) small.push([parent.tagName, node.textContent.trim().slice(0, 30), px]);
  }
  let svgTexts = 0;
  for (const text of document.querySelectorAll("svg text")) {
    if (!text.textContent.trim() || !onScreen(text.getBoundingClientRect())) continue;
    if (getComputedStyle(text).visibility === "hidden") continue;
    const m = text.getScreenCTM();
    const px = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
    svgTexts += 1;
    const shown = text.textContent.trim().slice(0, 30);
    if (px < 11) small.push(["svg", shown, Math.round(px * 10) / 10]);
  }
  return { small, count, svgTexts };
}
"""


def shot(page: Page, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def view_box(page: Page) -> tuple[float, ...]:
    box: str = page.locator("[data-testid=board]").get_attribute("viewBox") or ""
    return tuple(float(x) for x in box.split())


def centre(q: int, r: int) -> tuple[float, float]:
    return 1.5 * SIZE * q, SIZE * math.sqrt(3) * (r + q / 2)


def whole_hex_inside(hex_key: str, box: str) -> bool:
    """Whether the hex "q,r" lies whole inside the viewBox ``box``."""
    q, r = (int(v) for v in hex_key.split(","))
    x, y = centre(q, r)
    bx, by, bw, bh = (float(v) for v in box.split())
    return (
        bx - 1 <= x - SIZE
        and x + SIZE <= bx + bw + 1
        and by - 1 <= y - APOTHEM
        and y + APOTHEM <= by + bh + 1
    )


def path_hexes(entry: dict[str, Any]) -> set[str]:
    """The hexes a voyage entry touches, read from its events as the server sent them."""
    out: set[str] = set()
    for event in entry["action_applied"].get("events", []):
        for kind, body in event.items():
            for field in ("beach", "at", "island", "back_to"):
                if field in body and (kind != "ships_placed"):
                    out.add(f"{body[field].get('q', 0)},{body[field].get('r', 0)}")
    return out


def wait_for_turn(api: Api, game: str, colour: str) -> dict[str, Any]:
    """The snapshot once it is ``colour``'s decision (bots answer on the server)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now: dict[str, Any] = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        decision = now["view"].get("decision")
        if decision is None or decision["player"] == colour:
            return now
        time.sleep(0.05)
    raise AssertionError("the bots never answered")


def yellow_plays(api: Api, game: str, token: str, moves: int, rng: random.Random) -> None:
    """Yellow's next ``moves`` decisions drawn from ``rng`` over the API (fast), each
    once the bots have answered; the early game before a page follows it."""
    for _ in range(moves):
        now = wait_for_turn(api, game, "COLOUR_YELLOW")
        api.ok(
            "POST",
            f"/api/v1/games/{game}/actions",
            {
                "sequence": now["sequence"],
                "request_id": f"y{now['sequence']}",
                "action": rng.choice(now["view"]["decision"]["options"]),
            },
            token,
        )


def test_a_bots_voyage_is_framed_whole_and_its_drawn_tile_is_seen(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(WATCH)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        game, token = bots_game(api, "yellow", ["red", "green", "blue"])
        # The early game through the API (fast), then followed in the page.
        rng = random.Random(7)
        yellow_plays(api, game, token, 12, rng)
        wait_for_turn(api, game, "COLOUR_YELLOW")
        page.goto(f"{gateway.url}/?lang=en")
        sit(page, game, "COLOUR_YELLOW", token)
        page.evaluate(FAST)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        start = int(api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["sequence"])
        page.wait_for_function("document.body.dataset.myturn === '1'")
        page.evaluate("window.seen.armed = true")
        voyages: list[dict[str, Any]] = []
        for _ in range(60):
            page.wait_for_function(
                "document.body.dataset.myturn === '1'"
                " || document.body.dataset.state === 'finished'",
                timeout=60000,
            )
            entries = api.ok("GET", f"/api/v1/games/{game}/entries?after_sequence={start}")
            voyages = [
                e
                for e in entries["entries"]
                if e.get("action_applied", {}).get("player") != "COLOUR_YELLOW"
                and any("emigrated" in ev for ev in e.get("action_applied", {}).get("events", []))
            ]
            drew = any(
                "tile_placed" in ev for e in voyages for ev in e["action_applied"].get("events", [])
            )
            if (len(voyages) >= 3 and drew) or state(page)["state"] == "finished":
                break
            asked = state(page)["sequence"]
            # Pick until a choice is complete; a pick that met a re-rendered board
            # (a busy machine) is simply made again.
            picking = time.monotonic() + 60
            while page.get_by_test_id("confirm").count() == 0 and time.monotonic() < picking:
                decide(page, rng)
            page.get_by_test_id("confirm").click()
            page.wait_for_function(f"Number(document.body.dataset.sequence) > {asked}")
        assert voyages, "no bot sailed"
        seen = page.evaluate("window.seen")
        routes = {frozenset(v["route"].split()): v for v in seen["voyages"]}
        for entry in voyages:
            hexes = path_hexes(entry)
            shown = routes.get(frozenset(hexes))
            assert shown is not None, (hexes, list(routes))
            # The view held the whole path as the group set out, and its beach was empty.
            assert all(whole_hex_inside(h, shown["box"]) for h in hexes), (hexes, shown)
            assert shown["left"] == 0, shown
        # Every tile drawn was in view when it appeared, and the view stayed a while.
        assert seen["tiles"]
        for tile in seen["tiles"]:
            assert whole_hex_inside(tile["hex"], tile["box"]), tile
            later = [
                v["t"] for v in seen["views"] if v["t"] > tile["t"] and v["box"] != tile["box"]
            ]
            if later:
                assert min(later) - tile["t"] >= 300, (tile, min(later))
        shot(page, "followed-voyage")
    finally:
        context.close()
    assert errors == []


@pytest.fixture(scope="module")
def grown(gateway: Running) -> dict[str, Any]:
    """A four-seat game played to its end through the API: the biggest board a real game makes."""
    api = Api(gateway.url)
    game, tokens = api.seated_game(["yellow", "red", "green", "blue"])
    final = api.play(game, tokens, seed=40)
    return {"game": game, "tokens": tokens, "tiles": len(final["view"]["tiles"])}


@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_grown_board_has_no_text_under_11_px_at_any_zoom(
    browser: Browser, gateway: Running, grown: dict[str, Any], size: str, viewport: Any
) -> None:
    errors: list[str] = []
    for locale in ("en", "he", "ja"):
        context = browser.new_context(viewport=viewport, locale=locale)
        context.add_init_script(INSTANT)
        page = context.new_page()
        watch_errors(page, errors)
        try:
            game = grown["game"]
            page.goto(f"{gateway.url}/?lang={locale}")
            sit(page, game, "COLOUR_YELLOW", grown["tokens"]["COLOUR_YELLOW"])
            page.goto(f"{gateway.url}/games/{game}?lang={locale}")
            page.get_by_test_id("winner").wait_for()
            page.get_by_test_id("zoom-fit").click()
            tiles = page.locator("[data-testid=board] [data-testid=tile]").count()
            assert tiles == grown["tiles"] >= 25
            out = page.evaluate(SMALL_TEXT)
            assert out["small"] == [], out
            assert out["svgTexts"] >= 10
            # Far out an island's ships show as counts per colour, not ship by ship;
            # farthest out, its points in a badge.
            tier = page.evaluate("[...document.querySelector('[data-testid=board]').classList]")
            ships = page.locator("[data-testid=board] [data-testid=ship]").first
            if "far" in tier:
                assert page.locator(".points-badge").first.is_visible()
            elif "wide" in tier:
                assert page.locator("[data-testid=counts]").first.is_visible()
            if "wide" in tier:
                assert not ships.is_visible()
            shot(page, f"{locale}-{size}-fit")
            for button, name in (("zoom-out", "far"), ("zoom-in", "close")):
                for _ in range(14):
                    page.get_by_test_id(button).click()
                out = page.evaluate(SMALL_TEXT)
                assert out["small"] == [], (name, out)
                if locale == "en" or name == "far":
                    shot(page, f"{locale}-{size}-{name}")
        finally:
            context.close()
    assert errors == []


def test_forty_tiles_at_fit_keep_every_label_readable(
    browser: Browser, gateway: Running, grown: dict[str, Any]
) -> None:
    """More tiles than a real game holds, drawn by the page's Board: still no small text."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        page.goto(f"{gateway.url}/games/{grown['game']}?replay=1&at=1&lang=en")
        page.wait_for_function("document.body.dataset.replayAt === '1'")
        drawn = page.evaluate(
            """async () => {
              const { Board } = await import("/static/js/board.js");
              const data = await (await fetch("/static/tiles.json")).json();
              const islands = data.islands.map((x) => x.id);
              const seas = data.seas.map((x) => x.id);
              const tiles = [];
              let i = 0;
              for (let ring = 0; tiles.length < 40; ring += 1) {
                for (let q = -ring; q <= ring; q += 1) {
                  for (let r = -ring; r <= ring; r += 1) {
                    const away = Math.max(Math.abs(q), Math.abs(r), Math.abs(q + r));
                    if (away !== ring || tiles.length >= 40) continue;
                    const id = i === 0 ? "tonga"
                      : i % 2 ? islands[1 + (i % (islands.length - 1))] : seas[i % seas.length];
                    tiles.push({ at: { q, r }, tile: id, rot: i % 6 });
                    i += 1;
                  }
                }
              }
              const beaches = [];
              for (const t of tiles.filter((t) => islands.includes(t.tile))) {
                beaches.push({ beach: { q: t.at.q, r: t.at.r, index: 0 },
                  colours: ["COLOUR_RED", "COLOUR_RED", "COLOUR_BLUE"] });
              }
              const area = document.querySelector(".board-area");
              area.replaceChildren();
              const board = new Board(area, () => {});
              board.render({ tiles, beaches }, null);
              board.camera.showAll();
              return tiles.length;
            }"""
        )
        assert drawn == 40
        out = page.evaluate(SMALL_TEXT)
        assert out["small"] == [], out
        assert page.locator("[data-testid=counts]").first.is_visible()
        shot(page, "forty-tiles-fit")
    finally:
        context.close()


def two_tap_turn(api: Api, gateway: Running) -> tuple[str, str, str]:
    """A game where the next decision is a person's turn with an expansion (two taps or more)."""
    game, tokens = api.seated_game(["yellow", "red"])
    rng = random.Random(11)
    for _ in range(200):
        now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        decision = now["view"]["decision"]
        if decision["kind"] == "DECISION_KIND_TURN" and any(
            "expand" in o for o in decision["options"]
        ):
            return game, decision["player"], tokens[decision["player"]]
        api.ok(
            "POST",
            f"/api/v1/games/{game}/actions",
            {
                "sequence": now["sequence"],
                "request_id": f"s{now['sequence']}",
                "action": rng.choice(decision["options"]),
            },
            tokens[decision["player"]],
        )
    raise AssertionError("no turn with an expansion")


@pytest.mark.parametrize("locale", ["en", "he", "ja"])
def test_nothing_moves_under_the_finger_on_a_phone(
    browser: Browser, gateway: Running, api: Api, locale: str
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale=locale)
    context.add_init_script(INSTANT)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        # A touch screen says "tap", not "click".
        first, tokens = api.seated_game(["yellow", "red"])
        page.goto(f"{gateway.url}/?lang={locale}")
        sit(page, first, "COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
        page.goto(f"{gateway.url}/games/{first}?lang={locale}")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        text = page.get_by_test_id("instruction").inner_text()
        assert {"en": "Tap", "he": "הקישו", "ja": "タップ"}[locale] in text, text
        game, colour, token = two_tap_turn(api, gateway)
        sit(page, game, colour, token)
        page.goto(f"{gateway.url}/games/{game}?lang={locale}")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        board = page.get_by_test_id("board")
        before = (board.bounding_box(), view_box(page))
        assert page.get_by_test_id("options").get_attribute("open") is None
        taps = 0
        for _ in range(3):
            islands = page.locator("[data-testid=target][data-key^='island:']")
            target = (
                islands.first if islands.count() else page.locator("[data-testid=target]").first
            )
            if not target.count():
                break
            hit = target.locator(".target-hit")
            box = hit.bounding_box()
            assert box is not None and box["width"] >= 43.5, box
            hit.tap()
            taps += 1
            # The board neither moved nor resized, and its view stayed where it was.
            assert (board.bounding_box(), view_box(page)) == before
            assert page.get_by_test_id("options").get_attribute("open") is None
            if page.get_by_test_id("confirm").count():
                break
        assert taps >= 2
        for hit in page.locator("[data-testid=target] .target-hit").all():
            box = hit.bounding_box()
            assert box is not None and box["width"] >= 43.5, box
        shot(page, f"{locale}-phone-two-taps")
        # The list opens when asked, and stays open at the next render.
        page.get_by_test_id("options").locator("summary").tap()
        page.get_by_test_id("reset").tap()
        assert page.get_by_test_id("options").get_attribute("open") is not None
        # Players and log: a drawer over the board, and back.
        page.get_by_test_id("drawer-open").tap()
        page.get_by_test_id("players").wait_for()
        assert page.get_by_test_id("players").is_visible()
        shot(page, f"{locale}-phone-drawer")
        page.get_by_test_id("drawer-close").tap()
        assert (board.bounding_box(), view_box(page))[0] == before[0]
    finally:
        context.close()
    assert errors == []


def test_log_lines_show_where_and_the_last_round_plays_again(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(FAST)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        game, token = bots_game(api, "yellow", ["red", "blue"])
        yellow_plays(api, game, token, 8, random.Random(3))
        wait_for_turn(api, game, "COLOUR_YELLOW")
        page.goto(f"{gateway.url}/?lang=en")
        sit(page, game, "COLOUR_YELLOW", token)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        # Pointing at a log line outlines where it happened, in view.
        line = page.locator("[data-testid=log] li.linked").last
        line.scroll_into_view_if_needed()
        line.hover()
        page.locator("[data-testid=spot]").first.wait_for()
        page.wait_for_function(
            """() => {
              const svg = document.querySelector('[data-testid=board]');
              const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
              return [...document.querySelectorAll('[data-testid=spot]')].every((n) => {
                const b = n.getBBox();
                return b.x >= x - 1 && b.y >= y - 1
                  && b.x + b.width <= x + w + 1 && b.y + b.height <= y + h + 1;
              });
            }"""
        )
        shot(page, "log-spot")
        page.get_by_test_id("turn").hover()
        page.wait_for_function("!document.querySelector('[data-testid=spot]')")
        # Zoomed in far, the line's place out of sight: pointed at, the view goes there;
        # left for the board, the view stays still under the pointer.
        before = page.get_by_test_id("board").get_attribute("viewBox")
        for _ in range(5):
            page.get_by_test_id("zoom-in").click()
        zoomed = page.get_by_test_id("board").get_attribute("viewBox")
        assert zoomed != before
        line.hover()
        page.locator("[data-testid=spot]").first.wait_for()
        page.wait_for_timeout(400)
        view = page.get_by_test_id("board").get_attribute("viewBox")
        assert view != zoomed
        board = page.get_by_test_id("board").bounding_box()
        assert board is not None
        page.mouse.move(board["x"] + board["width"] / 2, board["y"] + board["height"] / 2)
        page.wait_for_function("!document.querySelector('[data-testid=spot]')")
        page.wait_for_timeout(400)
        assert page.get_by_test_id("board").get_attribute("viewBox") == view
        # "Show the last round": the entries since yellow's last decision, again.
        seq = int(state(page)["sequence"])
        # Whose turn the status says while the round plays again: this player's, as now.
        page.evaluate(
            """() => {
              window.turnSaid = new Set();
              window.turnWatch = setInterval(() => {
                const line = document.querySelector("[data-testid=turn]")?.textContent;
                if (line && document.body.dataset.playing === "1") window.turnSaid.add(line);
              }, 30);
            }"""
        )
        page.get_by_test_id("last-round").click()
        page.wait_for_function(f"Number(document.body.dataset.sequence) < {seq}")
        page.wait_for_function(
            f"document.body.dataset.sequence === '{seq}' && document.body.dataset.myturn === '1'",
            timeout=60000,
        )
        said = page.evaluate(
            "() => { clearInterval(window.turnWatch); return [...window.turnSaid]; }"
        )
        assert said == [i18n.translate("en", "status.your_turn")], said
    finally:
        context.close()
    assert errors == []


DECISION_PANEL = """
async () => {
  const { GamePage } = await import("/static/js/game.js");
  const { Picker } = await import("/static/js/choices.js");
  const page = Object.create(GamePage.prototype);
  page.sequence = 7;
  const render = (decision, picks, view = {}) => {
    page.picker = new Picker(decision);
    for (const key of picks) page.picker.pick(key);
    const card = page.renderDecision({ tiles: [], beaches: [], ...view, decision });
    return {
      text: card.querySelector("[data-testid=instruction]").textContent,
      confirm: Boolean(card.querySelector("[data-testid=confirm]")),
      placed: card.querySelectorAll("[data-testid=group] [data-placed]").length,
      ghosts: (page.preview({ tiles: [], beaches: [], decision }).ghosts ?? []).length,
    };
  };
  const expand = {
    kind: "DECISION_KIND_TURN", player: "COLOUR_RED",
    options: [
      { expand: { island: { q: 0, r: 1 }, beaches: [0, 1, 2] } },
      { settle: {} },
    ],
  };
  const land = {
    kind: "DECISION_KIND_LAND", player: "COLOUR_RED", island: { q: 0, r: 1 },
    group: ["COLOUR_RED", "COLOUR_RED", "COLOUR_BLUE"],
    options: [
      { land: { ships: [{ beach: 0, colour: "COLOUR_RED" }] } },
      { land: { ships: [
        { beach: 0, colour: "COLOUR_RED" }, { beach: 1, colour: "COLOUR_BLUE" },
      ] } },
      { land: { ships: [{ beach: 1, colour: "COLOUR_BLUE" }] } },
    ],
  };
  return {
    oneLeft: render(expand, ["island:0,1"]),
    landNone: render(land, []),
    landSome: render(land, ["land:0:red"]),
  };
}
"""


def test_the_decision_panel_says_what_the_board_shows(
    browser: Browser, gateway: Running, grown: dict[str, Any]
) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{gateway.url}/?lang=en")
        page.get_by_test_id("create-game").wait_for()
        out = page.evaluate(DECISION_PANEL)
    finally:
        page.close()
    # One option left: it is shown whole on the board and offered for confirmation.
    assert out["oneLeft"] == {
        "text": i18n.translate("en", "pick.ready"),
        "confirm": True,
        "ghosts": 3,
        "placed": 0,
    }
    # "or confirm" only where a Confirm button is.
    assert "confirm" not in out["landNone"]["text"] and not out["landNone"]["confirm"]
    assert "or confirm" in out["landSome"]["text"] and out["landSome"]["confirm"]
    # The red ship placed is dimmed in the group; none before.
    assert out["landNone"]["placed"] == 0 and out["landSome"]["placed"] == 1


OPTION_LABELS = """
async () => {
  const { describeOption } = await import("/static/js/text.js");
  const view = { tiles: [
    { at: {}, tile: "tonga" },
    { at: { q: 1 }, tile: "sea-01" },
  ] };
  return {
    // An open end of a sea tile: named by the island near it and its direction from it.
    sea: describeOption({ place: { origin: { q: 1 }, dir: 5 } }, view, null),
    island: describeOption({ place: { origin: {}, dir: 3 } }, view, null),
    ship: describeOption({ settle_ship: { beach: { index: 2 } } }, view, null),
  };
}
"""


def test_option_labels_say_what_the_board_shows(browser: Browser, gateway: Running) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{gateway.url}/?lang=en")
        page.get_by_test_id("create-game").wait_for()
        labels = page.evaluate(OPTION_LABELS)
    finally:
        page.close()
    assert labels == {
        "sea": "New tile near Tonga, to the south-east",
        "island": "New tile north of Tonga",
        "ship": "Ship on Tonga, beach 3",
    }


def test_settings_stay_open_and_links_fit_the_reader(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        game = api.new_game(["yellow", "red"])
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.get_by_test_id("seats").wait_for()
        # Before the start there is nothing to replay; a spectator is told nothing about a seat.
        assert page.get_by_test_id("open-replay").count() == 0
        hint = page.get_by_test_id("share-hint").inner_text()
        assert "seat stays" not in hint and "take a seat" in hint
        tokens = {}
        for colour in ("COLOUR_YELLOW", "COLOUR_RED"):
            tokens[colour] = api.ok("POST", f"/api/v1/games/{game}/join", {"colour": colour})[
                "seat_token"
            ]
        api.ok("POST", f"/api/v1/games/{game}/start", {}, tokens["COLOUR_YELLOW"])
        page.get_by_test_id("open-replay").wait_for()
        sit(page, game, "COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
        page.reload()
        assert "seat stays" in page.get_by_test_id("share-hint").inner_text()
        # The settings box stays open across decisions.
        page.wait_for_function("document.body.dataset.myturn === '1'")
        page.get_by_test_id("prefs").locator("summary").click()
        rng = random.Random(5)
        decided = 0
        while decided < 2:
            now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            if now["view"]["decision"]["player"] == "COLOUR_RED":
                api.play(game, tokens, steps=1, seed=int(now["sequence"]))
                continue
            page.wait_for_function(
                f"document.body.dataset.sequence === '{now['sequence']}'"
                " && document.body.dataset.myturn === '1'"
            )
            while page.get_by_test_id("confirm").count() == 0 and decide(page, rng):
                pass
            page.get_by_test_id("confirm").click()
            page.wait_for_function(f"Number(document.body.dataset.sequence) > {now['sequence']}")
            decided += 1
        while (
            api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["view"]["decision"]["player"]
            == "COLOUR_RED"
        ):
            api.play(game, tokens, steps=1, seed=decided)
            decided += 1
        page.wait_for_function("document.body.dataset.myturn === '1'")
        assert page.get_by_test_id("prefs").get_attribute("open") is not None
        assert json.loads(page.evaluate("localStorage.getItem('tongiaki.prefs')"))["speed"] == 0
    finally:
        context.close()
    assert errors == []


#: A camera on a board that records where it is sent: zoomed by hand mid-game, then
#: the game ends, then zoomed by hand again.
ENDING = """
async () => {
  const { Camera } = await import("/static/js/camera.js");
  const sent = [];
  const board = { moveTo: (box) => sent.push(box), wholeBox: () => "whole", goal: {} };
  const camera = new Camera(board);
  camera.followed = true;
  camera.hold();
  camera.settle({});
  const midGame = sent.length;
  camera.settle({ result: [{ rank: 1 }] });
  const atEnd = sent.slice(midGame);
  camera.hold();
  camera.settle({ result: [{ rank: 1 }] });
  return { midGame, atEnd, after: sent.length - midGame - atEnd.length };
}
"""


def test_the_end_of_a_game_is_shown_whole_even_after_a_manual_zoom(
    browser: Browser, gateway: Running
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/?lang=en")
        moves = page.evaluate(ENDING)
        # Held mid-game; the whole board once at the end; held again after that.
        assert moves == {"midGame": 0, "atEnd": ["whole"], "after": 0}
    finally:
        page.close()


def test_a_phone_shows_whose_turn_it_is_on_the_board_screen(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """The drawer closed, the board screen itself says whose turn it is, in Hebrew too."""
    game, token = bots_game(api, "yellow", ["red"])
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.add_init_script(INSTANT)
    page = context.new_page()
    try:
        page.goto(f"{gateway.url}/?lang=he")
        sit(page, game, "COLOUR_YELLOW", token)
        page.goto(f"{gateway.url}/games/{game}?lang=he")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        status = page.get_by_test_id("board-status")
        assert status.is_visible()
        assert status.inner_text() == page.get_by_test_id("turn").inner_text()
        assert status.inner_text()
        page.screenshot(path=str(ARTIFACTS / "phone-board-status-he.png"))
    finally:
        context.close()


#: A narrow board framing a decision whose targets reach far to the right: where
#: the rightmost target ends, against the strip the zoom buttons cover when they run
#: down the right edge (`strip` undefined); and where the targets' middle lies when
#: they sit in the top strip instead (a phone: zoomStrip 0).
ZOOM_STRIP = """
async ([strip]) => {
  const { Camera } = await import("/static/js/camera.js");
  let shown = null;
  const board = {
    aspect: () => 390 / 500, svg: { clientWidth: 390 }, goal: { x: 0, y: 0, w: 1, h: 1 },
    framed: false, moveTo: (box) => { shown = box; }, zoomStrip: strip ?? undefined,
    scale: (b) => Math.min(390 / b.w, 500 / b.h),
    wholeBox: () => ({ x: -2000, y: -2000, w: 4000, h: 5128 }),
  };
  new Camera(board).decide("k", { x: 0, y: 0, w: 600, h: 200 });
  const px = (x) => (x - shown.x) * 390 / shown.w;
  return { right: px(600), middle: px(300), strip: 390 - 64 };
}
"""


def test_a_decision_is_framed_clear_of_the_zoom_buttons(browser: Browser, gateway: Running) -> None:
    page = browser.new_page(viewport=PHONE)
    try:
        page.goto(f"{gateway.url}/?lang=en")
        where = page.evaluate(ZOOM_STRIP, [None])
        assert where["right"] <= where["strip"] + 0.5, where
        # Buttons in the top strip: the targets are framed in the middle, not pushed aside.
        centred = page.evaluate(ZOOM_STRIP, [0])
        assert abs(centred["middle"] - 195) < 1, centred
    finally:
        page.close()


#: The camera's framing of a decision on a board of `size` CSS px: a board of
#: `tiles` (its whole box), targets in `bounds`; then the next decision of the
#: same chain (key + 1) with targets in `next`. The boxes shown, in board units.
FRAMING = """
async ([size, whole, bounds, next]) => {
  const { Camera } = await import("/static/js/camera.js");
  const shown = [];
  const scale = (b) => Math.min(size[0] / b.w, size[1] / b.h);
  const board = {
    aspect: () => size[0] / size[1], svg: { clientWidth: size[0] },
    goal: { x: 0, y: 0, w: 1, h: 1 }, framed: false, scale, wholeBox: () => whole,
    moveTo(box) { shown.push(box); this.goal = box; this.framed = true; },
  };
  const camera = new Camera(board);
  camera.decide(7, bounds);
  camera.decide(8, next);
  return shown.map((b) => ({ ...b, scale: scale(b) }));
}
"""


def test_a_decision_is_framed_with_its_surroundings_and_a_chain_keeps_the_view(
    browser: Browser, gateway: Running
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/?lang=en")
        board = [1010, 730]
        target = {"x": 0, "y": 0, "w": 120, "h": 100}
        near = {"x": 150, "y": 60, "w": 120, "h": 100}
        # A board that fits at a readable size is shown whole.
        small = {"x": -600, "y": -430, "w": 1200, "h": 867}
        shown = page.evaluate(FRAMING, [board, small, target, near])
        assert shown == [{**small, "scale": pytest.approx(1010 / 1200)}], shown
        # A big board: the targets with their surroundings, never closer than 1 px a
        # unit (about seven hexes across on a desktop), the targets inside.
        big = {"x": -3000, "y": -2168, "w": 6000, "h": 4336}
        shown = page.evaluate(FRAMING, [board, big, target, near])
        assert len(shown) == 1, shown  # the chain's next decision kept the view
        box = shown[0]
        assert box["scale"] <= 1.0 + 1e-9
        assert box["w"] >= 7 * SIZE
        for t in (target, near):
            assert box["x"] <= t["x"] and t["x"] + t["w"] <= box["x"] + box["w"]
            assert box["y"] <= t["y"] and t["y"] + t["h"] <= box["y"] + box["h"]
        # A target of the next decision off screen: it is framed again.
        far = {"x": 2000, "y": 1500, "w": 120, "h": 100}
        shown = page.evaluate(FRAMING, [board, big, target, far])
        assert len(shown) == 2, shown
        # A phone: the same, at the phone's closest (a hex and its neighbours).
        shown = page.evaluate(FRAMING, [[390, 480], big, target, near])
        assert len(shown) == 1 and shown[0]["w"] >= 5 * SIZE - 1e-6, shown
    finally:
        page.close()


#: A landing (close) and another decision with the same targets, on a big board at
#: a desktop's size: the boxes each is framed in, and their scales.
LANDING = """
async () => {
  const { Camera } = await import("/static/js/camera.js");
  const out = [];
  for (const [close, chosen] of [[false, false], [true, false], [true, true]]) {
    const board = {
      aspect: () => 1010 / 730, svg: { clientWidth: 1010 }, framed: true,
      goal: { x: -3000, y: -2168, w: 6000, h: 4336 },
      scale(b = this.goal) { return Math.min(1010 / b.w, 730 / b.h); },
      wholeBox: () => ({ x: -3000, y: -2168, w: 6000, h: 4336 }),
      moveTo(box) { this.goal = box; },
    };
    const camera = new Camera(board);
    // A zoom the player chose, every target in sight: a landing is framed all the same.
    if (chosen) camera.hold();
    camera.decide(9, { x: -80, y: -80, w: 160, h: 160 }, () => false, close);
    out.push({ ...board.goal, scale: board.scale() });
  }
  return out;
}
"""


def test_a_landing_is_framed_on_its_island_and_neighbours(
    browser: Browser, gateway: Running
) -> None:
    """A landing's ships are placed one by one around one island: it is framed on that
    island, closer than other decisions (up to 1.6 px a unit), also from a zoom the
    player chose."""
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/?lang=en")
        other, landing, chosen = page.evaluate(LANDING)
    finally:
        page.close()
    assert chosen == landing, (chosen, landing)
    assert other["scale"] <= 1.0 + 1e-9, other
    assert 1.0 < landing["scale"] <= 1.6 + 1e-9, landing
    assert landing["x"] <= -80 <= 80 <= landing["x"] + landing["w"], landing


#: A camera framing a decision far out, then picks: `crowded` says the targets a pick
#: leaves are too close together below `least` px a unit.
REFINE = """
async ([least]) => {
  const { Camera } = await import("/static/js/camera.js");
  const shown = [];
  const board = {
    aspect: () => 390 / 480, svg: { clientWidth: 390 }, framed: true,
    goal: { x: -3000, y: -3700, w: 6000, h: 7400 },
    scale(b = this.goal) { return Math.min(390 / b.w, 480 / b.h); },
    wholeBox: () => ({ x: -3000, y: -3700, w: 6000, h: 7400 }),
    moveTo(box) { shown.push(box); this.goal = box; },
  };
  const camera = new Camera(board);
  const crowded = (scale) => scale < least;
  const beaches = { x: 100, y: 100, w: 200, h: 150 };
  const first = camera.refine("7|island:1,1", beaches, crowded);
  const again = camera.refine("7|island:1,1", beaches, crowded);
  const roomy = camera.refine("7|island:1,1 beach:1,1,2", beaches, () => false);
  const moves = shown.length;
  const framed = { ...board.goal, scale: board.scale() };
  // Closer in (ships shown), targets however close stay where they are between picks.
  board.goal = { x: -300, y: -370, w: 600, h: 740 };
  const near = camera.refine("8|island:1,1", beaches, () => true);
  return { first, again, roomy, near, moves, framed };
}
"""


def test_a_pick_whose_targets_are_too_small_frames_them(browser: Browser, gateway: Running) -> None:
    """An island picked from afar leaves its beaches too close together to pick: the
    view frames them (once for that pick); a pick whose targets can be picked where
    they are moves nothing."""
    page = browser.new_page(viewport=PHONE)
    try:
        page.goto(f"{gateway.url}/?lang=en")
        out = page.evaluate(REFINE, [0.5])
    finally:
        page.close()
    assert out["first"] and not out["again"] and not out["roomy"] and out["moves"] == 1, out
    assert not out["near"], out
    goal = out["framed"]
    assert goal["scale"] >= 0.5, out
    assert goal["x"] <= 100 and goal["x"] + goal["w"] >= 300, out
    assert goal["y"] <= 100 and goal["y"] + goal["h"] >= 250, out


#: A camera on a board that records where it is sent: others' entries are followed
#: from the player's view, one of them far outside it; then they have all played.
RETURN = """
async () => {
  const { Camera } = await import("/static/js/camera.js");
  const sent = [];
  const board = {
    goal: { x: -200, y: -200, w: 400, h: 400 }, framed: true,
    aspect: () => 1, wholeBox: () => ({ x: -2000, y: -2000, w: 4000, h: 4000 }),
    scale: (b) => 800 / b.w,
    moveTo(box) { this.goal = box; sent.push(box); return Promise.resolve(); },
  };
  const camera = new Camera(board);
  const home = { ...board.goal };
  await camera.follow({ action_applied: { action: { expand: { island: { q: 6, r: 0 } } } } }, 0);
  const followed = { ...board.goal };
  camera.rest();
  const back = sent.at(-1);
  // A view of the whole board: back to the whole board as the entries left it.
  const small = board.wholeBox;
  board.wholeBox = () => ({ x: -600, y: -600, w: 1200, h: 1200 });
  board.goal = board.wholeBox();
  await camera.follow({ action_applied: { action: { expand: { island: { q: 5, r: 0 } } } } }, 0);
  // Grown by the tile drawn there, still shown whole (800 / 1300 px a unit).
  board.wholeBox = () => ({ x: -600, y: -600, w: 1300, h: 1300 });
  camera.rest();
  const grown = { ...board.goal };
  board.wholeBox = small;
  // Followed only inside the view: back exactly where it was.
  board.goal = { ...home };
  await camera.follow({ action_applied: { action: { expand: { island: { q: 0, r: 0 } } } } }, 0);
  camera.rest();
  const moves = sent.length;
  // Followed far away, then a decision of the player's framed where its targets are:
  // the end of the playback leaves that framing alone.
  board.goal = { ...home };
  await camera.follow({ action_applied: { action: { expand: { island: { q: 6, r: 0 } } } } }, 0);
  camera.decide(41, { x: -1800, y: -1800, w: 100, h: 100 });
  const framed = { ...board.goal };
  camera.rest();
  const after = { ...board.goal };
  // Followed far away, then a decision whose targets lie in the player's own view:
  // it is framed from that view (their zoom), not from where the others' moves went.
  // A view the player moved a while ago is panned to the others' moves too (and back);
  // one they are moving right now is left alone.
  board.goal = { ...home };
  camera.hold();
  camera.touched = performance.now() - 10000;
  await camera.follow({ action_applied: { action: { expand: { island: { q: 6, r: 0 } } } } }, 0);
  const oldMove = { ...board.goal };
  camera.rest();
  const oldBack = { ...board.goal };
  camera.hold();
  await camera.follow({ action_applied: { action: { expand: { island: { q: 6, r: 0 } } } } }, 0);
  const moving = { ...board.goal };
  camera.manual = false;
  const mine = { x: -500, y: -500, w: 1000, h: 1000 };
  board.goal = { ...mine };
  await camera.follow({ action_applied: { action: { expand: { island: { q: 6, r: 0 } } } } }, 0);
  const away = { ...board.goal };
  camera.decide(43, { x: -100, y: -100, w: 100, h: 100 });
  return {
    home, followed, back, grown, moves, framed, after, oldMove, oldBack, moving, mine, away,
    own: board.goal,
  };
}
"""


def test_after_others_moves_the_view_returns_to_the_players(
    browser: Browser, gateway: Running
) -> None:
    """Others' entries are followed at the player's zoom (panned to), then the view is
    back exactly where the player had it; a view of the whole board is back on the
    whole board as the entries grew it."""
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/?lang=en")
        out = page.evaluate(RETURN)
    finally:
        page.close()
    home, followed, back = out["home"], out["followed"], out["back"]
    # Followed at the same zoom, the far island (q 6 lies at x 900) in the middle.
    assert (followed["w"], followed["h"]) == (home["w"], home["h"]), out
    assert followed["x"] < 900 < followed["x"] + followed["w"], out
    assert back == home, out
    assert out["grown"] == {"x": -600, "y": -600, "w": 1300, "h": 1300}, out
    assert out["oldMove"] == followed and out["oldBack"] == home, out
    assert out["moving"] == home, out
    # An entry inside the view moves nothing, and nothing is sent back.
    assert out["moves"] == 4, out
    # A decision framed with the last entry keeps its framing when the playback ends.
    framed = out["framed"]
    assert framed["x"] <= -1800 and framed["x"] + framed["w"] >= -1700, out
    assert out["after"] == framed, out
    assert out["away"] != out["mine"] and out["own"] == out["mine"], out


#: A board with one target of `kind` ("beach" or "end"): whether it counts as
#: crowded at each scale (beaches must be picked where ships are drawn, not counted).
FAR_PICKS = """
async ([kind, scales]) => {
  const { Board } = await import("/static/js/board.js");
  const holder = document.createElement("div");
  document.body.append(holder);
  const board = new Board(holder, () => {});
  const target = document.createElementNS("http://www.w3.org/2000/svg", "g");
  target.setAttribute("class", `target target-${kind}`);
  board.layers.targets.append(target);
  const out = scales.map((s) => board.crowded(s));
  holder.remove();
  return out;
}
"""


def test_beaches_are_never_picked_where_ships_are_only_counted(
    browser: Browser, gateway: Running
) -> None:
    """On a touch screen, zoomed out so far that ships show as counts per island, a
    decision on beaches is framed closer (it counts as crowded); open ends, which need
    no ships, are not; with a mouse the player's view is kept."""
    for touch in (True, False):
        context = browser.new_context(viewport=PHONE, has_touch=touch, is_mobile=touch)
        page = context.new_page()
        try:
            page.goto(f"{gateway.url}/?lang=en")
            page.get_by_test_id("create-game").wait_for()
            beaches = page.evaluate(FAR_PICKS, ["beach", [0.4, 0.54, 0.56, 1.0]])
            assert beaches == [touch, touch, False, False], (touch, beaches)
            assert page.evaluate(FAR_PICKS, ["end", [0.4, 0.54]]) == [False, False]
        finally:
            context.close()


SLOW = "localStorage.setItem('tongiaki.prefs', JSON.stringify({speed: 0.5, confirm: true}))"
CAPTION = "document.querySelector('[data-testid=caption]').dataset.sequence"


def test_the_last_round_can_be_paused_and_looked_at_move_by_move(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """Paused, the playback holds on the move shown; "Next move" shows one more move
    and holds again; Resume plays the rest."""
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(SLOW)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        game, token = bots_game(api, "yellow", ["red", "blue", "green"])
        yellow_plays(api, game, token, 4, random.Random(5))
        wait_for_turn(api, game, "COLOUR_YELLOW")
        page.goto(f"{gateway.url}/?lang=en")
        sit(page, game, "COLOUR_YELLOW", token)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        assert page.get_by_test_id("pause").is_hidden()
        page.get_by_test_id("last-round").click()
        page.wait_for_function(f"document.body.dataset.playing === '1' && {CAPTION}")
        page.get_by_test_id("pause").click()
        assert page.get_by_test_id("pause").get_attribute("aria-pressed") == "true"
        held = page.evaluate(CAPTION)
        assert held
        # Held: the same move for as long as the player looks at it.
        page.wait_for_timeout(3000)
        assert page.evaluate(CAPTION) == held
        assert page.evaluate("document.body.dataset.playing") == "1"
        # One move more, then held again.
        page.get_by_test_id("step").click()
        page.wait_for_function(f"{CAPTION} !== '{held}'", timeout=60000)
        stepped = page.evaluate(CAPTION)
        assert int(stepped) > int(held)
        page.wait_for_timeout(3000)
        # Held on that move (unless it was the round's last: then the board is back to now).
        if page.evaluate("document.body.dataset.playing") == "1":
            assert page.evaluate(CAPTION) == stepped
            # Resumed: the rest plays, and the board is back to now.
            page.get_by_test_id("pause").click()
        page.wait_for_function("document.body.dataset.playing === '0'", timeout=120000)
        assert page.get_by_test_id("pause").is_hidden()
    finally:
        context.close()
    assert errors == []


#: The board's island tiles: each one's hex and number of beaches (from the catalogue).
ISLANDS = """
async () => {
  const { tile } = await import("/static/js/geometry.js");
  return [...document.querySelectorAll("[data-testid=board] [data-testid=tile]")]
    .map((n) => ({ hex: n.dataset.hex, info: tile(n.dataset.tile ?? "") }))
    .filter((x) => x.info?.kind === "island")
    .map((x) => ({ hex: x.hex, beaches: x.info.beaches.length }));
}
"""


@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_an_islands_beach_fills_show_under_the_pointer_or_a_tap(
    browser: Browser, gateway: Running, grown: dict[str, Any], size: str, viewport: Any
) -> None:
    """At "fit" a beach's fill is not drawn; the island under the pointer (or tapped on a
    phone) shows each of its beaches' number and fill, and they go when it leaves."""
    context = browser.new_context(viewport=viewport, has_touch=size == "phone")
    context.add_init_script(INSTANT)
    page = context.new_page()
    errors: list[str] = []
    watch_errors(page, errors)
    try:
        game = grown["game"]
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.get_by_test_id("winner").wait_for()
        page.get_by_test_id("zoom-fit").click()
        fills = page.locator("[data-testid=board] .layer-fills [data-testid=beach-fill]")
        assert fills.count() == 0
        islands = page.evaluate(ISLANDS)
        assert islands
        island = islands[len(islands) // 2]
        # Its tile's middle, read in one step (a busy page may draw the board again).
        x, y = page.evaluate(
            """hex => {
              const tile = `[data-testid=board] [data-testid=tile][data-hex="${hex}"]`;
              const r = document.querySelector(tile).getBoundingClientRect();
              return [r.x + r.width / 2, r.y + r.height / 2];
            }""",
            island["hex"],
        )
        if size == "phone":
            page.touchscreen.tap(x, y)
        else:
            page.mouse.move(x, y)
        page.wait_for_function(
            "n => document.querySelectorAll('.layer-fills [data-testid=beach-fill]').length === n",
            arg=island["beaches"],
        )
        for text in fills.evaluate_all("nodes => nodes.map((n) => n.textContent)"):
            assert re.fullmatch(r"\d+/\d+", text), text
        assert fills.first.is_visible()
        shot(page, f"fills-{size}")
        if size == "desktop":
            page.mouse.move(1, 1)
            page.wait_for_function(
                "!document.querySelector('.layer-fills [data-testid=beach-fill]')"
            )
    finally:
        context.close()
    assert errors == []


@pytest.mark.parametrize("locale", ["en", "fi"])
def test_a_compass_names_the_directions_the_log_uses(
    browser: Browser, gateway: Running, grown: dict[str, Any], locale: str
) -> None:
    """Beside the zoom buttons a rose of the six directions, north named in the page's
    language, at a readable size, clear of the buttons; not on a phone's crowded strip."""
    for viewport in (DESKTOP, PHONE):
        page = browser.new_page(viewport=viewport)
        try:
            page.goto(f"{gateway.url}/games/{grown['game']}?lang={locale}")
            page.get_by_test_id("winner").wait_for()
            rose = page.get_by_test_id("compass")
            if viewport is PHONE:
                assert not rose.is_visible()
                continue
            assert rose.is_visible()
            assert rose.locator("line").count() == 6
            north = rose.locator("text")
            assert north.text_content() == i18n.translate(locale, "dir.3")
            box, label, fit = (
                north.bounding_box(),
                rose.bounding_box(),
                page.get_by_test_id("zoom-fit").bounding_box(),
            )
            assert box is not None and label is not None and fit is not None
            assert box["height"] >= 11 and box["x"] >= label["x"] - 1
            assert box["x"] + box["width"] <= label["x"] + label["width"] + 1, (box, label)
            assert label["y"] >= fit["y"] + fit["height"], (label, fit)
            help_box = page.get_by_test_id("help-toggle").bounding_box()
            assert help_box is not None and label["y"] >= help_box["y"] + help_box["height"]
            shot(page, f"compass-{locale}")
        finally:
            page.close()


def test_a_phones_docked_panel_grows_over_a_board_that_stays(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """The docked decision's corner button makes it taller (more of its text in sight)
    over the board, whose box and view stay where they were; pressed again, it is back."""
    errors: list[str] = []
    game, colour, token = two_tap_turn(api, gateway)
    seat = (colour, token)
    with game_page(
        browser, gateway.url, game, seat, viewport=PHONE, touch=True, errors=errors
    ) as page:
        page.wait_for_function("document.body.dataset.myturn === '1'")
        board = page.get_by_test_id("board")
        dock = page.get_by_test_id("dock")
        before = (board.bounding_box(), view_box(page), dock.bounding_box())
        page.get_by_test_id("dock-grow").tap()
        page.wait_for_function("document.body.dataset.dock === 'tall'")
        grown = dock.bounding_box()
        assert grown is not None and before[2] is not None
        assert grown["height"] > before[2]["height"] + 100, (grown, before[2])
        assert grown["y"] + grown["height"] == pytest.approx(
            before[2]["y"] + before[2]["height"], abs=1
        )
        assert (board.bounding_box(), view_box(page)) == before[:2]
        assert page.get_by_test_id("dock-grow").get_attribute("aria-pressed") == "true"
        shot(page, "phone-dock-tall")
        page.get_by_test_id("dock-grow").tap()
        page.wait_for_function("document.body.dataset.dock !== 'tall'")
        assert dock.bounding_box() == before[2]
    assert errors == []


#: The targets' places (board units) and whether each lies in the view shown.
TARGETS_SEEN = """
() => {
  const svg = document.querySelector("[data-testid=board]");
  const [x, y, w, h] = svg.getAttribute("viewBox").split(" ").map(Number);
  return [...document.querySelectorAll(".target-hit")].map((n) => {
    const [cx, cy] = [Number(n.getAttribute("cx")), Number(n.getAttribute("cy"))];
    return cx >= x && cx <= x + w && cy >= y && cy <= y + h;
  });
}
"""


@pytest.mark.parametrize("touch", [False, True])
def test_targets_out_of_sight_are_pointed_at_from_the_edge(
    browser: Browser, gateway: Running, api: Api, touch: bool
) -> None:
    """A view dragged away from every target: a chip at the board's edge says how many
    lie that way, and pressing it brings them back in sight at the same zoom (the view
    stays the player's: nothing else moves it back)."""
    errors: list[str] = []
    game, token = bots_game(api, "yellow", ["red"])
    wait_for_turn(api, game, "COLOUR_YELLOW")
    viewport = PHONE if touch else DESKTOP
    with game_page(
        browser,
        gateway.url,
        game,
        ("COLOUR_YELLOW", token),
        viewport=viewport,
        touch=touch,
        errors=errors,
    ) as page:
        page.wait_for_function("document.body.dataset.myturn === '1'")
        assert all(page.evaluate(TARGETS_SEEN))
        assert page.get_by_test_id("edge-picks").count() == 0
        board = page.get_by_test_id("board").bounding_box()
        assert board is not None
        # Dragged far to the left and up (from off the targets, round the board's
        # middle): every target leaves the view.
        x, y = board["x"] + board["width"] * 0.85, board["y"] + board["height"] * 0.45
        page.mouse.move(x, y)
        page.mouse.down()
        for step in range(1, 11):
            page.mouse.move(x - step * 150, y - step * 120)
        page.mouse.up()
        page.wait_for_function(f"!({TARGETS_SEEN})().some(Boolean)")
        before = view_box(page)
        chips = page.get_by_test_id("edge-picks")
        chips.first.wait_for()
        counted = sum(int(chips.nth(i).inner_text().split()[-1]) for i in range(chips.count()))
        assert counted == len(page.evaluate(TARGETS_SEEN)), counted
        label = chips.first.get_attribute("aria-label") or ""
        assert label.startswith(str(int(chips.first.inner_text().split()[-1]))), label
        shot(page, f"edge-chips-{'phone' if touch else 'desktop'}")
        # Help mode names a chip, and the chip then moves nothing.
        page.get_by_test_id("help-toggle").click()
        chips.first.click()
        assert page.get_by_test_id("help-label").inner_text() == label
        assert view_box(page) == before
        page.get_by_test_id("help-toggle").click()
        if touch:
            chips.first.tap()
        else:
            chips.first.click()
        page.wait_for_function(f"({TARGETS_SEEN})().some(Boolean)")
        after = view_box(page)
        assert after[2:] == pytest.approx(before[2:]), (before, after)
    assert errors == []


#: A decision whose targets lie wider than the view shown, one of them in it: where
#: they can all be picked at a readable zoom they are framed together; a zoom the
#: player chose stays (the edge's chips point to the others).
SPREAD = """
async ([chosen]) => {
  const { Camera } = await import("/static/js/camera.js");
  const board = {
    aspect: () => 1010 / 730, svg: { clientWidth: 1010 }, framed: true,
    goal: { x: -500, y: -361, w: 1000, h: 723 },
    scale(b = this.goal) { return Math.min(1010 / b.w, 730 / b.h); },
    wholeBox: () => ({ x: -3000, y: -2168, w: 6000, h: 4336 }),
    moveTo(box) { this.goal = box; },
  };
  const camera = new Camera(board);
  if (chosen) camera.hold();
  const points = [[0, 0], [1400, 100]];
  camera.decide(5, { x: -20, y: -20, w: 1440, h: 140 }, () => false, false, points);
  return { ...board.goal, scale: board.scale() };
}
"""


def test_choices_spread_wider_than_the_view_are_framed_together(
    browser: Browser, gateway: Running
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/?lang=en")
        together, chosen = page.evaluate(SPREAD, [False]), page.evaluate(SPREAD, [True])
    finally:
        page.close()
    assert together["x"] <= -20 and together["x"] + together["w"] >= 1420, together
    assert together["scale"] >= 0.55, together
    assert chosen == {
        "x": -500,
        "y": -361,
        "w": 1000,
        "h": 723,
        "scale": pytest.approx(1.0097, 1e-3),
    }
