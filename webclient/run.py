"""``python -m webclient``: the game server and the web gateway together.

Starts ``python -m server`` as a child process on 127.0.0.1, port 50051 unless
``--game-port`` says otherwise (data in ./data unless told otherwise), then the
gateway in front of it, and prints both addresses: the page to open and the
game server's, for gRPC clients. With ``--nodes N --database postgresql://…``
it starts N game servers on one PostgreSQL database (ports from --game-port
on, or free ones) and spreads the gateway's calls over them; ``--nodes N``
without ``--database`` starts a PostgreSQL of its own for them (Debian's
binaries, its data in ``postgresql/`` of --data-dir, a free port of 127.0.0.1,
stopped with everything else). With ``--server
HOST:PORT[,HOST:PORT…]`` it joins game servers that are already running
instead. Ctrl-C stops everything.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from webclient.app import close_app, create_app
from webclient.wsgi import Gateway

if TYPE_CHECKING:  # the server's package: needed only to start nodes of its own
    from server.storage.pgcluster import PgCluster

#: Where ``python -m webclient`` starts the game server (gRPC's usual port).
GAME_HOST = "127.0.0.1"
GAME_PORT = 50051


def listening(host: str, port: int) -> bool:
    """Whether some process listens on ``host:port`` already."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is no owner
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


class ServerProcess:
    """``python -m server`` as a child process; its port (0: a free one) is read from its log."""

    def __init__(
        self,
        data_dir: Path,
        host: str = "127.0.0.1",
        quiet: bool = False,
        port: int = 0,
        database: str | None = None,
        *,
        args: Sequence[str] = (),
    ) -> None:
        self.quiet = quiet
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server",
                "--host",
                host,
                "--port",
                str(port),
                "--data-dir",
                str(data_dir),
                # The gateway (on this machine) names each browser's address, so
                # the server's per-client limits count browsers, not the gateway.
                "--trusted-proxy",
                "127.0.0.1",
                *(["--database", database] if database else []),
                *args,
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        self.port = self._wait_listening()
        self.target = f"{host}:{self.port}"
        assert self.process.stderr is not None
        threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True).start()

    def _wait_listening(self) -> int:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if not self.quiet:
                sys.stderr.write(line)
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("message") == "listening":
                return int(record["port"])
        raise RuntimeError(f"the game server exited with status {self.process.wait()}")

    def _drain(self, stream: IO[str]) -> None:
        for line in stream:
            if not self.quiet:
                sys.stderr.write(line)

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM (a graceful shutdown), then SIGKILL if it takes too long."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait()


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="python -m webclient", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--host", default=env("TONGIAKI_WEB_HOST", "127.0.0.1"))
    parser.add_argument(
        "--port",
        type=int,
        default=int(env("TONGIAKI_WEB_PORT", "8000")),
        help="0 picks a free port",
    )
    parser.add_argument(
        "--server",
        default=env("TONGIAKI_SERVER"),
        help="HOST:PORT of a running game server, or several comma-separated (default: start one)",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=int(env("TONGIAKI_NODES", "1")),
        help="game servers to start, all on --database (more than one needs PostgreSQL)",
    )
    parser.add_argument(
        "--database",
        default=env("TONGIAKI_DATABASE") or None,
        help="postgresql://… for the game servers it starts (default: SQLite in --data-dir)",
    )
    parser.add_argument(
        "--game-port",
        type=int,
        default=int(env("TONGIAKI_GAME_PORT", str(GAME_PORT))),
        help=f"port of the game server it starts (default {GAME_PORT}; 0 picks a free port)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(env("TONGIAKI_DATA_DIR", "data")),
        help="where a started game server keeps its games",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=int(env("TONGIAKI_WEB_THREADS", "1024")),
        help="gateway worker threads (each open event stream holds one)",
    )
    parser.add_argument(
        "--tls-cert",
        type=Path,
        default=env("TONGIAKI_WEB_TLS_CERT"),
        help="serve HTTPS with this PEM certificate chain (with --tls-key)",
    )
    parser.add_argument(
        "--tls-key", type=Path, default=env("TONGIAKI_WEB_TLS_KEY"), help="its PEM private key"
    )
    parser.add_argument(
        "--server-ca",
        type=Path,
        default=env("TONGIAKI_SERVER_CA"),
        help="talk TLS to --server, trusting this PEM CA certificate",
    )
    return parser.parse_args(argv)


def ready_line(url: str, target: str) -> str:
    """What ``make run`` prints once both are up: the page to open and the gRPC address."""
    return f"Tongiaki is running: open {url}/ (game server {target} for gRPC clients)"


def main(argv: Sequence[str] | None = None) -> None:
    """Run until interrupted."""
    args = parse(argv)
    children: list[ServerProcess] = []
    database: PgCluster | None = None
    if args.server:
        target = args.server
    else:
        shared = str(args.database or "").startswith(("postgresql://", "postgres://"))
        if args.nodes < 1:
            sys.exit("--nodes must be at least 1")
        args.data_dir.mkdir(parents=True, exist_ok=True)
        if args.nodes > 1 and not shared:
            if args.database:
                sys.exit("--nodes above 1 needs --database postgresql://… (the nodes share it)")
            from server.storage.pgcluster import ClusterError, PgCluster  # noqa: PLC0415

            try:
                database = PgCluster(folder=args.data_dir / "postgresql").start()
            except ClusterError as error:
                sys.exit(f"--nodes above 1 needs PostgreSQL: {error}")
            args.database = database.ensure_database("tongiaki")
        ports = [args.game_port + i if args.game_port else 0 for i in range(args.nodes)]
        for port in ports:
            if port and listening(GAME_HOST, port):
                # Refused before anything starts, with the flag that picks another.
                sys.exit(
                    f"port {port} is taken: --game-port (or TONGIAKI_GAME_PORT) picks"
                    " another, 0 a free one; --server HOST:PORT uses a running game server"
                )
        for port in ports:
            children.append(
                ServerProcess(args.data_dir, GAME_HOST, port=port, database=args.database)
            )
        target = ",".join(child.target for child in children)
    if (args.tls_cert is None) != (args.tls_key is None):
        raise SystemExit("--tls-cert and --tls-key go together")
    app = create_app(
        {"TONGIAKI_SERVER": target, "TONGIAKI_SERVER_CA": str(args.server_ca or "") or None}
    )
    gateway = Gateway(
        app, args.host, args.port, args.threads, tls_cert=args.tls_cert, tls_key=args.tls_key
    )
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        url = gateway.start()
        print(ready_line(url, target), flush=True)
        while not stop.wait(1.0):
            stopped = [c for c in children if c.process.poll() is not None]
            if children and len(stopped) == len(children):
                print("the game server stopped", file=sys.stderr)
                break
    finally:
        close_app(app)
        gateway.stop()
        for child in children:
            child.stop()
        if database is not None:
            database.stop()


if __name__ == "__main__":
    main()
