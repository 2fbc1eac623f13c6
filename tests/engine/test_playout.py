"""Random playouts over 2-6 seats with invariants after every step."""

from __future__ import annotations

import pytest

from engine import Game, canonical
from engine.playout import SplitMix64, random_game, shuffled_stack
from engine.tiles import COLOURS

from .helpers import check_invariants

SEEDS = range(1, 31)


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_random_games_keep_every_invariant(seats: int) -> None:
    for seed in SEEDS:
        rng = SplitMix64(seed * 1000 + seats)
        game = Game.new(list(COLOURS[:seats]), rng.shuffled(shuffled_stack(seed)))
        trace = [canonical(game.snapshot())]
        check_invariants(game)
        while not game.over:
            options = game.options()
            action = options[rng.below(len(options))]
            game.apply(action, player=game.decision.player if game.decision else None)
            check_invariants(game)
            trace.append(canonical(game.snapshot()))
        assert game.result is not None
        assert sorted(game.result["rank"].values())[0] == 1
        replayed = Game.new(list(game.seats), list(game.initial_stack))
        again = [canonical(replayed.snapshot())]
        for action in game.record()["actions"]:
            replayed.apply(action)
            again.append(canonical(replayed.snapshot()))
        assert again == trace, f"seed {seed}: the record replays to an identical trace"


@pytest.mark.parametrize(("seats", "seed"), [(2, 5), (4, 3), (6, 2)])
def test_every_offered_option_applies(seats: int, seed: int) -> None:
    rng = SplitMix64(seed)
    game = Game.new(list(COLOURS[:seats]), shuffled_stack(seed))
    while not game.over:
        options = game.options()
        for option in options:
            trial = game.copy()
            trial.apply(option)
            check_invariants(trial)
        game.apply(options[rng.below(len(options))])


def test_options_are_sorted_and_distinct_by_canonical_json() -> None:
    for seed in range(1, 6):
        rng = SplitMix64(seed)
        game = Game.new(list(COLOURS[:4]), shuffled_stack(seed))
        while not game.over:
            keys = [canonical(o) for o in game.options()]
            assert keys == sorted(keys)
            assert len(set(keys)) == len(keys)
            game.apply_option(rng.below(len(keys)))


def test_random_game_is_deterministic() -> None:
    first = random_game(4, 99)
    second = random_game(4, 99)
    assert first.record() == second.record()
    assert first.result == second.result
    assert random_game(4, 100).record() != first.record()


def test_splitmix_is_uniform_enough_and_shuffles_everything() -> None:
    rng = SplitMix64(7)
    counts = [0] * 6
    for _ in range(6000):
        counts[rng.below(6)] += 1
    assert all(900 < c < 1100 for c in counts)
    stack = shuffled_stack(7)
    assert sorted(stack) == sorted(shuffled_stack(8))
    assert stack != shuffled_stack(8)
    with pytest.raises(ValueError):
        rng.below(0)
