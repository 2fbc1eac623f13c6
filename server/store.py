"""The durable event log: an embedded SQLite database with group commit.

Every game is a row of ``games`` (seats, the secret stack, settings) and its
log a run of ``entries`` rows (sequence, kind, JSON body). Writes go to one
writer thread that commits everything queued since its last commit in one
transaction, so many games share one fsync. A write's future completes only
after its transaction committed: callers acknowledge nothing before that.

Durability: WAL mode. ``synchronous=FULL`` (the default) fsyncs the WAL at
every commit, so an acknowledged action survives a crash of the machine too;
``NORMAL`` fsyncs only at checkpoints, which still survives the process being
killed (the WAL is in the operating system's cache) but not a power cut. Group
commit makes FULL cheap enough to be the default.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       TEXT PRIMARY KEY,
    ordinal  INTEGER NOT NULL UNIQUE,
    seats    TEXT NOT NULL,
    stack    TEXT NOT NULL,
    settings TEXT NOT NULL,
    created  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    game TEXT NOT NULL,
    seq  INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
"""

SYNCHRONOUS = ("FULL", "NORMAL")

Statement = tuple[str, tuple[Any, ...]]


@dataclass
class StoredGame:
    """A game as stored: set-up and log entries ``(seq, kind, body)`` in order."""

    id: str
    ordinal: int
    seats: list[str]
    stack: list[str]
    settings: dict[str, Any]
    created: float
    entries: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)


def dumps(value: Any) -> str:
    """Compact JSON for stored bodies."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Store:
    """The SQLite event log of every game, written by one group-committing thread."""

    def __init__(self, path: Path, synchronous: str = "FULL") -> None:
        if synchronous.upper() not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS}")
        self.path = path
        self.synchronous = synchronous.upper()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._queue: queue.SimpleQueue[tuple[list[Statement], asyncio.Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.commits = 0
        self.writes = 0
        with self._connect() as conn:
            conn.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self.synchronous}")
        return conn

    def load(self) -> list[StoredGame]:
        """Every stored game with its log, in creation order (at start-up, before writes)."""
        conn = self._connect()
        try:
            games: dict[str, StoredGame] = {}
            for gid, ordinal, seats, stack, settings, created in conn.execute(
                "SELECT id, ordinal, seats, stack, settings, created FROM games ORDER BY ordinal"
            ):
                games[gid] = StoredGame(
                    gid,
                    ordinal,
                    json.loads(seats),
                    json.loads(stack),
                    json.loads(settings),
                    created,
                )
            for gid, seq, kind, body in conn.execute(
                "SELECT game, seq, kind, body FROM entries ORDER BY game, seq"
            ):
                games[gid].entries.append((seq, kind, json.loads(body)))
            return list(games.values())
        finally:
            conn.close()

    def start(self) -> None:
        """Start the writer thread; writes complete on the running event loop."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="store-writer", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Commit what is queued and stop the writer thread."""
        if self._thread is None:
            return
        self._queue.put(None)
        await asyncio.to_thread(self._thread.join)
        self._thread = None

    def write(self, statements: list[Statement]) -> asyncio.Future[None]:
        """Queue ``statements`` for the next group commit; the future completes once durable."""
        assert self._loop is not None, "Store.start() was not called"
        future: asyncio.Future[None] = self._loop.create_future()
        self._queue.put((statements, future))
        return future

    def create_game(self, game: StoredGame) -> asyncio.Future[None]:
        """Write a new game's set-up row."""
        return self.write(
            [
                (
                    "INSERT INTO games (id, ordinal, seats, stack, settings, created) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        game.id,
                        game.ordinal,
                        dumps(game.seats),
                        dumps(game.stack),
                        dumps(game.settings),
                        game.created,
                    ),
                )
            ]
        )

    def append(self, game: str, seq: int, kind: str, body: dict[str, Any]) -> asyncio.Future[None]:
        """Write one log entry."""
        return self.write(
            [
                (
                    "INSERT INTO entries (game, seq, kind, body) VALUES (?, ?, ?, ?)",
                    (game, seq, kind, dumps(body)),
                )
            ]
        )

    # ------------------------------------------------------------ writer thread

    def _run(self) -> None:
        conn = self._connect()
        stopping = False
        try:
            while not stopping:
                item = self._queue.get()
                batch = []
                while item is not None:
                    batch.append(item)
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                else:
                    stopping = True
                if batch:
                    self._commit(conn, batch)
        finally:
            conn.close()

    def _commit(
        self, conn: sqlite3.Connection, batch: list[tuple[list[Statement], asyncio.Future[None]]]
    ) -> None:
        error: BaseException | None = None
        try:
            conn.execute("BEGIN")
            for statements, _ in batch:
                for sql, params in statements:
                    conn.execute(sql, params)
            conn.execute("COMMIT")
            self.commits += 1
            self.writes += len(batch)
        except sqlite3.Error as exc:
            log.exception("commit failed")
            error = exc
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        assert self._loop is not None
        self._loop.call_soon_threadsafe(_settle, [f for _, f in batch], error)


def _settle(futures: list[asyncio.Future[None]], error: BaseException | None) -> None:
    for future in futures:
        if future.done():
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)
