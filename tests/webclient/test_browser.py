"""The browser client in Debian's Chromium: whole games, spectators and reconnects."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from playwright.sync_api import Browser, Frame, Page, ViewportSize

from tests.webclient.conftest import (
    ARTIFACTS,
    Api,
    Running,
    serve_gateway,
)
from webclient.run import ServerProcess

DESKTOP: ViewportSize = {"width": 1280, "height": 800}
#: Whole games played fast: others' moves are shown at once (no playback pauses).
INSTANT = "localStorage.setItem('tongiaki.prefs', JSON.stringify({speed: 0, confirm: true}))"
PHONE: ViewportSize = {"width": 390, "height": 844}


def shot(page: Page, name: str) -> None:
    """Save a screenshot under test-artifacts/webclient."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def state(page: Page | Frame) -> dict[str, str]:
    """What the page says about itself on <body data-...>."""
    result: dict[str, str] = page.evaluate("({...document.body.dataset})")
    return result


def watch_errors(page: Page, errors: list[str]) -> None:
    """Collect script errors of ``page``."""
    page.on("pageerror", lambda error: errors.append(str(error)))


def decide(page: Page | Frame, rng: random.Random) -> bool:
    """Make one pick on the board or in the decision panel; False if nothing was clickable."""
    targets = page.locator("[data-testid=target]")
    count = targets.count()
    try:
        if count:
            targets.nth(rng.randrange(count)).click(timeout=2000)
        else:
            page.get_by_test_id("confirm").click(timeout=2000)
    except Exception:  # the page re-rendered under the click: look again
        return False
    return True


def play_until(
    pages: Sequence[Page | Frame],
    rng: random.Random,
    done: str,
    deadline: float,
    on_step: object = None,
) -> int:
    """Click legal targets in whichever page has the decision until ``done`` holds."""
    clicks = 0
    while time.monotonic() < deadline:
        states = [state(p) for p in pages]
        if pages[0].evaluate(done):
            return clicks
        ready = [
            p
            for p, s in zip(pages, states, strict=True)
            if s.get("myturn") == "1" and s.get("busy") != "1"
        ]
        if not ready:
            time.sleep(0.02)
            continue
        if decide(ready[0], rng):
            clicks += 1
            if callable(on_step):
                on_step(clicks)
    raise AssertionError(f"not done in time: {[state(p) for p in pages]}")


def ranking(page: Page) -> list[tuple[str, str, str, str, str]]:
    """The final ranking table: colour, rank, points, islands, ships."""
    page.get_by_test_id("ranking").wait_for(timeout=15000)
    rows = page.get_by_test_id("rank-row")
    out = []
    for i in range(rows.count()):
        row = rows.nth(i)
        cells = row.locator("td").all_inner_texts()
        out.append((row.get_attribute("data-colour") or "", cells[0], cells[2], cells[3], cells[4]))
    return out


VOYAGE_COUNTER = """
window.voyagesSeen = 0;
new MutationObserver((changes) => {
  for (const change of changes) {
    for (const node of change.addedNodes) {
      if (node.dataset && node.dataset.testid === "voyage") window.voyagesSeen += 1;
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def view_box(page: Page) -> list[float]:
    """The board's viewBox."""
    box = page.get_by_test_id("board").get_attribute("viewBox") or ""
    return [float(v) for v in box.split()]


#: Tiles drawn (partly) outside the board's frame on screen, by hex.
TILES_OUTSIDE = """() => {
  const frame = document.querySelector('[data-testid=board]').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=board] [data-testid=tile]')]
    .filter((n) => {
      const r = n.getBoundingClientRect();
      return r.left < frame.left - 1 || r.top < frame.top - 1
        || r.right > frame.right + 1 || r.bottom > frame.bottom + 1;
    })
    .map((n) => n.dataset.hex);
}"""


