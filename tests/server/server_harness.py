"""A real server on a free port and small gRPC clients for the server tests."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

from engine.playout import shuffled_stack
from server.app import Config, RunningServer, start
from server.game.authority import Authority, Limits
from server.play.botseats import BotConfig
from server.rpc.limits import ClientLimits
from tongiaki.client import bearer
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc

Stub = rpc.GameServiceStub
COLOURS = [
    pb.COLOUR_YELLOW,
    pb.COLOUR_ORANGE,
    pb.COLOUR_RED,
    pb.COLOUR_GREEN,
    pb.COLOUR_BLUE,
    pb.COLOUR_PURPLE,
]


#: The database the servers of the running test use (None: SQLite in its data folder);
#: set per test by the ``backend`` fixture of conftest.py.
DATABASE: list[str | None] = [None]


@contextlib.asynccontextmanager
async def running(
    data: Path,
    limits: Limits | None = None,
    bots: BotConfig | None = None,
    **config: Any,
) -> AsyncIterator[tuple[RunningServer, Stub, grpc.aio.Channel]]:
    """A server on 127.0.0.1 and a free port, with a channel and stub to it
    (``config``: more fields of :class:`Config`; per-client limits are off
    unless ``clients`` is given, as one test client plays every seat)."""
    config.setdefault("clients", ClientLimits(games_per_minute=0, watches_per_client=0))
    # The client shares the server's event loop here, so a busy machine can hold a
    # lease's renewal back: a long lease keeps a test's games with their one node
    # (the node tests and the fault suite run nodes of their own with short leases).
    config.setdefault("lease", 10.0)
    server = await start(
        Config(
            host="127.0.0.1",
            port=0,
            data_dir=data,
            database=DATABASE[0],
            limits=limits or Limits(),
            bots=bots or BotConfig(strong_budget=0.05),
            **config,
        )
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        yield server, Stub(channel), channel
    finally:
        await channel.close()
        await server.stop(0.5)


#: Call metadata carrying a seat token (none for a spectator): the client's own.
auth = bearer


def error_info(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    """The status code, ErrorInfo reason and metadata of a failed call."""
    details = dict(error.trailing_metadata() or ()).get("grpc-status-details-bin")
    assert details is not None, f"no google.rpc.Status in {error!r}"
    status = status_pb2.Status.FromString(details)
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "tongiaki.v1"
    assert status.code == error.code().value[0]
    return error.code(), info.reason, dict(info.metadata)


async def refused(call: Any) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    """Await ``call``, which must fail, and return its code, reason and metadata."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error_info(error)
    raise AssertionError("the call succeeded")


async def new_game(
    stub: Stub,
    seats: int,
    *,
    start_game: bool = True,
) -> tuple[str, dict[int, str]]:
    """A game with every seat taken (and started): its name and the token per colour."""
    created = await stub.CreateGame(spb.CreateGameRequest(seats=COLOURS[:seats]))
    tokens: dict[int, str] = {}
    for _ in range(seats):
        joined = await stub.JoinGame(spb.JoinGameRequest(name=created.game.name))
        tokens[joined.colour] = joined.seat_token
    if start_game:
        await stub.StartGame(
            spb.StartGameRequest(name=created.game.name), metadata=auth(tokens[COLOURS[0]])
        )
    return created.game.name, tokens


@dataclass
class Seen:
    """What one watcher received: messages in order and the state they lead to."""

    messages: list[spb.WatchGameResponse] = field(default_factory=list)
    #: Entries of this seat's own actions, as SubmitAction(s) returned them.
    own: list[pb.LogEntry] = field(default_factory=list)
    sequence: int = 0
    decision: pb.Decision | None = None

    def take(self, message: spb.WatchGameResponse) -> None:
        """Follow one watch message."""
        self.messages.append(message)
        if message.HasField("snapshot"):
            self.sequence = message.snapshot.sequence
            view = message.snapshot.view
            self.decision = view.decision if view.HasField("decision") else None
        for entry in message.entries:
            self.follow(entry)

    def follow(self, entry: pb.LogEntry, own: bool = False) -> None:
        """Follow one log entry (ignoring entries already followed); the entry of the
        seat's own action (``own``) may come before entries the watch has yet to
        bring (quick messages sent meanwhile)."""
        if entry.sequence <= self.sequence:
            return
        assert own or entry.sequence == self.sequence + 1, (entry.sequence, self.sequence)
        self.sequence = entry.sequence
        if entry.HasField("game_started"):
            self.decision = entry.game_started.view.decision
        elif entry.HasField("action_applied"):
            applied = entry.action_applied
            self.decision = applied.decision if applied.HasField("decision") else None

    def entries(self) -> list[pb.LogEntry]:
        """Every entry received, in order."""
        return [e for m in self.messages for e in m.entries]


