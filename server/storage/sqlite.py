"""The embedded store: one SQLite database with group commit.

Writes go to one writer thread that commits everything queued since its last
commit in one transaction (a refused append fails alone), so many games share
one fsync. A write's future completes
only after its transaction committed.

Durability: WAL mode. ``synchronous=FULL`` (the default) fsyncs the WAL at
every commit, so an acknowledged action survives a crash of the machine too;
``NORMAL`` fsyncs only at checkpoints, which still survives the process being
killed (the WAL is in the operating system's cache) but not a power cut.

A database written by an earlier version (schema 1: set-up rows and entries,
no summaries) is upgraded in place when opened: the new columns and the token
table are added, and the games are marked for :meth:`SqliteStore.unsummarized`,
whose summaries the server fills in once by replaying them. Schema 3 adds the
table of CreateGame request ids.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.storage.base import (
    CREATE_REQUEST_SECONDS,
    MAX_PAGE,
    Conflict,
    Entry,
    Requested,
    Setup,
    Store,
    Stored,
    Summary,
    Tokens,
    dumps,
    parse_result,
    result_text,
)

log = logging.getLogger(__name__)

#: The schema version this module writes (PRAGMA user_version).
SCHEMA_VERSION = 3

_TABLES = """
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

#: Columns schema 2 adds to ``games``; ``sequence`` -1 marks a game to summarize.
_SUMMARY_COLUMNS = (
    "state TEXT NOT NULL DEFAULT 'open'",
    "sequence INTEGER NOT NULL DEFAULT -1",
    "open_seats INTEGER NOT NULL DEFAULT 0",
    "people INTEGER NOT NULL DEFAULT 0",
    "seat_info TEXT NOT NULL DEFAULT '[]'",
    "result TEXT",
    "attention REAL",
)

_INDEXES = """
CREATE TABLE IF NOT EXISTS tokens (
    hash TEXT PRIMARY KEY,
    game TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS games_by_state ON games (state, ordinal);
CREATE INDEX IF NOT EXISTS games_with_open_seats ON games (ordinal) WHERE open_seats > 0;
CREATE INDEX IF NOT EXISTS games_due ON games (attention) WHERE attention IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_unsummarized ON games (ordinal) WHERE sequence < 0;
CREATE INDEX IF NOT EXISTS games_open_unheld ON games (created) WHERE state = 'open' AND people = 0;
CREATE TABLE IF NOT EXISTS create_requests (
    key   TEXT PRIMARY KEY,
    game  TEXT NOT NULL,
    asked TEXT NOT NULL,
    at    REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS create_requests_by_time ON create_requests (at);
"""

SYNCHRONOUS = ("FULL", "NORMAL")

#: The sequence of a game's last entry (0: none), for the game ``{}`` names.
_LAST_ENTRY = "(SELECT coalesce(max(seq), 0) FROM entries WHERE game = {})"

#: A game's row as read. ``games.sequence`` is written with the rest of the
#: summary, not with every entry: the sequence read is the last entry's
#: (-1 still marks a game written by schema 1, to summarize).
_COLUMNS = (
    "id, ordinal, seats, stack, settings, created, state,"
    f" CASE WHEN sequence < 0 THEN sequence ELSE {_LAST_ENTRY.format('games.id')} END,"
    " seat_info, result"
)

#: The last sequence of a game that exists, summarized (no row: no such game).
_LAST = f"SELECT {_LAST_ENTRY.format('?1')} FROM games WHERE id = ?1 AND sequence >= 0"

#: How many games' last sequences the writer keeps (past that it forgets them all
#: and reads each again on its next append).
LAST_KNOWN = 50_000

#: One write: statements run in the group's transaction; one that is refused must
#: fail on its first statement.
Work = Callable[[sqlite3.Connection], None]


def _summary_params(summary: Summary) -> tuple[Any, ...]:
    return (
        summary.state,
        summary.sequence,
        summary.open_seats,
        summary.people,
        dumps(summary.seats),
        result_text(summary),
        summary.attention,
    )


