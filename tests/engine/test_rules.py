"""A targeted test for each rule id, from hand-chosen stack orders and actions."""

from __future__ import annotations

from typing import Any

import pytest

from engine import TILES, Game
from engine.cycles import QuietGraph
from engine.game import rank
from engine.landing import arrangements
from engine.tiles import DIRECTIONS, Hex, Tile, TileDataError, _island, _sea, neighbour, opposite

from .helpers import VECTORS, check_invariants, load, play, seas_first, setup, stack

TWO = ["yellow", "red"]


def expand(*beaches: int, island: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    return {"act": "expand", "island": list(island), "beaches": list(beaches), "take": None}


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["kind"] for e in events]


# --------------------------------------------------------------------------- R1, R2


def test_r1_catalogue_is_the_real_game() -> None:
    islands = [t for t in TILES.values() if t.is_island]
    seas = [t for t in TILES.values() if t.is_sea]
    assert len(islands) == 16 and len(seas) == 16
    assert sorted(t.points for t in islands) == [0] + [2] * 3 + [3] * 4 + [4] * 5 + [5] * 3
    assert sum(1 for t in seas for *_, d in t.paths if d == 0) == 12
    assert all(2 <= len(t.beaches) <= 6 for t in islands)


def test_r1_broken_tile_data_is_refused() -> None:
    with pytest.raises(TileDataError):
        _island({"id": "x", "name": "X", "points": 2, "beaches": [{"moorings": 3, "jetties": [1]}]})
    with pytest.raises(TileDataError):
        _island(
            {
                "id": "x",
                "name": "X",
                "points": 2,
                "beaches": [{"moorings": 6, "jetties": [1]}, {"moorings": 2, "jetties": [2]}],
            }
        )
    with pytest.raises(TileDataError):
        _sea({"id": "s", "paths": [[0, 1, 0], [1, 2, 0], [4, 5, 0]]})
    with pytest.raises(TileDataError):
        _sea({"id": "s", "paths": [[0, 1, 1], [2, 3, 0], [4, 5, 0]]})


def test_r2_directions_and_opposites() -> None:
    assert DIRECTIONS[0] == (0, 1) and DIRECTIONS[3] == (0, -1)
    for d in range(6):
        back = neighbour(neighbour((2, -1), d), opposite(d))
        assert back == (2, -1)


def test_r2_a_drawn_tile_faces_back_with_its_red_edge() -> None:
    game = play(TWO, stack("sea-13", "fiji"), [*setup(0, 0, 1, 1), expand(0, 2)])
    events = game.apply({"act": "emigrate", "beach": [0, 0, 0], "dir": 0})
    placed = [(e["tile"], e["at"], e["rot"]) for e in events if e["kind"] == "tile_placed"]
    # South of Tonga, then out of sea-13's edge 5 (world 2) to the north-west of it.
    assert placed == [("sea-13", [0, 1], 3), ("fiji", [-1, 1], 5)]


def test_r2_open_ends_at_the_start_are_tongas_six_jetties() -> None:
    game = play(TWO, stack(), [*setup(0, 1, 2, 3), {"act": "settle"}])
    ends = {(tuple(o["from"]), o["dir"]) for o in game.options()}
    assert ends == {((0, 0), d) for d in range(6)}


# --------------------------------------------------------------------------- R3, R4


def test_r3_setup_goes_twice_round_and_never_puts_a_third_ship() -> None:
    game = Game.new(["yellow", "red", "blue"], stack())
    order = []
    for beach in (0, 0, 1, 2, 3, 4):
        decision = game.decision
        assert decision is not None and decision.kind == "setup"
        order.append(decision.player)
        game.apply({"act": "setup", "beach": [0, 0, beach]}, player=decision.player)
    assert order == ["yellow", "red", "blue", "yellow", "red", "blue"]
    decision = game.decision
    assert decision is not None and (decision.kind, decision.player) == ("turn", "yellow")


def test_r3_a_beach_with_two_ships_takes_no_more_in_setup() -> None:
    game = play(TWO, stack(), setup(0, 0))
    beaches = [o["beach"][2] for o in game.options()]
    assert beaches == [1, 2, 3, 4, 5]


