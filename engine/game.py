"""The game of Tongiaki as a state machine (R1-R14).

A :class:`Game` always waits for exactly one decision of one player, or is
over. Its options are enumerable and sorted as ``CONFORMANCE.md`` writes them;
:meth:`Game.apply` accepts exactly one of them and returns what happened as
events. Chance is an input: the stack order is given when the game is created
and the engine never shuffles.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import combinations
from operator import eq, itemgetter, sub
from typing import Any, TypeVar

from .actions import validate
from .cycles import Position, QuietGraph, gentle_landing, landing_plan, landings, pack, unpack
from .errors import ActionError, Reason, RecordError
from .landing import Colours
from .tiles import (
    COLOURS,
    DIRECTIONS,
    SHIPS_PER_COLOUR,
    STACK_TILES,
    START_ISLAND,
    TILES,
    Hex,
    Tile,
    neighbour,
    opposite,
)

Action = dict[str, Any]
Event = dict[str, Any]
Json = Any
#: An option with its canonical JSON, the key it is sorted and matched by.
Keyed = tuple[str, Action]
T = TypeVar("T")
#: The canonical JSON of a keyed option, which options are sorted by.
_first = itemgetter(0)

SETUP = "setup"
TURN = "turn"
EMIGRATE = "emigrate"
LAND = "land"
PLACE = "place"
SETTLE_SHIP = "settle_ship"

#: Every kind of decision (R14, CONFORMANCE.md "Decisions").
DECISION_KINDS: tuple[str, ...] = (SETUP, TURN, EMIGRATE, LAND, PLACE, SETTLE_SHIP)


def canonical(value: Json) -> str:
    """The canonical JSON text of ``value`` (sorted keys, no spaces)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Decision:
    """The pending decision: who decides, what kind, the context and the options."""

    kind: str
    player: str
    options: tuple[Action, ...]
    context: dict[str, Json] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Json]:
        """The decision as CONFORMANCE.md writes it."""
        return {
            "kind": self.kind,
            "player": self.player,
            "options": list(self.options),
            **self.context,
        }


def _hex(value: Sequence[int]) -> list[int]:
    return [value[0], value[1]]


