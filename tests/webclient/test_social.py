"""Between players, in Chromium against the real server and gateway: My games
(whose turn, my place), one rematch for everybody, and quick messages shown in
each reader's language."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.webclient.conftest import Api, Running
from tests.webclient.test_browser import DESKTOP, INSTANT, PHONE, shot, state, watch_errors
from webclient import i18n

#: Long enough for a busy machine; every wait is for a condition.
WAIT = 30_000


def seated(
    browser: Browser, seats: dict[str, tuple[str, str]], phone: bool = False
) -> BrowserContext:
    """A browser holding ``seats`` (game -> colour name, token), showing moves at once."""
    context = browser.new_context(viewport=PHONE if phone else DESKTOP)
    context.add_init_script(INSTANT)
    for game, (colour, token) in seats.items():
        seat = json.dumps({"colour": f"COLOUR_{colour.upper()}", "token": token})
        context.add_init_script(f"localStorage.setItem('tongiaki.seat.{game}', {json.dumps(seat)})")
    return context


#: Letters of Hebrew, whose values run right to left as a whole.
HEBREW = re.compile("[\u0590-\u05ff]")


def isolated(value: str) -> str:
    """``value`` isolated as the client isolates it in Hebrew."""
    opener = "\u2067" if HEBREW.search(value) else "\u2068"
    return f"{opener}{value}\u2069"


def text(locale: str, msgid: str, **values: object) -> str:
    """A message as the page shows it (Hebrew values isolated as the client does: a
    value with Hebrew in it right to left, any other by its first strong letter)."""
    if locale == "he":
        values = {k: isolated(str(v)) for k, v in values.items()}
    return i18n.translate(locale, msgid, **values)


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    """Contexts a test opens, closed after it."""
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


def test_my_games_lists_whose_turn_and_my_place(
    browser: Browser, gateway: Running, api: Api, contexts: list[BrowserContext]
) -> None:
    running, tokens = api.seated_game(["yellow", "orange"])
    waiting = api.new_game(["red", "blue"], display_name="Friday")
    joined = api.ok("POST", f"/api/v1/games/{waiting}/join", {"colour": "COLOUR_RED"})
    over, over_tokens = api.seated_game(["green", "purple"])
    api.play(over, over_tokens)
    result = api.ok("GET", f"/api/v1/games/{over}")["snapshot"]["game"]["results"]
    green_rank = next(r["rank"] for r in result if r["colour"] == "COLOUR_GREEN")

    # The player to decide sees the game first, "your turn" on it.
    first = seated(browser, {running: ("yellow", tokens["COLOUR_YELLOW"])})
    contexts.append(first)
    page = first.new_page()
    errors: list[str] = []
    watch_errors(page, errors)
    page.goto(gateway.url + "/my?lang=en")
    row = page.get_by_test_id("my-game").first
    expect(row).to_have_attribute("data-game", running, timeout=WAIT)
    expect(row.get_by_test_id("your-turn")).to_have_text("Your turn")
    expect(row.get_by_test_id("my-time")).to_contain_text("Created ")
    # The lobby lists it too.
    page.goto(gateway.url + "/?lang=en")
    expect(page.get_by_test_id("lobby-mine").get_by_test_id("your-turn")).to_be_visible(
        timeout=WAIT
    )
    shot(page, "my-games-lobby-en-desktop")
    page.set_viewport_size(PHONE)
    shot(page, "my-games-lobby-en-phone")

    # Another browser: the other seat of that game, an open game and a finished one.
    other = seated(
        browser,
        {
            running: ("orange", tokens["COLOUR_ORANGE"]),
            waiting: ("red", joined["seat_token"]),
            over: ("green", over_tokens["COLOUR_GREEN"]),
        },
    )
    contexts.append(other)
    page = other.new_page()
    watch_errors(page, errors)
    page.goto(gateway.url + "/my?lang=en")
    rows = page.get_by_test_id("my-game")
    expect(rows).to_have_count(3, timeout=WAIT)
    turn = page.locator(f"[data-testid=my-game][data-game='{running}']")
    expect(turn.get_by_test_id("turn-of")).to_have_attribute("data-colour", "yellow")
    expect(turn.get_by_test_id("your-turn")).to_have_count(0)
    expect(page.locator(f"[data-game='{waiting}'] .my-title")).to_have_text("Friday")
    expect(page.locator(f"[data-game='{waiting}']")).to_have_attribute("data-state", "open")
    done = page.locator(f"[data-game='{over}']")
    expect(done.get_by_test_id("place")).to_have_text(
        i18n.translate("en", "end.your_place", rank=green_rank, total=2)
    )
    expect(done.get_by_test_id("my-replay")).to_have_attribute("href", f"/games/{over}?replay=1")
    # Active games come before open ones, and those before finished ones.
    order = [rows.nth(i).get_attribute("data-game") for i in range(3)]
    assert order == [running, waiting, over]
    # A finished game can be removed from the list; a game still to play (a seat
    # others wait for) cannot.
    assert turn.get_by_test_id("my-remove").count() == 0
    assert page.locator(f"[data-game='{waiting}']").get_by_test_id("my-remove").count() == 0
    for locale in ("en", "he", "ja"):
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(viewport)
            page.goto(gateway.url + f"/my?lang={locale}")
            expect(page.get_by_test_id("my-game")).to_have_count(3, timeout=WAIT)
            shot(page, f"my-games-{locale}-{size}")
    page.locator(f"[data-game='{over}']").get_by_test_id("my-remove").click()
    expect(page.get_by_test_id("my-game")).to_have_count(2, timeout=WAIT)
    assert page.evaluate(f"localStorage.getItem('tongiaki.seat.{over}')") is None
    assert errors == []


def finish_and_open(
    browser: Browser, gateway: Running, api: Api, contexts: list[BrowserContext]
) -> tuple[str, list[Page]]:
    """A finished game open in three browsers: yellow (en), orange (he), a spectator (ja)."""
    game, tokens = api.seated_game(["yellow", "orange"])
    api.play(game, tokens, seed=4)
    pages = []
    for colour, locale in (("yellow", "en"), ("orange", "he"), (None, "ja")):
        context = seated(
            browser, {game: (colour, tokens[f"COLOUR_{colour.upper()}"])} if colour else {}
        )
        contexts.append(context)
        page = context.new_page()
        page.goto(gateway.url + f"/games/{game}?lang={locale}")
        expect(page.get_by_test_id("ranking")).to_be_visible(timeout=WAIT)
        pages.append(page)
    return game, pages


def test_both_players_rematch_into_one_game_and_a_spectator_opens_it(
    browser: Browser, gateway: Running, api: Api, contexts: list[BrowserContext]
) -> None:
    game, (yellow, orange, spectator) = finish_and_open(browser, gateway, api, contexts)
    # Nothing to open yet for the spectator.
    expect(spectator.get_by_test_id("rematch")).to_have_count(0)
    expect(yellow.get_by_test_id("rematch")).to_have_text("Rematch")
    # Both press Rematch, one right after the other.
    yellow.get_by_test_id("rematch").click()
    orange.get_by_test_id("rematch").click()
    url = re.compile(r"/games/(?!" + game + r")[0-9a-f]+")
    yellow.wait_for_url(url, timeout=WAIT)
    orange.wait_for_url(url, timeout=WAIT)
    assert yellow.url.split("?")[0] == orange.url.split("?")[0]
    rematch = yellow.url.split("?")[0].rsplit("/", 1)[1]
    assert (
        api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["game"]["rematch"] == f"games/{rematch}"
    )
    seats = api.ok("GET", f"/api/v1/games/{rematch}")["snapshot"]["game"]["seats"]
    assert [s.get("occupied", False) for s in seats] == [True, True]
    expect(yellow.get_by_test_id("you")).to_contain_text(text("en", "colour.yellow"), timeout=WAIT)
    expect(orange.get_by_test_id("you")).to_contain_text(text("he", "colour.orange"), timeout=WAIT)
    # Both seats taken back: it starts by itself, no Start to press.
    expect(yellow.locator("body[data-state='active']")).to_have_count(1, timeout=WAIT)
    # My games tells the two apart: the rematch says which game it follows.
    yellow.goto(gateway.url + "/my?lang=en")
    row = yellow.locator(f"[data-testid=my-game][data-game='{rematch}']")
    expect(row.get_by_test_id("my-rematch-of")).to_contain_text("Rematch of ", timeout=WAIT)
    finished = yellow.locator(f"[data-testid=my-game][data-game='{game}']")
    expect(finished.get_by_test_id("my-rematch-of")).to_have_count(0)
    shot(yellow, "rematch-my-games-en-desktop")
    # The spectator's page learns of it, and its button opens it.
    button = spectator.get_by_test_id("rematch")
    expect(button).to_have_text(text("ja", "end.rematch_open"), timeout=WAIT)
    proposed = [
        text("ja", "log.rematch_proposed", player=text("ja", f"player.{c}"))
        for c in ("yellow", "orange")
    ]
    expect(spectator.get_by_test_id("log")).to_contain_text(
        re.compile("|".join(map(re.escape, proposed)))
    )
    button.scroll_into_view_if_needed()
    shot(spectator, "rematch-spectator-ja-desktop")
    button.click()
    spectator.wait_for_url(re.compile(rematch), timeout=WAIT)
    expect(spectator.get_by_test_id("spectator")).to_be_visible(timeout=WAIT)


def test_a_player_who_comes_later_joins_the_proposed_rematch(
    browser: Browser, gateway: Running, api: Api, contexts: list[BrowserContext]
) -> None:
    game, (yellow, orange, _spectator) = finish_and_open(browser, gateway, api, contexts)
    yellow.get_by_test_id("rematch").click()
    yellow.wait_for_url(re.compile(r"/games/(?!" + game + r")"), timeout=WAIT)
    # Orange's end screen now offers to join it, in Hebrew.
    button = orange.get_by_test_id("rematch")
    expect(button).to_have_text(text("he", "end.rematch_join"), timeout=WAIT)
    shot(orange, "rematch-join-he-desktop")
    orange.set_viewport_size(PHONE)
    button.scroll_into_view_if_needed()
    shot(orange, "rematch-join-he-phone")
    button.click()
    orange.wait_for_url(yellow.url.split("?")[0], timeout=WAIT)
    expect(orange.get_by_test_id("you")).to_contain_text(text("he", "colour.orange"), timeout=WAIT)


def test_quick_messages_reach_every_reader_in_their_language(
    browser: Browser, gateway: Running, api: Api, contexts: list[BrowserContext]
) -> None:
    game, tokens = api.seated_game(["yellow", "orange"])
    pages: dict[str, Page] = {}
    errors: list[str] = []
    for who, locale, phone in (
        ("yellow", "en", False),
        ("orange", "ja", True),
        ("spectator", "he", False),
    ):
        seats = {game: (who, tokens[f"COLOUR_{who.upper()}"])} if who != "spectator" else {}
        context = seated(browser, seats, phone=phone)
        contexts.append(context)
        page = context.new_page()
        watch_errors(page, errors)
        page.goto(gateway.url + f"/games/{game}?lang={locale}")
        if phone:
            # A player's phone keeps players, log and phrases in the drawer.
            page.get_by_test_id("drawer-open").click()
        expect(page.get_by_test_id("players")).to_be_visible(timeout=WAIT)
        pages[who] = page
    yellow, orange, spectator = pages["yellow"], pages["orange"], pages["spectator"]
    # A spectator has no phrases to send, and the server refuses one without a seat.
    expect(spectator.get_by_test_id("quick")).to_have_count(0)
    status, answer = api.request(
        "POST",
        f"/api/v1/games/{game}/messages",
        {"phrase": "PHRASE_GOOD_GAME", "request_id": "spectator-1"},
    )
    assert (status, answer["error"]["reason"]) == (401, "TOKEN_MISSING")
    status, answer = api.request(
        "POST",
        f"/api/v1/games/{game}/messages",
        {"phrase": 42, "request_id": "unknown-1"},
        tokens["COLOUR_YELLOW"],
    )
    assert (status, answer["error"]["reason"]) == (400, "UNKNOWN_PHRASE")

    expect(yellow.locator("body[data-myturn='1']")).to_have_count(1, timeout=WAIT)
    before = int(state(yellow)["sequence"])
    yellow.get_by_test_id("phrase-good_luck").click()
    # Each reader reads it in their own language, in the log and by the sender's name.
    en = text("en", "phrase.good_luck")
    ja = text("ja", "phrase.good_luck")
    he = text("he", "phrase.good_luck")
    expect(orange.get_by_test_id("toast")).to_contain_text(ja, timeout=WAIT)
    shot(orange, "quick-ja-phone")
    expect(orange.get_by_test_id("log")).to_contain_text(ja, timeout=WAIT)
    expect(orange.locator("[data-testid=bubble][data-colour=yellow]")).to_have_text(ja)
    expect(spectator.get_by_test_id("log")).to_contain_text(he, timeout=WAIT)
    expect(spectator.locator("[data-testid=bubble][data-colour=yellow]")).to_have_text(he)
    expect(yellow.get_by_test_id("log")).to_contain_text(
        text("en", "log.message_sent", player=text("en", "player.yellow"), phrase=en), timeout=WAIT
    )
    shot(spectator, "quick-he-desktop")
    shot(yellow, "quick-en-desktop")

    # The message changed nothing in the game: Yellow still decides, and is not stale.
    expect(yellow.locator(f"body[data-sequence='{before + 1}'][data-myturn='1']")).to_have_count(
        1, timeout=WAIT
    )
    yellow.get_by_test_id("target").first.click()
    yellow.get_by_test_id("confirm").click()
    expect(yellow.locator(f"body[data-sequence='{before + 2}']")).to_have_count(1, timeout=WAIT)
    expect(yellow.get_by_test_id("error")).to_be_hidden()

    # Too many at once: the seat's allowance runs out with its reason code, and the page says so.
    refused = None
    for i in range(12):
        status, answer = api.request(
            "POST",
            f"/api/v1/games/{game}/messages",
            {"phrase": "PHRASE_THINKING", "request_id": f"burst-{i}"},
            tokens["COLOUR_ORANGE"],
        )
        if status != 200:
            refused = (status, answer["error"]["reason"])
            break
    assert refused == (429, "RATE_LIMITED")
    for _ in range(12):
        orange.get_by_test_id("phrase-oops").click()
        if orange.get_by_test_id("error").is_visible():
            break
        orange.wait_for_timeout(100)
    expect(orange.get_by_test_id("error")).to_have_text(text("ja", "quick.too_fast"))
    assert errors == []
