"""Bot tournaments: one bot against three copies of another, over many 4-seat games.

    .venv/bin/python benchmarks/tournament.py --hero greedy --field random --games 500
    .venv/bin/python benchmarks/tournament.py --hero strong --field greedy --games 100 \
        --budget 0.25 --jobs 2

The hero takes each seat in turn (game g: seat g mod 4). Each game's stack and
each bot's generator come from ``--seed`` and the game number, so a run is
reproducible (up to the strong bot's clock). Bots see only
:class:`bots.PublicRecord`s, never the stack order. A win is first place
(R13's rank 1; a shared first place counts, and is also reported apart).
Figures: win share with a 95% Wilson interval, mean points, and the hero's CPU
time per decision it actually had to think about.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collections.abc import Sequence

from bots import Bot, ExpertBot, GreedyBot, PublicRecord, RandomBot, StrongBot, oracle
from bots.evaluate import DEFAULT
from engine import COLOURS, Game
from engine.playout import SplitMix64, shuffled_stack

SEATS = 4


@dataclass(frozen=True)
class Settings:
    hero: str
    field: str
    budget: float
    iterations: int | None
    seed: int
    candidates: int = 4
    reply: str = "greedy"
    rounds: int = 1
    decisive: float = 2.5
    weights: tuple[tuple[str, float], ...] = ()
    expert_budget: float = 1.0


@dataclass(frozen=True)
class Outcome:
    game: int
    seat: int
    rank: int
    shared: bool
    points: int
    best_rival: int
    decisions: int
    thinking: int
    cpu: float
    longest: float = 0.0  #: the hero's longest choice, CPU seconds (0: not recorded)


#: Every bot a tournament knows: the levels, and the test-only oracle that sees the stack.
NAMES = ["random", "greedy", "strong", "expert", "oracle"]


def build(name: str, settings: Settings, stack: Sequence[str] = ()) -> Bot:
    """The bot ``name`` with ``settings`` (``stack``: the game's, for the oracle only)."""
    if name in ("expert", "oracle"):
        bot = oracle(stack) if name == "oracle" else ExpertBot()
        bot.budget = settings.expert_budget
        bot.iterations = settings.iterations
        return bot
    if name == "random":
        return RandomBot()
    if name == "greedy":
        return GreedyBot()
    if name == "strong":
        return StrongBot(
            budget=settings.budget,
            iterations=settings.iterations,
            candidates=settings.candidates,
            reply=settings.reply,
            rounds=settings.rounds,
            decisive=settings.decisive,
            weights=dataclasses.replace(DEFAULT, **dict(settings.weights)),
        )
    raise SystemExit(f"unknown bot {name!r}")


def play(settings: Settings, number: int) -> Outcome:
    seat = number % SEATS
    colours = list(COLOURS[:SEATS])
    hero_colour = colours[seat]
    stack = shuffled_stack(settings.seed * 1_000_003 + number)
    game = Game.new(colours, stack)
    bots = {
        c: build(settings.hero if c == hero_colour else settings.field, settings, stack)
        for c in colours
    }
    rngs = {c: SplitMix64((settings.seed << 20) ^ (number << 4) ^ i) for i, c in enumerate(colours)}
    decisions = thinking = 0
    cpu = longest = 0.0
    while not game.over:
        player = game.active_player
        options = game.options()
        if player == hero_colour:
            decisions += 1
        if len(options) == 1:
            game.apply_option(0)
            continue
        start = time.process_time()
        action = bots[player].choose(PublicRecord.from_game(game, player), rngs[player])
        if player == hero_colour:
            spent = time.process_time() - start
            cpu += spent
            longest = max(longest, spent)
            thinking += 1
        game.apply(action, player=player)
    result = game.result
    assert result is not None
    rank = result["rank"]
    points = result["points"]
    return Outcome(
        game=number,
        seat=seat,
        rank=rank[hero_colour],
        shared=rank[hero_colour] == 1 and sum(1 for r in rank.values() if r == 1) > 1,
        points=points[hero_colour],
        best_rival=max(p for c, p in points.items() if c != hero_colour),
        decisions=decisions,
        thinking=thinking,
        cpu=cpu,
        longest=longest,
    )


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hero", default="greedy", choices=NAMES)
    parser.add_argument("--field", default="random", choices=NAMES)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--first", type=int, default=0, help="number of the first game")
    parser.add_argument("--budget", type=float, default=0.1, help="strong bot: CPU s per move")
    parser.add_argument(
        "--expert-budget", type=float, default=1.0, help="expert and oracle: CPU s per move"
    )
    parser.add_argument(
        "--iterations", type=int, default=None, help="strong, expert, oracle: fixed work"
    )
    parser.add_argument("--candidates", type=int, default=4, help="strong bot: options searched")
    parser.add_argument("--reply", default="greedy", choices=["greedy", "one_ply"])
    parser.add_argument("--rounds", type=int, default=1, help="strong bot: rounds per playout")
    parser.add_argument(
        "--decisive", type=float, default=2.5, help="strong bot: drop clearly worse candidates"
    )
    parser.add_argument(
        "--weights", default="", help="strong bot: evaluation weights, e.g. rival=1,win=8"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, help="append each game's outcome here (JSON lines)")
    parser.add_argument(
        "--summarize", type=Path, nargs="+", help="only report the outcomes in these files"
    )
    args = parser.parse_args(argv)
    settings = Settings(
        args.hero,
        args.field,
        args.budget,
        args.iterations,
        args.seed,
        args.candidates,
        args.reply,
        args.rounds,
        args.decisive,
        tuple(
            (key, float(value))
            for key, value in (item.split("=") for item in args.weights.split(",") if item)
        ),
        args.expert_budget,
    )
    outcomes: list[Outcome] = []
    if args.summarize:
        lines = [line for path in args.summarize for line in path.read_text().splitlines()]
        outcomes = [Outcome(**json.loads(line)) for line in lines if line.strip()]
        report(settings, outcomes, 0.0, 0)
        return 0
    numbers = range(args.first, args.first + args.games)
    wall = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            for outcome in pool.map(play, [settings] * len(numbers), numbers, chunksize=1):
                _record(outcomes, outcome, args.out, args.games)
    else:
        for number in numbers:
            _record(outcomes, play(settings, number), args.out, args.games)
    report(settings, outcomes, time.perf_counter() - wall, args.jobs)
    return 0


def _record(outcomes: list[Outcome], outcome: Outcome, out: Path | None, total: int) -> None:
    outcomes.append(outcome)
    if out is not None:
        with out.open("a") as file:
            file.write(json.dumps(dataclasses.asdict(outcome)) + "\n")
    n = len(outcomes)
    if n % 25 == 0 or n == total:
        wins = sum(1 for o in outcomes if o.rank == 1)
        print(f"  {n}/{total} games, hero first in {wins}", file=sys.stderr, flush=True)


def report(settings: Settings, outcomes: list[Outcome], wall: float, jobs: int) -> None:
    n = len(outcomes)
    wins = sum(1 for o in outcomes if o.rank == 1)
    shared = sum(1 for o in outcomes if o.shared)
    low, high = wilson(wins, n)
    sole_low, sole_high = wilson(wins - shared, n)
    thinking = sum(o.thinking for o in outcomes)
    decisions = sum(o.decisions for o in outcomes)
    cpu = sum(o.cpu for o in outcomes)
    budget = ""
    if "strong" in (settings.hero, settings.field):
        budget = (
            f", strong: {settings.iterations} iterations per move"
            if settings.iterations is not None
            else f", strong: {settings.budget:g} CPU s per move"
        )
        budget += f", {settings.candidates} candidates, replies {settings.reply}"
        budget += f", {settings.rounds} round(s) ahead"
        if settings.decisive:
            budget += f", drops candidates {settings.decisive:g} standard errors behind"
        if settings.weights:
            budget += ", weights " + ",".join(f"{k}={v:g}" for k, v in settings.weights)
    if {"expert", "oracle"} & {settings.hero, settings.field}:
        budget += (
            f", expert: {settings.iterations} iterations per move"
            if settings.iterations is not None
            else f", expert: {settings.expert_budget:g} CPU s per move"
        )
    print(f"{settings.hero} vs 3 x {settings.field}: {n} games, seed {settings.seed}{budget}")
    print(f"  first place      {wins}/{n} = {wins / max(n, 1):.1%}  (95% CI {low:.1%}-{high:.1%})")
    print(
        f"  sole first place {wins - shared}/{n} = {(wins - shared) / max(n, 1):.1%}"
        f"  (95% CI {sole_low:.1%}-{sole_high:.1%})"
    )
    ranks = [sum(1 for o in outcomes if o.rank == r) for r in range(1, SEATS + 1)]
    print(f"  ranks 1-4        {ranks}")
    print(
        f"  mean points      hero {sum(o.points for o in outcomes) / max(n, 1):.2f},"
        f" best rival {sum(o.best_rival for o in outcomes) / max(n, 1):.2f}"
    )
    for seat in range(SEATS):
        at = [o for o in outcomes if o.seat == seat]
        if at:
            print(f"  seat {seat}: first in {sum(1 for o in at if o.rank == 1)}/{len(at)}")
    print(
        f"  hero decisions {decisions}, {thinking} with a choice; CPU per choice "
        f"{cpu / max(thinking, 1) * 1000:.1f} ms; wall {wall:.0f} s on {jobs} process(es)"
    )
    longest = max((o.longest for o in outcomes), default=0.0)
    if longest > 0:
        print(f"  hero's longest choice {longest * 1000:.0f} ms CPU")


if __name__ == "__main__":
    sys.exit(main())
