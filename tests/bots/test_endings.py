"""Games of bots end: no level goes round in circles without drawing a tile."""

from __future__ import annotations

import pytest

from bots import PublicRecord, make_bot
from bots.players import PATIENCE, impatient, turn_bound, turns_taken
from engine import COLOURS, Game
from engine.playout import SplitMix64, shuffled_stack


def _play(bots: list[str], seed: int, rng: SplitMix64 | None = None) -> tuple[Game, int]:
    """A game of ``bots`` (levels, in seat order) until it ends or goes past twice its bound.

    Returns the game and the most turns in a row that began without a tile drawn.
    """
    seats = len(bots)
    game = Game.new(list(COLOURS[:seats]), shuffled_stack(seed))
    players = [
        make_bot(level, iterations=2) if level in ("strong", "expert") else make_bot(level)
        for level in bots
    ]
    rngs = [rng] * seats if rng is not None else [SplitMix64(seed + i) for i in range(seats)]
    quiet = longest = 0
    tiles = len(game.stack_remaining)
    while not game.over and turns_taken(game.actions) <= 2 * turn_bound(seats):
        seat = game.seats.index(game.active_player)
        record = PublicRecord.from_game(game, game.active_player)
        game.apply(players[seat].choose(record, rngs[seat]), player=game.active_player)
        if len(game.stack_remaining) != tiles:
            tiles, quiet = len(game.stack_remaining), 0
        elif game.decision_kind == "turn":
            quiet += 1
            longest = max(longest, quiet)
    return game, longest


def test_the_greedy_game_that_stalled_ends() -> None:
    """Three greedy bots once expanded, emigrated and landed round the same islands for ever."""
    seed = 224933333
    game, longest = _play(["greedy"] * 3, seed, SplitMix64(seed))
    assert game.over
    assert turns_taken(game.actions) <= turn_bound(3)
    assert longest <= PATIENCE * 3 + 1


@pytest.mark.parametrize(
    ("level", "games"), [("random", 12), ("greedy", 3), ("strong", 1), ("expert", 1)]
)
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_games_of_every_level_end_within_the_bound(level: str, games: int, seats: int) -> None:
    for g in range(games):
        game, longest = _play([level] * seats, 1000 * seats + g)
        assert game.over, (level, seats, g)
        assert turns_taken(game.actions) <= turn_bound(seats)
        assert longest <= PATIENCE * seats + 1


def test_an_impatient_bot_draws_a_tile() -> None:
    """After PATIENCE quiet rounds, every level's turn draws a tile (settling always does)."""
    seed = 224933333
    game = Game.new(["yellow", "orange", "red"], shuffled_stack(seed))
    rng = SplitMix64(seed)
    greedy = make_bot("greedy")
    while True:  # the old greedy bots' opening, up to a long spell without a draw
        record = PublicRecord.from_game(game, game.active_player)
        if impatient(record):
            break
        game.apply(greedy.choose(record, rng))
    for level in ("random", "greedy", "strong"):
        bot = make_bot(level, iterations=4) if level == "strong" else make_bot(level)
        trial = game.copy()
        tiles = len(trial.stack_remaining)
        player = trial.active_player
        while not trial.over and len(trial.stack_remaining) == tiles:
            assert trial.active_player == player, level
            record = PublicRecord.from_game(trial, player)
            trial.apply(bot.choose(record, SplitMix64(3)), player=player)
