"""Shared helpers for the engine tests: vectors, stacks and invariants."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import STACK_TILES, TILES, Game
from engine.cycles import QuietGraph
from engine.tiles import DIRECTIONS

VECTORS = Path(__file__).parent / "vectors"


def vectors() -> list[Path]:
    """Every conformance vector kept in the project."""
    return sorted(VECTORS.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def stack(*top: str) -> list[str]:
    """A stack with ``top`` first, then every other tile in catalogue order."""
    return [*top, *(t for t in STACK_TILES if t not in top)]


def seas_first() -> list[str]:
    """All 16 sea tiles on top of the stack, then the islands."""
    seas = [t for t in STACK_TILES if TILES[t].is_sea]
    return stack(*seas)


def play(seats: Sequence[str], tiles: list[str], actions: Sequence[dict[str, Any]]) -> Game:
    """A game from the given stack, with ``actions`` applied (checked)."""
    game = Game.new(list(seats), tiles)
    for action in actions:
        game.apply(action)
    return game


def setup(*beaches: int) -> list[dict[str, Any]]:
    """Set-up actions placing ships on the given Tonga beaches, in seat order."""
    return [{"act": "setup", "beach": [0, 0, b]} for b in beaches]


def ships_by_colour(game: Game) -> dict[str, int]:
    """Ships of each colour anywhere: supply, beaches, royal masks, at sea, travelling."""
    snap = game.snapshot()
    count = {c: game.supply(c) for c in game.seats}
    for *_, colours in snap["beaches"]:
        for colour in colours:
            count[colour] += 1
    for *_, owner in snap["royal"]:
        count[owner] += 1
    for colour in snap["at_sea"]:
        count[colour] += 1
    decision = snap["decision"]
    if decision and decision["kind"] == "land":
        for colour in decision["group"]:
            count[colour] += 1
    return count


def check_invariants(game: Game) -> None:
    """Ships conserved, no beach over capacity, no full beach when a turn starts."""
    assert ships_by_colour(game) == dict.fromkeys(game.seats, 15)
    snap = game.snapshot()
    tiles = {(q, r): tile for q, r, tile, _ in snap["tiles"]}
    full = False
    full_beaches = set()
    for q, r, b, colours in snap["beaches"]:
        moorings = TILES[tiles[(q, r)]].beaches[b].moorings
        assert len(colours) <= moorings, f"beach {[q, r, b]} over capacity"
        full = full or len(colours) == moorings
        if len(colours) == moorings:
            full_beaches.add(((q, r), b))
    # White-box: what the engine keeps up to date instead of recounting.
    assert game._full == full_beaches
    # Open ends (R2) lie on the board's rim: each faces an empty hex, none twice.
    ends = game._open_ends()
    assert ends and len(set(ends)) == len(ends)
    # The open ends kept up to date tile by tile are those a fresh look finds.
    if game._rim is not None:
        assert tuple(sorted(game._rim)) == game._empty_sides(open_only=True)
    assert game._ends is None or game._ends == game._empty_sides(open_only=True)
    for (q, r), d in ends:
        assert (q, r) in tiles
        dq, dr = DIRECTIONS[d]
        assert (q + dq, r + dr) not in tiles
    if game._position is not None:
        assert game._position == game.quiet_graph().position(game._ships)
    if full_beaches:
        # Voyages told quiet or loud by walking the tiles, as the R11 graph tells them.
        fresh_graph = QuietGraph(game._tiles, game._royal)
        position = fresh_graph.position(game._ships)
        for at, b in full_beaches:
            for d in game._jetty_dirs(at, b):
                quiet = fresh_graph.is_quiet(position, at, b, d)
                assert game._lands_quietly(at, b, d) == quiet
                # R11.1 told with and without the graph alike (on a copy: telling it
                # may build the graph, which would change the path this game takes).
                allowed = fresh_graph.allowed_emigration(position, at, b, d)
                assert game.copy()._allowed_emigration(at, b, d) == allowed
        # The quick test without the graph answers "can end" only when the graph does.
        if game._some_voyage_ends():
            assert fresh_graph.can_end(position)
    if game._graph is not None:
        # The graph kept up to date tile by tile is the one built afresh.
        fresh = QuietGraph(game._tiles, game._royal)
        kept = game._graph
        assert kept.islands == fresh.islands
        assert kept._tiles == fresh._tiles and kept._royal == fresh._royal
        assert (kept._first, kept._moorings, kept._jetties) == (
            fresh._first,
            fresh._moorings,
            fresh._jetties,
        )
        assert (kept._island_of, kept._capacity) == (fresh._island_of, fresh._capacity)
        for k, found in enumerate(kept._routes):
            if found is not None:
                assert found == fresh.routes(k)
                assert kept._always_loud[k] == fresh._always_loud[k]
    decision = snap["decision"]
    if decision is not None:
        assert decision["options"], "a decision always has options"
        if decision["kind"] == "turn":
            assert not full, "no beach is full when a turn starts"
