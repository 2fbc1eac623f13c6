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
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus

from server.storage.base import (
    MAX_PAGE,
    Conflict,
    Entry,
    Listener,
    Owner,
    Setup,
    Store,
    Stored,
    Summary,
    Tokens,
    dumps,
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

_COLUMNS = "id, ordinal, seats, stack, settings, created, state, sequence, seat_info, result, epoch"

#: How many connections serve reads.
READERS = 4


def is_url(database: str | None) -> bool:
    """Whether ``database`` names a PostgreSQL database."""
    return bool(database) and str(database).startswith(("postgresql://", "postgres://"))


def _stored(row: tuple[Any, ...]) -> Stored:
    gid, ordinal, seats, stack, settings, created, state, sequence, seat_info, result, epoch = row
    setup = Setup(gid, ordinal, json.loads(seats), json.loads(stack), json.loads(settings), created)
    summary = Summary(
        state=state,
        sequence=sequence,
        seats=json.loads(seat_info),
        result=None if result is None else json.loads(result),
    )
    return Stored(setup, summary, epoch=epoch)


def _entry(seq: int, kind: str, body: str, frame: bytes | None) -> Entry:
    """An entry as read: ``seq, kind, body, frame``."""
    return Entry(seq, kind, json.loads(body), frame)


@dataclass
class _Write:
    sql: str
    params: tuple[Any, ...]
    future: asyncio.Future[None]
    #: For appends: the game and sequence (a False result is a Conflict).
    game: str = ""
    sequence: int = 0


class PostgresStore(Store):
    """Games in a PostgreSQL database that several nodes may share."""

    def __init__(self, url: str, *, address: str = "", lease: float = 5.0) -> None:
        self.url = url
        #: This node: a random id, and the address other nodes forward requests to.
        self.node = secrets.token_hex(6)
        self.address = address
        self.lease = lease
        self.commits = 0
        self.writes = 0
        self.shared = True
        self.keeps_frames = True
        self._queue: asyncio.Queue[_Write | None] = asyncio.Queue()
        self._writer: psycopg.AsyncConnection[Any] | None = None
        self._readers: asyncio.Queue[psycopg.AsyncConnection[Any]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._listeners: list[Listener] = []
        self._lost: list[asyncio.Event] = []

    @property
    def description(self) -> str:
        """The database without its password."""
        info = conninfo_to_dict(self.url)
        return (
            f"postgresql://{info.get('user', '')}@{info.get('host', '')}:{info.get('port', '')}"
            f"/{info.get('dbname', '')} (node {self.node})"
        )

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(self.url, autocommit=True)

    # ------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Create the schema if needed, register this node, start writing and listening."""
        self._writer = await self._connect()
        async with self._writer.transaction():
            await self._writer.execute("SELECT pg_advisory_xact_lock(7320420)")
            await self._writer.execute(SCHEMA)
        for _ in range(READERS):
            self._readers.put_nowait(await self._connect())
        # A node that was at this address before is gone (this process holds the
        # address now): its games need not wait for its lease to run out.
        await self._writer.execute(
            "UPDATE nodes SET lease_until = clock_timestamp() WHERE address = %s",
            (self.address,),
        )
        await self._writer.execute(
            "INSERT INTO nodes (id, address, lease_until)"
            " VALUES (%s, %s, clock_timestamp() + make_interval(secs => %s))",
            (self.node, self.address, self.lease),
        )
        ready = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._write_loop(), name="store-writer"),
            asyncio.create_task(self._heartbeat(), name="store-lease"),
            asyncio.create_task(self._listen(ready), name="store-listen"),
        ]
        await ready.wait()

    async def stop(self) -> None:
        """Commit what is queued, give up every game this node owns, and close."""
        if self._writer is None:
            return
        await self._queue.put(None)
        writer, *others = self._tasks
        await writer
        for task in others:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(psycopg.Error):
            await self._writer.execute(
                "UPDATE games SET owner = NULL WHERE owner = %s", (self.node,)
            )
            await self._writer.execute("DELETE FROM nodes WHERE id = %s", (self.node,))
        await self._writer.close()
        self._writer = None
        while not self._readers.empty():
            await self._readers.get_nowait().close()

    async def _heartbeat(self) -> None:
        """Renew this node's lease a few times per lease (and forget long-dead nodes)."""
        conn = await self._connect()
        try:
            while True:
                await asyncio.sleep(self.lease / 5)
                try:
                    await conn.execute(
                        "UPDATE nodes SET lease_until ="
                        " clock_timestamp() + make_interval(secs => %s) WHERE id = %s",
                        (self.lease, self.node),
                    )
                    await conn.execute(
                        "DELETE FROM nodes"
                        " WHERE lease_until < clock_timestamp() - interval '1 hour'"
                    )
                except psycopg.OperationalError:
                    log.warning("lease renewal failed; reconnecting")
                    with contextlib.suppress(psycopg.Error):
                        await conn.close()
                    conn = await self._connect()
        finally:
            await conn.close()

    # ------------------------------------------------------------ listening

    def listen(self, listener: Listener) -> None:
        """Call ``listener(game, sequence)`` for every entry appended by any node."""
        self._listeners.append(listener)

    async def _listen(self, ready: asyncio.Event) -> None:
        while True:
            try:
                conn = await self._connect()
                try:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if ready.is_set():
                        # Reconnected: anything may have been missed; every follower reads again.
                        for listener in self._listeners:
                            listener("", 0)
                    ready.set()
                    async for notify in conn.notifies():
                        game, _, sequence = notify.payload.rpartition(":")
                        for listener in self._listeners:
                            listener(game, int(sequence))
                finally:
                    with contextlib.suppress(psycopg.Error):
                        await conn.close()
            except psycopg.OperationalError:
                log.warning("listen connection lost; reconnecting")
                await asyncio.sleep(0.5)

    # ------------------------------------------------------------ writing

    def _put(self, sql: str, params: tuple[Any, ...], game: str = "", seq: int = 0) -> Any:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Write(sql, params, future, game, seq))
        return future

    async def next_ordinal(self) -> int:
        """The next value of the shared ordinal sequence."""
        async with self._reader() as conn:
            cursor = await conn.execute("SELECT nextval('game_ordinals')")
            row = await cursor.fetchone()
        assert row is not None
        return int(row[0])

    def create(self, setup: Setup, summary: Summary) -> Any:
        """Write a new game, owned by this node at epoch 1."""
        return self._put(
            "INSERT INTO games (id, ordinal, seats, stack, settings, created, state, sequence,"
            " open_seats, people, seat_info, result, attention, owner, epoch)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 1)",
            (
                setup.id,
                setup.ordinal,
                dumps(setup.seats),
                dumps(setup.stack),
                dumps(setup.settings),
                setup.created,
                summary.state,
                summary.sequence,
                summary.open_seats,
                summary.people,
                dumps(summary.seats),
                None if summary.result is None else dumps(summary.result),
                summary.attention,
                self.node,
            ),
        )

    def append(self, game: str, entry: Entry, summary: Summary, tokens: Tokens, epoch: int) -> Any:
        """Write an entry through ``tongiaki_append`` (which checks order and owner)."""
        return self._put(
            "SELECT tongiaki_append(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                game,
                entry.sequence,
                entry.kind,
                dumps(entry.body),
                epoch,
                *(
                    (
                        summary.state,
                        summary.open_seats,
                        summary.people,
                        dumps(summary.seats),
                        None if summary.result is None else dumps(summary.result),
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
        )

    async def _write_loop(self) -> None:
        assert self._writer is not None
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
                await self._commit(batch)

    async def _commit(self, batch: list[_Write]) -> None:
        assert self._writer is not None
        results: list[Any] = []
        writer = self._writer
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
                results.append(await cursor.fetchone() if write.game else None)
            self.commits += 1
            self.writes += len(batch)
        except psycopg.Error as error:
            log.exception("commit failed")
            if not writer.closed and writer.info.transaction_status != TransactionStatus.IDLE:
                with contextlib.suppress(psycopg.Error):
                    await writer.execute("ROLLBACK")
            if isinstance(error, psycopg.OperationalError):
                with contextlib.suppress(psycopg.Error):
                    await self._writer.close()
                self._writer = await self._connect()
            for write in batch:
                if not write.future.done():
                    write.future.set_exception(error)
            return
        for write, row in zip(batch, results, strict=True):
            if write.future.done():
                continue
            if write.game and not (row and row[0]):
                write.future.set_exception(
                    Conflict(write.game, write.sequence, "not the next entry, or not the owner")
                )
            else:
                write.future.set_result(None)

    # ------------------------------------------------------------ owners

    async def acquire(self, game: str) -> Owner | None:
        """Own ``game`` if it has no living owner; else who does. None: no such game."""
        async with self._reader() as conn:
            cursor = await conn.execute(
                "UPDATE games SET owner = %(me)s, epoch = epoch + 1 WHERE id = %(g)s AND"
                " (owner IS NULL OR owner = %(me)s OR NOT EXISTS (SELECT 1 FROM nodes n"
                "  WHERE n.id = games.owner AND n.lease_until > clock_timestamp()))"
                " RETURNING epoch",
                {"me": self.node, "g": game},
            )
            row = await cursor.fetchone()
            if row is not None:
                return Owner(epoch=int(row[0]))
            cursor = await conn.execute(
                "SELECT n.address FROM games g JOIN nodes n ON n.id = g.owner WHERE g.id = %s",
                (game,),
            )
            found = await cursor.fetchone()
        if found is None:
            # The game exists only if its row does; its owner may have vanished meanwhile.
            return None if await self.load(game, entries=False) is None else Owner(address="")
        return Owner(address=str(found[0]))

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

    # ------------------------------------------------------------ reading

    @contextlib.asynccontextmanager
    async def _reader(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        conn = await self._readers.get()
        try:
            yield conn
        except psycopg.OperationalError:
            with contextlib.suppress(psycopg.Error):
                await conn.close()
            conn = await self._connect()
            raise
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
