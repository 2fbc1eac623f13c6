"""Deciding in Chromium: Undo against a bot gives back the engine's board, the
consequences of an option are spelt out before Confirm, every option can be
chosen with the keyboard, and others' moves are read out to screen readers."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from playwright.sync_api import Browser, Page, ViewportSize

from engine import Game
from server.rpc import codec as convert
from tests.webclient.axe import violations
from tests.webclient.conftest import ARTIFACTS, Api, Running, own_gateway
from tests.webclient.pages import BUSY, game_page, on_lobby, sit
from tests.webclient.test_browser import DESKTOP, INSTANT, PHONE, state, watch_errors
from tests.webclient.test_follow import (
    board_of,
    bots_game,
    engine_board,
    log_lines,
    pick_and_confirm,
)
from tests.webclient.test_tutorial import catalog
from tongiaki.v1 import game_pb2 as pb
from webclient import i18n

SHOTS = ARTIFACTS / "decide"
TILES = json.loads(
    (Path(__file__).resolve().parents[2] / "webclient" / "static" / "tiles.json").read_text()
)
MOORINGS = {t["id"]: [b["moorings"] for b in t["beaches"]] for t in TILES["islands"]}
POINTS = {t["id"]: t["points"] for t in TILES["islands"]}
#: The screens looked at: the three scripts' locales, on a desktop and a phone.
LOOKS = [
    ("en", "desktop"),
    ("he", "desktop"),
    ("ja", "desktop"),
    ("en", "phone"),
    ("he", "phone"),
    ("ja", "phone"),
]
#: Every locale on a phone as well.
EVERY = [*LOOKS, ("hu", "phone"), ("nl", "phone"), ("fi", "phone")]
MINE = "document.body.dataset.myturn === '1' && document.body.dataset.busy !== '1'"


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def size(viewport: str) -> ViewportSize:
    return DESKTOP if viewport == "desktop" else PHONE


def name(colour: str) -> str:
    """COLOUR_RED -> red."""
    return colour.removeprefix("COLOUR_").lower()


@pytest.fixture(scope="module")
def undo_gateway() -> Iterator[Running]:
    """A game server whose bots hold their answer for a long undo window, and its gateway."""
    with own_gateway("tongiaki-undo-", ["--bot-pace", "0", "--undo-window", "600"]) as running:
        yield running


def replayed(api: Api, game: str) -> dict[str, Any]:
    """The game's record as far as the public log knows it: its actions without the
    taken-back ones, on a stack of the tiles drawn so far, then the ones left (in
    no particular order: the next draw is not known)."""
    entries = api.ok("GET", f"/api/v1/games/{game}/entries?page_size=2000")["entries"]
    undone = {
        int(e["action_taken_back"]["taken_back"]) for e in entries if "action_taken_back" in e
    }
    actions: list[Any] = []
    drawn: list[str] = []
    for entry in entries:
        applied = entry.get("action_applied")
        if applied is None or int(entry["sequence"]) in undone:
            continue
        action = json_format.ParseDict(applied["action"], pb.Action())
        actions.append(convert.action_from_proto(action))
        drawn += [e["tile_placed"]["tile"] for e in applied.get("events", []) if "tile_placed" in e]
    snapshot = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
    seats = [name(s["colour"]) for s in snapshot["game"]["seats"]]
    record = {"seats": seats, "stack": drawn + sorted(snapshot["view"]["stack_tiles"])}
    record["actions"] = actions
    return record


def replayed_board(api: Api, game: str) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """The engine's board after the game's log without its taken-back actions."""
    record = replayed(api, game)
    return engine_board(record, len(record["actions"]))


@pytest.mark.parametrize(("locale", "viewport"), EVERY)
def test_undo_against_a_bot_gives_back_the_engines_board(
    browser: Browser, undo_gateway: Running, locale: str, viewport: str
) -> None:
    errors: list[str] = []
    api = Api(undo_gateway.url)
    context = browser.new_context(viewport=size(viewport), is_mobile=viewport == "phone")
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, token = bots_game(api, "yellow", ["red"])
        before = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        page.goto(f"{undo_gateway.url}/?lang={locale}")
        sit(page, game, "COLOUR_YELLOW", token)
        page.goto(f"{undo_gateway.url}/games/{game}?lang={locale}")
        page.wait_for_function(MINE)
        sequence = int(state(page)["sequence"])
        confirmed = pick_and_confirm(page, random.Random(7))
        page.wait_for_function(f"document.body.dataset.sequence === '{sequence + 1}'")
        # The bot holds its answer: one Undo, naming the decision it takes back.
        undo = page.get_by_test_id("take-back")
        undo.wait_for()
        assert undo.count() == 1
        chosen = named_option(confirmed, locale)
        assert chosen and chosen in plain(undo.inner_text())
        if locale == "en":
            assert undo.inner_text() == f"Undo ({chosen})"
        shot(page, f"undo-{locale}-{viewport}")
        found = violations(page)
        assert not found, "\n".join(found)
        undo.click()
        page.wait_for_function(f"document.body.dataset.sequence === '{sequence + 2}'")
        page.wait_for_function(MINE)
        # The board the page shows is the engine's without the undone decision,
        # and the server's view is the one before it.
        assert board_of(page) == replayed_board(api, game)
        after = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        assert after["view"] == before["view"]
        assert int(after["sequence"]) == sequence + 2
        assert page.get_by_test_id("take-back").count() == 0
        # The undone decision stays in the log, struck through and marked as undone.
        undone = page.locator("[data-testid=log-line].undone")
        undone.first.wait_for(state="attached")
        assert undone.count() == 1
        assert undone.get_by_test_id("undone").inner_text() == catalog(locale)["log.undone"]
    finally:
        context.close()
    assert errors == []


def plain(text: str) -> str:
    """``text`` without the bidi isolation marks a right-to-left page puts round values."""
    return re.sub("[\u2066-\u2069]", "", text)


def named_option(confirm: str, locale: str) -> str:
    """The option a Confirm button names (its text less the catalog's words round it)."""
    before, after = i18n.translate(locale, "decision.confirm", option="\0").split("\0")
    text = plain(confirm).strip()
    assert text.startswith(before) and text.endswith(after), (text, before, after)
    return text[len(before) : len(text) - len(after)]


def play_until(api: Api, game: str, tokens: dict[str, str], wanted: Any, seed: int) -> Any:
    """Answer decisions with seeded random options until ``wanted(snapshot)`` holds."""
    for step in range(600):
        snapshot = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        if wanted(snapshot):
            return snapshot
        assert snapshot["view"].get("decision"), "the game ended first"
        api.play(game, tokens, steps=1, seed=seed * 1000 + step)
    raise AssertionError("never reached")


def ships_of(view: dict[str, Any], colour: str) -> int:
    return sum(
        [name(c) for c in b.get("colours", [])].count(colour) for b in view.get("beaches", [])
    )


def points_lost(view: dict[str, Any], colour: str) -> int:
    """What a new settlement costs now (R10, R13): the points of every island but royal ones."""
    now = next(
        (s.get("count", 0) for s in view.get("scores", []) if name(s["colour"]) == colour), 0
    )
    tiles = {(p["at"].get("q", 0), p["at"].get("r", 0)): p["tile"] for p in view["tiles"]}
    kept = sum(
        POINTS[tiles[(r["island"].get("q", 0), r["island"].get("r", 0))]]
        for r in view.get("royal", [])
        if name(r["colour"]) == colour
    )
    return int(now) - int(kept)


def seat_to_move(snapshot: Any, tokens: dict[str, str]) -> tuple[str, str]:
    """The seat (colour, token) of ``snapshot``'s pending decision."""
    colour = str(snapshot["view"]["decision"]["player"])
    return colour, tokens[colour]


def open_as(page: Page, url: str, game: str, snapshot: Any, tokens: dict[str, str]) -> str:
    """Open ``game`` in ``page`` holding the seat of its pending decision; that colour."""
    colour, token = seat_to_move(snapshot, tokens)
    page.goto(f"{url}/?lang=en")
    sit(page, game, colour, token)
    return colour


@pytest.mark.parametrize(("locale", "viewport"), EVERY)
def test_a_new_settlement_says_what_it_sends_home_and_costs(
    browser: Browser, gateway: Running, api: Api, locale: str, viewport: str
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=size(viewport), is_mobile=viewport == "phone")
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "red"])

        def costly(s: Any) -> bool:
            decision = s["view"].get("decision")
            if not decision or decision["kind"] != "DECISION_KIND_TURN":
                return False
            colour = name(decision["player"])
            settles = any("settle" in o for o in decision["options"])
            return settles and points_lost(s["view"], colour) > 0

        snapshot = play_until(api, game, tokens, costly, seed=3)
        colour = open_as(page, gateway.url, game, snapshot, tokens)
        page.goto(f"{gateway.url}/games/{game}?lang={locale}")
        page.wait_for_function(MINE)
        page.locator("[data-testid=target][data-key=settle]").click()
        said = page.get_by_test_id("consequence").all_inner_texts()
        ships, lost = (
            ships_of(snapshot["view"], name(colour)),
            points_lost(snapshot["view"], name(colour)),
        )
        if locale == "en":
            assert said == [
                f"Your {ships} ships on beaches go back to your supply."
                if ships != 1
                else "Your only ship on a beach goes back to your supply.",
                f"You lose {lost} points now." if lost != 1 else "You lose 1 point now.",
            ]
        else:
            assert len(said) == 2 and str(lost) in said[1]
        if viewport == "phone":
            # Scrolled into sight in the docked decision, above its action bar.
            card = page.get_by_test_id("consequences").bounding_box()
            dock = page.get_by_test_id("dock").bounding_box()
            bar = page.locator("[data-testid=dock] .decision-actions").bounding_box()
            assert card is not None and dock is not None and bar is not None
            assert dock["y"] <= card["y"] and card["y"] + min(card["height"], 40) <= bar["y"] + 1
        page.get_by_test_id("consequences").scroll_into_view_if_needed()
        shot(page, f"settle-{locale}-{viewport}")
        found = violations(page)
        assert not found, "\n".join(found)
    finally:
        context.close()
    assert errors == []


