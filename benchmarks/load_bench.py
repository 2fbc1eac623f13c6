"""Load benchmark of the game server: many concurrent games played to the end over gRPC.

One server process (``python -m server`` with a fresh data directory, every action
durable) and client processes that play G games at once: each game has S seats
that act as soon as it is their turn (a random option) and W spectators, who
watch every entry. Seats send their actions over a SubmitActions stream and
watch without their own entries (``--unary``: a SubmitAction call per action
and a watch of every entry). Prints accepted actions per second, server CPU per
action (also by thread), the clients' CPU per action, action round-trip p50/p99
and spectator delivery p50/p99 (from the moment the action was sent until the
spectator received its entry).

    python benchmarks/load_bench.py                      # 50x2 and 200x10
    python benchmarks/load_bench.py --games 50 --spectators 2 --synchronous normal
    python benchmarks/load_bench.py --games 50 --spectators 2 --unary
    python benchmarks/load_bench.py --games 50 --spectators 2 --database postgres
    python benchmarks/load_bench.py --games 50 --spectators 2 --database postgres --nodes 2
    python benchmarks/load_bench.py --games 10 --spectators 200 --server-root /tmp/base

``--database postgres`` starts a private PostgreSQL cluster (tests/pgcluster.py,
every commit flushed) and ``--database postgresql://…`` uses that (empty)
database; ``--nodes N`` starts N server processes on it. A game is created on
node ``g % N`` and its seats talk to that node (``--spread``: each seat to its
own node, so that most actions are forwarded to the owner); spectators watch
on the other nodes. Server CPU is the sum over the nodes. ``--server-root DIR``
runs the server of another checkout (``git worktree add --detach DIR COMMIT``)
against the same clients, for comparing commits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from server.app import run as run_loop  # noqa: E402
from tests.launch import launch  # noqa: E402
from tests.pgcluster import PgCluster  # noqa: E402
from tongiaki.v1 import game_pb2 as pb  # noqa: E402
from tongiaki.v1 import game_service_pb2 as spb  # noqa: E402
from tongiaki.v1 import game_service_pb2_grpc as rpc  # noqa: E402

COLOURS = [
    pb.COLOUR_YELLOW,
    pb.COLOUR_ORANGE,
    pb.COLOUR_RED,
    pb.COLOUR_GREEN,
    pb.COLOUR_BLUE,
    pb.COLOUR_PURPLE,
]


@dataclass
class Scenario:
    """One load: games at once, seats and spectators per game."""

    games: int
    seats: int
    spectators: int
    #: Spectators' WatchGameRequest.gather_millis (0: each entry at once; None:
    #: left out, the server's spectator default).
    gather_ms: int | None = None


# ---------------------------------------------------------------- client side


async def _seat(
    stub: rpc.GameServiceStub,
    name: str,
    colour: int,
    token: str,
    *,
    rng: random.Random,
    sent: dict[int, float],
    round_trips: list[float],
    unary: bool,
    hold: bool,
) -> None:
    """Watch as ``colour`` and act at once whenever it is its decision.

    Actions go over one SubmitActions stream and the watch leaves out the seat's
    own entries (their responses carry them); ``unary`` uses a SubmitAction call
    per action and a watch of every entry instead; ``hold`` has the watch hold
    entries back until the seat's turn.
    """
    metadata = [("authorization", "Bearer " + token)]
    sequence, decision, acted = 0, None, -1
    actions = None if unary else stub.SubmitActions(metadata=metadata)
    watch = stub.WatchGame(
        spb.WatchGameRequest(name=name, exclude_own_actions=not unary, hold_until_turn=hold),
        metadata=metadata,
    )
    async for message in watch:
        if message.HasField("snapshot"):
            sequence = message.snapshot.sequence
            decision = message.snapshot.view.decision
        for entry in message.entries:
            if entry.sequence > sequence:
                sequence = entry.sequence
                if entry.HasField("action_applied"):
                    decision = entry.action_applied.decision
                elif entry.HasField("game_started"):
                    decision = entry.game_started.view.decision
        while decision is not None and decision.player == colour and sequence != acted:
            acted = sequence
            option = rng.choice(decision.options)
            start = time.perf_counter()
            sent[sequence + 1] = start
            request_id = f"{colour}.{sequence}"
            if actions is None:
                response: Any = await stub.SubmitAction(
                    spb.SubmitActionRequest(
                        name=name, sequence=sequence, request_id=request_id, action=option
                    ),
                    metadata=metadata,
                )
            else:
                await actions.write(
                    spb.SubmitActionsRequest(
                        name=name, sequence=sequence, request_id=request_id, action=option
                    )
                )
                response = await actions.read()
            round_trips.append(time.perf_counter() - start)
            sequence = response.entry.sequence
            applied = response.entry.action_applied
            decision = applied.decision if applied.HasField("decision") else None
    if actions is not None:
        await actions.done_writing()


async def _spectator(
    stub: rpc.GameServiceStub,
    name: str,
    sent: dict[int, float],
    delivery: list[float],
    gather_ms: int | None = None,
    *,
    messages: list[int] | None = None,
) -> None:
    """Watch without a token; time each action's entry from when it was sent.

    ``messages`` gets the number of messages the watch received.
    """
    request = spb.WatchGameRequest(name=name, gather_millis=gather_ms)
    count = 0
    async for message in stub.WatchGame(request):
        now = time.perf_counter()
        count += 1
        for entry in message.entries:
            start = sent.get(entry.sequence)
            if start is not None:
                delivery.append(now - start)
    if messages is not None:
        messages.append(count)


async def _play(
    ports: list[int],
    games: int,
    seats: int,
    spectators: int,
    *,
    seed: int,
    unary: bool,
    hold: bool,
    spread: bool,
    ready: Any,
    go: Any,
    gather_ms: int | None = None,
) -> dict[str, Any]:
    """Create ``games`` games, open every watch, then on ``go`` start them and play."""
    # Two channels per node; game g lives on node g % len(ports).
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for port in ports for _ in range(2)]
    stubs = [rpc.GameServiceStub(c) for c in channels]
    nodes = len(ports)

    def on(node: int, k: int) -> rpc.GameServiceStub:
        return stubs[(node % nodes) * 2 + k % 2]

    lobby = []
    for g in range(games):
        stub = on(g, g // nodes)
        created = await stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:seats]))
        tokens = {}
        for _ in range(seats):
            joined = await stub.JoinGame(spb.JoinGameRequest(name=created.game.name))
            tokens[joined.colour] = joined.seat_token
        lobby.append((stub, created.game.name, tokens))
    round_trips: list[float] = []
    delivery: list[float] = []
    messages: list[int] = []
    tasks = []
    for g, (stub, name, tokens) in enumerate(lobby):
        sent: dict[int, float] = {}
        for w in range(spectators):
            watcher = on(g + 1 + w, w) if nodes > 1 else on(g, w)
            tasks.append(
                asyncio.create_task(
                    _spectator(watcher, name, sent, delivery, gather_ms, messages=messages)
                )
            )
        for i, (colour, token) in enumerate(tokens.items()):
            tasks.append(
                asyncio.create_task(
                    _seat(
                        on(g + i, i) if spread else stub,
                        name,
                        colour,
                        token,
                        rng=random.Random(seed * 1000 + g * 10 + colour),
                        sent=sent,
                        round_trips=round_trips,
                        unary=unary,
                        hold=hold,
                    )
                )
            )
    await asyncio.sleep(0.5)  # every watch open
    ready.set()
    await asyncio.to_thread(go.wait)
    started = time.perf_counter()
    for stub, name, tokens in lobby:
        await stub.StartGame(
            spb.StartGameRequest(name=name),
            metadata=[("authorization", "Bearer " + next(iter(tokens.values())))],
        )
    cpu_started = time.process_time()
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    for channel in channels:
        await channel.close()
    return {
        "round_trips": round_trips,
        "delivery": delivery,
        "elapsed": elapsed,
        "cpu": cpu,
        "actions": len(round_trips),
        "spectator_messages": sum(messages),
    }


def _client(
    args: tuple[list[int], int, int, int, int, bool, bool, bool, Any, Any, int], results: Any
) -> None:
    ports, games, seats, spectators, seed, unary, hold, spread, ready, go, gather_ms = args
    try:
        results.put(
            run_loop(
                _play(
                    ports,
                    games,
                    seats,
                    spectators,
                    seed=seed,
                    unary=unary,
                    hold=hold,
                    spread=spread,
                    ready=ready,
                    go=go,
                    gather_ms=gather_ms,
                )
            )
        )
    except BaseException as error:
        ready.set()
        results.put({"error": repr(error)})
        raise


# ---------------------------------------------------------------- server side


def _start_server(
    data: Path,
    synchronous: str,
    database: str | None,
    extra: Sequence[str] = (),
    root: Path = ROOT,
) -> tuple[subprocess.Popen[bytes], int, Path]:
    """``python -m server`` of the checkout ``root`` on a free port (``extra``: more flags).

    Returns its process, port and log.
    """
    # TONGIAKI_BENCH_PROFILE=file runs the server under cProfile (for finding hot
    # spots); with several nodes, each writes file.nodeN.
    profile = os.environ.get("TONGIAKI_BENCH_PROFILE")
    if profile and data.name.startswith("node"):
        profile = f"{profile}.{data.name}"
    server = launch(
        [
            *("--host", "127.0.0.1", "--data-dir", str(data), "--synchronous", synchronous),
            *(["--database", database] if database else []),
            "--log-level",
            "WARNING",
            # One client plays every game here: no per-client limits.
            *("--games-per-minute", "0", "--watches-per-client", "0"),
            *extra,
        ],
        data,
        tree=root,
        python_args=["-m", "cProfile", "-o", profile] if profile else [],
        env={"TONGIAKI_LOG_LEVEL": "WARNING"},
    )
    return server.process, server.port, server.log


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of each of the process's threads, summed by thread name."""
    out: dict[str, float] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue
        head, _, rest = stat.rpartition(")")
        name = "main" if tid == str(pid) else head.split("(", 1)[1]
        fields = rest.split()
        seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        out[name] = out.get(name, 0.0) + seconds
    return out


