"""Does the web gateway's API keep answering while event streams are held open?

A game server (``python -m server``) and the gateway (``--threads`` workers, as
``python -m webclient`` serves it) in this process. Streams are opened on
``--games`` games by one client (no per-client limit) in steps up to ``--streams``
(past the gateway's bound the rest are refused with 503 ``TOO_MANY_STREAMS``);
at each step, while every stream is held, prints the streams held and refused
and the latency of ``GET /api/v1/games`` (median, p90, worst of ``--gets``) and
the gateway's resident memory.

    python benchmarks/streams_bench.py
    python benchmarks/streams_bench.py --threads 256 --streams 2000
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webclient import close_app, create_app  # noqa: E402
from webclient.run import ServerProcess  # noqa: E402
from webclient.wsgi import Gateway  # noqa: E402


def _open_stream(host: str, port: int, game: str) -> tuple[socket.socket, int]:
    """An event stream of ``game`` as a raw socket, and the status it was answered with."""
    sock = socket.create_connection((host, port), timeout=30)
    sock.sendall(
        f"GET /api/v1/games/{game}/events HTTP/1.1\r\nHost: {host}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n" not in head:
        chunk = sock.recv(256)
        if not chunk:
            break
        head += chunk
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    return sock, status


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _gets(url: str, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        with urllib.request.urlopen(f"{url}/api/v1/games?page_size=10", timeout=30) as reply:
            reply.read()
        times.append(time.perf_counter() - start)
        time.sleep(0.01)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1024, help="gateway worker threads")
    parser.add_argument("--streams", type=int, default=1500, help="streams opened in all")
    parser.add_argument("--steps", type=int, default=4, help="steps to reach --streams in")
    parser.add_argument("--games", type=int, default=20, help="games the streams watch")
    parser.add_argument("--gets", type=int, default=50, help="GETs timed at each step")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = ServerProcess(
            Path(data),
            quiet=True,
            args=["--games-per-minute", "0", "--watches-per-client", "0"],
        )
        app = create_app({"TONGIAKI_SERVER": server.target, "TONGIAKI_STREAMS_PER_CLIENT": 0})
        gateway = Gateway(app, "127.0.0.1", 0, threads=args.threads)
        url = gateway.start()
        host, port = urlsplit(url).hostname or "127.0.0.1", urlsplit(url).port or 80
        held: list[socket.socket] = []
        refused = 0
        try:
            games = []
            for _ in range(args.games):
                request = urllib.request.Request(
                    f"{url}/api/v1/games",
                    data=json.dumps({"seats": ["COLOUR_RED", "COLOUR_BLUE"]}).encode(),
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(request, timeout=30) as reply:
                    games.append(json.loads(reply.read())["game"]["name"].split("/", 1)[1])
            print(f"gateway with {args.threads} threads, streams on {args.games} games:")
            print("  streams held  refused   GET median    p90  worst   gateway RSS")
            targets = [0] + [args.streams * (i + 1) // args.steps for i in range(args.steps)]
            for target in targets:
                while len(held) + refused < target:
                    sock, status = _open_stream(host, port, games[len(held) % len(games)])
                    if status == 200:
                        held.append(sock)
                    else:
                        refused += 1
                        sock.close()
                times = sorted(t * 1000 for t in _gets(url, args.gets))
                p90 = times[int(0.9 * (len(times) - 1))]
                print(
                    f"  {len(held):12,} {refused:8,} {statistics.median(times):9.1f} ms"
                    f" {p90:6.1f} {times[-1]:6.1f}   {_rss_mb():7.0f} MB",
                    flush=True,
                )
        finally:
            for sock in held:
                sock.close()
            gateway.stop()
            close_app(app)
            server.stop()


if __name__ == "__main__":
    main()
