"""What a seat knows, and games sampled from it.

A bot never sees the stack order. It sees the seats, every action so far, the
tiles drawn so far in the order they came out (each was revealed by a
``tile_placed`` event) and therefore the tiles still in the stack, as a set.
:class:`PublicRecord` holds exactly that; :meth:`PublicRecord.sample` turns it
into a complete :class:`~engine.Game` whose future stack is a random order of
the tiles left, for a bot to search on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import STACK_TILES, Action, Game
from engine.playout import SplitMix64


@dataclass(frozen=True)
class PublicRecord:
    """The public history of a game as one seat sees it.

    ``drawn`` lists the tiles drawn so far, in order; the tiles left in the
    stack are the others (a tile removed by R11 was drawn first, so it is in
    ``drawn``). ``viewer`` is the seat the record is for.
    """

    seats: tuple[str, ...]
    actions: tuple[Action, ...]
    drawn: tuple[str, ...]
    viewer: str
    _base: Game = field(init=False, repr=False, compare=False)
    _quiet: int = field(init=False, repr=False, compare=False)
    _seen: frozenset[tuple[object, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.viewer not in self.seats:
            raise ValueError(f"{self.viewer!r} has no seat in this game")
        left = Counter(STACK_TILES)
        left.subtract(self.drawn)
        if any(n not in (0, 1) for n in left.values()) or len(self.drawn) > len(STACK_TILES):
            raise ValueError("drawn tiles must be distinct stack tiles")
        # Any order of the tiles left gives the same past; the sorted one is used
        # so that this object never holds an order nobody may know.
        stack = [*self.drawn, *sorted(t for t, n in left.items() if n)]
        base = Game.new(list(self.seats), stack)
        # Replayed as Game.from_record(checked=False) would, noting the turns
        # since the last tile was drawn and the positions they began in.
        tiles_left = sum(base.stack_counts.values())
        quiet = 0
        seen: set[tuple[object, ...]] = set()
        for action in self.actions:
            base.apply_unchecked(action)
            left_now = sum(base.stack_counts.values())
            if left_now != tiles_left:
                tiles_left, quiet = left_now, 0
                seen.clear()
            if base.decision_kind == "turn":
                quiet += 1
                seen.add(base.position())
        object.__setattr__(self, "_base", base)
        object.__setattr__(self, "_quiet", quiet)
        object.__setattr__(self, "_seen", frozenset(seen))

    @classmethod
    def from_game(cls, game: Game, viewer: str) -> PublicRecord:
        """What ``viewer`` knows of ``game``: the drawn tiles in order, never the rest's order."""
        drawn = len(STACK_TILES) - len(game.stack_remaining)
        return cls(
            seats=tuple(game.seats),
            actions=tuple(game.actions),
            drawn=tuple(game.initial_stack[:drawn]),
            viewer=viewer,
        )

    @classmethod
    def from_view(
        cls, view: dict[str, object], actions: Sequence[Action], drawn: Sequence[str]
    ) -> PublicRecord:
        """Build the record from a seat's view (``game.view(colour)``) and the public log.

        ``actions`` are the accepted actions so far and ``drawn`` the tiles of
        every ``tile_placed`` event so far, in order; the view must agree.
        """
        seats = view["seats"]
        viewer = view["viewer"]
        if not isinstance(seats, list) or not isinstance(viewer, str):
            raise ValueError("a seat's view names its seats and viewer")
        record = cls(tuple(seats), tuple(actions), tuple(drawn), viewer)
        if view.get("stack_tiles") != record.stack_tiles:
            raise ValueError("the drawn tiles do not match the view's stack")
        return record

    @property
    def stack_tiles(self) -> list[str]:
        """The tiles still in the stack, sorted (public, unlike their order)."""
        return self._base.stack_remaining

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self._base.over

    @property
    def to_move(self) -> str | None:
        """Whose decision is pending (None once the game is over)."""
        return None if self._base.over else self._base.active_player

    @property
    def kind(self) -> str | None:
        """The kind of the pending decision."""
        return self._base.decision_kind

    @property
    def quiet_turns(self) -> int:
        """Turns begun since a tile was last drawn (the pending one included, if a turn)."""
        return self._quiet

    def seen(self, position: tuple[object, ...]) -> bool:
        """Whether a turn began in ``position`` (:meth:`Game.position`) since the last draw."""
        return position in self._seen

    def options(self) -> tuple[Action, ...]:
        """The options of the pending decision (they never depend on the stack order)."""
        return self._base.options()

    def with_rest(self, rest: Sequence[str]) -> Game:
        """A game with this past whose stack from now on is ``rest`` (top first)."""
        return with_stack(self._base, rest)

    def sample(self, rng: SplitMix64) -> Game:
        """A game with this past and the tiles left in an order drawn from ``rng``."""
        return with_stack(self._base, rng.shuffled(self._base.stack_remaining))


def with_stack(game: Game, rest: Sequence[str]) -> Game:
    """A copy of ``game`` whose stack, from now on, is ``rest`` (top first).

    ``rest`` must hold exactly the tiles still in ``game``'s stack. The copy is
    the game :meth:`Game.from_record` would replay from the drawn tiles followed
    by ``rest`` (``tests/bots`` checks this), without replaying every action.
    """
    if sorted(rest) != game.stack_remaining:
        raise ValueError("rest must hold exactly the tiles still in the stack")
    other = game.copy()
    drawn = len(game.initial_stack) - len(rest)
    other.initial_stack = (*game.initial_stack[:drawn], *rest)
    other._draw_pile = list(reversed(rest))
    return other
