"""The game server's Prometheus metrics (prometheus-client), one registry per server.

``--metrics-port`` serves them over HTTP at ``/metrics``; docs/operations.md lists them.
"""

from __future__ import annotations

import hmac
import socket
import ssl
import threading
from collections.abc import Callable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
    make_wsgi_app,
)
from prometheus_client.exposition import ThreadingWSGIServer

#: Buckets of the commit latency, in seconds (a durable commit takes milliseconds).
LATENCY_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


class Metrics:
    """Every metric of one server."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        # process_resident_memory_bytes, process_cpu_seconds_total, open fds, ...
        ProcessCollector(registry=self.registry)
        r = self.registry
        self.actions = Counter(
            "tongiaki_actions", "Actions accepted, by who made them (person or bot)", ["by"],
            registry=r
        )  # fmt: skip
        #: The two children of ``actions`` (bound once: every action counts).
        self.person_actions = self.actions.labels("person")
        self.bot_actions = self.actions.labels("bot")
        self.refusals = Counter(
            "tongiaki_refusals", "Requests refused, by method and reason code",
            ["method", "reason"], registry=r
        )  # fmt: skip
        self.watches = Gauge("tongiaki_watches_open", "WatchGame streams open now", registry=r)
        self.games = Gauge("tongiaki_games_in_memory", "Games held in memory", registry=r)
        self.commit = Histogram(
            "tongiaki_action_commit_seconds",
            "From an action's arrival to its acknowledgement, the durable log commit included",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.bot_queue = Gauge(
            "tongiaki_bot_queue", "Bot decisions waiting for a free search slot", registry=r
        )
        self.bot_searches = Gauge(
            "tongiaki_bot_searches", "Bot decisions being searched now", registry=r
        )
        self.bot_seconds = Histogram(
            "tongiaki_bot_think_seconds",
            "Wall time of a bot's decision, queueing excluded",
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
            registry=r,
        )
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def count_games(self, count: Callable[[], int]) -> None:
        """Read the games in memory from ``count`` at every scrape."""
        self.games.set_function(lambda: float(count()))

    def text(self) -> str:
        """The exposition text, as a scrape returns it."""
        return generate_latest(self.registry).decode()

    def serve(
        self,
        host: str,
        port: int,
        certfile: str | None = None,
        keyfile: str | None = None,
        token: str | None = None,
    ) -> int:
        """Serve ``/metrics`` on ``host:port`` (0 picks a free port) in a thread; the port.

        With ``token``, only requests that send ``Authorization: Bearer <token>`` are
        answered (401 otherwise).
        """
        app = make_wsgi_app(self.registry)
        if token:
            app = _bearer(app, token)

        class Server(ThreadingWSGIServer):
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

        server = make_server(host, port, app, Server, handler_class=_Quiet)
        if certfile and keyfile:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(certfile, keyfile)
            server.socket = context.wrap_socket(server.socket, server_side=True)
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="metrics", daemon=True)
        self._thread.start()
        bound: int = server.server_address[1]
        return bound

    def close(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class _Quiet(WSGIRequestHandler):
    """No line per request on stderr."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _bearer(app: Any, token: str) -> Any:
    """``app`` answering only requests with ``Authorization: Bearer <token>``."""
    expected = ("Bearer " + token).encode()

    def guarded(environ: dict[str, Any], start_response: Any) -> Any:
        sent = str(environ.get("HTTP_AUTHORIZATION", "")).encode("latin-1", "replace")
        if not hmac.compare_digest(sent, expected):
            start_response(
                "401 Unauthorized",
                [("Content-Type", "text/plain"), ("WWW-Authenticate", "Bearer")],
            )
            return [b"send the metrics token as 'Authorization: Bearer <token>'\n"]
        return app(environ, start_response)

    return guarded
