"""What a game needs from above it, declared here and given to it by the wiring.

The game neither encodes the contract's messages nor plays its own seats: the
gRPC edge's codec (``server.rpc.codec``) encodes each entry once for every
watcher, and ``server.play`` runs the bots, the turn clock and the turn
webhooks. The game calls them through these interfaces, so its imports point
down only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engine import Game
from server.game.entries import LogEntry
from server.storage.base import Stored

if TYPE_CHECKING:
    from server.game.authority import Authority


class Codec(Protocol):
    """The wire encoding of what a game publishes (``server.rpc.codec`` is one)."""

    def frame(
        self,
        sequence: int,
        entry: LogEntry,
        *,
        view: Mapping[str, Any] | None = None,
        events: Sequence[Mapping[str, Any]] = (),
        decision: Mapping[str, Any] | None = None,
    ) -> bytes:
        """The encoded watch message holding one log entry."""
        ...

    def reply_of(self, frame: bytes) -> bytes:
        """The answer to a change, holding the entry of ``frame``."""
        ...

    def caught_up(self, sequence: int) -> bytes:
        """The first message of a watch resumed at the current sequence."""
        ...

    def watch_snapshot(self, game: Stored, view: Mapping[str, Any] | None) -> bytes:
        """A watch message holding a snapshot of the game."""
        ...

    def board_field(self, game: Stored, view: Mapping[str, Any] | None) -> bytes:
        """The game right after an entry, as a field of a watch message."""
        ...


class SelfPlay(Protocol):
    """A game acting by itself on its owner: bots on seats, the turn clock."""

    bot_moves: int
    bot_refusals: int
    #: Bot decisions that answered a position as before (it was taken back since).
    bot_repeats: int
    #: Set once the bots of a game that stopped progressing were stopped.
    stalled: bool

    @property
    def busy(self) -> bool:
        """Whether a bot is thinking (or will try again), or a clock is running."""
        ...

    def after_change(self) -> None:
        """Let a bot move, or run the turn clock of a person's seat."""
        ...

    def stop(self) -> None:
        """Stop the bots and the clock."""
        ...


class Notices(Protocol):
    """Turn notices to the game's webhook."""

    def turn(self, game: Game | None) -> str | None:
        """Who decides in ``game`` now."""
        ...

    def changed(
        self,
        before: str | None,
        *,
        name: str,
        settings: Mapping[str, Any],
        sequence: int,
        game: Game | None,
        bots: Mapping[str, str],
    ) -> None:
        """After a change: send a notice if the decider changed or the game ended."""
        ...


@dataclass(frozen=True)
class Hooks:
    """The encoding a game publishes in, and what acts in it by itself."""

    codec: Codec
    #: Makes the bots and clock of a game (None: nothing acts by itself).
    self_play: Callable[[Authority], SelfPlay] | None = None
    #: Sends turn notices to games that ask for them.
    notices: Notices | None = None
