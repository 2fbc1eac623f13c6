"""The bots' search on this checkout's engine against an earlier commit's engine.

    python benchmarks/search_ab.py [--against main] [--games 4] [--decisions 60] [--rounds 3]

The bots spend their time in the engine: every option they weigh is tried on a
copy of the game and played on. This plays the same bots' decisions (this
checkout's ``bots/``, greedy and strong with a fixed number of playouts, so
that they are reproducible) on this checkout's engine and on the engine of an
earlier commit, each in a process of its own, in turns, and keeps each one's
fastest round in CPU time. Both must make the same decisions: their moves are
compared. Prints decisions per CPU second of each and their ratio.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def tree(folder: Path, revision: str | None) -> Path:
    """A folder holding ``bots/`` of this checkout and ``engine/`` of ``revision``
    (None: of this checkout)."""
    folder.mkdir()
    shutil.copytree(ROOT / "bots", folder / "bots")
    if revision is None:
        shutil.copytree(ROOT / "engine", folder / "engine")
        return folder
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "engine"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def child(bot: str, games: int, decisions: int) -> None:
    """Play the bots' decisions with the engine found first on the path; print the CPU
    seconds spent and a digest of the moves."""
    # Imported here, from the tree on the path: the parent process compares two engines.
    make_bot = importlib.import_module("bots.players").make_bot
    record_of = importlib.import_module("bots.public").PublicRecord.from_game
    game_class = importlib.import_module("engine").Game
    playout = importlib.import_module("engine.playout")
    colours = importlib.import_module("engine.tiles").COLOURS

    settings = {"iterations": 16.0} if bot == "strong" else {}
    moves: list[Any] = []
    cpu = time.process_time()
    for seed in range(1, games + 1):
        game = game_class.new(list(colours[:4]), playout.shuffled_stack(seed))
        players = [make_bot(bot, **settings) for _ in game.seats]
        rng = playout.SplitMix64(seed)
        while not game.over and len(game.actions) < decisions:
            player = game.active_player
            record = record_of(game, player)
            action = players[game.seats.index(player)].choose(record, rng)
            moves.append(action)
            game.apply(action, player)
    spent = time.process_time() - cpu
    digest = hashlib.sha256(json.dumps(moves, sort_keys=True).encode()).hexdigest()
    print(json.dumps({"cpu": spent, "moves": len(moves), "digest": digest}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="HEAD~1", help="the git revision to compare with")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--decisions", type=int, default=60, help="decisions per game at most")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", choices=("greedy", "strong"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.games, args.decisions)
        return

    with tempfile.TemporaryDirectory() as scratch:
        trees = {
            args.against: tree(Path(scratch) / "then", args.against),
            "now": tree(Path(scratch) / "now", None),
        }
        print(
            f"{args.games} 4-seat games of one kind of bot, up to {args.decisions} decisions"
            f" each, fastest of {args.rounds} rounds, decisions per CPU second:"
        )
        for bot, games in (("greedy", args.games), ("strong", max(1, args.games // 2))):
            best: dict[str, float] = {}
            digests: dict[str, str] = {}
            moves = 0
            order = list(trees.items())
            for _ in range(args.rounds):
                order.reverse()  # each goes first in every other round
                for name, folder in order:
                    command = [sys.executable, str(Path(__file__).resolve()), "--child", bot]
                    command += ["--games", str(games), "--decisions", str(args.decisions)]
                    env = {**os.environ, "PYTHONPATH": str(folder)}
                    out = subprocess.run(
                        command, cwd=folder, env=env, check=True, capture_output=True, text=True
                    ).stdout
                    found = json.loads(out)
                    best[name] = min(best.get(name, found["cpu"]), found["cpu"])
                    digests[name] = found["digest"]
                    moves = found["moves"]
            if len(set(digests.values())) != 1:
                raise SystemExit(f"{bot}: the two engines led the bots to other decisions")
            then, now = best[args.against], best["now"]
            print(
                f"  {bot:7} ({moves} decisions, the same on both)  {args.against}:"
                f" {moves / then:7.1f}   now: {moves / now:7.1f}   {then / now:5.2f} x"
            )


if __name__ == "__main__":
    main()