def _returned(colours: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for colour in colours:
        counts[colour] = counts.get(colour, 0) + 1
    return dict(sorted(counts.items()))


class Game:
    """One game of Tongiaki, from set-up to the final ranking.

    Create it with :meth:`new` (seats and stack order) or :meth:`from_record`.
    Read :attr:`decision`, answer with :meth:`apply`; every call returns the
    events of what happened. Nothing but :meth:`apply` and its fast paths
    changes a game.
    """

    # ------------------------------------------------------------------ set-up

    def __init__(self, seats: Sequence[str], stack: Sequence[str]) -> None:
        self._check_setup(seats, stack)
        self.seats: tuple[str, ...] = tuple(seats)
        self.initial_stack: tuple[str, ...] = tuple(stack)
        self.actions: list[Action] = []
        self._draw_pile: list[str] = list(reversed(stack))
        self._islands_left = sum(1 for t in stack if TILES[t].is_island)
        self._seas_left = len(stack) - self._islands_left
        self._tiles: dict[Hex, tuple[Tile, int]] = {}
        self._ships: dict[Hex, tuple[Colours, ...]] = {}
        self._royal: dict[Hex, str] = {}
        self._founded = dict.fromkeys(self.seats, 0)
        self._removed: list[str] = []
        self._supply = dict.fromkeys(self.seats, SHIPS_PER_COLOUR)
        self._at_sea: list[str] = []
        self._active = 0
        self._setups = 0
        self._cleared_in_chain = False
        self._events: list[Event] = []
        self._result: dict[str, dict[str, int]] | None = None
        self._graph: QuietGraph | None = None
        #: The last R11 analysis and the tiles placed since (None when tiles were
        #: removed or royal islands changed since): the next one grows out of it.
        self._grown: tuple[QuietGraph, tuple[tuple[Hex, Tile, int], ...]] | None = None
        #: The open ends (R2) as numbers (:func:`_end`) once a place decision asked
        #: (None: not worked out); kept up to date as tiles are placed, forgotten
        #: when tiles are removed.
        self._rim: frozenset[int] | None = None
        #: The open ends' numbers sorted, worked out when asked after the last change.
        self._ends: tuple[int, ...] | None = None
        #: The packed position of the ships on ``_graph`` (None: not worked out yet).
        self._position: Position | None = None
        #: The full beaches, kept up to date by every change of ships (R7).
        self._full: set[tuple[Hex, int]] = set()
        # The pending decision.
        self._kind: str | None = SETUP
        self._group: Colours = ()
        self._island: Hex = (0, 0)
        self._restricted = False
        self._last = False
        self._why = ""
        self._options: tuple[Action, ...] | None = None
        #: The canonical JSON of each option, and (worked out by :meth:`apply` only)
        #: the option number of each.
        self._keys: tuple[str, ...] = ()
        self._index: dict[str, int] | None = None
        self._place(TILES[START_ISLAND], (0, 0), 0)

    @classmethod
    def new(cls, seats: Sequence[str], stack: Sequence[str]) -> Game:
        """A new game: ``seats`` are colours in seat order, ``stack`` the 31 tiles top first."""
        return cls(seats, stack)

    @classmethod
    def from_record(cls, record: dict[str, Json], *, checked: bool = True) -> Game:
        """Replay a record (``seats``, ``stack``, ``actions``) into a game.

        With ``checked`` every action must be one of the options (raising
        :class:`ActionError` with ``metadata["step"]`` otherwise); without it the
        actions are trusted, as for a log this engine wrote itself.
        """
        if not isinstance(record, dict):
            raise RecordError("a record is a JSON object")
        game = cls(record.get("seats"), record.get("stack"))  # type: ignore[arg-type]
        actions = record.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError("actions must be a list")
        for step, action in enumerate(actions):
            if checked:
                try:
                    game.apply(action)
                except ActionError as error:
                    error.metadata["step"] = step
                    raise
            else:
                game.apply_unchecked(action)
        return game

    def copy(self) -> Game:
        """An independent copy of this game (for searching bots and what-ifs)."""
        other = object.__new__(Game)
        state = self.__dict__.copy()
        # Containers that change in place are copied; the rest are shared: tuples,
        # the R11 graph of the board, the events of the last action, and what
        # changes so rarely (royal islands, islands removed, ships stranded) that
        # it is replaced rather than changed.
        state.update(
            actions=self.actions.copy(),
            _draw_pile=self._draw_pile.copy(),
            _tiles=self._tiles.copy(),
            _ships=self._ships.copy(),
            _supply=self._supply.copy(),
            _full=self._full.copy(),
        )
        other.__dict__ = state
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.copy()

    @staticmethod
    def _check_setup(seats: object, stack: object) -> None:
        if not isinstance(seats, (list, tuple)) or not 2 <= len(seats) <= 6:
            raise RecordError("seats must be a list of 2 to 6 colours", field="seats")
        if any(not isinstance(c, str) or c not in COLOURS for c in seats):
            raise RecordError(f"seats must be colours out of {', '.join(COLOURS)}", field="seats")
        if len(set(seats)) != len(seats):
            raise RecordError("a colour can take only one seat", field="seats")
        if not isinstance(stack, (list, tuple)) or any(not isinstance(t, str) for t in stack):
            raise RecordError("stack must be a list of tile ids", field="stack")
        if sorted(stack) != sorted(STACK_TILES):
            raise RecordError(
                "stack must hold the 31 tiles other than tonga, each once", field="stack"
            )

    # ------------------------------------------------------------------ reading

    @property
    def over(self) -> bool:
        """True once the game has ended (R12)."""
        return self._kind is None

    @property
    def result(self) -> dict[str, dict[str, int]] | None:
        """Points, tie-break figures and ranks (R13), once the game is over."""
        return self._result

    @property
    def active_player(self) -> str:
        """The player whose turn it is (during set-up: who places next)."""
        return self.seats[self._active]

    @property
    def decision_kind(self) -> str | None:
        """The kind of the pending decision (None when over), without enumerating options."""
        return self._kind

    @property
    def decision(self) -> Decision | None:
        """The pending decision, or None when the game is over."""
        if self._kind is None:
            return None
        return Decision(self._kind, self.seats[self._active], self.options(), self._context())

    def options(self) -> tuple[Action, ...]:
        """The options of the pending decision, sorted by their canonical JSON."""
        options = self._options
        if options is None:
            if self._kind is None:
                return ()
            keyed = _LISTS[self._kind](self)
            if keyed:
                keyed.sort(key=_first)
                self._keys, options = zip(*keyed, strict=True)
            else:
                self._keys = options = ()
            self._options = options
        return options

    def _context(self) -> dict[str, Json]:
        if self._kind == LAND:
            return {"island": _hex(self._island), "group": list(self._group)}
        if self._kind == PLACE:
            return {"why": self._why}
        if self._kind == SETTLE_SHIP:
            return {"island": _hex(self._island)}
        return {}

    def position(self) -> tuple[Any, ...]:
        """Where everything stands now and whose decision of what kind is pending, hashable.

        Two moments of one game with equal positions and the same tiles drawn
        have the same options and the same futures. Bots use it to notice a
        game going round in circles without drawing a tile.
        """
        return (
            self._active,
            self._kind,
            len(self._draw_pile),
            len(self._tiles),
            tuple(sorted(self._ships.items())),
            tuple(sorted(self._royal.items())),
            tuple(self._supply.values()),
            tuple(self._founded.values()),
            len(self._at_sea),
        )

    def supply(self, colour: str) -> int:
        """Ships of ``colour`` in supply."""
        return self._supply[colour]

    @property
    def stack_counts(self) -> dict[str, int]:
        """How many island and sea tiles are still in the stack."""
        return {"island": self._islands_left, "sea": self._seas_left}

    @property
    def stack_remaining(self) -> list[str]:
        """The tiles still in the stack, sorted by id: public, unlike their order."""
        return sorted(self._draw_pile)

    def tile_at(self, at: Hex) -> tuple[str, int] | None:
        """The tile id and rotation at ``at``, if a tile lies there."""
        placed = self._tiles.get(at)
        return (placed[0].id, placed[1]) if placed else None

    def beach_ships(self, at: Hex) -> tuple[Colours, ...]:
        """The colours on each beach of the island at ``at`` (empty for other hexes)."""
        return self._ships.get(at, ())

    # ------------------------------------------------------------------ applying

    def apply(self, action: Json, player: str | None = None) -> list[Event]:
        """Apply ``action``, one of the options of the pending decision, and return the events.

        ``player`` is the colour of whoever sends the action; leave it out only
        where the caller has already made sure it is theirs. Raises
        :class:`ActionError` and leaves the game unchanged otherwise.
        """
        if self._kind is None:
            raise ActionError(Reason.GAME_OVER, "the game is over")
        if player is not None:
            if player not in self.seats:
                raise ActionError(
                    Reason.UNKNOWN_PLAYER, f"{player!r} has no seat in this game", player=player
                )
            if player != self.seats[self._active]:
                raise ActionError(
                    Reason.NOT_YOUR_TURN,
                    f"it is {self.seats[self._active]}'s decision",
                    player=player,
                    expected=self.seats[self._active],
                )
        validate(action)
        self.options()
        if self._index is None:  # only the checked path looks options up by their JSON
            self._index = {k: i for i, k in enumerate(self._keys)}
        index = self._index.get(canonical(action))
        if index is None:
            raise ActionError(
                Reason.ILLEGAL_ACTION,
                f"{action.get('act')!r} is not an option of this {self._kind} decision",
                decision=self._kind,
                act=action.get("act"),
            )
        return self._do(self._options[index])  # type: ignore[index]

    def apply_option(self, index: int) -> list[Event]:
        """Apply option number ``index`` of the pending decision (bots and playouts)."""
        options = self._options
        if options is None:
            options = self.options()
        if not 0 <= index < len(options):
            raise ActionError(Reason.ILLEGAL_ACTION, f"there is no option {index}", index=index)
        return self._do(options[index])

    def apply_unchecked(self, action: Action) -> list[Event]:
        """Apply an action known to be legal, e.g. from a log this engine checked before.

        Skips enumerating the options. Anything else is undefined: use
        :meth:`apply` for actions from outside.
        """
        return self._do(action)

    def apply_random(self, below: Callable[[int], int]) -> list[Event]:
        """Apply an option drawn uniformly at random from the pending decision's options.

        ``below(n)`` must return a uniform integer in ``range(n)``; it is the
        only source of chance. The result is distributed exactly as
        ``apply_option(below(len(options())))`` but is much cheaper: only the
        chosen option is built, and where R11.1 restricts the choices only the
        candidates drawn are checked (candidates are drawn without replacement
        until one is allowed, which leaves every allowed option equally likely).
        For playouts and random players; the sequence of draws differs from
        the one of ``apply_option``.
        """
        kind = self._kind
        if kind is None:
            raise ActionError(Reason.GAME_OVER, "the game is over")
        if kind == TURN:
            action = self._random_turn_option(below)
        elif kind == EMIGRATE:
            action = self._random_emigration(below)
        elif kind == LAND:
            action = self._random_landing(below)
        elif kind == PLACE:
            (q, r), d = _side(_draw_one(self._end_numbers(), below))
            action = {"act": "place", "dir": d, "from": [q, r]}
        elif kind == SETTLE_SHIP:
            q, r = self._island
            b = below(len(self._ships[self._island]))
            action = {"act": "settle_ship", "beach": [q, r, b]}
        else:
            beaches = [b for b, s in enumerate(self._ships[(0, 0)]) if len(s) <= 1]
            action = {"act": "setup", "beach": [0, 0, _draw_one(beaches, below)]}
        return self._do(action)

    def _do(self, action: Action) -> list[Event]:
        self.actions.append(action)
        self._events = []
        self._options = None
        self._index = None
        _ACTS[action["act"]](self, action)
        return self._events

    # ------------------------------------------------------------------ board

    def _place(self, tile: Tile, at: Hex, rot: int) -> None:
        tiles = self._tiles
        tiles[at] = (tile, rot)
        if tile.is_island:
            self._set_ships(at, _EMPTY[len(tile.beaches)])
        # The R11 analysis is out of date; the next one grows out of the last.
        if self._graph is not None:
            self._grown = (self._graph, ((at, tile, rot),))
        elif self._grown is not None:
            self._grown = (self._grown[0], (*self._grown[1], (at, tile, rot)))
        self._graph = None
        self._position = None
        rim = self._rim
        if rim is not None:
            # The sides facing ``at`` close; the new tile's own open sides open.
            q, r = at
            side = _end(q, r, 0)
            self._rim = (rim - _facing(q, r)).union(
                [
                    side + d
                    for d in _FACES[tile.id, rot]
                    if (q + DIRECTIONS[d][0], r + DIRECTIONS[d][1]) not in tiles
                ]
            )
            self._ends = None

    def _board_changed(self) -> None:
        """Tiles were removed or royal islands changed: the R11 analysis is out of date."""
        self._graph = None
        self._position = None
        self._grown = None

    def _set_ships(self, at: Hex, ships: tuple[Colours, ...]) -> None:
        """Every change of the ships on an island goes through here."""
        self._ships[at] = ships
        if self._position is not None:
            # The graph is there whenever the position is; only this island's beaches change.
            self._position = self._graph.moved(self._position, at, ships)  # type: ignore[union-attr]
        moorings = self._tiles[at][0].moorings
        full = self._full
        if full:
            for side in [f for f in full if f[0] == at]:
                full.discard(side)
        if any(map(eq, map(len, ships), moorings)):
            for b, colours in enumerate(ships):
                if len(colours) == moorings[b]:
                    full.add((at, b))

    def _draw(self, at: Hex, rot: int, why: str) -> Tile:
        """Draw the top tile and place it at ``at`` (R2); the caller checks R12."""
        tile = TILES[self._draw_pile.pop()]
        if tile.is_island:
            self._islands_left -= 1
        else:
            self._seas_left -= 1
        self._place(tile, at, rot)
        self._events.append(
            {
                "kind": "tile_placed",
                "tile": tile.id,
                "at": [at[0], at[1]],
                "rot": rot,
                "why": why,
                "stack": {"island": self._islands_left, "sea": self._seas_left},
            }
        )
        return tile

    def _stack_exhausted(self) -> bool:
        """R12: the stack holds no island tile or no sea tile."""
        return self._islands_left == 0 or self._seas_left == 0

    def _add_ship(self, beach: Sequence[int], colour: str) -> None:
        self._add_ships((beach[0], beach[1]), (beach[2],), colour)

    def _add_ships(self, at: Hex, beaches: Iterable[int], colour: str) -> None:
        """One ship of ``colour`` from supply on each of ``beaches`` of the island at ``at``."""
        ships = list(self._ships[at])
        n = 0
        for b in beaches:
            ships[b] = _with(ships[b], colour)
            n += 1
        self._set_ships(at, tuple(ships))
        self._supply[colour] -= n

    def _free(self, at: Hex) -> tuple[int, ...]:
        return tuple(map(sub, self._tiles[at][0].moorings, map(len, self._ships[at])))

    def _full_beaches(self) -> list[tuple[Hex, int]]:
        return sorted(self._full)

    def _jetty_dirs(self, at: Hex, b: int) -> tuple[int, ...]:
        """The world directions of the jetties of beach ``b`` of the island at ``at``."""
        tile, rot = self._tiles[at]
        return _JETTIES[tile.id, rot][b]

    def _has_ship_on_beach(self, colour: str) -> bool:
        return any(colour in s for ships in self._ships.values() for s in ships)

    def _open_ends(self) -> tuple[tuple[Hex, int], ...]:
        """Open ends (R2): empty neighbours of sea tiles and of island jetties, sorted.

        If there are none, every empty side of a tile.
        """
        return tuple(map(_side, self._end_numbers()))

    def _end_numbers(self) -> tuple[int, ...]:
        """:meth:`_open_ends` as numbers (:func:`_end`), in the same order.

        The open ends are worked out when a place decision first asks, then kept
        up to date by every placed tile (until a tile is removed) and sorted when
        asked again; the empty sides, rarely wanted, are worked out each time.
        """
        ends = self._ends
        if ends is None:
            rim = self._rim
            if rim is None:
                ends = self._empty_sides(open_only=True)
                self._rim = frozenset(ends)
            else:
                ends = tuple(sorted(rim))
            self._ends = ends
        return ends or self._empty_sides(open_only=False)

    def _empty_sides(self, *, open_only: bool) -> tuple[int, ...]:
        """Sides of tiles with no neighbour (only open ends, or all of them), as
        numbers (:func:`_end`), sorted."""
        tiles = self._tiles
        sides: list[int] = []
        for (q, r), (tile, rot) in tiles.items():
            faces = _FACES[tile.id, rot]
            for d, (dq, dr) in enumerate(DIRECTIONS):
                if (q + dq, r + dr) not in tiles and (not open_only or d in faces):
                    sides.append(_end(q, r, d))
        return tuple(sorted(sides))

    def quiet_graph(self) -> QuietGraph:
        """The R11 analysis of the current board (tiles and royal islands)."""
        if self._graph is None:
            if self._grown is None:
                self._graph = QuietGraph(self._tiles, self._royal)
            else:
                self._graph = self._grown[0].extended(self._grown[1])
                self._grown = None
        return self._graph

    def _quiet_position(self) -> tuple[QuietGraph, Position]:
        """The R11 analysis and the ships' position in it."""
        graph = self.quiet_graph()
        if self._position is None:
            self._position = graph.position(self._ships)
        return graph, self._position

    def _lands_quietly(self, at: Hex, b: int, d: int) -> bool:
        """Whether emigrating from beach ``b`` at ``at`` out of ``d`` is quiet (R11): it
        draws no tile, no path is more dangerous than the group's colour count and every
        ship finds a mooring."""
        return self._quiet_landing(at, b, d) is not None

    def _quiet_landing(self, at: Hex, b: int, d: int) -> Hex | None:
        """The island a quiet emigration from beach ``b`` at ``at`` out of ``d`` lands on,
        or None when the emigration is loud (:meth:`_lands_quietly`). Walks the tiles, as
        the R11 graph's routes do, without the graph."""
        tiles = self._tiles
        group = self._ships[at][b]
        colours = 0
        (q, r), heading = at, d
        while True:
            dq, dr = DIRECTIONS[heading]
            q += dq
            r += dr
            placed = tiles.get((q, r))
            if placed is None:
                return None  # it draws a tile
            tile, rot = placed
            if tile.is_island:
                dest = (q, r)
                if dest in self._royal:
                    dest = at  # bounced back to the island it left (R6)
                free = sum(tiles[dest][0].moorings) - sum(map(len, self._ships[dest]))
                if dest == at:
                    free += len(group)
                return dest if len(group) <= free else None
            leave, danger = tile.exits[(heading + 3 - rot) % 6]
            if danger:
                if not colours:
                    colours = len(set(group))
                if danger > colours:
                    return None
            heading = (leave + rot) % 6

    def _ends_after(self, at: Hex, b: int, dest: Hex) -> bool:
        """Whether, beach ``b`` at ``at`` being the only full beach, its group sailing
        quietly to ``dest`` can land there filling no beach (R8.2's counts allow it
        whatever the colours): then no beach is full and the chain reaction ends (R11)."""
        if len(self._full) != 1:
            return False
        free = dict(enumerate(self._free(dest)))
        if dest == at:
            free[b] = self._tiles[at][0].moorings[b]  # the beach it left is empty
        return gentle_landing(len(self._ships[at][b]), free) is not None

    def _some_voyage_ends(self) -> bool:
        """A quick sufficient test for R11's "can end" without the graph: some jetty of
        some full beach has a loud emigration, or a quiet one after which no beach need
        be full (:meth:`_ends_after`)."""
        for at, b in self._full:
            for d in self._jetty_dirs(at, b):
                dest = self._quiet_landing(at, b, d)
                if dest is None or self._ends_after(at, b, dest):
                    return True
        return False

    def _allowed_emigration(self, at: Hex, b: int, d: int) -> bool:
        """R11.1 for one emigration: loud ones always, quiet ones if some landing after
        them can end (told without the graph when no beach need stay full after it)."""
        dest = self._quiet_landing(at, b, d)
        if dest is None or self._ends_after(at, b, dest):
            return True
        graph, position = self._quiet_position()
        return graph.allowed_emigration(position, at, b, d)

    def _emit(self, kind: str, **fields: Json) -> None:
        self._events.append({"kind": kind, **fields})

    # ------------------------------------------------------------------ set-up and turns

    def _act_setup(self, action: Action) -> None:
        """R3.3: one ship on a Tonga beach holding at most one."""
        player = self.seats[self._active]
        self._add_ship(action["beach"], player)
        self._emit("ships_placed", player=player, beaches=[list(action["beach"])], why="setup")
        self._setups += 1
        if self._setups == 2 * len(self.seats):
            self._active = 0
            self._start_turn()
        else:
            self._active = self._setups % len(self.seats)
            self._kind = SETUP

    def _start_turn(self) -> None:
        self._kind = TURN
        self._cleared_in_chain = False
        self._events.append({"kind": "turn_started", "player": self.seats[self._active]})

    def _end_turn(self) -> None:
        seats = self.seats
        active = self._active
        self._events.append({"kind": "turn_ended", "player": seats[active]})
        active = self._active = (active + 1) % len(seats)
        self._kind = TURN
        self._cleared_in_chain = False
        self._events.append({"kind": "turn_started", "player": seats[active]})

    def _act_expand(self, action: Action) -> None:
        """R5: k ships on k different beaches of one island, with R5.3's take first."""
        player = self.seats[self._active]
        take = action["take"]
        if take is not None:
            at = (take[0], take[1])
            ships = list(self._ships[at])
            colours = list(ships[take[2]])
            colours.remove(player)
            ships[take[2]] = tuple(colours)
            self._set_ships(at, tuple(ships))
            self._supply[player] += 1
            self._emit("ship_taken", player=player, beach=list(take))
        q, r = action["island"]
        self._add_ships((q, r), action["beaches"], player)
        beaches = [[q, r, b] for b in action["beaches"]]
        self._events.append(
            {"kind": "ships_placed", "player": player, "beaches": beaches, "why": "expand"}
        )
        self._continue_chain()

    def _act_tonga(self, action: Action) -> None:
        """R4.1: two ships on Tonga for a player with no ship on a beach."""
        player = self.seats[self._active]
        at = self._tonga_hex()
        assert at is not None
        self._add_ships(at, action["beaches"], player)
        beaches = [[at[0], at[1], b] for b in action["beaches"]]
        self._emit("ships_placed", player=player, beaches=beaches, why="tonga")
        self._continue_chain()

    def _act_single(self, action: Action) -> None:
        """R4.1: one ship on a beach of another island."""
        player = self.seats[self._active]
        self._add_ship(action["beach"], player)
        self._emit("ships_placed", player=player, beaches=[list(action["beach"])], why="single")
        self._continue_chain()

    def _act_royal(self, action: Action) -> None:
        """R9: one ship to the mask, the others home; the turn ends."""
        player = self.seats[self._active]
        at = (action["island"][0], action["island"][1])
        ships = [c for s in self._ships[at] for c in s]
        self._set_ships(at, tuple(() for _ in self._ships[at]))
        self._supply[player] += len(ships) - 1
        # Replaced, not changed in place: copies of a game share these (see copy()).
        self._royal = {**self._royal, at: player}
        self._founded = {**self._founded, player: self._founded[player] + 1}
        self._board_changed()
        self._emit(
            "royal_founded",
            player=player,
            island=_hex(at),
            tile=self._tiles[at][0].id,
            returned=_returned(ships[1:]),
        )
        self._end_turn()

    def _act_settle(self, action: Action) -> None:
        """R10.1: every ship of the player on a beach goes home."""
        player = self.seats[self._active]
        returned = 0
        for at, ships in self._ships.items():
            for s in ships:
                if player in s:
                    break
            else:
                continue
            returned += sum(s.count(player) for s in ships)
            self._set_ships(at, tuple(_without(s, player) for s in ships))
        self._supply[player] += returned
        self._emit("settlement_started", player=player, returned=returned)
        self._ask_place("settle")

    def _tonga_hex(self) -> Hex | None:
        placed = self._tiles.get((0, 0))
        return (0, 0) if placed is not None and placed[0].id == START_ISLAND else None

    # ------------------------------------------------------------------ placing tiles

    def _ask_place(self, why: str) -> None:
        """R10.2 / R11.3: the next open end, or (0, 0) on an empty board."""
        self._why = why
        if self._tiles:
            self._kind = PLACE
            return
        self._place_tile((0, 0), 0)

    def _act_place(self, action: Action) -> None:
        q, r = action["from"]
        d = action["dir"]
        self._place_tile(neighbour((q, r), d), opposite(d))

    def _place_tile(self, at: Hex, rot: int) -> None:
        tile = self._draw(at, rot, self._why)
        last = self._stack_exhausted()
        if tile.is_sea:
            if last:
                self._finish()
            else:
                self._ask_place(self._why)
            return
        if self._why == "settle":
            self._kind = SETTLE_SHIP
            self._island = at
            self._last = last
        elif last:
            self._finish()
        else:
            self._end_turn()

    def _act_settle_ship(self, action: Action) -> None:
        """R10.3: one ship on any beach of the new island; the turn ends."""
        player = self.seats[self._active]
        self._add_ship(action["beach"], player)
        self._emit("ships_placed", player=player, beaches=[list(action["beach"])], why="settle")
        if self._last:
            self._finish()
        else:
            self._end_turn()

    # ------------------------------------------------------------------ chain reactions

    def _continue_chain(self) -> None:
        """R7 and R11: emigrate while a beach is full; clear endless cycles; end the turn."""
        while self._full:
            if self._graph is None and self._some_voyage_ends():
                # R11: the position can end (what the graph's search would answer,
                # without building it).
                self._kind = EMIGRATE
                return
            graph, position = self._quiet_position()
            if graph.can_end(position):
                self._kind = EMIGRATE
                return
            self._clear(graph.caught_islands(position))
        if self._cleared_in_chain and (
            not self._ships or not self._has_ship_on_beach(self.seats[self._active])
        ):
            self._ask_place("recover")
            return
        self._end_turn()

    def _clear(self, islands: Iterable[Hex]) -> None:
        """R11.2: clear the islands caught in closed cycles and remove their tiles."""
        self._cleared_in_chain = True
        for at in sorted(islands):
            ships = [c for s in self._ships.pop(at) for c in s]
            self._full = {f for f in self._full if f[0] != at}
            for colour in ships:
                self._supply[colour] += 1
            tile = self._tiles.pop(at)[0]
            self._rim = self._ends = None  # the neighbours' sides open again: worked out afresh
            self._removed = [*self._removed, tile.id]  # replaced: copies share it
            self._emit("island_removed", island=_hex(at), tile=tile.id, returned=_returned(ships))
        self._board_changed()

    def _act_emigrate(self, action: Action) -> None:
        """R6: the whole beach sails out of one jetty and walks the sea paths."""
        player = self.seats[self._active]
        q, r, b = action["beach"]
        start = (q, r)
        heading = action["dir"]
        ships = list(self._ships[start])
        group = ships[b]
        ships[b] = ()
        self._set_ships(start, tuple(ships))
        self._events.append(
            {
                "kind": "emigrated",
                "player": player,
                "beach": [q, r, b],
                "dir": heading,
                "group": list(group),
            }
        )
        colours = len(set(group))
        (q, r), tiles = start, self._tiles
        drew = False
        while True:
            dq, dr = DIRECTIONS[heading]
            q += dq
            r += dr
            ahead = (q, r)
            back = (heading + 3) % 6  # the side of the hex ahead that faces where we are
            placed = tiles.get(ahead)
            if placed is None:
                tile = self._draw(ahead, back, "voyage")
                if self._stack_exhausted() and tile.is_sea:
                    self._at_sea = [*self._at_sea, *group]  # replaced: copies share it
                    self._emit("stranded", at=_hex(ahead), tile=tile.id, group=list(group))
                    self._finish()
                    return
                placed = tiles[ahead]
                drew = True
            tile, rot = placed
            if tile.is_island:
                if ahead in self._royal:
                    self._emit(
                        "bounced", at=_hex(ahead), owner=self._royal[ahead], back_to=_hex(start)
                    )
                    ahead = start
                # Quiet (R11): no tile drawn, no failure at sea, and every ship finds a
                # mooring (the beach it left is empty now).
                quiet = not drew and len(group) <= sum(self._free(ahead))
                self._ask_landing(ahead, group, restricted=quiet)
                return
            leave, danger = tile.exits[(back - rot) % 6]
            out = (leave + rot) % 6
            crossing = {
                "kind": "sea_crossed",
                "at": [q, r],
                "tile": tile.id,
                "enter": back,
                "exit": out,
                "danger": danger,
                "colours": colours,
            }
            if danger > colours:
                for colour in group:
                    self._supply[colour] += 1
                crossing["kind"] = "voyage_failed"  # first: an event's kind leads
                crossing["returned"] = _returned(group)
                self._events.append(crossing)
                self._continue_chain()
                return
            self._events.append(crossing)
            heading = out

    def _ask_landing(self, at: Hex, group: Colours, *, restricted: bool) -> None:
        self._kind = LAND
        self._island = at
        self._group = group
        self._restricted = restricted
        self._last = self._stack_exhausted()

    def _act_land(self, action: Action) -> None:
        """R8: the chosen arrangement lands; ships that do not fit go home."""
        player = self.seats[self._active]
        q, r = self._island
        left = list(self._group)
        ships = list(self._ships[(q, r)])
        for b, colour in action["ships"]:
            left.remove(colour)
            ships[b] = _with(ships[b], colour)
        self._set_ships((q, r), tuple(ships))
        for colour in left:
            self._supply[colour] += 1
        self._events.append(
            {
                "kind": "landed",
                "player": player,
                "island": [q, r],
                "ships": [list(s) for s in action["ships"]],
                "returned": _returned(left),
            }
        )
        self._group = ()
        if self._last:
            self._finish()
        else:
            self._continue_chain()

    # ------------------------------------------------------------------ options

    # Each kind of decision lists its options, each with its canonical JSON (see _LISTS).

    def _setup_options(self) -> list[Keyed]:
        """R3.3: a Tonga beach holding at most one ship."""
        return [
            _beach_option("setup", 0, 0, b)
            for b, s in enumerate(self._ships[(0, 0)])
            if len(s) <= 1
        ]

    def _place_options(self) -> list[Keyed]:
        """R2, R10.2, R11.3: every open end (in any order: options are sorted next)."""
        rim = self._rim
        if not rim:  # not worked out yet, or no open end at all
            return list(map(_PLACE_OPTIONS.__getitem__, self._end_numbers()))
        return list(map(_PLACE_OPTIONS.__getitem__, rim))

    def _settle_ship_options(self) -> list[Keyed]:
        """R10.3: any beach of the new island."""
        q, r = self._island
        return [
            _beach_option("settle_ship", q, r, b) for b in range(len(self._ships[self._island]))
        ]

    def _turn_options(self) -> list[Keyed]:
        """R4, R5, R9, R10: the options at the start of a turn."""
        player = self.seats[self._active]
        supply = self._supply[player]
        if supply:
            # The usual turn, written out: expansions without a take (R5), royal
            # islands (R9), settling (R10); the same options as the groups give.
            options: list[Keyed] = [_SETTLE]
            royal = self._founded[player] < 2
            for at, ships in self._ships.items():
                n = 0
                for s in ships:
                    if player in s:
                        n += s.count(player)
                if n:
                    beaches = len(ships)
                    options += _expansions(at, beaches, min(n, beaches, supply))
                    # Alone on the island: every ship on it is one of the player's n.
                    if (
                        royal
                        and sum(map(len, ships)) == n
                        and self._tiles[at][0].id != START_ISLAND
                    ):
                        options.append(_royal_option(*at))
            if len(options) > 1:
                return options
        options = []
        # Every group whole, in any order (they are sorted next): as _turn_option
        # numbers them, without a call per option.
        for _, act, data in self._turn_groups():
            if act == "expand":
                options += data[1]
            elif act == "take":
                at, beaches, takes = data
                options += [_take_option(at, b, t) for t in takes for b in range(beaches)]
            elif act == "single":
                options += [_beach_option("single", q, r, b) for q, r, b in data]
            elif act == "tonga":
                options += [_tonga_option(b1, b2) for b1, b2 in data]
            elif act == "royal":
                options.append(_royal_option(*data))
            else:
                options.append(_SETTLE)
        return options

    def _turn_groups(self) -> list[tuple[int, str, Any]]:
        """The options at the start of a turn in groups: (how many, what they are, data).

        :meth:`_turn_options` lists them all, :meth:`apply_random` builds one.
        """
        player = self.seats[self._active]
        supply = self._supply[player]
        every = self._ships
        mine: dict[Hex, int] = {}
        for at, ships in every.items():
            n = 0
            for s in ships:
                if player in s:
                    n += s.count(player)
            if n:
                mine[at] = n
        groups: list[tuple[int, str, Any]] = [(1, "settle", None)]
        if mine:
            # R5: expand on an island with ships of one's own (R5.3: take one first
            # when the supply is empty); R9: found a royal island.
            takes: tuple[tuple[int, int, int], ...] | None = None
            for at, n in mine.items():
                beaches = len(every[at])
                if supply:
                    expansions = _expansions(at, beaches, min(n, beaches, supply))
                    groups.append((len(expansions), "expand", (at, expansions)))
                    continue
                if takes is None:
                    takes = tuple(
                        (t[0], t[1], b)
                        for t in mine
                        for b, s in enumerate(self._ships[t])
                        if player in s
                    )
                groups.append((len(takes) * beaches, "take", (at, beaches, takes)))
            if self._founded[player] < 2:
                for at, n in mine.items():
                    # Alone on the island: every ship on it is one of the player's n.
                    alone = sum(map(len, self._ships[at])) == n
                    if alone and self._tiles[at][0].id != START_ISLAND:
                        groups.append((1, "royal", at))
            return groups
        # R4.1: no ship on a beach: two on Tonga, or one on another island.
        tonga = self._tonga_hex()
        if tonga is not None and supply >= 2:
            free = self._free(tonga)
            pairs = tuple(
                (b1, b2)
                for b1 in range(len(free))
                for b2 in range(b1, len(free))
                if free[b1] >= (2 if b1 == b2 else 1) and free[b2] >= 1
            )
            groups.append((len(pairs), "tonga", pairs))
        if supply >= 1:
            singles = tuple(
                (at[0], at[1], b)
                for at in self._ships
                if at != tonga and at not in self._royal
                for b, f in enumerate(self._free(at))
                if f
            )
            groups.append((len(singles), "single", singles))
        return groups

    def _emigrate_options(self) -> list[Keyed]:
        """R7 with R11.1: every jetty of every full beach, quiet ones only if they can end."""
        return [
            _emigrate_option(at[0], at[1], b, d)
            for at, b, d in self._emigrations()
            if self._allowed_emigration(at, b, d)
        ]

    def _emigrations(self) -> list[tuple[Hex, int, int]]:
        """Every jetty of every full beach (R7), before R11.1."""
        return [(at, b, d) for at, b in self._full_beaches() for d in self._jetty_dirs(at, b)]

    def _land_options(self) -> list[Keyed]:
        """R8, with R11.1's restriction after a quiet emigration."""
        found = _landing_options(self._group, self._free(self._island))
        if self._restricted:
            graph, position = self._quiet_position()
            at = self._island
            if not graph.landing_is_free(position, at):
                ends = graph.landings_can_end(position, at, (o[2] for o in found))
                found = tuple(o for o, can in zip(found, ends, strict=True) if can)
        return [(key, {"act": "land", "ships": list(ships)}) for key, ships, _ in found]

    # ------------------------------------------------------------------ random options

    def _random_turn_option(self, below: Callable[[int], int]) -> Action:
        """One of :meth:`_turn_options`, uniformly, building only that one."""
        groups = self._turn_groups()
        index = below(sum(g[0] for g in groups))
        for count, act, data in groups:
            if index < count:
                if act == "expand":
                    return data[1][index][1]  # type: ignore[no-any-return]
                return _turn_option(act, data, index)[1]
            index -= count
        raise AssertionError("the draw is below the number of options")

    def _random_emigration(self, below: Callable[[int], int]) -> Action:
        """One of :meth:`_emigrate_options`, uniformly; R11.1 is checked only for draws."""
        candidates = self._emigrations()
        while True:
            at, b, d = _take_one(candidates, below)
            # This decision is only asked when the position can end (R11), so some
            # candidate is allowed: the last one left needs no check.
            if not candidates or self._allowed_emigration(at, b, d):
                return {"act": "emigrate", "beach": [at[0], at[1], b], "dir": d}

    def _random_landing(self, below: Callable[[int], int]) -> Action:
        """One of :meth:`_land_options`, uniformly; R11.1 is checked only for draws."""
        plan = landing_plan(pack(self._group), self._free(self._island))
        if self._restricted:
            graph, position = self._quiet_position()
            at = self._island
            if not graph.landing_is_free(position, at):
                candidates = list(range(len(plan)))
                while True:
                    # The emigration was allowed, so some landing can end (R11.1).
                    arrangement = plan.arrangement(_take_one(candidates, below))
                    if not candidates or graph.landing_can_end(position, at, arrangement):
                        return _land_action(arrangement)
        return _land_action(plan.arrangement(below(len(plan))))

    # ------------------------------------------------------------------ end and views

    def _finish(self) -> None:
        """R12 and R13: the game is over; score and rank."""
        self._kind = None
        self._result = self._standings()
        self._emit("game_over", **self._result)

    def _standings(self) -> dict[str, dict[str, int]]:
        """R13: points, islands present on, ships on islands and rank of every player."""
        points = dict.fromkeys(self.seats, 0)
        islands = dict.fromkeys(self.seats, 0)
        ships = dict.fromkeys(self.seats, 0)
        for at, colours in self._ships.items():
            present = {c for s in colours for c in s}
            for beach in colours:
                for colour in beach:
                    ships[colour] += 1
            owner = self._royal.get(at)
            if owner is not None:
                present.add(owner)
                ships[owner] += 1
            value = self._tiles[at][0].points
            for colour in present:
                points[colour] += value
                islands[colour] += 1
        return {
            "points": points,
            "islands": islands,
            "ships": ships,
            "rank": rank(points, islands, ships),
        }

    def scores(self) -> dict[str, int]:
        """Points each player would score if the game ended now (R13)."""
        return self._standings()["points"]

    def snapshot(self) -> dict[str, Json]:
        """The state as CONFORMANCE.md writes it (with stack counts, never the order)."""
        decision = self.decision
        return {
            "at_sea": sorted(self._at_sea),
            "beaches": [
                [at[0], at[1], b, list(s)]
                for at in sorted(self._ships)
                for b, s in enumerate(self._ships[at])
                if s
            ],
            "decision": decision.to_dict() if decision else None,
            "removed": sorted(self._removed),
            "result": self._result,
            "royal": [[at[0], at[1], c] for at, c in sorted(self._royal.items())],
            "stack": self.stack_counts,
            "supply": dict(self._supply),
            "tiles": [[at[0], at[1], t.id, rot] for at, (t, rot) in sorted(self._tiles.items())],
        }

    def view(self, viewer: str | None = None) -> dict[str, Json]:
        """What ``viewer`` (a seat's colour, or None for a spectator) may see.

        Everything but the stack order: the snapshot, plus the seats, whose turn
        it is, royal islands founded, points so far and the tiles still in the
        stack as a sorted list.
        """
        if viewer is not None and viewer not in self.seats:
            raise ActionError(
                Reason.UNKNOWN_PLAYER, f"{viewer!r} has no seat in this game", player=viewer
            )
        view = self.snapshot()
        view.update(
            viewer=viewer,
            seats=list(self.seats),
            active=self.seats[self._active],
            founded=dict(self._founded),
            scores=self.scores(),
            stack_tiles=self.stack_remaining,
            step=len(self.actions),
        )
        return view

    def record(self) -> dict[str, Json]:
        """The game record: seats, stack (secret while the game runs) and actions."""
        return {
            "seats": list(self.seats),
            "stack": list(self.initial_stack),
            "actions": list(self.actions),
        }


#: What each act does: the method of :class:`Game` that applies it.
_ACTS: dict[str, Callable[[Game, Action], None]] = {
    "setup": Game._act_setup,
    "expand": Game._act_expand,
    "royal": Game._act_royal,
    "settle": Game._act_settle,
    "tonga": Game._act_tonga,
    "single": Game._act_single,
    "emigrate": Game._act_emigrate,
    "land": Game._act_land,
    "place": Game._act_place,
    "settle_ship": Game._act_settle_ship,
}

#: Per island tile and rotation: the world directions of each beach's jetties.
_JETTIES: dict[tuple[str, int], tuple[tuple[int, ...], ...]] = {
    (t.id, rot): tuple(tuple((j + rot) % 6 for j in beach.jetties) for beach in t.beaches)
    for t in TILES.values()
    if t.is_island
    for rot in range(6)
}

#: How each kind of decision lists its options (unsorted, each with its canonical JSON).
_LISTS: dict[str, Callable[[Game], list[Keyed]]] = {
    SETUP: Game._setup_options,
    TURN: Game._turn_options,
    EMIGRATE: Game._emigrate_options,
    LAND: Game._land_options,
    PLACE: Game._place_options,
    SETTLE_SHIP: Game._settle_ship_options,
}

_EMPTY: tuple[tuple[Colours, ...], ...] = tuple(tuple(() for _ in range(n)) for n in range(7))


def _end(q: int, r: int, d: int) -> int:
    """The side ``d`` of hex ``(q, r)`` as one number; numbers sort as ``((q, r), d)`` do
    (a board of 32 tiles stays well within the 512 values each coordinate has)."""
    return ((q + 256) << 12) + ((r + 256) << 3) + d


def _side(end: int) -> tuple[Hex, int]:
    """The hex and side of a number from :func:`_end`."""
    return ((end >> 12) - 256, ((end >> 3) & 511) - 256), end & 7


@lru_cache(maxsize=4096)
def _facing(q: int, r: int) -> frozenset[int]:
    """The sides of the six neighbours of ``(q, r)`` that face it, as numbers (:func:`_end`)."""
    return frozenset(_end(q + dq, r + dr, (d + 3) % 6) for d, (dq, dr) in enumerate(DIRECTIONS))


_FACES: dict[tuple[str, int], frozenset[int]] = {
    (t.id, rot): t.faces(rot) for t in TILES.values() for rot in range(6)
}


@cache
def _combinations(beaches: int, k: int) -> tuple[tuple[tuple[int, ...], str], ...]:
    """The ``k``-subsets of ``beaches`` beaches, each with its JSON list body (R5.2)."""
    return tuple((c, ",".join(map(str, c))) for c in combinations(range(beaches), k))


@lru_cache(maxsize=8192)
def _emigrate_option(q: int, r: int, b: int, d: int) -> Keyed:
    """The option of emigrating from beach ``b`` of ``(q, r)`` out of ``d`` (shared by games)."""
    key = f'{{"act":"emigrate","beach":[{q},{r},{b}],"dir":{d}}}'
    return key, {"act": "emigrate", "beach": [q, r, b], "dir": d}


class _PlaceOptions(dict[int, Keyed]):
    """The option of placing a tile at an open end, by the end's number (:func:`_end`),
    made when first asked for and shared by games (bounded: boards keep near Tonga)."""

    def __missing__(self, end: int) -> Keyed:
        (q, r), d = _side(end)
        key = f'{{"act":"place","dir":{d},"from":[{q},{r}]}}'
        option = self[end] = key, {"act": "place", "dir": d, "from": [q, r]}
        return option


_PLACE_OPTIONS = _PlaceOptions()


@lru_cache(maxsize=4096)
def _expansions(at: Hex, beaches: int, k: int) -> tuple[Keyed, ...]:
    """R5.2's expansions on the island at ``at`` without a take, remembered.

    Options are never changed once made, so games share them.
    """
    q, r = at
    return tuple(
        (
            f'{{"act":"expand","beaches":[{listed}],"island":[{q},{r}],"take":null}}',
            {"act": "expand", "beaches": list(chosen), "island": [q, r], "take": None},
        )
        for chosen, listed in _combinations(beaches, k)
    )


@lru_cache(maxsize=4096)
def _landing_options(
    group: Colours, free: tuple[int, ...]
) -> tuple[tuple[str, tuple[list[Any], ...], tuple[int, ...]], ...]:
    """R8.2's arrangements as (canonical JSON, the ``ships`` of the option, packed
    arrangement); a beach's ``[b, colour]`` is one list shared by every option naming it
    (options are never changed once made)."""
    found = []
    for arrangement in landings(group, free):
        parts = [_share(b, share) for b, share in enumerate(arrangement) if share]
        listed = ",".join(text for text, _ in parts)
        ships = tuple(ship for _, beach in parts for ship in beach)
        found.append((f'{{"act":"land","ships":[{listed}]}}', ships, arrangement))
    return tuple(found)


@cache
def _share(b: int, share: int) -> tuple[str, tuple[list[Any], ...]]:
    """The ships a beach receives in a landing (packed ``share``): JSON text and pairs."""
    ships = tuple(_ship(b, c) for c in unpack(share))
    return ",".join(f'[{b},"{c}"]' for _, c in ships), ships


@cache
def _ship(b: int, colour: str) -> list[Any]:
    """A ship of ``colour`` landing on beach ``b``, as options write it (shared)."""
    return [b, colour]


def rank(points: dict[str, int], islands: dict[str, int], ships: dict[str, int]) -> dict[str, int]:
    """R13: most points, then presence on more islands, then fewer ships; ties share a rank."""
    key = {c: (-points[c], -islands[c], ships[c]) for c in points}
    return {c: 1 + sum(1 for o in points if key[o] < key[c]) for c in points}


def _turn_option(act: str, data: Any, index: int) -> Keyed:
    """Option number ``index`` of a group of :meth:`Game._turn_groups` (not expansions
    without a take, which come made)."""
    if act == "take":
        (q, r), beaches, takes = data
        return _take_option((q, r), index % beaches, takes[index // beaches])
    if act == "single":
        return _beach_option("single", *data[index])
    if act == "tonga":
        return _tonga_option(*data[index])
    if act == "royal":
        return _royal_option(*data)
    return _SETTLE


_SETTLE: Keyed = ('{"act":"settle"}', {"act": "settle"})


@lru_cache(maxsize=8192)
def _take_option(at: Hex, b: int, take: tuple[int, int, int]) -> Keyed:
    """R5.3: one ship taken from beach ``take``, then placed on beach ``b`` of ``at``."""
    (q, r), (tq, tr, tb) = at, take
    return (
        f'{{"act":"expand","beaches":[{b}],"island":[{q},{r}],"take":[{tq},{tr},{tb}]}}',
        {"act": "expand", "beaches": [b], "island": [q, r], "take": [tq, tr, tb]},
    )


@cache
def _tonga_option(b1: int, b2: int) -> Keyed:
    return f'{{"act":"tonga","beaches":[{b1},{b2}]}}', {"act": "tonga", "beaches": [b1, b2]}


@lru_cache(maxsize=1024)
def _royal_option(q: int, r: int) -> Keyed:
    return f'{{"act":"royal","island":[{q},{r}]}}', {"act": "royal", "island": [q, r]}


_WITH: dict[tuple[Colours, str], Colours] = {}


def _with(colours: Colours, colour: str) -> Colours:
    """The sorted colours of a beach with one more ship of ``colour`` (remembered)."""
    key = (colours, colour)
    found = _WITH.get(key)
    if found is None:
        if len(_WITH) >= 8192:
            _WITH.clear()  # a long-running process keeps to a bounded size
        found = _WITH[key] = tuple(sorted((*colours, colour)))
    return found


def _without(colours: Colours, colour: str) -> Colours:
    """The colours of a beach without the ships of ``colour``."""
    return tuple(c for c in colours if c != colour) if colour in colours else colours


def _draw_one(items: Sequence[T], below: Callable[[int], int]) -> T:
    return items[below(len(items))]


def _take_one(items: list[T], below: Callable[[int], int]) -> T:
    """Remove a uniformly drawn item from ``items`` and return it."""
    i = below(len(items))
    items[i], items[-1] = items[-1], items[i]
    return items.pop()


def _land_action(arrangement: tuple[int, ...]) -> Action:
    ships = [[b, c] for b, share in enumerate(arrangement) for c in unpack(share)]
    return {"act": "land", "ships": ships}


@lru_cache(maxsize=8192)
def _beach_option(act: str, q: int, r: int, b: int) -> Keyed:
    """An option that names one beach (shared by games: options are never changed)."""
    return f'{{"act":"{act}","beach":[{q},{r},{b}]}}', {"act": act, "beach": [q, r, b]}