def test_r4_1_no_ship_on_a_beach_means_two_on_tonga_or_settle() -> None:
    # Both beaches fill; both groups fail at sea (danger 4, then 3).
    game = play(
        TWO,
        stack("sea-07", "sea-06"),
        [
            *setup(0, 1, 0, 1),
            expand(0, 1),
            {"act": "emigrate", "beach": [0, 0, 0], "dir": 0},
            {"act": "emigrate", "beach": [0, 0, 1], "dir": 1},
        ],
    )
    assert game.supply("yellow") == 15 and game.supply("red") == 15
    decision = game.decision
    assert decision is not None and (decision.kind, decision.player) == ("turn", "red")
    acts = {o["act"] for o in decision.options}
    assert acts == {"tonga", "settle"}
    assert sum(o["act"] == "tonga" for o in decision.options) == 21  # pairs b1 <= b2 of 6
    game.apply({"act": "tonga", "beaches": [2, 2]})
    tonga = [o["beaches"] for o in game.options() if o["act"] == "tonga"]
    assert [2, 2] not in tonga and [1, 2] in tonga and len(tonga) == 20
    # A third ship fills beach 2: the chain reaction starts as after an expansion.
    game.apply({"act": "tonga", "beaches": [0, 2]})
    decision = game.decision
    assert decision is not None and (decision.kind, decision.player) == ("emigrate", "yellow")


# --------------------------------------------------------------------------- R5


def test_r5_2_expansion_places_exactly_k_ships_on_different_beaches() -> None:
    game = play(TWO, stack(), setup(0, 1, 0, 1))
    expands = [o for o in game.options() if o["act"] == "expand"]
    assert len(expands) == 15  # two of six beaches: yellow has n = 2 on Tonga
    assert all(len(o["beaches"]) == 2 == len(set(o["beaches"])) for o in expands)
    events = game.apply(expand(2, 3))
    assert events[0] == {
        "kind": "ships_placed",
        "player": "yellow",
        "beaches": [[0, 0, 2], [0, 0, 3]],
        "why": "expand",
    }
    assert game.supply("yellow") == 11


def test_r5_3_empty_supply_takes_a_ship_first() -> None:
    vector = load(VECTORS / "empty-supply-and-no-ships.json")
    game = Game.new(vector["record"]["seats"], vector["record"]["stack"])
    seen = 0
    for action in vector["record"]["actions"]:
        decision = game.decision
        assert decision is not None
        if decision.kind == "turn" and game.supply(decision.player) == 0:
            seen += 1
            snap = game.snapshot()
            mine = [[q, r, b] for q, r, b, c in snap["beaches"] if decision.player in c]
            expands = [o for o in decision.options if o["act"] == "expand"]
            assert expands, "an empty supply still expands, by taking a ship"
            assert all(o["take"] in mine and len(o["beaches"]) == 1 for o in expands)
            # Putting the ship back where it came from is offered (and idle).
            idle = next(o for o in expands if o["take"] == [*o["island"], o["beaches"][0]])
            trial = game.copy()
            trial.apply(idle)
            assert trial.snapshot()["beaches"] == snap["beaches"]
        game.apply(action)
    assert seen > 0


# --------------------------------------------------------------------------- R6, R7


def test_r6_voyage_crosses_sea_and_lands() -> None:
    game = play(TWO, stack("sea-13", "fiji"), [*setup(0, 0, 1, 1), expand(0, 2)])
    events = game.apply({"act": "emigrate", "beach": [0, 0, 0], "dir": 0})
    assert kinds(events) == ["emigrated", "tile_placed", "sea_crossed", "tile_placed"]
    assert events[2]["danger"] == 0 and events[2]["exit"] == 2
    decision = game.decision
    assert decision is not None and decision.kind == "land"
    assert decision.context == {"island": [-1, 1], "group": ["red", "yellow", "yellow"]}
    # Three ships, three empty beaches: one each, the red one on any of them.
    assert len(decision.options) == 3


@pytest.mark.parametrize(
    ("sea", "fails"),
    [("sea-14", False), ("sea-06", True), ("sea-07", True), ("sea-13", False)],
)
def test_r6_a_path_fails_when_its_danger_exceeds_the_colours(sea: str, fails: bool) -> None:
    # The group is red, yellow, yellow: two colours.
    game = play(TWO, stack(sea, "fiji"), [*setup(0, 0, 1, 1), expand(0, 2)])
    events = game.apply({"act": "emigrate", "beach": [0, 0, 0], "dir": 0})
    failed = [e for e in events if e["kind"] == "voyage_failed"]
    assert bool(failed) == fails
    if fails:
        assert failed[0]["returned"] == {"red": 1, "yellow": 2}
        assert game.supply("red") == 14 and game.supply("yellow") == 13
    check_invariants(game)


