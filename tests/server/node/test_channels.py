"""Clients that know several nodes: round robin, and retries while a node is down."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from tongiaki import channels
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc
from webclient.run import ServerProcess

pytestmark = pytest.mark.sqlite_only


def test_address_lists_are_parsed_and_resolved() -> None:
    assert channels.addresses("a:1, b:2") == [("a", 1), ("b", 2)]
    assert channels.addresses("[::1]:50051") == [("::1", 50051)]
    assert channels.target("localhost:5,127.0.0.2:6") == "ipv4:127.0.0.1:5,127.0.0.2:6"
    assert channels.target("[::1]:7") == "ipv6:[::1]:7"
    for bad in ["", "host", "host:", ":5", "host:x", "host:70000", "a:1,,b:2"]:
        with pytest.raises(ValueError):
            channels.addresses(bad)
    with pytest.raises(ValueError):
        channels.target("127.0.0.1:1,[::1]:2")


def _names(port: int) -> set[str]:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        games = rpc.GameServiceStub(channel).ListGames(spb.ListGamesRequest()).games
        return {g.name for g in games}


def test_calls_spread_over_nodes_and_go_on_while_one_is_down(tmp_path: Path) -> None:
    nodes = [ServerProcess(tmp_path / f"node{i}", quiet=True) for i in range(2)]
    try:
        listed = ",".join(node.target for node in nodes)
        with channels.channel(listed) as channel:
            stub = rpc.GameServiceStub(channel)
            created = {
                stub.CreateGame(
                    spb.CreateGameRequest(seats=[pb.COLOUR_RED, pb.COLOUR_BLUE])
                ).game.name
                for _ in range(10)
            }
            # Each node has its own store here: every game is on exactly one, and both got some.
            on = [_names(node.port) for node in nodes]
            assert on[0] | on[1] == created and not on[0] & on[1]
            assert on[0] and on[1]
            nodes[0].stop()
            after = [
                stub.CreateGame(spb.CreateGameRequest(seats=[pb.COLOUR_RED, pb.COLOUR_BLUE]))
                for _ in range(10)
            ]
            assert {g.game.name for g in after} <= _names(nodes[1].port)
    finally:
        for node in nodes:
            node.stop()
