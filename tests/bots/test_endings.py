"""Games of bots end: no level goes round in circles without drawing a tile.

``benchmarks/endings_bench.py`` plays many more games of every pair of levels
and prints the longest.
"""

from __future__ import annotations

import itertools

import pytest

from bots import LEVELS, PublicRecord, make_bot
from bots.players import PATIENCE, fresh, impatient, turn_bound, turns_taken
from engine import COLOURS, Action, Game
from engine.playout import SplitMix64, shuffled_stack


def _play(bots: list[str], seed: int, rng: SplitMix64 | None = None) -> tuple[Game, int]:
    """A game of ``bots`` (levels, in seat order) until it ends or goes past twice its bound.

    Returns the game and the most turns in a row that began without a tile drawn.
    Fails at once if a turn begins in a position a turn already began in since
    the last tile was drawn.
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
    seen: set[object] = set()
    while not game.over and turns_taken(game.actions) <= 2 * turn_bound(seats):
        seat = game.seats.index(game.active_player)
        record = PublicRecord.from_game(game, game.active_player)
        game.apply(players[seat].choose(record, rngs[seat]), player=game.active_player)
        if len(game.stack_remaining) != tiles:
            tiles, quiet = len(game.stack_remaining), 0
            seen.clear()
        elif game.decision_kind == "turn":
            quiet += 1
            longest = max(longest, quiet)
        if game.decision_kind == "turn":
            position = game.position()
            assert position not in seen, (bots, seed, len(game.actions))
            seen.add(position)
    return game, longest


def test_the_greedy_game_that_stalled_ends() -> None:
    """Three greedy bots once expanded, emigrated and landed round the same islands for ever."""
    seed = 224933333
    game, longest = _play(["greedy"] * 3, seed, SplitMix64(seed))
    assert game.over
    assert turns_taken(game.actions) <= turn_bound(3)
    assert longest <= PATIENCE * 3 + 1


@pytest.mark.parametrize("pair", list(itertools.combinations_with_replacement(LEVELS, 2)))
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_games_of_every_pair_of_levels_end_within_the_bound(
    pair: tuple[str, str], seats: int
) -> None:
    """Seats alternate between the two levels; cheap pairs play more games."""
    games = {0: 4}.get(sum(level in ("strong", "expert") for level in pair), 1)
    for g in range(games):
        first, second = pair if g % 2 == 0 else pair[::-1]
        levels = [first if k % 2 == 0 else second for k in range(seats)]
        game, longest = _play(levels, 1000 * seats + 100 * LEVELS.index(pair[0]) + g)
        assert game.over, (levels, g)
        assert turns_taken(game.actions) <= turn_bound(seats)
        assert longest <= PATIENCE * seats + 1


#: The old greedy bots' game on stack 224933333 (three seats, SplitMix64(224933333)),
#: up to red's emigration that came back to a position a turn had begun in.
_BACK: list[Action] = [
    *({"act": "setup", "beach": [0, 0, b]} for b in (0, 0, 1, 1, 2, 2)),
    {"act": "settle"},
    {"act": "place", "dir": 0, "from": [0, 0]},
    {"act": "place", "dir": 0, "from": [0, 1]},
    {"act": "settle_ship", "beach": [0, 2, 0]},
    {"act": "settle"},
    {"act": "place", "dir": 0, "from": [0, 2]},
    {"act": "settle_ship", "beach": [0, 3, 0]},
    {"act": "settle"},
    {"act": "place", "dir": 0, "from": [0, 3]},
    {"act": "settle_ship", "beach": [0, 4, 0]},
    *({"act": "royal", "island": [0, q]} for q in (2, 3, 4)),
    {"act": "settle"},
    {"act": "place", "dir": 0, "from": [0, 4]},
    {"act": "settle_ship", "beach": [0, 5, 0]},
    {"act": "single", "beach": [0, 5, 0]},
    {"act": "single", "beach": [0, 5, 0]},
    {"act": "emigrate", "beach": [0, 5, 0], "dir": 4},
    *({"act": "single", "beach": [0, 5, 0]} for _ in range(3)),
]


def test_no_level_goes_back_to_a_position_without_drawing() -> None:
    """Red's emigration in direction 4 comes back to a position a turn began in."""
    game = Game.new(["yellow", "orange", "red"], shuffled_stack(224933333))
    tiles = len(game.stack_remaining)
    for action in _BACK:
        game.apply(action)
    assert len(game.stack_remaining) == tiles - 6
    record = PublicRecord.from_game(game, "red")
    back = {"act": "emigrate", "beach": [0, 5, 0], "dir": 4}
    on = {"act": "emigrate", "beach": [0, 5, 0], "dir": 5}
    assert list(record.options()) == [back, on]
    trial = game.copy()
    trial.apply(back)
    assert trial.decision_kind == "turn" and record.seen(trial.position())
    assert not fresh(record, 0)
    assert fresh(record, 1)
    for level in LEVELS:
        bot = make_bot(level, iterations=4) if level in ("strong", "expert") else make_bot(level)
        for seed in range(4):
            assert bot.choose(record, SplitMix64(seed)) == on, (level, seed)


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