def _stored(row: tuple[Any, ...]) -> Stored:
    gid, ordinal, seats, stack, settings, created, state, sequence, seat_info, result = row
    setup = Setup(gid, ordinal, json.loads(seats), json.loads(stack), json.loads(settings), created)
    result, stopped = parse_result(result)
    summary = Summary(
        state=state,
        sequence=sequence,
        seats=json.loads(seat_info),
        result=result,
        stopped=stopped,
    )
    return Stored(setup, summary)


class SqliteStore(Store):
    """Every game in one SQLite file, written by one group-committing thread."""

    def __init__(self, path: Path, synchronous: str = "FULL") -> None:
        if synchronous.upper() not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS}")
        self.path = path
        self.synchronous = synchronous.upper()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._queue: queue.SimpleQueue[tuple[Work, asyncio.Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._reader: sqlite3.Connection | None = None
        self._ordinal = 0
        #: Game -> its last sequence, as committed or being committed (writer thread only).
        self._last: dict[str, int] = {}
        self.commits = 0
        self.writes = 0
        #: Whether opening upgraded the database from an earlier schema.
        self.upgraded = False
        conn = self._connect()
        try:
            self._migrate(conn)
        finally:
            conn.close()

    @property
    def description(self) -> str:
        """The file and its durability."""
        return f"sqlite:{self.path} (synchronous={self.synchronous})"

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={self.synchronous}")
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise RuntimeError(f"{self.path} has schema {version}, newer than this server's")
        if version == SCHEMA_VERSION:
            return
        # Each step is idempotent, so a start cut off mid-way redoes it.
        conn.executescript(_TABLES)
        conn.execute("BEGIN IMMEDIATE")
        columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
        if "sequence" in columns:
            (existing,) = conn.execute("SELECT count(*) FROM games WHERE sequence < 0").fetchone()
        else:
            (existing,) = conn.execute("SELECT count(*) FROM games").fetchone()
        for column in _SUMMARY_COLUMNS:
            if column.split()[0] not in columns:
                conn.execute(f"ALTER TABLE games ADD COLUMN {column}")
        conn.execute("COMMIT")
        conn.executescript(_INDEXES)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self.upgraded = existing > 0
        if self.upgraded:
            log.info("database upgraded", extra={"path": str(self.path), "games": existing})

    # ------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Start the writer thread; writes complete on the running event loop."""
        self._loop = asyncio.get_running_loop()
        self._reader = self._connect()
        (last,) = self._reader.execute("SELECT coalesce(max(ordinal), 0) FROM games").fetchone()
        self._ordinal = last
        self._thread = threading.Thread(target=self._run, name="store-writer", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Commit what is queued and stop the writer thread."""
        if self._thread is not None:
            self._queue.put(None)
            await asyncio.to_thread(self._thread.join)
            self._thread = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    # ------------------------------------------------------------ writing

    def _write(self, work: Work) -> asyncio.Future[None]:
        assert self._loop is not None, "SqliteStore.start() was not awaited"
        future: asyncio.Future[None] = self._loop.create_future()
        self._queue.put((work, future))
        return future

    async def next_ordinal(self) -> int:
        """The next ordinal (this process is the only writer of the file)."""
        self._ordinal += 1
        return self._ordinal

    def create(
        self, setup: Setup, summary: Summary, requested: Requested | None = None
    ) -> asyncio.Future[None]:
        """Write a new game's set-up row and summary (and its request id: see
        :meth:`Store.create`)."""
        params = (
            setup.id,
            setup.ordinal,
            dumps(setup.seats),
            dumps(setup.stack),
            dumps(setup.settings),
            setup.created,
            *_summary_params(summary),
        )

        def work(conn: sqlite3.Connection) -> None:
            if requested is not None:
                # A key written less than the window ago refuses the game (changing
                # nothing); an older one is taken over.
                made = conn.execute(
                    "INSERT INTO create_requests (key, game, asked, at) VALUES (?1, ?2, ?3, ?4)"
                    " ON CONFLICT (key) DO UPDATE SET game = ?2, asked = ?3, at = ?4"
                    " WHERE create_requests.at < ?5 RETURNING 1",
                    (
                        requested.key,
                        setup.id,
                        requested.asked,
                        setup.created,
                        setup.created - CREATE_REQUEST_SECONDS,
                    ),
                ).fetchone()
                if made is None:
                    raise Conflict(setup.id, 0, "request id already used")
            conn.execute(
                "INSERT INTO games (id, ordinal, seats, stack, settings, created, state,"
                " sequence, open_seats, people, seat_info, result, attention)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                params,
            )

        return self._write(work)

    async def created_by(self, key: str, since: float) -> tuple[str, str] | None:
        """The game a CreateGame request id made (see :meth:`Store.created_by`)."""
        row = (
            self._read()
            .execute(
                "SELECT game, asked FROM create_requests WHERE key = ? AND at >= ?", (key, since)
            )
            .fetchone()
        )
        return None if row is None else (str(row[0]), str(row[1]))

    async def forget_requests(self, before: float) -> int:
        """Delete CreateGame request ids written before ``before``."""
        gone: list[int] = []

        def work(conn: sqlite3.Connection) -> None:
            cursor = conn.execute("DELETE FROM create_requests WHERE at < ?", (before,))
            gone.append(cursor.rowcount)

        await self._write(work)
        return gone[0] if gone else 0

    def append(
        self, game: str, entry: Entry, summary: Summary, tokens: Tokens, epoch: int = 0
    ) -> asyncio.Future[None]:
        """Write one entry, and the summary after it if it moved (``epoch`` is unused:
        one writer).

        The entry goes in only if it follows the game's last one (and the game
        exists, summarized): the writer thread, the file's only writer, knows
        each game's last sequence once it read or wrote it. The summary row is
        written only when more than its sequence moved: the sequence read back
        is the last entry's (see ``_COLUMNS``), so a plain action writes one
        row of the log and nothing else.
        """
        sequence = entry.sequence
        params = (game, sequence, entry.kind, dumps(entry.body))
        update: tuple[str, tuple[Any, ...]] | None = None
        if summary.changed:
            update = (
                "UPDATE games SET state = ?, sequence = ?, open_seats = ?, people = ?,"
                " seat_info = ?, result = ?, attention = ? WHERE id = ?",
                (*_summary_params(summary), game),
            )
        elif summary.attention_changed:
            update = (
                "UPDATE games SET sequence = ?, attention = ? WHERE id = ?",
                (summary.sequence, summary.attention, game),
            )

        def work(conn: sqlite3.Connection) -> None:
            last = self._last.get(game)
            if last is None:
                row = conn.execute(_LAST, (game,)).fetchone()
                if row is None:
                    raise Conflict(game, sequence, "no such game")
                last = row[0]
            if last != sequence - 1:
                raise Conflict(game, sequence, "not the next entry")
            conn.execute("INSERT INTO entries (game, seq, kind, body) VALUES (?, ?, ?, ?)", params)
            if len(self._last) >= LAST_KNOWN:
                self._last.clear()
            self._last[game] = sequence
            if update is not None:
                conn.execute(*update)
            _tokens(conn, game, tokens)

        return self._write(work)

    def summarize(self, game: str, summary: Summary, tokens: Tokens) -> asyncio.Future[None]:
        """Fill in the summary of a game written by schema 1 (see the module's doc)."""
        params = (*_summary_params(summary), game)

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE games SET state = ?, sequence = ?, open_seats = ?, people = ?,"
                " seat_info = ?, result = ?, attention = ? WHERE id = ? AND sequence < 0",
                params,
            )
            _tokens(conn, game, tokens)

        return self._write(work)

    # ------------------------------------------------------------ reading

    def _read(self) -> sqlite3.Connection:
        assert self._reader is not None, "SqliteStore.start() was not awaited"
        return self._reader

    async def load(self, game: str, *, entries: bool = True) -> Stored | None:
        """The game and its log."""
        conn = self._read()
        row = conn.execute(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game,)).fetchone()
        if row is None:
            return None
        stored = _stored(row)
        if entries:
            stored.entries.extend(
                Entry(seq, kind, json.loads(body))
                for seq, kind, body in conn.execute(
                    "SELECT seq, kind, body FROM entries WHERE game = ? ORDER BY seq", (game,)
                )
            )
        return stored

    async def entries(self, game: str, after: int, limit: int) -> list[Entry]:
        """A run of the game's log."""
        return [
            Entry(seq, kind, json.loads(body))
            for seq, kind, body in self._read().execute(
                "SELECT seq, kind, body FROM entries WHERE game = ? AND seq > ? ORDER BY seq"
                " LIMIT ?",
                (game, after, min(limit, MAX_PAGE)),
            )
        ]

    async def page(
        self, after_ordinal: int, limit: int, state: str | None, open_seats: bool
    ) -> list[Stored]:
        """A page of games in creation order, filtered on the indexed columns."""
        where = ["ordinal > ?"]
        params: list[Any] = [after_ordinal]
        if state is not None:
            where.append("state = ?")
            params.append(state)
        if open_seats:
            where.append("open_seats > 0")
        params.append(min(limit, MAX_PAGE))
        rows = self._read().execute(
            f"SELECT {_COLUMNS} FROM games WHERE {' AND '.join(where)} ORDER BY ordinal LIMIT ?",
            params,
        )
        return [_stored(row) for row in rows]

    async def due(self, limit: int) -> list[str]:
        """Games whose bots or clocks need the server."""
        rows = self._read().execute(
            "SELECT id FROM games WHERE attention IS NOT NULL ORDER BY attention LIMIT ?",
            (limit,),
        )
        return [gid for (gid,) in rows]

    async def token_game(self, token_hash: str) -> str | None:
        """The game of a seat token."""
        row = self._read().execute("SELECT game FROM tokens WHERE hash = ?", (token_hash,))
        found = row.fetchone()
        return None if found is None else str(found[0])

    async def expire(self, created_before: float, limit: int) -> list[str]:
        """Delete open games no person holds a seat of, created before then.

        (Such a game holds no seat token: a person who left took theirs along.)
        """
        done: list[str] = []

        def work(conn: sqlite3.Connection) -> None:
            rows = conn.execute(
                "DELETE FROM games WHERE id IN (SELECT id FROM games WHERE state = 'open'"
                " AND people = 0 AND created < ? ORDER BY created LIMIT ?) RETURNING id",
                (created_before, limit),
            ).fetchall()
            done.extend(gid for (gid,) in rows)
            for gid in done:
                conn.execute("DELETE FROM entries WHERE game = ?", (gid,))
                self._last.pop(gid, None)

        await self._write(work)
        return done

    async def unsummarized(self, limit: int) -> list[str]:
        """Games written by schema 1 whose summaries are still to be filled in."""
        rows = self._read().execute(
            "SELECT id FROM games WHERE sequence < 0 ORDER BY ordinal LIMIT ?", (limit,)
        )
        return [gid for (gid,) in rows]

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
        self, conn: sqlite3.Connection, batch: list[tuple[Work, asyncio.Future[None]]]
    ) -> None:
        outcomes: list[BaseException | None] = []
        error: BaseException | None = None
        try:
            conn.execute("BEGIN")
            for work, _ in batch:
                # A refused write fails on its first statement, before it changed
                # anything (SQLite undoes a failed statement alone), so the others
                # commit without it.
                try:
                    work(conn)
                except (Conflict, sqlite3.IntegrityError) as refused:
                    outcomes.append(refused)
                else:
                    outcomes.append(None)
            conn.execute("COMMIT")
            self.commits += 1
            self.writes += len(batch)
        except sqlite3.Error as exc:
            log.exception("commit failed")
            error = exc
            self._last.clear()  # what the batch wrote is undone: read each game again
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        results = [error or outcome for outcome in outcomes] + [error] * (
            len(batch) - len(outcomes)
        )
        assert self._loop is not None
        self._loop.call_soon_threadsafe(_settle, [f for _, f in batch], results)


def _tokens(conn: sqlite3.Connection, game: str, tokens: Tokens) -> None:
    if not (tokens.added or tokens.removed):
        return  # most entries change no seat
    for token in tokens.added:
        conn.execute("INSERT OR REPLACE INTO tokens (hash, game) VALUES (?, ?)", (token, game))
    for token in tokens.removed:
        conn.execute("DELETE FROM tokens WHERE hash = ?", (token,))


def _settle(futures: list[asyncio.Future[None]], results: list[BaseException | None]) -> None:
    for future, error in zip(futures, results, strict=True):
        if future.done():
            continue
        if error is None:
            future.set_result(None)
        elif isinstance(error, sqlite3.IntegrityError):
            future.set_exception(Conflict("?", 0, f"integrity: {error}"))
        else:
            future.set_exception(error)
