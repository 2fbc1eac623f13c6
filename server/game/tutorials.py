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
    # 438, the best of ``benchmarks/tutorial_stack.py --seeds 600 --games 8``,
    # shortened: its islands after the eighth tile come before its sea tiles, so
    # the game ends when the last island is placed (R12), the nineteenth tile
    # (``--seed 438 --games 24 --islands-after 8``: 61 decisions on average
    # instead of 95). A learner who follows the coach meets every kind of decision
    # by about its tenth (expansion 3, emigration 6.5, landing 8.6, royal island
    # 10, New settlement's placing 8.2 and ship 9.5), a turn with no ship on a
    # beach later (26).
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
            "rarotonga",
            "tuvalu",
            "nauru",
            "tokelau",
            "tahiti",
            "rapa-nui",
            "muroroa",
            "mangareva",
            "samoa",
            "tubuai",
            "hawaii",
            "sea-08",
            "sea-16",
            "sea-13",
            "sea-07",
            "sea-04",
            "sea-11",
            "sea-05",
            "sea-02",
            "sea-01",
            "sea-10",
            "sea-12",
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
