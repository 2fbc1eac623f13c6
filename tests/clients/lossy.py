"""A relay in front of a game server that loses answers: the call reaches the
server (and is applied there), the client hears ``UNAVAILABLE``, as when a node
dies or a connection breaks after the commit. Unary calls only."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import grpc

from tongiaki.v1 import game_service_pb2 as spb

SERVICE = "/tongiaki.v1.GameService/"

#: Metadata passed on to the server.
_PASSED = ("authorization", "x-forwarded-for")


class Lossy:
    """Relays every unary call to ``upstream``, losing the first answer of each
    method of ``lose``; ``seen`` holds the requests of each method as received.
    (A generic RPC handler: gRPC asks its ``service`` for each call.)"""

    def __init__(self, upstream: str, lose: set[str]) -> None:
        self.upstream = upstream
        self.lose = set(lose)
        self.seen: dict[str, list[bytes]] = defaultdict(list)
        self._server: grpc.aio.Server | None = None
        self._channel: grpc.aio.Channel | None = None

    async def start(self) -> str:
        """Serve on a free port; the relay's address."""
        self._channel = grpc.aio.insecure_channel(self.upstream)
        self._server = grpc.aio.server()
        self._server.add_generic_rpc_handlers((self,))
        port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        return f"127.0.0.1:{port}"

    async def stop(self) -> None:
        """Stop serving and close the channel."""
        if self._server is not None:
            await self._server.stop(0)
        if self._channel is not None:
            await self._channel.close()

    def service(self, handler_call_details: Any) -> Any:
        method: str = handler_call_details.method
        if not method.startswith(SERVICE) or method.endswith(("/WatchGame", "/SubmitActions")):
            return None

        async def relay(data: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
            short = method.removeprefix(SERVICE)
            self.seen[short].append(data)
            metadata = [(k, v) for k, v in context.invocation_metadata() or () if k in _PASSED]
            assert self._channel is not None
            call = self._channel.unary_unary(method)
            try:
                answer: bytes = await call(data, metadata=metadata, timeout=10)
            except grpc.aio.AioRpcError as error:
                context.set_trailing_metadata(error.trailing_metadata() or ())
                await context.abort(error.code(), error.details() or "")
            if short in self.lose:
                self.lose.discard(short)
                await context.abort(grpc.StatusCode.UNAVAILABLE, "the answer was lost")
            return answer

        return grpc.unary_unary_rpc_method_handler(relay)

    def request_ids(self, method: str) -> list[str]:
        """The request id of each ``method`` request received, in order."""
        kind = getattr(spb, f"{method}Request")
        return [kind.FromString(data).request_id for data in self.seen[method]]