def fills(view: dict[str, Any], option: dict[str, Any]) -> bool:
    """Whether an expansion fills a beach (from the tiles' moorings and the ships on it)."""
    expand = option.get("expand")
    if not expand or expand.get("take"):
        return False
    island = expand["island"]
    at = (island.get("q", 0), island.get("r", 0))
    tile = next(
        p["tile"] for p in view["tiles"] if (p["at"].get("q", 0), p["at"].get("r", 0)) == at
    )
    on = {
        b["beach"].get("index", 0): len(b.get("colours", []))
        for b in view.get("beaches", [])
        if (b["beach"].get("q", 0), b["beach"].get("r", 0)) == at
    }
    return any(on.get(b, 0) + 1 >= MOORINGS[tile][b] for b in expand.get("beaches", []))


def test_an_expansion_that_fills_a_beach_says_a_chain_reaction_starts(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "red"])

        def filling(s: Any) -> bool:
            decision = s["view"].get("decision")
            return bool(decision) and any(fills(s["view"], o) for o in decision["options"][:40])

        snapshot = play_until(api, game, tokens, filling, seed=4)
        open_as(page, gateway.url, game, snapshot, tokens)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function(MINE)
        options = snapshot["view"]["decision"]["options"]
        index = next(i for i, o in enumerate(options[:40]) if fills(snapshot["view"], o))
        quiet = next(
            (
                i
                for i, o in enumerate(options[:40])
                if "expand" in o and not fills(snapshot["view"], o)
            ),
            None,
        )
        details = page.locator("details.options")
        if not details.evaluate("(d) => d.open"):
            details.locator("summary").click()
        page.locator(f"[data-testid=option][data-index='{index}']").click()
        said = page.get_by_test_id("consequence").all_inner_texts()
        # Each beach filled, then where its ships could sail from it.
        full = [s for s in said if "becomes full: a chain reaction starts." in s]
        assert full and said[0] == full[0], said
        assert sum("Where its ships could then sail" in s for s in said) == len(full), said
        # The button says it too, where a click is made.
        confirm = page.get_by_test_id("confirm").inner_text()
        assert confirm.endswith(": a chain reaction starts"), confirm
        shot(page, "fills-en-desktop")
        if quiet is not None:  # an expansion that fills nothing says nothing
            page.get_by_test_id("reset").click()
            details = page.locator("details.options")
            if not details.evaluate("(d) => d.open"):
                details.locator("summary").click()
            page.locator(f"[data-testid=option][data-index='{quiet}']").click()
            page.get_by_test_id("confirm").wait_for()
            assert page.get_by_test_id("consequence").count() == 0
            assert "chain reaction" not in page.get_by_test_id("confirm").inner_text()
    finally:
        context.close()
    assert errors == []


