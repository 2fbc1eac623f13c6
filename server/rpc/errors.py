"""Every error the server returns, with its stable reason code and gRPC status.

One mapping for the whole service: a :class:`ServiceError` carries a
:class:`ServerReason` (or the engine's :class:`engine.Reason`), an English
message for developers and string metadata; :func:`to_status` turns it into
the ``google.rpc.Status`` with an ``ErrorInfo`` that clients branch on.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from engine import ActionError, Reason

#: The ``domain`` of every ``ErrorInfo``.
DOMAIN = "tongiaki.v1"


class ServerReason(StrEnum):
    """Reason codes of the server itself: part of the public API, never renamed."""

    #: A request field is missing, out of range or not of the right form.
    INVALID_REQUEST = "INVALID_REQUEST"
    #: No game has that name.
    GAME_NOT_FOUND = "GAME_NOT_FOUND"
    #: The RPC needs a seat token and none was sent.
    TOKEN_MISSING = "TOKEN_MISSING"
    #: The token sent is no seat token of any game.
    TOKEN_INVALID = "TOKEN_INVALID"
    #: The token belongs to a seat of another game.
    TOKEN_WRONG_GAME = "TOKEN_WRONG_GAME"
    #: The seat asked for is already taken.
    SEAT_TAKEN = "SEAT_TAKEN"
    #: The colour asked for is not a seat of this game.
    NO_SUCH_SEAT = "NO_SUCH_SEAT"
    #: Every seat is taken.
    GAME_FULL = "GAME_FULL"
    #: The game has not started yet.
    GAME_NOT_STARTED = "GAME_NOT_STARTED"
    #: The game has started already.
    GAME_ALREADY_STARTED = "GAME_ALREADY_STARTED"
    #: A game cannot start while a seat is open.
    SEATS_OPEN = "SEATS_OPEN"
    #: The record of a game is public only once the game is over.
    GAME_NOT_FINISHED = "GAME_NOT_FINISHED"
    #: The action was chosen in another state than the current one.
    STALE_SEQUENCE = "STALE_SEQUENCE"
    #: A watch resumed after a sequence number the game has not reached.
    SEQUENCE_OUT_OF_RANGE = "SEQUENCE_OUT_OF_RANGE"
    #: A watcher fell too far behind; resume from the last sequence it saw.
    WATCH_LAGGING = "WATCH_LAGGING"
    #: The server is shutting down; retry against the restarted server.
    SHUTTING_DOWN = "SHUTTING_DOWN"
    #: The game is now played on another node (or was reloaded): retry the
    #: request, or resume the watch after the last sequence received.
    GAME_MOVED = "GAME_MOVED"
    #: The node that plays the game could not be reached; retry shortly (another
    #: node takes the game over once its owner's lease runs out).
    NODE_UNAVAILABLE = "NODE_UNAVAILABLE"
    #: The change reached the database but its answer was lost (the connection
    #: broke at commit): it may or may not be applied. Retry with the same request
    #: id: the retry returns the entry if it was written, else applies it.
    OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN"
    #: The request is larger than its method accepts (``limit`` says how large).
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    #: The call sent more than one ``authorization`` header: send exactly one.
    AUTHORIZATION_REPEATED = "AUTHORIZATION_REPEATED"
    #: Too many new games from this client address, or quick messages from this
    #: seat; retry after ``retry_after_seconds``.
    RATE_LIMITED = "RATE_LIMITED"
    #: This client address has as many watches open as it may (``limit``).
    TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
    #: The server failed to answer; the request was not applied.
    INTERNAL_ERROR = "INTERNAL_ERROR"
    #: TakeBack: the entry named is not the last entry of the log, or no decision.
    TAKE_BACK_NOT_LAST = "TAKE_BACK_NOT_LAST"
    #: TakeBack: the last decision is not the caller's own (another seat's, or a bot's).
    TAKE_BACK_NOT_YOURS = "TAKE_BACK_NOT_YOURS"
    #: TakeBack: a tile was drawn by the decision, so it cannot be undone.
    TAKE_BACK_AFTER_DRAW = "TAKE_BACK_AFTER_DRAW"
    #: A game's webhook URL does not start with a prefix the operator allowed.
    WEBHOOK_NOT_ALLOWED = "WEBHOOK_NOT_ALLOWED"
    #: SendMessage: the phrase is none the server knows (quick messages are predefined).
    UNKNOWN_PHRASE = "UNKNOWN_PHRASE"
    #: SendMessage: the game holds as many quick messages as it may (``limit``).
    MESSAGE_LIMIT = "MESSAGE_LIMIT"
    #: A game of bots only drew no tile for ``BotConfig.stall_rounds`` rounds: its
    #: bots were stopped (logged with this code; the game stays as it was).
    GAME_STALLED = "GAME_STALLED"


_CODES: dict[str, grpc.StatusCode] = {
    ServerReason.INVALID_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    ServerReason.GAME_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    ServerReason.TOKEN_MISSING: grpc.StatusCode.UNAUTHENTICATED,
    ServerReason.TOKEN_INVALID: grpc.StatusCode.UNAUTHENTICATED,
    ServerReason.TOKEN_WRONG_GAME: grpc.StatusCode.PERMISSION_DENIED,
    ServerReason.SEAT_TAKEN: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.NO_SUCH_SEAT: grpc.StatusCode.INVALID_ARGUMENT,
    ServerReason.GAME_FULL: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.GAME_NOT_STARTED: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.GAME_ALREADY_STARTED: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.SEATS_OPEN: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.GAME_NOT_FINISHED: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.STALE_SEQUENCE: grpc.StatusCode.ABORTED,
    ServerReason.GAME_STALLED: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.SEQUENCE_OUT_OF_RANGE: grpc.StatusCode.INVALID_ARGUMENT,
    ServerReason.WATCH_LAGGING: grpc.StatusCode.ABORTED,
    ServerReason.SHUTTING_DOWN: grpc.StatusCode.UNAVAILABLE,
    ServerReason.GAME_MOVED: grpc.StatusCode.UNAVAILABLE,
    ServerReason.NODE_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    ServerReason.OUTCOME_UNKNOWN: grpc.StatusCode.UNAVAILABLE,
    ServerReason.REQUEST_TOO_LARGE: grpc.StatusCode.INVALID_ARGUMENT,
    ServerReason.AUTHORIZATION_REPEATED: grpc.StatusCode.INVALID_ARGUMENT,
    ServerReason.RATE_LIMITED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServerReason.TOO_MANY_WATCHES: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServerReason.INTERNAL_ERROR: grpc.StatusCode.INTERNAL,
    ServerReason.TAKE_BACK_NOT_LAST: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.TAKE_BACK_NOT_YOURS: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.TAKE_BACK_AFTER_DRAW: grpc.StatusCode.FAILED_PRECONDITION,
    ServerReason.WEBHOOK_NOT_ALLOWED: grpc.StatusCode.PERMISSION_DENIED,
    ServerReason.UNKNOWN_PHRASE: grpc.StatusCode.INVALID_ARGUMENT,
    ServerReason.MESSAGE_LIMIT: grpc.StatusCode.RESOURCE_EXHAUSTED,
    # The engine's reasons.
    Reason.MALFORMED_ACTION: grpc.StatusCode.INVALID_ARGUMENT,
    Reason.ILLEGAL_ACTION: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.NOT_YOUR_TURN: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.GAME_OVER: grpc.StatusCode.FAILED_PRECONDITION,
    Reason.UNKNOWN_PLAYER: grpc.StatusCode.PERMISSION_DENIED,
    Reason.INVALID_RECORD: grpc.StatusCode.INVALID_ARGUMENT,
}

#: Every reason code the service can return, with its gRPC status code.
REASONS: dict[str, grpc.StatusCode] = dict(_CODES)


class ServiceError(Exception):
    """A refused request: reason code, developer message and metadata."""

    def __init__(self, reason: str, message: str, **metadata: Any) -> None:
        super().__init__(message)
        self.reason = str(reason)
        self.message = message
        self.metadata = {key: _text(value) for key, value in metadata.items()}

    @property
    def code(self) -> grpc.StatusCode:
        """The gRPC status code of this reason."""
        return _CODES[self.reason]

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


def to_status(error: ServiceError) -> Any:
    """The ``grpc.Status`` (with a ``google.rpc.Status`` and ``ErrorInfo``) of ``error``."""
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    code: int = getattr(code_pb2, error.code.name)
    status = status_pb2.Status(code=code, message=error.message, details=[detail])
    return rpc_status.to_status(status)


def invalid(message: str, **metadata: Any) -> ServiceError:
    """A malformed request (``INVALID_ARGUMENT``, ``INVALID_REQUEST``)."""
    return ServiceError(ServerReason.INVALID_REQUEST, message, **metadata)
