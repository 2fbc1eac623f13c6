"""A plain implementation of the rules, written straight from RULES.md: the engine's yardstick.

It shares nothing with ``engine`` but the tile catalogue (``engine.tiles``: data,
not rules). State is plain dicts and lists, options are listed by brute force
(every landing arrangement enumerated and deduplicated by its JSON; R11's quiet
positions searched breadth first on copies, up to the first position that ends),
and a game is copied with ``copy.deepcopy``. It is what a careful first
implementation would look like, and ``benchmarks/engine_bench.py`` plays the
same random games through it and through the engine, checking that every
decision offers the same options, to print how much faster the engine is.
"""

from __future__ import annotations

import copy
import json
from collections import deque
from itertools import combinations
from typing import Any

from engine.tiles import COLOURS, DIRECTIONS, SHIPS_PER_COLOUR, START_ISLAND, TILES

Hex = tuple[int, int]
Position = tuple[tuple[Hex, tuple[tuple[str, ...], ...]], ...]


def key(option: dict[str, Any]) -> str:
    """An option's canonical JSON."""
    return json.dumps(option, sort_keys=True, separators=(",", ":"))


def step(at: Hex, d: int) -> Hex:
    return (at[0] + DIRECTIONS[d][0], at[1] + DIRECTIONS[d][1])


