"""Targets on the board answer where a player points at them: the whole
highlighted beach (its moorings and the ships on it), with a mouse or a finger."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.webclient.conftest import Api, Running
from tests.webclient.pages import DESKTOP, PHONE, game_page

MINE = "document.body.dataset.myturn === '1' && document.body.dataset.busy !== '1'"

#: Screen points along each highlighted beach (its arc's middle and ends), and
#: whether the element a pointer meets there belongs to that beach's target.
POINTS = """
() => [...document.querySelectorAll('.target-arc[data-key]')].map((arc) => {
  const length = arc.getTotalLength();
  const matrix = arc.getScreenCTM();
  return [0.1, 0.5, 0.9].map((at) => {
    const p = arc.getPointAtLength(length * at).matrixTransform(matrix);
    const hit = document.elementFromPoint(p.x, p.y)?.closest('.target');
    return { key: arc.dataset.key, x: p.x, y: p.y, picks: hit?.dataset.key === arc.dataset.key };
  });
}).flat()
"""


@pytest.mark.parametrize("touch", [False, True], ids=["mouse", "finger"])
def test_a_highlighted_beach_answers_anywhere_on_it(
    browser: Browser, gateway: Running, api: Api, touch: bool
) -> None:
    game, tokens = api.seated_game(["yellow", "red"])
    seat = ("COLOUR_YELLOW", tokens["COLOUR_YELLOW"])
    viewport = PHONE if touch else DESKTOP
    with game_page(browser, gateway.url, game, seat, viewport=viewport, touch=touch) as page:
        page.wait_for_function(MINE)
        points = page.evaluate(POINTS)
        # Every part of every highlighted beach (set-up: Tonga's six) is its target.
        assert len(points) == 18 and all(p["picks"] for p in points), points
        middle = points[1]
        if touch:
            page.touchscreen.tap(middle["x"], middle["y"])
        else:
            page.mouse.click(middle["x"], middle["y"])
        page.get_by_test_id("confirm").wait_for()
