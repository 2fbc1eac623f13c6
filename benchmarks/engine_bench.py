"""Engine speed: complete random 4-seat games per second on one core.

    python benchmarks/engine_bench.py [--games 300] [--seats 4]

Prints games per second and decisions per second over a throughput pass of
random games (``Game.apply_random``: a uniform choice among the options without
listing them), the same for random games that list every option at every
decision and pick one by index, the rate of replaying trusted records, and then
the slowest single decision: the time to enumerate its options (the work a
server does at every step). Last, the yardstick: ``--plain`` random games
played through a plain implementation of the rules (``benchmarks/plain_rules.py``)
and through the engine, listing every option and choosing the same ones, checked
to offer the same options at every decision; it prints both rates and their
ratio (the engine's list-and-apply games per CPU second over the plain one's).
"""

from __future__ import annotations

import argparse
import gc
import resource
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.plain_rules import PlainGame, key
from engine import Game
from engine.game import canonical
from engine.playout import SplitMix64, random_game
from engine.tiles import COLOURS, STACK_TILES


def throughput(games: int, seats: int, first_seed: int) -> tuple[float, float, int]:
    """Wall time, CPU time of this process and decisions over ``games`` random games."""
    start, cpu = time.perf_counter(), time.process_time()
    decisions = 0
    for seed in range(first_seed, first_seed + games):
        decisions += len(random_game(seats, seed).actions)
    return time.perf_counter() - start, time.process_time() - cpu, decisions


def listed_game(seats: int, seed: int) -> Game:
    """A random game that lists every option at every decision and picks one by index."""
    rng = SplitMix64(seed)
    game = Game.new(list(COLOURS[:seats]), rng.shuffled(STACK_TILES))
    while not game.over:
        game.apply_option(rng.below(len(game.options())))
    return game


def listed_throughput(games: int, seats: int, first_seed: int) -> tuple[float, float]:
    """Wall and CPU time of ``games`` random games played through the listed options."""
    start, cpu = time.perf_counter(), time.process_time()
    for seed in range(first_seed, first_seed + games):
        listed_game(seats, seed)
    return time.perf_counter() - start, time.process_time() - cpu


def plain_game(seats: int, seed: int) -> PlainGame:
    """:func:`listed_game` through the plain implementation: the same choices."""
    rng = SplitMix64(seed)
    game = PlainGame(list(COLOURS[:seats]), rng.shuffled(STACK_TILES))
    while game.kind is not None:
        options = game.options()
        game.apply(options[rng.below(len(options))])
    return game


class _OverBudget(Exception):
    """The plain implementation spent more CPU time on one game than it was given."""


def _over_budget(signum: int, frame: object) -> None:
    raise _OverBudget


def same_options(seats: int, seed: int, budget: float = 0.0) -> int | None:
    """Play :func:`listed_game` through both; raise if a decision differs.

    Returns the decisions compared, or None when the plain implementation needed
    more than ``budget`` seconds of CPU for the game (0: no limit).
    """
    rng = SplitMix64(seed)
    stack = rng.shuffled(STACK_TILES)
    game = Game.new(list(COLOURS[:seats]), stack)
    plain = PlainGame(list(COLOURS[:seats]), stack)
    steps = 0
    previous = signal.signal(signal.SIGVTALRM, _over_budget)
    signal.setitimer(signal.ITIMER_VIRTUAL, budget)
    try:
        while not game.over:
            ours = [canonical(o) for o in game.options()]
            theirs = plain.options()
            if game.decision_kind != plain.kind or ours != [key(o) for o in theirs]:
                raise SystemExit(f"seed {seed}, step {steps}: the plain rules offer other options")
            i = rng.below(len(ours))
            game.apply_option(i)
            plain.apply(theirs[i])
            steps += 1
    except _OverBudget:
        return None
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
    if plain.kind is not None:
        raise SystemExit(f"seed {seed}: the plain game did not end with the engine's")
    if canonical(game.snapshot()["result"]) != canonical(plain.result()):
        raise SystemExit(f"seed {seed}: the plain game ended with another result")
    return steps


