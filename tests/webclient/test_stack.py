"""The stack's counts stay on the board, and say how the game ends once few tiles
are left (a player is never surprised by the last tile)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.webclient.conftest import Api, Running
from tests.webclient.pages import game_page
from tests.webclient.test_browser import shot
from tests.webclient.test_decide import MINE, play_until, size
from webclient import i18n


def _left(s: Any) -> int:
    stack = s["view"].get("stack", {})
    return min(int(stack.get("island", 0)), int(stack.get("sea", 0)))


@pytest.mark.parametrize(
    ("locale", "viewport", "few"),
    [("en", "desktop", False), ("he", "desktop", True), ("ja", "phone", True)],
)
def test_the_stack_is_counted_on_the_board_and_its_end_announced(
    browser: Browser, gateway: Running, api: Api, locale: str, viewport: str, *, few: bool
) -> None:
    errors: list[str] = []
    game, tokens = api.seated_game(["yellow", "red"])

    def wanted(s: Any) -> bool:
        return bool(s["view"].get("decision")) and (_left(s) <= 2) is few

    snapshot = play_until(api, game, tokens, wanted, seed=5)
    me = snapshot["view"]["decision"]["player"]
    with game_page(
        browser,
        gateway.url,
        game,
        (me, tokens[me]),
        locale=locale,
        viewport=size(viewport),
        errors=errors,
    ) as page:
        page.wait_for_function(MINE)
        stack = snapshot["view"]["stack"]
        chip = page.get_by_test_id("stack-chip")
        counts = i18n.translate(
            locale,
            "deck.counts",
            island_tiles=stack.get("island", 0),
            sea_tiles=stack.get("sea", 0),
        )
        text = chip.inner_text()
        # Numbers come isolated (U+2068, U+2069) in the page's own formatting.
        plain = text.replace("\u2068", "").replace("\u2069", "")
        assert plain.splitlines()[0] == counts.replace("\u2068", "").replace("\u2069", ""), text
        ending = page.get_by_test_id("stack-ending")
        assert ending.count() == (1 if few else 0)
        if few:
            assert ending.inner_text() == i18n.translate(locale, "stack.ending")
        if few and viewport == "phone":
            # One line on the board; the rule opens under it when tapped.
            assert not ending.is_visible()
            height = chip.bounding_box()
            page.get_by_test_id("stack-chip").click()
            assert ending.is_visible() and chip.bounding_box() == height
        # Over the board, on its left (the board is a map), clear of the zoom buttons.
        box, board, zoom = (
            page.get_by_test_id(t).bounding_box() for t in ("stack-chip", "board", "zoom-in")
        )
        assert box is not None and board is not None and zoom is not None
        assert box["x"] < board["x"] + board["width"] / 2 or viewport == "phone"
        apart_y = box["y"] >= zoom["y"] + zoom["height"] or zoom["y"] >= box["y"] + box["height"]
        apart_x = box["x"] >= zoom["x"] + zoom["width"] or zoom["x"] >= box["x"] + box["width"]
        assert apart_x or apart_y
        shot(page, f"stack-{locale}-{viewport}")
    assert errors == []
