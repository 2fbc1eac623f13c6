"""The gateway as an attacker meets it: poisoned positions, floods of streams,
bad requests of every kind, repeated headers, TLS; every refusal a JSON 4xx."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.certs import self_signed
from tests.webclient.conftest import Api, serve_gateway
from tests.webclient.rawhttp import Answer, exchange, request
from tests.webclient.sse import EventStream
from webclient import close_app, create_app
from webclient.run import ServerProcess
from webclient.wsgi import Gateway, reserve


def _error(answer: Answer) -> dict[str, Any]:
    assert answer.headers["content-type"].startswith("application/json"), answer
    error: dict[str, Any] = answer.json()["error"]
    assert error["code"] == answer.status
    return error


def test_a_watcher_position_never_blinds_the_others(api: Api, game_server: ServerProcess) -> None:
    game, tokens = api.seated_game(["red", "blue"])
    api.play(game, tokens, steps=2)
    running = serve_gateway(game_server.target)
    url = f"{running.url}/api/v1/games/{game}/events"
    try:
        # Past int64: refused, and no feed is started.
        for bad in ("9223372036854775808", "-1", "1e3", "٣", "99999999999999999999999"):
            answer = exchange(running.url, request("GET", f"/api/v1/games/{game}/events",
                                                   [("Last-Event-ID", bad)]))  # fmt: skip
            assert answer.status == 400 and _error(answer)["reason"] == "INVALID_REQUEST", bad
        assert running.app.extensions["tongiaki.feeds"].stats() == {}
        # A position the game has not reached is "from the start", for that
        # watcher: the feed it opens serves everyone the real game.
        poisoned = EventStream(url, last_id=9223372036854775807)
        assert poisoned.next().kind == "snapshot"
        other = EventStream(url, timeout=10)
        snapshot = other.next()
        assert snapshot.kind == "snapshot"
        assert snapshot.data["view"]["decision"]["kind"] == "DECISION_KIND_SETUP"
        api.play(game, tokens, steps=1)
        entry = other.until("entry")
        assert entry.data["snapshot"]["sequence"] == entry.ident
        assert poisoned.until("entry").ident == entry.ident
        poisoned.close()
        other.close()
    finally:
        running.stop()


def test_streams_are_bounded_and_the_api_keeps_answering(
    api: Api, game_server: ServerProcess
) -> None:
    game, _ = api.seated_game(["yellow", "green"])
    threads = 16
    running = serve_gateway(game_server.target, threads=threads, TONGIAKI_STREAMS_PER_CLIENT=0)
    capacity = threads - reserve(threads)
    url = f"{running.url}/api/v1/games/{game}/events"
    streams: list[EventStream] = []
    try:
        # Unknown games hold nothing: refused at once, no feed, no stream.
        for _ in range(3 * threads):
            answer = exchange(running.url, request("GET", "/api/v1/games/nosuchgame/events"))
            assert answer.status == 404 and _error(answer)["reason"] == "GAME_NOT_FOUND"
        assert running.app.extensions["tongiaki.feeds"].stats() == {}
        for _ in range(capacity):
            streams.append(EventStream(url))
            assert streams[-1].next().kind == "snapshot"
        answer = exchange(running.url, request("GET", f"/api/v1/games/{game}/events"))
        error = _error(answer)
        assert (answer.status, error["reason"]) == (503, "TOO_MANY_STREAMS")
        assert error["metadata"]["limit"] == str(capacity)
        assert answer.headers["retry-after"] == "5"
        for _ in range(20):
            assert api.request("GET", "/api/v1/games?page_size=1")[0] == 200
            assert Api(running.url).request("GET", f"/api/v1/games/{game}")[0] == 200
        streams.pop().close()
        for _ in range(100):
            if running.app.extensions["tongiaki.streams"].total < capacity:
                break
            time.sleep(0.05)
        streams.append(EventStream(url))
        assert streams[-1].next().kind == "snapshot"
    finally:
        for stream in streams:
            stream.close()
        running.stop()


def test_streams_per_client_are_limited(api: Api, game_server: ServerProcess) -> None:
    game, _ = api.seated_game(["yellow", "green"])
    running = serve_gateway(game_server.target, TONGIAKI_STREAMS_PER_CLIENT=3)
    url = f"{running.url}/api/v1/games/{game}/events"
    try:
        streams = [EventStream(url) for _ in range(3)]
        answer = exchange(running.url, request("GET", f"/api/v1/games/{game}/events"))
        assert (answer.status, _error(answer)["reason"]) == (429, "TOO_MANY_WATCHES")
        for stream in streams:
            stream.close()
    finally:
        running.stop()


def test_bad_requests_get_json_refusals_with_reasons(api: Api, gateway: Any) -> None:
    game, tokens = api.seated_game(["orange", "purple"])
    token = next(iter(tokens.values()))
    base = gateway.url
    nested = b"[" * 30_000 + b"]" * 30_000
    cases: list[tuple[bytes, int, str]] = [
        (request("POST", "/api/v1/games", [("Content-Type", "application/json")], nested),
         400, "INVALID_REQUEST"),
        (request("POST", "/api/v1/games", [], b'{"seats": ' * 30 + b"1" + b"}" * 30),
         400, "INVALID_REQUEST"),
        (request("POST", "/api/v1/games", [], b"\xff\xfe not json"), 400, "INVALID_REQUEST"),
        (request("POST", "/api/v1/games", [], b'{"seats": 12}'), 400, "INVALID_REQUEST"),
        (request("POST", "/api/v1/games", [], b"[1, 2]"), 400, "INVALID_REQUEST"),
        (request("POST", "/api/v1/games", [], b'{"settings": {"display_name": "\\ud800"}}'),
         400, "INVALID_REQUEST"),
        (request("POST", f"/api/v1/games/{game}/join", [], b'{"display_name": "a\\udfffb"}'),
         400, "INVALID_REQUEST"),
        (request("POST", "/api/v1/games", [], b'{"settings": {"turn_timeout_seconds": 1e999}}'),
         400, "INVALID_REQUEST"),
        (request("POST", "/api/v1/games", [], b'{"seats": ["yellow", "red"], "x": NaN}'),
         400, "INVALID_REQUEST"),
        (request("GET", "/api/v1/games/%ff"), 404, "GAME_NOT_FOUND"),
        (request("GET", "/api/v1/games/%ff%fe/events"), 404, "GAME_NOT_FOUND"),
        (request("GET", "/%ff"), 404, "NOT_FOUND"),
        (request("GET", "/games/%ff%00"), 404, "NOT_FOUND"),
        (request("POST", "/api/v1/games", [("Content-Length", "-5")], b""), 400,
         "INVALID_REQUEST"),
        (request("POST", "/api/v1/games", [("Transfer-Encoding", "chunked")], b"zz\r\nab\r\n"),
         400, "INVALID_REQUEST"),
        (request("GET", "/api/v1/games", [("X-Forwarded-For", "1.2.3.4, " * 4000)]), 200, ""),
        (request("GET", f"/api/v1/games/{game}", [("Authorization", "Bearer ☃☃")]), 401,
         "TOKEN_INVALID"),
        (request("GET", f"/api/v1/games/{game}", [(b"Authorization", b"Bearer \xff\xfe")]),
         401, "TOKEN_INVALID"),
        (request("GET", f"/api/v1/games/{game}", [("Authorization", "Bearer a\x01b")]), 401,
         "TOKEN_INVALID"),
        (request("GET", f"/api/v1/games/{game}",
                 [("Authorization", f"Bearer {token}"), ("Authorization", "Bearer other")]),
         400, "AUTHORIZATION_REPEATED"),
        (request("POST", f"/api/v1/games/{game}/leave",
                 [("Authorization", f"Bearer {token}"), ("Authorization", f"Bearer {token}")],
                 b"{}"), 400, "AUTHORIZATION_REPEATED"),
        (request("DELETE", "/api/v1/games"), 405, "METHOD_NOT_ALLOWED"),
        (request("POST", "/api/v1/games", [("Content-Length", str(200 << 20))]), 413,
         "REQUEST_TOO_LARGE"),
        (request("POST", "/api/v1/games", [("Content-Length", "99999999999999999999999")]),
         400, "INVALID_REQUEST"),
        (request("POST", "/api/v1/games",
                 [("Content-Length", "5"), ("Transfer-Encoding", "chunked")], b"0\r\n\r\n"),
         400, "INVALID_REQUEST"),
        (b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n", 400, "INVALID_REQUEST"),
        (b"GARBAGE\r\n\r\n", 400, "INVALID_REQUEST"),
        (b"GET / HTTP/1.1\r\nBroken header line\r\n\r\n", 400, "INVALID_REQUEST"),
    ]  # fmt: skip
    for raw, status, reason in cases:
        answer = exchange(base, raw)
        assert answer.status == status, (raw[:120], answer)
        if reason:
            assert _error(answer)["reason"] == reason, (raw[:120], answer)
    # A body too large is refused before it is read: the answer comes while it is sent.
    answer = exchange(
        base, request("POST", "/api/v1/games", [("Content-Length", str(200 << 20))]), body_chunks=8
    )
    assert (answer.status, _error(answer)["reason"]) == (413, "REQUEST_TOO_LARGE")
    # The seat's game is untouched, and the gateway answers.
    assert api.ok("GET", f"/api/v1/games/{game}", token=token)["snapshot"]["view"]["decision"]


def test_metrics_are_served(api: Api, gateway: Any) -> None:
    api.request("GET", "/api/v1/games/nosuchgame")
    with urllib.request.urlopen(f"{gateway.url}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    assert 'tongiaki_gateway_refusals_total{reason="GAME_NOT_FOUND"}' in text
    assert 'tongiaki_gateway_requests_total{route="/api/v1/games/<game>",status="4xx"}' in text
    for name in ("tongiaki_gateway_streams_open", "tongiaki_gateway_feeds"):
        assert f"\n{name} " in text
    assert "process_resident_memory_bytes" in text


def test_tls_from_the_browser_to_the_game_server(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    server = ServerProcess(
        tmp_path / "data", quiet=True, args=["--tls-cert", str(cert), "--tls-key", str(key)]
    )
    try:
        # A gateway that does not trust the server's certificate gets no answer.
        plain = serve_gateway(server.target, TONGIAKI_TIMEOUT=3.0)
        try:
            status, answer = Api(plain.url).request("GET", "/api/v1/games")
            assert status == 503 and answer["error"]["reason"] == "UPSTREAM_ERROR"
        finally:
            plain.stop()
        app = create_app({"TONGIAKI_SERVER": server.target, "TONGIAKI_SERVER_CA": str(cert)})
        gateway = Gateway(app, "127.0.0.1", 0, 16, tls_cert=cert, tls_key=key)
        url = gateway.start()
        try:
            assert url.startswith("https://")
            context = ssl.create_default_context(cafile=str(cert))
            with urllib.request.urlopen(f"{url}/api/v1/games", context=context) as reply:
                assert reply.status == 200 and "games" in json.loads(reply.read())
            connection = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=5)
            with pytest.raises((http.client.HTTPException, OSError)):
                connection.request("GET", "/api/v1/games")
                connection.getresponse().read()
        finally:
            close_app(app)
            gateway.stop()
    finally:
        server.stop()


def test_a_body_that_trickles_in_gets_408_and_frees_its_worker(game_server: ServerProcess) -> None:
    """A chunked body sent a byte at a time holds a worker only until the deadline."""
    running = serve_gateway(game_server.target, TONGIAKI_BODY_SECONDS=1.0)
    parts = urlsplit(running.url)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            sock.sendall(
                request(
                    "POST",
                    "/api/v1/games",
                    [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")],
                )
            )
            began = time.monotonic()
            data = b""
            sent = 0
            sock.settimeout(0.3)
            while b"\r\n\r\n" not in data and time.monotonic() - began < 20:
                with contextlib.suppress(OSError):
                    sock.sendall(b"1\r\n \r\n")
                    sent += 1
                try:
                    data += sock.recv(65536)
                except TimeoutError:
                    continue
            waited = time.monotonic() - began
            head, _, body = data.partition(b"\r\n\r\n")
            assert head.split()[1] == b"408", head
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            sock.settimeout(5)
            while len(body) < length:
                body += sock.recv(65536)
        error = json.loads(body)["error"]
        assert (error["reason"], error["metadata"]) == ("REQUEST_TIMEOUT", {"limit": "1.0"})
        assert waited < 10 and sent < 40, (waited, sent)
        # The gateway answers the next request at once.
        assert Api(running.url).request("GET", "/api/v1/games")[0] == 200
    finally:
        running.stop()
