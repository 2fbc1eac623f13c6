"""Complete games over gRPC, checked against the engine's replay of their records."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc
import pytest
from server_harness import (
    COLOURS,
    auth,
    new_game,
    play_seat,
    random_chooser,
    refused,
    running,
    spectate,
)

from engine import Game
from server.app import loop_factory, run
from server.game.authority import Limits
from server.rpc import codec as convert
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc


async def _play_and_check(
    stub: rpc.GameServiceStub, seats: int, seed: int, *, stream: bool = False, hold: bool = False
) -> None:
    name, tokens = await new_game(stub, seats)
    spectator = asyncio.create_task(spectate(stub, name))
    players = await asyncio.gather(
        *(
            play_seat(
                stub, name, colour, token, random_chooser(seed * 10 + i), stream=stream, hold=hold
            )
            for i, (colour, token) in enumerate(tokens.items())
        )
    )
    watched = await spectator

    got = await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))
    record = json.loads(got.record_json)
    assert got.record == convert.record_to_proto(record)
    replay = Game.from_record({**record, "actions": []})
    applied = [e.action_applied for e in watched.entries() if e.HasField("action_applied")]
    assert len(applied) == len(record["actions"])
    for action, entry in zip(record["actions"], applied, strict=True):
        player = replay.decision.player if replay.decision else None
        events = replay.apply(action)
        assert entry.player == convert.COLOUR[player or ""]
        assert entry.action == convert.action_to_proto(action)
        assert list(entry.events) == convert.events_to_proto(events)
        if replay.decision is None:
            assert not entry.HasField("decision")
        else:
            assert entry.decision == convert.decision_to_proto(replay.decision.to_dict())
    assert replay.over
    final = await stub.GetGame(spb.GetGameRequest(name=name))
    assert final.snapshot.game.state == pb.GAME_STATE_FINISHED
    assert final.snapshot.view == convert.view_to_proto(replay.view(None))
    for colour, token in tokens.items():
        mine = await stub.GetGame(spb.GetGameRequest(name=name), metadata=auth(token))
        expected = replay.view(convert.COLOUR_NAME[colour])
        assert mine.snapshot.view == convert.view_to_proto(expected)
    # Every player saw the same entries as the spectator, in order: on its watch, or
    # (its own actions' entries, when its watch leaves them out) in its responses.
    for colour, seen in zip(tokens, players, strict=True):
        start = seen.messages[0].snapshot.sequence
        tail = [e for e in watched.entries() if e.sequence > start]
        mine = [e for e in seen.entries() if e.sequence > start]
        if stream:
            assert seen.own
            assert not {e.sequence for e in mine} & {e.sequence for e in seen.own}
            assert all(e.action_applied.player != colour for e in mine)
            mine = sorted(mine + seen.own, key=lambda e: e.sequence)
        assert mine == tail
        if hold:
            # Each message after the first ends with the entry that gives this seat the
            # decision, or is the last one (the game is over), or holds half a watch
            # buffer (another seat's long turn); so there are fewer of them.
            half = Limits().watch_buffer // 2
            for message in seen.messages[1:-1]:
                last = message.entries[-1]
                if len(message.entries) < half:
                    assert last.action_applied.decision.player == colour, last
            assert len(seen.messages) - 1 < len(seen.entries())


def test_complete_games_match_the_engine_replay(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            await asyncio.gather(*(_play_and_check(stub, seats, seats) for seats in (2, 4, 6)))
            listed = await stub.ListGames(spb.ListGamesRequest(page_size=2))
            assert len(listed.games) == 2 and listed.next_page_token
            rest = await stub.ListGames(
                spb.ListGamesRequest(page_size=2, page_token=listed.next_page_token)
            )
            assert len(rest.games) == 1 and not rest.next_page_token
            finished = await stub.ListGames(spb.ListGamesRequest(state=pb.GAME_STATE_FINISHED))
            assert len(finished.games) == 3

    asyncio.run(main())


def test_complete_games_over_submit_actions_streams(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            await asyncio.gather(
                *(_play_and_check(stub, seats, seats + 20, stream=True) for seats in (2, 4))
            )

    asyncio.run(main())


def test_complete_games_with_seats_held_until_their_turn(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            await asyncio.gather(
                _play_and_check(stub, 3, 31, stream=True, hold=True),
                _play_and_check(stub, 4, 41, stream=False, hold=True),
            )

    asyncio.run(main())


@pytest.mark.parametrize("event_loop", ["asyncio", "uvloop"])
def test_a_complete_game_on_either_event_loop(tmp_path: Path, event_loop: str) -> None:
    async def main() -> str:
        async with running(tmp_path) as (_, stub, _channel):
            await _play_and_check(stub, 3, 5)
        return type(asyncio.get_running_loop()).__module__

    assert run(main(), event_loop).split(".")[0] == event_loop


def test_unknown_event_loops_are_refused() -> None:
    with pytest.raises(ValueError, match="event_loop"):
        loop_factory("trio")


def test_lobby_join_leave_start(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            name, tokens = await new_game(stub, 3, start_game=False)
            yellow, red = tokens[pb.COLOUR_YELLOW], tokens[pb.COLOUR_RED]
            code, reason, _ = await refused(stub.JoinGame(spb.JoinGameRequest(name=name)))
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_FULL")
            code, reason, _ = await refused(
                stub.SubmitAction(
                    spb.SubmitActionRequest(
                        name=name, request_id="r", action_json='{"act":"settle"}'
                    ),
                    metadata=auth(red),
                )
            )
            assert reason == "GAME_NOT_STARTED"
            left = await stub.LeaveGame(spb.LeaveGameRequest(name=name), metadata=auth(red))
            assert [s.occupied for s in left.game.seats] == [True, True, False]
            code, reason, _ = await refused(
                stub.GetGame(spb.GetGameRequest(name=name), metadata=auth(red))
            )
            assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
            code, reason, _ = await refused(
                stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(yellow))
            )
            assert reason == "SEATS_OPEN"
            code, reason, _ = await refused(
                stub.JoinGame(spb.JoinGameRequest(name=name, colour=pb.COLOUR_YELLOW))
            )
            assert reason == "SEAT_TAKEN"
            code, reason, _ = await refused(
                stub.JoinGame(spb.JoinGameRequest(name=name, colour=pb.COLOUR_PURPLE))
            )
            assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "NO_SUCH_SEAT")
            joined = await stub.JoinGame(spb.JoinGameRequest(name=name, display_name="Ana"))
            assert joined.colour == pb.COLOUR_RED
            started = await stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(yellow))
            assert started.game.state == pb.GAME_STATE_ACTIVE
            assert started.game.seats[2].display_name == "Ana"
            code, reason, _ = await refused(
                stub.StartGame(spb.StartGameRequest(name=name), metadata=auth(yellow))
            )
            assert reason == "GAME_ALREADY_STARTED"
            code, reason, _ = await refused(stub.GetGameRecord(spb.GetGameRecordRequest(name=name)))
            assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED")

            auto = await stub.CreateGame(
                spb.CreateGameRequest(
                    seats=COLOURS[:2], settings=pb.GameSettings(auto_start=True, display_name="x")
                )
            )
            for _ in range(2):
                await stub.JoinGame(spb.JoinGameRequest(name=auto.game.name))
            got = await stub.GetGame(spb.GetGameRequest(name=auto.game.name))
            assert got.snapshot.game.state == pb.GAME_STATE_ACTIVE
            assert got.snapshot.view.decision.kind == pb.DECISION_KIND_SETUP

    asyncio.run(main())
