"""The shared store: PostgreSQL (psycopg 3), for one node or several.

Every node that serves games from the same database registers in ``nodes``
with a lease on the database's clock and renews it every second. A game has at
most one owner, the node that writes its log: ``games.owner`` with an
``epoch`` that grows at every change of owner. A node takes a game that has no
living owner (a node whose lease ran out is dead to the others) and forwards
requests for games that have one.

The database itself enforces the rest: ``tongiaki_append`` writes an entry
only if it directly follows the last one and the writer's epoch is the game's
and its owner's lease still runs, all under the game row's lock; a trigger
refuses any other insert into ``entries``. So two nodes can never write the
same sequence, however their clocks or pauses go.

Each append notifies ``tongiaki_entries`` with ``game:sequence`` at commit.
Every node listens on one connection and reads the entries from the table, so
a lost notification loses nothing: the next read starts after the last entry
it has.

Writes are group-committed: one writer connection sends everything queued in
one transaction (pipelined), so concurrent games share a commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus

from server.storage.base import (
    CREATE_REQUEST_SECONDS,
    MAX_PAGE,
    Conflict,
    Entry,
    LeaseLapsed,
    Listener,
    OutcomeUnknown,
    Owner,
    Requested,
    Setup,
    Store,
    Stored,
    Summary,
    Tokens,
    Unavailable,
    dumps,
    parse_result,
    result_text,
)

log = logging.getLogger(__name__)

#: The notification channel of new entries.
CHANNEL = "tongiaki_entries"

SCHEMA = """
CREATE TABLE IF NOT EXISTS nodes (
    id          text PRIMARY KEY,
    address     text NOT NULL,
    lease_until timestamptz NOT NULL
);
-- The secret the nodes vouch for forwarded callers with (made once, at random).
CREATE TABLE IF NOT EXISTS cluster (
    one    boolean PRIMARY KEY DEFAULT true CHECK (one),
    secret text NOT NULL
);
CREATE SEQUENCE IF NOT EXISTS game_ordinals;
CREATE TABLE IF NOT EXISTS games (
    id         text PRIMARY KEY,
    ordinal    bigint NOT NULL UNIQUE,
    seats      text NOT NULL,
    stack      text NOT NULL,
    settings   text NOT NULL,
    created    double precision NOT NULL,
    state      text NOT NULL,
    sequence   bigint NOT NULL,
    open_seats integer NOT NULL,
    people     integer NOT NULL,
    seat_info  text NOT NULL,
    result     text,
    attention  double precision,
    owner      text,
    epoch      bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS games_by_state ON games (state, ordinal);
CREATE INDEX IF NOT EXISTS games_with_open_seats ON games (ordinal) WHERE open_seats > 0;
CREATE INDEX IF NOT EXISTS games_due ON games (attention) WHERE attention IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_by_owner ON games (owner) WHERE owner IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_open_unheld ON games (created) WHERE state = 'open' AND people = 0;
CREATE TABLE IF NOT EXISTS entries (
    game text NOT NULL,
    seq  bigint NOT NULL,
    kind text NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (game, seq)
);
-- The watch frame the owner encoded: other nodes relay it as it is.
ALTER TABLE entries ADD COLUMN IF NOT EXISTS frame bytea;
CREATE TABLE IF NOT EXISTS tokens (
    hash text PRIMARY KEY,
    game text NOT NULL
);
-- CreateGame request ids (digests), each written with the game it made.
CREATE TABLE IF NOT EXISTS create_requests (
    key   text PRIMARY KEY,
    game  text NOT NULL,
    asked text NOT NULL,
    at    double precision NOT NULL
);
CREATE INDEX IF NOT EXISTS create_requests_by_time ON create_requests (at);

DROP FUNCTION IF EXISTS tongiaki_append(
    text, bigint, text, text, bigint, text, integer, integer, text, text, double precision,
    text[], text[]
);
CREATE OR REPLACE FUNCTION tongiaki_append(
    g text, s bigint, k text, b text, e bigint, st text, os integer, ppl integer, si text,
    res text, att double precision, added text[], removed text[], f bytea
) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    -- A null state: only the sequence and the attention time moved.
    UPDATE games SET sequence = s, attention = att,
                     state = coalesce(st, state), open_seats = coalesce(os, open_seats),
                     people = coalesce(ppl, people), seat_info = coalesce(si, seat_info),
                     result = CASE WHEN st IS NULL THEN result ELSE res END
     WHERE id = g AND sequence = s - 1 AND epoch = e
       AND EXISTS (SELECT 1 FROM nodes n
                    WHERE n.id = games.owner AND n.lease_until > clock_timestamp());
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    INSERT INTO entries (game, seq, kind, body, frame) VALUES (g, s, k, b, f);
    IF cardinality(added) > 0 THEN
        INSERT INTO tokens (hash, game) SELECT t, g FROM unnest(added) AS t
            ON CONFLICT (hash) DO UPDATE SET game = EXCLUDED.game;
    END IF;
    IF cardinality(removed) > 0 THEN
        DELETE FROM tokens WHERE hash = ANY (removed);
    END IF;
    PERFORM pg_notify('tongiaki_entries', g || ':' || s);
    RETURN true;
END $$;

-- An entry must be the one its game row was just advanced to (by tongiaki_append,
-- under the row's lock): no other way in.
CREATE OR REPLACE FUNCTION tongiaki_entry_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM games WHERE id = NEW.game AND sequence = NEW.seq) THEN
        RAISE EXCEPTION 'entry %:% does not follow its game''s log', NEW.game, NEW.seq
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS entries_guard ON entries;
CREATE TRIGGER entries_guard BEFORE INSERT ON entries
    FOR EACH ROW EXECUTE FUNCTION tongiaki_entry_guard();
"""

#: The type of each column of ``games`` not of type text, as written by create.
_TYPES = {
    "ordinal": "bigint",
    "created": "double precision",
    "sequence": "bigint",
    "open_seats": "integer",
    "people": "integer",
    "attention": "double precision",
}

_COLUMNS = "id, ordinal, seats, stack, settings, created, state, sequence, seat_info, result, epoch"

#: How many connections serve reads.
READERS = 4


def is_url(database: str | None) -> bool:
    """Whether ``database`` names a PostgreSQL database."""
    return bool(database) and str(database).startswith(("postgresql://", "postgres://"))


def _stored(row: tuple[Any, ...]) -> Stored:
    gid, ordinal, seats, stack, settings, created, state, sequence, seat_info, result, epoch = row
    setup = Setup(gid, ordinal, json.loads(seats), json.loads(stack), json.loads(settings), created)
    result, stopped = parse_result(result)
    summary = Summary(
        state=state,
        sequence=sequence,
        seats=json.loads(seat_info),
        result=result,
        stopped=stopped,
    )
    return Stored(setup, summary, epoch=epoch)


def _entry(seq: int, kind: str, body: str, frame: bytes | None) -> Entry:
    """An entry as read: ``seq, kind, body, frame``."""
    return Entry(seq, kind, json.loads(body), frame)


def _fail(batch: list[_Write], error: BaseException) -> None:
    for write in batch:
        if not write.future.done():
            write.future.set_exception(error)


@dataclass
class _Write:
    sql: str
    params: tuple[Any, ...] | dict[str, Any]
    future: asyncio.Future[None]
    #: For appends: the game and sequence (a False result is a Conflict).
    game: str = ""
    sequence: int = 0
    #: For appends, the entry's body; for a new game, its id: what shows, after a
    #: commit whose answer was lost, whether this write was made.
    body: str = ""
    created: str = ""
    #: For a new game with a request id: no row, or a false one, is a Conflict.
    checked: bool = False


class Backoff:
    """Seconds to wait before the next attempt: doubling from ``first`` up to ``last``."""

    def __init__(self, first: float = 0.05, last: float = 2.0) -> None:
        self.first = first
        self.last = last
        self.delay = 0.0

    def failed(self) -> float:
        """One more failure: how long to wait now."""
        self.delay = min(self.last, self.delay * 2 or self.first)
        return self.delay

    def succeeded(self) -> bool:
        """A success: start again from ``first``; returns whether it followed failures."""
        recovered, self.delay = self.delay > 0, 0.0
        return recovered


class PostgresStore(Store):
    """Games in a PostgreSQL database that several nodes may share.

    Every background task (writer, lease, listener) survives its database: it
    reconnects with back-off and never ends on an error. A task that ends
    anyway is logged and named by :meth:`problems`, which makes the node
    unhealthy. The lease is fenced on this side too: the node counts its lease
    from the moment it *sent* the renewal, minus a margin, and writes and takes
    games only while that runs, so it stops before the database would refuse it.
    """

    def __init__(self, url: str, *, address: str = "", lease: float = 1.5) -> None:
        self.url = url
        #: This node: a random id, and the address other nodes forward requests to.
        self.node = secrets.token_hex(6)
        self.address = address
        self.lease = lease
        self.commits = 0
        self.writes = 0
        self.shared = True
        self.keeps_frames = True
        self.lapses = 0
        self._queue: asyncio.Queue[_Write | None] = asyncio.Queue()
        self._writer: psycopg.AsyncConnection[Any] | None = None
        #: The writer's server process: its pid and start time.
        self._backend: tuple[int, Any] | None = None
        self._started = False
        self._readers: asyncio.Queue[psycopg.AsyncConnection[Any]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._listeners: list[Listener] = []
        #: Until when (monotonic seconds) this node may write: its lease as it knows it.
        self._lease_until = 0.0
        #: Tasks that ended although they never should.
        self._ended: list[str] = []
        self._write_backoff = Backoff()
        self._stopping = False
        #: Why this node must own no game now (None: it may).
        self._refusing: str | None = None
        self._released = False

    @property
    def description(self) -> str:
        """The database without its password."""
        info = conninfo_to_dict(self.url)
        return (
            f"postgresql://{info.get('user', '')}@{info.get('host', '')}:{info.get('port', '')}"
            f"/{info.get('dbname', '')} (node {self.node})"
        )

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(
            self.url, autocommit=True, connect_timeout=max(2, int(self.lease * 2))
        )

    # ------------------------------------------------------------ health and lease

    @property
    def margin(self) -> float:
        """Seconds before the database's end of the lease at which this node stops."""
        return self.lease / 4

    def lease_valid(self) -> bool:
        """Whether this node's lease runs (as counted here, ahead of the database),
        and it may own games."""
        return self._refusing is None and not self._ended and time.monotonic() < self._lease_until

    def refuse(self, why: str | None) -> None:
        """Own no game while ``why`` holds: the games are handed over at the next renewal."""
        if why != self._refusing:
            self._refusing = why
            self._released = False

    def problems(self) -> list[str]:
        """Why this node cannot serve its games now: tasks that ended, a lapsed lease."""
        found = [f"{name} ended" for name in self._ended]
        if self._refusing is not None:
            found.append(self._refusing)
        elif self._started and not self.lease_valid():
            found.append("lease not renewed")
        return found

    def _supervised(self, name: str, work: Callable[[], Awaitable[None]]) -> asyncio.Task[None]:
        """Run ``work`` as a task whose end, other than by cancelling, is logged and kept."""

        async def run() -> None:
            try:
                await work()
            except asyncio.CancelledError:
                raise
            except BaseException:
                log.exception("store task failed", extra={"task": name})
                self._ended.append(name)
                raise
            if not self._stopping:
                log.error("store task ended", extra={"task": name})
                self._ended.append(name)

        return asyncio.create_task(run(), name=name)

    async def _renew(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Extend this node's lease (its row made again if it was forgotten)."""
        sent = time.monotonic()
        await conn.execute(
            "INSERT INTO nodes (id, address, lease_until)"
            " VALUES (%(id)s, %(address)s, clock_timestamp() + make_interval(secs => %(lease)s))"
            " ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until",
            {"id": self.node, "address": self.address, "lease": self.lease},
        )
        if self._lease_until and sent >= self._lease_until:
            # The lease ran out meanwhile: any game this node owned may be another's now.
            self.lapses += 1
            log.warning("lease ran out; renewed", extra={"lapses": self.lapses})
        self._lease_until = sent + self.lease - self.margin

    # ------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Create the schema if needed, register this node, start writing and listening.

        The lease is counted from here: the node may write at once.
        """
        self._writer = await self._connect()
        await self._know_backend(self._writer)
        async with self._writer.transaction():
            await self._writer.execute("SELECT pg_advisory_xact_lock(7320420)")
            await self._writer.execute(SCHEMA)
            await self._writer.execute(
                "INSERT INTO cluster (secret) VALUES (%s) ON CONFLICT DO NOTHING",
                (secrets.token_hex(32),),
            )
        for _ in range(READERS):
            self._readers.put_nowait(await self._connect())
        await self._renew(self._writer)
        self._started = True
        ready = asyncio.Event()
        self._tasks = [
            self._supervised("store-writer", self._write_loop),
            self._supervised("store-lease", self._heartbeat),
            self._supervised("store-listen", lambda: self._listen(ready)),
        ]
        await ready.wait()

    async def holders(self, address: str) -> list[str]:
        """The other live nodes registered at ``address``."""
        async with self._reader() as conn:
            cursor = await conn.execute(
                "SELECT id FROM nodes WHERE address = %s AND id <> %s"
                " AND lease_until > clock_timestamp()",
                (address, self.node),
            )
            return [str(node) for (node,) in await cursor.fetchall()]

    async def cluster_secret(self) -> bytes:
        """The secret every node of this database shares."""
        async with self._reader() as conn:
            cursor = await conn.execute("SELECT secret FROM cluster")
            row = await cursor.fetchone()
        assert row is not None
        return str(row[0]).encode()

    async def alive(self, node: str) -> bool:
        """Whether ``node``'s lease runs."""
        async with self._reader() as conn:
            cursor = await conn.execute(
                "SELECT 1 FROM nodes WHERE id = %s AND lease_until > clock_timestamp()", (node,)
            )
            return await cursor.fetchone() is not None

    async def retire(self, nodes: list[str]) -> None:
        """End the leases of ``nodes`` (gone from the address this node holds now)."""
        async with self._reader() as conn:
            await conn.execute(
                "UPDATE nodes SET lease_until = clock_timestamp() WHERE id = ANY (%s)", (nodes,)
            )

    async def stop(self) -> None:
        """Commit what is queued, give up every game this node owns, and close.

        Each step is attempted whatever the last one did: a node whose database
        is gone still stops (its games then wait for its lease to run out).
        """
        if not self._started:
            return
        self._started = False
        self._stopping = True
        await self._queue.put(None)
        writer = self._tasks[0]
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(writer), 10)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        conn = self._writer
        self._writer = None
        try:
            if conn is None or conn.closed or conn.broken:
                conn = await self._connect()
            await conn.execute("UPDATE games SET owner = NULL WHERE owner = %s", (self.node,))
            await conn.execute("DELETE FROM nodes WHERE id = %s", (self.node,))
        except psycopg.Error:
            log.warning("could not hand over this node's games; they move when its lease ends")
        finally:
            if conn is not None:
                with contextlib.suppress(psycopg.Error):
                    await conn.close()
        while not self._readers.empty():
            with contextlib.suppress(psycopg.Error):
                await self._readers.get_nowait().close()

    async def _heartbeat(self) -> None:
        """Renew this node's lease several times per lease (and forget long-dead nodes)."""
        conn: psycopg.AsyncConnection[Any] | None = None
        backoff = Backoff(last=self.lease / 6)
        renewals = 0
        try:
            while True:
                await asyncio.sleep(self.lease / 6)
                try:
                    if conn is None:
                        conn = await asyncio.wait_for(self._connect(), self.lease)
                    await asyncio.wait_for(self._renew(conn), self.lease)
                    if (self._refusing is not None or self._ended) and not self._released:
                        # A node that cannot serve its games hands them over.
                        await conn.execute(
                            "UPDATE games SET owner = NULL WHERE owner = %s", (self.node,)
                        )
                        self._released = True
                    renewals += 1
                    if renewals % 600 == 0:
                        await conn.execute(
                            "DELETE FROM nodes"
                            " WHERE lease_until < clock_timestamp() - interval '1 hour'"
                        )
                    if backoff.succeeded():
                        log.info("lease renewal works again")
                except (psycopg.Error, OSError, TimeoutError):
                    if not backoff.delay:
                        log.warning("lease renewal failed; reconnecting", exc_info=True)
                    if conn is not None:
                        with contextlib.suppress(Exception):
                            await conn.close()
                    conn = None
                    await asyncio.sleep(backoff.failed())
        finally:
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()

    # ------------------------------------------------------------ listening

    def listen(self, listener: Listener) -> None:
        """Call ``listener(game, sequence)`` for every entry appended by any node."""
        self._listeners.append(listener)

    async def _listen(self, ready: asyncio.Event) -> None:
        backoff = Backoff()
        while True:
            try:
                conn = await self._connect()
                try:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if ready.is_set():
                        # Reconnected: anything may have been missed; every follower reads again.
                        log.info("listening again")
                        for listener in self._listeners:
                            listener("", 0)
                    ready.set()
                    backoff.succeeded()
                    async for notify in conn.notifies():
                        game, _, sequence = notify.payload.rpartition(":")
                        for listener in self._listeners:
                            listener(game, int(sequence))
                finally:
                    with contextlib.suppress(Exception):
                        await conn.close()
            except (psycopg.Error, OSError):
                if not backoff.delay:
                    log.warning("listen connection lost; reconnecting")
                await asyncio.sleep(backoff.failed())
            except Exception:
                # A listener's fault must not end listening for every game.
                log.exception("listening failed; starting again")
                await asyncio.sleep(backoff.failed())

    # ------------------------------------------------------------ writing

    def _put(
        self,
        sql: str,
        params: tuple[Any, ...] | dict[str, Any],
        game: str = "",
        seq: int = 0,
        *,
        body: str = "",
        created: str = "",
        checked: bool = False,
    ) -> Any:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Write(sql, params, future, game, seq, body, created, checked))
        return future

    async def next_ordinal(self) -> int:
        """The next value of the shared ordinal sequence."""
        async with self._reader() as conn:
            cursor = await conn.execute("SELECT nextval('game_ordinals')")
            row = await cursor.fetchone()
        assert row is not None
        return int(row[0])

    def create(self, setup: Setup, summary: Summary, requested: Requested | None = None) -> Any:
        """Write a new game, owned by this node at epoch 1 (and its request id: see
        :meth:`Store.create`; one statement, so a refusal fails no other write)."""
        values = {
            "id": setup.id,
            "ordinal": setup.ordinal,
            "seats": dumps(setup.seats),
            "stack": dumps(setup.stack),
            "settings": dumps(setup.settings),
            "created": setup.created,
            "state": summary.state,
            "sequence": summary.sequence,
            "open_seats": summary.open_seats,
            "people": summary.people,
            "seat_info": dumps(summary.seats),
            "result": result_text(summary),
            "attention": summary.attention,
            "owner": self.node,
        }
        columns = ", ".join(values)
        placeholders = ", ".join(f"%({name})s" for name in values)
        if requested is None:
            return self._put(
                f"INSERT INTO games ({columns}, epoch) VALUES ({placeholders}, 1)",
                values,
                created=setup.id,
            )
        # A key written less than the window ago: nothing is written (no row comes
        # back, a Conflict); an older one is taken over. (Typed: a SELECT's
        # parameters are not typed by the columns they go to.)
        typed = ", ".join(f"%({name})s::{_TYPES.get(name, 'text')}" for name in values)
        values |= {
            "key": requested.key,
            "asked": requested.asked,
            "stale": setup.created - CREATE_REQUEST_SECONDS,
        }
        return self._put(
            "WITH request AS (INSERT INTO create_requests (key, game, asked, at)"
            " VALUES (%(key)s, %(id)s, %(asked)s, %(created)s) ON CONFLICT (key) DO UPDATE"
            " SET game = EXCLUDED.game, asked = EXCLUDED.asked, at = EXCLUDED.at"
            " WHERE create_requests.at < %(stale)s RETURNING 1)"
            f" INSERT INTO games ({columns}, epoch) SELECT {typed}, 1"
            " WHERE EXISTS (SELECT 1 FROM request) RETURNING true",
            values,
            created=setup.id,
            checked=True,
        )

    async def created_by(self, key: str, since: float) -> tuple[str, str] | None:
        """The game a CreateGame request id made (see :meth:`Store.created_by`)."""
        async with self._reader() as conn:
            cursor = await conn.execute(
                "SELECT game, asked FROM create_requests WHERE key = %s AND at >= %s",
                (key, since),
            )
            row = await cursor.fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    async def forget_requests(self, before: float) -> int:
        """Delete CreateGame request ids written before ``before``."""
        async with self._reader() as conn:
            cursor = await conn.execute("DELETE FROM create_requests WHERE at < %s", (before,))
            return cursor.rowcount

    def append(self, game: str, entry: Entry, summary: Summary, tokens: Tokens, epoch: int) -> Any:
        """Write an entry through ``tongiaki_append`` (which checks order and owner)."""
        body = dumps(entry.body)
        return self._put(
            "SELECT tongiaki_append(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                game,
                entry.sequence,
                entry.kind,
                body,
                epoch,
                *(
                    (
                        summary.state,
                        summary.open_seats,
                        summary.people,
                        dumps(summary.seats),
                        result_text(summary),
                    )
                    if summary.changed
                    else (None, None, None, None, None)
                ),
                summary.attention,
                # (None rather than an empty array: nothing to send, nothing to dump.)
                list(tokens.added) or None,
                list(tokens.removed) or None,
                entry.frame,
            ),
            game,
            entry.sequence,
            body=body,
        )

    async def _write_loop(self) -> None:
        stopping = False
        while not stopping:
            item = await self._queue.get()
            batch: list[_Write] = []
            while item is not None:
                batch.append(item)
                if self._queue.empty():
                    break
                item = self._queue.get_nowait()
            else:
                stopping = True
            if batch:
                try:
                    await self._commit(batch)
                except Exception as error:
                    # Never the end of the writer: the batch fails, the next one is tried.
                    log.exception("commit failed unexpectedly")
                    _fail(batch, OutcomeUnknown(str(error)))

    async def _writer_connection(self) -> psycopg.AsyncConnection[Any]:
        """The writer's connection, made again if it broke (one attempt; raises Unavailable)."""
        writer = self._writer
        if writer is not None and not writer.closed and not writer.broken:
            return writer
        if writer is not None:
            with contextlib.suppress(Exception):
                await writer.close()
        self._writer = self._backend = None
        try:
            writer = await self._connect()
        except (psycopg.Error, OSError) as error:
            raise Unavailable(f"the database cannot be reached: {error}") from None
        try:
            await self._know_backend(writer)
        except (psycopg.Error, OSError) as error:
            with contextlib.suppress(Exception):
                await writer.close()
            raise Unavailable(f"the database cannot be reached: {error}") from None
        self._writer = writer
        log.info("writer connected again")
        return self._writer

    async def _know_backend(self, writer: psycopg.AsyncConnection[Any]) -> None:
        """Note which server process serves the writer (to end it after a broken commit)."""
        cursor = await writer.execute(
            "SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()"
        )
        row = await cursor.fetchone()
        self._backend = None if row is None else (int(row[0]), row[1])

    async def _settle(self, batch: list[_Write]) -> list[bool] | None:
        """After a commit whose answer was lost: which writes of ``batch`` were made.

        The writer's old server process is ended first (and waited for), so its
        transaction is over, committed or not, before the writes are looked for.
        None if that cannot be known (the database is still away).
        """
        backend, self._backend = self._backend, None
        if backend is None:
            return None
        appended = [w for w in batch if w.game and w.body]
        created = [w.created for w in batch if w.created]
        # The database may be restarting: it is asked again for a while (a fast
        # restart takes about a second), the writes queued meanwhile waiting.
        conn = None
        backoff = Backoff()
        until = time.monotonic() + self.lease * 2
        while conn is None:
            try:
                conn = await asyncio.wait_for(self._connect(), self.lease * 2)
            except (psycopg.Error, OSError, TimeoutError):
                if time.monotonic() + backoff.failed() > until:
                    return None
                await asyncio.sleep(backoff.delay)
        try:
            cursor = await conn.execute(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
                " WHERE pid = %s AND backend_start = %s",
                backend,
            )
            ended = await cursor.fetchone()
            if ended is not None and not ended[0]:
                return None  # still running: its transaction may yet commit
            cursor = await conn.execute(
                "SELECT w.game, w.seq FROM unnest(%s::text[], %s::bigint[], %s::text[])"
                " AS w(game, seq, body) JOIN entries e"
                " ON e.game = w.game AND e.seq = w.seq AND e.body = w.body",
                (
                    [w.game for w in appended],
                    [w.sequence for w in appended],
                    [w.body for w in appended],
                ),
            )
            made = {(str(g), int(q)) for g, q in await cursor.fetchall()}
            cursor = await conn.execute("SELECT id FROM games WHERE id = ANY (%s)", (created,))
            made_games = {str(g) for (g,) in await cursor.fetchall()}
        except (psycopg.Error, OSError):
            return None
        finally:
            with contextlib.suppress(Exception):
                await conn.close()
        return [(w.game, w.sequence) in made if w.body else w.created in made_games for w in batch]

    async def _commit(self, batch: list[_Write], *, again: bool = True) -> None:
        """Write ``batch`` in one transaction and answer each write's future.

        A batch found not committed after its connection broke (a connection that
        died while idle, at a database restart) is sent once more on a new one
        (``again``), so a restart costs nobody a refusal.
        """
        if self._write_backoff.delay:
            # The last attempt failed: wait a little (writes queue up meanwhile).
            await asyncio.sleep(self._write_backoff.delay)
        if not self.lease_valid():
            _fail(batch, LeaseLapsed("this node's lease is not known to run"))
            return
        try:
            writer = await self._writer_connection()
        except Unavailable as error:
            if not self._write_backoff.delay:
                log.warning("writer cannot connect; retrying", extra={"error": str(error)})
            self._write_backoff.failed()
            _fail(batch, error)
            return
        results: list[Any] = []
        try:
            # One round trip: the transaction's statements, its end and one sync go
            # out together. A statement that fails aborts the rest of the pipeline,
            # and the transaction is rolled back with it.
            cursors = []
            async with writer.pipeline():
                await writer.execute("BEGIN")
                for write in batch:
                    cursors.append(await writer.execute(write.sql, write.params))
                await writer.execute("COMMIT")
            for cursor, write in zip(cursors, batch, strict=True):
                results.append(await cursor.fetchone() if write.game or write.checked else None)
            self.commits += 1
            self.writes += len(batch)
            self._write_backoff.succeeded()
        except psycopg.Error as error:
            if writer.closed or writer.broken or isinstance(error, psycopg.OperationalError):
                # The connection broke: the COMMIT may have reached the database or not.
                # Looked for once the old transaction is surely over; unknown only if
                # the database cannot tell yet.
                self._write_backoff.failed()
                with contextlib.suppress(Exception):
                    await writer.close()
                made = await self._settle(batch)
                if made is None:
                    log.warning("commit outcome unknown: the connection broke", exc_info=True)
                    _fail(batch, OutcomeUnknown(f"the connection broke at commit: {error}"))
                    return
                log.warning(
                    "the connection broke at commit; looked up what was written",
                    extra={"writes": len(batch), "made": sum(made)},
                )
                committed = any(made)
                if not committed and again:
                    await self._commit(batch, again=False)
                    return
                for write, done in zip(batch, made, strict=True):
                    if write.future.done():
                        continue
                    if done:
                        write.future.set_result(None)
                    elif committed and write.game:
                        write.future.set_exception(
                            Conflict(
                                write.game, write.sequence, "not the next entry, or not the owner"
                            )
                        )
                    else:
                        write.future.set_exception(
                            Unavailable(f"the connection broke before the commit: {error}")
                        )
                return
            log.exception("commit failed")
            if writer.info.transaction_status != TransactionStatus.IDLE:
                with contextlib.suppress(psycopg.Error):
                    await writer.execute("ROLLBACK")
            _fail(batch, error)
            return
        for write, row in zip(batch, results, strict=True):
            if write.future.done():
                continue
            if write.checked and not (row and row[0]):
                write.future.set_exception(Conflict(write.created, 0, "request id already used"))
            elif write.game and not (row and row[0]):
                write.future.set_exception(
                    Conflict(write.game, write.sequence, "not the next entry, or not the owner")
                )
            else:
                write.future.set_result(None)

    # ------------------------------------------------------------ owners

    async def acquire(self, game: str) -> Owner | None:
        """Own ``game`` if it has no living owner; else who does. None: no such game.

        Only while this node's own lease runs (here and in the database): a node
        whose lease lapsed takes nothing, not even its own games back.
        """
        may_take = self.lease_valid()
        async with self._reader() as conn:
            cursor = await conn.execute(
                "UPDATE games SET owner = %(me)s, epoch = epoch + 1 WHERE id = %(g)s AND"
                " (owner IS NULL OR owner = %(me)s OR NOT EXISTS (SELECT 1 FROM nodes n"
                "  WHERE n.id = games.owner AND n.lease_until > clock_timestamp()))"
                " AND EXISTS (SELECT 1 FROM nodes m WHERE m.id = %(me)s"
                "  AND m.lease_until > clock_timestamp() + make_interval(secs => %(margin)s))"
                " AND %(may)s RETURNING epoch",
                {"me": self.node, "g": game, "margin": self.margin, "may": may_take},
            )
            row = await cursor.fetchone()
            if row is not None:
                return Owner(epoch=int(row[0]))
            cursor = await conn.execute(
                "SELECT n.address, n.id, n.lease_until > clock_timestamp()"
                " FROM games g JOIN nodes n ON n.id = g.owner WHERE g.id = %s",
                (game,),
            )
            found = await cursor.fetchone()
        if found is not None and found[1] == self.node:
            # This node owns it, yet could not take it: its lease is about to run out.
            raise LeaseLapsed("this node's lease is about to run out")
        if found is None or not found[2]:
            if await self.load(game, entries=False) is None:
                return None
            # Nobody living has it, yet it was not taken: this node's lease is short
            # in the database (or the owner's ran out just now): retry.
            raise LeaseLapsed("this node's lease is about to run out")
        return Owner(address=str(found[0]), node=str(found[1]))

    async def release(self, game: str, epoch: int) -> None:
        """Give up ``game`` (idle here): another node may take it at once."""
        async with self._reader() as conn:
            await conn.execute(
                "UPDATE games SET owner = NULL WHERE id = %s AND owner = %s AND epoch = %s",
                (game, self.node, epoch),
            )

    async def orphans(self, limit: int) -> list[str]:
        """Running games that need a server by themselves and whose owner is gone."""
        async with self._reader() as conn:
            cursor = await conn.execute(
                "SELECT g.id FROM games g WHERE g.attention IS NOT NULL AND NOT EXISTS"
                " (SELECT 1 FROM nodes n"
                "  WHERE n.id = g.owner AND n.lease_until > clock_timestamp())"
                " ORDER BY g.attention LIMIT %s",
                (limit,),
            )
            return [str(gid) for (gid,) in await cursor.fetchall()]

    async def unowned(self, games: list[str]) -> list[str]:
        """Those of ``games`` not finished whose owner is gone."""
        async with self._reader() as conn:
            cursor = await conn.execute(
                "SELECT g.id FROM games g WHERE g.id = ANY (%s) AND g.state <> 'finished'"
                " AND NOT EXISTS (SELECT 1 FROM nodes n"
                "  WHERE n.id = g.owner AND n.lease_until > clock_timestamp())",
                (games,),
            )
            return [str(gid) for (gid,) in await cursor.fetchall()]

    # ------------------------------------------------------------ reading

    @contextlib.asynccontextmanager
    async def _reader(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A reading connection (made again if it broke); Unavailable if the database is not."""
        conn = await self._readers.get()
        try:
            if conn.closed or conn.broken:
                conn = await self._connect()
            yield conn
        except (psycopg.OperationalError, OSError) as error:
            with contextlib.suppress(Exception):
                await conn.close()
            raise Unavailable(f"the database cannot be reached: {error}") from None
        finally:
            self._readers.put_nowait(conn)

    async def load(self, game: str, *, entries: bool = True) -> Stored | None:
        """The game and its log."""
        async with self._reader() as conn:
            cursor = await conn.execute(f"SELECT {_COLUMNS} FROM games WHERE id = %s", (game,))
            row = await cursor.fetchone()
            if row is None:
                return None
            stored = _stored(row)
            if entries:
                cursor = await conn.execute(
                    "SELECT seq, kind, body, frame FROM entries WHERE game = %s ORDER BY seq",
                    (game,),
                )
                stored.entries.extend(_entry(*row) for row in await cursor.fetchall())
        return stored

    async def entries(self, game: str, after: int, limit: int) -> list[Entry]:
        """A run of the game's log."""
        async with self._reader() as conn:
            cursor = await conn.execute(
                "SELECT seq, kind, body, frame FROM entries WHERE game = %s AND seq > %s"
                " ORDER BY seq LIMIT %s",
                (game, after, min(limit, MAX_PAGE)),
            )
            return [_entry(*row) for row in await cursor.fetchall()]

    async def entries_after(self, after: dict[str, int], limit: int) -> dict[str, list[Entry]]:
        """Runs of several games' logs, in one query."""
        runs: dict[str, list[Entry]] = {game: [] for game in after}
        async with self._reader() as conn:
            cursor = await conn.execute(
                "SELECT e.game, e.seq, e.kind, e.body, e.frame"
                " FROM unnest(%s::text[], %s::bigint[]) AS w(game, after)"
                " CROSS JOIN LATERAL (SELECT * FROM entries WHERE game = w.game AND seq > w.after"
                " ORDER BY seq LIMIT %s) AS e ORDER BY e.game, e.seq",
                (list(after), list(after.values()), min(limit, MAX_PAGE)),
            )
            for game, *row in await cursor.fetchall():
                runs[game].append(_entry(*row))
        return runs

    async def page(
        self, after_ordinal: int, limit: int, state: str | None, open_seats: bool
    ) -> list[Stored]:
        """A page of games in creation order, filtered on the indexed columns."""
        where = ["ordinal > %s"]
        params: list[Any] = [after_ordinal]
        if state is not None:
            where.append("state = %s")
            params.append(state)
        if open_seats:
            where.append("open_seats > 0")
        params.append(min(limit, MAX_PAGE))
        async with self._reader() as conn:
            cursor = await conn.execute(
                f"SELECT {_COLUMNS} FROM games WHERE {' AND '.join(where)}"
                " ORDER BY ordinal LIMIT %s",
                params,
            )
            return [_stored(row) for row in await cursor.fetchall()]

    async def due(self, limit: int) -> list[str]:
        """Games whose bots or clocks need a server and that this node owns."""
        async with self._reader() as conn:
            cursor = await conn.execute(
                "SELECT id FROM games WHERE attention IS NOT NULL AND owner = %s"
                " ORDER BY attention LIMIT %s",
                (self.node, limit),
            )
            return [str(gid) for (gid,) in await cursor.fetchall()]

    async def expire(self, created_before: float, limit: int) -> list[str]:
        """Delete open games no person holds a seat of, created before then.

        A join that commits first keeps its game: the delete re-checks each row
        it waited for.
        """
        async with self._reader() as conn, conn.transaction():
            cursor = await conn.execute(
                "DELETE FROM games WHERE id IN (SELECT id FROM games WHERE state = 'open'"
                " AND people = 0 AND created < %s ORDER BY created LIMIT %s)"
                " AND state = 'open' AND people = 0 RETURNING id",
                (created_before, limit),
            )
            done = [str(gid) for (gid,) in await cursor.fetchall()]
            await conn.execute("DELETE FROM entries WHERE game = ANY (%s)", (done,))
        return done

    async def token_game(self, token_hash: str) -> str | None:
        """The game of a seat token."""
        async with self._reader() as conn:
            cursor = await conn.execute("SELECT game FROM tokens WHERE hash = %s", (token_hash,))
            row = await cursor.fetchone()
        return None if row is None else str(row[0])
