"""At a decision after others' moves, the player reads what those moves changed for
them: the points each seat won or lost, and their own ships island by island."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from playwright.sync_api import Browser, ViewportSize

from tests.webclient.conftest import Api, Running
from tests.webclient.pages import DESKTOP, PHONE, game_page, on_lobby
from tests.webclient.test_browser import shot
from webclient import i18n

MINE = "document.body.dataset.myturn === '1' && document.body.dataset.busy !== '1'"


class GameOver(Exception):
    """The game ended before the moment a test waited for."""


def _ships(view: dict[str, Any], colour: str) -> Counter[str]:
    out: Counter[str] = Counter()
    for entry in view.get("beaches", []):
        at = entry["beach"]
        n = sum(1 for c in entry.get("colours", []) if c == colour)
        if n:
            out[f"{at.get('q', 0)},{at.get('r', 0)}"] += n
    return out


def _scores(view: dict[str, Any]) -> dict[str, int]:
    return {s["colour"]: s.get("count", 0) for s in view.get("scores", [])}


def _play_until_news(api: Api, game: str, tokens: dict[str, str]) -> tuple[Any, Any]:
    """Random moves until yellow decides right after red changed yellow's ships and the
    points; the boards after yellow's last move and now. (The stack is the server's
    secret shuffle: a game that ends first raises GameOver.)"""
    rng = random.Random(5)
    mine: Any = None
    last = ""
    for _ in range(400):
        snapshot = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        decision = snapshot["view"].get("decision")
        if decision is None:
            raise GameOver
        who = decision["player"]
        if who == "COLOUR_YELLOW" and last == "COLOUR_RED" and mine is not None:
            before, now = mine["view"], snapshot["view"]
            yellow = "COLOUR_YELLOW"
            if _ships(before, yellow) != _ships(now, yellow) and _scores(before) != _scores(now):
                return before, now
        api.ok(
            "POST",
            f"/api/v1/games/{game}/actions",
            {
                "sequence": snapshot["sequence"],
                "request_id": f"r{snapshot['sequence']}",
                "action": rng.choice(decision["options"]),
            },
            tokens[who],
        )
        last = who
        if who == "COLOUR_YELLOW":
            mine = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
    raise AssertionError("no move of red changed yellow's ships and the points")


@pytest.mark.parametrize(
    ("locale", "viewport"), [("en", PHONE), ("he", DESKTOP), ("ja", PHONE)], ids=str
)
def test_after_others_moves_the_player_reads_what_changed_for_them(
    browser: Browser, gateway: Running, api: Api, locale: str, viewport: ViewportSize
) -> None:
    for _ in range(5):
        game, tokens = api.seated_game(["yellow", "red"])
        try:
            before, now = _play_until_news(api, game, tokens)
            break
        except GameOver:
            continue
    else:
        raise AssertionError("five games ended before red changed yellow's ships and the points")
    was, ships = _ships(before, "COLOUR_YELLOW"), _ships(now, "COLOUR_YELLOW")
    changed = {hex for hex in was.keys() | ships.keys() if was[hex] != ships[hex]}
    old, new = _scores(before), _scores(now)
    gained = {c: new.get(c, 0) - old.get(c, 0) for c in new.keys() | old.keys()}
    seat = ("COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
    with game_page(browser, gateway.url, game, seat, locale=locale, viewport=viewport) as page:
        page.wait_for_function(MINE)
        card = page.get_by_test_id("since")
        card.wait_for()
        items = card.get_by_test_id("since-ships").locator(".since-item")
        shown = {
            str(items.nth(i).get_attribute("data-hex")): items.nth(i).inner_text()
            for i in range(items.count())
        }
        assert set(shown) == changed, shown
        for hex, text in shown.items():
            assert locale != "en" or text.endswith(f": {ships[hex]} (was {was[hex]})"), text
            assert str(ships[hex]) in text and str(was[hex]) in text, text
        points = card.get_by_test_id("since-points").locator("bdi").all_inner_texts()
        signed = sorted(f"+{d}" if d > 0 else f"\u2212{-d}" for d in gained.values() if d)
        assert sorted(points) == signed, points
        # The others' moves, folded under the card, in the log's words.
        moves = card.get_by_test_id("since-moves")
        moves.locator("summary").click()
        assert moves.locator("li").count() >= 1
        card.scroll_into_view_if_needed()
        shot(page, f"since-{locale}-{viewport['width']}")
        # Pointing at an island's line shows it on the board.
        items.first.click()
        page.get_by_test_id("spot").first.wait_for()


def test_a_spectator_can_play_the_last_round_again(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """A spectator, who never decides, is offered the last round (every seat's last
    turn) again, played back on the board, and then back to now."""
    game, tokens = api.seated_game(["yellow", "red"])
    api.play(game, tokens, steps=16, seed=3)
    fast = "localStorage.setItem('tongiaki.prefs', JSON.stringify({speed: 8, confirm: true}))"
    with game_page(browser, gateway.url, game, prefs=fast) as page:
        again = page.get_by_test_id("last-round")
        again.wait_for()
        sequence = page.evaluate("document.body.dataset.sequence")
        again.click()
        page.wait_for_function(f"document.body.dataset.sequence !== '{sequence}'")
        body = "document.body.dataset"
        page.wait_for_function(f"{body}.playing === '0' && {body}.sequence === '{sequence}'")


def test_a_caption_names_who_did_what_while_their_move_plays_back(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """While another seat's entry plays back, a caption over the board names the
    player and the act; it is gone once the board has caught up."""
    game, tokens = api.seated_game(["yellow", "red"])
    api.play(game, {"COLOUR_YELLOW": tokens["COLOUR_YELLOW"]}, steps=1, seed=2)
    paced = "localStorage.setItem('tongiaki.prefs', JSON.stringify({speed: 1, confirm: true}))"
    seat = ("COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
    with game_page(browser, gateway.url, game, seat, prefs=paced) as page:
        page.wait_for_function("document.body.dataset.myturn === '0'")
        api.play(game, {"COLOUR_RED": tokens["COLOUR_RED"]}, steps=1, seed=2)
        caption = page.get_by_test_id("caption")
        page.wait_for_function(
            "document.querySelector('[data-testid=caption]').textContent.startsWith('Red: ')"
        )
        page.wait_for_function(MINE)
        assert caption.inner_text() == ""


def test_when_the_others_changed_nothing_for_the_player_the_card_says_so(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """Red's set-up ship changes neither the points nor yellow's ships: the card still
    comes, says so, and folds red's move in the log's words."""
    game, tokens = api.seated_game(["yellow", "red"])
    api.play(game, {"COLOUR_YELLOW": tokens["COLOUR_YELLOW"]}, steps=1, seed=4)
    api.play(game, {"COLOUR_RED": tokens["COLOUR_RED"]}, steps=1, seed=4)
    seat = ("COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
    with game_page(browser, gateway.url, game, seat) as page:
        page.wait_for_function(MINE)
        card = page.get_by_test_id("since")
        card.wait_for()
        assert card.get_by_test_id("since-none").inner_text() == (
            "No change to the points or to your ships."
        )
        moves = card.get_by_test_id("since-moves")
        moves.locator("summary").click()
        assert "Red" in moves.locator("li").first.inner_text()


OWN_OUTCOMES = """
async () => {
  const { GamePage } = await import("/static/js/game.js");
  const { Chronicle } = await import("/static/js/history.js");
  const { renderSince } = await import("/static/js/since.js");
  const page = Object.create(GamePage.prototype);
  Object.defineProperty(page, "seat", { value: { colour: "COLOUR_YELLOW" } });
  page.chronicle = new Chronicle();
  const back = [{ colour: "COLOUR_YELLOW", count: 2 }];
  const failed = { voyage_failed: { danger: 4, colours: 2, returned: back } };
  // Yellow's voyage from Tonga fails (its emigration is what yellow picked: not told);
  // then red places a ship.
  page.chronicle.add({ sequence: "5", action_applied: { player: "COLOUR_YELLOW",
    action: { emigrate: { beach: { index: 1 }, dir: 2 } },
    events: [
      { emigrated: { player: "COLOUR_YELLOW", beach: { index: 1 }, dir: 2, group: [] } },
      failed,
    ] } });
  page.chronicle.add({ sequence: "6", action_applied: { player: "COLOUR_RED",
    action: { single: { beach: { index: 2 } } },
    events: [
      { ships_placed: { player: "COLOUR_RED", why: "SHIP_PLACEMENT_SINGLE", beaches: [] } },
    ] } });
  const [own, red] = page.chronicle.items;
  const yours = page.ownOutcomes(red);
  const moves = [{ lines: red.lines, hexes: [] }];
  const card = renderSince({ points: [], islands: [] }, () => {}, moves, yours);
  return {
    yours, own: own.lines,
    told: card.querySelector("[data-testid=since-yours]")?.textContent ?? null,
    none: Boolean(card.querySelector("[data-testid=since-none]")),
    nothing: page.ownOutcomes(page.chronicle.items[0]),
  };
}
"""


def test_the_since_card_tells_what_the_players_own_move_brought_about(
    browser: Browser, gateway: Running
) -> None:
    """The player's own voyage failed, then others moved: at their next decision the
    card tells the failure in the log's words (not the emigration they picked), and
    does not claim that nothing changed for them."""
    out = on_lobby(browser, gateway.url, OWN_OUTCOMES)
    failed = [line for line in out["own"] if line.startswith("The voyage fails")]
    assert len(failed) == 1 and out["yours"] == failed, out
    assert out["told"] == f"{i18n.translate('en', 'since.yours')} {failed[0]}", out
    assert not out["none"] and out["nothing"] == [], out


PLACED = """
async () => {
  const { entryLines } = await import("/static/js/text.js");
  const view = { tiles: [{ at: {}, tile: "tonga" }] };
  const line = (why, indices) => entryLines({ action_applied: { player: "COLOUR_RED", events: [
    { ships_placed: { player: "COLOUR_RED", why, beaches: indices.map((index) => ({ index })) } },
  ] } }, view);
  return {
    expand: line("SHIP_PLACEMENT_EXPAND", [3, 0]),
    single: line("SHIP_PLACEMENT_SETUP", [2]),
  };
}
"""


def test_a_log_line_of_ships_placed_names_their_beaches(browser: Browser, gateway: Running) -> None:
    """ "Red expands on Tonga with 2 ships. Beaches 1, 4.": the log (and what the others
    did) says where, in the board's numbers."""
    out = on_lobby(browser, gateway.url, PLACED)
    assert out["expand"] == ["Red expands on Tonga with 2 ships. Beaches 1, 4."], out
    assert out["single"] == ["Red places a ship on Tonga. Beach 3."], out


