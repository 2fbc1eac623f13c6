"""Authorization matrix: every RPC with no token, a bad token, another seat's token and
a token of another game. Nobody ever acts for a seat not theirs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from server_harness import COLOURS, auth, error_info, new_game, running

from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc

OK = (grpc.StatusCode.OK, "")
MISSING = (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING")
INVALID = (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
WRONG_GAME = (grpc.StatusCode.PERMISSION_DENIED, "TOKEN_WRONG_GAME")

Call = Callable[[rpc.GameServiceStub, str, list[tuple[str, str]]], Awaitable[Any]]


async def _outcome(call: Awaitable[Any]) -> tuple[grpc.StatusCode, str]:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        code, reason, _ = error_info(error)
        return code, reason
    return OK


async def _watch_first(stub: rpc.GameServiceStub, name: str, md: list[tuple[str, str]]) -> Any:
    call = stub.WatchGame(spb.WatchGameRequest(name=name), metadata=md)
    try:
        return await call.read()
    finally:
        call.cancel()


async def _watch_own_excluded(
    stub: rpc.GameServiceStub, name: str, md: list[tuple[str, str]]
) -> Any:
    call = stub.WatchGame(spb.WatchGameRequest(name=name, exclude_own_actions=True), metadata=md)
    try:
        return await call.read()
    finally:
        call.cancel()


def _submit_on_stream(request: spb.SubmitActionsRequest) -> Call:
    async def call(stub: rpc.GameServiceStub, name: str, md: list[tuple[str, str]]) -> Any:
        stream = stub.SubmitActions(metadata=md)
        try:
            request.name = name
            await stream.write(request)
            response = await stream.read()
            if response is grpc.aio.EOF:
                await stream  # raises the stream's error
            return response
        finally:
            stream.cancel()

    return call


def test_every_rpc_against_every_kind_of_caller(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, _channel):
            name, tokens = await new_game(stub, 2)
            yellow, orange = tokens[COLOURS[0]], tokens[COLOURS[1]]
            _other_name, other_tokens = await new_game(stub, 2)
            other = other_tokens[COLOURS[0]]
            before = await stub.GetGame(spb.GetGameRequest(name=name))
            decision = before.snapshot.view.decision
            assert decision.player == pb.COLOUR_YELLOW
            option = decision.options[0]

            callers = {
                "none": None,
                "bad": "not-a-token",
                "other seat": orange,
                "other game": other,
            }
            rpcs: dict[str, tuple[Call, dict[str, tuple[grpc.StatusCode, str]]]] = {
                "SubmitAction": (
                    lambda s, n, md: s.SubmitAction(
                        spb.SubmitActionRequest(
                            name=n, sequence=before.snapshot.sequence, request_id="x", action=option
                        ),
                        metadata=md,
                    ),
                    {
                        "none": MISSING,
                        "bad": INVALID,
                        "other game": WRONG_GAME,
                        "other seat": (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
                    },
                ),
                "SubmitActions": (
                    _submit_on_stream(
                        spb.SubmitActionsRequest(
                            sequence=before.snapshot.sequence, request_id="x", action=option
                        )
                    ),
                    {
                        "none": MISSING,
                        "bad": INVALID,
                        "other game": WRONG_GAME,
                        "other seat": (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),
                    },
                ),
                "StartGame": (
                    lambda s, n, md: s.StartGame(spb.StartGameRequest(name=n), metadata=md),
                    {
                        "none": MISSING,
                        "bad": INVALID,
                        "other game": WRONG_GAME,
                        "other seat": (grpc.StatusCode.FAILED_PRECONDITION, "GAME_ALREADY_STARTED"),
                    },
                ),
                "LeaveGame": (
                    lambda s, n, md: s.LeaveGame(spb.LeaveGameRequest(name=n), metadata=md),
                    {"none": MISSING, "bad": INVALID, "other game": WRONG_GAME},
                ),
                "GetGame": (
                    lambda s, n, md: s.GetGame(spb.GetGameRequest(name=n), metadata=md),
                    {"none": OK, "bad": INVALID, "other game": WRONG_GAME, "other seat": OK},
                ),
                "WatchGame": (
                    _watch_first,
                    {"none": OK, "bad": INVALID, "other game": WRONG_GAME, "other seat": OK},
                ),
                "WatchGame, own actions excluded": (
                    _watch_own_excluded,
                    {"none": MISSING, "bad": INVALID, "other game": WRONG_GAME, "other seat": OK},
                ),
                "GetGameRecord": (
                    lambda s, n, md: s.GetGameRecord(spb.GetGameRecordRequest(name=n), metadata=md),
                    {
                        "none": (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED"),
                        "bad": INVALID,
                        "other game": WRONG_GAME,
                        "other seat": (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED"),
                    },
                ),
                "JoinGame": (
                    lambda s, n, md: s.JoinGame(spb.JoinGameRequest(name=n), metadata=md),
                    dict.fromkeys(callers, (grpc.StatusCode.FAILED_PRECONDITION, "GAME_FULL")),
                ),
                "ListGames": (
                    lambda s, n, md: s.ListGames(spb.ListGamesRequest(), metadata=md),
                    dict.fromkeys(callers, OK),
                ),
                "CreateGame": (
                    lambda s, n, md: s.CreateGame(
                        spb.CreateGameRequest(seats=COLOURS[:2]), metadata=md
                    ),
                    dict.fromkeys(callers, OK),
                ),
            }
            for rpc_name, (call, expected) in rpcs.items():
                for caller, token in callers.items():
                    if caller not in expected:
                        continue  # leaving one's own seat is legitimate; done below
                    got = await _outcome(call(stub, name, auth(token)))
                    assert got == expected[caller], (rpc_name, caller, got)
                    got = await _outcome(call(stub, "games/nosuchgame", auth(token)))
                    assert got in {(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND"), OK}, (
                        rpc_name,
                        caller,
                        got,
                    )

            # Nothing was applied, and the right seat can still act.
            after = await stub.GetGame(spb.GetGameRequest(name=name))
            assert after.snapshot.sequence == before.snapshot.sequence
            assert after.snapshot.view == before.snapshot.view
            applied = await stub.SubmitAction(
                spb.SubmitActionRequest(
                    name=name, sequence=before.snapshot.sequence, request_id="y", action=option
                ),
                metadata=auth(yellow),
            )
            assert applied.entry.action_applied.player == pb.COLOUR_YELLOW

            # A seat sees its own colour as viewer; a spectator sees none.
            mine = await stub.GetGame(spb.GetGameRequest(name=name), metadata=auth(orange))
            assert mine.snapshot.view.viewer == pb.COLOUR_ORANGE
            theirs = await stub.GetGame(spb.GetGameRequest(name=name))
            assert theirs.snapshot.view.viewer == pb.COLOUR_UNSPECIFIED

            # Leaving revokes exactly that seat's token.
            await stub.LeaveGame(spb.LeaveGameRequest(name=name), metadata=auth(orange))
            assert (
                await _outcome(stub.GetGame(spb.GetGameRequest(name=name), metadata=auth(orange)))
                == INVALID
            )
            assert (
                await _outcome(stub.GetGame(spb.GetGameRequest(name=name), metadata=auth(yellow)))
                == OK
            )
            malformed_header = [("authorization", "Basic abc")]
            assert (
                await _outcome(
                    stub.GetGame(spb.GetGameRequest(name=name), metadata=malformed_header)
                )
                == INVALID
            )

    asyncio.run(main())
