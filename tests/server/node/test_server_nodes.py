"""Several nodes on one PostgreSQL database serve the same games."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from server_harness import (
    COLOURS,
    Seen,
    Stub,
    auth,
    error_info,
    new_game,
    play_seat,
    random_chooser,
    running,
)

from engine import Game
from server.game.seats import hash_token
from server.node.forward import vouch, vouched
from server.rpc import codec as convert
from server.rpc.tls import TlsFiles
from tests.certs import self_signed
from tests.launch import Launched, launch
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

pytestmark = pytest.mark.postgres_only


@contextlib.asynccontextmanager
async def nodes(data: Path, count: int) -> AsyncIterator[list[Stub]]:
    """``count`` servers in this process on the test's database, and a stub to each."""
    async with contextlib.AsyncExitStack() as stack:
        stubs = []
        for i in range(count):
            _, stub, _ = await stack.enter_async_context(running(data / f"node{i}"))
            stubs.append(stub)
        yield stubs


async def _seat(stub: Stub, name: str, colour: int, token: str, rng: random.Random) -> Seen:
    """Play ``colour`` at random through ``stub`` until the game ends."""
    seen = Seen()
    async for message in stub.WatchGame(spb.WatchGameRequest(name=name), metadata=auth(token)):
        seen.take(message)
        while seen.decision is not None and seen.decision.player == colour:
            reply = await stub.SubmitAction(
                spb.SubmitActionRequest(
                    name=name,
                    sequence=seen.sequence,
                    request_id=f"{colour}-{seen.sequence}",
                    action=rng.choice(list(seen.decision.options)),
                ),
                metadata=auth(token),
            )
            seen.follow(reply.entry)
    return seen


def test_a_game_spread_over_three_nodes_matches_the_engine(tmp_path: Path, pg_url: str) -> None:
    async def main() -> None:
        async with nodes(tmp_path, 3) as stubs:
            created = await stubs[0].CreateGame(spb.CreateGameRequest(seats=COLOURS[:4]))
            name = created.game.name
            tokens = {}
            for i in range(4):
                joined = await stubs[(i + 1) % 3].JoinGame(
                    spb.JoinGameRequest(name=name, display_name=f"seat {i}")
                )
                tokens[joined.colour] = (stubs[(i + 1) % 3], joined.seat_token)
            await stubs[2].StartGame(
                spb.StartGameRequest(name=name), metadata=auth(tokens[COLOURS[0]][1])
            )
            spectators = [
                asyncio.ensure_future(_spectate(stub, name)) for stub in stubs for _ in range(2)
            ]
            seats = await asyncio.gather(
                *(
                    _seat(stub, name, colour, token, random.Random(colour))
                    for colour, (stub, token) in tokens.items()
                )
            )
            watched = await asyncio.gather(*spectators)
            record = json.loads(
                (await stubs[1].GetGameRecord(spb.GetGameRecordRequest(name=name))).record_json
            )
            replay = Game.from_record(record)
            assert replay.over
            logs = [[e.SerializeToString() for e in seen.entries()] for seen in watched]
            assert all(log == logs[0] for log in logs)
            assert all(s.sequence == watched[0].sequence for s in [*seats, *watched])
            for stub in stubs:
                final = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot
                assert final.view == convert.view_to_proto(replay.view(None))
                assert final.sequence == watched[0].sequence
            # Each entry's frame is stored as its owner encoded it, and that is what
            # watchers on every node were sent (followers relay it).
            async with await psycopg.AsyncConnection.connect(pg_url) as conn:
                cursor = await conn.execute(
                    "SELECT frame FROM entries WHERE game = %s ORDER BY seq",
                    (name.removeprefix("games/"),),
                )
                frames = [frame for (frame,) in await cursor.fetchall()]
            assert len(frames) == watched[0].sequence and all(frames)
            stored = [spb.WatchGameResponse.FromString(f).entries[0] for f in frames]
            assert [e.SerializeToString() for e in stored] == logs[0]

    asyncio.run(main())


async def _spectate(stub: Stub, name: str) -> Seen:
    """Every entry of the game from the first, through ``stub``'s node."""
    seen = Seen()
    async for message in stub.WatchGame(spb.WatchGameRequest(name=name, after_sequence=0)):
        assert not message.HasField("snapshot")
        seen.take(message)
    return seen