def test_r6_a_royal_island_sends_the_group_home() -> None:
    vector = load(VECTORS / "royal-bounce.json")
    game = Game.new(vector["record"]["seats"], vector["record"]["stack"])
    bounced = []
    for action in vector["record"]["actions"]:
        events = game.apply(action)
        for event in events:
            if event["kind"] == "bounced":
                start = next(e for e in events if e["kind"] == "emigrated")["beach"][:2]
                decision = game.decision
                assert decision is not None and decision.kind == "land"
                assert decision.context["island"] == start == event["back_to"]
                bounced.append(event)
    assert bounced


def test_r7_every_full_beach_and_jetty_is_offered_before_any_draw() -> None:
    game = play(TWO, stack("sea-07", "sea-06"), [*setup(0, 1, 0, 1), expand(0, 1)])
    decision = game.decision
    assert decision is not None and (decision.kind, decision.player) == ("emigrate", "yellow")
    assert [(o["beach"], o["dir"]) for o in decision.options] == [([0, 0, 0], 0), ([0, 0, 1], 1)]
    assert game.stack_counts == {"island": 15, "sea": 16}


# --------------------------------------------------------------------------- R8


def test_r8_arrangements_fill_every_beach_first() -> None:
    # Two ships, two beaches with room: one on each.
    assert sorted(arrangements(("red", "yellow"), (3, 0, 2))) == [
        (("red",), (), ("yellow",)),
        (("yellow",), (), ("red",)),
    ]
    # Three ships, room for two on two beaches: which ship stays behind is a choice.
    found = list(arrangements(("blue", "red", "red"), (1, 1)))
    assert sorted(found) == [
        (("blue",), ("red",)),
        (("red",), ("blue",)),
        (("red",), ("red",)),
    ]
    # One beach with room for all: every ship there.
    assert list(arrangements(("red", "red"), (0, 4))) == [((), ("red", "red"))]
    # No room: the only option is to land none.
    assert list(arrangements(("red",), (0, 0))) == [((), ())]
    # Fewer ships than beaches: each on a different beach.
    assert all(max(len(s) for s in a) == 1 for a in arrangements(("a", "b"), (2, 2, 2)))


def test_r8_overflow_returns_the_ships_that_do_not_fit() -> None:
    vector = load(VECTORS / "overflow.json")
    game = Game.new(vector["record"]["seats"], vector["record"]["stack"])
    checked = 0
    for action in vector["record"]["actions"]:
        decision = game.decision
        assert decision is not None
        if decision.kind == "land":
            snap = game.snapshot()
            q, r = decision.context["island"]
            tile = next(t for tq, tr, t, _ in snap["tiles"] if (tq, tr) == (q, r))
            held = {b: len(c) for bq, br, b, c in snap["beaches"] if (bq, br) == (q, r)}
            free = sum(b.moorings - held.get(i, 0) for i, b in enumerate(TILES[tile].beaches))
            group = decision.context["group"]
            for option in decision.options:
                assert len(option["ships"]) == min(len(group), free)
            if len(group) > free:
                checked += 1
                events = game.apply(action)
                returned = next(e for e in events if e["kind"] == "landed")["returned"]
                assert sum(returned.values()) == len(group) - free
                continue
        game.apply(action)
    assert checked


# --------------------------------------------------------------------------- R9, R10


def royal_game() -> Game:
    # Yellow's three ships sail south and land alone on Hawaii.
    return play(
        TWO,
        stack("hawaii"),
        [
            *setup(0, 1, 0, 1),
            expand(0, 2),
            {"act": "emigrate", "beach": [0, 0, 0], "dir": 0},
            {"act": "land", "ships": [[0, "yellow"], [1, "yellow"], [2, "yellow"]]},
            expand(3, 4),
        ],
    )


