"""Errors with stable reason codes.

Callers branch on ``reason`` and read ``metadata``; the message is English for
developers and never meant to be parsed or shown to players as it is.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Reason(StrEnum):
    """Stable reason codes: part of the public API, never renamed."""

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


class EngineError(Exception):
    """Base class of every error the engine raises on bad input."""

    reason: Reason

    def __init__(self, reason: Reason, message: str, **metadata: Any) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.metadata: dict[str, Any] = metadata

    def to_dict(self) -> dict[str, Any]:
        """The error as data: reason, message and metadata."""
        return {"reason": str(self.reason), "message": self.message, "metadata": self.metadata}


class ActionError(EngineError):
    """An action was refused; the game is unchanged."""


class RecordError(EngineError):
    """A record, or the set-up of a new game, is not valid."""

    def __init__(self, message: str, **metadata: Any) -> None:
        super().__init__(Reason.INVALID_RECORD, message, **metadata)