def test_many_games_played_on_one_node_are_watched_whole_on_another(tmp_path: Path) -> None:
    async def main() -> None:
        async with nodes(tmp_path, 2) as (owner, other):
            games = [await new_game(owner, 4, start_game=False) for _ in range(20)]
            spectators = [asyncio.ensure_future(_spectate(other, name)) for name, _ in games]
            for name, tokens in games:
                await owner.StartGame(
                    spb.StartGameRequest(name=name), metadata=auth(tokens[COLOURS[0]])
                )
            seats = await asyncio.wait_for(
                asyncio.gather(
                    *(
                        play_seat(owner, name, colour, token, random_chooser(colour))
                        for name, tokens in games
                        for colour, token in tokens.items()
                    )
                ),
                180,
            )
            watched = await asyncio.wait_for(asyncio.gather(*spectators), 60)
            finals = {seen.sequence for seen in seats[::4]}
            for (name, _), seen, final in zip(games, watched, seats[::4], strict=True):
                assert seen.sequence == final.sequence, name
                assert [e.sequence for e in seen.entries()] == list(range(1, seen.sequence + 1))
            assert len(finals) > 1  # the games really were different

    asyncio.run(main())


def test_the_same_action_sent_to_two_nodes_is_applied_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with nodes(tmp_path, 2) as (one, two):
            created = await one.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))
            name = created.game.name
            tokens = {}
            for _ in range(2):
                joined = await two.JoinGame(spb.JoinGameRequest(name=name))
                tokens[joined.colour] = joined.seat_token
            await two.StartGame(spb.StartGameRequest(name=name), metadata=auth(tokens[COLOURS[0]]))
            for round_ in range(6):
                snapshot = (await two.GetGame(spb.GetGameRequest(name=name))).snapshot
                decision = snapshot.view.decision
                same_id = round_ % 2 == 0
                requests = [
                    spb.SubmitActionRequest(
                        name=name,
                        sequence=snapshot.sequence,
                        request_id="same" + str(round_) if same_id else f"{node}-{round_}",
                        action=decision.options[0],
                    )
                    for node in range(2)
                ]
                results = await asyncio.gather(
                    *(
                        stub.SubmitAction(request, metadata=auth(tokens[decision.player]))
                        for stub, request in zip((one, two), requests, strict=True)
                    ),
                    return_exceptions=True,
                )
                done = [r for r in results if isinstance(r, spb.SubmitActionResponse)]
                if same_id:  # a retry: both get the one entry
                    assert len(done) == 2 and done[0] == done[1]
                else:
                    assert len(done) == 1
                    (failed,) = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
                    assert error_info(failed)[1] == "STALE_SEQUENCE"
                after = (await one.GetGame(spb.GetGameRequest(name=name))).snapshot
                assert after.sequence == snapshot.sequence + 1

    asyncio.run(main())


def test_a_forwarded_caller_travels_as_a_vouched_hash_never_as_its_token(
    tmp_path: Path,
) -> None:
    token = "the-seat-token"
    sent = vouch(b"secret", "node-a", "SubmitAction", b"request", token)
    assert all(token not in value for _, value in sent)
    assert vouched(b"secret", "node-a", "SubmitAction", b"request", sent) == hash_token(token)
    for secret, node, method, data in (
        (b"other", "node-a", "SubmitAction", b"request"),
        (b"secret", "node-b", "SubmitAction", b"request"),
        (b"secret", "node-a", "LeaveGame", b"request"),
        (b"secret", "node-a", "SubmitAction", b"another request"),
    ):
        with pytest.raises(ValueError):
            vouched(secret, node, method, data, sent)

    async def main() -> None:
        async with nodes(tmp_path, 2) as (one, two):
            created = await one.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))
            name = created.game.name
            tokens = {}
            for _ in range(2):
                joined = await two.JoinGame(spb.JoinGameRequest(name=name))
                tokens[joined.colour] = joined.seat_token
            # Through the other node: the owner hears of the seat by its vouched hash.
            await two.StartGame(spb.StartGameRequest(name=name), metadata=auth(tokens[COLOURS[0]]))
            # A caller that forges a node's voucher is refused.
            forged = [
                ("tongiaki-forwarded", "1"),
                ("tongiaki-seat", hash_token(tokens[COLOURS[1]])),
                ("tongiaki-sent", f"{time.time():.3f}"),
                ("tongiaki-proof", "0" * 64),
            ]
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await one.LeaveGame(spb.LeaveGameRequest(name=name), metadata=forged)
            assert error_info(refused.value)[1] == "TOKEN_INVALID"

    asyncio.run(main())