def _threads_cpu(processes: list[subprocess.Popen[bytes]]) -> dict[str, float]:
    """CPU seconds by thread name, summed over the processes."""
    out: dict[str, float] = {}
    for process in processes:
        for name, seconds in _thread_cpu(process.pid).items():
            out[name] = out.get(name, 0.0) + seconds
    return out


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0.0


def run(
    scenario: Scenario,
    synchronous: str,
    clients: int,
    seed: int,
    *,
    unary: bool = False,
    hold: bool = False,
    database: str | None = None,
    nodes: int = 1,
    spread: bool = False,
    server_root: Path = ROOT,
) -> dict[str, Any]:
    """Run one scenario against fresh servers (of the checkout ``server_root``); its figures."""
    with tempfile.TemporaryDirectory(prefix="tongiaki-bench-") as tmp:
        servers = [
            _start_server(Path(tmp) / f"node{n}", synchronous, database, root=server_root)
            for n in range(nodes)
        ]
        processes = [process for process, _, _ in servers]
        ports = [port for _, port, _ in servers]
        try:
            context = multiprocessing.get_context("spawn")
            manager = context.Manager()
            readies = [manager.Event() for _ in range(clients)]
            go = manager.Event()
            shares = [
                scenario.games // clients + (i < scenario.games % clients) for i in range(clients)
            ]
            queue = manager.Queue()
            workers = [
                context.Process(
                    target=_client,
                    args=(
                        (
                            ports,
                            shares[i],
                            scenario.seats,
                            scenario.spectators,
                            seed + i,
                            unary,
                            hold,
                            spread,
                            readies[i],
                            go,
                            scenario.gather_ms,
                        ),
                        queue,
                    ),
                )
                for i in range(clients)
            ]
            for worker in workers:
                worker.start()
            for ready in readies:
                ready.wait()
            cpu_before = sum(_cpu_seconds(p.pid) for p in processes)
            threads_before = _threads_cpu(processes)
            wall_before = time.perf_counter()
            go.set()
            results = [queue.get() for _ in workers]
            wall = time.perf_counter() - wall_before
            cpu = sum(_cpu_seconds(p.pid) for p in processes) - cpu_before
            threads = {
                name: seconds - threads_before.get(name, 0.0)
                for name, seconds in _threads_cpu(processes).items()
            }
            for worker in workers:
                worker.join()
            errors = [r["error"] for r in results if "error" in r]
            if errors:
                raise RuntimeError(f"a client failed: {errors}")
            manager.shutdown()
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=30)
    actions = sum(r["actions"] for r in results)
    round_trips = [x for r in results for x in r["round_trips"]]
    delivery = [x for r in results for x in r["delivery"]]
    return {
        "games": scenario.games,
        "seats": scenario.seats,
        "spectators": scenario.spectators,
        "gather_ms": scenario.gather_ms,
        "synchronous": synchronous,
        "store": "PostgreSQL" if database else "SQLite",
        "nodes": nodes,
        "seats_spread": spread,
        "client_processes": clients,
        "seat_calls": "SubmitAction" if unary else "SubmitActions",
        "seat_watch": "held until their turn" if hold else "live",
        "actions": actions,
        "seconds": round(wall, 2),
        "actions_per_second": round(actions / wall, 1),
        "server_cpu_seconds": round(cpu, 2),
        "server_cpu_us_per_action": round(cpu / actions * 1e6, 1),
        "server_threads_us_per_action": {
            name: round(seconds / actions * 1e6, 1)
            for name, seconds in sorted(threads.items(), key=lambda item: -item[1])
            if seconds > 0
        },
        "client_cpu_us_per_action": round(sum(r["cpu"] for r in results) / actions * 1e6, 1),
        "round_trip_ms_p50": round(_percentile(round_trips, 50) * 1e3, 1),
        "round_trip_ms_p99": round(_percentile(round_trips, 99) * 1e3, 1),
        "delivery_ms_p50": round(_percentile(delivery, 50) * 1e3, 1),
        "delivery_ms_p99": round(_percentile(delivery, 99) * 1e3, 1),
        "deliveries": len(delivery),
        "spectator_messages": sum(r["spectator_messages"] for r in results),
    }


