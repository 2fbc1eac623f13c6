"""What the server asks of its store, and the records that cross it.

A game is a set-up row (seats, the secret stack, settings) plus a log of
entries ``(sequence, kind, body)``, and a summary that lists and restarts read
without replaying the log: its state, open seats, who sits where, its final
figures, and when the server must act on it by itself (a bot's move, a turn
clock). The summary is written in the same transaction as the entry it
follows, so the two never disagree.

Every implementation keeps the same promise: ``append`` completes only after
its transaction committed, and refuses an entry that does not directly follow
the last one (and, where several nodes share a store, one from a node that no
longer owns the game).
"""

from __future__ import annotations

import abc
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

#: Game states as stored (the summary's ``state``).
OPEN, ACTIVE, FINISHED = "open", "active", "finished"
STATES = (OPEN, ACTIVE, FINISHED)

#: Largest page of ``Store.page`` and ``Store.entries``.
MAX_PAGE = 2000

#: Seconds a CreateGame request id is remembered (clients resend a change of
#: unknown outcome for 30 s, each call with a 10 s deadline).
CREATE_REQUEST_SECONDS = 300.0


#: One encoder for every body (json.dumps with options would build one per call).
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """Compact JSON for stored bodies."""
    return _ENCODER.encode(value)


@dataclass(frozen=True)
class Setup:
    """A game as created: never changes afterwards."""

    id: str
    ordinal: int
    seats: list[str]
    stack: list[str]
    settings: dict[str, Any]
    created: float


@dataclass
class Summary:
    """A game's state for lists and restarts, kept beside its log."""

    state: str = OPEN
    #: The sequence of the last entry.
    sequence: int = 0
    #: Per seat, in seat order: ``colour``, ``name``, ``occupied``, ``bot``, ``takeover``.
    seats: list[dict[str, Any]] = field(default_factory=list)
    #: The engine's result once the game is over (points, islands, ships, rank).
    result: dict[str, Any] | None = None
    #: When the server must act on the game by itself (seconds since the epoch):
    #: a bot's decision is due now, a turn clock runs out then. None: nothing to do.
    attention: float | None = None
    #: Whether the state, seats or result may differ from the last summary written
    #: (False: only ``sequence`` and ``attention`` moved, a store may write just those).
    changed: bool = True
    #: Whether ``attention`` may differ from the last summary written (False: a
    #: store that can tell a game's last sequence from its log may write no summary).
    attention_changed: bool = True
    #: The id of a finished game's rematch, once proposed (kept in the log, as
    #: its ``rematch`` entry; stores do not write it to the summary's row).
    rematch: str | None = None
    #: Why the server stopped the game before its end, once it did (its ``stopped``
    #: entry's body: ``reason`` and ``rounds``); such a finished game has no
    #: ``result``. Stores keep it in the result's column (:func:`result_text`).
    stopped: dict[str, Any] | None = None

    @property
    def open_seats(self) -> int:
        """Seats nobody holds."""
        return sum(1 for seat in self.seats if not seat["occupied"])

    @property
    def people(self) -> int:
        """Seats a person holds."""
        return sum(1 for seat in self.seats if seat["occupied"] and not seat["bot"])


def result_text(summary: Summary) -> str | None:
    """What a store writes in a summary's result column: the engine's result, or
    ``{"stopped": …}`` for a game the server stopped (which has no result)."""
    if summary.stopped is not None:
        return dumps({"stopped": summary.stopped})
    return None if summary.result is None else dumps(summary.result)


