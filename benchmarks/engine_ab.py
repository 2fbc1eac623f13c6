"""The engine of this checkout against the engine of an earlier commit, in one process.

    python benchmarks/engine_ab.py [--against HEAD~1] [--games 40] [--rounds 7]

On a machine shared with other work, two benchmark runs minutes apart differ
by more than most single changes gain. This plays the same random 4-seat games
through both engines in turns within one process (the earlier one is taken
from git into a temporary folder and imported under another name) and keeps
each one's fastest round, in CPU time: listing every option and applying one
(``options()`` + ``apply_option``), the same with up to 8 options of every
decision first tried on copies of the game (``copy()`` + ``apply_option``, the
work of a one-ply search), and ``Game.apply_random``. Both engines
must play the same games: their records are compared first.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine

ROOT = Path(__file__).resolve().parents[1]


def earlier_engine(revision: str, folder: Path) -> ModuleType:
    """The ``engine`` package of ``revision``, imported as ``engine_then``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "engine"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "engine").rename(folder / "engine_then")
    sys.path.insert(0, str(folder))
    return importlib.import_module("engine_then")


def listed(package: ModuleType, seed: int) -> Any:
    """A random game listing every option at every decision (as engine_bench.py's)."""
    playout = importlib.import_module(package.__name__ + ".playout")
    rng = playout.SplitMix64(seed)
    game = package.Game.new(list(package.COLOURS[:4]), rng.shuffled(package.STACK_TILES))
    while not game.over:
        game.apply_option(rng.below(len(game.options())))
    return game


def tried(package: ModuleType, seed: int) -> Any:
    """A random game that, as a one-ply search does, first tries up to 8 of the options of
    every decision on a copy of the game (``copy()`` + ``apply_option``)."""
    playout = importlib.import_module(package.__name__ + ".playout")
    rng = playout.SplitMix64(seed)
    game = package.Game.new(list(package.COLOURS[:4]), rng.shuffled(package.STACK_TILES))
    while not game.over:
        n = len(game.options())
        for i in range(0, n, max(1, n // 8)):
            game.copy().apply_option(i)
        game.apply_option(rng.below(n))
    return game


def drawn(package: ModuleType, seed: int) -> Any:
    """A random game through ``Game.apply_random``."""
    return importlib.import_module(package.__name__ + ".playout").random_game(4, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="HEAD~1", help="the git revision to compare with")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        engines = {"then": earlier_engine(args.against, Path(folder)), "now": engine}
        for play in (listed, tried, drawn):
            for seed in range(1, 6):
                then, now = (play(package, seed).record() for package in engines.values())
                if then != now:
                    raise SystemExit(f"{play.__name__} seed {seed}: the two engines differ")
        for package in engines.values():  # fills each engine's lookup caches
            for seed in range(1000, 1030):
                listed(package, seed)
                tried(package, seed)
                drawn(package, seed)
        best: dict[tuple[str, str], float] = {}
        order = list(engines.items())
        for _ in range(args.rounds):
            order.reverse()  # each goes first in every other round
            for name, package in order:
                for play in (listed, tried, drawn):
                    cpu = time.process_time()
                    for seed in range(1, args.games + 1):
                        play(package, seed)
                    spent = time.process_time() - cpu
                    key = (name, play.__name__)
                    best[key] = min(best.get(key, spent), spent)
    print(
        f"{args.games} random 4-seat games, fastest of {args.rounds} rounds, games per CPU second:"
    )
    for kind, what in (
        ("listed", "options() + apply_option"),
        ("tried", "the same, options tried on copies"),
        ("drawn", "apply_random"),
    ):
        then, now = best["then", kind], best["now", kind]
        print(
            f"  {what:34} {args.against}: {args.games / then:7.1f}"
            f"   now: {args.games / now:7.1f}   {then / now:5.2f} x"
        )


if __name__ == "__main__":
    main()
