"""Targets on the board answer where a player points at them: the whole
highlighted beach (its moorings and the ships on it), with a mouse or a finger."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.webclient.conftest import Api, Running
from tests.webclient.pages import DESKTOP, PHONE, game_page, on_lobby
from tests.webclient.test_decide import TILES, play_until

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


LABELS = """
() => [...document.querySelectorAll('[data-testid=beach-label]')].map((g) => ({
  beach: g.dataset.of,
  number: g.querySelector('[data-testid=beach-number]').textContent,
  fill: g.querySelector('[data-testid=beach-fill]').textContent,
}))
"""


def test_each_beach_to_pick_says_its_number_and_how_full_it_is(
    browser: Browser, gateway: Running, api: Api
) -> None:
    """At set-up, Tonga's six beaches to pick are numbered 1 to 6, each with its ships
    and its moorings ("ships/moorings"), as the server's board has them."""
    game, tokens = api.seated_game(["yellow", "red"])
    # Red's set-up ship first: one of Tonga's beaches holds a ship.
    api.play(game, tokens, steps=1, seed=4)
    snapshot = api.ok("GET", f"/api/v1/games/{game}")["snapshot"]
    me = snapshot["view"]["decision"]["player"]
    with game_page(browser, gateway.url, game, (me, tokens[me]), viewport=DESKTOP) as page:
        page.wait_for_function(MINE)
        labels = page.evaluate(LABELS)
    ships = {
        f"0,0,{b['beach'].get('index', 0)}": len(b.get("colours", []))
        for b in snapshot["view"].get("beaches", [])
    }
    tonga = next(t for t in TILES["islands"] if t["id"] == "tonga")
    want = []
    for i, beach in enumerate(tonga["beaches"]):
        fill = f"{ships.get(f'0,0,{i}', 0)}/{beach['moorings']}"
        want.append({"beach": f"0,0,{i}", "number": str(i + 1), "fill": fill})
    assert sorted(labels, key=lambda x: x["beach"]) == want, labels
    assert sum(ships.values()) == 1


LANDING_FILL = """
async () => {
  const { Board } = await import("/static/js/board.js");
  const { Picker } = await import("/static/js/choices.js");
  const decision = {
    kind: "DECISION_KIND_LAND", player: "COLOUR_YELLOW", island: {}, group: ["COLOUR_YELLOW"],
    options: [0, 1].map((beach) => ({ land: { ships: [{ beach, colour: "COLOUR_YELLOW" }] } })),
  };
  const view = {
    tiles: [{ at: {}, tile: "tonga" }], decision,
    beaches: [{ beach: { index: 0 }, colours: ["COLOUR_RED"] }],
  };
  const holder = document.createElement("div");
  document.body.append(holder);
  const board = new Board(holder, () => {});
  const fills = (ghosts) => {
    board.render(view, new Picker(decision), { decisionKey: 1, ghosts });
    return Object.fromEntries([...holder.querySelectorAll("[data-testid=beach-label]")]
      .map((g) => [g.dataset.of, g.querySelector("[data-testid=beach-fill]").textContent]));
  };
  const before = fills([]);
  const after = fills([{ beach: "0,0,0", colour: "yellow", slot: 0 }]);
  holder.remove();
  return { before, after };
}
"""


def test_a_beachs_fill_counts_the_ships_being_put_there(browser: Browser, gateway: Running) -> None:
    """Landing on Tonga: beach 1 holds a red ship (1/3); with a yellow ship previewed
    there it says 2/3, beach 2 still 0/3."""
    out = on_lobby(browser, gateway.url, LANDING_FILL)
    assert out["before"] == {"0,0,0": "1/3", "0,0,1": "0/3"}, out
    assert out["after"] == {"0,0,0": "2/3", "0,0,1": "0/3"}, out


RING_POINTS = """
() => [...document.querySelectorAll('.target-island')].map((node) => {
  const ring = node.querySelector('.target-ring');
  const [cx, cy, r] = ['cx', 'cy', 'r'].map((a) => Number(ring.getAttribute(a)));
  const matrix = ring.getScreenCTM();
  // On the ring, and on the land between the ring and the name (above and to the sides;
  // below stands the crown).
  return [[0, 1], [1, 1], [1.5, 1], [0, 0.6], [1, 0.6], [1.5, 0.6]].map(([turn, at]) => {
    const [x, y] = [cx + at * r * Math.cos(turn * Math.PI), cy + at * r * Math.sin(turn * Math.PI)];
    const p = new DOMPoint(x, y).matrixTransform(matrix);
    const hit = document.elementFromPoint(p.x, p.y)?.closest('.target');
    return { key: node.dataset.key, picks: hit?.dataset.key === node.dataset.key };
  });
}).flat()
"""


def test_an_islands_whole_ring_answers(browser: Browser, gateway: Running, api: Api) -> None:
    """At a turn where an island can be expanded on or made royal, pointing at its
    highlighted ring, or at the land inside it, picks the island (not only the disc at
    its centre, which shrinks beside the crown)."""
    game, tokens = api.seated_game(["yellow", "red"])

    def turn(s: Any) -> bool:
        decision = s["view"].get("decision")
        # An island that can be expanded on or made royal: its crown stands inside its ring.
        options = decision["options"] if decision else []
        royal = {json.dumps(o["royal"]["island"], sort_keys=True) for o in options if "royal" in o}
        expand = {
            json.dumps(o["expand"]["island"], sort_keys=True) for o in options if "expand" in o
        }
        return bool(royal & expand)

    snapshot = play_until(api, game, tokens, turn, seed=6)
    me = snapshot["view"]["decision"]["player"]
    with game_page(browser, gateway.url, game, (me, tokens[me]), viewport=DESKTOP) as page:
        page.wait_for_function(MINE)
        points = page.evaluate(RING_POINTS)
    assert points and all(p["picks"] for p in points), points