def test_nodes_serving_tls_forward_over_tls_to_nodes_they_trust(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    stranger, _ = self_signed(tmp_path, "stranger-")

    async def main() -> None:
        async with contextlib.AsyncExitStack() as stack:
            servers = []
            for i, peer_ca in enumerate((None, None, stranger)):
                tls = TlsFiles(cert, key, peer_ca)
                server, _, _ = await stack.enter_async_context(
                    running(tmp_path / f"node{i}", tls=tls)
                )
                servers.append(server)
            credentials = grpc.ssl_channel_credentials(cert.read_bytes())
            stubs = []
            for server in servers:
                channel = grpc.aio.secure_channel(f"127.0.0.1:{server.port}", credentials)
                stubs.append(Stub(await stack.enter_async_context(channel)))
            one, two, wary = stubs
            name = (await one.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))).game.name
            # Changes sent to node two are made by node one, the game's owner.
            tokens = {}
            for _ in range(2):
                joined = await two.JoinGame(spb.JoinGameRequest(name=name))
                tokens[joined.colour] = joined.seat_token
            await two.StartGame(spb.StartGameRequest(name=name), metadata=auth(tokens[COLOURS[0]]))
            snapshot = (await two.GetGame(spb.GetGameRequest(name=name))).snapshot
            decision = snapshot.view.decision
            reply = await two.SubmitAction(
                spb.SubmitActionRequest(
                    name=name,
                    sequence=snapshot.sequence,
                    request_id="tls",
                    action=decision.options[0],
                ),
                metadata=auth(tokens[decision.player]),
            )
            assert reply.entry.sequence == snapshot.sequence + 1
            owner = (await one.GetGame(spb.GetGameRequest(name=name))).snapshot
            assert owner.sequence == reply.entry.sequence
            # A node that trusts another certificate does not talk to the owner.
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await wary.LeaveGame(
                    spb.LeaveGameRequest(name=name), metadata=auth(tokens[decision.player])
                )
            assert error_info(refused.value)[1] == "NODE_UNAVAILABLE"

    asyncio.run(main())


# ---------------------------------------------------------------- a node killed


def start_node(database: str, folder: Path, lease: float) -> Launched:
    """``python -m server`` on the test's database, as its own process."""
    return launch(
        [
            *("--host", "127.0.0.1", "--database", database, "--lease", str(lease)),
            *("--data-dir", str(folder), "--strong-budget", "0.05"),
        ],
        folder,
    )


class Client:
    """Talks to any of the nodes: on UNAVAILABLE it moves on to the next one."""

    def __init__(self, addresses: list[str], first: int) -> None:
        self.channels = [grpc.aio.insecure_channel(a) for a in addresses]
        self.at = first % len(addresses)

    @property
    def stub(self) -> Stub:
        return Stub(self.channels[self.at])

    def next(self) -> None:
        self.at = (self.at + 1) % len(self.channels)

    async def call(self, method: str, request: Any, token: str | None = None) -> Any:
        for _ in range(200):
            try:
                return await getattr(self.stub, method)(request, metadata=auth(token), timeout=10)
            except grpc.aio.AioRpcError as error:
                if error.code() not in (
                    grpc.StatusCode.UNAVAILABLE,
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                ):
                    raise
                self.next()
                await asyncio.sleep(0.1)
        raise AssertionError(f"{method} never got through")

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()


async def _resuming_watch(client: Client, name: str, token: str | None) -> list[pb.LogEntry]:
    """Every entry of the game, resuming on another node whenever the stream breaks."""
    entries: list[pb.LogEntry] = []
    after: int | None = None
    while True:
        request = spb.WatchGameRequest(name=name)
        if after is not None:
            request.after_sequence = after
        try:
            async for message in client.stub.WatchGame(request, metadata=auth(token)):
                if message.HasField("snapshot"):
                    assert after is None, "a resume within reach was answered with a snapshot"
                    after = message.snapshot.sequence
                for entry in message.entries:
                    entries.append(entry)
                    after = entry.sequence
                if message.caught_up:
                    after = message.sequence
            return entries
        except grpc.aio.AioRpcError as error:
            if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED):
                raise
            client.next()
            await asyncio.sleep(0.1)


