"""A rating ladder: Elo of the bot levels from a round-robin tournament, with intervals.

    .venv/bin/python benchmarks/ladder.py --games 12
    .venv/bin/python benchmarks/ladder.py --games 200 --jobs 2 --out ladder.jsonl
    .venv/bin/python benchmarks/ladder.py --summarize ladder.jsonl

Every pair of levels (``--levels``, random greedy strong expert by default)
plays ``--games`` 4-seat games, two seats each, alternating round the table
(game g of a pair: the first level on seats 0 and 2 when g is even, on 1 and 3
when it is odd). Each game counts as the four results between a seat of one
level and a seat of the other (a better rank wins, an equal rank is a draw).
The ratings are the Bradley-Terry (Elo) fit of all those results by maximum
likelihood, random at 0, on the Elo scale (400 points: ten to one), and each
level's 95% interval comes from ``--bootstrap`` resamples of the games. Also
printed per level: its score against each other level, with a 95% Wilson
interval of its share of points, and its CPU per decision that had a choice.
Searching levels think ``--budget`` (strong) and ``--expert-budget`` CPU seconds
a decision (or a fixed ``--iterations``).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.tournament import Settings, build, wilson
from bots import PublicRecord
from engine import COLOURS, Game
from engine.playout import SplitMix64, shuffled_stack


@dataclass(frozen=True)
class Played:
    """One game of a pairing: the levels of its seats, their ranks and thinking."""

    pair: tuple[str, str]
    game: int
    levels: tuple[str, ...]
    ranks: tuple[int, ...]
    cpu: dict[str, float]
    choices: dict[str, int]


def play(settings: Settings, pair: tuple[str, str], number: int) -> Played:
    first, second = pair
    levels = (first, second, first, second) if number % 2 == 0 else (second, first, second, first)
    colours = list(COLOURS[:4])
    seed = settings.seed * 1_000_003 + number
    stack = shuffled_stack(seed)
    game = Game.new(colours, stack)
    bots = [build(level, settings, stack) for level in levels]
    rngs = [SplitMix64((seed << 8) ^ i) for i in range(4)]
    cpu = dict.fromkeys(pair, 0.0)
    choices = dict.fromkeys(pair, 0)
    while not game.over:
        seat = game.seats.index(game.active_player)
        if len(game.options()) == 1:
            game.apply_option(0)
            continue
        start = time.process_time()
        action = bots[seat].choose(PublicRecord.from_game(game, colours[seat]), rngs[seat])
        cpu[levels[seat]] += time.process_time() - start
        choices[levels[seat]] += 1
        game.apply(action, player=colours[seat])
    assert game.result is not None
    ranks = tuple(game.result["rank"][c] for c in colours)
    return Played(pair, number, levels, ranks, cpu, choices)


def results(games: list[Played]) -> list[tuple[str, str, float]]:
    """Every result between seats of different levels: (level, other, score of level)."""
    out = []
    for g in games:
        for i, j in itertools.combinations(range(4), 2):
            if g.levels[i] == g.levels[j]:
                continue
            a, b = g.ranks[i], g.ranks[j]
            out.append((g.levels[i], g.levels[j], 1.0 if a < b else 0.5 if a == b else 0.0))
    return out


def fit(games: list[Played], levels: list[str], anchor: str) -> dict[str, float]:
    """Elo ratings by maximum likelihood of the Bradley-Terry model (``anchor`` at 0).

    Minorization-maximization (Hunter, 2004) on the strengths, draws as half a
    win each way; a level that won or lost everything is held at +-1000 of the
    others (its rating is then only a bound).
    """
    score = dict.fromkeys(levels, 0.0)
    meetings: dict[tuple[str, str], int] = {}
    for a, b, s in results(games):
        score[a] += s
        score[b] += 1.0 - s
        key = (a, b) if a < b else (b, a)
        meetings[key] = meetings.get(key, 0) + 1
    strength = dict.fromkeys(levels, 1.0)
    for _ in range(2000):
        new = {}
        for level in levels:
            denominator = 0.0
            for (a, b), n in meetings.items():
                if level in (a, b):
                    other = b if level == a else a
                    denominator += n / (strength[level] + strength[other])
            won = min(
                max(score[level], 1e-3), sum(n for k, n in meetings.items() if level in k) - 1e-3
            )
            new[level] = won / denominator if denominator else strength[level]
        total = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        change = max(abs(math.log(new[x] / total) - math.log(strength[x])) for x in levels)
        strength = {x: new[x] / total for x in levels}
        if change < 1e-9:
            break
    base = math.log10(strength[anchor])
    return {x: 400.0 * (math.log10(strength[x]) - base) for x in levels}


def report(games: list[Played], levels: list[str], samples: int, wall: float) -> None:
    anchor = levels[0]
    elo = fit(games, levels, anchor)
    rng = SplitMix64(12345)
    boot: dict[str, list[float]] = {x: [] for x in levels}
    for _ in range(samples):
        resampled = [games[rng.below(len(games))] for _ in games]
        for x, r in fit(resampled, levels, anchor).items():
            boot[x].append(r)
    print(f"ladder: {len(games)} games, levels {' '.join(levels)}; Elo with {anchor} at 0")
    print("  level     Elo   95% interval (bootstrap)   CPU per choice")
    for x in sorted(levels, key=lambda level: elo[level]):
        values = sorted(boot[x])
        low = values[int(0.025 * (len(values) - 1))] if values else float("nan")
        high = values[int(0.975 * (len(values) - 1))] if values else float("nan")
        cpu = sum(g.cpu.get(x, 0.0) for g in games)
        choices = sum(g.choices.get(x, 0) for g in games)
        print(
            f"  {x:7} {elo[x]:6.0f}   {low:6.0f} to {high:6.0f}"
            f"              {cpu / max(choices, 1) * 1000:7.1f} ms"
        )
    print("  pairwise: score of the first level against the second (seat against seat)")
    for a, b in itertools.combinations(levels, 2):
        pairs = [(x, y, s) for x, y, s in results(games) if {x, y} == {a, b}]
        n = len(pairs)
        won = sum(s if x == a else 1.0 - s for x, y, s in pairs)
        low, high = wilson(round(won), n)
        share = won / max(n, 1)
        print(f"  {a} vs {b}: {won:g}/{n} = {share:.1%}  (95% CI {low:.1%}-{high:.1%})")
    if wall:
        print(f"  wall {wall:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", nargs="+", default=["random", "greedy", "strong", "expert"])
    parser.add_argument("--games", type=int, default=12, help="games per pair of levels")
    parser.add_argument("--budget", type=float, default=0.1, help="strong: CPU s per decision")
    parser.add_argument("--expert-budget", type=float, default=1.0, help="expert: CPU s")
    parser.add_argument("--iterations", type=int, default=None, help="searches: fixed work")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument("--out", type=Path, help="append each game here (JSON lines)")
    parser.add_argument("--summarize", type=Path, nargs="+", help="only report these files")
    args = parser.parse_args(argv)
    if args.summarize:
        lines = [line for p in args.summarize for line in p.read_text().splitlines() if line]
        games = []
        for line in lines:
            data = json.loads(line)
            first, second = data["pair"]
            data.update(pair=(first, second), levels=tuple(data["levels"]))
            games.append(Played(**{**data, "ranks": tuple(data["ranks"])}))
        report(
            games,
            sorted({x for g in games for x in g.levels}, key=args.levels.index),
            args.bootstrap,
            0.0,
        )
        return 0
    settings = Settings(
        "strong",
        "strong",
        args.budget,
        args.iterations,
        args.seed,
        expert_budget=args.expert_budget,
    )
    work = [
        (pair, (index << 16) + g)
        for index, pair in enumerate(itertools.combinations(args.levels, 2))
        for g in range(args.games)
    ]
    played: list[Played] = []
    wall = time.perf_counter()

    def keep(game: Played) -> None:
        played.append(game)
        if args.out is not None:
            with args.out.open("a") as file:
                file.write(json.dumps(dataclasses.asdict(game)) + "\n")
        if len(played) % 10 == 0:
            print(f"  {len(played)}/{len(work)} games", file=sys.stderr, flush=True)

    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            for game in pool.map(
                play, [settings] * len(work), [w[0] for w in work], [w[1] for w in work]
            ):
                keep(game)
    else:
        for pair, number in work:
            keep(play(settings, pair, number))
    report(played, args.levels, args.bootstrap, time.perf_counter() - wall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
