"""Bad input gets a precise reason code and never changes the game."""

from __future__ import annotations

from typing import Any

import pytest

from engine import ActionError, Game, Reason, RecordError, canonical

from .helpers import play, seas_first, setup, stack

TWO = ["yellow", "red"]

MALFORMED: list[Any] = [
    None,
    "settle",
    ["act", "settle"],
    {},
    {"act": 1},
    {"act": "fly"},
    {"act": "settle", "extra": 1},
    {"act": "expand", "island": [0, 0], "beaches": [0, 1]},
    {"act": "expand", "island": [0, 0], "beaches": [0, 1], "take": 7},
    {"act": "expand", "island": [0, "0"], "beaches": [0, 1], "take": None},
    {"act": "expand", "island": [0, 0, 0], "beaches": [0, 1], "take": None},
    {"act": "expand", "island": [0, 0], "beaches": [True, 1], "take": None},
    {"act": "expand", "island": [0, 0], "beaches": [0.0, 1], "take": None},
    {"act": "expand", "island": [0, 0], "beaches": "01", "take": None},
    {"act": "land", "ships": [[0, "pink"]]},
    {"act": "land", "ships": [[0, "red", 1]]},
    {"act": "place", "from": [0, 0], "dir": None},
    {"act": "tonga", "beaches": None},
]


def turn_game() -> Game:
    return play(TWO, stack(), setup(0, 1, 0, 1))


@pytest.mark.parametrize("action", MALFORMED, ids=lambda a: canonical(a)[:40])
def test_malformed_actions(action: Any) -> None:
    game = turn_game()
    before = canonical(game.view())
    with pytest.raises(ActionError) as caught:
        game.apply(action, player="yellow")
    assert caught.value.reason is Reason.MALFORMED_ACTION
    assert canonical(game.view()) == before
    assert len(game.actions) == 4


@pytest.mark.parametrize(
    "action",
    [
        {"act": "settle_ship", "beach": [0, 0, 0]},
        {"act": "expand", "island": [0, 0], "beaches": [0], "take": None},  # k is 2
        {"act": "expand", "island": [0, 0], "beaches": [1, 0], "take": None},  # unsorted
        {"act": "expand", "island": [0, 0], "beaches": [0, 9], "take": None},
        {"act": "royal", "island": [0, 0]},
        {"act": "tonga", "beaches": [0, 1]},
        {"act": "setup", "beach": [0, 0, 3]},
    ],
)
def test_well_formed_but_not_an_option_is_illegal(action: dict[str, Any]) -> None:
    game = turn_game()
    before = canonical(game.view())
    with pytest.raises(ActionError) as caught:
        game.apply(action, player="yellow")
    assert caught.value.reason is Reason.ILLEGAL_ACTION
    assert caught.value.metadata["decision"] == "turn"
    assert canonical(game.view()) == before


def test_another_seat_cannot_act_and_strangers_are_unknown() -> None:
    game = turn_game()
    with pytest.raises(ActionError) as caught:
        game.apply({"act": "settle"}, player="red")
    assert caught.value.reason is Reason.NOT_YOUR_TURN
    assert caught.value.metadata == {"player": "red", "expected": "yellow"}
    with pytest.raises(ActionError) as caught:
        game.apply({"act": "settle"}, player="blue")
    assert caught.value.reason is Reason.UNKNOWN_PLAYER
    with pytest.raises(ActionError) as caught:
        game.view("purple")
    assert caught.value.reason is Reason.UNKNOWN_PLAYER
    assert len(game.actions) == 4


def test_nothing_is_accepted_after_the_game_is_over() -> None:
    game = play(TWO, seas_first(), [*setup(0, 1, 0, 1), {"act": "settle"}])
    while not game.over:
        game.apply_option(0)
    for action in ({"act": "settle"}, "garbage"):
        with pytest.raises(ActionError) as caught:
            game.apply(action)
        assert caught.value.reason is Reason.GAME_OVER
    with pytest.raises(ActionError):
        game.apply_option(0)


def test_option_index_out_of_range() -> None:
    game = turn_game()
    with pytest.raises(ActionError) as caught:
        game.apply_option(len(game.options()))
    assert caught.value.reason is Reason.ILLEGAL_ACTION


@pytest.mark.parametrize(
    ("seats", "tiles"),
    [
        (["yellow"], stack()),
        (["yellow", "yellow"], stack()),
        (["yellow", "black"], stack()),
        ("yellow,red", stack()),
        (TWO, stack()[:-1]),
        (TWO, [*stack()[:-1], "tonga"]),
        (TWO, [*stack()[:-1], stack()[0]]),
        (["yellow", "orange", "red", "green", "blue", "purple", "yellow"], stack()),
    ],
)
def test_invalid_setups_are_refused(seats: Any, tiles: Any) -> None:
    with pytest.raises(RecordError) as caught:
        Game.new(seats, tiles)
    assert caught.value.reason is Reason.INVALID_RECORD


def test_a_checked_record_names_the_bad_step() -> None:
    record = {"seats": TWO, "stack": stack(), "actions": [*setup(0, 1), {"act": "settle"}]}
    with pytest.raises(ActionError) as caught:
        Game.from_record(record)
    assert caught.value.metadata["step"] == 2
    assert caught.value.to_dict()["reason"] == "ILLEGAL_ACTION"


def test_tuples_are_as_good_as_lists() -> None:
    game = turn_game()
    game.apply({"act": "expand", "island": (0, 0), "beaches": (2, 3), "take": None}, "yellow")
    assert game.actions[-1] == {"act": "expand", "beaches": [2, 3], "island": [0, 0], "take": None}
