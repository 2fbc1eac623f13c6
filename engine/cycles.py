"""Endless chain reactions (R11).

Quiet emigrations (no draw, no failure at sea, every ship finds a mooring)
only move ships between beaches, so the positions they reach form a finite
graph. This module explores that graph for one board (tiles and royal islands
fixed): which positions can end (R11), which choices R11.1 allows, and which
islands R11.2 clears when no choice can end the chain reaction.
"""

from __future__ import annotations

from heapq import heappop, heappush
from collections.abc import Iterator, Mapping

from .landing import Arrangement, Colours, arrangements
from .tiles import Hex, Tile, neighbour, opposite

#: Ships on every beach of every non-royal island, in the graph's island order.
Position = tuple[tuple[Colours, ...], ...]
#: Where a jetty's voyage ends over the tiles already placed: an island index
#: (-1 when it reaches an empty hex and would draw) and the highest danger on the way.
Route = tuple[int, int]


class QuietGraph:
    """The quiet-step graph of one board, with memoised answers."""

    def __init__(self, tiles: Mapping[Hex, tuple[Tile, int]], royal: Mapping[Hex, str]) -> None:
        self._tiles = tiles
        self._royal = royal
        self.islands: tuple[Hex, ...] = tuple(
            at for at, (tile, _) in tiles.items() if tile.is_island and at not in royal
        )
        self._index = {at: i for i, at in enumerate(self.islands)}
        self._moorings = tuple(
            tuple(b.moorings for b in tiles[at][0].beaches) for at in self.islands
        )
        self._jetties = tuple(
            tuple(tuple((j + tiles[at][1]) % 6 for j in b.jetties) for b in tiles[at][0].beaches)
            for at in self.islands
        )
        self._routes: dict[tuple[int, int], Route] = {}
        self._can_end: dict[Position, bool] = {}

    def position(self, ships: Mapping[Hex, tuple[Colours, ...]]) -> Position:
        """The position of ``ships`` (royal islands' beaches are always empty)."""
        return tuple(ships[at] for at in self.islands)

    # ---------------------------------------------------------------- single steps

    def route(self, island: int, direction: int) -> Route:
        """Where a voyage from ``island`` out of ``direction`` ends (R6), without drawing."""
        key = (island, direction)
        found = self._routes.get(key)
        if found is not None:
            return found
        here, heading, danger = self.islands[island], direction, 0
        while True:
            ahead = neighbour(here, heading)
            placed = self._tiles.get(ahead)
            if placed is None:
                found = (-1, danger)
                break
            tile, rot = placed
            if tile.is_island:
                found = (island if ahead in self._royal else self._index[ahead], danger)
                break
            leave, step_danger = tile.exits[(opposite(heading) - rot) % 6]
            danger = max(danger, step_danger)
            here, heading = ahead, (leave + rot) % 6
        self._routes[key] = found
        return found

    def _quiet_landing(self, position: Position, i: int, b: int, d: int) -> tuple[int, Position]:
        """For a quiet emigration: the island it lands on and the position without the group.

        Returns ``(-1, position)`` when the emigration is loud.
        """
        group = position[i][b]
        dest, danger = self.route(i, d)
        if dest < 0 or danger > len(set(group)):
            return -1, position
        island = list(position[i])
        island[b] = ()
        emptied = (*position[:i], tuple(island), *position[i + 1 :])
        free = sum(self._moorings[dest]) - sum(len(s) for s in emptied[dest])
        if len(group) > free:
            return -1, position
        return dest, emptied

    def _landings(self, position: Position, dest: int, group: Colours) -> Iterator[Position]:
        ships = position[dest]
        free = [m - len(s) for m, s in zip(self._moorings[dest], ships, strict=True)]
        for arrangement in arrangements(group, free):
            yield self._with(position, dest, arrangement)

    def _with(self, position: Position, dest: int, arrangement: Arrangement) -> Position:
        ships = tuple(
            tuple(sorted(s + add)) if add else s
            for s, add in zip(position[dest], arrangement, strict=True)
        )
        return (*position[:dest], ships, *position[dest + 1 :])

    def landed(self, position: Position, at: Hex, arrangement: Arrangement) -> Position:
        """The position after ``arrangement`` lands on the island at ``at``."""
        return self._with(position, self._index[at], arrangement)

    def _full(self, position: Position) -> Iterator[tuple[int, int]]:
        for i, ships in enumerate(position):
            moorings = self._moorings[i]
            for b, colours in enumerate(ships):
                if len(colours) == moorings[b]:
                    yield i, b

    def _moves(self, position: Position) -> list[tuple[int, Position, Colours]] | None:
        """The quiet emigrations of ``position`` as (island, position without the group, group).

        None when the position ends by itself: no beach is full, or a loud
        emigration is available.
        """
        quiet: list[tuple[int, Position, Colours]] = []
        full = False
        for i, b in self._full(position):
            full = True
            for d in self._jetties[i][b]:
                dest, emptied = self._quiet_landing(position, i, b, d)
                if dest < 0:
                    return None
                quiet.append((dest, emptied, position[i][b]))
        return quiet if full else None

    def _steps(self, position: Position) -> Iterator[Position]:
        """The positions one quiet step (an emigration and a landing) away."""
        for dest, emptied, group in self._moves(position) or ():
            yield from self._landings(emptied, dest, group)

    # ---------------------------------------------------------------- R11

    def is_quiet(self, position: Position, at: Hex, b: int, d: int) -> bool:
        """Whether emigrating from beach ``b`` at ``at`` out of ``d`` is quiet (R11)."""
        return self._quiet_landing(position, self._index[at], b, d)[0] >= 0

    def allowed_emigration(self, position: Position, at: Hex, b: int, d: int) -> bool:
        """R11.1: loud emigrations always; quiet ones if some landing after them can end."""
        i = self._index[at]
        dest, emptied = self._quiet_landing(position, i, b, d)
        if dest < 0:
            return True
        return any(self.can_end(p) for p in self._landings(emptied, dest, position[i][b]))

    def can_end(self, position: Position) -> bool:
        """R11: whether some sequence of quiet steps reaches a position that ends by itself.

        A best-first search (fewest full beaches first) that stops at the first
        such position; every position on the way there can end too. Only when
        nothing is found is the whole reachable graph known not to end.
        """
        known = self._can_end.get(position)
        if known is not None:
            return known
        if self._moves(position) is None:
            self._can_end[position] = True
            return True
        parent: dict[Position, Position | None] = {position: None}
        heap = [(0, 0, position)]
        pushed = 0
        while heap:
            p = heappop(heap)[2]
            for step in self._steps(p):
                if step in parent:
                    continue
                parent[step] = p
                known = self._can_end.get(step)
                if known is False:
                    continue
                if known or self._moves(step) is None:
                    here: Position | None = step
                    while here is not None:
                        self._can_end[here] = True
                        here = parent[here]
                    return True
                pushed += 1
                heappush(heap, (sum(1 for _ in self._full(step)), pushed, step))
        for p in parent:
            self._can_end[p] = False
        return False

    def caught_islands(self, position: Position) -> set[Hex]:
        """R11.2: islands with a full beach in some position of a closed cycle.

        ``position`` must be one that cannot end: every position it reaches then
        cannot end either, and the closed cycles are the terminal strongly
        connected components of the graph it reaches.
        """
        graph: dict[Position, list[Position]] = {}
        todo = [position]
        while todo:
            p = todo.pop()
            if p not in graph:
                graph[p] = list(self._steps(p))
                todo.extend(s for s in graph[p] if s not in graph)
        caught: set[Hex] = set()
        for component in _terminal_components(graph):
            for p in component:
                caught.update(self.islands[i] for i, _ in self._full(p))
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
