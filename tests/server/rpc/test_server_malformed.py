"""Malformed requests of every kind get their reason code; the server stays up."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any, cast

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from server_harness import COLOURS, auth, error_info, new_game, running

from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

INVALID = grpc.StatusCode.INVALID_ARGUMENT
METHODS = [
    "CreateGame",
    "JoinGame",
    "StartGame",
    "GetGame",
    "SubmitAction",
    "ListGames",
    "LeaveGame",
    "GetGameRecord",
]


async def _reason(call: Any) -> tuple[grpc.StatusCode, str]:
    try:
        result = await call
    except grpc.aio.AioRpcError as error:
        code, reason, _ = error_info(error)
        return code, reason
    raise AssertionError(f"accepted: {result}")


def test_malformed_requests_get_their_reasons(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, channel):
            name, tokens = await new_game(stub, 2)
            md = auth(tokens[pb.COLOUR_YELLOW])
            sequence = (await stub.GetGame(spb.GetGameRequest(name=name))).snapshot.sequence

            def submit(**fields: Any) -> Any:
                request = spb.SubmitActionRequest(name=name, sequence=sequence, request_id="r1")
                for key, value in fields.items():
                    if key == "action":
                        request.action.CopyFrom(value)
                    else:
                        setattr(request, key, value)
                return stub.SubmitAction(request, metadata=md)

            bad_request = (INVALID, "INVALID_REQUEST")
            malformed = (INVALID, "MALFORMED_ACTION")
            cases: list[tuple[str, Any, tuple[grpc.StatusCode, str]]] = [
                (
                    "one seat",
                    stub.CreateGame(spb.CreateGameRequest(seats=cast(Any, COLOURS[:1]))),
                    bad_request,
                ),
                (
                    "seven seats",
                    stub.CreateGame(spb.CreateGameRequest(seats=cast(Any, [*COLOURS, 1]))),
                    bad_request,
                ),
                (
                    "twice a colour",
                    stub.CreateGame(spb.CreateGameRequest(seats=cast(Any, [1, 1]))),
                    bad_request,
                ),
                (
                    "no colour",
                    stub.CreateGame(spb.CreateGameRequest(seats=cast(Any, [0, 1]))),
                    bad_request,
                ),
                (
                    "unknown colour",
                    stub.CreateGame(spb.CreateGameRequest(seats=cast(Any, [1, 99]))),
                    bad_request,
                ),
                (
                    "long name",
                    stub.CreateGame(
                        spb.CreateGameRequest(
                            seats=cast(Any, [1, 2]),
                            settings=pb.GameSettings(display_name="x" * 101),
                        )
                    ),
                    bad_request,
                ),
                ("bad game name", stub.GetGame(spb.GetGameRequest(name="nonsense")), bad_request),
                ("empty game name", stub.GetGame(spb.GetGameRequest()), bad_request),
                (
                    "unknown game",
                    stub.GetGame(spb.GetGameRequest(name="games/zzz")),
                    (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND"),
                ),
                (
                    "join unknown colour",
                    stub.JoinGame(spb.JoinGameRequest(name=name, colour=cast(Any, 42))),
                    bad_request,
                ),
                ("no payload", submit(), bad_request),
                (
                    "no request id",
                    submit(request_id="", action_json='{"act":"settle"}'),
                    bad_request,
                ),
                (
                    "long request id",
                    submit(request_id="r" * 65, action_json='{"act":"settle"}'),
                    bad_request,
                ),
                (
                    "negative sequence",
                    submit(sequence=-1, action_json='{"act":"settle"}'),
                    bad_request,
                ),
                ("empty action", submit(action=pb.Action()), malformed),
                (
                    "setup without beach",
                    submit(action=pb.Action(setup=pb.SetupAction())),
                    malformed,
                ),
                (
                    "expand without island",
                    submit(action=pb.Action(expand=pb.ExpandAction())),
                    malformed,
                ),
                (
                    "land without colour",
                    submit(action=pb.Action(land=pb.LandAction(ships=[pb.LandingShip(beach=0)]))),
                    malformed,
                ),
                (
                    "place without origin",
                    submit(action=pb.Action(place=pb.PlaceAction())),
                    malformed,
                ),
                ("not JSON", submit(action_json="{"), malformed),
                ("JSON list", submit(action_json="[1]"), malformed),
                ("unknown act", submit(action_json='{"act":"fly"}'), malformed),
                ("float", submit(action_json='{"act":"setup","beach":[0,0,1.0]}'), malformed),
                ("extra key", submit(action_json='{"act":"settle","x":1}'), malformed),
                ("huge JSON", submit(action_json=" " * 5000), malformed),
                (
                    "illegal",
                    submit(action_json='{"act":"settle"}'),
                    (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_ACTION"),
                ),
                (
                    "stale",
                    submit(sequence=sequence - 1, action_json='{"act":"settle"}'),
                    (grpc.StatusCode.ABORTED, "STALE_SEQUENCE"),
                ),
                ("page token", stub.ListGames(spb.ListGamesRequest(page_token="%%")), bad_request),
                (
                    "page token past 2^63",
                    stub.ListGames(
                        spb.ListGamesRequest(
                            page_token=base64.urlsafe_b64encode(b"after:%d" % (1 << 63)).decode()
                        )
                    ),
                    bad_request,
                ),
                ("page size", stub.ListGames(spb.ListGamesRequest(page_size=-1)), bad_request),
                ("state", stub.ListGames(spb.ListGamesRequest(state=cast(Any, 17))), bad_request),
            ]
            for label, call, expected in cases:
                assert await _reason(call) == expected, label
            for method in [*METHODS, "WatchGame"]:
                raw = channel.unary_unary(f"/tongiaki.v1.GameService/{method}")
                if method == "WatchGame":
                    raw = channel.unary_stream(f"/tongiaki.v1.GameService/{method}")
                    stream = raw(b"\xff\xff\xff")
                    try:
                        await stream.read()
                        raise AssertionError("garbage accepted")
                    except grpc.aio.AioRpcError as error:
                        code, reason, _ = error_info(error)
                else:
                    code, reason = await _reason(raw(b"\xff\xff\xff"))
                assert (code, reason) == bad_request, method
            actions = channel.stream_stream("/tongiaki.v1.GameService/SubmitActions")(metadata=md)
            await actions.write(b"\xff\xff\xff")
            code, reason = await _reason(actions.read())
            assert (code, reason) == bad_request, "SubmitActions"

            # Still up, still serving, and the game untouched.
            health = health_pb2_grpc.HealthStub(channel)
            status = await health.Check(
                health_pb2.HealthCheckRequest(service="tongiaki.v1.GameService")
            )
            assert status.status == health_pb2.HealthCheckResponse.SERVING
            got = await stub.GetGame(spb.GetGameRequest(name=name))
            assert got.snapshot.sequence == sequence
            reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
            answers = reflect.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            )
            services = [s.name async for a in answers for s in a.list_services_response.service]
            assert "tongiaki.v1.GameService" in services

    asyncio.run(main())
