"""Figures for the gateway's fan-out: N browsers follow one game through one upstream watch.

Run: ``.venv/bin/python -m tests.webclient.fanout_figures [--browsers 1000] [--moves 20]``.
Starts a game server and a gateway, opens N event streams on one game (one
client thread, non-blocking sockets), plays moves through the API and prints how
long each entry took to reach every browser, and how many upstream watches the
gateway opened. Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import selectors
import socket
import statistics
import tempfile
import time
from pathlib import Path

from tests.webclient.conftest import Api, serve_gateway
from webclient.run import ServerProcess
from webclient.wsgi import reserve


def open_stream(host: str, port: int, path: str) -> socket.socket:
    """A raw connection that has asked for the event stream."""
    sock = socket.create_connection((host, port))
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n"
    sock.sendall(request.encode())
    sock.setblocking(False)
    return sock


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browsers", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = ServerProcess(Path(data), quiet=True)
        # Every simulated browser comes from this one address: no per-address limit
        # (a real site's browsers each have their own); workers enough to hold every
        # stream beside the ones the gateway keeps free for the rest of the API.
        threads = args.browsers + 32
        running = serve_gateway(
            server.target, threads=threads + reserve(threads) + 8, TONGIAKI_STREAMS_PER_CLIENT=0
        )
        try:
            api = Api(running.url)
            game, tokens = api.seated_game(["yellow", "red", "blue"])
            host, port = "127.0.0.1", running.gateway.port
            selector = selectors.DefaultSelector()
            buffers: dict[socket.socket, bytes] = {}
            started = time.perf_counter()
            for _ in range(args.browsers):
                sock = open_stream(host, port, f"/api/v1/games/{game}/events")
                selector.register(sock, selectors.EVENT_READ)
                buffers[sock] = b""

            def pump(marker: bytes, timeout: float = 60.0) -> float:
                """Read until every stream holds ``marker``; seconds taken."""
                begin = time.perf_counter()
                waiting = {s for s, b in buffers.items() if marker not in b}
                while waiting and time.perf_counter() - begin < timeout:
                    for key, _ in selector.select(timeout=1.0):
                        sock = key.fileobj
                        assert isinstance(sock, socket.socket)
                        chunk = sock.recv(65536)
                        buffers[sock] += chunk
                        if marker in buffers[sock]:
                            waiting.discard(sock)
                if waiting:
                    got = buffers[next(iter(waiting))][:200]
                    raise SystemExit(
                        f"{len(waiting)} browsers never got {marker!r}; one got {got!r}"
                    )
                return time.perf_counter() - begin

            pump(b"event: snapshot")
            print(f"{args.browsers} browsers attached in {time.perf_counter() - started:.2f} s")
            delays = []
            for _ in range(args.moves):
                before = int(api.ok("GET", f"/api/v1/games/{game}")["snapshot"]["sequence"])
                begin = time.perf_counter()
                api.play(game, tokens, steps=1, seed=before)
                pump(f"id: {before + 1}\n".encode())
                delays.append(time.perf_counter() - begin)
            stats = running.app.extensions["tongiaki.feeds"].stats()[f"games/{game}"]
            print(f"upstream watch calls for the game: {stats['upstream_calls']}")
            print(f"browsers attached at the end: {stats['browsers']}")
            print(
                f"action to every browser, over {len(delays)} moves: "
                f"median {statistics.median(delays) * 1000:.0f} ms, "
                f"max {max(delays) * 1000:.0f} ms"
            )
            for sock in buffers:
                sock.close()
        finally:
            running.stop()
            server.stop()


if __name__ == "__main__":
    main()
