"""Fault benchmark: the fault suite (tests/faults.py), longer, and its figures.

Three nodes on a private PostgreSQL (tests/pgcluster.py, every commit
flushed), G games played and watched (two watchers each, half the games with
a bot seat), and each fault injected R times: SIGKILL of the owner of the
most games (with its bot workers), SIGSTOP of an owner past its lease, a
``pg_ctl restart -m fast``, a node at another live node's address and one at
an address nothing answers at; throughout, every fifth action is sent to two
nodes at once. Prints the faults injected, acknowledged actions lost, doubled
and misreported, games that never ended, watchers that missed or repeated an
entry, nodes unable to write after a database restart, processes left, the
takeover time (from the kill or the pause to each of the node's games having
a living owner, or ending) p50/p99, and the retryable refusals clients met per
fault. Default settings of the server (lease 1.5 s), but for its bots: they wait
0.05 s and hold an answer to a person 0.1 s, so that games end in minutes.

    python benchmarks/fault_bench.py                       # 24 games, 3 rounds
    python benchmarks/fault_bench.py --games 12 --rounds 1 # short
    python benchmarks/fault_bench.py --games 20 --rounds 8 --faults twice,restart
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import faults  # noqa: E402
from tests.pgcluster import PgCluster  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--lease", type=float, default=None, help="default: the server's")
    parser.add_argument(
        "--faults",
        default=",".join(faults.FAULTS),
        help="the faults to inject, in turn (default: all of them)",
    )
    args = parser.parse_args()
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix="tongiaki-faults-")
    with PgCluster() as pg:
        report = asyncio.run(
            faults.run(
                pg,
                Path(folder),
                games=args.games,
                nodes=args.nodes,
                rounds=args.rounds,
                faults=tuple(args.faults.split(",")),
                lease=args.lease,
                log=lambda text: print(text, file=sys.stderr, flush=True),
            )
        )
    figures = report.figures()
    figures["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(figures, indent=2))
    if report.ok:
        shutil.rmtree(folder, ignore_errors=True)
    else:
        print(f"the nodes' logs are in {folder}", file=sys.stderr)
    if not report.ok:
        print("FAILED:", report.lost, report.doubled, report.unfinished, file=sys.stderr)
        print(
            report.watch_mismatches, report.processes_left, report.address_faults, file=sys.stderr
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
