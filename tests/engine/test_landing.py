"""R8's arrangements: the counting form the search uses agrees with the plain one."""

from __future__ import annotations

from itertools import combinations_with_replacement

import pytest

from engine import Game, cycles
from engine import game as game_module
from engine.cycles import LandingPlan, _shapes, landings, pack, unpack
from engine.landing import arrangements
from engine.playout import SplitMix64, shuffled_stack

COUNTS = [(1,), (2,), (1, 1), (3,), (2, 1), (1, 1, 1), (2, 2), (3, 1), (2, 1, 1), (4, 2, 1)]
COUNTS += [(3, 3, 2), (5, 2), (2, 2, 2, 1), (6, 3, 1)]


def _by_labels(counts: tuple[int, ...], free: tuple[int, ...]) -> list[tuple[tuple[int, ...], ...]]:
    labels = tuple(str(j) for j, n in enumerate(counts) for _ in range(n))
    return [
        tuple(tuple(share.count(str(j)) for j in range(len(counts))) for share in arrangement)
        for arrangement in arrangements(labels, free)
    ]


def _frees() -> list[tuple[int, ...]]:
    found = []
    for beaches in range(1, 6):
        for free in combinations_with_replacement((3, 2, 1), beaches):
            found.append(free)
    return found


def test_shapes_are_the_arrangements_of_the_colours_in_the_same_order() -> None:
    checked = 0
    for counts in COUNTS:
        for free in _frees():
            expected = _by_labels(counts, free)
            expected.sort(
                key=lambda a, free=free: sum(  # type: ignore[misc]
                    1 for share, f in zip(a, free, strict=True) if sum(share) == f
                )
            )
            assert _shapes(counts, free) == expected, (counts, free)
            checked += len(expected)
    assert checked > 1000


def test_a_landing_plan_numbers_every_arrangement_once() -> None:
    group = ("blue", "red", "red", "yellow", "yellow")
    for free in [(2, 0, 3), (1, 1, 1), (3, 2, 2, 1), (0, 0)]:
        plan = LandingPlan(pack(group), free)
        listed = [plan.arrangement(i) for i in range(len(plan))]
        assert tuple(listed) == landings(group, free) == plan.every_arrangement()
        as_colours = {tuple(unpack(share) for share in a) for a in listed}
        assert as_colours == set(arrangements(group, free))
        assert len(as_colours) == len(listed)


def test_the_lookup_caches_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cycles, "_CACHE_LIMIT", 50)
    cycles._ARRANGEMENTS.clear()
    cycles._SHAPES.clear()
    cycles._DEALT.clear()
    cycles._ISLANDS.clear()
    game_module._landing_options.cache_clear()  # or landings would skip the cache looked at
    rng = SplitMix64(2)
    seen: set[object] = set()
    for seed in range(1, 6):
        game = Game.new(["yellow", "red", "blue", "green"], shuffled_stack(seed))
        while not game.over:
            game.options()
            assert len(cycles._ARRANGEMENTS) <= 50 and len(cycles._SHAPES) <= 50
            assert len(cycles._DEALT) <= 50 and len(cycles._ISLANDS) <= 50
            seen.update(cycles._ARRANGEMENTS)
            game.apply_random(rng.below)
    assert len(seen) > 100  # more than the limit went through the cache
