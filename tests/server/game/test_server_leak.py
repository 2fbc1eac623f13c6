"""No leak: every byte a player or spectator receives names only tiles already drawn,
except the public, sorted list of tiles still in the stack."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import Message
from server_harness import auth, new_game, random_chooser, running

from engine import STACK_TILES, Game
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

METHOD = "/tongiaki.v1.GameService/"


def _strings(message: Message, out: list[str]) -> None:
    """Every string in ``message``, except each GameView's stack_tiles."""
    for field, value in message.ListFields():
        if isinstance(message, pb.GameView) and field.name == "stack_tiles":
            continue
        values = value if field.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                _strings(item, out)
            elif isinstance(item, str):
                out.append(item)


def _views(message: Message, out: list[pb.GameView]) -> None:
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for item in values:
            if isinstance(item, pb.GameView):
                out.append(item)
            if isinstance(item, Message):
                _views(item, out)


async def _seat(
    channel: grpc.aio.Channel,
    name: str,
    *,
    colour: int,
    token: str | None,
    received: list[tuple[str, bytes]],
    seed: int,
    stream: bool,
) -> None:
    watch = channel.unary_stream(
        METHOD + "WatchGame", request_serializer=spb.WatchGameRequest.SerializeToString
    )
    submit = channel.unary_unary(
        METHOD + "SubmitAction", request_serializer=spb.SubmitActionRequest.SerializeToString
    )
    get = channel.unary_unary(
        METHOD + "GetGame", request_serializer=spb.GetGameRequest.SerializeToString
    )
    submit_stream = channel.stream_stream(
        METHOD + "SubmitActions", request_serializer=spb.SubmitActionsRequest.SerializeToString
    )
    actions = submit_stream(metadata=auth(token)) if stream and token else None
    choose = random_chooser(seed)
    sequence, decision, acted = 0, None, -1
    request = spb.WatchGameRequest(name=name, exclude_own_actions=actions is not None)
    async for raw in watch(request, metadata=auth(token)):
        received.append(("watch", raw))
        message = spb.WatchGameResponse.FromString(raw)
        if message.HasField("snapshot"):
            sequence = message.snapshot.sequence
            decision = message.snapshot.view.decision
        for entry in message.entries:
            if entry.sequence <= sequence:
                continue  # already known from this seat's own answers, which run ahead
            sequence = entry.sequence
            if entry.HasField("action_applied"):
                decision = entry.action_applied.decision
        while token and decision is not None and decision.player == colour and sequence > acted:
            acted = sequence
            fields: dict[str, Any] = {
                "name": name,
                "sequence": sequence,
                "request_id": str(sequence),
                "action": choose(decision),
            }
            if actions is None:
                answer = await submit(spb.SubmitActionRequest(**fields), metadata=auth(token))
                received.append(("submit", answer))
                entry = spb.SubmitActionResponse.FromString(answer).entry
            else:
                await actions.write(spb.SubmitActionsRequest(**fields))
                answer = await actions.read()
                assert isinstance(answer, bytes)
                received.append(("stream", answer))
                entry = spb.SubmitActionsResponse.FromString(answer).entry
            sequence, decision = entry.sequence, entry.action_applied.decision
            received.append(("get", await get(spb.GetGameRequest(name=name), metadata=auth(token))))
    if actions is not None:
        await actions.done_writing()


def _check(received: list[tuple[str, bytes]], record: dict[str, Any], start: int) -> int:
    """Check every message; returns how many were checked."""
    game = Game.from_record({**record, "actions": []})
    drawn = [{"tonga"}]
    for action in record["actions"]:
        placed = {e["tile"] for e in game.apply(action) if e["kind"] == "tile_placed"}
        drawn.append(drawn[-1] | placed)
    kinds = {
        "watch": spb.WatchGameResponse,
        "submit": spb.SubmitActionResponse,
        "stream": spb.SubmitActionsResponse,
        "get": spb.GetGameResponse,
    }
    for kind, raw in received:
        message = kinds[kind]()
        message.ParseFromString(raw)
        views: list[pb.GameView] = []
        _views(message, views)
        sequences = [e.sequence for e in getattr(message, "entries", [])]
        if kind in ("submit", "stream"):
            sequences.append(message.entry.sequence)
        step = max([v.step for v in views] + [s - start for s in sequences] + [0])
        secret = set(STACK_TILES) - drawn[step]
        strings: list[str] = []
        _strings(message, strings)
        assert not secret & set(strings), (kind, step, secret & set(strings))
        for view in views:
            assert list(view.stack_tiles) == sorted(set(STACK_TILES) - drawn[view.step])
        for tile in secret:  # byte level: only inside the stack_tiles lists
            assert raw.count(tile.encode()) == len(views), (kind, step, tile)
    return len(received)


def test_no_tile_is_seen_before_it_is_drawn(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as (_, stub, channel):
            # Seats submit by SubmitAction calls, then over SubmitActions streams.
            for seats, seed, stream in ((3, 1, False), (5, 2, True)):
                name, tokens = await new_game(stub, seats)
                received: list[tuple[str, bytes]] = []
                tasks = [
                    _seat(
                        channel,
                        name,
                        colour=c,
                        token=t,
                        received=received,
                        seed=seed + c,
                        stream=stream,
                    )
                    for c, t in tokens.items()
                ]
                tasks.append(
                    _seat(
                        channel, name, colour=0, token=None, received=received, seed=0, stream=False
                    )
                )
                await asyncio.gather(*tasks)
                got = await stub.GetGameRecord(spb.GetGameRecordRequest(name=name))
                record = json.loads(got.record_json)
                start = seats + 1  # the entries before the first action: joins and the start
                assert _check(received, record, start) > len(record["actions"])
                assert any(kind == ("stream" if stream else "submit") for kind, _ in received)

    asyncio.run(main())
