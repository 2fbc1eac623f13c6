"""R11's search against a plain exhaustive one, on positions met in random games."""

from __future__ import annotations

from engine import Game
from engine.cycles import _ENDS, Position, QuietGraph
from engine.playout import SplitMix64, shuffled_stack
from engine.tiles import COLOURS

from .helpers import load, vectors


def exhaustive_can_end(graph: QuietGraph, position: Position) -> bool:
    """Whether a position that ends by itself is reachable: every position visited, no
    shortcut, no memo."""
    seen = {position}
    todo = [(position, graph._full(position))]
    while todo:
        p, full = todo.pop()
        moves = graph._moves(p, full)
        if moves is None:
            return True
        for step, step_full in graph._steps(p, full, moves):
            if step is _ENDS:
                return True
            if step not in seen:
                seen.add(step)
                todo.append((step, step_full))
    return False


def _chain_reaction(game: Game) -> list[tuple[Game, Position]]:
    if game.decision_kind not in ("emigrate", "land"):
        return []
    return [(game.copy(), game.quiet_graph().position(game._ships))]


def positions_in_chain_reactions(games: int) -> list[tuple[Game, Position]]:
    """Boards and positions met during chain reactions: in every vector (some with
    endless chain reactions) and in random 4-seat games."""
    found: list[tuple[Game, Position]] = []
    for path in vectors():
        record = load(path)["record"]
        game = Game.new(record["seats"], record["stack"])
        for action in record["actions"]:
            found += _chain_reaction(game)
            game.apply(action)
    rng = SplitMix64(3)
    for seed in range(1, games + 1):
        game = Game.new(list(COLOURS[:4]), shuffled_stack(seed))
        while not game.over:
            found += _chain_reaction(game)
            game.apply_random(rng.below)
    return found


def test_can_end_agrees_with_an_exhaustive_search() -> None:
    checked = 0
    ends = 0
    for game, position in positions_in_chain_reactions(25):
        fresh = QuietGraph(game._tiles, game._royal)
        full = fresh._full(position)
        moves = fresh._moves(position, full) or []
        for step, _ in fresh._steps(position, full, moves):
            if step is _ENDS:
                continue
            expected = exhaustive_can_end(fresh, step)
            assert QuietGraph(game._tiles, game._royal).can_end(step) is expected
            checked += 1
            ends += expected
    assert checked > 100 and 0 < ends < checked


def test_can_end_agrees_with_an_exhaustive_search_on_one_graph() -> None:
    # One graph answers every step of a position in turn, as it does for the
    # arrangements of a landing: later answers follow the paths earlier searches
    # found (QuietGraph._follows) where they can, and must not change.
    checked = 0
    followed = 0
    for game, position in positions_in_chain_reactions(25):
        fresh = QuietGraph(game._tiles, game._royal)
        graph = QuietGraph(game._tiles, game._royal)
        full = fresh._full(position)
        moves = fresh._moves(position, full) or []
        for step, step_full in fresh._steps(position, full, moves):
            if step is _ENDS:
                continue
            expected = exhaustive_can_end(fresh, step)
            step_moves = graph._moves(step, step_full)
            proof = graph._proof
            if step_moves is not None and step not in graph._can_end and proof is not None:
                if graph._follows(step, list(step_full), step_moves, proof):
                    assert expected
                    followed += 1
                graph._can_end.clear()
            assert graph.can_end(step) is expected
            checked += 1
    assert checked > 100 and followed > 0


def test_allowed_emigrations_agree_with_an_exhaustive_search() -> None:
    checked = 0
    refused = 0
    for game, position in positions_in_chain_reactions(25):
        if game.decision_kind != "emigrate":
            continue
        fresh = QuietGraph(game._tiles, game._royal)
        full = fresh._full(position)
        for at, b in game._full_beaches():
            k = fresh.beach(at, b)
            for d in game._jetty_dirs(at, b):
                dest = fresh._quiet_dest(position, k, fresh._jetty_route(at, b, d))
                expected = dest < 0 or any(
                    step is _ENDS or exhaustive_can_end(fresh, step)
                    for step, _ in fresh._steps(position, full, [(k, dest)])
                )
                graph = QuietGraph(game._tiles, game._royal)
                assert graph.allowed_emigration(position, at, b, d) is expected
                checked += 1
                refused += not expected
    assert checked > 100 and refused > 0
