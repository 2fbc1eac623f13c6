"""Turn webhooks against a small HTTP receiver on 127.0.0.1: signed, retried, bounded, allowed."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest
import server_harness
from server_harness import Stub, auth, refused

from engine import Game
from server.app import Config, RunningServer, start
from server.play.botseats import BotConfig
from server.play.webhooks import SIGNATURE_HEADER, WebhookConfig, check_url
from server.rpc.codec import action_from_proto
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb


@dataclass
class Call:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.body)
        return value


@dataclass
class Receiver:
    """An HTTP server on 127.0.0.1 that records every POST and answers as told."""

    answer: Callable[[Call, int], tuple[int, dict[str, str]]] = lambda call, n: (204, {})
    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    port: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def accepted(self) -> list[Call]:
        """Calls answered 2xx, one per delivery id."""
        with self.lock:
            return list(self._accepted)

    _accepted: list[Call] = field(default_factory=list)


@contextlib.contextmanager
def receiving(receiver: Receiver) -> Any:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            call = Call(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            with receiver.lock:
                receiver.calls.append(call)
                number = len(receiver.calls)
            status, headers = receiver.answer(call, number)
            if 200 <= status < 300:
                with receiver.lock:
                    receiver._accepted.append(call)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    receiver.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextlib.asynccontextmanager
async def server_with(
    data: Path, hooks: WebhookConfig
) -> AsyncIterator[tuple[RunningServer, Stub]]:
    server = await start(
        Config(
            host="127.0.0.1",
            port=0,
            data_dir=data,
            database=server_harness.DATABASE[0],
            bots=BotConfig(strong_budget=0.05),
            webhooks=hooks,
        )
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        yield server, Stub(channel)
    finally:
        await channel.close()
        await server.stop(0.5)


def fast(prefix: str, **kwargs: Any) -> WebhookConfig:
    """Allowed ``prefix``, quick retries."""
    return WebhookConfig(allowed_prefixes=(prefix,), backoff=0.02, max_backoff=0.1, **kwargs)


async def until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait for ``check`` (the notices travel through threads and HTTP)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


async def finished(stub: Stub, name: str) -> pb.Game:
    while True:
        game: pb.Game = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.game
        if game.state == pb.GAME_STATE_FINISHED:
            return game
        await asyncio.sleep(0.05)


def expected_notices(record: pb.GameRecord, first_sequence: int) -> list[tuple[int, str, str]]:
    """(sequence, type, player or "") of every notice a game's record calls for.

    ``first_sequence`` is the sequence of the game's start; each action adds one.
    """
    seats = [pb.Colour.Name(c).removeprefix("COLOUR_").lower() for c in record.seats]
    game = Game.new(seats, list(record.stack))
    assert game.decision is not None
    notices = [(first_sequence, "decision", game.decision.player)]
    before: str | None = game.decision.player
    for step, action in enumerate(record.actions, start=1):
        game.apply(action_from_proto(action))
        now = game.decision.player if game.decision is not None else None
        sequence = first_sequence + step
        if now is not None and now != before:
            notices.append((sequence, "decision", now))
        if now is None and game.over:
            notices.append((sequence, "game_over", ""))
        before = now
    return [(s, t, f"COLOUR_{p.upper()}" if p else "") for s, t, p in notices]


def seen(calls: list[Call]) -> list[tuple[int, str, str]]:
    return sorted((c.json["sequence"], c.json["type"], c.json.get("player", "")) for c in calls)


def bot_game(url: str) -> spb.CreateGameRequest:
    return spb.CreateGameRequest(
        seats=[pb.COLOUR_RED, pb.COLOUR_BLUE, pb.COLOUR_GREEN],
        settings=pb.GameSettings(
            webhook_url=url,
            bots=[
                pb.BotSeat(colour=pb.COLOUR_RED),
                pb.BotSeat(colour=pb.COLOUR_BLUE),
                pb.BotSeat(colour=pb.COLOUR_GREEN),
            ],
        ),
    )


def test_every_turn_and_the_end_are_notified_signed_and_retried(tmp_path: Path) -> None:
    # Every third call is answered 503 (each notice at most once): it is tried again.
    refused_once: set[str] = set()

    def answer(call: Call, number: int) -> tuple[int, dict[str, str]]:
        delivery = call.headers["x-tongiaki-delivery"]
        if number % 3 == 0 and delivery not in refused_once:
            refused_once.add(delivery)
            return 503, {}
        return 200, {}

    async def main() -> None:
        with receiving(Receiver(answer=answer)) as receiver:
            async with server_with(tmp_path, fast(receiver.base + "/hooks")) as (server, stub):
                created = await stub.CreateGame(bot_game(receiver.base + "/hooks/turns?app=7"))
                secret = created.webhook_secret
                assert len(secret) == 64
                assert created.game.settings.webhook_url == receiver.base + "/hooks/turns?app=7"
                name = created.game.name
                await finished(stub, name)
                record = (await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))).record
                want = expected_notices(record, first_sequence=1)
                await until(lambda: len(receiver.accepted()) >= len(want))
                await asyncio.sleep(0.2)  # nothing more comes
                hooks = server.webhooks
                # Nobody else sees the URL or the secret.
                public = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.game
                listed = (await stub.ListGames(spb.ListGamesRequest())).games[0]
            accepted = receiver.accepted()
            calls = list(receiver.calls)

        assert public.settings.webhook_url == "" and listed.settings.webhook_url == ""
        assert seen(accepted) == want
        assert want[-1][1] == "game_over" and len(want) > 10
        for call in calls:
            assert call.path == "/hooks/turns?app=7"
            assert call.headers["content-type"] == "application/json"
            mac = hmac.new(secret.encode(), call.body, hashlib.sha256).hexdigest()
            assert hmac.compare_digest(call.headers[SIGNATURE_HEADER.lower()], mac)
            assert call.headers["x-tongiaki-event"] == call.json["type"]
            assert call.headers["x-tongiaki-delivery"] == call.json["delivery"]
            assert call.json["game"] == name and call.json["version"] == 1
        # Each refused call was tried again with the same delivery (same body).
        refused_calls = [c for c in calls if all(c is not a for a in accepted)]
        assert {c.json["delivery"] for c in refused_calls} == refused_once
        assert refused_calls and hooks.retried >= len(refused_calls)
        for call in refused_calls:
            again = [c for c in accepted if c.json["delivery"] == call.json["delivery"]]
            assert again and again[0].body == call.body
        decision = next(c.json for c in accepted if c.json["type"] == "decision")
        assert decision["kind"].startswith("DECISION_KIND_") and decision["bot"] is True
        over = next(c.json for c in accepted if c.json["type"] == "game_over")
        ranks = {r["colour"]: r["rank"] for r in over["results"]}
        assert set(ranks) == {"COLOUR_RED", "COLOUR_BLUE", "COLOUR_GREEN"} and 1 in ranks.values()
        assert hooks.delivered == len(want) and hooks.failed == 0 and hooks.dropped == 0

    asyncio.run(main())


def test_only_urls_under_an_allowed_prefix_are_accepted(tmp_path: Path) -> None:
    async def main() -> None:
        allowed = "http://127.0.0.1:9/hooks"
        async with server_with(tmp_path, fast(allowed)) as (_, stub):

            async def create(url: str) -> tuple[grpc.StatusCode, str, dict[str, str]]:
                request = spb.CreateGameRequest(
                    seats=[pb.COLOUR_RED, pb.COLOUR_BLUE], settings=pb.GameSettings(webhook_url=url)
                )
                return await refused(stub.CreateGame(request))

            for url in (
                "http://127.0.0.1:9/other",
                "http://127.0.0.1:9/hooksevil",
                "http://127.0.0.1:90/hooks",
                "https://127.0.0.1:9/hooks",
                "http://169.254.169.254/latest",
            ):
                assert (await create(url))[:2] == (
                    grpc.StatusCode.PERMISSION_DENIED,
                    "WEBHOOK_NOT_ALLOWED",
                ), url
            for url in (
                "ftp://127.0.0.1:9/hooks",
                "http://user:pw@127.0.0.1:9/hooks",
                "http://127.0.0.1:9/hooks/../admin",
                "http://127.0.0.1:9/hooks/%2e%2e/admin",
                "http://127.0.0.1:9/hooks/a b",
                "http://127.0.0.1:9/hooks/" + "a" * 2000,
                "not a url",
            ):
                code, reason, metadata = await create(url)
                assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"), url
                assert metadata["field"] == "webhook_url"
            # Under the prefix: accepted (nothing is called before the game starts).
            ok = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=[pb.COLOUR_RED, pb.COLOUR_BLUE],
                    settings=pb.GameSettings(webhook_url=allowed + "/x?y=1"),
                )
            )
            assert ok.webhook_secret and ok.game.state == pb.GAME_STATE_OPEN
            plain = await stub.CreateGame(
                spb.CreateGameRequest(seats=[pb.COLOUR_RED, pb.COLOUR_BLUE])
            )
            assert plain.webhook_secret == ""

        async with server_with(tmp_path / "none", WebhookConfig()) as (_, stub):
            request = spb.CreateGameRequest(
                seats=[pb.COLOUR_RED, pb.COLOUR_BLUE],
                settings=pb.GameSettings(webhook_url=allowed),
            )
            assert (await refused(stub.CreateGame(request)))[1] == "WEBHOOK_NOT_ALLOWED"

    asyncio.run(main())


def test_check_url_matches_prefixes_at_a_boundary() -> None:
    check_url("https://h.example/t", ["https://h.example"])
    check_url("https://h.example?x=1", ["https://h.example"])
    check_url("https://h.example/a/b", ["https://h.example/a/"])
    with pytest.raises(Exception, match="prefix"):
        check_url("https://h.example.evil/t", ["https://h.example"])
    with pytest.raises(Exception, match="prefix"):
        check_url("https://h.example/ab", ["https://h.example/a"])


def test_the_secret_survives_a_restart_and_people_get_their_turns(tmp_path: Path) -> None:
    async def main() -> None:
        with receiving(Receiver()) as receiver:
            hooks = fast(receiver.base + "/")
            async with server_with(tmp_path, hooks) as (_, stub):
                created = await stub.CreateGame(
                    spb.CreateGameRequest(
                        seats=[pb.COLOUR_YELLOW, pb.COLOUR_RED],
                        settings=pb.GameSettings(webhook_url=receiver.base + "/turn"),
                    )
                )
                name, secret = created.game.name, created.webhook_secret
                tokens = {}
                for colour in (pb.COLOUR_YELLOW, pb.COLOUR_RED):
                    joined = await stub.JoinGame(spb.JoinGameRequest(name=name, colour=colour))
                    tokens[colour] = joined.seat_token
            assert receiver.calls == []  # nothing to decide before the start

            async with server_with(tmp_path, hooks) as (_, stub):
                await stub.StartGame(
                    spb.StartGameRequest(name=name), metadata=auth(tokens[pb.COLOUR_YELLOW])
                )
                await until(lambda: len(receiver.accepted()) == 1)
                first = receiver.accepted()[0].json
                assert (first["type"], first["player"]) == ("decision", "COLOUR_YELLOW")
                assert first["kind"] == "DECISION_KIND_SETUP" and first["bot"] is False
                # Yellow places a ship: red is to decide next.
                snapshot = (
                    await stub.GetGame(
                        spb.GetGameRequest(name=name), metadata=auth(tokens[pb.COLOUR_YELLOW])
                    )
                ).snapshot
                await stub.SubmitAction(
                    spb.SubmitActionRequest(
                        name=name,
                        sequence=snapshot.sequence,
                        request_id="r1",
                        action=snapshot.view.decision.options[0],
                    ),
                    metadata=auth(tokens[pb.COLOUR_YELLOW]),
                )
                await until(lambda: len(receiver.accepted()) == 2)
            calls = receiver.accepted()

        second = calls[1].json
        assert (second["player"], second["sequence"]) == ("COLOUR_RED", snapshot.sequence + 1)
        for call in calls:
            mac = hmac.new(secret.encode(), call.body, hashlib.sha256).hexdigest()
            assert call.headers[SIGNATURE_HEADER.lower()] == mac

    asyncio.run(main())


def test_a_receiver_that_hangs_never_holds_a_game_up(tmp_path: Path) -> None:
    release = threading.Event()

    def answer(call: Call, number: int) -> tuple[int, dict[str, str]]:
        release.wait(60)
        return 200, {}

    async def main() -> None:
        with receiving(Receiver(answer=answer)) as receiver:
            config = fast(receiver.base, queue=3, workers=1, timeout=30)
            async with server_with(tmp_path, config) as (server, stub):
                created = await stub.CreateGame(bot_game(receiver.base + "/slow"))
                # The game plays to its end while the receiver holds its first call.
                await finished(stub, created.game.name)
                hooks = server.webhooks
                assert len(receiver.calls) == 1 and receiver.accepted() == []
                assert hooks.dropped > 0  # the queue is bounded
                release.set()
                await until(lambda: hooks.delivered == 4)  # the held call and three queued
                assert hooks.failed == 0

    try:
        asyncio.run(main())
    finally:
        release.set()


def test_redirects_are_not_followed_and_client_errors_are_final(tmp_path: Path) -> None:
    def answer(call: Call, number: int) -> tuple[int, dict[str, str]]:
        if call.path == "/hooks/gone":
            return 410, {}
        return 307, {"Location": "/elsewhere"}

    async def main() -> None:
        with receiving(Receiver(answer=answer)) as receiver:
            config = fast(receiver.base + "/hooks")
            async with server_with(tmp_path, config) as (server, stub):
                moved = await stub.CreateGame(bot_game(receiver.base + "/hooks/moved"))
                gone = await stub.CreateGame(bot_game(receiver.base + "/hooks/gone"))
                await finished(stub, moved.game.name)
                await finished(stub, gone.game.name)
                hooks = server.webhooks
                await until(lambda: hooks.failed >= 2 and hooks.failed == len(receiver.calls))
                await asyncio.sleep(0.3)
                paths = {c.path for c in receiver.calls}

        assert paths <= {"/hooks/moved", "/hooks/gone"}  # never /elsewhere
        assert hooks.retried == 0 and hooks.delivered == 0
        assert len(receiver.calls) == hooks.failed  # each tried once

    asyncio.run(main())