OWN_WRECK_PLAYED = """
async () => {
  const { GamePage } = await import("/static/js/game.js");
  const { Chronicle } = await import("/static/js/history.js");
  const { prefs } = await import("/static/js/settings.js");
  prefs.set("speed", 4);
  const page = Object.create(GamePage.prototype);
  Object.defineProperty(page, "seat", { value: { colour: "COLOUR_YELLOW" } });
  Object.assign(page, {
    chronicle: new Chronicle(), logReady: true, caption: document.createElement("p"),
    shown: null, snapshot: null, sequence: 5, marks: { tiles: new Set(), ships: new Map() },
    board: { camera: { follow: async () => {}, rest() {} }, play: async () => {} },
    renderNow() {}, announce() {}, social: { heard() {} },
  });
  const back = [{ colour: "COLOUR_YELLOW", count: 2 }];
  page.queue = [{ sequence: 5, snapshot: null, entry: { sequence: "5", action_applied: {
    player: "COLOUR_YELLOW", action: { emigrate: { beach: { index: 1 }, dir: 2 } },
    events: [{ voyage_failed: { danger: 4, colours: 1, returned: back } }],
  } } }];
  const played = page.pump();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const during = page.caption.textContent;
  await played;
  return { during, after: page.caption.textContent, line: page.chronicle.items[0].lines[0] };
}
"""


def test_the_players_own_shipwreck_is_told_on_the_board_as_it_happens(
    browser: Browser, gateway: Running
) -> None:
    """While the player's own move plays, a voyage of theirs that fails is told in the
    board's caption (the log's sentence), then the caption goes."""
    out = on_lobby(browser, gateway.url, OWN_WRECK_PLAYED)
    assert out["line"].startswith("The voyage fails"), out
    assert out["during"] == out["line"] and out["after"] == "", out
