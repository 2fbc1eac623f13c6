"""What one client may make the server hold, and how large a request may be.

Limits are per client address: the peer of the call, or, for a peer listed as
a trusted proxy (the web gateway), the address it forwards in the
``x-forwarded-for`` metadata. Every refusal carries a reason code of
:mod:`server.rpc.errors`.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from server.game.errors import ServerReason, ServiceError

#: The metadata key a trusted proxy sends the client's address in.
FORWARDED_FOR = "x-forwarded-for"

#: Largest request each method accepts, in bytes of its encoded message. Names,
#: tokens and request ids are short; ``action_json`` is at most 4 KiB.
REQUEST_BYTES: dict[str, int] = {
    "CreateGame": 4096,
    "JoinGame": 1024,
    "StartGame": 512,
    "GetGame": 512,
    "SubmitAction": 8192,
    "SubmitActions": 8192,
    "WatchGame": 512,
    "ListGames": 1024,
    "LeaveGame": 512,
    "GetGameRecord": 512,
    "ListGameEntries": 512,
    "SendMessage": 512,
    "ProposeRematch": 512,
}

#: What gRPC itself accepts at most: anything larger is refused before it is read
#: into the server's memory (the per-method limits above refuse the rest).
MAX_MESSAGE_BYTES = 64 * 1024

#: Longest wait of a watch for more entries to send together (gather_millis).
MAX_GATHER_MILLIS = 100

#: Longest time between a paced spectator's messages the operator may set.
MAX_SPECTATOR_GATHER_MILLIS = 1000


@dataclass(frozen=True)
class ClientLimits:
    """Per-client limits; 0 turns a limit off."""

    #: New games per client address and minute (a bucket refilled at this rate).
    games_per_minute: float = 60.0
    #: How many games a client may create at once before the rate applies.
    games_burst: int = 120
    #: Open watch streams per client address.
    watches_per_client: int = 512
    #: Peers whose ``x-forwarded-for`` metadata names the client (the web gateway).
    trusted_proxies: tuple[str, ...] = ()
    #: A spectator's watch that does not say how long to gather
    #: (WatchGameRequest.gather_millis left out) gets at most one message per
    #: this many milliseconds, an entry at once when its last message is older
    #: (0: every entry at once).
    spectator_gather_millis: int = 300


def peer_address(peer: str) -> str:
    """The address part of a gRPC peer string (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        host = rest.rpartition(":")[0] or rest
        return host.strip("[]")
    return peer


def client_of(context: Any, trusted: tuple[str, ...]) -> str:
    """The address the limits count a call against."""
    address = peer_address(context.peer() or "")
    if address in trusted:
        for key, value in context.invocation_metadata() or ():
            if key == FORWARDED_FOR and isinstance(value, str) and value:
                # The proxy appends the address it saw last.
                forwarded = value.rsplit(",", 1)[-1].strip()
                if 0 < len(forwarded) <= 64:
                    return forwarded
    return address


class Buckets:
    """Token buckets per key, at most ``keys`` of them (the least recent are dropped)."""

    def __init__(self, rate_per_minute: float, burst: int, keys: int = 100_000) -> None:
        self.rate = rate_per_minute / 60.0
        self.burst = float(burst)
        self.keys = keys
        self._lock = threading.Lock()
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> float:
        """Take one token for ``key``: 0.0, or the seconds until one is available."""
        now = time.monotonic()
        with self._lock:
            level, since = self._state.pop(key, (self.burst, now))
            level = min(self.burst, level + (now - since) * self.rate)
            if level >= 1.0:
                self._state[key] = (level - 1.0, now)
                wait = 0.0
            else:
                self._state[key] = (level, now)
                wait = (1.0 - level) / self.rate if self.rate > 0 else math.inf
            while len(self._state) > self.keys:
                self._state.popitem(last=False)
        return wait


class Counts:
    """Open things (watches) per key, each at most ``most``."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def total(self) -> int:
        """Everything open now."""
        with self._lock:
            return sum(self._open.values())

    @contextmanager
    def hold(self, key: str, reason: ServerReason, what: str) -> Iterator[None]:
        """One more for ``key`` while the block runs, or :class:`ServiceError` ``reason``."""
        with self._lock:
            count = self._open.get(key, 0)
            if self.most and count >= self.most:
                raise ServiceError(
                    reason, f"at most {self.most} {what} per client are open", limit=self.most
                )
            self._open[key] = count + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._open[key] - 1
                if left:
                    self._open[key] = left
                else:
                    del self._open[key]


class Guard:
    """The limits of one server: request sizes, new games and open watches per client."""

    def __init__(self, limits: ClientLimits) -> None:
        self.limits = limits
        self.games = Buckets(limits.games_per_minute, limits.games_burst)
        self.watches = Counts(limits.watches_per_client)

    def client(self, context: Any) -> str:
        """The client address of a call."""
        return client_of(context, self.limits.trusted_proxies)

    def size(self, method: str, data: bytes) -> None:
        """Refuse a request of ``method`` larger than its limit, before decoding it."""
        most = REQUEST_BYTES.get(method, MAX_MESSAGE_BYTES)
        if len(data) > most:
            raise ServiceError(
                ServerReason.REQUEST_TOO_LARGE,
                f"a {method} request is at most {most} bytes",
                limit=most,
                method=method,
            )

    def new_game(self, context: Any) -> None:
        """Count a new game against its client, or refuse it (``RATE_LIMITED``)."""
        if not self.limits.games_per_minute:
            return
        wait = self.games.take(self.client(context))
        if wait:
            raise ServiceError(
                ServerReason.RATE_LIMITED,
                f"at most {self.limits.games_per_minute:g} new games per minute per client",
                retry_after_seconds=f"{math.ceil(wait)}",
            )

    def watch(self, context: Any) -> Any:
        """A context manager holding one watch of the call's client."""
        return self.watches.hold(self.client(context), ServerReason.TOO_MANY_WATCHES, "watches")
