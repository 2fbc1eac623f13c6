"""The gateway's Prometheus metrics (prometheus-client), one registry per app,
served at ``/metrics`` (``TONGIAKI_METRICS``); docs/operations.md lists them."""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, ProcessCollector


class GatewayMetrics:
    """Every metric of one gateway."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        r = self.registry
        self.requests = Counter(
            "tongiaki_gateway_requests",
            "HTTP requests answered, by route and status class",
            ["route", "status"],
            registry=r,
        )
        self.refusals = Counter(
            "tongiaki_gateway_refusals",
            "Requests answered with an error, by reason code",
            ["reason"],
            registry=r,
        )
        self.streams = Gauge("tongiaki_gateway_streams_open", "Event streams open now", registry=r)
        self.feeds = Gauge(
            "tongiaki_gateway_feeds", "Games with an upstream watch (one per game)", registry=r
        )

    def watch(self, streams: Callable[[], int], feeds: Callable[[], int]) -> None:
        """Read the open streams and feeds at every scrape."""
        self.streams.set_function(lambda: float(streams()))
        self.feeds.set_function(lambda: float(feeds()))
