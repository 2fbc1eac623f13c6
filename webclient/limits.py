"""The gateway's own refusals: its reason codes, body and header limits, and how
many event streams it holds (in all and per client address).

The game server's reasons pass through unchanged; these are the reasons the
gateway gives by itself, before anything reaches the server.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import Any

from werkzeug.exceptions import RequestTimeout


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
    #: The request's body did not arrive in time (``limit``: seconds it may take).
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"


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


#: Seconds a request's body may take to arrive, however it trickles in.
BODY_SECONDS = 10.0
#: The environ key under which the HTTP server hands over the connection's socket.
SOCKET_KEY = "tongiaki.socket"


class _DeadlineInput:
    """A request body (``wsgi.input``) that must arrive by a deadline. A client that
    sends a byte now and then holds a worker only that long: then the socket's
    reading side is shut, the read ends, and the request gets 408."""

    def __init__(self, stream: Any, seconds: float, sock: socket.socket) -> None:
        self._stream = stream
        self._seconds = seconds
        self._sock = sock
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self.expired = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RD)

    def _timed_out(self) -> RequestTimeout:
        return RequestTimeout(f"the request's body must arrive within {self._seconds:g} s")

    def _call(self, method: Callable[..., bytes], *args: Any) -> bytes:
        try:
            data = method(*args)
        except Exception:
            if self.expired:
                raise self._timed_out() from None
            raise
        if self.expired:
            raise self._timed_out()
        return data

    def read(self, *args: Any) -> bytes:
        return self._call(self._stream.read, *args)

    def readline(self, *args: Any) -> bytes:
        return self._call(self._stream.readline, *args)

    def __iter__(self) -> Iterator[bytes]:
        while line := self.readline():
            yield line

    def finish(self) -> None:
        """The request is answered: the deadline no longer applies."""
        self._timer.cancel()


def body_deadline(app: Callable[..., Any], seconds: float) -> Callable[..., Any]:
    """WSGI middleware: every request body of ``app`` must arrive within ``seconds``
    (needs the connection's socket under ``SOCKET_KEY``, as webclient.wsgi serves)."""

    def middleware(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        sock = environ.get(SOCKET_KEY)
        length = environ.get("CONTENT_LENGTH") or "0"
        has_body = environ.get("wsgi.input_terminated") or (length.isdigit() and int(length))
        if sock is None or not has_body:
            return app(environ, start_response)
        body = _DeadlineInput(environ["wsgi.input"], seconds, sock)
        environ["wsgi.input"] = body
        try:
            return app(environ, start_response)
        finally:
            body.finish()

    return middleware


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
