"""Seeded random games: a small deterministic generator and a uniform random player.

The generator is SplitMix64, written out here so that a seed gives the same
game on every platform and Python version, and so that the engine never
touches a random source of its own: callers pass seeds, the engine passes
numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from .game import Game
from .tiles import COLOURS, STACK_TILES

_MASK = (1 << 64) - 1
#: The rejection limit of each small ``n`` for :meth:`SplitMix64.below`.
_LIMITS: dict[int, int] = {}


class SplitMix64:
    """A 64-bit generator with a 64-bit seed (Steele, Lea and Flood, 2014)."""

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next(self) -> int:
        """The next 64-bit number."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform number in ``range(n)`` (rejection sampling, no modulo bias)."""
        limit = _LIMITS.get(n)
        if limit is None:
            if n <= 0:
                raise ValueError("n must be positive")
            limit = (1 << 64) - (1 << 64) % n
            if n < 4096:
                _LIMITS[n] = limit
        while True:
            # next(), written out: this is called once per decision of a playout.
            z = self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            x = z ^ (z >> 31)
            if x < limit:
                return x % n

    def shuffled(self, items: Sequence[str]) -> list[str]:
        """A Fisher-Yates shuffle of ``items``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def shuffled_stack(seed: int) -> list[str]:
    """The 31 stack tiles in the order ``seed`` gives (R3.1)."""
    return SplitMix64(seed).shuffled(STACK_TILES)


def random_game(seats: int | Sequence[str], seed: int) -> Game:
    """A complete game with uniformly random choices: stack and actions from ``seed``."""
    colours = list(COLOURS[:seats]) if isinstance(seats, int) else list(seats)
    rng = SplitMix64(seed)
    game = Game.new(colours, rng.shuffled(STACK_TILES))
    while not game.over:
        game.apply_random(rng.below)
    return game
