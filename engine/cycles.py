"""Endless chain reactions (R11).

Quiet emigrations (no draw, no failure at sea, every ship finds a mooring)
only move ships between beaches, so the positions they reach form a finite
graph. This module explores that graph for one board (tiles and royal islands
fixed): which positions can end (R11), which choices R11.1 allows, and which
islands R11.2 clears when no choice can end the chain reaction.

The search is the engine's hot path, so a position is compact: one integer
per beach of every non-royal island, in island order. A beach's integer packs
its ship count in the low three bits and the count of each colour in three
bits above that; ships landing on a beach are then a plain addition.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from heapq import heappop, heappush
from itertools import chain
from operator import add, sub

from .landing import Colours, landing_sizes
from .tiles import COLOURS, TILES, Hex, Tile, neighbour, opposite

#: One packed beach per beach of every non-royal island, in the graph's order.
Position = tuple[int, ...]
#: Where a jetty's voyage ends over the tiles already placed: an island index
#: (-1 when it reaches an empty hex and would draw) and the highest danger on the way.
Route = tuple[int, int]
#: A quiet step as :meth:`QuietGraph.can_end` found it: the flat beach that sails,
#: the island it lands on, the beach's group, and that island's beaches before
#: and after the landing (packed).
Step = tuple[int, int, int, Position, Position]
#: A path to a position that ends: its quiet steps, and the last emigration (flat
#: beach, island) when a landing after it leaves no beach full (None when the last
#: step reaches a position that ends by itself).
Proof = tuple[tuple[Step, ...], tuple[int, int] | None]

_SIZE = 7
#: Stands for a position with no full beach, which ends by itself (never built).
_ENDS: Position = (-1,)
_SHIP = {colour: 1 + (1 << (3 + 3 * i)) for i, colour in enumerate(COLOURS)}
_PACKED: dict[Colours, int] = {}
_COLOUR_COUNT: dict[int, int] = {}
_UNPACKED: dict[int, Colours] = {}


def pack(colours: Colours) -> int:
    """The packed form of a beach's (or a group's) colours."""
    packed = _PACKED.get(colours)
    if packed is None:
        packed = _PACKED[colours] = sum(_SHIP[c] for c in colours)
    return packed


_ISLANDS: dict[tuple[Colours, ...], tuple[int, ...]] = {}


def pack_island(ships: tuple[Colours, ...]) -> tuple[int, ...]:
    """The packed form of each beach of an island (remembered: islands repeat)."""
    packed = _ISLANDS.get(ships)
    if packed is None:
        if len(_ISLANDS) >= _CACHE_LIMIT:
            _ISLANDS.clear()
        packed = _ISLANDS[ships] = tuple(map(pack, ships))
    return packed


def colour_count(packed: int) -> int:
    """How many distinct colours a packed group holds (R6)."""
    n = _COLOUR_COUNT.get(packed)
    if n is None:
        fields = packed >> 3
        n = _COLOUR_COUNT[packed] = sum(1 for i in range(6) if (fields >> (3 * i)) & 7)
    return n


def unpack(packed: int) -> Colours:
    """The sorted colours of a packed beach or group."""
    colours = _UNPACKED.get(packed)
    if colours is None:
        fields = packed >> 3
        colours = _UNPACKED[packed] = tuple(
            sorted(c for i, c in enumerate(COLOURS) for _ in range((fields >> (3 * i)) & 7))
        )
    return colours


def landings(group: Colours, free: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """R8.2: every arrangement of ``group`` on beaches with ``free`` moorings, packed per beach."""
    return _packed_arrangements(pack(group), free)


class QuietGraph:
    """The quiet-step graph of one board, with memoised answers."""

    def __init__(self, tiles: Mapping[Hex, tuple[Tile, int]], royal: Mapping[Hex, str]) -> None:
        # Copies: the graph of a board never changes, so copies of a game share it.
        self._tiles = dict(tiles)
        self._royal = dict(royal)
        self.islands: tuple[Hex, ...] = tuple(
            at for at, (tile, _) in tiles.items() if tile.is_island and at not in royal
        )
        self._index = {at: i for i, at in enumerate(self.islands)}
        #: The first flat index of each island's beaches (one more entry: the end).
        self._first: list[int] = []
        self._island_of: list[int] = []
        self._moorings: list[int] = []
        self._jetties: list[tuple[int, ...]] = []
        self._capacity: list[int] = []
        for i, at in enumerate(self.islands):
            tile, rot = tiles[at]
            moorings, jetties = _BEACHES[tile.id, rot]
            self._first.append(len(self._moorings))
            self._island_of += [i] * len(moorings)
            self._moorings += moorings
            self._jetties += jetties
            self._capacity.append(sum(moorings))
        self._first.append(len(self._moorings))
        #: Per flat beach, worked out when first needed: (destination island,
        #: highest danger) of each jetty, and whether one of them draws (then
        #: emigrating from the beach is always loud).
        self._routes: list[tuple[Route, ...] | None] = [None] * len(self._moorings)
        self._always_loud: list[bool] = [False] * len(self._moorings)
        self._can_end: dict[Position, bool] = {}
        #: The quiet steps of the last path :meth:`can_end` found to a position that
        #: ends, tried first on the next position asked about (see :meth:`_follows`).
        self._proof: Proof | None = None
        #: The last position :meth:`_full` was asked about, and its answer: one
        #: decision asks about the same position several times.
        self._full_of: tuple[Position, list[int]] = ((), [])

    def extended(self, placed: Sequence[tuple[Hex, Tile, int]]) -> QuietGraph:
        """The graph of this board with the tiles ``placed`` (hex, tile, rotation) on
        hexes that were empty, in that order.

        Only a route that reached an empty hex can change (it may reach a new
        tile now), so every other route is kept; island tiles add their beaches
        after the others', as a graph built afresh orders them.
        """
        other = object.__new__(QuietGraph)
        tiles = other._tiles = self._tiles.copy()
        other._royal = self._royal  # a change of royal islands builds a graph afresh
        other._routes = [
            None if found is None or any(dest < 0 for dest, _ in found) else found
            for found in self._routes
        ]
        other._always_loud = self._always_loud.copy()
        other._can_end = {}
        other._proof = None
        other._full_of = ((), [])
        islands = list(self.islands)
        index = self._index
        first = self._first
        island_of = self._island_of
        moorings = self._moorings
        jetties = self._jetties
        capacity = self._capacity
        grown = False
        for at, tile, rot in placed:
            tiles[at] = (tile, rot)
            if not tile.is_island:
                continue
            if not grown:
                grown = True
                index, first, island_of = index.copy(), first.copy(), island_of.copy()
                moorings, jetties, capacity = moorings.copy(), jetties.copy(), capacity.copy()
            i = len(islands)
            beach_moorings, beach_jetties = _BEACHES[tile.id, rot]
            islands.append(at)
            index[at] = i
            first.append(first[-1] + len(beach_moorings))
            island_of += [i] * len(beach_moorings)
            moorings += beach_moorings
            jetties += beach_jetties
            capacity.append(sum(beach_moorings))
            other._routes += [None] * len(beach_moorings)
            other._always_loud += [False] * len(beach_moorings)
        other.islands = tuple(islands)
        other._index = index
        other._first = first
        other._island_of = island_of
        other._moorings = moorings
        other._jetties = jetties
        other._capacity = capacity
        return other

    def position(self, ships: Mapping[Hex, tuple[Colours, ...]]) -> Position:
        """The position of ``ships`` (royal islands' beaches are always empty)."""
        return tuple(chain.from_iterable(map(pack_island, map(ships.__getitem__, self.islands))))

    def moved(self, position: Position, at: Hex, ships: tuple[Colours, ...]) -> Position | None:
        """``position`` with the island at ``at`` now holding ``ships`` (None if the
        island is not in this graph)."""
        i = self._index.get(at)
        if i is None:
            return None
        first, last = self._first[i], self._first[i + 1]
        packed = _ISLANDS.get(ships) or pack_island(ships)
        return (*position[:first], *packed, *position[last:])

    def beach(self, at: Hex, b: int) -> int:
        """The flat index of beach ``b`` of the island at ``at``."""
        return self._first[self._index[at]] + b

    # ---------------------------------------------------------------- single steps

    def routes(self, k: int) -> tuple[Route, ...]:
        """The routes of the jetties of flat beach ``k``."""
        found = self._routes[k]
        if found is None:
            island = self._island_of[k]
            found = self._routes[k] = tuple(self._route(island, d) for d in self._jetties[k])
            self._always_loud[k] = any(dest < 0 for dest, _ in found)
        return found

    def _route(self, island: int, direction: int) -> Route:
        """Where a voyage from ``island`` out of ``direction`` ends (R6), without drawing."""
        here, heading, danger = self.islands[island], direction, 0
        while True:
            ahead = neighbour(here, heading)
            placed = self._tiles.get(ahead)
            if placed is None:
                return -1, danger
            tile, rot = placed
            if tile.is_island:
                return (island if ahead in self._royal else self._index[ahead]), danger
            leave, step_danger = tile.exits[(opposite(heading) - rot) % 6]
            danger = max(danger, step_danger)
            here, heading = ahead, (leave + rot) % 6

    def _quiet_dest(self, position: Position, k: int, route: Route) -> int:
        """The island a quiet emigration from flat beach ``k`` along ``route`` lands on, or -1."""
        dest, danger = route
        if dest < 0:
            return -1
        group = position[k]
        if danger and danger > colour_count(group):
            return -1
        first, last = self._first[dest], self._first[dest + 1]
        free = self._capacity[dest] - sum(v & _SIZE for v in position[first:last])
        if dest == self._island_of[k]:
            free += group & _SIZE
        return dest if group & _SIZE <= free else -1

    def _landings(
        self, position: Position, full: list[int], k: int, dest: int
    ) -> Iterator[tuple[Position, list[int]]]:
        """The positions after the group of flat beach ``k`` sails and lands on ``dest``.

        ``full`` lists the full beaches of ``position``; each position comes with its own.
        """
        group = position[k]
        emptied = (*position[:k], 0, *position[k + 1 :])
        first, last = self._first[dest], self._first[dest + 1]
        moorings = self._moorings[first:last]
        ships = emptied[first:last]
        free = tuple(m - (v & _SIZE) for m, v in zip(moorings, ships, strict=True))
        head, tail = emptied[:first], emptied[last:]
        others = [f for f in full if f != k and not first <= f < last]
        for arrangement in _packed_arrangements(group, free):
            merged = tuple(map(add, ships, arrangement))
            now_full = [first + i for i, v in enumerate(merged) if v & _SIZE == moorings[i]]
            if now_full:
                yield head + merged + tail, others + now_full
            elif others:
                yield head + merged + tail, others
            else:
                yield _ENDS, others

    def _full(self, position: Position) -> list[int]:
        """The full beaches of ``position`` (the list is shared: never change it)."""
        last, full = self._full_of
        if position is not last:
            moorings = self._moorings
            full = [k for k, v in enumerate(position) if v & _SIZE == moorings[k]]
            self._full_of = (position, full)
        return full

    def _moves(self, position: Position, full: list[int]) -> list[tuple[int, int]] | None:
        """The quiet emigrations of ``position`` as (flat beach, destination island).

        None when the position ends by itself: no beach is full, or a loud
        emigration is available. ``full`` lists its full beaches. (What
        :meth:`_quiet_dest` says of each route, written out: this is the
        search's inner loop.)
        """
        if not full:
            return None
        routes, always_loud = self._routes, self._always_loud
        for k in full:
            if routes[k] is None:
                self.routes(k)
            if always_loud[k]:
                return None
        first, capacity, island_of = self._first, self._capacity, self._island_of
        #: Ships on each destination island, counted once.
        used: dict[int, int] = {}
        quiet: list[tuple[int, int]] = []
        for k in full:
            group = position[k]
            ships = group & _SIZE
            colours = 0
            for dest, danger in routes[k]:  # type: ignore[union-attr]
                if danger:
                    if not colours:
                        colours = colour_count(group)
                    if danger > colours:
                        return None
                on = used.get(dest)
                if on is None:
                    on = used[dest] = sum(
                        v & _SIZE for v in position[first[dest] : first[dest + 1]]
                    )
                free = capacity[dest] - on
                if dest == island_of[k]:
                    free += ships
                if ships > free:
                    return None
                quiet.append((k, dest))
        return quiet

    def _steps(
        self, position: Position, full: list[int], moves: list[tuple[int, int]]
    ) -> Iterator[tuple[Position, list[int]]]:
        """The positions one quiet step (an emigration and a landing) away."""
        for k, dest in moves:
            yield from self._landings(position, full, k, dest)

    # ---------------------------------------------------------------- R11

    def is_quiet(self, position: Position, at: Hex, b: int, d: int) -> bool:
        """Whether emigrating from beach ``b`` at ``at`` out of world direction ``d`` is quiet."""
        k = self.beach(at, b)
        return self._quiet_dest(position, k, self._jetty_route(at, b, d)) >= 0

    def _jetty_route(self, at: Hex, b: int, d: int) -> Route:
        k = self._first[self._index[at]] + b
        return self.routes(k)[self._jetties[k].index(d)]

    def allowed_emigration(self, position: Position, at: Hex, b: int, d: int) -> bool:
        """R11.1: loud emigrations always; quiet ones if some landing after them can end."""
        k = self.beach(at, b)
        dest = self._quiet_dest(position, k, self._jetty_route(at, b, d))
        if dest < 0:
            return True
        full = self._full(position)
        if self._loud_elsewhere(position, full, (self._island_of[k], dest)):
            return True
        if self._settles(position, full, (k, self._jetty_route(at, b, d))):
            return True
        return any(
            p is _ENDS or self.can_end(p, f) for p, f in self._landings(position, full, k, dest)
        )

    def _loud_elsewhere(
        self, position: Position, full: list[int], islands: tuple[int, ...]
    ) -> bool:
        """Whether a full beach off ``islands`` has a loud emigration that no change on
        ``islands`` can make quiet: then every such change leaves a position that ends."""
        island_of = self._island_of
        for k in full:
            if island_of[k] in islands:
                continue
            for route in self.routes(k):
                if route[0] not in islands and self._quiet_dest(position, k, route) < 0:
                    return True
        return False

    def landing_is_free(self, position: Position, at: Hex) -> bool:
        """Whether every landing on ``at`` leaves a position that can end (R11.1 is moot)."""
        return self._loud_elsewhere(position, self._full(position), (self._index[at],))

    def landing_can_end(self, position: Position, at: Hex, arrangement: tuple[int, ...]) -> bool:
        """R11.1: whether the position after ``arrangement`` (packed, per beach) lands on
        ``at`` can end."""
        return self.landings_can_end(position, at, (arrangement,))[0]

    def landings_can_end(
        self, position: Position, at: Hex, arrangements: Iterable[tuple[int, ...]]
    ) -> list[bool]:
        """:meth:`landing_can_end` of each of ``arrangements``."""
        i = self._index[at]
        first, last = self._first[i], self._first[i + 1]
        moorings = self._moorings
        outside = [
            k for k, v in enumerate(position) if v & _SIZE == moorings[k] and not first <= k < last
        ]
        here, head, tail = position[first:last], position[:first], position[last:]
        island_moorings = moorings[first:last]
        found = []
        for arrangement in arrangements:
            merged = tuple(map(add, here, arrangement))
            full = outside + [
                first + j for j, v in enumerate(merged) if v & _SIZE == island_moorings[j]
            ]
            found.append(not full or self.can_end(head + merged + tail, full))
        return found

    def can_end(self, position: Position, full: list[int] | None = None) -> bool:
        """R11: whether some sequence of quiet steps reaches a position that ends by itself.

        A best-first search (fewest full beaches first) that stops at the first
        such position; every position on the way there can end too. Only when
        nothing is found is the whole reachable graph known not to end.
        ``full`` may give the full beaches of ``position`` when the caller knows them.
        """
        if full is None:
            full = self._full(position)
        moves = self._moves(position, full)
        if moves is None:
            return True
        memo = self._can_end
        known = memo.get(position)
        if known is not None:
            return known
        if self._settles(position, full):
            memo[position] = True
            return True
        if self._proof is not None and self._follows(position, full, moves, self._proof):
            return True
        #: How the search reached each position: the position before and the move.
        parent: dict[Position, tuple[Position, int, int] | None] = {position: None}
        heap = [(0, 0, position, full, moves)]
        pushed = 0
        while heap:
            _, _, p, p_full, p_moves = heappop(heap)
            for k, dest in p_moves:
                for step, step_full in self._landings(p, p_full, k, dest):
                    if step is _ENDS:
                        step_moves = None
                    else:
                        if step in parent:
                            continue
                        parent[step] = (p, k, dest)
                        known = memo.get(step)
                        if known is False:
                            continue
                        step_moves = None if known else self._moves(step, step_full)
                    if step_moves is None:
                        self._proof = self._proved(
                            p if step is _ENDS else step,
                            parent,
                            (k, dest) if step is _ENDS else None,
                        )
                        return True
                    pushed += 1
                    heappush(heap, (len(step_full), pushed, step, step_full, step_moves))
        for p in parent:
            memo[p] = False
        return False

    def _proved(
        self,
        here: Position,
        parent: Mapping[Position, tuple[Position, int, int] | None],
        last: tuple[int, int] | None,
    ) -> Proof:
        """Mark every position on the path the search found to ``here`` as one that can
        end, and return the path's quiet steps."""
        memo = self._can_end
        steps: list[Step] = []
        came = parent[here]
        memo[here] = True
        while came is not None:
            before, k, dest = came
            first, end = self._first[dest], self._first[dest + 1]
            emptied = (*before[:k], 0, *before[k + 1 :])
            steps.append((k, dest, before[k], emptied[first:end], here[first:end]))
            here = before
            memo[here] = True
            came = parent[here]
        steps.reverse()
        return tuple(steps), last

    def _follows(
        self,
        position: Position,
        full: list[int],
        moves: list[tuple[int, int]] | None,
        proof: Proof,
    ) -> bool:
        """Whether the quiet steps of ``proof`` (found from another position, often one
        that differs only on an island they never touch) lead from ``position`` to a
        position that ends, each step checked to be a quiet step here. Landings on an
        island of arrangements that all take the same search make this the usual answer."""
        memo = self._can_end
        path = [position]
        p = position
        for k, dest, group, before, after in proof[0]:
            if moves is None or memo.get(p):
                break  # this position ends already
            first, end = self._first[dest], self._first[dest + 1]
            if (k, dest) not in moves:
                return False
            emptied = (*p[:k], 0, *p[k + 1 :])
            here = emptied[first:end]
            landed = after
            if p[k] != group or here != before:
                # Another group or other ships there: the first landing that leaves as
                # many ships on each beach as the proof's did, if there is one.
                sizes = [v & _SIZE for v in after]
                room = self._moorings[first:end]
                free = tuple(m - (v & _SIZE) for m, v in zip(room, here, strict=True))
                for arrangement in _packed_arrangements(p[k], free):
                    merged = tuple(map(add, here, arrangement))
                    if [v & _SIZE for v in merged] == sizes:
                        landed = merged
                        break
                else:
                    return False
            # (Otherwise the same group lands on the same beaches: the same landing is legal.)
            p = (*emptied[:first], *landed, *emptied[end:])
            moorings = self._moorings
            full = [f for f in full if f != k and not first <= f < end] + [
                first + i for i, v in enumerate(landed) if v & _SIZE == moorings[first + i]
            ]
            path.append(p)
            moves = self._moves(p, full)
        else:
            last = proof[1]
            if moves is not None and not memo.get(p):
                if last is None or last not in moves:
                    return False
                if not any(step is _ENDS for step, _ in self._landings(p, full, *last)):
                    return False
        for p in path:
            memo[p] = True
        return True

    def _settles(
        self, position: Position, full: list[int], first_move: tuple[int, Route] | None = None
    ) -> bool:
        """A quick sufficient test for R11's "can end", counting ships only.

        Sail the full beaches out one by one, each group landing without
        filling a beach (R8.2's counts allow it whatever the colours): the
        groups that move are the full beaches' own, so their colours, and with
        them the danger checks, are known in advance. If every full beach gets
        emptied this way, or a loud emigration turns up on the way, the
        position can end. False means only that this test does not tell.
        ``first_move`` (a full beach and one of its routes) makes that
        emigration the first one.
        """
        moorings, first = self._moorings, self._first
        #: The ships on the beaches this test has changed (the others: as in ``position``);
        #: their colours it no longer knows (it counts ships only).
        changed: dict[int, int] = {}
        pending = list(full)
        while pending:
            for k in pending if first_move is None else (first_move[0],):
                group = position[k]
                ships = changed[k] if k in changed else group & _SIZE
                group_colours = colour_count(group)
                landing: list[int] | None = None
                routes = self.routes(k) if first_move is None else (first_move[1],)
                for dest, danger in routes:
                    if dest < 0 or (danger and danger > group_colours):
                        return True  # a loud emigration: the position ends by itself
                    room = {
                        i: moorings[i]
                        - (0 if i == k else changed[i] if i in changed else position[i] & _SIZE)
                        for i in range(first[dest], first[dest + 1])
                    }
                    if ships > sum(room.values()):
                        return True  # ships would not fit: loud
                    if self._fills_a_loud_beach(ships, room, position, k, changed):
                        return True  # then that beach's emigration is loud
                    if landing is None:
                        landing = gentle_landing(ships, room)
                first_move = None
                if landing is not None:
                    changed[k] = 0
                    for i in landing:
                        changed[i] = (changed[i] if i in changed else position[i] & _SIZE) + 1
                    pending.remove(k)
                    break
            else:
                return False
        return True

    def _fills_a_loud_beach(
        self, ships: int, room: dict[int, int], position: Position, k: int, changed: Container[int]
    ) -> bool:
        """Whether the group of flat beach ``k`` (``ships`` ships, its colours in
        ``position``) can land so that it fills a beach one of whose jetties is then loud:
        one whose voyage draws a tile, or crosses a path more dangerous than the number
        of colours the filled beach holds (R6). Counts follow R8.2; ``room`` is the free
        moorings of each beach of the island landed on."""
        open_beaches = sum(1 for r in room.values() if r)
        group = position[k] >> 3
        for i, r in room.items():
            if not r or not (r == 1 if ships <= open_beaches else ships - open_beaches + 1 >= r):
                continue
            routes = self.routes(i)
            if self._always_loud[i]:
                return True
            if i != k and i in changed:
                continue  # its colours are not known here
            worst = max(danger for _, danger in routes)
            if worst >= 2 and worst > self._fewest_colours(position[i] if i != k else 0, group, r):
                return True
        return False

    @staticmethod
    def _fewest_colours(beach: int, group: int, r: int) -> int:
        """The fewest colours a beach holding ``beach`` (packed) can have once ``r``
        ships of ``group`` (packed colour fields) land on it."""
        present = beach >> 3
        colours = 0
        taken = 0
        others = []
        for c in range(6):
            have = (present >> (3 * c)) & 7
            offered = (group >> (3 * c)) & 7
            if have:
                colours += 1
                taken += offered  # ships of a colour already there add no colour
            elif offered:
                others.append(offered)
        others.sort(reverse=True)
        for offered in others:
            if taken >= r:
                break
            taken += offered
            colours += 1
        return colours

    def caught_islands(self, position: Position) -> set[Hex]:
        """R11.2: islands with a full beach in some position of a closed cycle.

        ``position`` must be one that cannot end: every position it reaches then
        cannot end either, and the closed cycles are the terminal strongly
        connected components of the graph it reaches.
        """
        graph: dict[Position, list[Position]] = {}
        todo = [(position, self._full(position))]
        while todo:
            p, full = todo.pop()
            if p in graph:
                continue
            steps = list(self._steps(p, full, self._moves(p, full) or []))
            graph[p] = [step for step, _ in steps]
            todo.extend(steps)
        caught: set[Hex] = set()
        for component in _terminal_components(graph):
            for p in component:
                caught.update(
                    self.islands[self._island_of[k]]
                    for k, v in enumerate(p)
                    if v & _SIZE == self._moorings[k]
                )
        return caught


def _terminal_components(graph: dict[Position, list[Position]]) -> list[list[Position]]:
    """The strongly connected components no edge leaves (Tarjan, iterative)."""
    index: dict[Position, int] = {}
    low: dict[Position, int] = {}
    on_stack: set[Position] = set()
    stack: list[Position] = []
    component_of: dict[Position, int] = {}
    components: list[list[Position]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[Position, int]] = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = graph[node]
            if child < len(successors):
                work.append((node, child + 1))
                nxt = successors[child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component_of[member] = len(components)
                    members.append(member)
                    if member == node:
                        break
                components.append(members)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return [
        members
        for n, members in enumerate(components)
        if all(component_of[s] == n for p in members for s in graph[p])
    ]


#: Per island tile and rotation: the moorings and the world directions of the
#: jetties of each beach.
_BEACHES: dict[tuple[str, int], tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]] = {
    (tile.id, rot): (
        tuple(beach.moorings for beach in tile.beaches),
        tuple(tuple((j + rot) % 6 for j in beach.jetties) for beach in tile.beaches),
    )
    for tile in TILES.values()
    if tile.is_island
    for rot in range(6)
}

#: Entries a lookup cache holds at most before it starts afresh.
_CACHE_LIMIT = 8192
_ARRANGEMENTS: dict[tuple[int, tuple[int, ...]], tuple[tuple[int, ...], ...]] = {}
_SHAPES: dict[tuple[tuple[int, ...], tuple[int, ...]], list[tuple[tuple[int, ...], ...]]] = {}


def _packed_arrangements(group: int, free: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """:func:`arrangements` of a packed group, packed and remembered.

    Groups with the same colour counts (two of one colour and one of another,
    say) land the same ways, so the ways are worked out once per shape of
    group and then given the group's colours. Those that fill the fewest
    beaches come first: the search for a position that ends meets them first.
    """
    key = (group, free)
    found = _ARRANGEMENTS.get(key)
    if found is None:
        if len(_ARRANGEMENTS) >= _CACHE_LIMIT:
            _ARRANGEMENTS.clear()  # a long-running process keeps to a bounded size
        found = _ARRANGEMENTS[key] = landing_plan(group, free).every_arrangement()
    return found


_PLANS: dict[tuple[int, tuple[int, ...]], LandingPlan] = {}


def landing_plan(group: int, free: tuple[int, ...]) -> LandingPlan:
    """The :class:`LandingPlan` of a packed group on beaches with ``free`` moorings,
    remembered (a plan never changes once made)."""
    key = (group, free)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _CACHE_LIMIT:
            _PLANS.clear()
        plan = _PLANS[key] = LandingPlan(group, free)
    return plan


class LandingPlan:
    """The arrangements of one packed group on beaches with ``free`` moorings, by number.

    Lists nothing up front: :meth:`arrangement` builds the one asked for, in
    the order of :func:`_packed_arrangements`.
    """

    def __init__(self, group: int, free: tuple[int, ...]) -> None:
        fields = group >> 3
        present = sorted(
            (((fields >> (3 * i)) & 7, i) for i in range(6) if (fields >> (3 * i)) & 7),
            key=lambda ci: (-ci[0], ci[1]),
        )
        self._ships = [_SHIP[COLOURS[i]] for _, i in present]
        # Beaches without room take nothing; the others in order of room.
        self._order = sorted((i for i, f in enumerate(free) if f), key=lambda i: (-free[i], i))
        self._beaches = len(free)
        self._shapes = _shapes(tuple(c for c, _ in present), tuple(free[i] for i in self._order))

    def __len__(self) -> int:
        return len(self._shapes)

    def every_arrangement(self) -> tuple[tuple[int, ...], ...]:
        """Every arrangement, in order (a share that recurs is packed once)."""
        packed_share: dict[tuple[int, ...], int] = {}
        ships = self._ships
        result = []
        for shape in self._shapes:
            real = [0] * self._beaches
            for at, share in zip(self._order, shape, strict=True):
                value = packed_share.get(share)
                if value is None:
                    value = packed_share[share] = sum(
                        n * ship for n, ship in zip(share, ships, strict=True)
                    )
                real[at] = value
            result.append(tuple(real))
        return tuple(result)

    def arrangement(self, index: int) -> tuple[int, ...]:
        """Arrangement number ``index``: the packed share of every beach."""
        real = [0] * self._beaches
        ships = self._ships
        for at, share in zip(self._order, self._shapes[index], strict=True):
            real[at] = sum(n * ship for n, ship in zip(share, ships, strict=True))
        return tuple(real)


def _shapes(counts: tuple[int, ...], free: tuple[int, ...]) -> list[tuple[tuple[int, ...], ...]]:
    """The arrangements of a group with colour ``counts``, as colour counts per beach.

    The same arrangements, in the same order, as :func:`~engine.landing.arrangements`
    gives for the group's colours, worked out on counts instead of colours.
    """
    key = (counts, free)
    found = _SHAPES.get(key)
    if found is None:
        found = []
        landing = min(sum(counts), sum(free))
        for sizes in landing_sizes(free, landing):
            found += _dealt(sizes, counts)
        found.sort(
            key=lambda a: sum(1 for share, f in zip(a, free, strict=True) if f and sum(share) == f)
        )
        if len(_SHAPES) >= _CACHE_LIMIT:
            _SHAPES.clear()
        _SHAPES[key] = found
    return found


_DEALT: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[tuple[int, ...], ...], ...]] = {}


