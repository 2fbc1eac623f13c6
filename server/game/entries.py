"""A game's log as typed entries, and their stored form (kind and JSON body).

The log is the game: replaying its entries in order rebuilds every game, on any
node. What is stored is ``(kind, body)``; the rest of the server speaks these
types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Joined:
    """A person took a seat (the token's hash is kept, never the token).

    A join sent with a request id keeps what its retries need, none of it the id
    or the token: ``request``, the id's digest; ``asked``, the digest of what was
    asked for (colour, name); ``sealed``, the token hidden under a key only the
    id gives (see server.game.seats). Never in a watch frame.
    """

    colour: str
    token: str
    name: str
    request: str = ""
    asked: str = ""
    sealed: str = ""


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
    """The game started: the engine's game exists from here on (``player``: the
    seat that started it and ``request`` its request id, if it sent one)."""

    player: str = ""
    request: str = ""


@dataclass(frozen=True)
class Acted:
    """A seat's action was applied (``request``: the client's request id; bots send none)."""

    player: str
    action: Any
    request: str


@dataclass(frozen=True)
class TakenBack:
    """A seat took back its own last decision (``taken_back``: that entry's sequence)."""

    player: str
    taken_back: int
    request: str


@dataclass(frozen=True)
class Said:
    """A seat sent a quick message (``phrase``: one of :data:`PHRASES`); the game is unchanged."""

    player: str
    phrase: str
    request: str


@dataclass(frozen=True)
class Rematched:
    """A player of the finished game proposed its rematch, game ``rematch`` (its id)."""

    player: str
    rematch: str


@dataclass(frozen=True)
class Stopped:
    """The server stopped the game before the rules ended it: it had stopped progressing.

    ``reason`` is the contract's reason code (``GAME_STALLED``: a game of bots
    only drew no tile for ``rounds`` rounds in a row). The game is finished from
    here on, with no results; actions on it are refused with ``reason``.
    """

    reason: str
    rounds: int


LogEntry = Joined | Left | TakenOver | Started | Acted | TakenBack | Said | Rematched | Stopped

#: Entries that change nothing in the game: an action chosen before them is still current.
ASIDES = (Said, Rematched)

#: The phrases of quick messages, as stored (the proto's ``Phrase`` without its prefix).
PHRASES = ("good_luck", "good_game", "well_played", "thinking", "your_turn", "oops", "thanks")

#: Stored kind -> entry type.
KINDS: dict[str, type[LogEntry]] = {
    "joined": Joined,
    "left": Left,
    "takeover": TakenOver,
    "started": Started,
    "action": Acted,
    "taken_back": TakenBack,
    "said": Said,
    "rematch": Rematched,
    "stopped": Stopped,
}
_KIND_OF: dict[type[LogEntry], str] = {v: k for k, v in KINDS.items()}


#: Fields left out of a stored body when empty (a join or start without request id
#: is stored as before they existed).
_OPTIONAL = frozenset({"request", "asked", "sealed", "player"})
_WITH_OPTIONAL = (Joined, Started)


def stored(entry: LogEntry) -> tuple[str, dict[str, Any]]:
    """The kind and JSON body an entry is stored as (its fields; values not copied)."""
    body = dict(vars(entry))
    if isinstance(entry, _WITH_OPTIONAL):
        body = {k: v for k, v in body.items() if v != "" or k not in _OPTIONAL}
    return _KIND_OF[type(entry)], body


def parse(kind: str, body: dict[str, Any]) -> LogEntry:
    """The entry a stored kind and body hold (an action's value shared, see :func:`shared`)."""
    try:
        entry = KINDS[kind](**body)
    except (KeyError, TypeError):
        raise ValueError(f"not a log entry: {kind!r} {body!r}") from None
    if isinstance(entry, Acted):
        return Acted(entry.player, shared(entry.action), entry.request)
    return entry


#: Actions by their text: one object for equal actions of every game in memory. (An
#: action's keys come in one order, the engine's, whether built or read back.)
_ACTIONS: dict[str, Any] = {}
_ACTIONS_MAX = 200_000


def shared(action: Any) -> Any:
    """The one object for actions equal to ``action`` (never to be changed).

    Games repeat each other's actions (in random 4-seat games, about one action
    in nine is one no earlier game made), and a game in memory keeps every
    action it applied, so sharing them saves most of that memory.
    """
    key = repr(action)
    found = _ACTIONS.get(key)
    if found is None:
        if len(_ACTIONS) >= _ACTIONS_MAX:
            _ACTIONS.clear()
        _ACTIONS[key] = found = action
    return found