def parse_result(text: str | None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The result and the stop a result column holds (see :func:`result_text`)."""
    if text is None:
        return None, None
    value = json.loads(text)
    if "stopped" in value:
        return None, value["stopped"]
    return value, None


@dataclass(frozen=True)
class Entry:
    """One log entry as stored."""

    sequence: int
    kind: str
    body: dict[str, Any]
    #: Its watch frame as the owner encoded it (stores that keep frames; else None).
    frame: bytes | None = None


@dataclass(frozen=True)
class Requested:
    """The request id of a CreateGame, written with the game it made: ``key``, the
    id's digest (the id itself is never kept), and ``asked``, the digest of the
    request. Kept :data:`CREATE_REQUEST_SECONDS`, one row per game created: no
    more of them than of new games, whose rate is limited per client."""

    key: str
    asked: str


@dataclass(frozen=True)
class Tokens:
    """Seat-token changes an entry makes (hashes only): added and removed."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Stored:
    """A game read back: its set-up, summary and (when asked for) its log."""

    setup: Setup
    summary: Summary
    entries: list[Entry] = field(default_factory=list)
    #: The owner's epoch when the game was read (stores with owners; else 0).
    epoch: int = 0


class Conflict(Exception):
    """An append that the store refused: not the next entry, or not the owner's."""

    def __init__(self, game: str, sequence: int, why: str) -> None:
        super().__init__(f"{game}: entry {sequence} refused ({why})")
        self.game = game
        self.sequence = sequence
        self.why = why


class OutcomeUnknown(Exception):
    """A write whose commit may or may not have happened: the connection broke
    after it was sent. A retry with the same request id finds it if it was."""


class Unavailable(Exception):
    """The store cannot be reached now (nothing was written); retry shortly."""


class LeaseLapsed(Exception):
    """This node's lease is not known to run: it neither writes nor takes games."""


#: Called with (game id, sequence) when another node appended to a game
#: (("", 0): anything may have been missed, read every followed game again).
Listener = Callable[[str, int], None]


@dataclass(frozen=True)
class Owner:
    """Who owns a game: this node (with its epoch) or another (with its address)."""

    epoch: int = 0
    address: str | None = None
    #: The owning node's id (another node's; "" if not known).
    node: str = ""

    @property
    def mine(self) -> bool:
        """Whether this node now owns the game."""
        return self.address is None


class Store(abc.ABC):
    """The durable home of every game."""

    #: Commits and writes so far (figures for logs and benchmarks).
    commits: int = 0
    writes: int = 0
    #: Whether several nodes may share this store (then games have owners).
    shared: bool = False
    #: Whether appends carry each entry's frame, and reads give it back (so a
    #: node that follows a game relays frames instead of encoding them again).
    keeps_frames: bool = False

    def problems(self) -> list[str]:
        """Why this node cannot serve its games now (empty: it can)."""
        return []

    def lease_valid(self) -> bool:
        """Whether this node may write and take games now (its lease runs)."""
        return True

    #: This node's id among the nodes sharing the store ("": the store is not shared).
    node: str = ""

    async def holders(self, address: str) -> list[str]:
        """The other live nodes registered at ``address``."""
        return []

    async def cluster_secret(self) -> bytes:
        """The secret the nodes sharing this store vouch for forwarded callers with."""
        return b""

    async def alive(self, node: str) -> bool:
        """Whether ``node``'s lease runs (always, for a store no other node shares)."""
        return True

    async def retire(self, nodes: list[str]) -> None:  # noqa: B027 - shared stores only
        """End the leases of ``nodes``."""

    def refuse(self, why: str | None) -> None:  # noqa: B027 - shared stores only
        """Own no game while ``why`` holds (None: own games again)."""

    #: Times this node's lease ran out (a node that lost its lease lost its games).
    lapses: int = 0

    @property
    @abc.abstractmethod
    def description(self) -> str:
        """What the store is, for the start-up log (no secrets)."""

    @abc.abstractmethod
    async def start(self) -> None:
        """Open connections and start writing (on the running event loop)."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """Commit what is queued and close."""

    @abc.abstractmethod
    async def next_ordinal(self) -> int:
        """A new game's place in the creation order."""

    @abc.abstractmethod
    def create(
        self, setup: Setup, summary: Summary, requested: Requested | None = None
    ) -> Awaitable[None]:
        """Write a new game; completes once committed.

        With ``requested``, its request id is written in the same transaction
        (at ``setup.created``); if a game was made with the same key less than
        :data:`CREATE_REQUEST_SECONDS` before, nothing is written and
        :class:`Conflict` is raised (look it up with :meth:`created_by`).
        """

    @abc.abstractmethod
    async def created_by(self, key: str, since: float) -> tuple[str, str] | None:
        """The game a CreateGame with request key ``key`` made at ``since`` or later,
        and the digest of that request (None: none)."""

    @abc.abstractmethod
    async def forget_requests(self, before: float) -> int:
        """Delete the CreateGame request ids written before ``before``; returns how many."""

    @abc.abstractmethod
    def append(
        self, game: str, entry: Entry, summary: Summary, tokens: Tokens, epoch: int
    ) -> Awaitable[None]:
        """Write ``entry`` and the game's new summary; completes once committed.

        Raises :class:`Conflict` if ``entry`` does not follow the last one or
        ``epoch`` is no longer the game's owner epoch.
        """

    @abc.abstractmethod
    async def load(self, game: str, *, entries: bool = True) -> Stored | None:
        """The game with its whole log (or without), None if there is none."""

    @abc.abstractmethod
    async def entries(self, game: str, after: int, limit: int) -> list[Entry]:
        """Up to ``limit`` entries after sequence ``after``, in order."""

    async def entries_after(self, after: dict[str, int], limit: int) -> dict[str, list[Entry]]:
        """For each game of ``after``, up to ``limit`` entries after its sequence there."""
        return {game: await self.entries(game, seq, limit) for game, seq in after.items()}

    @abc.abstractmethod
    async def page(
        self, after_ordinal: int, limit: int, state: str | None, open_seats: bool
    ) -> list[Stored]:
        """Games after ``after_ordinal`` in creation order (without their logs)."""

    @abc.abstractmethod
    async def due(self, limit: int) -> list[str]:
        """Running games the server must act on by itself (bots, clocks), soonest first."""

    @abc.abstractmethod
    async def token_game(self, token_hash: str) -> str | None:
        """The game a seat token belongs to."""

    @abc.abstractmethod
    async def expire(self, created_before: float, limit: int) -> list[str]:
        """Delete open games created before then that no person holds a seat of."""

    def listen(self, listener: Listener) -> None:  # noqa: B027 - optional for one-node stores
        """Be told of entries other nodes append (stores shared by several nodes)."""

    async def acquire(self, game: str) -> Owner | None:
        """Own ``game`` if it has no living owner, else who does; None: no such game.

        A store that only one node writes makes that node the owner of everything.
        """
        return Owner(epoch=1)

    async def release(self, game: str, epoch: int) -> None:  # noqa: B027 - shared stores only
        """Give up owning ``game`` (it is idle here)."""

    async def orphans(self, limit: int) -> list[str]:
        """Games that need a server by themselves and have no living owner."""
        return []

    async def unowned(self, games: list[str]) -> list[str]:
        """Those of ``games`` not finished whose owner is gone (none, unshared)."""
        return []
