"""A refused request, as the game and everything above it raise it.

A :class:`ServiceError` carries a reason code from the contract's one list
(:class:`tongiaki.reasons.Reason`, the engine's reasons among them), an English
message for developers and string metadata. It knows no transport: the gRPC
edge turns it into a status (``server.rpc.errors``).
"""

from __future__ import annotations

from typing import Any

from engine import ActionError
from tongiaki.reasons import Reason

#: The reason codes the server raises (the contract's list).
ServerReason = Reason


class ServiceError(Exception):
    """A refused request: reason code, developer message and metadata."""

    def __init__(self, reason: str, message: str, **metadata: Any) -> None:
        super().__init__(message)
        self.reason = str(reason)
        self.message = message
        self.metadata = {key: _text(value) for key, value in metadata.items()}

    @classmethod
    def from_engine(cls, error: ActionError) -> ServiceError:
        """The service error of an engine's refusal, with the engine's reason."""
        return cls(error.reason, error.message, **error.metadata)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    return str(value)


def invalid(message: str, **metadata: Any) -> ServiceError:
    """A malformed request (``INVALID_ARGUMENT``, ``INVALID_REQUEST``)."""
    return ServiceError(ServerReason.INVALID_REQUEST, message, **metadata)


def reused() -> ServiceError:
    """A request id sent again with another request (``INVALID_REQUEST``, field
    ``request_id``): a retry must repeat its request as it was."""
    return invalid(
        "this request_id was sent with another request; a retry sends the same request,"
        " a new request a new id",
        field="request_id",
    )