Chooser = Callable[[pb.Decision], pb.Action]


async def play_seat(
    stub: Stub,
    name: str,
    colour: int,
    token: str,
    choose: Chooser,
    *,
    on_submit: Callable[[pb.LogEntry], None] | None = None,
    stream: bool = False,
    hold: bool = False,
) -> Seen:
    """Watch the game as ``colour`` and act whenever it is its decision, until the end.

    With ``stream``, actions go over one SubmitActions stream and the watch
    leaves out the seat's own entries; otherwise each is a SubmitAction call.
    With ``hold``, the watch holds entries back until the seat's turn.
    """
    seen = Seen()
    acted = -1
    actions = stub.SubmitActions(metadata=auth(token)) if stream else None
    watch = stub.WatchGame(
        spb.WatchGameRequest(name=name, exclude_own_actions=stream, hold_until_turn=hold),
        metadata=auth(token),
    )
    async for message in watch:
        seen.take(message)
        while (
            seen.decision is not None and seen.decision.player == colour and seen.sequence != acted
        ):
            acted = seen.sequence
            fields: dict[str, Any] = {
                "name": name,
                "sequence": seen.sequence,
                "request_id": f"{colour}-{seen.sequence}",
                "action": choose(seen.decision),
            }
            if actions is None:
                entry = (
                    await stub.SubmitAction(spb.SubmitActionRequest(**fields), metadata=auth(token))
                ).entry
            else:
                await actions.write(spb.SubmitActionsRequest(**fields))
                response = await actions.read()
                assert isinstance(response, spb.SubmitActionsResponse)
                entry = response.entry
            if on_submit is not None:
                on_submit(entry)
            seen.own.append(entry)
            seen.follow(entry, own=True)
    if actions is not None:
        await actions.done_writing()
        assert await actions.read() is grpc.aio.EOF
    return seen


async def spectate(stub: Stub, name: str) -> Seen:
    """Watch the game without a token until it ends."""
    seen = Seen()
    async for message in stub.WatchGame(spb.WatchGameRequest(name=name)):
        seen.take(message)
    return seen


def random_chooser(seed: int) -> Chooser:
    """Pick options uniformly at random with a seeded generator."""
    rng = random.Random(seed)
    return lambda decision: rng.choice(list(decision.options))


#: Quick messages without limits, for games that chatter all along.
CHATTY = Limits(messages_per_game=10**6, message_burst=10**6)


async def chatter(stub: Stub, name: str, tokens: list[str]) -> int:
    """Send quick messages from ``tokens``' seats, in turn, until the game is over;
    how many were sent."""
    sent = 0
    phrases = [p for p in pb.Phrase.values() if p != pb.PHRASE_UNSPECIFIED]
    while True:
        got = await stub.GetGame(spb.GetGameRequest(name=name))
        if got.snapshot.game.state == pb.GAME_STATE_FINISHED:
            return sent
        request = spb.SendMessageRequest(
            name=name, phrase=phrases[sent % len(phrases)], request_id=f"chat-{sent}"
        )
        await stub.SendMessage(request, metadata=auth(tokens[sent % len(tokens)]))
        sent += 1


#: Three greedy bots on this stack go more than a round without a draw (docs/bots.md):
#: a server whose stall limit is one round stops their game early.
STALLING_STACK = 224933333


async def stalling_game(server: RunningServer) -> Authority:
    """A new game of three greedy bots on the stack that stalls them (it starts at once)."""
    seats = ["yellow", "orange", "red"]
    return await server.registry.create(
        seats, {"bots": dict.fromkeys(seats, "greedy")}, stack=shuffled_stack(STALLING_STACK)
    )


async def finished(stub: Stub, name: str) -> pb.GameSnapshot:
    """The game's snapshot once it is finished (by the rules, or stopped)."""
    while True:
        got: spb.GetGameResponse = await stub.GetGame(spb.GetGameRequest(name=name))
        snapshot = got.snapshot
        if snapshot.game.state == pb.GAME_STATE_FINISHED:
            return snapshot
        await asyncio.sleep(0.05)