async def _play(client: Client, name: str, tokens: dict[int, str], acked: list[int]) -> None:
    """Play every seat at random through ``client`` until the game ends."""
    rng = random.Random(name)
    while True:
        snapshot = (await client.call("GetGame", spb.GetGameRequest(name=name))).snapshot
        if snapshot.game.state == pb.GAME_STATE_FINISHED:
            return
        decision = snapshot.view.decision
        try:
            reply = await client.call(
                "SubmitAction",
                spb.SubmitActionRequest(
                    name=name,
                    sequence=snapshot.sequence,
                    request_id=f"r{snapshot.sequence}",
                    action=rng.choice(list(decision.options)),
                ),
                tokens[decision.player],
            )
        except grpc.aio.AioRpcError as error:
            if error_info(error)[1] == "STALE_SEQUENCE":
                continue
            raise
        acked.append(reply.entry.sequence)
        await asyncio.sleep(rng.random() * 0.02)


async def _whole_log(client: Client, name: str) -> list[pb.LogEntry]:
    """Every entry of a game's log, page after page (a random game may pass one page)."""
    log: list[pb.LogEntry] = []
    while True:
        page = await client.call(
            "ListGameEntries",
            spb.ListGameEntriesRequest(name=name, after_sequence=len(log), page_size=2000),
        )
        log.extend(page.entries)
        if not page.more:
            return log


def test_a_killed_node_loses_nothing_and_its_games_go_on(tmp_path: Path, pg_url: str) -> None:
    lease = 2.0
    cluster = [start_node(pg_url, tmp_path / f"node{i}", lease) for i in range(3)]
    addresses = [n.address for n in cluster]

    async def main() -> None:
        setup = Client(addresses, 0)
        games: list[tuple[str, dict[int, str]]] = []
        for i in range(30):
            node = Client(addresses, i)
            created = await node.call(
                "CreateGame", spb.CreateGameRequest(seats=COLOURS[: 2 + i % 3])
            )
            tokens = {}
            for _ in range(2 + i % 3):
                joined = await node.call("JoinGame", spb.JoinGameRequest(name=created.game.name))
                tokens[joined.colour] = joined.seat_token
            await node.call(
                "StartGame", spb.StartGameRequest(name=created.game.name), tokens[COLOURS[0]]
            )
            await node.close()
            games.append((created.game.name, tokens))
        # Games owned by the node to be killed are played and watched everywhere.
        acked: dict[str, list[int]] = {name: [] for name, _ in games}
        watchers = [
            asyncio.ensure_future(_resuming_watch(Client(addresses, i + k), name, None))
            for i, (name, _) in enumerate(games)
            for k in range(2)
        ]
        players = [
            asyncio.ensure_future(_play(Client(addresses, i + 1), name, tokens, acked[name]))
            for i, (name, tokens) in enumerate(games)
        ]
        await asyncio.sleep(1.5)
        assert not any(p.done() for p in players), "the games ended before the kill"
        cluster[0].kill()
        await asyncio.wait_for(asyncio.gather(*players), 240)
        watched = await asyncio.wait_for(asyncio.gather(*watchers), 60)
        for (name, _), seen_twice in zip(
            games, zip(watched[::2], watched[1::2], strict=True), strict=True
        ):
            record = json.loads(
                (await setup.call("GetGameRecord", spb.GetGameRecordRequest(name=name))).record_json
            )
            assert Game.from_record(record).over
            log = await _whole_log(setup, name)
            sequences = [e.sequence for e in log]
            assert sequences == list(range(1, len(log) + 1))
            # Every acknowledged action is in the log, and it is the one acknowledged.
            assert set(acked[name]) <= set(sequences)
            for seen in seen_twice:
                assert [e.sequence for e in seen] == sequences[sequences.index(seen[0].sequence) :]
                assert seen == list(log[seen[0].sequence - 1 :])
        await setup.close()

    try:
        asyncio.run(main())
    finally:
        for node in cluster:
            node.stop()