class PlainGame:
    """One game: ``options()`` lists the pending decision's options, ``apply`` takes one."""

    def __init__(self, seats: list[str], stack: list[str]) -> None:
        assert all(c in COLOURS for c in seats)
        self.seats = list(seats)
        self.stack = list(stack)  # top first
        self.tiles: dict[Hex, tuple[str, int]] = {(0, 0): (START_ISLAND, 0)}
        self.ships: dict[Hex, list[list[str]]] = {(0, 0): [[] for _ in range(6)]}
        self.royal: dict[Hex, str] = {}
        self.founded = dict.fromkeys(seats, 0)
        self.supply = dict.fromkeys(seats, SHIPS_PER_COLOUR)
        self.active = 0
        self.kind: str | None = "setup"
        self.setups = 0
        self.group: list[str] = []
        self.island: Hex = (0, 0)
        self.restricted = False
        self.ending = False
        self.cleared = False
        self._colours = 0  # colour count of the group a voyage is worked out for

    # ---------------------------------------------------------------- board

    def player(self) -> str:
        return self.seats[self.active]

    def is_island(self, at: Hex) -> bool:
        return TILES[self.tiles[at][0]].is_island

    def capacity(self, at: Hex) -> list[int]:
        return [b.moorings for b in TILES[self.tiles[at][0]].beaches]

    def free(self, at: Hex) -> list[int]:
        return [c - len(s) for c, s in zip(self.capacity(at), self.ships[at], strict=True)]

    def jetties(self, at: Hex, b: int) -> list[int]:
        rot = self.tiles[at][1]
        return sorted((j + rot) % 6 for j in TILES[self.tiles[at][0]].beaches[b].jetties)

    def full_beaches(self) -> list[tuple[Hex, int]]:
        return [
            (at, b)
            for at in self.ships
            for b, s in enumerate(self.ships[at])
            if len(s) == self.capacity(at)[b]
        ]

    def open_ends(self) -> list[tuple[Hex, int]]:
        ends = []
        loose = []
        for at, (tile, rot) in self.tiles.items():
            faces = (
                set(range(6))
                if TILES[tile].is_sea
                else {(j + rot) % 6 for b in TILES[tile].beaches for j in b.jetties}
            )
            for d in range(6):
                if step(at, d) not in self.tiles:
                    loose.append((at, d))
                    if d in faces:
                        ends.append((at, d))
        return ends or loose

    def stack_left(self) -> tuple[int, int]:
        islands = sum(1 for t in self.stack if TILES[t].is_island)
        return islands, len(self.stack) - islands

    def draw(self, at: Hex, rot: int) -> str:
        """Place the top tile at ``at``; R12: note whether it ends the game."""
        tile = self.stack.pop(0)
        self.tiles[at] = (tile, rot)
        if TILES[tile].is_island:
            self.ships[at] = [[] for _ in TILES[tile].beaches]
        if 0 in self.stack_left():
            self.ending = True
        return tile

    def position(self) -> Position:
        return tuple(sorted((at, tuple(tuple(s) for s in bs)) for at, bs in self.ships.items()))

    # ---------------------------------------------------------------- options

    def options(self) -> list[dict[str, Any]]:
        kind = self.kind
        if kind is None:
            return []
        found: list[dict[str, Any]]
        if kind == "setup":
            found = [
                {"act": "setup", "beach": [0, 0, b]}
                for b, s in enumerate(self.ships[(0, 0)])
                if len(s) <= 1
            ]
        elif kind == "turn":
            found = self.turn_options()
        elif kind == "emigrate":
            found = self.emigrate_options()
        elif kind == "land":
            found = self.land_options()
        elif kind == "place":
            found = [
                {"act": "place", "dir": d, "from": [at[0], at[1]]} for at, d in self.open_ends()
            ]
        else:
            q, r = self.island
            found = [
                {"act": "settle_ship", "beach": [q, r, b]}
                for b in range(len(self.ships[self.island]))
            ]
        unique = {key(o): o for o in found}
        return [unique[k] for k in sorted(unique)]

    def turn_options(self) -> list[dict[str, Any]]:
        me = self.player()
        supply = self.supply[me]
        mine = {at: sum(s.count(me) for s in bs) for at, bs in self.ships.items()}
        mine = {at: n for at, n in mine.items() if n}
        found: list[dict[str, Any]] = [{"act": "settle"}]
        if mine:
            for (q, r), n in mine.items():
                beaches = len(self.ships[(q, r)])
                if supply:
                    for chosen in combinations(range(beaches), min(n, beaches, supply)):
                        found.append(
                            {
                                "act": "expand",
                                "beaches": list(chosen),
                                "island": [q, r],
                                "take": None,
                            }
                        )
                else:
                    for t, bs in self.ships.items():
                        if t in self.royal:
                            continue
                        for tb, s in enumerate(bs):
                            if me in s:
                                for b in range(beaches):
                                    found.append(
                                        {
                                            "act": "expand",
                                            "beaches": [b],
                                            "island": [q, r],
                                            "take": [t[0], t[1], tb],
                                        }
                                    )
            if self.founded[me] < 2:
                for q, r in mine:
                    alone = all(c == me for s in self.ships[(q, r)] for c in s)
                    if alone and self.tiles[(q, r)][0] != START_ISLAND and (q, r) not in self.royal:
                        found.append({"act": "royal", "island": [q, r]})
            return found
        tonga = next((at for at, (t, _) in self.tiles.items() if t == START_ISLAND), None)
        if tonga is not None and supply >= 2:
            free = self.free(tonga)
            for b1 in range(6):
                for b2 in range(b1, 6):
                    if (b1 == b2 and free[b1] >= 2) or (b1 != b2 and free[b1] and free[b2]):
                        found.append({"act": "tonga", "beaches": [b1, b2]})
        if supply >= 1:
            for at in self.ships:
                if at == tonga or at in self.royal:
                    continue
                for b, f in enumerate(self.free(at)):
                    if f:
                        found.append({"act": "single", "beach": [at[0], at[1], b]})
        return found

    def emigrate_options(self) -> list[dict[str, Any]]:
        known: dict[Position, bool] = {}
        found = []
        for at, b in self.full_beaches():
            for d in self.jetties(at, b):
                targets = self.quiet_results(at, b, d)
                if targets is None or any(self.can_end(t, known) for t in targets):
                    found.append({"act": "emigrate", "beach": [at[0], at[1], b], "dir": d})
        return found

    def arrangements(self, group: list[str], free: list[int]) -> list[list[tuple[int, str]]]:
        """Every legal landing (R8) as sorted (beach, colour) pairs, duplicates removed."""
        m, total = len(group), sum(free)
        landing = min(m, total)
        open_beaches = [b for b, f in enumerate(free) if f]
        spread = min(landing, len(open_beaches))
        seen: dict[str, list[tuple[int, str]]] = {}
        for chosen in set(combinations(sorted(group), landing)):

            def place(
                i: int, room: list[int], done: list[tuple[int, str]], ships: tuple[str, ...]
            ) -> None:
                if i == len(ships):
                    if len({b for b, _ in done}) == spread:
                        pairs = sorted(done)
                        seen[json.dumps(pairs)] = pairs
                    return
                for b in range(len(room)):
                    if room[b]:
                        room[b] -= 1
                        done.append((b, ships[i]))
                        place(i + 1, room, done, ships)
                        done.pop()
                        room[b] += 1

            place(0, list(free), [], chosen)
        return list(seen.values())

    def land_options(self) -> list[dict[str, Any]]:
        found = self.arrangements(self.group, self.free(self.island))
        if self.restricted and found:
            known: dict[Position, bool] = {}
            found = [p for p in found if self.can_end(self.landed(self.island, p), known)]
        return [{"act": "land", "ships": [[b, c] for b, c in pairs]} for pairs in found]

    # ---------------------------------------------------------------- R11

    def voyage_end(self, at: Hex, d: int) -> tuple[str, Hex | None]:
        """Where a group from ``at`` through ``d`` goes over placed tiles:
        ('draw', None), ('fail', None) or ('land', island), for a group of colour count
        ``self._colours``."""
        here, heading = at, d
        while True:
            nxt = step(here, heading)
            if nxt not in self.tiles:
                return "draw", None
            tile, rot = self.tiles[nxt]
            if TILES[tile].is_sea:
                edge = ((heading + 3) % 6 - rot) % 6
                other, danger = TILES[tile].exits[edge]
                if danger > self._colours:
                    return "fail", None
                here, heading = nxt, (other + rot) % 6
                continue
            if nxt in self.royal:
                return "land", at
            return "land", nxt

    def quiet_results(self, at: Hex, b: int, d: int) -> list[Position] | None:
        """The positions a quiet emigration (with each landing) leads to; None if it is loud."""
        group = self.ships[at][b]
        self._colours = len(set(group))
        what, island = self.voyage_end(at, d)
        if what != "land" or island is None:
            return None
        saved = self.ships[at][b]
        self.ships[at][b] = []
        free = self.free(island)
        if len(group) > sum(free):
            self.ships[at][b] = saved
            return None
        results = [self.landed(island, pairs) for pairs in self.arrangements(group, free)]
        self.ships[at][b] = saved
        return results

    def landed(self, island: Hex, pairs: list[tuple[int, str]]) -> Position:
        trial = copy.deepcopy(self.ships)
        for b, c in pairs:
            trial[island][b] = sorted([*trial[island][b], c])
        return tuple(sorted((at, tuple(tuple(s) for s in bs)) for at, bs in trial.items()))

    def with_position(self, position: Position) -> PlainGame:
        other = copy.copy(self)
        other.ships = {at: [list(s) for s in bs] for at, bs in position}
        return other

    def quiet_steps(self, pos: Position) -> tuple[bool, list[Position]]:
        """Whether ``pos`` ends at once (no full beach, or a loud emigration) and, if
        not, the positions one quiet step (an emigration and a landing) away."""
        game = self.with_position(pos)
        full = game.full_beaches()
        if not full:
            return True, []
        succ: list[Position] = []
        for at, b in full:
            for d in game.jetties(at, b):
                results = game.quiet_results(at, b, d)
                if results is None:
                    return True, []
                succ.extend(results)
        return False, succ

    def can_end(self, start: Position, known: dict[Position, bool]) -> bool:
        """R11: whether quiet steps from ``start`` reach a position that ends at once,
        searched breadth first; ``known`` remembers answers on the same board."""
        if start in known:
            return known[start]
        seen = {start}
        todo = deque([start])
        while todo:
            at_once, succ = self.quiet_steps(todo.popleft())
            if at_once:
                known[start] = True
                return True
            for pos in succ:
                if known.get(pos):
                    known[start] = True
                    return True
                if pos not in seen:
                    seen.add(pos)
                    todo.append(pos)
        for pos in seen:  # everything reachable from here cannot end either
            known[pos] = False
        return False

    def graph(self) -> dict[Position, list[Position]]:
        """Every position reachable by quiet steps from the current one, with its
        quiet successors (for R11.2, where no position can end)."""
        edges: dict[Position, list[Position]] = {}
        todo = [self.position()]
        while todo:
            pos = todo.pop()
            if pos in edges:
                continue
            edges[pos] = self.quiet_steps(pos)[1]
            todo.extend(edges[pos])
        return edges

    def closed_cycles(self) -> set[Position]:
        """Positions in terminal strongly connected components of the quiet graph."""
        edges = self.graph()
        reach: dict[Position, set[Position]] = {}
        for p in edges:
            seen = {p}
            todo = [p]
            while todo:
                for t in edges[todo.pop()]:
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
            reach[p] = seen
        return {p for p in edges if all(p in reach[t] for t in reach[p])}

    # ---------------------------------------------------------------- applying

    def apply(self, option: dict[str, Any]) -> None:
        act = option["act"]
        me = self.player()
        if act == "setup":
            self.ships[(0, 0)][option["beach"][2]].append(me)
            self.ships[(0, 0)][option["beach"][2]].sort()
            self.supply[me] -= 1
            self.setups += 1
            n = len(self.seats)
            if self.setups == 2 * n:
                self.active = 0
                self.kind = "turn"
            else:
                self.active = self.setups % n
            return
        if act == "expand":
            if option["take"] is not None:
                tq, tr, tb = option["take"]
                self.ships[(tq, tr)][tb].remove(me)
                self.supply[me] += 1
            at = (option["island"][0], option["island"][1])
            for b in option["beaches"]:
                self.ships[at][b] = sorted([*self.ships[at][b], me])
                self.supply[me] -= 1
            self.chain()
        elif act == "tonga":
            tonga = next(at for at, (t, _) in self.tiles.items() if t == START_ISLAND)
            for b in option["beaches"]:
                self.ships[tonga][b] = sorted([*self.ships[tonga][b], me])
                self.supply[me] -= 1
            self.chain()
        elif act == "single":
            q, r, b = option["beach"]
            self.ships[(q, r)][b] = sorted([*self.ships[(q, r)][b], me])
            self.supply[me] -= 1
            self.chain()
        elif act == "royal":
            at = (option["island"][0], option["island"][1])
            n = sum(s.count(me) for s in self.ships[at])
            self.ships[at] = [[] for _ in self.ships[at]]
            self.supply[me] += n - 1
            self.royal[at] = me
            self.founded[me] += 1
            self.end_turn()
        elif act == "settle":
            for bs in self.ships.values():
                for s in bs:
                    while me in s:
                        s.remove(me)
                        self.supply[me] += 1
            self.kind = "place"
        elif act == "place":
            at = (option["from"][0], option["from"][1])
            d = option["dir"]
            where = step(at, d)
            tile = self.draw(where, (d + 3) % 6)
            if TILES[tile].is_island:
                if self.cleared:  # R11.3: no ship
                    self.after_recover()
                else:
                    self.island = where
                    self.kind = "settle_ship"
            elif self.ending:
                self.finish()
        elif act == "settle_ship":
            q, r, b = option["beach"]
            self.ships[(q, r)][b] = sorted([*self.ships[(q, r)][b], me])
            self.supply[me] -= 1
            if self.ending:
                self.finish()
            else:
                self.end_turn()
        elif act == "emigrate":
            self.emigrate(option)
        elif act == "land":
            for b, c in option["ships"]:
                self.ships[self.island][b] = sorted([*self.ships[self.island][b], c])
            landed = [c for _, c in option["ships"]]
            back = list(self.group)
            for c in landed:
                back.remove(c)
            for c in back:
                self.supply[c] += 1
            self.group = []
            self.restricted = False
            if self.ending:
                self.finish()
            else:
                self.chain()

    def after_recover(self) -> None:
        if self.ending:
            self.finish()
        else:
            self.end_turn()

    def emigrate(self, option: dict[str, Any]) -> None:
        q, r, b = option["beach"]
        at = (q, r)
        d = option["dir"]
        quiet = self.quiet_results(at, b, d) is not None
        group = self.ships[at][b]
        self.ships[at][b] = []
        colours = len(set(group))
        here, heading = at, d
        while True:
            nxt = step(here, heading)
            if nxt not in self.tiles:
                self.draw(nxt, (heading + 3) % 6)
                if self.ending and TILES[self.tiles[nxt][0]].is_sea:
                    self.finish()  # the group stays at sea
                    return
            tile, rot = self.tiles[nxt]
            if TILES[tile].is_sea:
                edge = ((heading + 3) % 6 - rot) % 6
                other, danger = TILES[tile].exits[edge]
                if danger > colours:
                    for c in group:
                        self.supply[c] += 1
                    self.chain()
                    return
                here, heading = nxt, (other + rot) % 6
                continue
            self.island = at if nxt in self.royal else nxt
            self.group = list(group)
            self.restricted = quiet
            self.kind = "land"
            return

    def chain(self) -> None:
        """R7 and R11: emigrate while a beach is full, clearing endless cycles."""
        while self.full_beaches():
            if self.can_end(self.position(), {}):
                self.kind = "emigrate"
                return
            cycles = self.closed_cycles()
            doomed = set()
            for pos in cycles:
                game = self.with_position(pos)
                doomed |= {at for at, _ in game.full_beaches()}
            for at in doomed:
                for s in self.ships[at]:
                    for c in s:
                        self.supply[c] += 1
                del self.ships[at]
                del self.tiles[at]
            self.cleared = True
        if self.cleared:
            me = self.player()
            islands = any(self.is_island(at) for at in self.tiles)
            mine = any(me in s for bs in self.ships.values() for s in bs)
            if not islands or not mine:
                if not self.tiles:
                    tile = self.draw((0, 0), 0)
                    if TILES[tile].is_island:
                        self.after_recover()
                        return
                    if self.ending:
                        self.finish()
                        return
                self.kind = "place"
                return
        self.end_turn()

    def end_turn(self) -> None:
        self.cleared = False
        self.active = (self.active + 1) % len(self.seats)
        self.kind = "turn"

    def finish(self) -> None:
        self.kind = None

    def result(self) -> dict[str, dict[str, int]]:
        """R13: points, islands present on, ships on islands and rank of every player."""
        points = dict.fromkeys(self.seats, 0)
        islands = dict.fromkeys(self.seats, 0)
        ships = dict.fromkeys(self.seats, 0)
        for at, beaches in self.ships.items():
            present = {c for s in beaches for c in s}
            for s in beaches:
                for c in s:
                    ships[c] += 1
            if at in self.royal:
                present.add(self.royal[at])
                ships[self.royal[at]] += 1
            for c in present:
                points[c] += TILES[self.tiles[at][0]].points
                islands[c] += 1
        order = {c: (-points[c], -islands[c], ships[c]) for c in self.seats}
        rank = {c: 1 + sum(order[o] < order[c] for o in self.seats) for c in self.seats}
        return {"points": points, "islands": islands, "ships": ships, "rank": rank}
