"""The PostgreSQL store itself refuses appends that are out of order or not the owner's."""

from __future__ import annotations

import asyncio
import contextlib

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from server.game.fanout import End
from server.game.hooks import Hooks
from server.node.registry import Registry
from server.rpc import codec
from server.storage.base import Conflict, Entry, Setup, Summary, Tokens
from server.storage.postgres import PostgresStore

pytestmark = pytest.mark.postgres_only


def _setup(gid: str, ordinal: int) -> Setup:
    return Setup(gid, ordinal, ["yellow", "red"], ["t"] * 31, {}, 0.0)


def test_only_the_owner_appends_and_only_the_next_entry(pg_url: str) -> None:
    async def main() -> None:
        one = PostgresStore(pg_url, address="127.0.0.1:1", lease=2.0)
        two = PostgresStore(pg_url, address="127.0.0.1:2", lease=2.0)
        await one.start()
        await two.start()
        try:
            setup = _setup("g1", await one.next_ordinal())
            await one.create(setup, Summary())
            joined = Entry(1, "joined", {"colour": "yellow", "token": "h", "name": "A"})
            await one.append("g1", joined, Summary(sequence=1), Tokens(added=("h",)), 1)
            # The owner is alive: the other node is told where the game is.
            owner = await two.acquire("g1")
            assert owner is not None and owner.address == "127.0.0.1:1"
            # Not the next entry: refused, whoever writes it.
            with pytest.raises(Conflict):
                await one.append(
                    "g1", Entry(3, "left", {"colour": "yellow"}), Summary(), Tokens(), 1
                )
            with pytest.raises(Conflict):
                await one.append("g1", joined, Summary(), Tokens(), 1)
            # Once the owner's lease ran out, the other node takes the game with a new
            # epoch, and the old owner's writes are refused from then on. (Its renewal
            # is stopped first, as a paused node's would be.)
            lease = next(t for t in one._tasks if t.get_name() == "store-lease")
            lease.cancel()
            async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
                await conn.execute(
                    "UPDATE nodes SET lease_until = clock_timestamp() WHERE id = %s", (one.node,)
                )
                taken = await two.acquire("g1")
                assert taken is not None and taken.mine and taken.epoch == 2
                left = Entry(2, "left", {"colour": "yellow"})
                with pytest.raises(Conflict):
                    await one.append("g1", left, Summary(sequence=2), Tokens(removed=("h",)), 1)
                await two.append("g1", left, Summary(sequence=2), Tokens(removed=("h",)), 2)
                # Around the function, the table itself takes no entry out of order.
                with pytest.raises(psycopg.errors.IntegrityConstraintViolation):
                    await conn.execute(
                        "INSERT INTO entries (game, seq, kind, body) VALUES ('g1', 3, 'x', '{}')"
                    )
                cursor = await conn.execute("SELECT seq FROM entries WHERE game = 'g1'")
                assert [row[0] for row in await cursor.fetchall()] == [1, 2]
            assert await two.token_game("h") is None
            stored = await one.load("g1")
            assert stored is not None and [e.kind for e in stored.entries] == ["joined", "left"]
        finally:
            await one.stop()
            await two.stop()

    asyncio.run(main())


def test_a_notification_reaches_every_node(pg_url: str) -> None:
    async def main() -> None:
        one = PostgresStore(pg_url, address="127.0.0.1:1")
        two = PostgresStore(pg_url, address="127.0.0.1:2")
        heard: list[tuple[str, int]] = []
        got = asyncio.Event()

        def listener(game: str, sequence: int) -> None:
            heard.append((game, sequence))
            got.set()

        two.listen(listener)
        await one.start()
        await two.start()
        try:
            await one.create(_setup("g2", await one.next_ordinal()), Summary())
            entry = Entry(1, "joined", {"colour": "red", "token": "k", "name": "B"})
            await one.append("g2", entry, Summary(sequence=1), Tokens(added=("k",)), 1)
            await asyncio.wait_for(got.wait(), 10)
            assert heard == [("g2", 1)]
            assert await two.token_game("k") == "g2"
        finally:
            await one.stop()
            await two.stop()

    asyncio.run(main())


def test_a_notification_during_a_read_is_not_lost(pg_url: str) -> None:
    """An entry told of while a follower's read is under way is read next."""

    async def main() -> None:
        owner = PostgresStore(pg_url, address="127.0.0.1:1")
        follower = PostgresStore(pg_url, address="127.0.0.1:2")
        await owner.start()
        await follower.start()
        registry = Registry(follower, Hooks(codec))
        await registry.start()
        heard = asyncio.Event()
        follower.listen(lambda game, sequence: heard.set() if sequence == 2 else None)
        try:
            await owner.create(_setup("g3", await owner.next_ordinal()), Summary())
            first = Entry(1, "joined", {"colour": "yellow", "token": "a", "name": "A"})
            await owner.append("g3", first, Summary(sequence=1), Tokens(added=("a",)), 1)
            copy = await registry.find("games/g3")
            assert copy.sequence == 1 and not copy.owner
            read = follower.entries_after

            async def slow_read(after: dict[str, int], limit: int) -> dict[str, list[Entry]]:
                found = await read(after, limit)
                if after.get("g3") == 1 and not heard.is_set():
                    # Entry 2 is written, and told of, after this read saw nothing.
                    second = Entry(2, "joined", {"colour": "red", "token": "b", "name": "B"})
                    await owner.append("g3", second, Summary(sequence=2), Tokens(), 1)
                    await asyncio.wait_for(heard.wait(), 10)
                return found

            follower.entries_after = slow_read  # type: ignore[method-assign]
            registry._on_entry("g3", 0)  # a notification for this copy, read at once
            for _ in range(100):
                if copy.sequence == 2:
                    break
                await asyncio.sleep(0.05)
            assert copy.sequence == 2
        finally:
            registry.close(End.SHUTDOWN)
            await owner.stop()
            await follower.stop()

    asyncio.run(main())


