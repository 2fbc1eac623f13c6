"""The tile catalogue (R1) and the hex geometry (R2).

The catalogue is the bundled ``data/tiles.json``, loaded once and validated at
import: a broken data file fails loudly here, never in the middle of a game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

Hex = tuple[int, int]

#: World directions, clockwise from the bottom (R2): S, SW, NW, N, NE, SE.
DIRECTIONS: tuple[Hex, ...] = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0))

#: The six ship colours (R1), in the order the rules list them.
COLOURS: tuple[str, ...] = ("yellow", "orange", "red", "green", "blue", "purple")

SHIPS_PER_COLOUR = 15
START_ISLAND = "tonga"


def neighbour(at: Hex, direction: int) -> Hex:
    """The hex next to ``at`` in world direction ``direction`` (R2)."""
    dq, dr = DIRECTIONS[direction]
    return (at[0] + dq, at[1] + dr)


def opposite(direction: int) -> int:
    """The opposite world direction (R2)."""
    return (direction + 3) % 6


@dataclass(frozen=True, slots=True)
class Beach:
    """A beach (R1): its capacity and the tile edges its jetties face."""

    moorings: int
    jetties: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Tile:
    """One of the 32 tiles: an island (with beaches) or a sea tile (with paths)."""

    id: str
    name: str
    points: int
    beaches: tuple[Beach, ...]
    #: For sea tiles: ``exits[edge] = (other edge, danger)`` of the path at ``edge``.
    exits: tuple[tuple[int, int], ...]
    #: The capacity of each beach.
    moorings: tuple[int, ...] = field(init=False, repr=False, compare=False)
    #: Whether the tile is an island (it has beaches) or a sea tile.
    is_island: bool = field(init=False, repr=False, compare=False)
    is_sea: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Worked out once: the rules ask these of a tile at nearly every step.
        object.__setattr__(self, "moorings", tuple(b.moorings for b in self.beaches))
        object.__setattr__(self, "is_island", bool(self.beaches))
        object.__setattr__(self, "is_sea", not self.beaches)

    def faces(self, rot: int) -> frozenset[int]:
        """World directions that end a path or hold a jetty, placed at rotation ``rot`` (R2)."""
        if self.is_sea:
            return frozenset(range(6))
        return frozenset((j + rot) % 6 for b in self.beaches for j in b.jetties)

    @property
    def paths(self) -> tuple[tuple[int, int, int], ...]:
        """The foam paths of a sea tile as ``(edge, edge, danger)``, each once."""
        return tuple((e, o, d) for e, (o, d) in enumerate(self.exits) if e < o)


class TileDataError(ValueError):
    """The bundled tile catalogue does not describe the real game (R1)."""


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise TileDataError(message)


def _island(raw: dict[str, Any]) -> Tile:
    beaches = tuple(
        Beach(int(b["moorings"]), tuple(int(j) for j in b["jetties"])) for b in raw["beaches"]
    )
    tile = Tile(str(raw["id"]), str(raw["name"]), int(raw["points"]), beaches, ())
    _check(2 <= len(beaches) <= 6, f"{tile.id}: an island has 2 to 6 beaches")
    jetties = [j for b in beaches for j in b.jetties]
    _check(len(jetties) == len(set(jetties)), f"{tile.id}: two beaches share a jetty edge")
    for beach in beaches:
        _check(2 <= beach.moorings <= 5, f"{tile.id}: a beach has 2 to 5 moorings")
        _check(bool(beach.jetties), f"{tile.id}: a beach has at least one jetty")
        _check(all(0 <= j <= 5 for j in beach.jetties), f"{tile.id}: jetty edge out of range")
    return tile


def _sea(raw: dict[str, Any]) -> Tile:
    exits: list[tuple[int, int] | None] = [None] * 6
    for a, b, danger in raw["paths"]:
        _check(danger in (0, 2, 3, 4), f"{raw['id']}: danger must be 0, 2, 3 or 4")
        _check(a != b and exits[a] is None and exits[b] is None, f"{raw['id']}: bad path")
        exits[a] = (b, danger)
        exits[b] = (a, danger)
    _check(len(raw["paths"]) == 3, f"{raw['id']}: a sea tile has 3 paths")
    return Tile(str(raw["id"]), str(raw["id"]), 0, (), tuple(e for e in exits if e is not None))


def _load() -> dict[str, Tile]:
    raw = json.loads(resources.files(__package__).joinpath("data/tiles.json").read_text("utf-8"))
    islands = [_island(r) for r in raw["islands"]]
    seas = [_sea(r) for r in raw["seas"]]
    catalogue = {t.id: t for t in islands + seas}
    _check(len(catalogue) == 32 and len(islands) == 16, "there are 16 island and 16 sea tiles")
    tonga = catalogue.get(START_ISLAND)
    _check(tonga is not None, "the start island is missing")
    assert tonga is not None
    _check(
        tonga.points == 0
        and [b.moorings for b in tonga.beaches] == [3] * 6
        and sorted(j for b in tonga.beaches for j in b.jetties) == list(range(6)),
        "Tonga has 6 beaches of 3 moorings and a jetty on every edge",
    )
    values = sorted(t.points for t in islands if t.id != START_ISLAND)
    _check(values == [2] * 3 + [3] * 4 + [4] * 5 + [5] * 3, "island values are 3x2, 4x3, 5x4, 3x5")
    unnumbered = sum(1 for t in seas for _, _, d in t.paths if d == 0)
    _check(unnumbered == 12, "exactly 12 of the 48 sea paths have no danger number")
    return catalogue


#: Every tile by id, Tonga first, then the islands and the seas in catalogue order.
TILES: dict[str, Tile] = _load()
#: The 31 tiles that make up the stack.
STACK_TILES: tuple[str, ...] = tuple(t for t in TILES if t != START_ISLAND)