@pytest.mark.parametrize(("locale", "viewport"), [("en", "desktop"), ("he", "phone")])
def test_a_voyage_preview_says_how_it_would_go(
    browser: Browser, gateway: Running, api: Api, locale: str, viewport: str
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=size(viewport), is_mobile=viewport == "phone")
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "red", "blue"])

        def sailing(s: Any) -> bool:
            decision = s["view"].get("decision")
            return bool(decision) and decision["kind"] == "DECISION_KIND_EMIGRATE"

        snapshot = play_until(api, game, tokens, sailing, seed=6)
        open_as(page, gateway.url, game, snapshot, tokens)
        page.goto(f"{gateway.url}/games/{game}?lang={locale}")
        page.wait_for_function(MINE)
        jetties = page.locator("[data-testid=target][data-key^='jetty:']")
        jetties.first.click()
        page.get_by_test_id("confirm").wait_for()
        assert page.locator("[data-testid=path]").count() == 1
        said = " ".join(page.get_by_test_id("consequence").all_inner_texts())
        fails = page.locator("[data-testid=path-danger].fails").count() > 0
        # The group's colours are drawn beside the words.
        assert page.locator("[data-testid=voyage-group] .swatch").count() >= 1
        if locale == "en":
            # What a failing voyage says after its danger and colours, in the catalog's words.
            failing = i18n.translate("en", "consequence.voyage_fails", count=2, danger=9)
            assert (failing.split(": ", 1)[1] in said) == fails, said
            if page.locator("[data-testid=path-danger]").count():
                assert "danger/colours" in said
                # Drawn along the foam paths' curves, not straight across the tiles.
                assert "Q" in (page.locator(".path-line").get_attribute("d") or "")
        page.get_by_test_id("consequences").scroll_into_view_if_needed()
        shot(page, f"voyage-{locale}-{viewport}")
    finally:
        context.close()
    assert errors == []


def test_a_decision_is_made_and_undone_with_the_keyboard_alone(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "red"])
        page.goto(f"{gateway.url}/?lang=en")
        sit(page, game, "COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function(MINE)
        sequence = int(state(page)["sequence"])

        def tab_to(test_id: str) -> None:
            for _ in range(300):
                page.keyboard.press("Tab")
                if page.evaluate(f"document.activeElement?.dataset?.testid === '{test_id}'"):
                    return
            raise AssertionError(f"Tab never reached {test_id}")

        tab_to("target")
        page.keyboard.press("Enter")
        tab_to("confirm")
        page.keyboard.press("Enter")
        page.wait_for_function(f"document.body.dataset.sequence === '{sequence + 1}'")
        page.get_by_test_id("take-back").wait_for()
        page.keyboard.press("Control+z")
        page.wait_for_function(f"document.body.dataset.sequence === '{sequence + 2}'")
        assert "takes back their last decision" in log_lines(page)[-1]
    finally:
        context.close()
    assert errors == []


def test_others_moves_are_read_out_and_ones_own_are_not(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, token = bots_game(api, "yellow", ["red"])
        page.goto(f"{gateway.url}/?lang=en")
        sit(page, game, "COLOUR_YELLOW", token)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function(MINE)
        announcer = page.get_by_test_id("announcer")
        assert announcer.get_attribute("aria-live") == "polite"
        pick_and_confirm(page, random.Random(3))
        page.wait_for_function(
            "document.querySelector('[data-testid=announcer] p') !== null"
            " && document.body.dataset.myturn === '1'"
        )
        read = announcer.locator("p").all_inner_texts()
        assert read and all("Red" in line for line in read), read
        assert not any("Yellow" in line for line in read), read
        # Read out only: the region takes no room on screen.
        box = announcer.bounding_box()
        assert box is not None and box["width"] <= 1 and box["height"] <= 1
    finally:
        context.close()
    assert errors == []


@pytest.mark.parametrize(("locale", "viewport"), [("en", "desktop"), ("ja", "phone")])
def test_the_colour_blind_palette_recolours_every_ship(
    browser: Browser, gateway: Running, api: Api, locale: str, viewport: str
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=size(viewport), is_mobile=viewport == "phone")
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "red", "green", "blue", "purple", "orange"])
        api.play(game, tokens, steps=12, seed=8)
        page.goto(f"{gateway.url}/games/{game}?lang={locale}")
        page.wait_for_function("document.querySelector('[data-testid=ship]') !== null")
        palettes = page.evaluate(
            "import('/static/js/ships.js').then((m) => JSON.parse(JSON.stringify(m.PALETTES)))"
        )
        fills = (
            "[...document.querySelectorAll('[data-testid=board] [data-testid=ship]')]"
            ".map((n) => [n.dataset.colour, n.getAttribute('fill')])"
        )
        for colour, fill in page.evaluate(fills):
            assert fill == palettes["standard"][colour]
        page.get_by_test_id("prefs").locator("summary").click()
        page.get_by_test_id("pref-palette").check()
        page.wait_for_function(
            f"document.querySelector('[data-testid=board] [data-testid=ship]')"
            f".getAttribute('fill') !== undefined && {json.dumps(palettes['distinct'])}"
            f"[document.querySelector('[data-testid=board] [data-testid=ship]').dataset.colour]"
            f" === document.querySelector('[data-testid=board] [data-testid=ship]')"
            f".getAttribute('fill')"
        )
        shown = page.evaluate(fills)
        assert shown and all(fill == palettes["distinct"][c] for c, fill in shown)
        assert json.loads(page.evaluate("localStorage.getItem('tongiaki.prefs')"))["palette"] == (
            "distinct"
        )
        page.get_by_test_id("board").scroll_into_view_if_needed()
        shot(page, f"palette-{locale}-{viewport}")
    finally:
        context.close()
    assert errors == []


