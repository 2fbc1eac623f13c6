"""The gateway's side of the gRPC contract: one channel, typed calls, errors as data.

The gateway is a client of the game server like any other: it never imports the
engine, it only sends requests and relays what the server says. A refusal from
the server becomes an :class:`UpstreamError` carrying the gRPC status and the
``ErrorInfo`` reason code, which the JSON API passes on for clients to localize.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import Message

from tongiaki.client import Client, Refused
from tongiaki.v1 import game_service_pb2 as spb

#: gRPC status code name -> HTTP status, as Google's HTTP mapping of google.rpc.Code.
HTTP_STATUS: dict[str, int] = {
    "OK": 200,
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INVALID_ARGUMENT": 400,
    "DEADLINE_EXCEEDED": 504,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "PERMISSION_DENIED": 403,
    "UNAUTHENTICATED": 401,
    "RESOURCE_EXHAUSTED": 429,
    "FAILED_PRECONDITION": 400,
    "ABORTED": 409,
    "OUT_OF_RANGE": 400,
    "UNIMPLEMENTED": 501,
    "INTERNAL": 500,
    "UNAVAILABLE": 503,
    "DATA_LOSS": 500,
}

#: The reason the gateway reports when the server sent none (e.g. it is down).
NO_REASON = "UPSTREAM_ERROR"


@dataclass
class UpstreamError(Exception):
    """A call the server refused or could not answer."""

    status: str
    message: str
    reason: str = NO_REASON
    metadata: dict[str, str] = field(default_factory=dict)
    #: The HTTP status, where the gRPC status does not say it (405, 413).
    http: int | None = None

    @property
    def http_status(self) -> int:
        """The HTTP status the JSON API answers with."""
        return self.http or HTTP_STATUS.get(self.status, 500)

    def to_json(self) -> dict[str, Any]:
        """The error body of the JSON API."""
        return {
            "error": {
                "code": self.http_status,
                "status": self.status,
                "reason": self.reason,
                "message": self.message,
                "metadata": self.metadata,
            }
        }

    @classmethod
    def from_refusal(cls, refused: Refused) -> UpstreamError:
        """The gateway's error for a call the server refused (or did not answer)."""
        return cls(refused.status, refused.message, refused.reason or NO_REASON, refused.metadata)

    @classmethod
    def from_rpc(cls, error: grpc.RpcError) -> UpstreamError:
        """The reason code and metadata of a failed call, from its ``google.rpc.Status``."""
        return cls.from_refusal(Refused.from_rpc(error))


#: The metadata key that names the browser's address to the server, whose
#: per-client limits count it (the server trusts it from listed proxies only).
FORWARDED_FOR = "x-forwarded-for"


class Upstream:
    """A channel to the game server and the calls the gateway makes on it.

    With ``ca`` (a PEM file, or ``True`` for the system's roots) the channel is TLS.
    """

    def __init__(self, target: str, timeout: float = 10.0, ca: Path | bool | None = None) -> None:
        self.target = target
        self.timeout = timeout
        credentials = None
        if ca:
            credentials = grpc.ssl_channel_credentials(
                ca.read_bytes() if isinstance(ca, Path) else None
            )
        #: The contract's client: its calls follow the retry rules.
        self.client = Client(target, credentials, timeout)
        self.channel = self.client.channel
        self.stub = self.client.stub
        #: Unary calls made so far, by method.
        self.calls: Counter[str] = Counter()
        #: Changes sent again because their outcome was unknown, by method.
        self.resent: Counter[str] = Counter()

    def call(
        self, method: str, request: Message, token: str | None = None, client: str = ""
    ) -> Message:
        """A unary call by method name (``CreateGame``, ``JoinGame``, ...) for the
        browser at address ``client``."""
        forwarded = {FORWARDED_FOR: client} if client else {}
        self.calls[method] += 1
        try:
            if getattr(request, "request_id", ""):
                # A change with a request id is sent again, as it was, while its outcome
                # is unknown (the retry rules): the browser hears what happened to it.
                response: Message = self.client.change(
                    method,
                    request,
                    token,
                    lambda _: self.resent.update((method,)),
                    **forwarded,
                )
            else:
                response = self.client.call(method, request, token, **forwarded)
        except Refused as refused:
            raise UpstreamError.from_refusal(refused) from None
        except ValueError:  # the channel is closed: the gateway is stopping
            raise UpstreamError(
                "UNAVAILABLE", "the gateway is shutting down", "SHUTTING_DOWN"
            ) from None
        return response

    def watch(self, name: str, after: int | None) -> Any:
        """A WatchGame stream (iterable, cancellable) from ``after`` or a snapshot;
        every message with entries carries the game after them (``latest``), and
        every entry the board after it (``boards``). It waits 100 ms after an
        entry for more, not the server's pace for spectators: one watch serves
        every browser of the game."""
        request = spb.WatchGameRequest(
            name=name, include_latest=True, include_boards=True, gather_millis=100
        )
        if after is not None:
            request.after_sequence = after
        return self.stub.WatchGame(request)

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()


def responses(stream: Any) -> Iterator[spb.WatchGameResponse]:
    """The messages of a watch stream; a failed stream raises :class:`UpstreamError`."""
    try:
        yield from stream
    except grpc.RpcError as error:
        raise UpstreamError.from_rpc(error) from None