def test_a_game_watched_on_a_node_is_taken_over_there_when_its_owner_stops(
    tmp_path: Path, pg_url: str
) -> None:
    """Nobody asks for a change: the node its spectator watches on takes the game over
    once the owner (paused past its lease) is gone, and its watch goes on."""
    owner, other = (start_node(pg_url, tmp_path / f"node{i}", 1.5) for i in range(2))

    async def main() -> None:
        async with (
            grpc.aio.insecure_channel(owner.address) as first,
            grpc.aio.insecure_channel(other.address) as second,
        ):
            one, two = Stub(first), Stub(second)
            name = (await one.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))).game.name
            tokens = {}
            for _ in range(2):
                joined = await one.JoinGame(spb.JoinGameRequest(name=name))
                tokens[joined.colour] = joined.seat_token
            await one.StartGame(spb.StartGameRequest(name=name), metadata=auth(tokens[COLOURS[0]]))
            watch = two.WatchGame(spb.WatchGameRequest(name=name))
            first_message = await watch.read()
            assert first_message.HasField("snapshot")
            owner.process.send_signal(signal.SIGSTOP)
            try:
                query = (
                    "SELECT n.address FROM games g JOIN nodes n ON n.id = g.owner"
                    " WHERE g.id = %s AND n.lease_until > clock_timestamp()"
                )
                gid = name.removeprefix("games/")
                deadline = time.monotonic() + 60
                async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as db:
                    while True:
                        row = await (await db.execute(query, (gid,))).fetchone()
                        if row is not None and row[0] == other.address:
                            break
                        assert time.monotonic() < deadline, f"owned by {row}"
                        await asyncio.sleep(0.05)
                # The watch goes on there: the next decision reaches it.
                snapshot = (await two.GetGame(spb.GetGameRequest(name=name))).snapshot
                decision = snapshot.view.decision
                reply = await two.SubmitAction(
                    spb.SubmitActionRequest(
                        name=name,
                        sequence=snapshot.sequence,
                        request_id="after",
                        action=decision.options[0],
                    ),
                    metadata=auth(tokens[decision.player]),
                )
                while True:
                    message = await asyncio.wait_for(watch.read(), 60)
                    if any(e.sequence == reply.entry.sequence for e in message.entries):
                        break
            finally:
                owner.process.send_signal(signal.SIGCONT)
                watch.cancel()

    try:
        asyncio.run(main())
    finally:
        owner.stop()
        other.stop()


def test_create_join_and_start_request_ids_hold_across_nodes_and_a_takeover(
    tmp_path: Path,
) -> None:
    """A repeat sent to another node, or to both at once, or after the owner
    stopped and another node took the game over, returns the first result."""

    async def main() -> None:
        async with contextlib.AsyncExitStack() as stack:
            owner = contextlib.AsyncExitStack()
            stack.push_async_callback(owner.aclose)
            _, one, _ = await owner.enter_async_context(running(tmp_path / "node0"))
            _, two, _ = await stack.enter_async_context(running(tmp_path / "node1"))
            create = spb.CreateGameRequest(seats=COLOURS[:2], request_id="create-nodes")
            made = await asyncio.gather(one.CreateGame(create), two.CreateGame(create))
            name = made[0].game.name
            assert made[1].game.name == name
            assert (await two.CreateGame(create)).game.name == name
            # The game's owner is the node that made it; two forwards the joins there.
            join = spb.JoinGameRequest(name=name, display_name="Ann", request_id="join-nodes")
            joined = await asyncio.gather(one.JoinGame(join), two.JoinGame(join))
            ann = joined[0]
            assert (joined[1].colour, joined[1].seat_token) == (ann.colour, ann.seat_token)
            await two.JoinGame(spb.JoinGameRequest(name=name, display_name="Bob"))
            start = spb.StartGameRequest(name=name, request_id="start-nodes")
            await two.StartGame(start, metadata=auth(ann.seat_token))
            await owner.aclose()  # its lease ends: node1 takes its games over
            again = await two.JoinGame(join)
            assert (again.colour, again.seat_token) == (ann.colour, ann.seat_token)
            started = await two.StartGame(start, metadata=auth(ann.seat_token))
            assert started.game.state == pb.GAME_STATE_ACTIVE
            assert (await two.CreateGame(create)).game.name == name
            listed = await two.ListGames(spb.ListGamesRequest())
            assert [game.name for game in listed.games] == [name]
            entries = await two.ListGameEntries(spb.ListGameEntriesRequest(name=name))
            assert [e.WhichOneof("change") for e in entries.entries] == [
                "seat_joined",
                "seat_joined",
                "game_started",
            ]

    asyncio.run(main())