def test_r9_a_player_alone_on_an_island_may_make_it_royal() -> None:
    game = royal_game()
    decision = game.decision
    assert decision is not None and decision.player == "yellow"
    royal = [o for o in decision.options if o["act"] == "royal"]
    assert royal == [{"act": "royal", "island": [0, 1]}]  # never Tonga, never shared
    events = game.apply(royal[0])
    assert events[0]["kind"] == "royal_founded" and events[0]["returned"] == {"yellow": 2}
    snap = game.snapshot()
    assert snap["royal"] == [[0, 1, "yellow"]]
    assert not any((q, r) == (0, 1) for q, r, *_ in snap["beaches"])
    assert game.scores()["yellow"] == TILES["hawaii"].points
    check_invariants(game)
    # Red's turn (four ships on Tonga: four beaches); then yellow's, without the royal island.
    game.apply(expand(0, 2, 3, 5))
    assert not any(o.get("island") == [0, 1] for o in game.options())


def test_r9_a_royal_islands_jetties_are_still_open_ends() -> None:
    game = royal_game()
    game.apply({"act": "royal", "island": [0, 1]})
    game.apply({"act": "settle"})
    ends = {(tuple(o["from"]), o["dir"]) for o in game.options()}
    assert any(at == (0, 1) for at, _ in ends)


def test_r10_new_settlement_draws_until_an_island() -> None:
    game = play(TWO, stack("sea-13", "fiji"), setup(0, 1, 0, 1))
    events = game.apply({"act": "settle"})
    assert events[0] == {"kind": "settlement_started", "player": "yellow", "returned": 2}
    assert game.supply("yellow") == 15
    game.apply({"act": "place", "from": [0, 0], "dir": 0})
    decision = game.decision
    assert decision is not None and decision.kind == "place"
    assert decision.context == {"why": "settle"}
    assert {"act": "place", "from": [0, 1], "dir": 0} in decision.options  # the sea's ends too
    game.apply({"act": "place", "from": [0, 1], "dir": 0})
    decision = game.decision
    assert decision is not None and decision.kind == "settle_ship"
    assert [o["beach"] for o in decision.options] == [[0, 2, 0], [0, 2, 1], [0, 2, 2]]
    game.apply({"act": "settle_ship", "beach": [0, 2, 1]})
    decision = game.decision
    assert decision is not None and (decision.kind, decision.player) == ("turn", "red")
    assert game.beach_ships((0, 2)) == ((), ("yellow",), ())


# --------------------------------------------------------------------------- R12, R13, R14


def test_r12_the_last_sea_tile_ends_a_settlement_before_any_ship() -> None:
    game = play(TWO, seas_first(), [*setup(0, 1, 0, 1), {"act": "settle"}])
    placed = 0
    while not game.over:
        decision = game.decision
        assert decision is not None and decision.kind == "place"
        game.apply(decision.options[0])
        placed += 1
    assert placed == 16
    assert game.stack_counts == {"island": 15, "sea": 0}
    result = game.result
    assert result is not None
    # Nobody has points; red is on Tonga (one island), yellow on none.
    assert result["points"] == {"yellow": 0, "red": 0}
    assert result["islands"] == {"yellow": 0, "red": 1}
    assert result["rank"] == {"red": 1, "yellow": 2}


def test_r12_the_last_island_still_receives_its_landing() -> None:
    vector = load(VECTORS / "last-island-voyage.json")
    game = Game.from_record(
        {**vector["record"], "actions": vector["record"]["actions"][:-1]}, checked=True
    )
    decision = game.decision
    assert decision is not None and decision.kind == "land"
    assert game.stack_counts["island"] == 0
    events = game.apply(vector["record"]["actions"][-1])
    assert kinds(events)[-2:] == ["landed", "game_over"]
    assert game.over and game.decision is None


def test_r13_ranking_and_both_tie_breaks() -> None:
    points = {"a": 9, "b": 9, "c": 9, "d": 4}
    islands = {"a": 3, "b": 3, "c": 2, "d": 5}
    ships = {"a": 5, "b": 6, "c": 1, "d": 1}
    assert rank(points, islands, ships) == {"a": 1, "b": 2, "c": 3, "d": 4}
    ships["b"] = 5
    assert rank(points, islands, ships) == {"a": 1, "b": 1, "c": 3, "d": 4}


def test_r14_a_single_option_is_still_a_decision() -> None:
    game = play(
        TWO,
        stack("hawaii"),
        [*setup(0, 1, 0, 1), expand(0, 2), {"act": "emigrate", "beach": [0, 0, 0], "dir": 0}],
    )
    decision = game.decision
    assert decision is not None and decision.kind == "land" and len(decision.options) == 1
    assert game.snapshot()["decision"]["options"] == [decision.options[0]]


