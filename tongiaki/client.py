"""A small Python client of the game server: create, join, start, submit with
retries, and watch with resume, over one server or several nodes.

``Client`` blocks (threads, scripts, the gateway); ``AsyncClient`` is the same
for asyncio. Both follow the contract's retry rules: the channel sends a call
refused with ``UNAVAILABLE`` (every reason in :data:`tongiaki.reasons.RETRYABLE`)
again by itself, to another node where there are several (gRPC's retry policy,
:mod:`tongiaki.channels`); a change with a request id (a new game, a join, a start,
a decision, a take-back, a message) is sent again with the same one while its outcome
is unknown (a deadline passed, or the channel's tries ran out), so it is applied once;
a watch that breaks is resumed after the last sequence it delivered, so each entry is
delivered once.

    client = Client("127.0.0.1:50051")
    game = client.create(["red", "blue"]).game.name
    red = client.join(game, "red").seat_token
    ...
    for message in client.watch(game):
        ...
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from tongiaki import channels
from tongiaki.reasons import RETRYABLE, Reason
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as sgrpc

T = TypeVar("T")

#: Waits between tries: the first, the longest (doubling in between).
FIRST_WAIT = 0.1
LONGEST_WAIT = 2.0
#: Seconds a decision of unknown outcome is sent again for, and a broken watch
#: resumed for (a node's death is taken over within seconds; a restart may take more).
PATIENCE = 30.0

#: A watch that breaks this way is resumed (the stream ended before the game did,
#: or the watcher fell behind): anything else ends it.
RESUMED = frozenset({*RETRYABLE, Reason.WATCH_LAGGING})


@dataclass
class Refused(Exception):
    """A call the server refused, or could not answer (``reason`` empty then)."""

    status: str
    message: str
    reason: str = ""
    metadata: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.status} {self.reason or '(no reason)'}: {self.message}"

    @property
    def retryable(self) -> bool:
        """Whether sending the call again (same request id) may succeed."""
        return self.reason in RETRYABLE or (not self.reason and self.status == "UNAVAILABLE")

    @property
    def unknown_outcome(self) -> bool:
        """Whether a change may or may not have been applied: send it again with the
        same request id (its entry comes back if it was)."""
        return self.retryable or self.status == "DEADLINE_EXCEEDED"

    @classmethod
    def from_rpc(cls, error: grpc.RpcError) -> Refused:
        """The status, reason code and metadata of a failed call (its ``ErrorInfo``)."""
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else None
        refused = cls(status=code.name, message=details or code.name)
        try:
            status = rpc_status.from_call(error)
        except (ValueError, AttributeError):
            status = None
        for detail in status.details if status is not None else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Is(info.DESCRIPTOR):
                detail.Unpack(info)
                refused.reason, refused.metadata = info.reason, dict(info.metadata)
        return refused


#: Told of a refusal of unknown outcome before the change is sent again.
Retried = Callable[[Refused], None]


def bearer(token: str | None) -> list[tuple[str, str]]:
    """Call metadata carrying a seat token (none for a spectator)."""
    return [("authorization", f"Bearer {token}")] if token else []


def colour(name: str | int) -> pb.Colour.ValueType:
    """A seat colour as the contract's enum value: ``"red"``, ``"COLOUR_RED"`` or a value."""
    if isinstance(name, int):
        return pb.Colour.ValueType(name)
    return pb.Colour.Value(name if name.startswith("COLOUR_") else f"COLOUR_{name.upper()}")


def request_id() -> str:
    """A fresh request id: a retry of the same change sends the same one. Random
    (96 bits): a join's id gets its seat's token back, so nobody may guess it."""
    return secrets.token_hex(12)


def _waits(patience: float = PATIENCE) -> Iterator[float]:
    """Waits, doubling from FIRST_WAIT to LONGEST_WAIT, that add up to ``patience``."""
    wait, waited = FIRST_WAIT, 0.0
    while waited + wait <= patience:
        yield wait
        waited += wait
        wait = min(LONGEST_WAIT, wait * 2)


def _resume_after(error: grpc.RpcError, waits: Iterator[float]) -> float:
    """How long a broken watch waits before it resumes; raises :class:`Refused` if it
    may not (a refusal no retry mends, or patience run out)."""
    refused = Refused.from_rpc(error)
    wait = next(waits, None) if refused.reason in RESUMED or refused.retryable else None
    if wait is None:
        raise refused from None
    return wait