def sinking(api: Api, game: str, snapshot: Any) -> tuple[str, int, int] | None:
    """An emigration of the pending decision whose voyage the engine sinks on sea
    tiles already placed (no tile drawn first): its jetty key, the danger and the
    group's colours."""
    decision = snapshot["view"].get("decision")
    if not decision or decision["kind"] != "DECISION_KIND_EMIGRATE":
        return None
    engine = Game.from_record(replayed(api, game), checked=False)
    for option in decision["options"]:
        trial = engine.copy()
        action = convert.action_from_proto(json_format.ParseDict(option, pb.Action()))
        for event in trial.apply(action):
            if event["kind"] == "tile_placed":
                break
            if event["kind"] == "voyage_failed":
                beach = option["emigrate"]["beach"]
                at = [beach.get("q", 0), beach.get("r", 0), beach.get("index", 0)]
                key = "jetty:" + ",".join(map(str, [*at, option["emigrate"].get("dir", 0)]))
                return key, event["danger"], event["colours"]
    return None


def test_a_voyage_the_known_seas_would_sink_says_so_with_the_engines_danger(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        found = None
        for seed in range(12):
            game, tokens = api.seated_game(["yellow", "red", "blue", "green"])
            try:
                snapshot = play_until(
                    api,
                    game,
                    tokens,
                    lambda s, g=game: sinking(api, g, s) is not None,
                    seed=40 + seed,
                )
            except AssertionError:
                continue
            found = sinking(api, game, snapshot)
            break
        assert found is not None, "no emigration onto a sinking sea in 12 games"
        key, danger, colours = found
        open_as(page, gateway.url, game, snapshot, tokens)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function(MINE)
        page.locator(f"[data-testid=target][data-key='{key}']").click()
        said = page.get_by_test_id("consequence").all_inner_texts()
        assert said[0] == i18n.translate(
            "en", "consequence.voyage_fails", count=colours, danger=danger
        ), said
        assert said[-1] == i18n.translate("en", "consequence.path_legend")
        assert page.locator("[data-testid=path-danger].fails").count() == 1
        labels = page.locator("[data-testid=path-danger]").all_text_contents()
        assert labels[-1] == f"{danger}/{colours}"
        page.get_by_test_id("consequences").scroll_into_view_if_needed()
        shot(page, "voyage-fails-en-desktop")
    finally:
        context.close()
    assert errors == []


#: Tonga with a loop of two sea tiles off its south: out through the south jetty,
#: the route turns round and comes back to Tonga. ``room`` free moorings elsewhere.
HOMEWARD = """
async (room) => {
  const { GamePage } = await import("/static/js/game.js");
  const { consequences } = await import("/static/js/consequences.js");
  const full = ["COLOUR_RED", "COLOUR_RED", "COLOUR_BLUE"];
  const view = {
    tiles: [
      { tile: "tonga", at: {} },
      { tile: "sea-01", at: { q: 0, r: 1 }, rot: 5 },
      { tile: "sea-01", at: { q: 1, r: 0 }, rot: 1 },
    ],
    beaches: [0, 1, 2, 3, 4, 5].map((index) => ({
      beach: { index }, colours: index === 3 ? full.slice(room) : full,
    })),
  };
  const path = GamePage.prototype.voyagePath.call(null, view, [0, 0, 0, 0]);
  const said = consequences({ emigrate: {} }, view, null, "red", path);
  // Along the foam paths: both sea tiles are crossed on a curve, and the route
  // keeps off Tonga's centre (its name) at both ends.
  const curves = path.points.filter((p) => p.via).length;
  const centred = path.points.some((p) => Math.hypot(p.x, p.y) < 40);
  return [...said, `curves ${curves}`, `centred ${centred}`];
}
"""


def test_a_voyage_back_to_the_island_it_left_says_so_and_when_nothing_changes(
    browser: Browser, gateway: Running
) -> None:
    """A group that sails round to the island it left is told so; with the other
    beaches full it fills the same beach again, and the words say nothing changes."""
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/?lang=en")
        page.wait_for_function("document.documentElement.lang === 'en'")
        english = catalog("en")
        back = english["consequence.voyage_back"].format(island="Tonga")
        same = english["consequence.voyage_same"].format(island="Tonga")
        said = page.evaluate(HOMEWARD, 0)
        assert back in said and same in said, said
        assert "curves 2" in said and "centred false" in said, said
        assert english["consequence.voyage_lands"].format(island="Tonga") not in said
        said = page.evaluate(HOMEWARD, 1)
        assert back in said and same not in said, said
    finally:
        page.close()


#: An expansion onto beaches 1, 4, 5 and 6, described on a narrow button: where each
#: number of the list lies (its line and its left edge).
BEACH_LIST = """
async () => {
  const { describeOption } = await import("/static/js/text.js");
  const option = { expand: { island: {}, beaches: [0, 3, 4, 5] } };
  const button = document.createElement("button");
  button.style.cssText = "position: absolute; inline-size: 7rem; top: 0; left: 0";
  button.textContent = describeOption(option, { tiles: [{ tile: "tonga", at: {} }] }, null);
  document.body.append(button);
  const node = button.firstChild;
  return ["1", "4", "5", "6"].map((digit) => {
    const range = document.createRange();
    const at = node.textContent.lastIndexOf(digit);
    range.setStart(node, at);
    range.setEnd(node, at + 1);
    const box = range.getBoundingClientRect();
    return { digit, top: Math.round(box.top), left: box.left };
  });
}
"""


NESTED_LIST = """
async () => {
  const { describeOption } = await import("/static/js/text.js");
  const { t } = await import("/static/js/i18n.js");
  const what = describeOption({ expand: { island: {}, beaches: [2, 5] } },
    { tiles: [{ tile: "tonga", at: {} }] }, null);
  return [what, t("undo.button", { option: what }), t("decision.confirm", { option: what })]
    .map((text) => {
      const button = document.createElement("button");
      button.style.cssText = "position: absolute; top: 0; left: 0; white-space: nowrap";
      button.textContent = text;
      document.body.append(button);
      const node = button.firstChild;
      const left = (digit) => {
        const range = document.createRange();
        const at = node.textContent.lastIndexOf(digit);
        range.setStart(node, at);
        range.setEnd(node, at + 1);
        return range.getBoundingClientRect().left;
      };
      // Read from the right, as the sentence is: 3 first (to the right), then 6.
      const inOrder = left("3") > left("6");
      button.remove();
      return { text, inOrder };
    });
}
"""


def test_beach_numbers_keep_their_order_inside_undo_and_confirm_in_hebrew(
    browser: Browser, gateway: Running
) -> None:
    """ "3, 6" reads 3 then 6 (from the right) in the option, and in the Undo and
    Confirm buttons that name it (a list isolated inside an isolated option)."""
    page = browser.new_page(viewport=PHONE)
    try:
        page.goto(f"{gateway.url}/?lang=he")
        page.get_by_test_id("create-game").wait_for()  # drawn once the catalogue is loaded
        found = page.evaluate(NESTED_LIST)
        assert len(found) == 3 and all(f["inOrder"] for f in found), found
    finally:
        page.close()


def test_a_list_of_beach_numbers_keeps_its_order_in_hebrew(
    browser: Browser, gateway: Running
) -> None:
    """In a right-to-left page, "1, 4, 5, 6" reads in order from the right, on one line
    of a narrow button."""
    page = browser.new_page(viewport=PHONE)
    try:
        page.goto(f"{gateway.url}/?lang=he")
        page.get_by_test_id("create-game").wait_for()  # drawn once the catalogue is loaded
        found = page.evaluate(BEACH_LIST)
        # One line, left to right: the list is never split where the button wraps.
        for a, b in itertools.pairwise(found):
            assert b["top"] == a["top"] and b["left"] < a["left"], found
    finally:
        page.close()


EXITS = """
async ([colours]) => {
  const { GamePage } = await import("/static/js/game.js");
  const { neighbour } = await import("/static/js/geometry.js");
  const page = Object.create(GamePage.prototype);
  Object.defineProperty(page, "seat", { value: { colour: "COLOUR_YELLOW" } });
  // North of Tonga, a sea tile turned so that its danger-2 path starts at Tonga's
  // jetty; its other end leads off the board.
  const [q, r] = neighbour(0, 0, 3);
  const view = {
    tiles: [{ tile: "tonga", at: {}, rot: 0 }, { tile: "sea-01", at: { q, r }, rot: 4 }],
    beaches: [{ beach: { index: 3 }, colours }],
    royal: [],
  };
  const decision = { kind: "DECISION_KIND_TURN", player: "COLOUR_YELLOW", options: [] };
  const card = page.renderConsequences({ expand: { island: {}, beaches: [3] } }, view, decision);
  return [...card.querySelectorAll("[data-testid=consequence]")].map((p) => p.textContent);
}
"""


@pytest.mark.parametrize(
    ("colours", "exit"),
    [
        (["COLOUR_YELLOW", "COLOUR_YELLOW"], "\u2013 north: the voyage fails at danger 2"),
        (
            ["COLOUR_RED", "COLOUR_BLUE"],
            "\u2013 north: reaches open sea, where a new tile is drawn"
            " and the voyage may still fail",
        ),
    ],
    ids=["fails", "passes"],
)
def test_an_expansion_that_fills_a_beach_says_where_its_ships_could_sail(
    browser: Browser, gateway: Running, colours: list[str], exit: str
) -> None:
    """Before Confirm, the beach an expansion fills shows each jetty's voyage with the
    group it would hold (one colour fails at danger 2; three colours pass it)."""
    lines = on_lobby(browser, gateway.url, EXITS, [colours])
    one = len(set(colours) | {"COLOUR_YELLOW"}) == 1
    group = "a group of one colour" if one else "a group of 3 colours"
    assert lines == [
        "Tonga, beach 4, becomes full: a chain reaction starts.",
        f"Where its ships could then sail ({group}):",
        exit,
    ], lines


def _expanding(s: Any) -> bool:
    """A turn whose expansions each take two beaches or more (picks: island, beaches)."""
    decision = s["view"].get("decision")
    if not decision or decision.get("kind") != "DECISION_KIND_TURN":
        return False
    expands = [o["expand"] for o in decision["options"] if "expand" in o]
    return bool(expands) and all(len(e.get("beaches", [])) >= 2 for e in expands)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_start_over_keeps_its_place_and_the_preview_pointed_at_again_confirms(
    browser: Browser, gateway: Running, api: Api, viewport: str
) -> None:
    """Picking until an option is complete: Start over never moves as Confirm appears
    (a click meant for it never meets Confirm); then a click on the previewed ships
    confirms the choice they show."""
    errors: list[str] = []
    context = browser.new_context(viewport=size(viewport))
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "red"])
        snapshot = play_until(api, game, tokens, _expanding, seed=8)
        open_as(page, gateway.url, game, snapshot, tokens)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function(MINE)
        reset = page.get_by_test_id("reset")
        confirm = page.get_by_test_id("confirm")
        before = None
        for _ in range(8):
            if confirm.count():
                break
            if reset.count():
                before = reset.bounding_box()
            page.locator("[data-testid=board] [data-testid=target]").first.click()
        assert confirm.count() == 1 and before is not None
        assert reset.bounding_box() == before
        # Confirm lies in the action bar: over the board's bottom on a desktop, at the
        # foot of the docked decision on a phone (the same place at every decision).
        box = confirm.bounding_box()
        frame = page.get_by_test_id("board" if viewport == "desktop" else "dock").bounding_box()
        assert box is not None and frame is not None
        assert frame["x"] <= box["x"] and box["x"] + box["width"] <= frame["x"] + frame["width"]
        bottom = frame["y"] + frame["height"]
        assert bottom - 130 <= box["y"] + box["height"] <= bottom, (box, frame)
        if viewport == "desktop":
            # The playback bar lies beside the action bar, in the same strip at the
            # board's bottom (which the view keeps clear of), over neither button.
            bar = page.get_by_test_id("playback").bounding_box()
            assert bar is not None and bottom - 60 <= bar["y"] + bar["height"] <= bottom, bar
            for button in (box, reset.bounding_box()):
                assert button is not None
                apart = (
                    bar["x"] + bar["width"] <= button["x"]
                    or button["x"] + button["width"] <= bar["x"]
                )
                assert apart, (bar, button)
        shot(page, f"action-bar-{viewport}")
        sequence = state(page)["sequence"]
        ghost = page.get_by_test_id("ghost").first
        ghost.click()
        page.wait_for_function(f"document.body.dataset.sequence !== '{sequence}'")
    finally:
        context.close()
    assert errors == []


