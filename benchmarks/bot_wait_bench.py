"""Do bots keep a person waiting? Wall time a bot's move takes beyond the pace.

One server process (``python -m server``, a fresh data directory) with the
server's default bot settings (``--bot-pace`` 0.8 s, strong 0.1 CPU s, expert
up to 1 CPU s, two worker processes) unless flags are passed through
``--server-flag``. For every level, ``--tables`` games at once, each with one
person (this client, answering at once with a random option) and three bots of
that level, each for ``--decisions`` bot decisions. For every bot move the
client measures the wall time from the entry that made it the bot's decision
to the entry of the bot's move, both as its watch received them, and prints,
per level, how much of it went beyond the pace: median, 90th percentile and
the longest (the goal: under 0.3 s).

    python benchmarks/bot_wait_bench.py
    nice -n 10 python benchmarks/bot_wait_bench.py --tables 2 --decisions 60
    python benchmarks/bot_wait_bench.py --compare /tmp/other-checkout

``--compare`` names another checkout of the project (its own ``.venv`` runs it
if it has one): for every level, its server and this one's are measured one
after the other, each on a fresh server, so both see the same machine.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load_bench import COLOURS, _start_server  # noqa: E402
from tongiaki.client import AsyncClient  # noqa: E402
from tongiaki.v1 import game_pb2 as pb  # noqa: E402

LEVELS = {
    "random": pb.BOT_LEVEL_RANDOM,
    "greedy": pb.BOT_LEVEL_GREEDY,
    "strong": pb.BOT_LEVEL_STRONG,
    "expert": pb.BOT_LEVEL_EXPERT,
}


async def _table(client: AsyncClient, level: int, decisions: int, seed: int) -> list[float]:
    """One game of a person and three bots; the wall time of each bot move, in seconds."""
    colours = COLOURS[:4]
    bots = [pb.BotSeat(colour=c, level=level) for c in colours[1:]]  # type: ignore[arg-type]
    name = (await client.create(colours, pb.GameSettings(bots=bots))).game.name
    joined = await client.join(name, colours[0])
    token = joined.seat_token
    rng = random.Random(seed)
    gaps: list[float] = []
    await client.start(name, token)
    last = time.perf_counter()
    async for message in client.watch(name, 0, token):
        decision = None
        for entry in message.entries:
            now = time.perf_counter()
            if entry.HasField("action_applied"):
                applied = entry.action_applied
                if applied.player != joined.colour:
                    gaps.append(now - last)
                if applied.HasField("decision"):
                    decision = (entry.sequence, applied.decision)
                else:
                    return gaps
            elif entry.HasField("game_started") and entry.game_started.view.HasField("decision"):
                decision = (entry.sequence, entry.game_started.view.decision)
            last = now
        if len(gaps) >= decisions:
            return gaps
        if decision is not None and decision[1].player == joined.colour:
            sequence, pending = decision
            await client.submit(name, token, rng.choice(list(pending.options)), sequence)
    return gaps


async def _level(port: int, level: int, tables: int, decisions: int) -> list[float]:
    client = AsyncClient(f"127.0.0.1:{port}", timeout=60.0)
    try:
        results = await asyncio.gather(
            *(_table(client, level, decisions, seed) for seed in range(tables))
        )
        return [gap for gaps in results for gap in gaps]
    finally:
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", nargs="+", default=list(LEVELS), choices=list(LEVELS))
    parser.add_argument("--tables", type=int, default=1, help="games of each level at once")
    parser.add_argument("--decisions", type=int, default=40, help="bot moves measured per game")
    parser.add_argument("--pace", type=float, default=0.8, help="the server's --bot-pace")
    parser.add_argument(
        "--server-flag", action="append", default=[], help="passed to the server (repeatable)"
    )
    parser.add_argument("--compare", type=Path, default=None, help="another checkout (A/B)")
    args = parser.parse_args()
    flags = ["--bot-pace", str(args.pace), *args.server_flag]
    trees = [("this", ROOT), *([("other", args.compare.resolve())] if args.compare else [])]
    print(f"server flags: {' '.join(flags)}; {args.tables} game(s) of each level at once")
    print("level    tree   moves   beyond the pace: median     p90  longest   (seconds)")
    for name in args.levels:
        for label, tree in trees:
            gaps = _measure(tree, flags, name, args.tables, args.decisions)
            beyond = sorted(max(0.0, gap - args.pace) for gap in gaps)
            p90 = beyond[int(0.9 * (len(beyond) - 1))] if beyond else 0.0
            median = statistics.median(beyond) if beyond else 0.0
            longest = beyond[-1] if beyond else 0.0
            print(
                f"{name:8} {label:5} {len(gaps):6}   {median:21.3f}  {p90:6.3f}  {longest:7.3f}",
                flush=True,
            )


def _measure(tree: Path, flags: list[str], level: str, tables: int, decisions: int) -> list[float]:
    """The bot moves' wall times on a fresh server of checkout ``tree``."""
    with tempfile.TemporaryDirectory() as data:
        process, port, _log = _start_server(Path(data), "full", None, flags, root=tree)
        try:
            return asyncio.run(_level(port, LEVELS[level], tables, decisions))
        finally:
            process.terminate()
            process.wait(30)


if __name__ == "__main__":
    main()
