"""Game.apply_random: a uniform choice among the options without listing them."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from engine import ActionError, Game, Reason, canonical
from engine.playout import SplitMix64, random_game, shuffled_stack
from engine.tiles import COLOURS

from .helpers import VECTORS, check_invariants, load


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_apply_random_applies_only_offered_options(seats: int) -> None:
    for seed in range(1, 13):
        rng = SplitMix64(seed * 7 + seats)
        game = Game.new(list(COLOURS[:seats]), shuffled_stack(seed))
        while not game.over:
            offered = {canonical(o) for o in game.options()}
            game.apply_random(rng.below)
            assert canonical(game.actions[-1]) in offered
            check_invariants(game)
        replayed = Game.from_record(game.record())  # every action checked again
        assert replayed.snapshot() == game.snapshot()


def test_random_game_applies_only_offered_options() -> None:
    for seed in range(1, 6):
        game = random_game(4, seed)
        assert game.over
        assert Game.from_record(game.record()).result == game.result


def _decision_at(vector: str, step: int) -> Game:
    record = load(VECTORS / f"{vector}.json")["record"]
    return Game.from_record({**record, "actions": record["actions"][:step]})


@pytest.mark.parametrize(
    ("vector", "kind"),
    [("r11-emigration-restriction", "emigrate"), ("r11-landing-restriction", "land")],
)
def test_apply_random_keeps_to_r11_restrictions(vector: str, kind: str) -> None:
    game = _decision_at(vector, 20)
    assert game.decision_kind == kind
    (allowed,) = game.options()  # R11.1 leaves one of two candidates
    for seed in range(200):
        trial = game.copy()
        trial.apply_random(SplitMix64(seed).below)
        assert trial.actions[-1] == allowed


def _decisions_with_many_options() -> list[Game]:
    """One pending decision of each kind with at least four options, from random games."""
    found: dict[str, Game] = {}
    rng = SplitMix64(5)
    for seed in range(1, 40):
        game = Game.new(list(COLOURS[:4]), shuffled_stack(seed))
        while not game.over and len(found) < 4:
            kind = game.decision_kind
            assert kind is not None
            if kind not in found and kind != "setup" and len(game.options()) >= 4:
                found[kind] = game.copy()
            game.apply_random(rng.below)
        if len(found) == 4:
            break
    return list(found.values())


def test_apply_random_draws_every_option_equally_often() -> None:
    decisions = _decisions_with_many_options()
    assert {g.decision_kind for g in decisions} >= {"turn", "land", "place"}
    rng = SplitMix64(11)
    for game in decisions:
        options = [canonical(o) for o in game.options()]
        per_option = 150
        counts: Counter[str] = Counter()
        for _ in range(per_option * len(options)):
            trial = game.copy()
            trial.apply_random(rng.below)
            counts[canonical(trial.actions[-1])] += 1
        assert set(counts) == set(options)
        chi2 = sum((counts[o] - per_option) ** 2 / per_option for o in options)
        df = len(options) - 1
        assert chi2 < df + 5 * math.sqrt(2 * df), (game.decision_kind, chi2, df)


def test_apply_random_on_a_finished_game_is_refused() -> None:
    game = random_game(3, 8)
    with pytest.raises(ActionError) as raised:
        game.apply_random(SplitMix64(1).below)
    assert raised.value.reason == Reason.GAME_OVER
