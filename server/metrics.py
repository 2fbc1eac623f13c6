"""The game server's Prometheus metrics (prometheus-client), one registry per server.

``--metrics-port`` serves them over HTTP at ``/metrics``; README.md lists them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
    start_http_server,
)

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
        self, host: str, port: int, certfile: str | None = None, keyfile: str | None = None
    ) -> int:
        """Serve ``/metrics`` on ``host:port`` (0 picks a free port) in a thread; the port."""
        self._server, self._thread = start_http_server(
            port, addr=host, registry=self.registry, certfile=certfile, keyfile=keyfile
        )
        bound: int = self._server.server_address[1]
        return bound

    def close(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