def _dealt(
    sizes: tuple[int, ...], left: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every way to deal the ships counted in ``left`` to beaches taking ``sizes[i]``
    each, first beach's share first; remembered, as other landings share the tails."""
    key = (sizes, left)
    found = _DEALT.get(key)
    if found is None:
        if not sizes:
            found = ((),)
        else:
            rest = sizes[1:]
            found = tuple(
                (share, *tail)
                for share in _shares(left, sizes[0])
                for tail in _dealt(rest, tuple(map(sub, left, share)))
            )
        if len(_DEALT) >= _CACHE_LIMIT:
            _DEALT.clear()
        _DEALT[key] = found
    return found


_SHARES: dict[tuple[tuple[int, ...], int], tuple[tuple[int, ...], ...]] = {}


def _shares(left: tuple[int, ...], size: int) -> tuple[tuple[int, ...], ...]:
    """Every way to take ``size`` ships out of ``left`` (counts per colour), most of the
    first colour first."""
    key = (left, size)
    found = _SHARES.get(key)
    if found is None:
        if not left:
            found = ((),) if size == 0 else ()
        else:
            head, tail = left[0], left[1:]
            room = sum(tail)
            found = tuple(
                (used, *rest)
                for used in range(min(head, size), max(0, size - room) - 1, -1)
                for rest in _shares(tail, size - used)
            )
        _SHARES[key] = found
    return found


def gentle_landing(ships: int, room: dict[int, int]) -> list[int] | None:
    """Beaches (one entry per ship) for a landing of ``ships`` that fills none (R8.2), or None.

    ``room`` is the free moorings of each beach of the island.
    """
    open_beaches = sorted((i for i, r in room.items() if r), key=lambda i: -room[i])
    if ships < len(open_beaches):
        chosen = open_beaches[:ships]
        return chosen if all(room[i] >= 2 for i in chosen) else None
    if any(room[i] < 2 for i in open_beaches):
        return None
    landing = list(open_beaches)
    for i in open_beaches:
        spare = room[i] - 2
        while len(landing) < ships and spare:
            landing.append(i)
            spare -= 1
    return landing if len(landing) == ships else None