class _Requests:
    """The requests both clients send."""

    @staticmethod
    def create(
        seats: Sequence[str | int], settings: pb.GameSettings | None, rid: str | None
    ) -> Any:
        return spb.CreateGameRequest(
            seats=[colour(s) for s in seats], settings=settings, request_id=rid or request_id()
        )

    @staticmethod
    def join(name: str, seat: str | int, display_name: str, rid: str | None) -> Any:
        return spb.JoinGameRequest(
            name=name,
            colour=colour(seat or 0),
            display_name=display_name,
            request_id=rid or request_id(),
        )

    @staticmethod
    def start(name: str, rid: str | None) -> Any:
        return spb.StartGameRequest(name=name, request_id=rid or request_id())

    @staticmethod
    def submit(name: str, action: pb.Action, sequence: int, rid: str | None) -> Any:
        return spb.SubmitActionRequest(
            name=name, action=action, sequence=sequence, request_id=rid or request_id()
        )

    @staticmethod
    def watch(name: str, after: int | None, flags: dict[str, bool]) -> Any:
        request = spb.WatchGameRequest(name=name, **flags)
        if after is not None:
            request.after_sequence = after
        return request


def _last(message: spb.WatchGameResponse, last: int | None) -> int | None:
    """The last sequence a watch message delivers (or ``last`` if it delivers none)."""
    if message.entries:
        return message.entries[-1].sequence
    if message.HasField("snapshot"):
        return message.snapshot.sequence
    return last


