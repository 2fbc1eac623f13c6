"""Do strong bots slow people's games? Other games' actions and GetGame while bots search.

One server process (``python -m server``, a fresh data directory). People's
games: ``--people`` two-seat games played by one client with random options
(a SubmitAction per action, as a browser's gateway does) and a loop of GetGame
calls on one of them. First for ``--seconds`` with no bot anywhere, then again
while ``--bot-games`` games of strong bots only (``--strong-budget`` CPU seconds
a decision) play on the same server. Each phase prints the people's actions per
second and GetGame's median and p90 latency. Run with bots thinking in worker
processes (the server's default) and in threads of the server's process
(``--bot-threads``), one after the other:

    python benchmarks/bots_bench.py
    python benchmarks/bots_bench.py --bot-games 6 --people 20 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from benchmarks.load_bench import COLOURS, _start_server  # noqa: E402
from tongiaki.client import AsyncClient  # noqa: E402
from tongiaki.v1 import game_pb2 as pb  # noqa: E402
from tongiaki.v1 import game_service_pb2 as spb  # noqa: E402
from tongiaki.v1 import game_service_pb2_grpc as rpc  # noqa: E402


def _start(data: Path, budget: float, threads: bool) -> tuple[subprocess.Popen[bytes], int]:
    flags = ["--strong-budget", str(budget), "--bot-pace", "0"]
    process, port, _log = _start_server(
        data, "full", None, [*flags, *(["--bot-threads"] if threads else [])]
    )
    return process, port


async def _person_game(client: AsyncClient, rng: random.Random, until: float) -> int:
    """Play a two-seat game of people with random options until ``until``; actions made."""
    name = (await client.create(COLOURS[:2])).game.name
    tokens = {}
    for _ in range(2):
        joined = await client.join(name)
        tokens[joined.colour] = joined.seat_token
    await client.start(name, next(iter(tokens.values())))
    got = await client.call("GetGame", spb.GetGameRequest(name=name))
    sequence = got.snapshot.sequence
    decision: Any = got.snapshot.view.decision if got.snapshot.view.HasField("decision") else None
    actions = 0
    while decision is not None and time.perf_counter() < until:
        entry = await client.submit(
            name, tokens[decision.player], rng.choice(decision.options), sequence
        )
        actions += 1
        sequence = entry.sequence
        applied = entry.action_applied
        decision = applied.decision if applied.HasField("decision") else None
    return actions


async def _people(port: int, games: int, seconds: float) -> tuple[float, list[float]]:
    """People's actions per second and GetGame latencies over ``seconds``."""
    client = AsyncClient(f"127.0.0.1:{port}")
    try:
        probe = (await client.create(COLOURS[:2])).game.name
        rng = random.Random(7)
        began = time.perf_counter()
        until = began + seconds
        latencies: list[float] = []

        async def getter() -> None:
            while time.perf_counter() < until:
                start = time.perf_counter()
                await client.call("GetGame", spb.GetGameRequest(name=probe))
                latencies.append(time.perf_counter() - start)
                await asyncio.sleep(0.01)

        async def player() -> int:
            done = 0
            while time.perf_counter() < until:
                done += await _person_game(client, rng, until)
            return done

        results = await asyncio.gather(getter(), *(player() for _ in range(games)))
        actions = sum(r for r in results[1:] if isinstance(r, int))
        return actions / (time.perf_counter() - began), latencies
    finally:
        await client.close()


async def _start_bots(port: int, games: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = rpc.GameServiceStub(channel)
        for _ in range(games):
            await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=COLOURS[:2],
                    settings=pb.GameSettings(
                        bots=[pb.BotSeat(colour=c, level=pb.BOT_LEVEL_STRONG) for c in COLOURS[:2]]
                    ),
                )
            )


def _line(label: str, rate: float, latencies: list[float]) -> str:
    ms = sorted(x * 1000 for x in latencies)
    p90 = ms[int(0.9 * (len(ms) - 1))] if ms else 0.0
    median = statistics.median(ms) if ms else 0.0
    return (
        f"  {label:<28} {rate:8.0f} actions/s   GetGame median {median:6.1f} ms, p90 {p90:6.1f} ms"
    )


def run(args: argparse.Namespace, threads: bool) -> None:
    where = "threads of the server" if threads else "worker processes (default)"
    print(f"bots think in {where}:")
    with tempfile.TemporaryDirectory() as data:
        process, port = _start(Path(data), args.strong_budget, threads)
        try:
            rate, latencies = asyncio.run(_people(port, args.people, args.seconds))
            print(_line("no bots", rate, latencies), flush=True)
            asyncio.run(_start_bots(port, args.bot_games))
            rate, latencies = asyncio.run(_people(port, args.people, args.seconds))
            print(_line(f"{args.bot_games} games of strong bots", rate, latencies), flush=True)
        finally:
            process.terminate()
            process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--people", type=int, default=10, help="people's games played at once")
    parser.add_argument("--bot-games", type=int, default=6, help="games of strong bots")
    parser.add_argument("--strong-budget", type=float, default=1.0, help="seconds a decision")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    args = parser.parse_args()
    run(args, threads=False)
    run(args, threads=True)


if __name__ == "__main__":
    main()