def _two_islands(s: Any) -> bool:
    """A turn that can expand on two islands or more, one of them in several ways
    (picks: the island, then its beaches)."""
    decision = s["view"].get("decision")
    if not decision or decision.get("kind") != "DECISION_KIND_TURN":
        return False
    islands = [
        json.dumps(o["expand"].get("island", {}), sort_keys=True)
        for o in decision["options"]
        if "expand" in o
    ]
    return len(set(islands)) >= 2 and any(islands.count(i) >= 2 for i in islands)


def _two_islands_turn(api: Api) -> tuple[str, dict[str, str], Any, list[str]]:
    """A game at a turn of ``_two_islands``: its snapshot, and the island ("q,r") of
    each expansion option."""
    game, tokens = api.seated_game(["yellow", "red"])
    snapshot = play_until(api, game, tokens, _two_islands, seed=5)
    options = [o["expand"] for o in snapshot["view"]["decision"]["options"] if "expand" in o]
    hexes = [
        f"{o.get('island', {}).get('q', 0)},{o.get('island', {}).get('r', 0)}" for o in options
    ]
    return game, tokens, snapshot, hexes


def test_another_island_clicked_mid_choice_starts_the_choice_there(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """An island picked, its beaches offered: a click on another island that can be
    expanded on starts the choice over on that island, with no Start over first."""
    errors: list[str] = []
    game, tokens, snapshot, hexes = _two_islands_turn(api)
    first = next(h for h in hexes if hexes.count(h) >= 2)
    other = next(h for h in hexes if h != first)
    with game_page(
        browser, gateway.url, game, seat_to_move(snapshot, tokens), errors=errors
    ) as page:
        page.wait_for_function(MINE)
        page.locator(f'[data-testid=target][data-key="island:{first}"]').click()
        beaches = page.locator(f'[data-testid=target][data-key^="beach:{first},"]')
        beaches.first.wait_for()
        # The other island's tile, clicked at its centre (no target there now).
        box = page.locator(
            f'[data-testid=board] [data-testid=tile][data-hex="{other}"]'
        ).bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function(
            f"""!document.querySelector('[data-testid=target][data-key^="beach:{first},"]')"""
        )
        there = page.locator(f'[data-testid=target][data-key^="beach:{other},"]').count()
        assert there > 0 or page.get_by_test_id("confirm").count() == 1
        assert page.get_by_test_id("reset").count() == 1
    assert errors == []


EMPTY_SUPPLY = """
async () => {
  const { GamePage } = await import("/static/js/game.js");
  const { Picker } = await import("/static/js/choices.js");
  const page = Object.create(GamePage.prototype);
  page.sequence = 3;
  const decision = {
    kind: "DECISION_KIND_TURN", player: "COLOUR_RED",
    options: [
      { expand: { island: {}, beaches: [1], take: { index: 0 } } },
      { expand: { island: {}, beaches: [2], take: { index: 0 } } },
      { settle: {} },
    ],
  };
  page.picker = new Picker(decision);
  const card = page.renderDecision({ tiles: [], beaches: [], decision });
  return card.querySelector("[data-testid=instruction]").textContent;
}
"""


def test_an_empty_supply_says_which_ships_to_take_back_first(
    browser: Browser, gateway: Running
) -> None:
    """With an empty supply the pink beaches are the player's ships to take back (R5.3):
    the instruction says so before anything is picked."""
    text = on_lobby(browser, gateway.url, EMPTY_SUPPLY)
    assert text == i18n.translate("en", "hint.take")


SLOT_PREVIEW = """
async () => {
  const { GamePage } = await import("/static/js/game.js");
  const { Picker } = await import("/static/js/choices.js");
  const { neighbour } = await import("/static/js/geometry.js");
  const page = Object.create(GamePage.prototype);
  const decision = {
    kind: "DECISION_KIND_PLACE", player: "COLOUR_RED",
    options: [{ place: { origin: {}, dir: 2 } }, { place: { origin: {}, dir: 4 } }],
  };
  page.picker = new Picker(decision);
  const view = { tiles: [{ at: {}, tile: "tonga" }], beaches: [], decision };
  const before = page.preview(view).slot;
  page.picker.pick("end:0,0,4");
  return { before, after: page.preview(view).slot, want: neighbour(0, 0, 4) };
}
"""


def test_a_picked_open_end_shows_where_the_tile_goes(browser: Browser, gateway: Running) -> None:
    out = on_lobby(browser, gateway.url, SLOT_PREVIEW)
    assert out["before"] is None and out["after"] == out["want"], out


ROYAL_PREVIEW = """
async () => {
  const { GamePage } = await import("/static/js/game.js");
  const { Picker } = await import("/static/js/choices.js");
  const { Board } = await import("/static/js/board.js");
  const page = Object.create(GamePage.prototype);
  Object.defineProperty(page, "seat", { value: { colour: "COLOUR_RED" } });
  page.sequence = 3;
  const decision = {
    kind: "DECISION_KIND_TURN", player: "COLOUR_RED",
    options: [{ expand: { island: {}, beaches: [1] } }, { royal: { island: {} } }, { settle: {} }],
  };
  const view = {
    tiles: [{ at: {}, tile: "tonga" }], beaches: [{ beach: { index: 0 }, colours: ["COLOUR_RED"] }],
    royal: [], decision,
  };
  page.picker = new Picker(decision);
  const card = page.renderDecision(view);
  const instruction = card.querySelector("[data-testid=instruction]").textContent;
  const holder = document.createElement("div");
  document.body.append(holder);
  const board = new Board(holder, () => {});
  board.render(view, page.picker, page.preview(view));
  const before = holder.querySelectorAll("[data-testid=royal-ghost]").length;
  // The island's ship counts step back from its crown.
  const counts = holder.querySelector("[data-testid=counts]")?.classList.contains("behind");
  page.picker.pick("royal:0,0");
  board.render(view, page.picker, page.preview(view));
  const ghost = holder.querySelector("[data-testid=royal-ghost]");
  return { instruction, before, after: Boolean(ghost), colour: ghost?.dataset.colour, counts };
}
"""


def test_a_royal_island_is_told_where_to_pick_and_previewed(
    browser: Browser, gateway: Running
) -> None:
    """A turn that may found a royal island says where its crown is; the crown picked,
    the board shows the mask it would place before Confirm."""
    out = on_lobby(browser, gateway.url, ROYAL_PREVIEW)
    assert i18n.translate("en", "hint.royal_where") in out["instruction"], out
    assert out["before"] == 0 and out["after"] and out["colour"] == "red", out
    assert out["counts"] is True, out


MAY_END = """
async ([island, sea]) => {
  const { GamePage } = await import("/static/js/game.js");
  const { neighbour } = await import("/static/js/geometry.js");
  const page = Object.create(GamePage.prototype);
  Object.defineProperty(page, "seat", { value: { colour: "COLOUR_YELLOW" } });
  const [q, r] = neighbour(0, 0, 3);
  const view = {
    tiles: [{ tile: "tonga", at: {}, rot: 0 }, { tile: "fiji", at: { q, r }, rot: 0 }],
    beaches: [{ beach: { index: 3 }, colours: ["COLOUR_YELLOW"] }],
    royal: [], scores: [], stack: { island, sea },
  };
  const decision = { kind: "DECISION_KIND_TURN", player: "COLOUR_YELLOW", options: [] };
  const said = (action) => {
    const card = page.renderConsequences(action, view, decision);
    const lines = card?.querySelectorAll("[data-testid=consequence]") ?? [];
    return [...lines].map((p) => p.textContent);
  };
  return {
    settle: said({ settle: {} }),
    place: said({ place: { origin: {}, dir: 1 } }),
    royal: said({ royal: { island: { q, r } } }),
  };
}
"""


@pytest.mark.parametrize(("island", "sea", "warned"), [(2, 9, True), (9, 1, True), (3, 3, False)])
def test_a_choice_that_draws_when_few_tiles_are_left_says_it_may_end_the_game(
    browser: Browser, gateway: Running, island: int, sea: int, warned: bool
) -> None:
    """With two tiles or fewer left in either pile, a New settlement and an open end
    (both draw) say that the game may end at once; a royal island (no draw) never does."""
    out = on_lobby(browser, gateway.url, MAY_END, [island, sea])
    warning = i18n.translate("en", "consequence.may_end")
    assert (warning in out["settle"]) is warned and (warning in out["place"]) is warned, out
    assert warning not in out["royal"], out


def _one_pick(s: Any) -> bool:
    """A set-up decision (one pick, a beach, completes each option)."""
    decision = s["view"].get("decision")
    return bool(decision) and decision.get("kind") == "DECISION_KIND_SETUP"


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_pick_pointed_at_again_confirms_it(
    browser: Browser, gateway: Running, api: Api, viewport: str
) -> None:
    """A pick that completes a choice, clicked (or tapped) again at the same place,
    confirms it: the same gesture twice, wherever the target was drawn."""
    errors: list[str] = []
    phone = viewport == "phone"
    context = browser.new_context(viewport=size(viewport), has_touch=phone, is_mobile=phone)
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "red"])
        snapshot = play_until(api, game, tokens, _one_pick, seed=3)
        open_as(page, gateway.url, game, snapshot, tokens)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function(MINE)
        target = page.locator("[data-testid=board] [data-testid=target] .target-hit").first
        box = target.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        tap = page.touchscreen.tap if phone else page.mouse.click
        tap(x, y)
        page.get_by_test_id("confirm").wait_for()
        assert page.get_by_test_id("confirm-spot").count() == 1
        sequence = state(page)["sequence"]
        tap(x, y)
        page.wait_for_function(f"document.body.dataset.sequence !== '{sequence}'")
    finally:
        context.close()
    assert errors == []


