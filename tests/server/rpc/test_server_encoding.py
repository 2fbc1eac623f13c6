"""Entries encoded by hand (decision options reused, frames built once) equal the messages."""

from __future__ import annotations

import random

from engine import Game
from engine.playout import shuffled_stack
from server.rpc import codec as convert
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb


def test_decision_bytes_equal_the_message_encoding() -> None:
    for seed in range(3):
        game = Game.new(["yellow", "orange", "red", "green"], shuffled_stack(seed))
        rng = random.Random(seed)
        while not game.over:
            decision = game.decision
            assert decision is not None
            d = decision.to_dict()
            assert convert.decision_bytes(d) == convert.decision_to_proto(d).SerializeToString()
            game.apply(rng.choice(d["options"]), d["player"])


def test_varint_and_fields_parse_back() -> None:
    for value in (0, 1, 127, 128, 300, 2**31, 2**40 + 5):
        entry = pb.LogEntry(sequence=value, seat_left=pb.SeatLeft(colour=pb.COLOUR_RED))
        assert (
            pb.LogEntry.FromString(
                convert.varint(1 << 3)
                + convert.varint(value)
                + convert.field_bytes(3, entry.seat_left.SerializeToString())
            )
            == entry
        )
    frame = convert.field_bytes(2, b"")
    assert spb.WatchGameResponse.FromString(frame).entries[0] == pb.LogEntry()