# --------------------------------------------------------------------------- R11

RING = ["hawaii", "fiji", "samoa", "oahu", "tahiti", "tuvalu"]
OWNERS = ["red", "red", "blue", "blue", "green", "green"]


def ringed_tiles() -> tuple[dict[Hex, tuple[Tile, int]], dict[Hex, str]]:
    """Tonga with a royal island on every side: every jetty leads back to Tonga."""
    tiles: dict[Hex, tuple[Tile, int]] = {(0, 0): (TILES["tonga"], 0)}
    royal: dict[Hex, str] = {}
    for d, (tile, owner) in enumerate(zip(RING, OWNERS, strict=True)):
        at = neighbour((0, 0), d)
        tiles[at] = (TILES[tile], 0)
        royal[at] = owner
    return tiles, royal


@pytest.mark.parametrize(
    ("counts", "ends"),
    [
        # A landing of three puts one ship on each of three beaches, the emptied
        # one at most: after it that beach holds at most 1, so with every other
        # beach at 2 or less there are at most 11 ships.
        ((3, 3, 3, 2, 0, 0), True),  # 11 ships: (3,1,1,2,2,2) -> (1,2,2,2,2,2)
        ((3, 3, 3, 3, 0, 0), False),  # 12 ships: some beach is always full
        ((3, 3, 3, 3, 3, 3), False),
    ],
)
def test_r11_an_island_whose_every_jetty_leads_back_to_it(
    counts: tuple[int, ...], ends: bool
) -> None:
    graph = QuietGraph(*ringed_tiles())
    position = graph.position({(0, 0): tuple(("yellow",) * n for n in counts)})
    assert graph.can_end(position) is ends
    if not ends:
        assert graph.caught_islands(position) == {(0, 0)}


def test_r11_the_endless_island_is_cleared_and_removed_then_a_tile_recovers() -> None:
    seats = ["yellow", "red", "blue", "green"]
    game = Game.new(seats, stack(*RING))
    tiles, royal = ringed_tiles()
    # White-box: lay the ring out as if it had been played, its tiles out of the stack.
    game._draw_pile = [t for t in game._draw_pile if t not in RING]
    game._islands_left -= len(RING)
    for at, (tile, rot) in tiles.items():
        if at != (0, 0):
            game._place(tile, at, rot)
    game._royal.update(royal)
    game._board_changed()
    game._founded.update(red=2, blue=2, green=2)
    y, r = "yellow", "red"
    game._set_ships((0, 0), ((y, y), (y, y), (y, y), (y, y), (r, r), (r,)))
    game._supply.update(yellow=7, red=10, blue=13, green=13)
    game._setups, game._active, game._kind = 8, 0, "turn"
    check_invariants(game)

    options = [o for o in game.options() if o["act"] == "expand"]
    assert options == [expand(0, 1, 2, 3, 4, 5)]  # k = min(8 ships there, 6 beaches, supply 7)
    events = game.apply(options[0], player="yellow")
    removed = [e for e in events if e["kind"] == "island_removed"]
    assert removed == [
        {
            "kind": "island_removed",
            "island": [0, 0],
            "tile": "tonga",
            "returned": {"red": 3, "yellow": 14},
        }
    ]
    snap = game.snapshot()
    assert snap["removed"] == ["tonga"] and snap["beaches"] == []
    assert game.tile_at((0, 0)) is None
    # R11.3: yellow has no ship on a beach, so yellow places tiles until an island.
    decision = game.decision
    assert decision is not None and decision.kind == "place"
    assert decision.context == {"why": "recover"} and decision.player == "yellow"
    assert {"act": "place", "from": [0, 1], "dir": 3} in decision.options
    events = game.apply({"act": "place", "from": [0, 1], "dir": 3})
    assert events[0]["tile"] == "muroroa"  # the top of the stack once the ring is out
    assert game.tile_at((0, 0)) == ("muroroa", 0)
    decision = game.decision
    assert decision is not None and (decision.kind, decision.player) == ("turn", "red")
    assert game.beach_ships((0, 0)) == ((), (), ())  # no ship on the recovered island
    check_invariants(game)
