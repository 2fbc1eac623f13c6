"""CreateGame, JoinGame and StartGame with a request id: a repeat returns the first
result and acts no second time, on the running server and after a restart; the
same id with another request is refused."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import grpc
import pytest
from server_harness import COLOURS, DATABASE, Stub, auth, refused, running

from server.play.webhooks import WebhookConfig
from server.rpc.limits import ClientLimits
from server.storage.base import CREATE_REQUEST_SECONDS, Conflict, Requested, Setup, Store, Summary
from server.storage.postgres import PostgresStore
from server.storage.sqlite import SqliteStore
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb


async def _games(stub: Stub) -> list[str]:
    """The names of every game on the server."""
    listed = await stub.ListGames(spb.ListGamesRequest(page_size=1000))
    assert not listed.next_page_token
    return [game.name for game in listed.games]


async def _started_entries(stub: Stub, name: str) -> int:
    entries = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
    return sum(1 for entry in entries.entries if entry.HasField("game_started"))


def test_a_repeated_create_returns_the_first_game_and_makes_no_other(tmp_path: Path) -> None:
    async def main() -> None:
        # One new game a minute: a repeat must not count as another.
        limits = ClientLimits(games_per_minute=1, games_burst=1, watches_per_client=0)
        async with running(tmp_path, clients=limits) as (_, stub, _):
            request = spb.CreateGameRequest(
                seats=COLOURS[:3],
                settings=pb.GameSettings(display_name="Friday"),
                request_id="create-1",
            )
            first = await stub.CreateGame(request)
            again = await asyncio.gather(*(stub.CreateGame(request) for _ in range(3)))
            assert {reply.game.name for reply in again} == {first.game.name}
            assert all(reply.game.settings.display_name == "Friday" for reply in again)
            assert await _games(stub) == [first.game.name]
            # The same id with other seats or settings: refused, nothing made.
            for other in (
                spb.CreateGameRequest(seats=COLOURS[:2], request_id="create-1"),
                spb.CreateGameRequest(
                    seats=COLOURS[:3],
                    settings=pb.GameSettings(display_name="Saturday"),
                    request_id="create-1",
                ),
            ):
                code, reason, metadata = await refused(stub.CreateGame(other))
                assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
                assert metadata["field"] == "request_id"
            # A new id is a new game (and the rate limit holds for it).
            _, reason, _ = await refused(
                stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2], request_id="create-2"))
            )
            assert reason == "RATE_LIMITED"
            assert await _games(stub) == [first.game.name]
            code, reason, _ = await refused(
                stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2], request_id="x" * 65))
            )
            assert reason == "INVALID_REQUEST"

    asyncio.run(main())


def test_a_repeated_create_returns_the_webhook_secret_the_first_one_got(tmp_path: Path) -> None:
    async def main() -> None:
        hooks = WebhookConfig(allowed_prefixes=("http://127.0.0.1:9/",), attempts=1)
        async with running(tmp_path, webhooks=hooks) as (_, stub, _):
            request = spb.CreateGameRequest(
                seats=COLOURS[:2],
                settings=pb.GameSettings(webhook_url="http://127.0.0.1:9/t"),
                request_id="hooked",
            )
            first, again = [await stub.CreateGame(request) for _ in range(2)]
            assert first.webhook_secret and again.webhook_secret == first.webhook_secret
            assert again.game.name == first.game.name
            assert again.game.settings.webhook_url == "http://127.0.0.1:9/t"

    asyncio.run(main())


def test_a_repeated_join_takes_one_seat_and_gets_the_same_token(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _):
            name = (await stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:3]))).game.name
            request = spb.JoinGameRequest(name=name, display_name="Ann", request_id="join-ann")
            first = await stub.JoinGame(request)
            again = await asyncio.gather(*(stub.JoinGame(request) for _ in range(3)))
            for reply in again:
                assert (reply.colour, reply.seat_token) == (first.colour, first.seat_token)
            game = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.game
            assert [s.display_name for s in game.seats if s.occupied] == ["Ann"]
            # The same id asking for another name or colour: refused.
            for other in (
                spb.JoinGameRequest(name=name, display_name="Bob", request_id="join-ann"),
                spb.JoinGameRequest(
                    name=name, colour=COLOURS[1], display_name="Ann", request_id="join-ann"
                ),
            ):
                code, reason, metadata = await refused(stub.JoinGame(other))
                assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
                assert metadata["field"] == "request_id"
            # Another id (or none) is another join.
            bob = await stub.JoinGame(
                spb.JoinGameRequest(name=name, display_name="Bob", request_id="join-bob")
            )
            cleo = await stub.JoinGame(spb.JoinGameRequest(name=name, display_name="Cleo"))
            assert len({first.colour, bob.colour, cleo.colour}) == 3
            # The token given twice is the seat's: it starts the game.
            await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(first.seat_token))
            # Once the game is full, a repeat still answers the first join.
            late = await stub.JoinGame(request)
            assert (late.colour, late.seat_token) == (first.colour, first.seat_token)

    asyncio.run(main())


def test_the_log_and_store_hold_neither_the_join_request_id_nor_the_token(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (server, stub, _):
            name = (await stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))).game.name
            rid = "the-secret-join-request-id"
            joined = await stub.JoinGame(spb.JoinGameRequest(name=name, request_id=rid))
            stored = await server.registry.store.load(name.removeprefix("games/"))
            assert stored is not None
            (entry,) = stored.entries
            text = json.dumps(entry.body)
            assert entry.body["request"] and entry.body["sealed"]
            assert rid not in text and joined.seat_token not in text
            public = await stub.ListGameEntries(spb.ListGameEntriesRequest(name=name))
            assert rid.encode() not in public.SerializeToString()

    asyncio.run(main())


def test_a_repeated_start_succeeds_and_starts_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _):
            name = (await stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:2]))).game.name
            tokens = [
                (await stub.JoinGame(spb.JoinGameRequest(name=name))).seat_token for _ in range(2)
            ]
            request = spb.StartGameRequest(name=name, request_id="start-1")
            first = await stub.StartGame(request, metadata=auth(tokens[0]))
            assert first.game.state == pb.GAME_STATE_ACTIVE
            again = await asyncio.gather(
                *(stub.StartGame(request, metadata=auth(tokens[0])) for _ in range(3))
            )
            assert all(reply.game.state == pb.GAME_STATE_ACTIVE for reply in again)
            assert await _started_entries(stub, name) == 1
            # Another id, or the same id from the other seat, finds the game started.
            for token, rid in ((tokens[0], "start-2"), (tokens[1], "start-1"), (tokens[0], "")):
                _, reason, _ = await refused(
                    stub.StartGame(
                        spb.StartGameRequest(name=name, request_id=rid), metadata=auth(token)
                    )
                )
                assert reason == "GAME_ALREADY_STARTED"

    asyncio.run(main())


def test_request_ids_hold_after_a_restart(tmp_path: Path) -> None:
    create = spb.CreateGameRequest(seats=COLOURS[:2], request_id="c-restart")
    join = spb.JoinGameRequest(display_name="Ann", request_id="j-restart")

    async def main() -> None:
        async with running(tmp_path) as (_, stub, _):
            name = (await stub.CreateGame(create)).game.name
            join.name = name
            ann = await stub.JoinGame(join)
            await stub.JoinGame(spb.JoinGameRequest(name=name))
            start = spb.StartGameRequest(name=name, request_id="s-restart")
            await stub.StartGame(start, metadata=auth(ann.seat_token))
        async with running(tmp_path) as (_, stub, _):
            assert (await stub.CreateGame(create)).game.name == name
            again = await stub.JoinGame(join)
            assert (again.colour, again.seat_token) == (ann.colour, ann.seat_token)
            started = await stub.StartGame(start, metadata=auth(ann.seat_token))
            assert started.game.state == pb.GAME_STATE_ACTIVE
            assert await _games(stub) == [name]
            assert await _started_entries(stub, name) == 1

    asyncio.run(main())


async def _store(data: Path) -> Store:
    store: Store
    if DATABASE[0]:
        store = PostgresStore(DATABASE[0], address="127.0.0.1:1")
    else:
        store = SqliteStore(data / "games.sqlite3")
    await store.start()
    return store


def test_a_create_request_id_is_kept_for_its_window_then_forgotten(tmp_path: Path) -> None:
    async def main() -> None:
        store = await _store(tmp_path)
        try:
            now = time.time()
            old = now - CREATE_REQUEST_SECONDS - 5
            for gid, created in (("g-old", old), ("g-new", now)):
                ordinal = await store.next_ordinal()
                made = Setup(gid, ordinal, ["yellow", "red"], ["t"] * 31, {}, created)
                await store.create(made, Summary(), Requested(f"key-{gid}", "asked"))
            since = now - CREATE_REQUEST_SECONDS
            assert await store.created_by("key-g-new", since) == ("g-new", "asked")
            assert await store.created_by("key-g-old", since) is None
            # Within the window the key makes no second game; past it, it is taken over.
            with pytest.raises(Conflict):
                await store.create(
                    Setup("g-2", await store.next_ordinal(), ["yellow", "red"], [], {}, now),
                    Summary(),
                    Requested("key-g-new", "asked"),
                )
            assert await store.load("g-2") is None
            await store.create(
                Setup("g-3", await store.next_ordinal(), ["yellow", "red"], [], {}, now),
                Summary(),
                Requested("key-g-old", "other"),
            )
            assert await store.created_by("key-g-old", since) == ("g-3", "other")
            assert await store.forget_requests(now + 1) == 2
            assert await store.created_by("key-g-new", 0) is None
        finally:
            await store.stop()

    asyncio.run(main())
