"""A static evaluation of a position for one seat: points now plus a position term.

Points (R13) are what counts at the end. While the stack still holds many
tiles, the position matters too: ships on an island are what expansions grow
from (R5.2 places up to one per ship already there), presence spread over
several ships is harder to lose when a beach empties, and a royal island can
never be lost. The position term shrinks as the stack runs out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine import STACK_TILES, Game

_STACK = len(STACK_TILES)


@dataclass(frozen=True)
class Weights:
    """Weights of the position term (points weigh 1)."""

    ship: float = 0.12  #: per ship on a beach, up to the island's beaches
    depth: float = 0.35  #: per point of an island held by 2 or more ships
    royal: float = 0.6  #: per point of a royal island
    supply: float = 0.02  #: per ship in supply
    rival: float = 0.7  #: how much the best rival counts against (the rest: their mean)
    win: float = 6.0  #: bonus for first place once the game is over


#: Where the weights are kept as data (tuned on self-play outcomes).
WEIGHTS_FILE = Path(__file__).with_name("weights.json")


def load_weights(name: str, path: Path = WEIGHTS_FILE) -> Weights:
    """The set of weights called ``name`` in ``path`` (``default`` or ``expert``)."""
    sets = json.loads(path.read_text(encoding="utf-8"))
    return Weights(**{key: float(value) for key, value in sets[name].items()})


DEFAULT = load_weights("default")
EXPERT = load_weights("expert")


def standing(game: Game, weights: Weights = DEFAULT) -> dict[str, float]:
    """Points plus the position term, for every seat."""
    ships = game._ships
    tiles = game._tiles
    royal = game._royal
    phase = (game.stack_counts["island"] + game.stack_counts["sea"]) / _STACK
    value = dict.fromkeys(game.seats, 0.0)
    for at, beaches in ships.items():
        points = tiles[at][0].points
        count: dict[str, int] = {}
        for beach in beaches:
            for colour in beach:
                count[colour] = count.get(colour, 0) + 1
        owner = royal.get(at)
        if owner is not None:
            value[owner] += points * (1.0 + weights.royal * phase)
        n_beaches = len(beaches)
        for colour, n in count.items():
            if colour == owner:
                continue
            value[colour] += points
            value[colour] += phase * weights.ship * min(n, n_beaches)
            if n >= 2:
                value[colour] += phase * weights.depth * points
    for colour in game.seats:
        value[colour] += phase * weights.supply * game.supply(colour)
    return value


def evaluate(game: Game, me: str, weights: Weights = DEFAULT) -> float:
    """How good ``game`` is for ``me``: own standing against the rivals'."""
    if game.over and game.result is not None:
        points = game.result["points"]
        rank = game.result["rank"]
        rivals = [float(points[c]) for c in game.seats if c != me]
        bonus = weights.win if rank[me] == 1 else 0.0
        return (
            points[me]
            - weights.rival * max(rivals)
            - (1 - weights.rival) * sum(rivals) / len(rivals)
            + bonus
        )
    value = standing(game, weights)
    rivals = [value[c] for c in game.seats if c != me]
    return value[me] - weights.rival * max(rivals) - (1 - weights.rival) * sum(rivals) / len(rivals)
