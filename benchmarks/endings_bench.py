"""Do games of bots end? Every level against every level (itself included), 2 to 6 seats.

    .venv/bin/python benchmarks/endings_bench.py --games 20
    nice -n 10 .venv/bin/python benchmarks/endings_bench.py --games 500 --jobs 2

For every pair of levels and every number of seats, ``--games`` games whose
seats alternate between the two levels (the first level on the first seat in
even games, the second in odd ones; stacks and generators from ``--seed`` and
the game number; searching bots by playouts, ``--iterations`` a decision, so
that a run is reproducible and does not depend on the machine). Prints, per
pair and seat count, the longest game in turns and in decisions, the most
turns in a row without a tile drawn, the turns that began in a position a turn
had already begun in since the last draw (there should be none), and the bound
:func:`bots.players.turn_bound` that no game may exceed; then the longest game
of the run. Exits with status 1 if a game went past its bound or repeated a
position.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots import LEVELS, PublicRecord, make_bot
from bots.players import turn_bound, turns_taken
from engine import COLOURS, Game
from engine.playout import SplitMix64, shuffled_stack


@dataclass(frozen=True)
class Ending:
    """How one game went."""

    levels: tuple[str, ...]
    seed: int
    over: bool
    turns: int
    decisions: int
    quiet: int  #: the most turns in a row that began without a tile drawn
    repeats: int  #: turns that began in a position seen since the last draw
    cpu: float


def seating(pair: tuple[str, str], seats: int, game: int) -> tuple[str, ...]:
    """The levels of the seats of game number ``game``: ``pair`` alternating."""
    first, second = pair if game % 2 == 0 else pair[::-1]
    return tuple(first if k % 2 == 0 else second for k in range(seats))


def play(levels: tuple[str, ...], seed: int, iterations: int) -> Ending:
    """One game of bots of ``levels`` (in seat order).

    Stops (and returns what it has) once the game goes past twice its bound.
    """
    cpu = time.process_time()
    seats = len(levels)
    bots = [
        make_bot(level, iterations=iterations) if level in ("strong", "expert") else make_bot(level)
        for level in levels
    ]
    game = Game.new(list(COLOURS[:seats]), shuffled_stack(seed))
    rngs = [SplitMix64(seed * 8 + i) for i in range(seats)]
    limit = 2 * turn_bound(seats)
    quiet = longest_quiet = repeats = 0
    tiles = len(game.stack_remaining)
    seen: set[object] = set()
    while not game.over:
        player = game.active_player
        seat = game.seats.index(player)
        record = PublicRecord.from_game(game, player)
        game.apply(bots[seat].choose(record, rngs[seat]), player=player)
        if len(game.stack_remaining) != tiles:
            tiles, quiet = len(game.stack_remaining), 0
            seen.clear()
        if game.decision_kind == "turn":
            quiet += 1
            longest_quiet = max(longest_quiet, quiet)
            position = game.position()
            repeats += position in seen
            seen.add(position)
        if turns_taken(game.actions) > limit:
            break
    return Ending(
        levels,
        seed,
        game.over,
        turns_taken(game.actions),
        len(game.actions),
        longest_quiet,
        repeats,
        time.process_time() - cpu,
    )


def _play(task: tuple[tuple[str, ...], int, int]) -> Ending:
    return play(*task)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per pair and seat count")
    parser.add_argument("--levels", nargs="+", default=list(LEVELS))
    parser.add_argument("--seats", nargs="+", type=int, default=[2, 3, 4, 5, 6])
    parser.add_argument("--iterations", type=int, default=8, help="playouts per search")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="games played at once (processes)")
    args = parser.parse_args()
    pairs = list(itertools.combinations_with_replacement(args.levels, 2))
    failed = False
    longest: Ending | None = None
    total = 0
    print(
        "levels            seats  games  longest turns  bound  longest decisions"
        "  quiet turns  repeats  CPU s"
    )
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        for (a, b), seats in itertools.product(pairs, args.seats):
            tasks = [
                (
                    seating((a, b), seats, g),
                    args.seed * 1_000_000 + seats * 10_000 + g,
                    args.iterations,
                )
                for g in range(args.games)
            ]
            results = list(pool.map(_play, tasks)) if args.jobs > 1 else [_play(t) for t in tasks]
            total += len(results)
            bound = turn_bound(seats)
            worst = max(results, key=lambda r: (r.turns, r.decisions))
            repeats = sum(r.repeats for r in results)
            failed |= worst.turns > bound or repeats > 0 or not all(r.over for r in results)
            if longest is None or (worst.turns, worst.decisions) > (
                longest.turns,
                longest.decisions,
            ):
                longest = worst
            print(
                f"{a + ' v ' + b:17} {seats:5}  {args.games:5}  {worst.turns:13}  {bound:5}"
                f"  {max(r.decisions for r in results):17}  {max(r.quiet for r in results):11}"
                f"  {repeats:7}  {sum(r.cpu for r in results):5.0f}",
                flush=True,
            )
    if longest is not None:
        print(
            f"longest game of {total}: {longest.turns} turns ({longest.decisions} decisions),"
            f" bound {turn_bound(len(longest.levels))}; seats {' '.join(longest.levels)},"
            f" stack seed {longest.seed}"
        )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