TAKING = """
async () => {
  const { GamePage } = await import("/static/js/game.js");
  const { Picker } = await import("/static/js/choices.js");
  const { Board } = await import("/static/js/board.js");
  const page = Object.create(GamePage.prototype);
  Object.defineProperty(page, "seat", { value: { colour: "COLOUR_YELLOW" } });
  const take = { q: 0, r: 0, index: 2 };
  const decision = {
    kind: "DECISION_KIND_TURN", player: "COLOUR_YELLOW",
    options: [
      { expand: { island: {}, beaches: [4], take } },
      { expand: { island: {}, beaches: [5] } },
    ],
  };
  page.picker = new Picker(decision);
  const view = {
    tiles: [{ at: {}, tile: "tonga" }], decision,
    beaches: [{ beach: take, colours: ["COLOUR_RED", "COLOUR_YELLOW", "COLOUR_YELLOW"] }],
  };
  const before = page.preview(view).taking ?? null;
  page.picker.pick("take:0,0,2");
  const options = page.preview(view);
  const holder = document.createElement("div");
  document.body.append(holder);
  const board = new Board(holder, () => {});
  board.render(view, null, options);
  const ships = [...holder.querySelectorAll("[data-testid=ship]")].map((s) => ({
    colour: s.getAttribute("class").match(/ship-(\\w+)/)[1], taking: s.dataset.taking === "1",
  }));
  holder.remove();
  return { before, taking: options.taking, ships };
}
"""