def main() -> None:
    """Run the scenarios given (by default 50x2 and 200x10) and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="one scenario with this many games")
    parser.add_argument("--spectators", type=int, default=2)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--synchronous", choices=["full", "normal"], default="full")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--unary",
        action="store_true",
        help="seats send a SubmitAction call per action and watch every entry",
    )
    parser.add_argument(
        "--hold", action="store_true", help="seats' watches hold entries until their turn"
    )
    parser.add_argument(
        "--gather-ms",
        type=int,
        default=None,
        help="spectators ask for entries gathered this long (WatchGameRequest.gather_millis;"
        " default: left out, the server's spectator default; 0: each entry at once)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON lines only")
    parser.add_argument(
        "--database",
        help="postgres: a private PostgreSQL cluster; or a postgresql:// URL (default: SQLite)",
    )
    parser.add_argument("--nodes", type=int, default=1, help="server processes (PostgreSQL)")
    parser.add_argument(
        "--spread", action="store_true", help="each seat talks to its own node, not the game's"
    )
    parser.add_argument(
        "--server-root",
        type=Path,
        default=ROOT,
        help="run the server of this checkout (e.g. a git worktree of another commit)",
    )
    args = parser.parse_args()
    if args.nodes > 1 and not args.database:
        parser.error("--nodes above 1 needs --database")
    if args.database != "postgres":
        _scenarios(args, lambda: args.database)
        return
    with PgCluster(durable=True) as cluster:  # a fresh database for every scenario
        _scenarios(args, cluster.create_database)


def _scenarios(args: argparse.Namespace, database: Callable[[], str | None]) -> None:
    """Run and print every scenario the command line asks for."""
    scenarios = (
        [Scenario(args.games, args.seats, args.spectators, args.gather_ms)]
        if args.games
        else [Scenario(50, 4, 2, args.gather_ms), Scenario(200, 4, 10, args.gather_ms)]
    )
    for scenario in scenarios:
        figures = run(
            scenario,
            args.synchronous,
            args.clients,
            args.seed,
            unary=args.unary,
            hold=args.hold,
            database=database(),
            nodes=args.nodes,
            spread=args.spread,
            server_root=args.server_root,
        )
        figures["server_root"] = str(args.server_root)
        if args.json:
            print(json.dumps(figures), flush=True)
            continue
        print(
            f"{figures['games']} games x {figures['seats']} seats + "
            f"{figures['spectators']} spectators, {figures['store']} x {figures['nodes']} node(s)"
            f"{' (seats spread)' if figures['seats_spread'] else ''}, "
            f"synchronous={figures['synchronous']}, "
            f"{figures['client_processes']} client processes, seats use "
            f"{figures['seat_calls']}, seat watches {figures['seat_watch']}"
            f"{'' if args.server_root == ROOT else ', server of ' + str(args.server_root)}",
            flush=True,
        )
        print(
            f"  accepted actions     {figures['actions']} in {figures['seconds']} s = "
            f"{figures['actions_per_second']} actions/s"
        )
        print(f"  server CPU           {figures['server_cpu_us_per_action']} us per action")
        by_thread = ", ".join(
            f"{name} {us}" for name, us in figures["server_threads_us_per_action"].items()
        )
        print(f"    by thread          {by_thread}")
        print(f"  client CPU           {figures['client_cpu_us_per_action']} us per action")
        print(
            f"  action round trip    p50 {figures['round_trip_ms_p50']} ms, "
            f"p99 {figures['round_trip_ms_p99']} ms"
        )
        print(
            f"  spectator delivery   p50 {figures['delivery_ms_p50']} ms, "
            f"p99 {figures['delivery_ms_p99']} ms ({figures['deliveries']} deliveries"
            f" in {figures['spectator_messages']} messages)",
            flush=True,
        )


if __name__ == "__main__":
    main()
