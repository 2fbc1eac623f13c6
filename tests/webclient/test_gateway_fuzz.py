"""A bounded fuzz run of the gateway: a few thousand hostile HTTP requests from a
seeded generator. Every one is answered (no hang), none with a 5xx, every
refusal is the API's JSON error with a reason, and the gateway's memory stays
flat (it runs in this process)."""

from __future__ import annotations

import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.webclient.conftest import Api, serve_gateway
from tests.webclient.rawhttp import Answer, exchange, request
from webclient.run import ServerProcess

#: Requests in the run (after a warm-up of WARM_UP).
REQUESTS = 3000
WARM_UP = 300

PATHS = [
    "/",
    "/api/v1/games",
    "/api/v1/games/{game}",
    "/api/v1/games/{game}/join",
    "/api/v1/games/{game}/start",
    "/api/v1/games/{game}/actions",
    "/api/v1/games/{game}/leave",
    "/api/v1/games/{game}/record",
    "/api/v1/games/{game}/events",
    "/api/v1/openapi.json",
    "/games/{game}",
    "/embed/games/{game}",
    "/how-to-play",
    "/static/js/main.js",
    "/metrics",
]

GAMES = ["{real}", "nosuchgame", "%ff", "%00", "..%2f..%2fetc", "a" * 300, "☃", "%c0%af", ""]

JUNK_HEADERS: list[tuple[str | bytes, str | bytes]] = [
    ("Content-Length", "-1"),
    ("Content-Length", "99999999999999999999"),
    ("Content-Length", "abc"),
    ("Content-Length", str(200 << 20)),
    ("Transfer-Encoding", "chunked"),
    ("Transfer-Encoding", "gzip, chunked"),
    ("X-Forwarded-For", "9.9.9.9, " * 3000),
    ("Authorization", "Bearer ☃"),
    (b"Authorization", b"Bearer \xff\xfe\xfd"),
    ("Authorization", "Basic Zm9vOmJhcg=="),
    ("Authorization", "Bearer " + "x" * 5000),
    ("Authorization", "Bearer"),
    ("Last-Event-ID", "9223372036854775808"),
    ("Last-Event-ID", "-5"),
    ("Last-Event-ID", "1" * 400),
    ("Accept", "text/event-stream"),
    ("Accept-Language", "he;q=abc, ja;q=" + "9" * 300),
    ("Cookie", "lang=" + "x" * 3000),
    ("Content-Type", "application/json; charset=utf-16"),
    ("Host", "%ff"),
    ("X-" + "a" * 200, "b"),
    (b"Bad\xffName", b"v"),
]


def _body(rng: random.Random) -> bytes:
    kind = rng.randrange(9)
    if kind == 0:
        depth = rng.choice([50, 1000, 20_000])
        return b"[" * depth + b"]" * depth
    if kind == 1:
        return b'{"a":' * 2000 + b"1" + b"}" * 2000
    if kind == 2:
        return rng.randbytes(rng.randrange(1, 2000))
    if kind == 3:
        return b'{"seats": ["COLOUR_RED", "COLOUR_BLUE"]}'
    if kind == 4:
        return b'{"sequence": "99999999999999999999999", "request_id": "x", "action_json": "[[["}'
    if kind == 5:
        return b'{"display_name": "\xe2\x80\xae' + b"n" * 200 + b'"}'
    if kind == 6:
        return b"zz\r\nabc\r\n0\r\n\r\n"
    if kind == 7:
        return b'{"colour": 99, "display_name": 5}'
    return b""


def _request(rng: random.Random, real: str) -> tuple[bytes, int]:
    """A hostile request, and how many MiB of extra body follow it."""
    if rng.random() < 0.08:
        return rng.choice(
            [
                b"GARBAGE\r\n\r\n",
                b"GET / HTTP/9.9\r\n\r\n",
                b"GET " + b"/a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
                b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 2000 + b"\r\n",
                b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
                b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
                b"\r\n\r\n",
            ]
        ), 0
    method = rng.choice(["GET", "POST", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"])
    game = rng.choice(GAMES).replace("{real}", real)
    path = rng.choice(PATHS).replace("{game}", game)
    if rng.random() < 0.2:
        path += rng.choice(["?after_sequence=9223372036854775808", "?lang=%ff", "?page_size=-1",
                            "?state=abc", "?page_token=%ff%fe", "?" + "a=b&" * 500])  # fmt: skip
    headers = rng.sample(JUNK_HEADERS, rng.randrange(0, 4))
    if rng.random() < 0.15:
        headers += [("Authorization", "Bearer a"), ("Authorization", "Bearer b")]
    extra = 4 if any(value == str(200 << 20) for _, value in headers) else 0
    body = _body(rng) if method in ("POST", "PUT", "PATCH") else b""
    chunked = any(name == "Transfer-Encoding" for name, _ in headers)
    if chunked:
        # Broken chunking, but a body that ends: a body that never ends holds a
        # worker until the connection's timeout (30 s), as in any threaded server.
        body = rng.choice([b"5\r\nhello\r\nZZ\r\n\r\n0\r\n\r\n", b"0\r\n\r\n", b"zz\r\n\r\n"])
    return request(method, path, headers, body), extra


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_a_fuzz_run_gets_no_5xx_no_hang_and_flat_memory(
    api: Api, game_server: ServerProcess
) -> None:
    real, _ = api.seated_game(["red", "green"])
    rng = random.Random(20261123)
    requests = [_request(rng, real) for _ in range(WARM_UP + REQUESTS)]
    running = serve_gateway(game_server.target, threads=32, TONGIAKI_STREAMS_PER_CLIENT=0)

    def send(item: tuple[bytes, int]) -> tuple[bytes, Answer | Exception]:
        raw, extra = item
        try:
            return raw, exchange(running.url, raw, timeout=15, body_chunks=extra)
        except ConnectionError as error:  # closed without an answer
            return raw, error

    statuses: Counter[int] = Counter()
    try:
        with ThreadPoolExecutor(8) as pool:
            warm = list(pool.map(send, requests[:WARM_UP]))
            before = _rss()
            results = warm + list(pool.map(send, requests[WARM_UP:]))
            after = _rss()
        for raw, answer in results:
            assert not isinstance(answer, TimeoutError), ("no answer", raw[:200])
            if isinstance(answer, Exception):
                raise AssertionError(f"{answer!r} for {raw[:200]!r}")
            statuses[answer.status] += 1
            assert answer.status < 500, (raw[:300], answer)
            if answer.status >= 400 and not raw.startswith(b"HEAD "):  # HEAD: no body
                assert answer.headers["content-type"].startswith("application/json"), (
                    raw[:300],
                    answer,
                )
                assert answer.json()["error"]["reason"], (raw[:300], answer)
        print(f"statuses {dict(sorted(statuses.items()))}")
        print(f"gateway process RSS {before / 2**20:.0f} MiB -> {after / 2**20:.0f} MiB")
        assert after - before < 64 << 20, (before, after)
        # Still answering.
        assert Api(running.url).request("GET", f"/api/v1/games/{real}")[0] == 200
    finally:
        running.stop()
