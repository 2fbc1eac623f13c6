"""Tutorials: games on a fixed stack, to learn the game by playing it.

A real game's stack order is drawn from a secret seed and never leaves the
server while the game runs. A tutorial's is public by design (it is written
here): the same first game for everyone, chosen so that every kind of decision
comes up early (``benchmarks/tutorial_stack.py`` searched for it). A tutorial
game is marked by ``settings["tutorial"]`` and never listed with real games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import Game
from server.game.errors import invalid


@dataclass(frozen=True)
class Tutorial:
    """A tutorial's seats in seat order, its bot seats and its stack (top first)."""

    seats: tuple[str, ...]
    bots: Mapping[str, str]
    stack: tuple[str, ...] = field(repr=False)

    def settings(self, name: str, display_name: str) -> dict[str, Any]:
        """The stored settings of a new game of this tutorial."""
        return {
            "display_name": display_name,
            "auto_start": True,
            "bots": dict(self.bots),
            "tutorial": name,
        }


TUTORIALS: dict[str, Tutorial] = {
    # The learner (yellow) starts against a random bot (red). The stack of seed
    # 438, the best of ``benchmarks/tutorial_stack.py --seeds 600 --games 8``:
    # a learner who follows the coach meets every kind of decision by about its
    # eleventh (expansion 3, emigration 6, landing 8, royal island 10, New
    # settlement's placing 8 and ship 9, a turn with no ship on a beach 11).
    "first_game": Tutorial(
        seats=("yellow", "red"),
        bots={"red": "random"},
        stack=(
            "sea-14",
            "fiji",
            "tuamotu",
            "oahu",
            "sea-09",
            "hiva-oa",
            "sea-15",
            "sea-03",
            "sea-08",
            "rarotonga",
            "sea-16",
            "tuvalu",
            "sea-13",
            "sea-07",
            "sea-04",
            "sea-11",
            "nauru",
            "sea-05",
            "tokelau",
            "tahiti",
            "sea-02",
            "rapa-nui",
            "sea-01",
            "muroroa",
            "mangareva",
            "sea-10",
            "samoa",
            "sea-12",
            "tubuai",
            "hawaii",
            "sea-06",
        ),
    ),
}


def find(name: str) -> Tutorial:
    """The tutorial called ``name``; INVALID_REQUEST if there is none."""
    found = TUTORIALS.get(name)
    if found is None:
        raise invalid(f"no tutorial {name[:100]!r}", field="settings.tutorial")
    return found


def _check() -> None:
    """Every tutorial's seats, bots and stack make a game (checked once, at import)."""
    for name, tutorial in TUTORIALS.items():
        Game.new(list(tutorial.seats), list(tutorial.stack))
        if not set(tutorial.bots) < set(tutorial.seats):
            raise ValueError(f"tutorial {name}: bots must be some of its seats, not all")


_check()