def yardstick(games: int, seats: int, first_seed: int, budget: float) -> None:
    """Check the plain implementation against the engine, then time both on the same games.

    A game is timed only once both have played it offering the same options at
    every decision. Games on which the plain implementation exceeds ``budget``
    seconds of CPU (its R11 search on copies can take minutes) are left out of
    both timings and named.
    """
    checked: list[int] = []
    decisions = 0
    for seed in range(first_seed, first_seed + games):
        steps = same_options(seats, seed, budget)
        if steps is None:
            print(f"  seed {seed}: the plain rules took over {budget:g} s of CPU; left out")
            continue
        checked.append(seed)
        decisions += steps
    print(
        f"plain rules (benchmarks/plain_rules.py): {len(checked)} of {games} games checked,"
        f" the same options at all {decisions} decisions and the same result"
    )
    if not checked:
        return
    plain_times, engine_times = [], []
    for seed in checked:
        cpu = time.process_time()
        plain_game(seats, seed)
        plain_times.append(time.process_time() - cpu)
        cpu = time.process_time()
        listed_game(seats, seed)
        engine_times.append(time.process_time() - cpu)
    plain = len(checked) / sum(plain_times)
    engine = len(checked) / sum(engine_times)
    ratios = sorted(p / e for p, e in zip(plain_times, engine_times, strict=True))
    print("  listing every option and applying one, games per CPU second (the same games):")
    print(f"    engine {engine:8.1f}   plain {plain:8.2f}   engine / plain {engine / plain:6.1f} x")
    print(
        f"    per game, engine / plain: lowest {ratios[0]:.1f} x, median"
        f" {statistics.median(ratios):.1f} x, highest {ratios[-1]:.1f} x"
    )


def decision_times(games: int, seats: int, first_seed: int) -> list[tuple[float, int, str]]:
    times: list[tuple[float, int, str]] = []
    for seed in range(first_seed, first_seed + games):
        rng = SplitMix64(seed)
        game = Game.new(list(COLOURS[:seats]), rng.shuffled(STACK_TILES))
        while not game.over:
            decision_kind = game.decision_kind or ""
            start = time.process_time()  # CPU time: other processes do not count
            options = game.options()
            times.append((time.process_time() - start, seed, decision_kind))
            game.apply_option(rng.below(len(options)))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--plain", type=int, default=10, help="games of the yardstick (0: none)")
    parser.add_argument(
        "--plain-budget",
        type=float,
        default=20.0,
        help="CPU seconds the plain rules may spend on one game before it is left out",
    )
    args = parser.parse_args()

    throughput(args.warmup, args.seats, 10_000_000)  # fills the engine's lookup caches
    elapsed, cpu, decisions = throughput(args.games, args.seats, 1)
    print(
        f"random {args.seats}-seat games (Game.apply_random): {args.games} in {elapsed:.2f} s"
        f" ({cpu:.2f} s of CPU)"
    )
    per_cpu = args.games / cpu
    print(f"  games per second:      {args.games / elapsed:8.1f}  ({per_cpu:.1f} per CPU second)")
    print(f"  decisions per second:  {decisions / elapsed:8.0f}")
    print(f"  decisions per game:    {decisions / args.games:8.1f}")
    elapsed, cpu = listed_throughput(args.games, args.seats, 1)
    print(
        f"random {args.seats}-seat games listing every option (options() + apply_option):"
        f" {args.games / elapsed:.1f} per second ({args.games / cpu:.1f} per CPU second)"
    )

    records = [random_game(args.seats, seed).record() for seed in range(1, args.games + 1)]
    cpu = time.process_time()
    for record in records:
        Game.from_record(record, checked=False)
    replayed = args.games / (time.process_time() - cpu)
    print(f"  records replayed per CPU second (trusted log, no options listed): {replayed:.0f}")

    del records  # what the replay pass kept alive would slow the collector's full passes
    gc.collect()
    times = decision_times(args.games, args.seats, 1)
    values = sorted(t for t, _, _ in times)
    slowest = max(times)
    print("options enumerated per decision:")
    print(f"  median:   {statistics.median(values) * 1e6:8.1f} us")
    print(f"  p99:      {values[int(len(values) * 0.99)] * 1e6:8.1f} us")
    print(f"  slowest:  {slowest[0] * 1e3:8.2f} ms  ({slowest[2]} decision, seed {slowest[1]})")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (max RSS): {peak:.0f} MB")
    if args.plain:
        yardstick(args.plain, args.seats, 1, args.plain_budget)


if __name__ == "__main__":
    main()