def check_pan_and_zoom(page: Page) -> None:
    """Zoom buttons scale the board, a drag pans it, fit (⤢) shows the whole board.

    (The view before may frame only a part: the camera follows entries where they happen.)
    """
    fitted = view_box(page)
    page.get_by_test_id("zoom-in").click()
    zoomed = view_box(page)
    assert zoomed[2] < fitted[2] and zoomed[3] < fitted[3]
    board = page.get_by_test_id("board").bounding_box()
    assert board is not None
    x, y = board["x"] + board["width"] / 2, board["y"] + board["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 40, steps=4)
    page.mouse.up()
    panned = view_box(page)
    assert panned[0] < zoomed[0] and panned[1] < zoomed[1]
    assert panned[2] == zoomed[2]
    page.get_by_test_id("zoom-fit").click()
    whole = view_box(page)
    assert page.locator("[data-testid=board] [data-testid=tile]").count() > 1
    assert page.evaluate(TILES_OUTSIDE) == []
    # The whole board, however the view was moved before.
    page.get_by_test_id("zoom-in").click()
    assert view_box(page) != whole
    page.get_by_test_id("zoom-fit").click()
    assert view_box(page) == whole


def test_three_players_and_a_spectator_play_a_whole_game(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(3)]
    contexts.append(browser.new_context(viewport=PHONE))
    for context in contexts[:3]:
        context.add_init_script(INSTANT)
    # The spectator watches every move played back, fast.
    contexts[3].add_init_script(INSTANT.replace("speed: 0", "speed: 4"))
    pages = [c.new_page() for c in contexts]
    for page in pages:
        watch_errors(page, errors)
    try:
        host, red, blue, spectator = pages
        host.goto(gateway.url + "/")
        host.get_by_test_id("player-name").fill("Hina")
        host.get_by_test_id("game-title").fill("Three canoes")
        host.get_by_test_id("create-game").click()
        host.wait_for_url("**/games/*")
        link = host.get_by_test_id("share-link").input_value()
        assert link == host.url
        shot(host, "lobby-created")

        # The lobby lists the new game with a link to it.
        red.goto(gateway.url + "/")
        red.locator(f"[data-testid=game-link][href='/games/{link.rsplit('/', 1)[1]}']").wait_for()

        spectator.add_init_script(VOYAGE_COUNTER)
        spectator.goto(link)
        # The creator sits in the first seat played by a person.
        host.get_by_test_id("you").wait_for()
        assert state(host)["colour"] == "yellow"
        assert host.get_by_test_id("seat-yellow").inner_text().endswith("Hina")
        for page, colour, name in ((red, "red", "Tane"), (blue, "blue", "Moana")):
            page.goto(link)
            page.get_by_test_id("join-name").fill(name)
            page.get_by_test_id(f"join-{colour}").click()
            page.get_by_test_id("you").wait_for()
        host.get_by_test_id("start").click()
        for page in pages:
            page.wait_for_function("document.body.dataset.state === 'active'")
        spectator.get_by_test_id("spectator").wait_for()
        assert spectator.get_by_test_id("join-red").count() == 0

        # Seat tokens stay in the browser that joined: never in a URL.
        game = link.rsplit("/", 1)[1]
        for page in pages:
            assert "token" not in page.url
        tokens = [p.evaluate(f"localStorage.getItem('tongiaki.seat.{game}')") for p in pages]
        assert all(tokens[:3]) and tokens[3] is None

        shots = {40: "mid-game", 120: "late-game"}
        kinds: set[str] = set()

        def on_step(clicks: int) -> None:
            for page in pages[:3]:
                kinds.add(
                    page.evaluate(
                        "document.querySelector('[data-testid=decision]')?.dataset.kind ?? ''"
                    )
                )
            if clicks in shots:
                for i, page in enumerate(pages):
                    shot(page, f"{shots[clicks]}-{i}")

        clicks = play_until(
            pages,
            random.Random(7),
            "document.body.dataset.state === 'finished'",
            time.monotonic() + 180,
            on_step,
        )
        assert clicks > 30
        assert spectator.get_by_test_id("target").count() == 0
        assert {
            "DECISION_KIND_SETUP",
            "DECISION_KIND_TURN",
            "DECISION_KIND_EMIGRATE",
            "DECISION_KIND_LAND",
        } <= kinds, kinds
        assert spectator.evaluate("window.voyagesSeen") > 0, "voyages are animated"
        # Every target offered led to an action the server accepted.
        assert [state(p).get("errors") for p in pages] == [None] * 4

        final = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        expected = sorted(
            (
                r["colour"].removeprefix("COLOUR_").lower(),
                str(r["rank"]),
                str(r["points"]),
                str(r["islands"]),
                str(r["ships"]),
            )
            for r in final["view"]["result"]
        )
        spectator.evaluate("document.querySelector('[data-testid=skip]:not([hidden])')?.click()")
        for i, page in enumerate(pages):
            page.wait_for_function(f"document.body.dataset.sequence === '{final['sequence']}'")
            assert sorted(ranking(page)) == expected, f"page {i}"
            shot(page, f"final-{i}")
        assert spectator.get_by_test_id("log").locator("li").count() > 20
        assert {r[1] for r in expected} >= {"1"}
        check_pan_and_zoom(spectator)
    finally:
        for context in contexts:
            context.close()
    assert errors == []


def expected_ranking(api: Api, game: str) -> tuple[str, list[tuple[str, str, str, str, str]]]:
    """The server's final sequence and ranking rows (colour, rank, points, islands, ships)."""
    final = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
    rows = sorted(
        (
            r["colour"].removeprefix("COLOUR_").lower(),
            str(r["rank"]),
            str(r["points"]),
            str(r["islands"]),
            str(r["ships"]),
        )
        for r in final["view"]["result"]
    )
    return str(final["sequence"]), rows


def test_one_person_plays_a_whole_game_against_bots_chosen_in_the_lobby(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    page, lobby = context.new_page(), context.new_page()
    for p in (page, lobby):
        watch_errors(p, errors)
    try:
        # Every level can be chosen, and is shown on the game page and in the lobby.
        page.goto(gateway.url + "/?lang=en")
        page.get_by_test_id("player-name").fill("Sione")
        page.get_by_test_id("game-title").fill("Bots of each level")
        page.get_by_test_id("seat-orange").check()
        page.get_by_test_id("seat-player-yellow").select_option("strong")
        page.get_by_test_id("seat-player-orange").select_option("greedy")
        page.get_by_test_id("seat-player-red").select_option("random")
        page.get_by_test_id("create-game").click()
        page.wait_for_url("**/games/*")
        shown = page.url.rsplit("/", 1)[1]
        seats = api.ok("GET", f"/api/v1/games/{shown}")["snapshot"]["game"]["seats"]
        assert {s["colour"]: s["bot"] for s in seats} == {
            "COLOUR_YELLOW": "BOT_LEVEL_STRONG",
            "COLOUR_ORANGE": "BOT_LEVEL_GREEDY",
            "COLOUR_RED": "BOT_LEVEL_RANDOM",
            "COLOUR_BLUE": "BOT_LEVEL_UNSPECIFIED",
        }
        page.locator("[data-testid=seat-red] [data-testid=bot][data-level=random]").wait_for()
        assert page.get_by_test_id("seat-orange").inner_text().endswith("Bot (greedy)")
        assert page.get_by_test_id("seat-yellow").inner_text().endswith("Bot (strong)")
        assert page.locator("[data-testid=seat-blue] [data-testid=bot]").count() == 0
        # The creator took the only seat a person plays: all seats are taken.
        page.get_by_test_id("you").wait_for()
        assert state(page)["colour"] == "blue"
        assert page.get_by_test_id("seat-status").inner_text() == "All seats taken: start the game."
        assert page.get_by_test_id("join-red").count() == 0
        lobby.goto(gateway.url + "/?lang=en")
        item = lobby.get_by_test_id("game-item").filter(
            has=lobby.locator(f"[data-testid=game-link][href='/games/{shown}']")
        )
        item.locator("[data-testid=bot-seat][data-colour=orange][data-level=greedy]").wait_for()
        assert item.get_by_test_id("bot-seat").all_inner_texts() == [
            "Bot (strong)",
            "Bot (greedy)",
            "Bot (random)",
        ]
        lobby.close()  # a second page would leave the game's page in the background
        shot(page, "bots-created")

        # One person against two bots, from the lobby to the final ranking.
        page.goto(gateway.url + "/?lang=en")
        page.get_by_test_id("game-title").fill("Against the bots")
        page.get_by_test_id("seat-player-red").select_option("random")
        page.get_by_test_id("seat-player-blue").select_option("random")
        page.get_by_test_id("create-game").click()
        page.wait_for_url("**/games/*")
        game = page.url.rsplit("/", 1)[1]
        assert game != shown
        page.locator("[data-testid=seat-blue] [data-testid=bot][data-level=random]").wait_for()
        page.get_by_test_id("you").wait_for()
        assert state(page)["colour"] == "yellow"
        page.get_by_test_id("start").click()
        page.wait_for_function("document.body.dataset.state === 'active'")
        assert page.locator("[data-testid=player-red] [data-testid=bot]").inner_text() == (
            "Bot (random)"
        )

        clicks = play_until(
            [page],
            random.Random(11),
            "document.body.dataset.state === 'finished'",
            time.monotonic() + 240,
        )
        assert clicks > 10
        assert state(page).get("errors") is None
        sequence, expected = expected_ranking(api, game)
        page.wait_for_function(f"document.body.dataset.sequence === '{sequence}'")
        assert sorted(ranking(page)) == expected
        shot(page, "bots-final")
    finally:
        context.close()
    assert errors == []


def test_a_browser_reconnects_and_resumes_mid_game(
    browser: Browser, game_server: ServerProcess, api: Api
) -> None:
    running = serve_gateway(game_server.target)
    port = running.gateway.port
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        game = api.new_game(["green", "purple"])
        page.goto(f"{running.url}/games/{game}")
        page.get_by_test_id("join-green").click()
        page.get_by_test_id("you").wait_for()
        purple = api.ok("POST", f"/api/v1/games/{game}/join", {"colour": "COLOUR_PURPLE"})
        page.get_by_test_id("start").click()
        page.wait_for_function("document.body.dataset.state === 'active'")
        seat = page.evaluate(f"JSON.parse(localStorage.getItem('tongiaki.seat.{game}'))")
        tokens = {"COLOUR_GREEN": seat["token"], "COLOUR_PURPLE": purple["seat_token"]}

        api.play(game, tokens, steps=6, seed=3)
        seen = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["sequence"]
        page.wait_for_function(f"document.body.dataset.sequence === '{seen}'")
        page.locator("#connection[data-state=live]").wait_for()

        running.stop()  # the drop: every stream of this gateway ends
        page.locator("#connection[data-state=reconnecting]").wait_for()
        shot(page, "reconnect-dropped")
        api.play(game, tokens, steps=5, seed=4)  # meanwhile, through another gateway
        now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]

        running = serve_gateway(game_server.target, port=port)
        page.wait_for_function(
            f"document.body.dataset.sequence === '{now['sequence']}'", timeout=20000
        )
        page.locator("#connection[data-state=live]").wait_for()
        # It resumed from the last sequence it saw: the missed entries are in its log.
        logged = page.evaluate(
            "[...document.querySelectorAll('[data-testid=log] li')]"
            ".map(li => Number(li.dataset.sequence))"
        )
        missed = range(int(seen) + 1, int(now["sequence"]) + 1)
        assert all(s in logged for s in missed), (logged, list(missed))
        shot(page, "reconnect-resumed")

        # And play goes on in the browser after the reconnect.
        rng = random.Random(5)
        target = int(now["sequence"]) + 2
        deadline = time.monotonic() + 30
        while int(state(page)["sequence"]) < target and time.monotonic() < deadline:
            current = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            decision = current["view"].get("decision")
            if decision is None:
                break
            if decision["player"] == "COLOUR_GREEN":
                if state(page).get("myturn") == "1":
                    decide(page, rng)
                else:
                    time.sleep(0.02)
            else:
                api.play(game, tokens, steps=1, seed=int(current["sequence"]))
                page.wait_for_function(
                    f"Number(document.body.dataset.sequence) > {current['sequence']}"
                )
        assert int(state(page)["sequence"]) >= target
    finally:
        context.close()
        running.stop()
    assert errors == []


PICKER_SCENARIOS = """
async () => {
  const { Picker } = await import("/static/js/choices.js");
  const out = {};
  const beach = (q, r, index) => ({ q, r, index });
  // Two ships on Tonga: the same beach twice is one option, two beaches another.
  let p = new Picker({ options: [
    { tonga: { beaches: [1, 1] } }, { tonga: { beaches: [1, 3] } }, { settle: {} },
  ] });
  out.tongaFirst = [...p.targets().keys()].sort();
  out.tongaPick = p.pick("tonga:0,0,1");
  out.tongaNext = [...p.targets().keys()].sort();
  out.tongaDone = p.pick("tonga:0,0,1")?.action;
  // Expansion: the island first, then its beaches in any order.
  p = new Picker({ options: [
    { expand: { island: { q: 1, r: 0 }, beaches: [0, 1] } },
    { expand: { island: { q: 1, r: 0 }, beaches: [0, 2] } },
    { expand: { island: { q: 1, r: 0 }, beaches: [1, 2] } },
    { royal: { island: { q: 1, r: 0 } } },
  ] });
  out.expandFirst = [...p.targets().keys()].sort();
  p.pick("island:1,0");
  out.expandBeaches = [...p.targets().keys()].sort();
  p.pick("beach:1,0,2");
  out.expandAfterTwo = [...p.targets().keys()].sort();
  out.expandDone = p.pick("beach:1,0,0")?.action;
  out.illegal = p.pick("beach:9,9,9");
  // A landing: ships by beach and colour; what is left over goes home.
  p = new Picker({ group: ["COLOUR_RED", "COLOUR_RED", "COLOUR_BLUE"], options: [
    { land: { ships: [{ beach: 0, colour: "COLOUR_RED" }, { beach: 1, colour: "COLOUR_RED" }] } },
    { land: { ships: [{ beach: 0, colour: "COLOUR_BLUE" }, { beach: 1, colour: "COLOUR_RED" }] } },
    { land: { ships: [{ beach: 0, colour: "COLOUR_RED" }, { beach: 1, colour: "COLOUR_BLUE" }] } },
  ] });
  out.landFirst = [...p.targets().keys()].sort();
  p.pick("land:1:red");
  out.landNext = [...p.targets().keys()].sort();
  out.landDone = p.pick("land:0:blue")?.index;
  // Taking a ship back with an empty supply: the beach it comes from first.
  p = new Picker({ options: [
    { expand: { island: { q: 0, r: 0 }, beaches: [2], take: beach(0, 0, 2) } },
    { expand: { island: { q: 0, r: 0 }, beaches: [4], take: beach(0, 0, 2) } },
  ] });
  out.takeFirst = [...p.targets().keys()];
  return out;
}
"""


def test_picks_on_the_board_narrow_the_servers_options(browser: Browser, gateway: Running) -> None:
    page = browser.new_page()
    try:
        page.goto(gateway.url + "/")
        out = page.evaluate(PICKER_SCENARIOS)
    finally:
        page.close()
    assert out["tongaFirst"] == ["settle", "tonga:0,0,1", "tonga:0,0,3"]
    assert out["tongaPick"] is None
    assert out["tongaNext"] == ["tonga:0,0,1", "tonga:0,0,3"]
    assert out["tongaDone"] == {"tonga": {"beaches": [1, 1]}}
    assert out["expandFirst"] == ["island:1,0", "royal:1,0"]
    assert out["expandBeaches"] == ["beach:1,0,0", "beach:1,0,1", "beach:1,0,2"]
    assert out["expandAfterTwo"] == ["beach:1,0,0", "beach:1,0,1"]
    assert out["expandDone"] == {"expand": {"island": {"q": 1, "r": 0}, "beaches": [0, 2]}}
    assert out["illegal"] is None
    assert out["landFirst"] == ["land:0:blue", "land:0:red", "land:1:blue", "land:1:red"]
    assert out["landNext"] == ["land:0:blue", "land:0:red"]
    assert out["landDone"] == 1
    assert out["takeFirst"] == ["take:0,0,2"]
