"""The "How to play" diagrams say what they show: the voyage's path from the named
beach ends at the named island, the landing keeps R8, and the captions in every
locale carry the names and numbers of the drawn boards."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from engine.tiles import TILES, neighbour, opposite
from tests.webclient.conftest import Running
from webclient import catalogs

DIAGRAMS: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "webclient" / "static" / "howto.json").read_text(
        encoding="utf-8"
    )
)
LOCALES = ["en", "fi", "he", "hu", "ja", "nl"]


def placed(diagram: dict[str, Any]) -> dict[tuple[int, int], tuple[str, int]]:
    """Hex -> (tile id, rotation) of a diagram's board."""
    return {(t["at"]["q"], t["at"]["r"]): (t["tile"], t["rot"]) for t in diagram["tiles"]}


def walk(diagram: dict[str, Any]) -> tuple[str | None, list[int]]:
    """R6 over the drawn tiles: the island the group reaches and the dangers it passes."""
    board = placed(diagram)
    voyage = diagram["voyage"]
    at = (voyage["beach"]["q"], voyage["beach"]["r"])
    tile, rot = board[at]
    beach = TILES[tile].beaches[voyage["beach"]["index"]]
    assert (voyage["dir"] - rot) % 6 in beach.jetties, "the voyage leaves by a jetty of its beach"
    heading: int = voyage["dir"]
    dangers: list[int] = []
    for _ in range(len(board)):
        ahead = neighbour(at, heading)
        if ahead not in board:
            return None, dangers
        tile, rot = board[ahead]
        if TILES[tile].is_island:
            return tile, dangers
        edge = (opposite(heading) - rot) % 6
        other, danger = TILES[tile].exits[edge]
        dangers.append(danger)
        at, heading = ahead, (other + rot) % 6
    return None, dangers


def test_every_tile_of_a_diagram_is_placed_as_a_drawn_tile_would_be() -> None:
    """R2: a tile reached from hex H through direction d has its edge 0 facing H."""
    board = placed(DIAGRAMS["voyage"])
    for (q, r), (_, rot) in board.items():
        if (q, r) == (0, 0):
            continue
        back = (rot + 0) % 6  # world direction of edge 0
        assert neighbour((q, r), back) in board, (q, r)


def test_the_voyage_path_from_the_named_beach_ends_at_the_named_island() -> None:
    diagram = DIAGRAMS["voyage"]
    reached, dangers = walk(diagram)
    assert reached == diagram["voyage"]["island"]
    beach = diagram["voyage"]["beach"]
    group = next(b["colours"] for b in diagram["beaches"] if b["beach"] == beach)
    full = TILES[placed(diagram)[(beach["q"], beach["r"])][0]].beaches[beach["index"]].moorings
    assert len(group) == full, "the beach that sails is full"
    colours = len(set(group))
    assert dangers == [diagram["voyage"]["danger"]]
    assert all(d <= colours for d in dangers), "the group gets across"


def test_the_landing_diagram_keeps_r8() -> None:
    diagram = DIAGRAMS["landing"]
    island = TILES[diagram["tiles"][0]["tile"]]
    before = {b["beach"]["index"]: b["colours"] for b in diagram["before"]}
    after = {b["beach"]["index"]: b["colours"] for b in diagram["beaches"]}
    free = [m.moorings - len(before.get(i, [])) for i, m in enumerate(island.beaches)]
    group = diagram["group"]
    landed = {i: after.get(i, [])[len(before.get(i, [])) :] for i in range(len(free))}
    for i, colours in before.items():
        assert after[i][: len(colours)] == colours, "ships already there stay"
    total = sum(len(c) for c in landed.values())
    open_beaches = [i for i, f in enumerate(free) if f > 0]
    assert total == min(len(group), sum(free))
    assert all(len(landed[i]) <= free[i] for i in landed)
    assert len([i for i in landed if landed[i]]) == min(total, len(open_beaches))
    arrived = Counter(c for colours in landed.values() for c in colours)
    assert arrived + Counter(diagram["home"]) == Counter(group)
    assert diagram["home"] == ["COLOUR_GREEN"], "the caption names the green ship"
    assert all(len(after[i]) == m.moorings for i, m in enumerate(island.beaches)), (
        "the caption says every beach is full"
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_the_captions_name_what_the_boards_show(
    browser: Browser, gateway: Running, locale: str
) -> None:
    context = browser.new_context(
        locale=locale,
        extra_http_headers={"Accept-Language": locale},
        viewport={"width": 390, "height": 844},
    )
    page = context.new_page()
    try:
        page.goto(f"{gateway.url}/how-to-play")
        page.wait_for_function("document.body.dataset.ready === '1'")
        messages = catalogs.export(locale)["messages"]
        voyage = DIAGRAMS["voyage"]["voyage"]
        nauru = messages[f"tile.{voyage['island']}"]
        route = page.locator("[data-testid=diagram-voyage] [data-testid=route]")
        assert route.get_attribute("data-reaches") == voyage["island"]
        caption = page.get_by_test_id("caption-voyage").inner_text()
        assert nauru in caption
        assert str(voyage["danger"]) in caption
        assert "{" not in caption
        landing = page.get_by_test_id("caption-landing").inner_text()
        assert messages[f"tile.{DIAGRAMS['landing']['tiles'][0]['tile']}"] in landing
        assert page.get_by_test_id("caption-start").inner_text() == messages["howto.diagram_start"]
        # The drawings are large enough to read: a tile is at least 150 px across.
        tile = page.locator("[data-testid=diagram-voyage] [data-testid=tile]").first.bounding_box()
        assert tile is not None and tile["width"] >= 150
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, "nothing overflows the phone's width"
    finally:
        context.close()
