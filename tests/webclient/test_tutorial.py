"""The tutorial in Chromium: started from the lobby or the "Learn to play" page, a
first game against the tutorial's bot with the coach's tips, played to its end in
every locale; and help mode, which names the pieces of the board."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from tests.webclient.axe import violations
from tests.webclient.conftest import ARTIFACTS, Api, Running
from tests.webclient.test_browser import DESKTOP, INSTANT, PHONE, state, watch_errors

SHOTS = ARTIFACTS / "tutorial"
STATIC = Path(__file__).resolve().parents[2] / "webclient" / "static"
POINTS = {
    x["id"]: x["points"]
    for x in json.loads((STATIC / "tiles.json").read_text(encoding="utf-8"))["islands"]
}
#: The tips every first game shows, whatever the learner picks.
ALWAYS = {"welcome", "setup", "marks", "turn", "stack", "end"}
#: Tips of the kinds of decision a learner who follows the coach meets.
KINDS = {"emigrate", "land", "settle", "place", "settle_ship"}


#: A point where the first piece matching a selector is on top (not under another), or null.
UNCOVERED = """selector => {
  for (const node of document.querySelectorAll(selector)) {
    const box = node.getBoundingClientRect();
    for (const [fx, fy] of [[0.5, 0.5], [0.05, 0.5], [0.95, 0.5], [0.3, 0.2], [0.7, 0.8]]) {
      const x = box.left + box.width * fx;
      const y = box.top + box.height * fy;
      const top = document.elementFromPoint(x, y);
      if (top && (top === node || node.contains(top))) return { x, y };
    }
  }
  return null;
}"""


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def seat_of(page: Page, game: str) -> dict[str, str]:
    seat: dict[str, str] = json.loads(
        page.evaluate(f"localStorage.getItem('tongiaki.seat.{game}')") or "{}"
    )
    return seat


def settle_cost(view: dict[str, Any], seat: dict[str, str]) -> int:
    """The points a New settlement would cost the seat now: those not on its royal islands."""
    colour = seat["colour"]
    now = next((s.get("count", 0) for s in view.get("scores", []) if s["colour"] == colour), 0)
    at = {(t["at"].get("q", 0), t["at"].get("r", 0)): t["tile"] for t in view.get("tiles", [])}
    kept: int = sum(
        int(POINTS[at[(x["island"].get("q", 0), x["island"].get("r", 0))]])
        for x in view.get("royal", [])
        if x["colour"] == colour
    )
    return max(0, int(now) - kept)


def game_id(page: Page) -> str:
    page.wait_for_url("**/games/*")
    return page.url.rstrip("/").split("/")[-1]


class Learner:
    """Plays the tutorial in the page as a learner who reads every tip and does what
    the coach suggests: a royal island when it first can, the New settlement when the
    coach proposes it, expansions otherwise; other decisions at random."""

    def __init__(self, page: Page, api: Api, game: str, seed: int = 1) -> None:
        self.page = page
        self.api = api
        self.game = game
        self.rng = random.Random(seed)
        self.tips: list[str] = []
        self.texts: dict[str, str] = {}
        self.decisions = 0
        self.royal = False
        self.suggested_settle = False
        self.settle_cost = 0

    def coach_tip(self) -> str | None:
        coach = self.page.locator("[data-testid=coach]")
        if coach.count() == 0 or coach.get_attribute("hidden") is not None:
            return None
        return coach.get_attribute("data-tip") or None

    def read_tip(self, shots: dict[str, str]) -> str:
        """Read the tip on screen (a screenshot if asked), then dismiss it."""
        # The tip and its text read at once (a decision just made may bring the next tip).
        read: tuple[str | None, str] = self.page.evaluate(
            """() => {
              const coach = document.querySelector("[data-testid=coach]:not([hidden])");
              const text = coach?.querySelector("[data-testid=coach-text]")?.innerText;
              return [coach?.dataset.tip || null, text];
            }"""
        )
        tip, text = read
        assert tip is not None
        self.tips.append(tip)
        self.texts[tip] = text
        if tip == "settle":
            self.suggested_settle = True
            self.settle_cost = settle_cost(self.snapshot()["view"], seat_of(self.page, self.game))
        if tip in shots:
            shot(self.page, shots[tip])
        # The card covers no target of the decision it explains.
        covered = self.page.evaluate(COVERED_TARGETS)
        assert covered == [], (tip, covered)
        if tip != "end":
            self.page.get_by_test_id("coach-next").click()
            self.page.wait_for_function(
                "tip => document.querySelector('[data-testid=coach]')?.dataset.tip !== tip", arg=tip
            )
        return tip

    def snapshot(self) -> dict[str, Any]:
        token = seat_of(self.page, self.game)["token"]
        snapshot: dict[str, Any] = self.api.ok("GET", f"/api/v1/games/{self.game}", token=token)[
            "snapshot"
        ]
        return snapshot

    def options(self) -> list[dict[str, Any]]:
        decision = self.snapshot()["view"].get("decision") or {}
        return list(decision.get("options", []))

    def click_target(self, key: str) -> None:
        self.page.locator(f"[data-testid=target][data-key^='{key}']").first.click()

    def decide(self, shots: dict[str, str]) -> None:
        """One decision, made through the page (option list or board, then Confirm)."""
        before = state(self.page)["sequence"]
        options = self.options()
        acts = [next(iter(o)) for o in options]
        if "royal" in acts and not self.royal:
            self.royal = True
            self.click_target("royal:")
        elif self.suggested_settle and "settle" in acts:
            self.suggested_settle = False
            self.click_target("settle")
        else:
            shown = options[:40]  # the option list shows the first 40
            expand = [i for i, o in enumerate(shown) if "expand" in o]
            index = self.rng.choice(expand) if expand else self.rng.randrange(len(shown))
            self.page.locator("[data-testid=decision] details.options").first.evaluate(
                "d => { d.open = true; }"
            )
            self.page.locator(f"[data-testid=option][data-index='{index}']").first.click()
        # A pick may bring a tip of its own (the route preview): read before confirming.
        self.page.get_by_test_id("confirm").first.wait_for()
        if self.coach_tip():
            self.read_tip(shots)
        self.page.get_by_test_id("confirm").first.click()
        self.page.wait_for_function(
            "s => document.body.dataset.sequence !== s && document.body.dataset.busy !== '1'",
            arg=before,
        )
        self.decisions += 1

    def play(self, shots: dict[str, str], *, until: set[str] | None = None) -> None:
        """Read tips and decide until the end tip (or until every tip of ``until`` was read)."""
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            self.page.wait_for_function(
                """() => {
                  const coach = document.querySelector('[data-testid=coach]');
                  const b = document.body.dataset;
                  return (coach && !coach.hidden) || (b.myturn === '1' && b.busy !== '1');
                }""",
                timeout=60_000,
            )
            if self.coach_tip():
                if self.read_tip(shots) == "end":
                    return
            elif until is not None and until <= set(self.tips):
                return
            else:
                self.decide(shots)
        raise AssertionError(f"the tutorial did not end; tips so far {self.tips}")

    def finish_by_api(self) -> None:
        """Play the learner's remaining decisions over the API, then open the finished
        game (at once, rather than played back entry by entry)."""
        seat = seat_of(self.page, self.game)
        token, colour = seat["token"], seat["colour"]
        url = self.page.url
        # Nobody draws the rest of the game meanwhile (the page reads the rules
        # instead): the machine plays it faster.
        self.page.goto(url.split("/games/")[0] + "/how-to-play")
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            snapshot = self.api.ok("GET", f"/api/v1/games/{self.game}", token=token)["snapshot"]
            decision = snapshot["view"].get("decision")
            if decision is None:
                self.page.goto(url)
                return
            if decision["player"] != colour:
                time.sleep(0.05)
                continue
            self.api.request(
                "POST",
                f"/api/v1/games/{self.game}/actions",
                {
                    "sequence": snapshot["sequence"],
                    "request_id": f"t{snapshot['sequence']}",
                    "action": self.rng.choice(decision["options"]),
                },
                token,
            )
        raise AssertionError("the game did not end")


#: The targets whose hit area the coach's card lies over (their keys).
COVERED_TARGETS = """
() => {
  const card = document.querySelector("[data-testid=coach]:not([hidden])");
  if (!card) return [];
  const r = card.getBoundingClientRect();
  return [...document.querySelectorAll("[data-testid=target]")].filter((t) => {
    const b = t.querySelector(".target-hit")?.getBoundingClientRect();
    return b && b.left < r.right && b.right > r.left && b.top < r.bottom && b.bottom > r.top;
  }).map((t) => t.dataset.key);
}
"""


def open_page(browser: Browser, gateway: Running, locale: str, viewport: ViewportSize) -> Page:
    context = browser.new_context(viewport=viewport, locale=locale)
    context.add_init_script(INSTANT)
    page = context.new_page()
    page.goto(f"{gateway.url}/?lang={locale}")
    return page


def catalog(locale: str) -> dict[str, Any]:
    messages: dict[str, Any] = json.loads(
        (STATIC / "i18n" / f"{locale}.json").read_text(encoding="utf-8")
    )["messages"]
    return messages


def test_the_tutorial_from_the_lobby_is_a_whole_game_with_every_tip_in_english(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    page = open_page(browser, gateway, "en", DESKTOP)
    watch_errors(page, errors)
    page.get_by_test_id("learn-card").get_by_test_id("learn").click()
    game = game_id(page)
    learner = Learner(page, api, game)
    shots = {
        "welcome": "en-welcome",
        "setup": "en-setup",
        "turn": "en-turn",
        "emigrate": "en-emigrate",
        "route": "en-route",
        "danger": "en-danger",
        "land": "en-land",
        "royal": "en-royal",
        "settle": "en-settle",
        "place": "en-place",
        "end": "en-end",
    }
    # Through the page until every kind of decision was explained; the rest over the API.
    learner.play(shots, until=(ALWAYS - {"end"}) | KINDS | {"route"})
    learner.finish_by_api()
    learner.play(shots)
    page.get_by_test_id("coach-next").click()
    tips = learner.tips
    assert tips[0] == "welcome" and tips[-1] == "end"
    assert set(tips) >= ALWAYS | KINDS, tips
    assert len(tips) == len(set(tips)), "a tip came twice"
    english = catalog("en")
    assert all(learner.texts[tip] == english[f"coach.{tip}"] for tip in tips if tip != "settle")
    # The New settlement is suggested while it costs nothing, else only explained,
    # its cost said and the choice left open.
    cost = learner.settle_cost
    settle = (
        english["coach.settle_costly"][cost != 1].format(count=cost)
        if cost
        else english["coach.settle"]
    )
    assert learner.texts["settle"] == settle, (cost, learner.texts["settle"])
    # The game is a tutorial: over, and nowhere in the lists.
    assert state(page)["state"] == "finished"
    listed = api.ok("GET", "/api/v1/games?page_size=1000")["games"]
    assert game not in {g["name"].split("/")[1] for g in listed}
    # The tips are remembered: after a reload none comes back.
    page.reload()
    page.wait_for_function("document.body.dataset.state === 'finished'")
    page.wait_for_timeout(500)
    assert page.locator("[data-testid=coach]:not([hidden])").count() == 0
    assert errors == []


@pytest.mark.parametrize(
    "case",
    [
        ("hu", DESKTOP, "learn"),
        ("nl", PHONE, "learn"),
        ("fi", DESKTOP, "lobby"),
        ("he", DESKTOP, "howto"),
        ("ja", DESKTOP, "learn"),
        ("he", PHONE, "lobby"),
        ("ja", PHONE, "lobby"),
    ],
)
def test_the_tutorial_runs_to_its_end_in_every_locale(
    browser: Browser, gateway: Running, api: Api, case: tuple[str, ViewportSize, str]
) -> None:
    """The first tips through the page, the rest of the game over the API, then the last tip."""
    locale, viewport, entry = case
    errors: list[str] = []
    page = open_page(browser, gateway, locale, viewport)
    watch_errors(page, errors)
    texts = catalog(locale)
    if entry == "howto":
        page.goto(f"{gateway.url}/how-to-play?lang={locale}")
        page.get_by_test_id("learn-link").click()
    elif entry == "learn":
        page.goto(f"{gateway.url}/learn?lang={locale}")
    size = "phone" if viewport == PHONE else "desktop"
    if entry == "lobby":
        page.get_by_test_id("learn-card").wait_for()
        shot(page, f"{locale}-{size}-lobby")
        page.get_by_test_id("learn-card").get_by_test_id("learn").click()
    else:
        assert page.locator("h1").inner_text() == texts["tutorial.title"]
        page.get_by_test_id("learn").wait_for()
        shot(page, f"{locale}-{size}-learn")
        page.get_by_test_id("learn").click()
    game = game_id(page)
    learner = Learner(page, api, game, seed=7)
    learner.play(
        {
            "welcome": f"{locale}-{size}-welcome",
            "setup": f"{locale}-{size}-setup",
            "turn": f"{locale}-{size}-turn",
        },
        until={"welcome", "setup", "turn"},
    )
    learner.finish_by_api()
    learner.play({"end": f"{locale}-{size}-end"})
    assert learner.tips[0] == "welcome" and learner.tips[-1] == "end"
    assert all(learner.texts[tip] == texts[f"coach.{tip}"] for tip in learner.tips)
    if locale == "he":
        assert page.get_by_test_id("coach-body").get_attribute("dir") == "rtl"
    if viewport == PHONE:
        # On a phone the card opens the docked panel: it covers none of the board.
        assert page.locator("[data-testid=dock] [data-testid=coach]").count() == 1
    else:
        # Elsewhere it is a card of the side panel: it covers none of the board.
        assert page.locator("aside.side [data-testid=coach]").count() == 1
        coach = page.get_by_test_id("coach").bounding_box()
        board = page.get_by_test_id("board").bounding_box()
        assert coach is not None and board is not None
        right, left = coach["x"] + coach["width"], board["x"] + board["width"]
        assert coach["x"] >= left or right <= board["x"]
    assert errors == []


def test_a_tip_the_player_decided_with_does_not_come_again(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """The set-up tip left open while the first ship is placed: it has been read, so
    the second set-up decision (after the bot's) does not show it again."""
    page = open_page(browser, gateway, "en", DESKTOP)
    errors: list[str] = []
    watch_errors(page, errors)
    try:
        page.get_by_test_id("learn").click()
        game = game_id(page)
        learner = Learner(page, api, game, seed=4)
        page.wait_for_function(
            "document.querySelector('[data-testid=coach]')?.dataset.tip === 'welcome'"
        )
        page.get_by_test_id("coach-next").click()
        page.wait_for_function(
            "document.querySelector('[data-testid=coach]')?.dataset.tip === 'setup'"
        )
        # Decided with the tip still open (its "Got it" never pressed).
        before = state(page)["sequence"]
        page.locator("[data-testid=board] [data-testid=target]").first.click()
        page.get_by_test_id("confirm").click()
        page.wait_for_function(f"document.body.dataset.sequence !== '{before}'")
        page.wait_for_function(
            "document.body.dataset.myturn === '1' && document.body.dataset.playing !== '1'"
        )
        page.wait_for_timeout(300)
        assert learner.coach_tip() != "setup", learner.coach_tip()
        seen = page.evaluate(f"JSON.parse(localStorage.getItem('tongiaki.coach.{game}'))")
        assert "setup" in seen, seen
    finally:
        page.context.close()
    assert errors == []


def test_help_mode_names_the_pieces_of_the_board_and_picks_nothing(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """At a New settlement's open ends: every piece on the board has a name."""
    page = open_page(browser, gateway, "en", DESKTOP)
    errors: list[str] = []
    watch_errors(page, errors)
    page.goto(f"{gateway.url}/learn?lang=en")
    page.get_by_test_id("learn").click()
    game = game_id(page)
    page.get_by_test_id("coach-stop").click()
    learner = Learner(page, api, game, seed=3)
    token = seat_of(page, game)["token"]
    # Over the API: set-up, turns until a sea tile with danger numbers lies on the
    # board, then a New settlement: the learner must pick an open end.
    while True:
        snapshot = api.ok("GET", f"/api/v1/games/{game}", token=token)["snapshot"]
        view = snapshot["view"]
        decision = view.get("decision")
        assert decision is not None, "the game ended before a New settlement"
        if decision["player"] != "COLOUR_YELLOW":
            time.sleep(0.05)
            continue
        options = decision["options"]
        seas = [t for t in view.get("tiles", []) if t["tile"].startswith("sea-")]
        if decision["kind"] == "DECISION_KIND_PLACE":
            break
        if decision["kind"] == "DECISION_KIND_TURN" and len(seas) >= 2:
            action = next(o for o in options if "settle" in o)
        else:
            action = learner.rng.choice(options)
        api.request(
            "POST",
            f"/api/v1/games/{game}/actions",
            {
                "sequence": snapshot["sequence"],
                "request_id": f"h{snapshot['sequence']}",
                "action": action,
            },
            token,
        )
    sequence = snapshot["sequence"]
    page.wait_for_function(
        "s => document.body.dataset.sequence === s && document.body.dataset.myturn === '1'",
        arg=sequence,
    )
    page.get_by_test_id("zoom-fit").click()
    label = page.get_by_test_id("help-label")
    assert label.is_hidden()
    page.get_by_test_id("help-toggle").click()
    assert page.get_by_test_id("help-toggle").get_attribute("aria-pressed") == "true"
    assert label.inner_text() == catalog("en")["help.intro"]
    english = catalog("en")
    named = {}
    pieces = {
        ".target-end": english["help.open_end"],
        ".danger-label": english["help.danger"].split("{")[0],
        ".foam": english["help.foam"],
        ".tile-sea .hex": english["help.sea"],
        ".tile-island .land": english["help.island"][1].split("{count}")[0].split(": ")[1],
        ".jetty": english["help.jetty"],
        ".beach": english["help.beach"],
        ".layer-ships .ship": english["help.ship"].split("{")[0],
    }
    for selector, wanted in pieces.items():
        point = page.evaluate(UNCOVERED, f"[data-testid=board] {selector}")
        assert point is not None, selector
        page.mouse.move(point["x"], point["y"])
        page.wait_for_function("() => !document.querySelector('[data-testid=help-label]').hidden")
        named[selector] = label.inner_text()
        assert wanted in named[selector], (selector, named[selector])
    # A tap on an open end names it and picks nothing.
    page.locator("[data-testid=target][data-key^='end:']").first.click()
    assert label.inner_text() == english["help.open_end"]
    assert page.get_by_test_id("confirm").count() == 0
    assert state(page)["sequence"] == sequence
    shot(page, "en-help-open-end")
    # From the keyboard too: Enter on a focused open end names it and picks nothing.
    page.get_by_test_id("zoom-fit").click()
    page.locator("[data-testid=target][data-key^='end:']").nth(1).focus()
    page.keyboard.press("Enter")
    assert label.inner_text() == english["help.open_end"]
    assert page.get_by_test_id("confirm").count() == 0
    # Help off: the same tap picks the open end.
    page.get_by_test_id("help-toggle").click()
    assert label.is_hidden()
    page.locator("[data-testid=target][data-key^='end:']").first.click()
    page.get_by_test_id("confirm").first.wait_for()
    assert errors == []


# A point inside `selector` where another piece lies on top of it (a ship under a
# halo), or, for `covered` false, where it is the topmost piece.
PIECE_AT = """([selector, over]) => {
  for (const node of document.querySelectorAll(selector)) {
    const box = node.getBoundingClientRect();
    for (const [fx, fy] of [[0.5, 0.5], [0.3, 0.5], [0.7, 0.5], [0.5, 0.3], [0.5, 0.7]]) {
      const [x, y] = [box.left + box.width * fx, box.top + box.height * fy];
      const under = document.elementsFromPoint(x, y);
      const mine = under.findIndex((n) => n === node || node.contains(n));
      const covered = under.slice(0, mine).some((n) => n.closest(over));
      if (mine >= 0 && (over ? covered : mine === 0)) return { x, y };
    }
  }
  return null;
}"""


def test_help_mode_names_what_lies_under_a_tap_and_ships_under_halos(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """A tap on an island's middle names the island (a tap's target is the board
    itself once panning captured the pointer); a ship on a beach one may pick is
    named as a ship, not only as the halo lying over it."""
    page = open_page(browser, gateway, "en", DESKTOP)
    errors: list[str] = []
    watch_errors(page, errors)
    page.goto(f"{gateway.url}/learn?lang=en")
    page.get_by_test_id("learn").click()
    learner = Learner(page, api, game_id(page), seed=2)
    page.get_by_test_id("coach-stop").click()
    ship_under_halo = ["[data-testid=board] .layer-ships .ship", ".target"]
    for _ in range(12):
        page.wait_for_function(
            "() => document.body.dataset.myturn === '1' && document.body.dataset.busy !== '1'"
        )
        page.get_by_test_id("zoom-fit").click()
        if page.evaluate(PIECE_AT, ship_under_halo):
            break
        learner.decide({})
    page.get_by_test_id("help-toggle").click()
    english = catalog("en")
    label = page.get_by_test_id("help-label")
    island = english["help.island"][1].split("{count}")[0].split(": ")[1]
    for selector, over, wanted in [
        (".tile-island .land", None, island),
        (".layer-ships .ship", ".target", english["help.ship"].split("{")[0]),
    ]:
        point = page.evaluate(PIECE_AT, [f"[data-testid=board] {selector}", over])
        assert point is not None, selector
        page.mouse.click(point["x"], point["y"])
        assert wanted in label.inner_text(), (selector, label.inner_text())
        page.mouse.move(point["x"] + 1, point["y"] + 1)
        page.wait_for_function(
            "w => document.querySelector('[data-testid=help-label]').innerText.includes(w)",
            arg=wanted,
        )
    assert errors == []


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_axe_finds_no_serious_violation_in_the_tutorial(
    browser: Browser, gateway: Running, viewport: str
) -> None:
    """The Learn to play page, the game with the coach's card, and help mode."""
    errors: list[str] = []
    page = open_page(browser, gateway, "en", DESKTOP if viewport == "desktop" else PHONE)
    watch_errors(page, errors)
    page.goto(f"{gateway.url}/learn")
    page.get_by_test_id("learn").wait_for()
    found = violations(page)
    page.get_by_test_id("learn").click()
    game_id(page)
    page.wait_for_function(
        "document.querySelector('[data-testid=coach]')?.dataset.tip === 'welcome'"
    )
    found += violations(page)
    page.get_by_test_id("coach-next").click()
    page.get_by_test_id("help-toggle").click()
    found += violations(page)
    assert not found, "\n".join(found)
    assert errors == []


def test_help_mode_names_what_a_spectator_taps(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """A spectator's tap on an island or a danger number names it too."""
    game, tokens = api.seated_game(["yellow", "red"])
    # Until a sea tile (with its danger numbers) lies on the board: the stack is the
    # server's secret, so how soon one comes differs from game to game.
    for step in range(400):
        view = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["view"]
        if step >= 24 and any(p["tile"].startswith("sea-") for p in view["tiles"]):
            break
        assert view.get("decision"), "the game ended before a sea tile came"
        api.play(game, tokens, steps=1, seed=7 * 1000 + step)
    page = open_page(browser, gateway, "en", DESKTOP)
    errors: list[str] = []
    watch_errors(page, errors)
    page.goto(f"{gateway.url}/games/{game}?lang=en")
    page.get_by_test_id("spectator").wait_for()
    page.locator("[data-testid=board] .danger-label").first.wait_for()
    page.get_by_test_id("zoom-fit").click()
    page.get_by_test_id("help-toggle").click()
    english = catalog("en")
    label = page.get_by_test_id("help-label")
    island = english["help.island"][1].split("{count}")[0].split(": ")[1]
    for selector, wanted in [
        (".tile-island .land", island),
        (".danger-label", english["help.danger"].split("{")[0]),
    ]:
        point = page.evaluate(PIECE_AT, [f"[data-testid=board] {selector}", None])
        assert point is not None, selector
        page.mouse.click(point["x"], point["y"])
        assert wanted in label.inner_text(), (selector, label.inner_text())
    # Escape leaves help mode.
    page.keyboard.press("Escape")
    assert label.is_hidden()
    assert page.get_by_test_id("help-toggle").get_attribute("aria-pressed") == "false"
    assert errors == []


#: Every tip of the lesson (tutorial.js LESSON): once all were read, the lesson is over.
LESSON = [
    "welcome", "setup", "marks", "turn", "emigrate", "stack", "scoring", "route", "danger", "land",
    "royal", "mask", "settle", "place", "settle_ship",
]  # fmt: skip


@pytest.mark.parametrize(("locale", "viewport"), [("en", DESKTOP), ("ja", PHONE)])
def test_once_every_lesson_tip_was_read_the_coach_says_the_lesson_is_over(
    browser: Browser, gateway: Running, locale: str, viewport: ViewportSize
) -> None:
    """The learner is told when they have met everything: they may play on, or go to
    the lobby for a real game; told once."""
    errors: list[str] = []
    page = open_page(browser, gateway, locale, viewport)
    watch_errors(page, errors)
    texts = catalog(locale)
    try:
        page.goto(f"{gateway.url}/learn?lang={locale}")
        page.get_by_test_id("learn").click()
        game = game_id(page)
        page.get_by_test_id("coach").wait_for()
        assert page.get_by_test_id("coach").get_attribute("data-tip") == "welcome"
        # Every tip but the last of the lesson read; then the last one.
        page.evaluate(
            "([key, tips]) => localStorage.setItem(key, JSON.stringify(tips))",
            [f"tongiaki.coach.{game}", LESSON[:-1]],
        )
        page.reload()
        page.wait_for_function("document.body.dataset.myturn === '1'")
        page.wait_for_timeout(300)
        assert page.get_by_test_id("coach").get_attribute("data-tip") != "graduate"
        page.evaluate(
            "([key, tips]) => localStorage.setItem(key, JSON.stringify(tips))",
            [f"tongiaki.coach.{game}", LESSON],
        )
        page.reload()
        page.wait_for_function(
            "document.querySelector('[data-testid=coach]')?.dataset.tip === 'graduate'"
        )
        assert page.get_by_test_id("coach-text").inner_text() == texts["coach.graduate"]
        assert page.get_by_test_id("coach-lobby").get_attribute("href") == "/#create"
        page.get_by_test_id("coach-next").click()
        assert page.get_by_test_id("coach").get_attribute("hidden") is not None
        page.reload()
        page.wait_for_function("document.body.dataset.myturn === '1'")
        page.wait_for_timeout(300)
        assert page.locator("[data-testid=coach]:not([hidden])").count() == 0
    finally:
        page.context.close()
    assert errors == []


#: The tips of the main decisions and signs (tutorial.js MAIN), and the learner's
#: decisions after which they end the lesson (EARLY).
MAIN = ["welcome", "setup", "turn", "emigrate", "stack", "scoring", "danger", "land"]
EARLY = 20


def test_a_learner_who_met_the_main_decisions_is_told_the_lesson_is_over_after_a_while(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """A royal island or a New settlement may never come up: once the main tips were read
    and the learner has made enough decisions, the coach still ends the lesson, saying
    that the rest is explained when it comes up."""
    errors: list[str] = []
    page = open_page(browser, gateway, "en", DESKTOP)
    watch_errors(page, errors)
    texts = catalog("en")
    try:
        page.goto(f"{gateway.url}/learn?lang=en")
        page.get_by_test_id("learn").click()
        game = game_id(page)
        page.get_by_test_id("coach").wait_for()
        seat = seat_of(page, game)
        url = page.url
        # The learner's decisions, over the API, the bot answering between them (the
        # page meanwhile on the rules, so that nothing it remembers is written over).
        page.goto(f"{gateway.url}/how-to-play?lang=en")
        rng = random.Random(5)
        made = 0
        deadline = time.monotonic() + 120
        while made < EARLY and time.monotonic() < deadline:
            snapshot = api.ok("GET", f"/api/v1/games/{game}", token=seat["token"])["snapshot"]
            decision = snapshot["view"].get("decision")
            assert decision is not None, "the game ended first"
            if decision["player"] != seat["colour"]:
                time.sleep(0.05)
                continue
            api.ok(
                "POST",
                f"/api/v1/games/{game}/actions",
                {
                    "sequence": snapshot["sequence"],
                    "request_id": f"e{snapshot['sequence']}",
                    "action": rng.choice(decision["options"]),
                },
                seat["token"],
            )
            made += 1
        assert made == EARLY
        page.evaluate(
            "([key, tips]) => localStorage.setItem(key, JSON.stringify(tips))",
            [f"tongiaki.coach.{game}", MAIN],
        )
        page.goto(url)
        # The board's own tips not read yet come first; then the lesson's end.
        shown = "document.querySelector('[data-testid=coach]:not([hidden])')?.dataset.tip"
        for _ in range(8):
            # A tip on screen (the log, which counts the decisions, may come after the board).
            page.wait_for_function(shown)
            tip = page.get_by_test_id("coach").get_attribute("data-tip")
            if tip == "graduate":
                break
            page.get_by_test_id("coach-next").click()
            page.wait_for_function(
                "tip => document.querySelector('[data-testid=coach]')?.dataset.tip !== tip",
                arg=tip,
            )
        assert page.get_by_test_id("coach").get_attribute("data-tip") == "graduate"
        assert page.get_by_test_id("coach-text").inner_text() == texts["coach.graduate_early"]
    finally:
        page.context.close()
    assert errors == []


def test_a_tutorial_left_for_a_real_game_can_be_removed_from_my_games(
    browser: Browser, gateway: Running
) -> None:
    """A lesson against a bot is not a seat anyone waits for: My games offers to remove
    it, and then lists it no more."""
    page = open_page(browser, gateway, "en", DESKTOP)
    try:
        page.goto(f"{gateway.url}/learn?lang=en")
        page.get_by_test_id("learn").click()
        game = game_id(page)
        page.get_by_test_id("coach").wait_for()
        page.goto(f"{gateway.url}/my?lang=en")
        row = page.locator(f"[data-testid=my-game][data-game='{game}']")
        row.get_by_test_id("my-remove").click()
        page.wait_for_function(f"!document.querySelector(\"[data-game='{game}']\")")
        assert page.evaluate(f"localStorage.getItem('tongiaki.seat.{game}')") is None
    finally:
        page.context.close()