def test_a_batch_that_fails_is_rolled_back_whole_and_the_writer_goes_on(pg_url: str) -> None:
    """A commit is one round trip; a statement that fails undoes its whole batch."""

    async def main() -> None:
        store = PostgresStore(pg_url, address="127.0.0.1:1")
        await store.start()
        try:
            setup = _setup("g4", await store.next_ordinal())
            await store.create(setup, Summary())
            joined = Entry(1, "joined", {"colour": "yellow", "token": "a", "name": "A"})
            # Queued together, so committed as one batch: the second game reuses
            # the first's ordinal, and the unique index refuses it.
            outcomes = await asyncio.gather(
                store.append("g4", joined, Summary(sequence=1), Tokens(added=("a",)), 1),
                store.create(_setup("g5", setup.ordinal), Summary()),
                return_exceptions=True,
            )
            assert all(isinstance(o, psycopg.Error) for o in outcomes), outcomes
            stored = await store.load("g4")
            assert stored is not None and stored.entries == []
            assert await store.load("g5") is None and await store.token_game("a") is None
            # The writer's connection is usable again at once.
            await store.append("g4", joined, Summary(sequence=1), Tokens(added=("a",)), 1)
            stored = await store.load("g4")
            assert stored is not None and [e.sequence for e in stored.entries] == [1]
        finally:
            await store.stop()

    asyncio.run(main())


class CutAfterCommit:
    """A TCP relay to the database that, once armed, lets the next COMMIT through and
    its answer reach the relay, then cuts the connection before the answer goes on:
    a commit made whose answer was lost."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.armed = False
        #: Whether a cut keeps the database's side open (its server process lives on).
        self.keep_upstream = False
        #: The local ports of the connections to the database whose side was kept.
        self.kept: list[int] = []
        self.cut = asyncio.Event()
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        committing = asyncio.Event()
        kept = asyncio.Event()

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, up: bool) -> None:
            while data := await src.read(65536):
                if up and self.armed and b"COMMIT" in data:
                    self.armed = False
                    committing.set()
                elif not up and committing.is_set() and b"COMMIT\x00" in data:
                    # The database committed and said so: nobody hears it.
                    writer.close()
                    if self.keep_upstream:
                        kept.set()
                        self.kept.append(up_writer.get_extra_info("sockname")[1])
                    else:
                        up_writer.close()
                    self.cut.set()
                    return
                dst.write(data)
                await dst.drain()
            if not (up and kept.is_set()):
                dst.close()

        with contextlib.suppress(OSError, ConnectionError):
            await asyncio.gather(pump(reader, up_writer, True), pump(up_reader, writer, False))
        if kept.is_set():
            # Held open until the database ends it.
            with contextlib.suppress(OSError, ConnectionError):
                while await up_reader.read(65536):
                    pass
            up_writer.close()


def test_a_commit_whose_answer_is_lost_is_looked_up_not_reported_unknown(pg_url: str) -> None:
    """The writer's connection breaks at commit: the store ends the old server process
    and looks the writes up, so each is answered as it went (made, or sent again)."""

    async def main() -> None:
        info = conninfo_to_dict(pg_url)
        relay = CutAfterCommit(str(info.get("host") or "127.0.0.1"), int(info.get("port") or 5432))
        info["host"], info["port"] = "127.0.0.1", str(await relay.start())
        store = PostgresStore(make_conninfo("", **info), address="127.0.0.1:1")
        await store.start()
        try:
            setup = _setup("g6", await store.next_ordinal())
            await store.create(setup, Summary())
            # A commit made whose answer is lost: the entry is found, the append succeeds.
            relay.armed = True
            joined = Entry(1, "joined", {"colour": "yellow", "token": "a", "name": "A"})
            await store.append("g6", joined, Summary(sequence=1), Tokens(added=("a",)), 1)
            assert relay.cut.is_set()
            stored = await store.load("g6")
            assert stored is not None and [e.sequence for e in stored.entries] == [1]
            # A connection that died while idle (the database restarted meanwhile):
            # nothing was committed, so the write is sent again, and made once.
            writer = store._writer
            assert writer is not None
            async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
                await conn.execute(
                    "SELECT pg_terminate_backend(%s, 5000)", (writer.info.backend_pid,)
                )
            left = Entry(2, "left", {"colour": "yellow"})
            await store.append("g6", left, Summary(sequence=2), Tokens(removed=("a",)), 1)
            stored = await store.load("g6")
            assert stored is not None and [e.sequence for e in stored.entries] == [1, 2]
            # The answer lost with the server process still alive: it is ended (its
            # transaction over) before the entry is looked for.
            relay.armed, relay.keep_upstream = True, True
            relay.cut.clear()
            back = Entry(3, "joined", {"colour": "yellow", "token": "b", "name": "B"})
            await store.append("g6", back, Summary(sequence=3), Tokens(added=("b",)), 1)
            assert relay.cut.is_set() and len(relay.kept) == 1
            async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
                cursor = await conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE client_port = %s", (relay.kept[0],)
                )
                assert await cursor.fetchone() == (0,)
            stored = await store.load("g6")
            assert stored is not None and [e.sequence for e in stored.entries] == [1, 2, 3]
        finally:
            await store.stop()
            await relay.close()

    asyncio.run(main())