class Client:
    """A blocking client of one server or several nodes (``"host:port,host:port"``)."""

    def __init__(
        self,
        target: str,
        credentials: grpc.ChannelCredentials | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.channel = channels.channel(target, credentials)
        self.stub = sgrpc.GameServiceStub(self.channel)
        self.timeout = timeout

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()

    def call(self, method: str, request: Any, token: str | None = None, **metadata: str) -> Any:
        """One call by method name (``metadata``: more call metadata); a refusal
        raises :class:`Refused`."""
        rpc = getattr(self.stub, method)
        try:
            return rpc(request, metadata=[*bearer(token), *metadata.items()], timeout=self.timeout)
        except grpc.RpcError as error:
            raise Refused.from_rpc(error) from None

    def create(
        self,
        seats: Sequence[str | int],
        settings: pb.GameSettings | None = None,
        rid: str | None = None,
    ) -> spb.CreateGameResponse:
        """A new game with these seats (colours in seat order); sent again with the same
        request id (``rid``, default a fresh one) while its outcome is unknown, so
        one game is made."""
        request = _Requests.create(seats, settings, rid)
        return self.change("CreateGame", request)  # type: ignore[no-any-return]

    def join(
        self, name: str, seat: str | int = 0, display_name: str = "", rid: str | None = None
    ) -> spb.JoinGameResponse:
        """Take a seat (``seat`` 0: the first open one); the answer holds its token.
        Sent again as :meth:`create` is, so one seat is taken."""
        request = _Requests.join(name, seat, display_name, rid)
        return self.change("JoinGame", request)  # type: ignore[no-any-return]

    def start(self, name: str, token: str, rid: str | None = None) -> spb.StartGameResponse:
        """Start a game whose seats are all taken; sent again as :meth:`create` is."""
        return self.change("StartGame", _Requests.start(name, rid), token)  # type: ignore[no-any-return]

    def change(
        self,
        method: str,
        request: Any,
        token: str | None = None,
        on_retry: Retried | None = None,
        **metadata: str,
    ) -> Any:
        """A change that carries a request id (``CreateGame``, ``JoinGame``,
        ``StartGame``, ``SubmitAction``, ``TakeBack``, ``SendMessage``): sent again,
        the same request, while its outcome is unknown (for :data:`PATIENCE`
        seconds), so it is applied once. ``on_retry`` is told of each refusal
        before the request goes again."""
        for wait in _waits():
            try:
                return self.call(method, request, token, **metadata)
            except Refused as refused:
                if not refused.unknown_outcome:
                    raise
                if on_retry is not None:
                    on_retry(refused)
            time.sleep(wait)
        return self.call(method, request, token, **metadata)

    def submit(
        self, name: str, token: str, action: pb.Action, sequence: int, rid: str | None = None
    ) -> pb.LogEntry:
        """Make a decision chosen at ``sequence``, sent again with the same request id
        while its outcome is unknown, so it is applied once. Returns its entry."""
        request = _Requests.submit(name, action, sequence, rid)
        return self.change("SubmitAction", request, token).entry  # type: ignore[no-any-return]

    def watch(
        self, name: str, after: int | None = None, token: str | None = None, **flags: bool
    ) -> Iterator[spb.WatchGameResponse]:
        """The game's messages from ``after`` (None: a snapshot first), resumed after
        the last sequence delivered whenever the stream breaks retryably; it ends
        with the stream of a finished game. ``flags``: ``include_latest``, ...."""
        waits = _waits()
        while True:
            stream = self.stub.WatchGame(
                _Requests.watch(name, after, flags), metadata=bearer(token)
            )
            try:
                for message in stream:
                    after = _last(message, after)
                    waits = _waits()
                    yield message
                return
            except grpc.RpcError as error:
                wait = _resume_after(error, waits)
                time.sleep(wait)
            finally:
                stream.cancel()


class AsyncClient:
    """The same client for asyncio."""

    def __init__(
        self,
        target: str,
        credentials: grpc.ChannelCredentials | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.channel = channels.aio_channel(target, credentials)
        self.stub = sgrpc.GameServiceStub(self.channel)
        self.timeout = timeout

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()

    async def call(
        self, method: str, request: Any, token: str | None = None, **metadata: str
    ) -> Any:
        """As :meth:`Client.call`."""
        rpc: Callable[..., Awaitable[Any]] = getattr(self.stub, method)
        try:
            return await rpc(
                request, metadata=[*bearer(token), *metadata.items()], timeout=self.timeout
            )
        except grpc.RpcError as error:
            raise Refused.from_rpc(error) from None

    async def create(
        self,
        seats: Sequence[str | int],
        settings: pb.GameSettings | None = None,
        rid: str | None = None,
    ) -> spb.CreateGameResponse:
        """As :meth:`Client.create`."""
        request = _Requests.create(seats, settings, rid)
        return await self.change("CreateGame", request)  # type: ignore[no-any-return]

    async def join(
        self, name: str, seat: str | int = 0, display_name: str = "", rid: str | None = None
    ) -> spb.JoinGameResponse:
        """As :meth:`Client.join`."""
        request = _Requests.join(name, seat, display_name, rid)
        return await self.change("JoinGame", request)  # type: ignore[no-any-return]

    async def start(self, name: str, token: str, rid: str | None = None) -> spb.StartGameResponse:
        """As :meth:`Client.start`."""
        return await self.change("StartGame", _Requests.start(name, rid), token)  # type: ignore[no-any-return]

    async def change(
        self,
        method: str,
        request: Any,
        token: str | None = None,
        on_retry: Retried | None = None,
        **metadata: str,
    ) -> Any:
        """As :meth:`Client.change`."""
        for wait in _waits():
            try:
                return await self.call(method, request, token, **metadata)
            except Refused as refused:
                if not refused.unknown_outcome:
                    raise
                if on_retry is not None:
                    on_retry(refused)
            await asyncio.sleep(wait)
        return await self.call(method, request, token, **metadata)

    async def submit(
        self, name: str, token: str, action: pb.Action, sequence: int, rid: str | None = None
    ) -> pb.LogEntry:
        """As :meth:`Client.submit`."""
        request = _Requests.submit(name, action, sequence, rid)
        return (await self.change("SubmitAction", request, token)).entry  # type: ignore[no-any-return]

    async def watch(
        self, name: str, after: int | None = None, token: str | None = None, **flags: bool
    ) -> AsyncIterator[spb.WatchGameResponse]:
        """As :meth:`Client.watch`."""
        waits = _waits()
        while True:
            stream = self.stub.WatchGame(
                _Requests.watch(name, after, flags), metadata=bearer(token)
            )
            try:
                async for message in stream:
                    after = _last(message, after)
                    waits = _waits()
                    yield message
                return
            except grpc.RpcError as error:
                wait = _resume_after(error, waits)
                await asyncio.sleep(wait)
            finally:
                stream.cancel()
