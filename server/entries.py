"""A game's log as typed entries, and their stored form (kind and JSON body).

The log is the game: replaying its entries in order rebuilds every game, on any
node. What is stored is ``(kind, body)``; the rest of the server speaks these
types.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Joined:
    """A person took a seat (the token's hash is kept, never the token)."""

    colour: str
    token: str
    name: str


@dataclass(frozen=True)
class Left:
    """The person holding a seat gave it up."""

    colour: str


@dataclass(frozen=True)
class TakenOver:
    """A bot took a seat over (``reason``: left, timed_out, turn_too_long)."""

    colour: str
    level: str
    reason: str


@dataclass(frozen=True)
class Started:
    """The game started: the engine's game exists from here on."""


@dataclass(frozen=True)
class Acted:
    """A seat's action was applied (``request``: the client's request id; bots send none)."""

    player: str
    action: Any
    request: str


LogEntry = Joined | Left | TakenOver | Started | Acted

#: Stored kind -> entry type.
KINDS: dict[str, type[LogEntry]] = {
    "joined": Joined,
    "left": Left,
    "takeover": TakenOver,
    "started": Started,
    "action": Acted,
}
_KIND_OF: dict[type[LogEntry], str] = {v: k for k, v in KINDS.items()}


def stored(entry: LogEntry) -> tuple[str, dict[str, Any]]:
    """The kind and JSON body an entry is stored as."""
    return _KIND_OF[type(entry)], asdict(entry)


def parse(kind: str, body: dict[str, Any]) -> LogEntry:
    """The entry a stored kind and body hold."""
    try:
        return KINDS[kind](**body)
    except (KeyError, TypeError):
        raise ValueError(f"not a log entry: {kind!r} {body!r}") from None
