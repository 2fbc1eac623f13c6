"""Store scale: a server over 100,000 finished games and 1,000 live ones.

Fills a store (SQLite in a temporary folder, or the PostgreSQL database given)
with real game logs written in bulk, then starts ``python -m server`` on it and
prints:

- the time from starting the process until it answers (ListGames),
- its memory (resident set) once started,
- the memory each live game costs once it is in memory and watched,
- the first GetGame of a cold game (finished, and live), median and p90.

    python benchmarks/store_bench.py                          # SQLite
    python benchmarks/store_bench.py --database postgresql://USER@HOST:PORT/DB
    python benchmarks/store_bench.py --finished 10000 --live 200   # smaller
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import random
import secrets
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402
import psycopg  # noqa: E402

from engine import COLOURS, Game  # noqa: E402
from engine.playout import SplitMix64, shuffled_stack  # noqa: E402
from server.storage.base import dumps  # noqa: E402
from server.storage.postgres import SCHEMA, is_url  # noqa: E402
from server.storage.sqlite import SqliteStore  # noqa: E402
from tongiaki.v1 import game_service_pb2 as spb  # noqa: E402
from tongiaki.v1 import game_service_pb2_grpc as rpc  # noqa: E402

SEATS = 4
#: Distinct finished games played with the engine; the store holds copies of them
#: under new ids (live games are each played anew).
TEMPLATES = 40


def _template(seed: int, finished: bool) -> dict[str, Any]:
    """A random 4-seat game: its set-up, log entries and summary (played to the end or not)."""
    rng = SplitMix64(seed)
    seats = list(COLOURS[:SEATS])
    stack = shuffled_stack(seed)
    game = Game.new(seats, stack)
    entries: list[tuple[str, dict[str, Any]]] = []
    for colour in seats:
        entries.append(("joined", {"colour": colour, "token": "", "name": f"player {colour}"}))
    entries.append(("started", {}))
    steps = 0
    while not game.over and (finished or steps < 40):
        player = game.decision.player if game.decision else ""
        game.apply_option(rng.below(len(game.options())))
        entries.append(
            ("action", {"player": player, "action": game.actions[-1], "request": f"r{steps}"})
        )
        steps += 1
    seat_info = [
        {"colour": c, "name": f"player {c}", "occupied": True, "bot": "", "takeover": ""}
        for c in seats
    ]
    return {
        "seats": seats,
        "stack": stack,
        "entries": entries,
        "state": "finished" if game.over else "active",
        "seat_info": seat_info,
        "result": game.result if game.over else None,
    }


def _games(finished: int, live: int) -> Iterator[tuple[int, str, dict[str, Any], list[str]]]:
    """(ordinal, id, template, token hashes) of every game to store."""
    done = [_template(seed, True) for seed in range(TEMPLATES)]
    # Every live game is a game of its own: what games share in memory is measured honestly.
    going = [_template(1_000_000 + seed, False) for seed in range(live)]
    for ordinal in range(1, finished + live + 1):
        template = (
            done[ordinal % TEMPLATES] if ordinal <= finished else going[ordinal - finished - 1]
        )
        tokens = [hashlib.sha256(secrets.token_bytes(16)).hexdigest() for _ in range(SEATS)]
        yield ordinal, secrets.token_hex(8), template, tokens


def _rows(
    finished: int, live: int
) -> Iterator[tuple[tuple[Any, ...], list[tuple[Any, ...]], list[tuple[str, str]]]]:
    """Per game: its games row, its entries rows and its token rows."""
    created = time.time() - 86400
    for ordinal, gid, t, tokens in _games(finished, live):
        entries = []
        for seq, (kind, body) in enumerate(t["entries"], 1):
            stored = {**body, "token": tokens[seq - 1]} if kind == "joined" else body
            entries.append((gid, seq, kind, dumps(stored)))
        game = (
            gid,
            ordinal,
            dumps(t["seats"]),
            dumps(t["stack"]),
            dumps({"display_name": f"table {ordinal}", "auto_start": False}),
            created + ordinal * 0.01,
            t["state"],
            len(entries),
            0,
            SEATS,
            dumps(t["seat_info"]),
            None if t["result"] is None else dumps(t["result"]),
            None,
        )
        live_tokens = [] if t["state"] == "finished" else [(h, gid) for h in tokens]
        yield game, entries, live_tokens


def fill_sqlite(path: Path, finished: int, live: int) -> dict[str, Any]:
    """Write the games into a new SQLite store at ``path``."""
    SqliteStore(path)  # creates the schema
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("BEGIN")
    ids: dict[str, list[str]] = {"finished": [], "active": []}
    count = 0
    for game, entries, tokens in _rows(finished, live):
        conn.execute(
            "INSERT INTO games (id, ordinal, seats, stack, settings, created, state, sequence,"
            " open_seats, people, seat_info, result, attention)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            game,
        )
        conn.executemany("INSERT INTO entries (game, seq, kind, body) VALUES (?,?,?,?)", entries)
        conn.executemany("INSERT INTO tokens (hash, game) VALUES (?,?)", tokens)
        ids[game[6]].append(game[0])
        count += len(entries)
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return {"ids": ids, "entries": count, "bytes": path.stat().st_size}


def fill_postgres(url: str, finished: int, live: int) -> dict[str, Any]:
    """Write the games into the (empty) PostgreSQL database at ``url`` with COPY."""
    ids: dict[str, list[str]] = {"finished": [], "active": []}
    count = 0
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(SCHEMA)
        with conn.cursor() as cur:
            cur.execute("ALTER TABLE entries DISABLE TRIGGER entries_guard")
            with (
                cur.copy(
                    "COPY games (id, ordinal, seats, stack, settings, created, state, sequence,"
                    " open_seats, people, seat_info, result, attention) FROM STDIN"
                ) as games,
            ):
                rows = list(_rows(finished, live))
                for game, _, _ in rows:
                    games.write_row(game)
                    ids[game[6]].append(game[0])
            with cur.copy("COPY entries (game, seq, kind, body) FROM STDIN") as copy:
                for _, entries, _ in rows:
                    for entry in entries:
                        copy.write_row(entry)
                    count += len(entries)
            with cur.copy("COPY tokens (hash, game) FROM STDIN") as copy:
                for _, _, tokens in rows:
                    for token in tokens:
                        copy.write_row(token)
            cur.execute("ALTER TABLE entries ENABLE TRIGGER entries_guard")
            cur.execute("SELECT setval('game_ordinals', %s)", (finished + live,))
            cur.execute("ANALYZE")
            size = cur.execute("SELECT pg_database_size(current_database())").fetchone()
    return {"ids": ids, "entries": count, "bytes": size[0] if size else 0}


def rss(pid: int) -> int:
    """Resident memory of a process, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


