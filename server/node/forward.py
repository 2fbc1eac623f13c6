"""Forwarding a change to the node that owns the game, and relaying its answer.

A client may send any request to any node. A change (join, start, an action,
leave) is made by the game's owner: a node that does not own the game sends
the request's bytes on and relays the owner's answer or refusal unchanged
(status, message and ``ErrorInfo``). The caller's seat token never leaves the
node it was sent to: the forwarded call carries the token's hash, vouched for
by an HMAC with the cluster's secret over the node it is meant for, the
method, the request's bytes, the hash and the time (see :func:`vouch`). A forwarded
call is marked, so it is never forwarded twice: a node that receives one for a
game it no longer owns refuses it with ``GAME_MOVED``, and the client retries.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from grpc_health.v1 import health_pb2

from server.game.errors import ServerReason, ServiceError
from server.game.seats import hash_token
from tongiaki.v1 import game_service_pb2 as spb

log = logging.getLogger(__name__)

#: The metadata key that marks a forwarded call.
FORWARDED = "tongiaki-forwarded"
#: The metadata key naming the node a forwarded call is meant for.
NODE = "tongiaki-node"
#: The health service name a node answers SERVING for: this prefix and its id.
NODE_PREFIX = "tongiaki.node."
#: Seconds an identity check may take.
CHECK_TIMEOUT = 2.0
#: Metadata of a forwarded caller's seat: the token's hash, the time, the proof.
SEAT, SENT, PROOF = "tongiaki-seat", "tongiaki-sent", "tongiaki-proof"
#: Seconds a proof is good for (clocks of the nodes may differ by this much).
PROOF_SECONDS = 60.0


class Hashed(str):
    """A seat token's hash vouched for by another node (never made from a client's text)."""


def _proof(secret: bytes, node: str, method: str, data: bytes, *, seat: str, sent: str) -> str:
    digest = hashlib.sha256(data).hexdigest()
    text = "\n".join((node, method, digest, seat, sent)).encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()


def vouch(secret: bytes, node: str, method: str, data: bytes, token: str) -> list[tuple[str, str]]:
    """The metadata that carries the caller of ``token`` to ``node`` without the token."""
    seat = hash_token(token)
    sent = f"{time.time():.3f}"
    return [
        (SEAT, seat),
        (SENT, sent),
        (PROOF, _proof(secret, node, method, data, seat=seat, sent=sent)),
    ]


def vouched(secret: bytes, node: str, method: str, data: bytes, metadata: Any) -> Hashed | None:
    """The seat hash a forwarded call carries, if its proof holds (None: it carries none).

    Raises ValueError for a proof that does not hold.
    """
    found = {k: v for k, v in metadata or () if k in (SEAT, SENT, PROOF)}
    if not found:
        return None
    seat, sent, proof = found.get(SEAT, ""), found.get(SENT, ""), found.get(PROOF, "")
    try:
        fresh = abs(time.time() - float(sent)) <= PROOF_SECONDS
    except ValueError:
        fresh = False
    expected = _proof(secret, node, method, data, seat=str(seat), sent=str(sent))
    if not secret or not fresh or not hmac.compare_digest(expected, str(proof)):
        raise ValueError("the forwarded seat is not vouched for by a node of this cluster")
    return Hashed(seat)


SERVICE = spb.DESCRIPTOR.services_by_name["GameService"].full_name

#: Seconds a forwarded call may take.
TIMEOUT = 30.0


class Forward(Exception):
    """The game is owned by the node at ``address``: forward the call there."""

    def __init__(self, address: str, name: str, node: str = "") -> None:
        super().__init__(f"{name} is owned by {address}")
        self.address = address
        self.name = name
        #: The owner's node id, which the node at ``address`` must be.
        self.node = node


class Forwarder:
    """Channels to the other nodes, opened when first needed."""

    def __init__(
        self,
        credentials: grpc.ChannelCredentials | None = None,
        alive: Callable[[str], Awaitable[bool]] | None = None,
        patience: float = 0.5,
        secret: bytes = b"",
    ) -> None:
        #: The cluster's secret, which vouches for forwarded callers.
        self.secret = secret
        #: TLS credentials for the other nodes (None: plain text).
        self.credentials = credentials
        #: Whether a node's lease still runs (None: not asked, the call waits).
        self.alive = alive
        #: Seconds between looks at the owner's lease while a forwarded call waits.
        self.patience = patience
        self._channels: dict[str, grpc.aio.Channel] = {}

    def _channel(self, address: str) -> grpc.aio.Channel:
        channel = self._channels.get(address)
        if channel is None:
            if self.credentials is None:
                channel = grpc.aio.insecure_channel(address)
            else:
                channel = grpc.aio.secure_channel(address, self.credentials)
            self._channels[address] = channel
        return channel

    async def answers_as(self, address: str, node: str) -> bool:
        """Whether the node at ``address`` says it is ``node`` (and serves)."""
        check = self._channel(address).unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        try:
            reply = await check(
                health_pb2.HealthCheckRequest(service=NODE_PREFIX + node), timeout=CHECK_TIMEOUT
            )
        except grpc.aio.AioRpcError:
            return False
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

    async def call(
        self, address: str, method: str, data: bytes, context: Any, node: str = ""
    ) -> bytes:
        """Send ``data`` as ``method`` to the node at ``address`` (which must be ``node``);
        its answer, or its refusal."""
        metadata = [(FORWARDED, "1"), (NODE, node)]
        for key, value in context.invocation_metadata() or ():
            if key == "authorization" and isinstance(value, str):
                # The token stays here: its hash goes, vouched for with the secret.
                token = value.removeprefix("Bearer ")
                metadata += vouch(self.secret, node, method, data, token)
        call = self._channel(address).unary_unary(f"/{SERVICE}/{method}")
        remaining = context.time_remaining() if hasattr(context, "time_remaining") else None
        timeout = TIMEOUT if remaining is None else max(0.001, min(TIMEOUT, remaining))
        pending = asyncio.ensure_future(call(data, metadata=metadata, timeout=timeout))
        try:
            await self._wait_while_alive(pending, node)
            reply: bytes = await pending
            return reply
        except grpc.aio.AioRpcError as error:
            if error.code() in (
                grpc.StatusCode.UNAVAILABLE,
                grpc.StatusCode.DEADLINE_EXCEEDED,
            ) and (dict(error.trailing_metadata() or ()).get("grpc-status-details-bin") is None):
                log.warning("owner unreachable", extra={"address": address, "method": method})
                raise ServiceError(
                    ServerReason.NODE_UNAVAILABLE,
                    "the node that plays this game cannot be reached; retry",
                ) from None
            await context.abort(
                error.code(),
                error.details() or "",
                trailing_metadata=tuple(error.trailing_metadata() or ()),
            )
            raise AssertionError("unreachable") from None  # abort raises

    async def _wait_while_alive(self, pending: asyncio.Future[Any], node: str) -> None:
        """Wait for ``pending`` while ``node`` keeps its lease: a paused or dead owner
        cannot write any more once it lost it, so the caller retries elsewhere (with
        the same request id, which finds the change if the owner made it before)."""
        if not node or self.alive is None:
            return
        while True:
            done, _ = await asyncio.wait({pending}, timeout=self.patience)
            if done:
                return
            try:
                alive = await self.alive(node)
            except Exception:
                continue  # the database is away: the call goes on waiting
            if not alive:
                pending.cancel()
                log.warning("owner lost its lease while a call waited", extra={"node": node})
                raise ServiceError(
                    ServerReason.GAME_MOVED,
                    "the game's node stopped answering; retry with the same request id",
                )

    async def close(self) -> None:
        """Close every channel."""
        for channel in self._channels.values():
            await channel.close()
        self._channels.clear()