def test_a_ship_taken_back_is_shown_leaving_its_beach(browser: Browser, gateway: Running) -> None:
    """Picking the ship to take back (R5.3) shows it leaving: of two yellow ships on the
    beach, the last one fades; nothing before the pick."""
    out = on_lobby(browser, gateway.url, TAKING)
    assert out["before"] is None
    assert out["taking"] == {"beach": "0,0,2", "colour": "yellow"}, out
    assert out["ships"] == [
        {"colour": "red", "taking": False},
        {"colour": "yellow", "taking": False},
        {"colour": "yellow", "taking": True},
    ], out


def test_a_new_decision_brings_its_prompt_into_the_side_panel(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """The side panel scrolled down to the log: at the player's next decision the
    decision's prompt is in sight again, in the panel's upper half."""
    errors: list[str] = []
    game, tokens = api.seated_game(["yellow", "red"])
    snapshot = play_until(api, game, tokens, _expanding, seed=8)
    seat = seat_to_move(snapshot, tokens)
    colour = seat[0]
    low: ViewportSize = {"width": 1366, "height": 600}
    with game_page(browser, gateway.url, game, seat, viewport=low, errors=errors) as page:
        page.wait_for_function(MINE)
        side = page.locator("aside.side")
        side.evaluate("s => { s.scrollTop = s.scrollHeight; }")
        assert side.evaluate("s => s.scrollTop") > 0
        # Decisions over the API (this player's, then the other's) until this
        # player's next one.
        start = int(snapshot["sequence"])
        for step in range(40):
            api.play(game, tokens, steps=1, seed=50 + step)
            now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            decision = now["view"].get("decision") or {}
            moved = decision.get("player") != colour
            if int(now["sequence"]) > start + 1 and not moved and step > 0:
                break
        page.wait_for_function(f"+document.body.dataset.sequence === {now['sequence']}")
        page.wait_for_function(MINE)
        prompt = page.locator("aside.side [data-testid=decision] h2")
        box, panel = prompt.bounding_box(), side.bounding_box()
        assert box is not None and panel is not None
        assert panel["y"] <= box["y"] <= panel["y"] + panel["height"] / 2, (box, panel)
    assert errors == []


def _supply_limited_island(s: Any) -> Any:
    """The island of a turn where an expansion places as many ships as the supply
    holds, fewer than the ships already on it (R5.2), in more than one way; or None."""
    decision = s["view"].get("decision")
    if not decision or decision.get("kind") != "DECISION_KIND_TURN":
        return None
    colour = name(decision["player"])
    supply = next(
        (
            int(x.get("count", 0))
            for x in s["view"].get("supply", [])
            if name(x["colour"]) == colour
        ),
        0,
    )
    for option in decision["options"]:
        expand = option.get("expand")
        if not expand or "take" in expand or len(expand.get("beaches", [])) != supply:
            continue
        at = (expand["island"].get("q", 0), expand["island"].get("r", 0))
        here = sum(
            [name(c) for c in b.get("colours", [])].count(colour)
            for b in s["view"].get("beaches", [])
            if (b["beach"].get("q", 0), b["beach"].get("r", 0)) == at
        )
        ways = sum(
            1 for o in decision["options"] if o.get("expand", {}).get("island") == expand["island"]
        )
        if 1 <= supply < here and ways > 1:
            return expand["island"]
    return None


def _supply_limits_expansion(s: Any) -> bool:
    return _supply_limited_island(s) is not None


def test_an_expansion_the_supply_limits_says_so(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """Fewer beaches to pick than ships on the island: the instruction says how many
    ships are left in the supply (R5.2), so that the count does not look wrong."""
    errors: list[str] = []
    context = browser.new_context(viewport=size("desktop"))
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.set_default_timeout(BUSY)
    watch_errors(page, errors)
    try:
        # Games are dealt at random: one that ends before such a turn is left for another.
        for attempt in range(10):
            game, tokens = api.seated_game(["yellow", "red"])
            try:
                snapshot = play_until(api, game, tokens, _supply_limits_expansion, seed=4 + attempt)
                break
            except AssertionError:
                continue
        else:
            raise AssertionError("no game reached such a turn")
        colour = open_as(page, gateway.url, game, snapshot, tokens)
        supply = next(
            int(x.get("count", 0))
            for x in snapshot["view"]["supply"]
            if name(x["colour"]) == name(colour)
        )
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function(MINE)
        island = _supply_limited_island(snapshot)
        key = f"island:{island.get('q', 0)},{island.get('r', 0)}"
        page.locator(f"[data-testid=target][data-key='{key}']").click()
        said = page.get_by_test_id("instruction").inner_text()
        left = i18n.translate("en", "pick.supply_limit", count=supply)
        assert said.endswith(left), said
    finally:
        context.close()
    assert errors == []


def test_a_beach_clicked_before_its_island_picks_both(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """Nothing picked yet: a click by a beach of an island to expand on picks that
    island and that beach at once (as set-up and landing pick a beach in one click)."""
    errors: list[str] = []
    game, tokens, snapshot, hexes = _two_islands_turn(api)
    first = next(h for h in hexes if hexes.count(h) >= 2)
    with game_page(
        browser, gateway.url, game, seat_to_move(snapshot, tokens), errors=errors
    ) as page:
        page.wait_for_function(MINE)
        # Where a beach of that island lies on screen (its target, once the island is picked).
        page.locator(f'[data-testid=target][data-key="island:{first}"]').click()
        beach = page.locator(f'[data-testid=target][data-key^="beach:{first},"]').first
        key = beach.get_attribute("data-key")
        box = beach.locator(".target-hit").bounding_box()
        assert key is not None and box is not None
        page.get_by_test_id("reset").click()
        page.wait_for_function("!document.querySelector('[data-testid=reset]')")
        assert page.locator(f'[data-testid=target][data-key="{key}"]').count() == 0
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.get_by_test_id("reset").wait_for()
        # The island and that beach are picked: the beach shows the ship to place.
        assert page.locator(f'[data-testid=target][data-key="{key}"]').count() == 0
        assert page.locator("[data-testid=board] [data-testid=ghost]").count() >= 1
    assert errors == []


#: A landing's log line, from a landed event of two yellow ships and a red one.
LANDED = """
async () => {
  const { entryLines } = await import("/static/js/text.js");
  const view = { tiles: [{ at: { q: 1 }, tile: "nauru" }] };
  const ships = [
    { beach: 0, colour: "COLOUR_YELLOW" }, { beach: 1, colour: "COLOUR_RED" },
    { beach: 2, colour: "COLOUR_YELLOW" },
  ];
  const landed = { landed: { island: { q: 1 }, ships } };
  return entryLines({ action_applied: { events: [landed] } }, view);
}
"""


def test_a_landing_in_the_log_says_whose_ships_land(browser: Browser, gateway: Running) -> None:
    """ "3 ships land on X" says by colour whose they are (the order they landed in)."""
    lines = on_lobby(browser, gateway.url, LANDED)
    assert len(lines) == 1 and lines[0].endswith(": 2 yellow, 1 red."), lines