async def measure(args: argparse.Namespace, data: Path, filled: dict[str, Any]) -> None:
    port_file = data / "port"
    command = [
        sys.executable,
        "-m",
        "server",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--port-file",
        str(port_file),
        "--data-dir",
        str(data),
        "--idle",
        "3600",
        # One client watches every live game here: no per-client limits.
        "--games-per-minute",
        "0",
        "--watches-per-client",
        "0",
    ]
    if args.database:
        command += ["--database", args.database]
    log = (data / "server.log").open("wb")
    began = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stderr=log)
    try:
        while not port_file.exists():
            await asyncio.sleep(0.005)
        target = f"127.0.0.1:{port_file.read_text().strip()}"
        async with grpc.aio.insecure_channel(target) as channel:
            stub = rpc.GameServiceStub(channel)
            while True:
                try:
                    await stub.ListGames(spb.ListGamesRequest(page_size=1))
                    break
                except grpc.aio.AioRpcError as error:
                    if error.code() != grpc.StatusCode.UNAVAILABLE:
                        raise
                    await asyncio.sleep(0.005)
            ready = time.perf_counter() - began
            await asyncio.sleep(1.0)
            started = rss(process.pid)
            ids = filled["ids"]
            rng = random.Random(1)

            async def cold(name: str) -> float:
                t = time.perf_counter()
                await stub.GetGame(spb.GetGameRequest(name="games/" + name))
                return time.perf_counter() - t

            cold_finished = [await cold(g) for g in rng.sample(ids["finished"], 50)]
            live = ids["active"]
            cold_live = [await cold(g) for g in live[:50]]
            # Every live game in memory, then watched by a spectator each.
            before = rss(process.pid)
            for g in live[50:]:
                await cold(g)
            await asyncio.sleep(1.0)
            loaded = rss(process.pid)
            per_game = (loaded - before) / (len(live) - 50)
            watches = [stub.WatchGame(spb.WatchGameRequest(name="games/" + g)) for g in live]
            for watch in watches:
                await watch.read()
            await asyncio.sleep(1.0)
            per_watch = (rss(process.pid) - loaded) / len(live)
            for watch in watches:
                watch.cancel()
    finally:
        process.terminate()
        process.wait()
        log.close()

    def ms(values: list[float]) -> str:
        q = statistics.quantiles(values, n=10)
        return f"{statistics.median(values) * 1000:.1f} ms median, {q[-1] * 1000:.1f} ms p90"

    store = "PostgreSQL" if args.database else "SQLite"
    print(f"store: {store}, {args.finished:,} finished + {args.live:,} live games")
    print(f"  stored entries: {filled['entries']:,}, size: {filled['bytes'] / 2**20:,.0f} MiB")
    print(f"  ready (start until ListGames answers): {ready:.2f} s")
    print(f"  memory after start: {started / 2**20:.0f} MB")
    print(f"  memory per live game in memory: {per_game / 1024:.1f} KB")
    print(f"  memory per open watch of one: {per_watch / 1024:.1f} KB")
    print(f"  first GetGame of a cold finished game: {ms(cold_finished)}")
    print(f"  first GetGame of a cold live game: {ms(cold_live)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--finished", type=int, default=100_000)
    parser.add_argument("--live", type=int, default=1_000)
    parser.add_argument(
        "--database", default=None, help="an empty PostgreSQL database (default: SQLite)"
    )
    args = parser.parse_args()
    if args.database and not is_url(args.database):
        parser.error("--database takes a postgresql:// URL")
    with tempfile.TemporaryDirectory(prefix="store-bench-") as folder:
        data = Path(folder)
        began = time.perf_counter()
        if args.database:
            filled = fill_postgres(args.database, args.finished, args.live)
        else:
            filled = fill_sqlite(data / "tongiaki.sqlite3", args.finished, args.live)
        print(f"filled in {time.perf_counter() - began:.0f} s", file=sys.stderr)
        asyncio.run(measure(args, data, filled))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
