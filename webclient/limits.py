"""The gateway's own refusals: its reason codes, body and header limits, and how
many event streams it holds (in all and per client address).

The game server's reasons pass through unchanged; these are the reasons the
gateway gives by itself, before anything reaches the server.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from enum import StrEnum


class GatewayReason(StrEnum):
    """Reason codes of the gateway itself: part of the public API, never renamed."""

    #: The request is not what the route takes (body, path, query or header).
    INVALID_REQUEST = "INVALID_REQUEST"
    #: The body is larger than the gateway reads (``limit`` says how large).
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    #: Two ``Authorization`` headers: send exactly one.
    AUTHORIZATION_REPEATED = "AUTHORIZATION_REPEATED"
    #: The ``Authorization`` header is not ``Bearer <token>`` with a token of printable ASCII.
    TOKEN_INVALID = "TOKEN_INVALID"
    #: No such page or route.
    NOT_FOUND = "NOT_FOUND"
    #: The route does not take this method.
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    #: This client address has as many event streams open as it may.
    TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
    #: The gateway holds as many event streams as it can; retry shortly.
    TOO_MANY_STREAMS = "TOO_MANY_STREAMS"
    #: The gateway is shutting down.
    SHUTTING_DOWN = "SHUTTING_DOWN"
    #: The game server did not answer, or answered without a reason.
    UPSTREAM_ERROR = "UPSTREAM_ERROR"
    #: The gateway failed to answer.
    INTERNAL_ERROR = "INTERNAL_ERROR"


#: Largest request body read, in bytes (an action is well under 1 KiB).
MAX_BODY = 64 * 1024
#: Deepest nesting of arrays and objects in a JSON body.
MAX_JSON_DEPTH = 16
#: Longest ``Authorization`` header value.
MAX_AUTHORIZATION = 200
#: A game id in a path, as the server names games.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: A sequence number (``Last-Event-ID``): digits, within int64.
MAX_SEQUENCE = 2**63 - 1


class Refused(Exception):
    """A stream the gateway will not hold: its HTTP status, reason and limit."""

    def __init__(self, status: int, reason: GatewayReason, message: str, limit: int) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message
        self.limit = limit


class StreamLimits:
    """Open event streams: at most ``capacity`` in all, ``per_client`` per address (0: none)."""

    def __init__(self, capacity: int = 0, per_client: int = 0) -> None:
        self.capacity = capacity
        self.per_client = per_client
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}
        self.total = 0

    def open(self, client: str) -> Callable[[], None]:
        """Count one more stream for ``client`` (or raise :class:`Refused`); the
        function that closes it (calling it again does nothing)."""
        with self._lock:
            if self.capacity and self.total >= self.capacity:
                raise Refused(
                    503,
                    GatewayReason.TOO_MANY_STREAMS,
                    "the gateway holds as many event streams as it can; retry shortly",
                    self.capacity,
                )
            count = self._open.get(client, 0)
            if self.per_client and count >= self.per_client:
                raise Refused(
                    429,
                    GatewayReason.TOO_MANY_WATCHES,
                    f"at most {self.per_client} event streams per client are open",
                    self.per_client,
                )
            self._open[client] = count + 1
            self.total += 1
        closed = False

        def close() -> None:
            nonlocal closed
            with self._lock:
                if closed:
                    return
                closed = True
                self.total -= 1
                left = self._open[client] - 1
                if left:
                    self._open[client] = left
                else:
                    del self._open[client]

        return close
