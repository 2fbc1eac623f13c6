"""Every reason code a game server gives, with its gRPC status: the one list.

A refused call carries a ``google.rpc.ErrorInfo`` in its status details whose
``reason`` is one of these (``domain`` :data:`DOMAIN`) and whose ``metadata``
says more; clients branch on the reason, never on the message. The codes are
part of the public API and never renamed. The game server raises them, the
gateway passes them through and names them in every language, and every client
in this repository retries exactly the ones in :data:`RETRYABLE`.

Plain Python: importable by anything, with or without grpc.
"""

from __future__ import annotations

from enum import StrEnum

#: The ``domain`` of every ``ErrorInfo``.
DOMAIN = "tongiaki.v1"


class Reason(StrEnum):
    """Reason codes: part of the public API, never renamed."""

    # The rules' reasons (the engine's, ``engine.Reason``).

    #: The action is well formed but not among the options of the pending decision.
    ILLEGAL_ACTION = "ILLEGAL_ACTION"
    #: The action came from a player whose decision it is not.
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    #: The game is over; no decision is pending.
    GAME_OVER = "GAME_OVER"
    #: The action is not an action at all (wrong shape, types, keys or values).
    MALFORMED_ACTION = "MALFORMED_ACTION"
    #: The player named is not a seat of this game.
    UNKNOWN_PLAYER = "UNKNOWN_PLAYER"
    #: A game record (or the seats and stack of a new game) is not valid.
    INVALID_RECORD = "INVALID_RECORD"

    # The server's reasons.

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
    #: A game of bots only drew no tile for ``BotConfig.stall_rounds`` rounds, so
    #: the server stopped it (its ``game_stopped`` entry names this code and the
    #: rounds): it is finished, with no results, and refuses every action and
    #: take-back with this code (``rounds`` says how many rounds went by).
    GAME_STALLED = "GAME_STALLED"


#: The gRPC status code (by name, ``grpc.StatusCode.<name>``) of each reason.
STATUS: dict[Reason, str] = {
    Reason.INVALID_REQUEST: "INVALID_ARGUMENT",
    Reason.GAME_NOT_FOUND: "NOT_FOUND",
    Reason.TOKEN_MISSING: "UNAUTHENTICATED",
    Reason.TOKEN_INVALID: "UNAUTHENTICATED",
    Reason.TOKEN_WRONG_GAME: "PERMISSION_DENIED",
    Reason.SEAT_TAKEN: "FAILED_PRECONDITION",
    Reason.NO_SUCH_SEAT: "INVALID_ARGUMENT",
    Reason.GAME_FULL: "FAILED_PRECONDITION",
    Reason.GAME_NOT_STARTED: "FAILED_PRECONDITION",
    Reason.GAME_ALREADY_STARTED: "FAILED_PRECONDITION",
    Reason.SEATS_OPEN: "FAILED_PRECONDITION",
    Reason.GAME_NOT_FINISHED: "FAILED_PRECONDITION",
    Reason.STALE_SEQUENCE: "ABORTED",
    Reason.GAME_STALLED: "FAILED_PRECONDITION",
    Reason.SEQUENCE_OUT_OF_RANGE: "INVALID_ARGUMENT",
    Reason.WATCH_LAGGING: "ABORTED",
    Reason.SHUTTING_DOWN: "UNAVAILABLE",
    Reason.GAME_MOVED: "UNAVAILABLE",
    Reason.NODE_UNAVAILABLE: "UNAVAILABLE",
    Reason.OUTCOME_UNKNOWN: "UNAVAILABLE",
    Reason.REQUEST_TOO_LARGE: "INVALID_ARGUMENT",
    Reason.AUTHORIZATION_REPEATED: "INVALID_ARGUMENT",
    Reason.RATE_LIMITED: "RESOURCE_EXHAUSTED",
    Reason.TOO_MANY_WATCHES: "RESOURCE_EXHAUSTED",
    Reason.INTERNAL_ERROR: "INTERNAL",
    Reason.TAKE_BACK_NOT_LAST: "FAILED_PRECONDITION",
    Reason.TAKE_BACK_NOT_YOURS: "FAILED_PRECONDITION",
    Reason.TAKE_BACK_AFTER_DRAW: "FAILED_PRECONDITION",
    Reason.WEBHOOK_NOT_ALLOWED: "PERMISSION_DENIED",
    Reason.UNKNOWN_PHRASE: "INVALID_ARGUMENT",
    Reason.MESSAGE_LIMIT: "RESOURCE_EXHAUSTED",
    Reason.MALFORMED_ACTION: "INVALID_ARGUMENT",
    Reason.ILLEGAL_ACTION: "FAILED_PRECONDITION",
    Reason.NOT_YOUR_TURN: "FAILED_PRECONDITION",
    Reason.GAME_OVER: "FAILED_PRECONDITION",
    Reason.UNKNOWN_PLAYER: "PERMISSION_DENIED",
    Reason.INVALID_RECORD: "INVALID_ARGUMENT",
}

#: Reasons whose call was not applied (or is safe to send again with the same
#: request id) and may succeed on another try or another node: retry these,
#: after a short wait, and no others.
RETRYABLE: frozenset[Reason] = frozenset(
    r for r, status in STATUS.items() if status == "UNAVAILABLE"
)
