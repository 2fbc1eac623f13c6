"""Following a game in Chromium: others' moves played back one by one, the whole log
after a reload, replays against the engine, previews and confirms, take-backs,
44 px targets on a phone, and screenshots of every new screen in every locale."""

from __future__ import annotations

import gzip
import itertools
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route
from playwright.sync_api import Error as PlaywrightError

from engine import Game
from tests.webclient.conftest import ARTIFACTS, Api, Running
from tests.webclient.pages import BUSY, game_page, sit
from tests.webclient.test_browser import DESKTOP, INSTANT, PHONE, decide, state, watch_errors
from webclient import assets, i18n

STATIC = Path(__file__).resolve().parents[2] / "webclient" / "static"
SHOTS = ARTIFACTS / "follow"
LOCALES = ["en", "hu", "nl", "fi", "he", "ja"]

#: Every value <body data-sequence> takes, with when (ms): what was on screen, and when.
SHOWN = """
window.shown = [];
new MutationObserver(() => {
  const s = document.body?.dataset.sequence;
  if (s && window.shown.at(-1)?.s !== s) window.shown.push({ s, t: performance.now() });
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-sequence"] });
"""


def shot(page: Page, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def bots_game(api: Api, person: str, bots: list[str]) -> tuple[str, str]:
    """A started game of one person (its token) against random bots."""
    answer = api.ok(
        "POST",
        "/api/v1/games",
        {
            "seats": [f"COLOUR_{c.upper()}" for c in [person, *bots]],
            "settings": {
                "bots": [
                    {"colour": f"COLOUR_{c.upper()}", "level": "BOT_LEVEL_RANDOM"} for c in bots
                ]
            },
        },
    )
    game = answer["game"]["name"].split("/")[1]
    joined = api.ok("POST", f"/api/v1/games/{game}/join", {"colour": f"COLOUR_{person.upper()}"})
    api.ok("POST", f"/api/v1/games/{game}/start", {}, joined["seat_token"])
    return game, joined["seat_token"]


def pick_and_confirm(page: Page, rng: random.Random) -> str:
    """Pick targets (or an option of the list) until a Confirm shows, then confirm;
    the Confirm button's text.

    Each step waits for what the page shows, never for a fixed time: a pick that
    met a re-rendered board is simply made again.
    """
    mine = "document.body.dataset.myturn === '1' && document.body.dataset.busy !== '1'"
    for _ in range(50):
        page.wait_for_function(mine, timeout=BUSY)
        confirm = page.get_by_test_id("confirm")
        if confirm.count():
            try:
                text = confirm.inner_text(timeout=BUSY)
                confirm.click(timeout=BUSY)
                return text
            except PlaywrightError:
                continue
        targets = page.locator("[data-testid=target]")
        count = targets.count()
        try:
            if count:
                targets.nth(rng.randrange(count)).click(timeout=BUSY)
            else:
                page.get_by_test_id("option").first.click(timeout=BUSY)
        except PlaywrightError:  # the page re-rendered under the click: look again
            continue
    raise AssertionError("no Confirm after 50 picks")


def log_lines(page: Page) -> list[str]:
    return page.locator("[data-testid=log] li").all_inner_texts()


def yellows_turn_after(api: Api, game: str, sequence: int) -> dict[str, Any]:
    """The game's snapshot once yellow decides again after the entry ``sequence``
    (yellow's own action is applied first, then the bots answer)."""
    deadline = time.monotonic() + 60
    while True:
        now: dict[str, Any] = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        if int(now["sequence"]) > sequence and now["view"]["decision"]["player"] == "COLOUR_YELLOW":
            return now
        assert time.monotonic() < deadline, now["sequence"]
        time.sleep(0.05)


def test_a_bots_round_is_played_back_step_by_step(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(SHOWN)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        game, token = bots_game(api, "yellow", ["red", "green", "blue"])
        page.goto(f"{gateway.url}/")
        sit(page, game, "COLOUR_YELLOW", token)
        page.goto(f"{gateway.url}/games/{game}")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        before = int(state(page)["sequence"])
        page.evaluate("window.shown = []")
        # Yellow places its first ship; the three bots answer at once on the server.
        decide(page, random.Random(1))
        page.get_by_test_id("confirm").click()
        now = yellows_turn_after(api, game, before)
        page.wait_for_function(
            f"document.body.dataset.sequence === '{now['sequence']}'"
            " && document.body.dataset.myturn === '1'",
            timeout=30000,
        )
        shown: list[dict[str, Any]] = page.evaluate("window.shown")
        bots = [s for s in shown if int(s["s"]) > before + 1]
        # Every entry after the player's own was on screen, in order, one at a time.
        steps = [int(s["s"]) for s in bots]
        assert steps == list(range(before + 2, int(now["sequence"]) + 1)), shown
        assert len(bots) >= 3
        gaps = [b["t"] - a["t"] for a, b in itertools.pairwise(bots)]
        assert min(gaps) >= 400, gaps  # drawn over time, not at once
        # What the bots changed stays marked until the player acts.
        assert page.locator("[data-testid=ship].changed").count() >= 3
        shot(page, "playback-marked")
        # The speed is remembered by this browser; "skip to now" is offered while behind.
        page.get_by_test_id("speed").select_option("0.5")
        page.reload()
        assert page.get_by_test_id("speed").input_value() == "0.5"
        page.wait_for_function("document.body.dataset.myturn === '1'")
        decide(page, random.Random(2))
        page.get_by_test_id("confirm").click()
        # While the bots' moves still play back, the status says it is yellow's turn
        # as soon as it is: never "Waiting for" yellow.
        page.wait_for_function(
            "t => !document.querySelector('[data-testid=skip]').hidden"
            " && document.querySelector('[data-testid=turn]').innerText === t",
            arg="Your turn",  # status.your_turn
        )
        page.get_by_test_id("skip").click()  # everything at once, then it is yellow's turn again
        page.wait_for_function("document.body.dataset.myturn === '1'", timeout=5000)
        assert not page.get_by_test_id("skip").is_visible()
    finally:
        context.close()
    assert errors == []


def yellow_plays(api: Api, game: str, token: str, rounds: int, seed: int) -> int:
    """Answer yellow's next ``rounds`` decisions through the API, each time waiting
    for the bots' answers; the sequence yellow decides at then."""
    rng = random.Random(seed)
    now = yellows_turn_after(api, game, 0)
    for _ in range(rounds):
        action = rng.choice(now["view"]["decision"]["options"])
        body = {"sequence": now["sequence"], "request_id": f"y{now['sequence']}", "action": action}
        api.ok("POST", f"/api/v1/games/{game}/actions", body, token)
        now = yellows_turn_after(api, game, int(now["sequence"]))
    return int(now["sequence"])


def test_a_followed_game_asks_the_server_for_no_past_board(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """Entries that reach the page in a batch (here: a stream resumed after the
    bots answered) each carry the board after them: the page plays them back one
    by one and never asks for ``at_sequence``."""
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(SHOWN)
    asked: list[str] = []
    context.on("request", lambda r: asked.append(r.url) if "/api/" in r.url else None)
    page = context.new_page()
    watch_errors(page, errors)
    game, token = bots_game(api, "yellow", ["red", "green", "blue"])
    streams: list[str] = []

    def stream(route: Route) -> None:
        # The page's stream comes back only once yellow and the bots have moved on.
        streams.append(route.request.url)
        if len(streams) == 2:
            yellow_plays(api, game, token, 3, seed=2)
        route.continue_()

    try:
        page.route("**/events*", stream)
        page.goto(f"{gateway.url}/games/{game}")
        start = yellow_plays(api, game, token, 1, seed=1)
        page.wait_for_function(f"document.body.dataset.sequence === '{start}'", timeout=BUSY)
        feed = gateway.app.extensions["tongiaki.feeds"].live(f"games/{game}")
        feed.stop()  # the page reconnects, and the entries it missed come as one batch
        page.wait_for_function(f"document.body.dataset.sequence > '{start}'", timeout=BUSY)
        last = int(api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["sequence"])
        page.wait_for_function(f"document.body.dataset.sequence === '{last}'", timeout=BUSY)
        assert len(streams) == 2 and last - start >= 4
        steps = [int(s["s"]) for s in page.evaluate("window.shown")]
        # Every entry was on screen, one after the other.
        assert [s for s in steps if s > start] == list(range(start + 1, last + 1)), steps
        assert any("/entries" in u for u in asked)  # requests are seen here
        assert [u for u in asked if "at_sequence" in u] == []
    finally:
        context.close()
    assert errors == []


def test_the_log_after_a_reload_is_the_log_of_a_page_open_all_along(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    along, late = context.new_page(), context.new_page()
    for page in (along, late):
        watch_errors(page, errors)
    try:
        game = api.new_game(["red", "purple"], display_name="Long memory")
        along.goto(f"{gateway.url}/games/{game}?lang=en")
        tokens = {}
        for colour, name in (("red", "Aroha"), ("purple", "Manu")):
            joined = api.ok(
                "POST",
                f"/api/v1/games/{game}/join",
                {"colour": f"COLOUR_{colour.upper()}", "display_name": name},
            )
            tokens[joined["colour"]] = joined["seat_token"]
        api.ok("POST", f"/api/v1/games/{game}/start", {}, tokens["COLOUR_RED"])
        final = api.play(game, tokens, seed=9)
        # Two pages: the one not in front gets no animation frames, so the
        # conditions are polled on a timer rather than on frames.
        caught_up = f"document.body.dataset.sequence === '{final['sequence']}'"
        along.wait_for_function(caught_up, polling=100, timeout=BUSY)
        late.goto(f"{gateway.url}/games/{game}?lang=en")
        late.wait_for_function(caught_up, polling=100, timeout=BUSY)
        late.locator("[data-testid=log] li").first.wait_for()
        kept = log_lines(along)
        assert len(kept) > 30
        assert log_lines(late) == kept
        # Players by their names, in time order, and why the game ended.
        text = "\n".join(kept)
        assert "Aroha" in text and "Manu" in text
        assert kept[0].startswith("Aroha") or "Aroha" in kept[0]
        assert "the game is over" in kept[-1]
        # After a language switch the log is whole too.
        late.goto(f"{gateway.url}/games/{game}?lang=ja")
        late.wait_for_function(caught_up, polling=100, timeout=BUSY)
        late.locator("[data-testid=log] li").nth(len(kept) - 1).wait_for(state="attached")
        assert len(log_lines(late)) == len(kept)
        late.goto(f"{gateway.url}/games/{game}?lang=en")
    finally:
        context.close()
    assert errors == []


def board_of(page: Page) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """The tiles (hex, id) and the ships by beach drawn on the board."""
    tiles = page.evaluate(
        "[...document.querySelectorAll('[data-testid=board] [data-testid=tile]')]"
        ".map((n) => [n.dataset.hex, n.dataset.tile])"
    )
    ships = page.evaluate(
        "[...document.querySelectorAll('[data-testid=board] [data-testid=ship]')]"
        ".map((n) => [n.dataset.beach, n.dataset.colour])"
    )
    by_beach: dict[str, list[str]] = {}
    for beach, colour in ships:
        by_beach.setdefault(beach, []).append(colour)
    return sorted((h, t) for h, t in tiles), {k: sorted(v) for k, v in by_beach.items()}


def engine_board(
    record: dict[str, Any], actions: int
) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """The engine's board after the first ``actions`` actions of ``record``."""
    game = Game.new(record["seats"], record["stack"])
    for action in record["actions"][:actions]:
        game.apply(action)
    view = game.view(None)
    tiles = sorted((f"{q},{r}", tile) for q, r, tile, _rot in view["tiles"])
    ships = {f"{q},{r},{b}": sorted(colours) for q, r, b, colours in view["beaches"]}
    return tiles, ships


def test_a_replay_shows_the_engines_board_at_every_step_and_its_record_replays(
    browser: Browser, gateway: Running, api: Api, tmp_path: Path
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "green", "blue"])
        final = api.play(game, tokens, seed=21)
        record = json.loads(api.ok("GET", f"/api/v1/games/{game}/record")["record_json"])
        entries = api.ok("GET", f"/api/v1/games/{game}/entries?page_size=2000")["entries"]
        actions_until = {}
        done = 0
        for entry in entries:
            done += "action_applied" in entry
            actions_until[int(entry["sequence"])] = done
        last = int(final["sequence"])
        for n in (5, last // 3, last // 2 + 1, last):
            page.goto(f"{gateway.url}/games/{game}?replay=1&at={n}&lang=en")
            page.wait_for_function(f"document.body.dataset.replayAt === '{n}'")
            assert board_of(page) == engine_board(record, actions_until[n]), n
            # The players' points at that step, as the server's past board has them.
            past = api.ok("GET", f"/api/v1/games/{game}?at_sequence={n}")["snapshot"]["view"]
            scores = {s["colour"]: int(s.get("count", 0)) for s in past.get("scores", [])}
            for colour in ("yellow", "green", "blue"):
                cell = page.get_by_test_id(f"player-{colour}").locator("[data-field=points]")
                assert int(cell.inner_text()) == scores.get(f"COLOUR_{colour.upper()}", 0), n
        shot(page, "replay-end")
        # Step back by entry and by turn; the link names the move.
        n = last // 2
        page.goto(f"{gateway.url}/games/{game}?replay=1&at={n}&lang=en")
        page.wait_for_function(f"document.body.dataset.replayAt === '{n}'")
        page.get_by_test_id("replay-next").click()
        page.wait_for_function(f"document.body.dataset.replayAt === '{n + 1}'")
        assert board_of(page) == engine_board(record, actions_until[n + 1])
        assert page.get_by_test_id("replay-link").input_value().endswith(f"at={n + 1}")
        # What that step did is said under the controls, as the log says it.
        step = page.get_by_test_id("replay-step").inner_text()
        current = page.locator("[data-testid=log] li.current").inner_text()
        assert step and step.split() == current.split(), (step, current)
        page.get_by_test_id("replay-turn-back").click()
        page.wait_for_function(f"Number(document.body.dataset.replayAt) < {n + 1}")
        at = int(state(page)["replayAt"])
        starts = {
            int(e["sequence"])
            for e in entries
            if any("turn_started" in ev for ev in e.get("action_applied", {}).get("events", []))
        }
        assert at in starts
        assert board_of(page) == engine_board(record, actions_until[at])
        assert page.locator("[data-testid=log] li.current").count() == 1
        shot(page, "replay-mid")
        # The record downloads as a file the engine's command line replays.
        with page.expect_download() as download:
            page.get_by_test_id("download").click()
        path = tmp_path / "record.json"
        download.value.save_as(path)
        assert json.loads(path.read_text()) == record
        replayed = subprocess.run(
            [sys.executable, "-m", "engine", "replay", str(path)],
            check=False,
            capture_output=True,
            text=True,
        )
        assert replayed.returncode == 0, replayed.stderr
        assert len(replayed.stdout.splitlines()) == len(record["actions"]) + 1
    finally:
        context.close()
    assert errors == []


def test_nothing_irreversible_is_sent_without_its_confirm(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    watch_errors(page, errors)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    def actions() -> int:
        return len([u for u in posts if u.endswith("/actions")])

    try:
        game, tokens = api.seated_game(["yellow", "red"])
        page.goto(f"{gateway.url}/?lang=en")
        sit(page, game, "COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
        page.evaluate(INSTANT)
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        rng = random.Random(3)
        sent = 0
        for _ in range(30):
            now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            decision = now["view"].get("decision")
            if decision["player"] == "COLOUR_RED":
                api.play(game, tokens, steps=1, seed=int(now["sequence"]))
                continue
            page.wait_for_function(f"document.body.dataset.sequence === '{now['sequence']}'")
            page.wait_for_function("document.body.dataset.myturn === '1'")
            # Pick on the board until one option is left: nothing is sent.
            while page.get_by_test_id("confirm").count() == 0:
                targets = page.locator("[data-testid=target]")
                targets.nth(rng.randrange(targets.count())).click()
            assert page.get_by_test_id("instruction").inner_text()
            assert actions() == sent  # picked to the end, nothing sent yet
            if decision["kind"] == "DECISION_KIND_SETUP":
                assert page.locator("[data-testid=ghost]").count() == 1  # the ship to be placed
            if sent == 2:
                shot(page, "preview-confirm")
            page.get_by_test_id("confirm").click()
            sent += 1
            page.wait_for_function(f"Number(document.body.dataset.sequence) > {now['sequence']}")
            assert actions() == sent
            if sent >= 6:
                break
        assert sent >= 6
        # With confirmations turned off (a setting), the last pick sends at once.
        page.get_by_test_id("prefs").locator("summary").click()
        page.get_by_test_id("pref-confirm").uncheck()
        assert (
            json.loads(page.evaluate("localStorage.getItem('tongiaki.prefs')"))["confirm"] is False
        )
        for _ in range(10):
            now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            if now["view"]["decision"]["player"] == "COLOUR_RED":
                api.play(game, tokens, steps=1, seed=int(now["sequence"]))
                continue
            page.wait_for_function(f"document.body.dataset.sequence === '{now['sequence']}'")
            page.wait_for_function("document.body.dataset.myturn === '1'")
            deadline = time.monotonic() + 30
            while actions() == sent and time.monotonic() < deadline:
                assert page.get_by_test_id("confirm").count() == 0  # no confirm is asked
                decide(page, rng)  # a pick; none once the last one is on its way
            break
        assert actions() == sent + 1
    finally:
        context.close()
    assert errors == []


def test_a_player_takes_back_a_move_but_not_after_a_draw(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    game, tokens = api.seated_game(["yellow", "red"])
    seat = ("COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
    with game_page(browser, gateway.url, game, seat, errors=errors) as page:
        page.wait_for_function("document.body.dataset.myturn === '1'")
        before = int(state(page)["sequence"])
        pick_and_confirm(page, random.Random(2))
        # The decision is in; then its take-back, each waited for by what the page shows.
        page.wait_for_function(f"document.body.dataset.sequence === '{before + 1}'")
        page.get_by_test_id("take-back").click()
        page.wait_for_function(f"document.body.dataset.sequence === '{before + 2}'")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        assert "back their last decision" in log_lines(page)[-1]
        shot(page, "take-back")

        # Play on until one of yellow's decisions draws a tile: it is not offered, and refused.
        rng = random.Random(4)
        for _ in range(400):
            now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            decision = now["view"].get("decision")
            assert decision is not None, "no draw by yellow before the end"
            if decision["player"] == "COLOUR_RED":
                api.play(game, tokens, steps=1, seed=int(now["sequence"]))
                continue
            option = rng.choice(decision["options"])
            entry = api.ok(
                "POST",
                f"/api/v1/games/{game}/actions",
                {
                    "sequence": now["sequence"],
                    "request_id": f"y{now['sequence']}",
                    "action": option,
                },
                tokens["COLOUR_YELLOW"],
            )["entry"]
            events = entry["action_applied"]["events"]
            if any("tile_placed" in e for e in events) and not any(
                "game_over" in e for e in events
            ):
                break
        page.wait_for_function(
            f"document.body.dataset.sequence === '{entry['sequence']}'", timeout=BUSY
        )
        assert page.get_by_test_id("take-back").count() == 0
        reason = page.evaluate(
            """async ([game, token, sequence]) => {
              const r = await fetch(`/api/v1/games/${game}/take-back`, { method: "POST",
                headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
                body: JSON.stringify({ sequence, request_id: "late" }) });
              return (await r.json()).error.reason;
            }""",
            [game, tokens["COLOUR_YELLOW"], entry["sequence"]],
        )
        assert reason == "TAKE_BACK_AFTER_DRAW"
    assert errors == []


def test_an_undo_against_bots_takes_back_their_answers_too(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """Bots answer at once here: the person's decision can still be undone after
    their answers (no tile drawn), by one Undo naming it, which asks first since the
    bots' moves go too; the board is as before."""
    errors: list[str] = []
    game, token = bots_game(api, "yellow", ["red", "blue"])
    seat = ("COLOUR_YELLOW", token)
    with game_page(browser, gateway.url, game, seat, errors=errors) as page:
        page.wait_for_function("document.body.dataset.myturn === '1'")
        before = int(state(page)["sequence"])
        ships = page.locator("[data-testid=board] [data-testid=ship]").count()
        pick_and_confirm(page, random.Random(3))
        # Both bots answered (their set-up picks draw no tile): yellow decides again.
        page.wait_for_function(
            "s => +document.body.dataset.sequence >= s && document.body.dataset.myturn === '1'",
            arg=before + 3,
        )
        assert page.locator("[data-testid=board] [data-testid=ship]").count() == ships + 3
        undo = page.get_by_test_id("take-back")
        # Named with the bots' moves it takes back too.
        said = undo.inner_text()
        assert undo.count() == 1 and "Undo (Ship on Tonga, beach" in said, said
        assert said.endswith("and the 2 bot moves since"), said
        # The bots' moves would go too: the first click asks, nothing is undone yet.
        undo.click()
        assert undo.inner_text() == i18n.translate("en", "undo.sure")
        page.wait_for_timeout(300)
        assert int(state(page)["sequence"]) == before + 3
        undo.click()
        page.wait_for_function(
            "s => +document.body.dataset.sequence === s && document.body.dataset.myturn === '1'",
            arg=before + 4,
        )
        assert page.locator("[data-testid=board] [data-testid=ship]").count() == ships
        assert page.get_by_test_id("take-back").count() == 0
        # The moves undone are no news: "Since your last decision" does not tell them.
        page.wait_for_timeout(500)
        assert page.get_by_test_id("since").count() == 0
        shot(page, "undo-against-bots")
    assert errors == []


def test_targets_are_44_px_and_the_decision_sits_over_the_board_on_a_phone(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.add_init_script(INSTANT)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        game, tokens = api.seated_game(["yellow", "red", "blue"])
        api.play(game, tokens, steps=9, seed=12)
        page.goto(f"{gateway.url}/?lang=en")
        now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
        colour = now["view"]["decision"]["player"]
        sit(page, game, colour, tokens[colour])
        page.goto(f"{gateway.url}/games/{game}?lang=en")
        page.wait_for_function("document.body.dataset.myturn === '1'")
        checked = 0
        for _ in range(6):
            page.wait_for_function("document.body.dataset.myturn === '1'")
            hits = page.locator("[data-testid=board] [data-testid=target] .target-hit")
            for i in range(hits.count()):
                box = hits.nth(i).bounding_box()
                assert box is not None
                assert box["width"] >= 43.5 and box["height"] >= 43.5, box
                checked += 1

            dock = page.get_by_test_id("dock").bounding_box()
            assert dock is not None and dock["y"] + dock["height"] <= 844
            assert page.evaluate("window.scrollY") == 0
            if checked > 3:
                break
            page.get_by_test_id("confirm").or_(
                page.locator("[data-testid=target]").first
            ).first.click()
        assert checked > 0
        # A game under way does not scroll as a page: a swipe or the wheel over the
        # docked decision scrolls the decision alone.
        dock = page.get_by_test_id("dock").bounding_box()
        assert dock is not None
        page.mouse.move(dock["x"] + dock["width"] / 2, dock["y"] + dock["height"] / 2)
        page.mouse.wheel(0, 3000)
        page.wait_for_timeout(300)
        assert page.evaluate("window.scrollY") == 0
        assert page.evaluate("document.scrollingElement.scrollHeight") <= 844
        header = page.locator(".topbar").bounding_box()
        assert header is not None and header["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shot(page, "phone-decision")
    finally:
        context.close()
    assert errors == []


#: The budget for every script and style sheet, gzipped together.
BUDGET_KB = 60


def test_scripts_and_styles_stay_under_the_budget_gzipped() -> None:
    """The budget: every script and style sheet as served (without comments), gzipped
    together; file by file (what the browser downloads) is printed too."""
    files = sorted([*STATIC.glob("js/*.js"), *STATIC.glob("css/*.css")])
    source = [f.read_bytes() for f in files]
    raw = [assets.served(f.name, data) for f, data in zip(files, source, strict=True)]
    together = len(gzip.compress(b"".join(raw), 9))
    apart = sum(len(gzip.compress(data, 9)) for data in raw)
    print(
        f"\nJS+CSS: {len(files)} files, {sum(map(len, source)) / 1024:.1f} KB as written,"
        f" {sum(map(len, raw)) / 1024:.1f} KB as served;"
        f" gzipped together {together / 1024:.1f} KB, file by file {apart / 1024:.1f} KB"
    )
    assert together < BUDGET_KB * 1024


@pytest.fixture(scope="module")
def shown_games(gateway: Running) -> dict[str, Any]:
    """A finished game (for the end screen, replay and lobby) and one with a seat to decide."""
    api = Api(gateway.url)
    finished, done = api.seated_game(["yellow", "purple", "green"])
    api.play(finished, done, seed=31)
    running, tokens = api.seated_game(["red", "blue"])
    api.play(running, tokens, steps=14, seed=5)
    return {"finished": finished, "done": done, "running": running, "tokens": tokens}


@pytest.mark.parametrize("locale", LOCALES)
def test_screens_in_every_locale(
    browser: Browser, gateway: Running, shown_games: dict[str, Any], locale: str
) -> None:
    errors: list[str] = []
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport, locale=locale)
        context.add_init_script(INSTANT)
        page = context.new_page()
        watch_errors(page, errors)
        try:
            name = f"{locale}-{size}"
            page.goto(f"{gateway.url}/?lang={locale}")
            page.get_by_test_id("finished-game").first.wait_for()
            page.get_by_test_id("game-options").locator("summary").click()
            shot(page, f"{name}-lobby", full=True)
            finished = shown_games["finished"]
            yellow = shown_games["done"]["COLOUR_YELLOW"]
            sit(page, finished, "COLOUR_YELLOW", yellow)
            page.goto(f"{gateway.url}/games/{finished}?lang={locale}")
            page.get_by_test_id("winner").wait_for()
            page.get_by_test_id("island-points").locator("summary").click()
            shot(page, f"{name}-end", full=True)
            page.goto(f"{gateway.url}/games/{finished}?replay=1&at=40&lang={locale}")
            page.wait_for_function("document.body.dataset.replayAt === '40'")
            shot(page, f"{name}-replay", full=size == "desktop")
            running = shown_games["running"]
            now = Api(gateway.url).ok("GET", f"/api/v1/games/{running}")["snapshot"]
            colour = now["view"]["decision"]["player"]
            sit(page, running, colour, shown_games["tokens"][colour])
            page.goto(f"{gateway.url}/games/{running}?lang={locale}")
            page.wait_for_function("document.body.dataset.myturn === '1'")
            targets = page.locator("[data-testid=board] [data-testid=target]")
            if targets.count():
                targets.first.click()
            shot(page, f"{name}-decision")
            # Badges and headers never break inside a word.
            for selector in (".badge", "th"):
                heights = page.evaluate(
                    f"[...document.querySelectorAll('{selector}')].map((n) => "
                    "[n.getClientRects().length, n.scrollWidth <= n.clientWidth + 1])"
                )
                assert all(rects <= 1 for rects, _ in heights), (selector, heights)
        finally:
            context.close()
    assert errors == []


def test_lobby_options_your_turn_clock_and_a_rematch(
    browser: Browser, gateway: Running, api: Api
) -> None:
    errors: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(INSTANT)
    page = context.new_page()
    watch_errors(page, errors)
    try:
        # The form's game options reach the server; the creator sits in the first person seat.
        page.goto(f"{gateway.url}/?lang=en")
        page.get_by_test_id("player-name").fill("Tui")
        page.get_by_test_id("game-title").fill("On the clock")
        page.get_by_test_id("seat-player-yellow").select_option("random")
        page.get_by_test_id("game-options").locator("summary").click()
        page.get_by_test_id("turn-clock").select_option("60")
        page.get_by_test_id("leave-bot").select_option("greedy")
        page.get_by_test_id("create-game").click()
        page.wait_for_url("**/games/*")
        game = page.url.rsplit("/", 1)[1]
        settings = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["game"]["settings"]
        assert settings["turn_timeout_seconds"] == 60
        assert settings["leave_bot"] == "BOT_LEVEL_GREEDY"
        page.get_by_test_id("you").wait_for()
        assert state(page)["colour"] == "red"
        # The status follows the seats.
        assert page.get_by_test_id("turn").inner_text().endswith("1 seat open")
        joined = api.ok("POST", f"/api/v1/games/{game}/join", {"colour": "COLOUR_BLUE"})
        page.get_by_test_id("seat-status").filter(has_text="All seats taken").wait_for()
        page.get_by_test_id("start").click()

        # Your turn: the tab title says so, and the clock counts down.
        for _ in range(2000):
            now = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
            # Right after Start the game may not be started yet: no board, no decision.
            player = (now.get("view", {}).get("decision") or {}).get("player")
            if player == "COLOUR_RED":
                break
            if player == "COLOUR_BLUE":
                api.play(game, {"COLOUR_BLUE": joined["seat_token"]}, steps=1)
            time.sleep(0.05)
        page.wait_for_function("document.body.dataset.myturn === '1'")
        assert page.title().startswith("● Your turn")
        first = page.get_by_test_id("clock").inner_text()
        assert first.startswith("Time left: 0:") or first == "Time left: 1:00", first
        page.wait_for_function(
            f"document.querySelector('[data-testid=clock]').textContent !== {json.dumps(first)}"
        )
        shot(page, "clock")
        decide(page, random.Random(5))
        page.get_by_test_id("confirm").click()
        page.wait_for_function("document.body.dataset.myturn === '0'")
        assert not page.title().startswith("●")

        # The end of a game offers a rematch: same seats, a new game, this player seated.
        done, tokens = api.seated_game(["yellow", "purple"])
        api.play(done, tokens, seed=8)
        sit(page, done, "COLOUR_PURPLE", tokens["COLOUR_PURPLE"])
        page.goto(f"{gateway.url}/games/{done}?lang=en")
        page.get_by_test_id("own-place").wait_for()
        page.get_by_test_id("rematch").click()
        page.wait_for_url(lambda url: "/games/" in url and done not in url)
        again = page.url.rsplit("/", 1)[1]
        page.get_by_test_id("you").wait_for()
        assert state(page)["colour"] == "purple"
        seats = api.ok("GET", f"/api/v1/games/{again}")["snapshot"]["game"]["seats"]
        assert [s["colour"] for s in seats] == ["COLOUR_YELLOW", "COLOUR_PURPLE"]
        assert [s["occupied"] for s in seats] == [False, True]
    finally:
        context.close()
    assert errors == []


VOYAGE_PREVIEW = """
async () => {
  const { GamePage } = await import("/static/js/game.js");
  const view = (colours) => ({
    tiles: [
      { at: { q: 0, r: 0 }, tile: "tonga", rot: 0 },
      { at: { q: 0, r: 1 }, tile: "sea-01", rot: 0 },
    ],
    beaches: [{ beach: { q: 0, r: 0, index: 0 }, colours }],
  });
  const path = (colours) => GamePage.prototype.voyagePath.call({}, view(colours), [0, 0, 0, 0]);
  const two = path(["COLOUR_RED", "COLOUR_BLUE"]);
  const one = path(["COLOUR_RED", "COLOUR_RED"]);
  const dangers = (p) => [p.colours, p.steps.map((s) => s.danger)];
  return { two: dangers(two), one: dangers(one) };
}
"""


def test_a_voyage_preview_follows_the_sea_paths_with_their_dangers(
    browser: Browser, gateway: Running
) -> None:
    page = browser.new_page()
    try:
        page.goto(gateway.url + "/")
        page.get_by_test_id("create-game").wait_for()
        out = page.evaluate(VOYAGE_PREVIEW)
    finally:
        page.close()
    # From Tonga's south jetty into sea-01 by its north edge: the path of danger 2.
    assert out == {"two": [2, [2]], "one": [1, [2]]}


LANDING_ON_A_PHONE = """
async (args) => {
  const three = ["COLOUR_RED", "COLOUR_BLUE", "COLOUR_GREEN"];
  const [width, height, colours, beaches] = args ?? [390, 500, three, [0]];
  const { Board } = await import("/static/js/board.js");
  const { Picker } = await import("/static/js/choices.js");
  const box = document.createElement("div");
  box.style.cssText =
    `position: fixed; inset: 0; width: ${width}px; height: ${height}px; z-index: 99;` +
    "background: #fff";
  document.body.appendChild(box);
  const decision = {
    kind: "DECISION_KIND_LAND", player: "COLOUR_RED", island: { q: 1, r: 0 }, group: colours,
    options: beaches.flatMap((beach) =>
      colours.map((colour) => ({ land: { ships: [{ beach, colour }] } }))),
  };
  const view = {
    tiles: [{ at: { q: 0, r: 0 }, tile: "tonga" }, { at: { q: 1, r: 0 }, tile: "muroroa" }],
    beaches: [], decision,
  };
  const board = new Board(box, () => {});
  board.render(view, new Picker(decision));
  return [...box.querySelectorAll("[data-testid=target]")].map((node) => {
    const hit = node.querySelector(".target-hit").getBoundingClientRect();
    const x = hit.x + hit.width / 2;
    const y = hit.y + hit.height / 2;
    // The target's centre in board units from the island's centre (q 1, r 0).
    const m = board.svg.getScreenCTM().inverse();
    const at = new DOMPoint(x, y).matrixTransform(m);
    const from = Math.hypot(at.x - 150, at.y - 86.6);
    return { key: node.dataset.key, x, y, r: hit.width / 2, from,
             top: document.elementFromPoint(x, y)?.closest("[data-testid=target]")?.dataset.key };
  });
}
"""


def test_each_colour_of_a_landing_can_be_tapped_on_a_phone(
    browser: Browser, gateway: Running, shown_games: dict[str, Any]
) -> None:
    """Close targets (a landing's colours on one beach) never cover one another."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{gateway.url}/games/{shown_games['running']}")
        page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
        targets = page.evaluate(LANDING_ON_A_PHONE)
    finally:
        context.close()
    assert sorted(t["key"] for t in targets) == ["land:0:blue", "land:0:green", "land:0:red"]
    for target in targets:
        assert target["top"] == target["key"], target
    for a, b in itertools.combinations(targets, 2):
        assert ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5 >= a["r"] + b["r"] - 1


def test_a_landings_colours_stay_on_their_island_where_they_fit(
    browser: Browser, gateway: Running, shown_games: dict[str, Any]
) -> None:
    """Two colours on a beach, at a desktop's scale: side by side on the island's
    tile (never reaching onto a neighbour), a finger apart, none covering another."""
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/games/{shown_games['running']}")
        page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
        targets = page.evaluate(LANDING_ON_A_PHONE, [1000, 700, ["COLOUR_RED", "COLOUR_BLUE"], [0]])
    finally:
        page.close()
    assert sorted(t["key"] for t in targets) == ["land:0:blue", "land:0:red"]
    for target in targets:
        assert target["top"] == target["key"], target
        # Inside the hex (its apothem is 86.6 units).
        assert target["from"] < 86.6, target
    a, b = targets
    assert ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5 >= 40, targets


def test_three_colours_on_each_of_two_neighbouring_beaches_stay_on_the_island(
    browser: Browser, gateway: Running, shown_games: dict[str, Any]
) -> None:
    """Where a beach's side of the tile is narrow (its neighbour beach has colours to
    place too), its colours sit closer together rather than out over the next tile."""
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/games/{shown_games['running']}")
        page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
        three = ["COLOUR_RED", "COLOUR_BLUE", "COLOUR_GREEN"]
        targets = page.evaluate(LANDING_ON_A_PHONE, [1000, 700, three, [0, 1, 2]])
    finally:
        page.close()
    assert len(targets) == 9
    for target in targets:
        assert target["top"] == target["key"], target
        assert target["from"] < 86.6, target


JETTIES_FAR_OUT = """
async () => {
  const { Board } = await import("/static/js/board.js");
  const { Picker } = await import("/static/js/choices.js");
  const box = document.createElement("div");
  box.style.cssText = "position: fixed; inset: 0; width: 390px; height: 500px; z-index: 99";
  document.body.appendChild(box);
  const decision = {
    kind: "DECISION_KIND_EMIGRATE", player: "COLOUR_RED",
    options: [0, 3].map((index) => ({ emigrate: { beach: { index }, dir: index } })),
  };
  const tiles = [{ at: {}, tile: "tonga" }];
  for (let q = -3; q <= 3; q += 1) if (q) tiles.push({ at: { q, r: 0 }, tile: "sea-01" });
  const board = new Board(box, () => {});
  board.render({ tiles, beaches: [], decision }, new Picker(decision));
  board.moveTo(board.wholeBox(), 0);
  return [...box.querySelectorAll(".target-dot")].map((dot) => [
    dot.getBoundingClientRect().width,
    dot.parentNode.querySelector(".target-hit").getBoundingClientRect().width,
  ]);
}
"""


def test_a_target_is_seen_at_a_fingertips_size_far_out(
    browser: Browser, gateway: Running, shown_games: dict[str, Any]
) -> None:
    """A jetty to pick on a wide board at a phone's width is drawn 26 px across, not
    as a speck inside its 44 px hit area."""
    page = browser.new_page(viewport=PHONE)
    try:
        page.goto(f"{gateway.url}/games/{shown_games['running']}")
        page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
        sizes = page.evaluate(JETTIES_FAR_OUT)
    finally:
        page.close()
    assert len(sizes) == 2
    for seen, hit in sizes:
        assert hit >= 43.5 and seen >= 25.5, sizes


ZOOM_AT_TARGETS = """
async (away) => {
  const { Board } = await import("/static/js/board.js");
  const { Picker } = await import("/static/js/choices.js");
  const box = document.createElement("div");
  box.style.cssText = "position: fixed; inset: 0; width: 390px; height: 500px; z-index: 99";
  document.body.appendChild(box);
  const decision = {
    kind: "DECISION_KIND_EMIGRATE", player: "COLOUR_RED",
    options: [{ emigrate: { beach: { q: 2, r: 0, index: 0 }, dir: 0 } }],
  };
  const tiles = [{ at: {}, tile: "tonga" }, { at: { q: 2, r: 0 }, tile: "fiji" }];
  for (const q of [-3, -2, -1, 1, 3]) tiles.push({ at: { q, r: 0 }, tile: "sea-01" });
  const board = new Board(box, () => {});
  board.render({ tiles, beaches: [], decision }, new Picker(decision));
  const whole = board.wholeBox();
  // Away: the view off to the left, the target (on Fiji, at the right) out of sight.
  board.moveTo(away ? { ...whole, x: whole.x - whole.w } : whole, 0);
  const where = () => {
    const r = box.querySelector(".target-hit").getBoundingClientRect();
    return [r.x + r.width / 2, r.y + r.height / 2];
  };
  const before = where();
  const width = board.box.w;
  board.zoomStep(1 / 1.5);
  const b = box.getBoundingClientRect();
  const middle = [b.x + b.width / 2, b.y + b.height / 2];
  return { before, after: where(), closer: board.box.w < width, middle };
}
"""


def test_zooming_in_keeps_the_decisions_targets_where_they_are(
    browser: Browser, gateway: Running, shown_games: dict[str, Any]
) -> None:
    """The "+" button zooms in around the targets of the decision: in sight, they
    stay where they were on the screen instead of sliding off it; out of sight, they
    come to the middle."""
    page = browser.new_page(viewport=PHONE)
    try:
        page.goto(f"{gateway.url}/games/{shown_games['running']}")
        page.locator("[data-testid=board] [data-testid=tile]").first.wait_for()
        out = page.evaluate(ZOOM_AT_TARGETS, False)
        away = page.evaluate(ZOOM_AT_TARGETS, True)
    finally:
        page.close()
    assert out["closer"], out
    assert all(abs(a - b) < 12 for a, b in zip(out["before"], out["after"], strict=True)), out
    # Out of sight, the targets are brought to the middle of the view as it zooms in.
    assert away["closer"] and away["before"][0] > 390, away
    assert all(abs(a - b) < 12 for a, b in zip(away["after"], away["middle"], strict=True)), away


def test_a_replay_opened_without_a_step_starts_at_the_beginning(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """A game watched again starts from its beginning (the board as the game began),
    as a replay does elsewhere."""
    game, tokens = api.seated_game(["yellow", "green"])
    api.play(game, tokens, steps=12, seed=3)
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(f"{gateway.url}/games/{game}?replay=1&lang=en")
        page.wait_for_function("document.body.dataset.replayAt !== undefined")
        entries = api.ok("GET", f"/api/v1/games/{game}/entries?page_size=100")["entries"]
        began = next(int(e["sequence"]) for e in entries if "game_started" in e)
        assert state(page)["replayAt"] == str(began)
        assert page.locator("[data-testid=board] [data-testid=tile]").count() >= 1
    finally:
        page.close()
