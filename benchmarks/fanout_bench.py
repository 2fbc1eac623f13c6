"""The watch path's own cost per watcher and message, without gRPC.

One game's ``Hub`` with W watchers, each drained by a task as a watch stream
would (one more turn of the loop per message, where gRPC's write would be);
publishes M entries and prints the CPU per watcher and message.

    python benchmarks/fanout_bench.py
    python benchmarks/fanout_bench.py --watchers 200 --entries 2000 --gather-ms 5
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.app import run as run_loop
from server.game.fanout import End, Hub, Watcher


async def _drain(watcher: Watcher) -> int:
    messages = 0
    while isinstance(await watcher.next(), bytes):
        messages += 1
        await asyncio.sleep(0)  # where a stream awaits its write
    return messages


async def _measure(watchers: int, entries: int, gather: float) -> tuple[float, int]:
    hub = Hub(limit=64)
    tasks = [asyncio.create_task(_drain(hub.subscribe(0, gather=gather))) for _ in range(watchers)]
    await asyncio.sleep(0)
    started = time.process_time()
    for sequence in range(1, entries + 1):
        hub.publish(sequence, b"x" * 80)
        if gather:
            await asyncio.sleep(gather / 4)
        else:
            for _ in range(3):
                await asyncio.sleep(0)
    hub.close(End.FINISHED)
    messages = sum(await asyncio.gather(*tasks))
    return time.process_time() - started, messages


def main() -> None:
    """Print the watch path's CPU per watcher and entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--gather-ms", type=int, default=0)
    args = parser.parse_args()
    cpu, messages = run_loop(_measure(args.watchers, args.entries, args.gather_ms / 1000))
    per = cpu / (args.watchers * args.entries) * 1e6
    print(
        f"{args.watchers} watchers x {args.entries} entries: {messages} messages, "
        f"{per:.2f} us of CPU per watcher and entry"
    )


if __name__ == "__main__":
    main()
