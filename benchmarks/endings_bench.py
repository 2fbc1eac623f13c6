"""Do games of bots end? Games of one level against itself, 2 to 6 seats.

    .venv/bin/python benchmarks/endings_bench.py --games 20
    .venv/bin/python benchmarks/endings_bench.py --games 500 --levels random greedy strong expert

For every level and every number of seats, ``--games`` games in which every
seat is a bot of that level (stacks and generators from ``--seed`` and the game
number; searching bots by playouts, ``--iterations`` a decision, so that a run
is reproducible and does not depend on the machine). Prints, per level and
seat count, the longest game in turns and in decisions, the most turns in a
row without a tile drawn, and the bound :func:`bots.players.turn_bound` that no
game may exceed; exits with status 1 if one did.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import PublicRecord, make_bot
from bots.players import turn_bound, turns_taken
from engine import COLOURS, Game
from engine.playout import SplitMix64, shuffled_stack


def play(level: str, seats: int, seed: int, iterations: int) -> tuple[int, int, int]:
    """One game of ``seats`` bots of ``level``: turns, decisions, longest quiet spell in turns.

    Stops (and returns what it has) once the game goes past twice its bound.
    """
    settings = {"iterations": iterations} if level in ("strong", "expert") else {}
    bot = make_bot(level, **settings)
    game = Game.new(list(COLOURS[:seats]), shuffled_stack(seed))
    rngs = [SplitMix64(seed * 8 + i) for i in range(seats)]
    limit = 2 * turn_bound(seats)
    quiet = longest_quiet = 0
    tiles = len(game.stack_remaining)
    while not game.over:
        player = game.active_player
        record = PublicRecord.from_game(game, player)
        game.apply(bot.choose(record, rngs[game.seats.index(player)]), player=player)
        if game.decision_kind == "turn":
            quiet += 1
            longest_quiet = max(longest_quiet, quiet)
        if len(game.stack_remaining) != tiles:
            tiles, quiet = len(game.stack_remaining), 0
        if turns_taken(game.actions) > limit:
            break
    return turns_taken(game.actions), len(game.actions), longest_quiet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per level and seat count")
    parser.add_argument("--levels", nargs="+", default=["random", "greedy", "strong", "expert"])
    parser.add_argument("--seats", nargs="+", type=int, default=[2, 3, 4, 5, 6])
    parser.add_argument("--iterations", type=int, default=8, help="playouts per search")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    failed = False
    print("level   seats  games  longest turns  bound  longest decisions  quiet turns  CPU s")
    for level in args.levels:
        for seats in args.seats:
            cpu = time.process_time()
            results = [
                play(level, seats, args.seed * 1_000_000 + seats * 10_000 + g, args.iterations)
                for g in range(args.games)
            ]
            turns = max(r[0] for r in results)
            bound = turn_bound(seats)
            failed |= turns > bound
            print(
                f"{level:7} {seats:5}  {args.games:5}  {turns:13}  {bound:5}"
                f"  {max(r[1] for r in results):17}  {max(r[2] for r in results):11}"
                f"  {time.process_time() - cpu:5.0f}",
                flush=True,
            )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
