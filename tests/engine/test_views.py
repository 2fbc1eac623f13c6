"""Views: what a seat or a spectator may see. Never the stack order."""

from __future__ import annotations

from engine import Game, canonical
from engine.playout import SplitMix64, shuffled_stack
from engine.tiles import COLOURS

from .helpers import check_invariants, stack


def test_views_do_not_depend_on_the_order_of_the_undrawn_tiles() -> None:
    first = stack()
    second = [*first[:1], *reversed(first[1:])]  # the same top tile, the rest reversed
    games = [Game.new(list(COLOURS[:3]), s) for s in (first, second)]
    rng = SplitMix64(4)
    for _ in range(6):  # set-up, then the first turn
        action = games[0].options()[rng.below(len(games[0].options()))]
        for game in games:
            game.apply(action)
    assert games[0].decision is not None and games[0].decision.kind == "turn"
    for viewer in (None, "yellow", "red"):
        views = [canonical(g.view(viewer)) for g in games]
        assert views[0] == views[1]
    assert games[0].record()["stack"] != games[1].record()["stack"]


def test_a_view_lists_the_tiles_left_sorted_and_counts_them() -> None:
    game = Game.new(["yellow", "red"], stack())
    view = game.view(None)
    assert view["stack_tiles"] == sorted(stack())
    assert view["stack"] == {"island": 15, "sea": 16}
    assert view["viewer"] is None and view["seats"] == ["yellow", "red"]
    assert view["decision"]["kind"] == "setup" and view["step"] == 0
    mine = game.view("red")
    assert mine["viewer"] == "red"
    assert "actions" not in mine and "initial_stack" not in mine


def test_events_are_data_with_a_kind() -> None:
    rng = SplitMix64(12)
    game = Game.new(list(COLOURS[:4]), rng.shuffled(stack()))
    seen: set[str] = set()
    while not game.over:
        for event in game.apply_option(rng.below(len(game.options()))):
            assert isinstance(event["kind"], str)
            canonical(event)  # plain JSON data
            seen.add(event["kind"])
    assert {
        "ships_placed",
        "emigrated",
        "tile_placed",
        "landed",
        "turn_started",
        "game_over",
    } <= seen


def test_a_copy_is_independent() -> None:
    game = Game.new(["yellow", "red"], stack())
    copy = game.copy()
    copy.apply_option(0)
    assert len(game.actions) == 0 and len(copy.actions) == 1
    assert canonical(game.snapshot()) != canonical(copy.snapshot())


def test_copies_played_to_the_end_leave_the_original_untouched() -> None:
    rng = SplitMix64(21)
    game = Game.new(list(COLOURS[:4]), shuffled_stack(21))
    while not game.over:
        before = canonical(game.view(None))  # the snapshot and royal islands founded
        copy = game.copy()
        while not copy.over:
            copy.apply_random(rng.below)
        assert canonical(game.view(None)) == before
        check_invariants(game)
        game.apply_random(rng.below)
    replayed = Game.from_record(game.record())
    assert canonical(replayed.snapshot()) == canonical(game.snapshot())
