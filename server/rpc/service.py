"""The gRPC servicer of tongiaki.v1.GameService: decode, call the registry, encode.

Requests arrive as bytes and are decoded here, so even a body that is not
protobuf gets a proper ``INVALID_ARGUMENT`` with an ``ErrorInfo``. Watch
streams send frames encoded once by the game's authority.
"""

from __future__ import annotations

import contextvars
import hashlib
import logging
import time
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError, Message

from server.game.authority import Authority
from server.game.errors import ServerReason, ServiceError, invalid, reused
from server.game.fanout import End, Watcher
from server.game.seats import request_digest
from server.game.tutorials import find as find_tutorial
from server.node.forward import FORWARDED, NODE, Forward, Forwarder, Hashed, vouched
from server.node.registry import Registry
from server.play.webhooks import Webhooks
from server.rpc import codec as convert
from server.rpc.codec import LEVEL_NAME
from server.rpc.errors import to_status
from server.rpc.limits import MAX_GATHER_MILLIS, ClientLimits, Guard
from server.rpc.metrics import Metrics
from server.storage.base import (
    CREATE_REQUEST_SECONDS,
    Conflict,
    LeaseLapsed,
    OutcomeUnknown,
    Requested,
    Unavailable,
)
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb

log = logging.getLogger(__name__)

#: The full name of the service.
SERVICE = "tongiaki.v1.GameService"

MAX_TEXT = 100
MAX_REQUEST_ID = 64
#: ListGameEntries pages.
DEFAULT_ENTRIES = 500
MAX_ENTRIES = 2000
#: Longest turn clock, in seconds (a day).
MAX_TURN_TIMEOUT = 86400.0


#: The seat hash a node vouched for, of the forwarded call being handled (see server.node.forward).
_VOUCHED: contextvars.ContextVar[Hashed | None] = contextvars.ContextVar("vouched", default=None)


def _token(context: Any) -> str | None:
    """The seat token of the call's ``authorization: Bearer <token>`` metadata
    (or, for a call forwarded by another node, the token's hash it vouched for).

    A call with two ``authorization`` headers is refused: which one counts
    must never depend on who reads them.
    """
    vouched = _VOUCHED.get()
    if vouched is not None:
        return vouched
    token: str | None = None
    seen = False
    for key, value in context.invocation_metadata() or ():
        if key != "authorization":
            continue
        if seen:
            raise ServiceError(
                ServerReason.AUTHORIZATION_REPEATED, "send one authorization header, not several"
            )
        seen = True
        if not isinstance(value, str) or not value.startswith("Bearer ") or len(value) > 200:
            raise ServiceError(ServerReason.TOKEN_INVALID, "authorization must be 'Bearer <token>'")
        token = value[len("Bearer ") :]
    return token


#: Characters that change the direction of the text around them (the Unicode
#: bidirectional controls, marks included); a name that carried them could make
#: the text it is shown in read differently.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def display_name(value: str, field: str = "display_name") -> str:
    """A display name as shown to everyone: bidi and other control characters
    removed, runs of white space made one space, at most ``MAX_TEXT`` characters."""
    _text(value, field)
    kept = "".join(
        " " if char.isspace() else char
        for char in value
        if char not in BIDI_CONTROLS and unicodedata.category(char) not in ("Cc", "Cs")
    )
    return " ".join(kept.split())


def rematch_title(name: str) -> str:
    """The display name of a rematch of a game named ``name``: numbered in turn
    ("Friday" is followed by "Friday · 2", then "Friday · 3"), within ``MAX_TEXT``;
    a game without a name gives a rematch without one."""
    if not name:
        return ""
    base, sep, number = name.rpartition(" · ")
    if sep and number.isdigit() and base:
        name, count = base, int(number) + 1
    else:
        count = 2
    suffix = f" · {count}"
    return name[: MAX_TEXT - len(suffix)].rstrip() + suffix


def _request_id(request: Any) -> str:
    """The request id of a change that may leave it out ("": none)."""
    value: str = request.request_id
    if len(value) > MAX_REQUEST_ID:
        raise invalid(
            f"request_id must have at most {MAX_REQUEST_ID} characters", field="request_id"
        )
    return value


def _asked(request: Message) -> str:
    """A digest of what a request asks for, its request id left out: a repeat of the
    id must ask for the same."""
    bare = type(request)()
    bare.CopyFrom(request)
    bare.ClearField("request_id")
    return hashlib.sha256(bare.SerializeToString(deterministic=True)).hexdigest()


def _colour(value: int, field: str) -> str:
    name = convert.COLOUR_NAME.get(value)
    if name is None:
        raise invalid(f"{field} is not a colour", field=field)
    return name


def _text(value: str, field: str) -> str:
    if len(value) > MAX_TEXT:
        raise invalid(f"{field} is longer than {MAX_TEXT} characters", field=field)
    return value


def _level(value: int, field: str, default: str | None) -> str | None:
    if value == pb.BOT_LEVEL_UNSPECIFIED:
        return default
    name = LEVEL_NAME.get(value)
    if name is None:
        raise invalid(f"{field} is not a bot level", field=field)
    return name


def _bot_settings(settings: pb.GameSettings, seats: list[str]) -> dict[str, Any]:
    """The stored form of the bot and clock settings (only those given)."""
    out: dict[str, Any] = {}
    bots: dict[str, str] = {}
    for seat in settings.bots:
        colour = _colour(seat.colour, "bots.colour")
        if colour not in seats or colour in bots:
            raise invalid("bots must name distinct seats of the game", field="bots")
        level = _level(seat.level, "bots.level", "random")
        assert level is not None
        bots[colour] = level
    if bots:
        out["bots"] = bots
    timeout = settings.turn_timeout_seconds
    if not 0 <= timeout <= MAX_TURN_TIMEOUT:
        raise invalid(
            f"turn_timeout_seconds must be 0..{MAX_TURN_TIMEOUT}", field="turn_timeout_seconds"
        )
    if timeout:
        out["turn_timeout_seconds"] = timeout
    if settings.max_turn_decisions < 0:
        raise invalid("max_turn_decisions must not be negative", field="max_turn_decisions")
    if settings.max_turn_decisions:
        out["max_turn_decisions"] = settings.max_turn_decisions
    for field in ("timeout_bot", "leave_bot"):
        level = _level(getattr(settings, field), field, None)
        if level is not None:
            out[field] = level
    return out


class GameService:
    """The RPCs; each decodes its request, calls the registry or a game, and encodes.

    A change is made by the game's owner: if another node owns the game, the
    call is forwarded there (:class:`Forward`) and its answer relayed.
    """

    def __init__(
        self,
        registry: Registry,
        webhooks: Webhooks,
        guard: Guard | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.registry = registry
        #: Checks new games' webhook URLs (and sends the notices of the games played here).
        self.webhooks = webhooks
        self.guard = guard or Guard(ClientLimits())
        self.metrics = metrics or Metrics()

    async def _owner(self, name: str, context: Any) -> Authority:
        """The game's owner copy here, or :class:`Forward` to the node that has it."""
        meant = _meant_for(context)
        if meant and meant != self.registry.store.node:
            # Another node's address leads here: its --advertise is wrong.
            log.warning("a call for another node came here", extra={"node": meant})
            raise ServiceError(
                ServerReason.NODE_UNAVAILABLE,
                "the node that plays this game cannot be reached at its address; retry",
            )
        found = await self.registry.owned(name)
        if isinstance(found, Authority):
            return found
        if _forwarded(context):
            # Forwarded to a node that no longer owns the game: the caller retries.
            raise ServiceError(ServerReason.GAME_MOVED, "the game moved; retry", name=name)
        assert found.address is not None
        raise Forward(found.address, name, found.node)

    async def CreateGame(self, request: spb.CreateGameRequest, context: Any) -> Message:
        """Create a game with the requested seats and settings (or a tutorial's).

        With a request id, a repeat within ``CREATE_REQUEST_SECONDS`` (on any
        node: the id's digest is stored with the game) returns the game the
        first request made.
        """
        requested = None
        if _request_id(request):
            requested = Requested(request_digest("create", request.request_id), _asked(request))
            earlier = await self._created(requested)
            if earlier is not None:
                return earlier
        try:
            if request.settings.tutorial:
                return await self._create_tutorial(request, context, requested)
            return await self._create(request, context, requested)
        except Conflict:
            # The same request, made meanwhile (on another node, or here).
            earlier = await self._created(requested) if requested is not None else None
            if earlier is None:
                raise
            return earlier

    async def _created(self, requested: Requested) -> Message | None:
        """The answer to a CreateGame whose request id made a game already (None: none)."""
        since = time.time() - CREATE_REQUEST_SECONDS
        found = await self.registry.store.created_by(requested.key, since)
        if found is None:
            return None
        gid, asked = found
        if asked != requested.asked:
            raise reused()
        game = await self.registry.find("games/" + gid)
        await self.registry.refresh(game)
        return self._create_response(game)

    def _create_response(self, game: Authority) -> Message:
        # The webhook's URL and secret go to the creator alone (other callers see neither).
        created = convert.game_to_proto(game.resource())
        created.settings.webhook_url = game.settings.get("webhook_url", "")
        return spb.CreateGameResponse(
            game=created, webhook_secret=game.settings.get("webhook_secret", "")
        )

    async def _create(
        self, request: spb.CreateGameRequest, context: Any, requested: Requested | None
    ) -> Message:
        """A game of the requested seats and settings."""
        seats = [_colour(v, "seats") for v in request.seats]
        if not 2 <= len(seats) <= 6 or len(set(seats)) != len(seats):
            raise invalid("seats must be 2 to 6 distinct colours", field="seats")
        settings = {
            "display_name": display_name(request.settings.display_name),
            "auto_start": request.settings.auto_start,
            **_bot_settings(request.settings, seats),
            **self.webhooks.settings(request.settings.webhook_url),
        }
        self.guard.new_game(context)
        game = await self.registry.create(seats, settings, requested=requested)
        return self._create_response(game)

    async def _create_tutorial(
        self, request: spb.CreateGameRequest, context: Any, requested: Requested | None
    ) -> Message:
        """A game of a tutorial: its seats, bots and fixed stack. Seats and bots may be
        left out or repeat the tutorial's (as a rematch does); nothing else may be set."""
        tutorial = find_tutorial(request.settings.tutorial)
        if request.seats and [_colour(v, "seats") for v in request.seats] != list(tutorial.seats):
            raise invalid("a tutorial sets its own seats", field="seats")
        allowed = ("display_name", "tutorial", "auto_start", "bots")
        extra = [f.name for f, _ in request.settings.ListFields() if f.name not in allowed]
        bots = _bot_settings(request.settings, list(tutorial.seats)).get("bots", tutorial.bots)
        if extra or bots != tutorial.bots:
            field = f"settings.{extra[0]}" if extra else "settings.bots"
            raise invalid("a tutorial sets its own settings", field=field)
        settings = tutorial.settings(
            request.settings.tutorial, display_name(request.settings.display_name)
        )
        self.guard.new_game(context)
        game = await self.registry.create(
            list(tutorial.seats), settings, stack=tutorial.stack, requested=requested
        )
        return spb.CreateGameResponse(game=convert.game_to_proto(game.resource()))

    async def JoinGame(self, request: spb.JoinGameRequest, context: Any) -> Message:
        """Take a seat and hand out its token."""
        game = await self._owner(request.name, context)
        colour = _colour(request.colour, "colour") if request.colour else None
        name = display_name(request.display_name)
        asked = _asked(request) if _request_id(request) else ""
        seat, token = await game.join(colour, name, request.request_id, asked)
        return spb.JoinGameResponse(
            game=convert.game_to_proto(game.resource()),
            colour=convert.COLOUR[seat],
            seat_token=token,
        )

    async def StartGame(self, request: spb.StartGameRequest, context: Any) -> Message:
        """Start a game with every seat taken."""
        game = await self._owner(request.name, context)
        colour = await self.registry.seat(game, _token(context), required=True)
        assert colour is not None
        await game.start(colour, _request_id(request))
        return spb.StartGameResponse(game=convert.game_to_proto(game.resource()))

    async def GetGame(self, request: spb.GetGameRequest, context: Any) -> Message:
        """The game as the caller sees it (now, or right after an earlier entry)."""
        game = await self.registry.find(request.name)
        viewer = await self.registry.seat(game, _token(context), required=False)
        if request.HasField("at_sequence"):
            past = await self.registry.past(request.name, request.at_sequence)
            return spb.GetGameResponse(snapshot=convert.snapshot_to_proto(*past))
        await self.registry.refresh(game)
        now = await game.snapshot(viewer)
        return spb.GetGameResponse(snapshot=convert.snapshot_to_proto(*now))

    async def SubmitAction(
        self, request: spb.SubmitActionRequest | spb.SubmitActionsRequest, context: Any
    ) -> bytes:
        """Apply an action for the caller's seat (also each request of SubmitActions).

        The encoded reply is a SubmitActionResponse and a SubmitActionsResponse alike.
        """
        game = await self._owner(request.name, context)
        colour = await self.registry.seat(game, _token(context), required=True)
        assert colour is not None
        if not 1 <= len(request.request_id) <= MAX_REQUEST_ID:
            raise invalid(
                f"request_id must have 1 to {MAX_REQUEST_ID} characters", field="request_id"
            )
        if request.sequence < 0:
            raise invalid("sequence must not be negative", field="sequence")
        action = convert.action_of(request)
        # The reply is encoded once with the entry's watch frame.
        started = time.perf_counter()
        reply = await game.submit(colour, request.sequence, request.request_id, action)
        self.metrics.commit.observe(time.perf_counter() - started)
        self.metrics.person_actions.inc()
        return reply

    async def WatchGame(
        self, request: spb.WatchGameRequest, context: Any
    ) -> tuple[Authority, str | None, bytes, Watcher | None]:
        """Open a watch: its game, viewer, the first message to send, and its watcher.

        The first message is a snapshot, or the entries after ``after_sequence``;
        the watcher (None if nothing more will come) then yields every new entry.
        """
        game = await self.registry.find(request.name)
        own, hold = request.exclude_own_actions, request.hold_until_turn
        viewer = await self.registry.seat(game, _token(context), required=own or hold)
        after = request.after_sequence if request.HasField("after_sequence") else None
        if not 0 <= request.gather_millis <= MAX_GATHER_MILLIS:
            raise invalid(f"gather_millis must be 0..{MAX_GATHER_MILLIS}", field="gather_millis")
        # A spectator that leaves the wait to the server is paced: at most one
        # message per the server's spectator wait, an entry at once when the last
        # message is older.
        paced = not request.HasField("gather_millis") and viewer is None
        if request.HasField("gather_millis"):
            gather = request.gather_millis
        else:
            gather = 0 if viewer is not None else self.guard.limits.spectator_gather_millis
        await self.registry.refresh(game)
        first, watcher = await game.watch(
            viewer,
            after,
            own,
            hold,
            older=self.registry.older(game.id),
            gather=gather / 1000,
            paced=paced,
            boards=request.include_boards,
        )
        return game, viewer, first, watcher

    async def ListGames(self, request: spb.ListGamesRequest, context: Any) -> Message:
        """One page of games."""
        if request.state not in pb.GameState.values():
            raise invalid("state is not a game state", field="state")
        games, token = await self.registry.page(
            request.page_size,
            request.page_token,
            convert.STATE_NAME.get(request.state) if request.state else None,
            request.open_seats,
        )
        return spb.ListGamesResponse(
            games=[convert.game_to_proto(g) for g in games], next_page_token=token
        )

    async def LeaveGame(self, request: spb.LeaveGameRequest, context: Any) -> Message:
        """Give up the caller's seat."""
        game = await self._owner(request.name, context)
        colour = await self.registry.seat(game, _token(context), required=True)
        assert colour is not None
        await game.leave(colour)
        return spb.LeaveGameResponse(game=convert.game_to_proto(game.resource()))

    async def GetGameRecord(self, request: spb.GetGameRecordRequest, context: Any) -> Message:
        """The record of a finished game."""
        game = await self.registry.find(request.name)
        await self.registry.seat(game, _token(context), required=False)
        await self.registry.refresh(game)
        return convert.record_response(game.record())

    async def TakeBack(self, request: spb.TakeBackRequest, context: Any) -> bytes:
        """Take back the caller's own last decision."""
        game = await self._owner(request.name, context)
        colour = await self.registry.seat(game, _token(context), required=True)
        assert colour is not None
        if not 1 <= len(request.request_id) <= MAX_REQUEST_ID:
            raise invalid(
                f"request_id must have 1 to {MAX_REQUEST_ID} characters", field="request_id"
            )
        if request.sequence < 1:
            raise invalid("sequence must be positive", field="sequence")
        # TakeBackResponse and SubmitActionResponse encode their entry alike.
        return await game.take_back(colour, request.sequence, request.request_id)

    async def SendMessage(self, request: spb.SendMessageRequest, context: Any) -> bytes:
        """Send a quick message for the caller's seat."""
        game = await self._owner(request.name, context)
        colour = await self.registry.seat(game, _token(context), required=True)
        assert colour is not None
        if not 1 <= len(request.request_id) <= MAX_REQUEST_ID:
            raise invalid(
                f"request_id must have 1 to {MAX_REQUEST_ID} characters", field="request_id"
            )
        phrase = convert.PHRASE_NAME.get(request.phrase, str(request.phrase))
        # SendMessageResponse and SubmitActionResponse encode their entry alike.
        return await game.say(colour, phrase, request.request_id)

    async def ProposeRematch(self, request: spb.ProposeRematchRequest, context: Any) -> Message:
        """The rematch of a finished game: made by the first player to ask, then shared."""
        game = await self._owner(request.name, context)
        colour = await self.registry.seat(game, _token(context), required=True)
        assert colour is not None

        async def create() -> str:
            # The same seats, bots and settings; a webhook stays with the game it was given for.
            # It starts by itself once the players who accept have taken their seats back.
            settings = {
                k: v for k, v in game.settings.items() if k not in ("webhook_url", "webhook_secret")
            } | {"auto_start": True}
            settings["display_name"] = rematch_title(settings.get("display_name", ""))
            self.guard.new_game(context)
            created = await self.registry.create(list(game.seats.colours), settings)
            return created.id

        rematch, made = await game.propose_rematch(colour, create)
        found = await self.registry.find("games/" + rematch)
        return spb.ProposeRematchResponse(
            game=convert.game_to_proto(found.resource()), created=made
        )

    async def ListGameEntries(self, request: spb.ListGameEntriesRequest, context: Any) -> bytes:
        """A page of a game's public log."""
        if request.page_size < 0:
            raise invalid("page_size must not be negative", field="page_size")
        size = min(request.page_size or DEFAULT_ENTRIES, MAX_ENTRIES)
        game = await self.registry.find(request.name)
        await self.registry.seat(game, _token(context), required=False)
        await self.registry.refresh(game)
        frames, sequence, more = await self.registry.log_page(
            request.name, request.after_sequence, size
        )
        return convert.listed(frames, sequence, more)


def _forwarded(context: Any) -> bool:
    return any(key == FORWARDED for key, _ in context.invocation_metadata() or ())


def _vouch(method: str, data: bytes, context: Any, secret: bytes, node: str) -> None:
    """Take the caller of a forwarded call from its vouched seat hash, if it has one."""
    try:
        seat = vouched(secret, node, method, data, context.invocation_metadata())
    except ValueError as error:
        log.warning("forwarded seat refused", extra={"method": method})
        raise ServiceError(ServerReason.TOKEN_INVALID, str(error)) from None
    _VOUCHED.set(seat)


def _meant_for(context: Any) -> str:
    """The node a forwarded call is meant for ('' if it names none)."""
    for key, value in context.invocation_metadata() or ():
        if key == NODE and isinstance(value, str):
            return value
    return ""


# ---------------------------------------------------------------- wiring

#: Why a watch was ended early, and what its client is told.
_WATCH_END = {
    End.LAGGING: (
        ServerReason.WATCH_LAGGING,
        "the watch fell behind; resume after the last sequence received",
    ),
    End.SHUTDOWN: (ServerReason.SHUTTING_DOWN, "the server is shutting down"),
    End.MOVED: (
        ServerReason.GAME_MOVED,
        "the game moved; resume after the last sequence received",
    ),
}

_UNARY: dict[str, type[Message]] = {
    "CreateGame": spb.CreateGameRequest,
    "JoinGame": spb.JoinGameRequest,
    "StartGame": spb.StartGameRequest,
    "GetGame": spb.GetGameRequest,
    "SubmitAction": spb.SubmitActionRequest,
    "ListGames": spb.ListGamesRequest,
    "LeaveGame": spb.LeaveGameRequest,
    "GetGameRecord": spb.GetGameRecordRequest,
    "ListGameEntries": spb.ListGameEntriesRequest,
    "TakeBack": spb.TakeBackRequest,
    "SendMessage": spb.SendMessageRequest,
    "ProposeRematch": spb.ProposeRematchRequest,
}


def _failed(method: str, error: Exception) -> ServiceError:
    """What the caller of ``method`` hears about a failure of the store, or one the
    server did not foresee."""
    if isinstance(error, OutcomeUnknown):
        log.warning("outcome unknown", extra={"method": method, "error": str(error)})
        return ServiceError(
            ServerReason.OUTCOME_UNKNOWN,
            "the change may or may not have been applied; retry with the same request id",
        )
    if isinstance(error, Unavailable):
        log.warning("store unavailable", extra={"method": method, "error": str(error)})
        return ServiceError(
            ServerReason.NODE_UNAVAILABLE, "this node cannot reach its database; retry"
        )
    if isinstance(error, (LeaseLapsed, Conflict)):
        return ServiceError(ServerReason.GAME_MOVED, "the game moved; retry")
    log.exception("failed", extra={"method": method})
    return ServiceError(ServerReason.INTERNAL_ERROR, "the server failed to answer")


def _decode(kind: type[Message], data: bytes) -> Any:
    try:
        return kind.FromString(data)
    except DecodeError:
        raise invalid(f"the request is not a {kind.DESCRIPTOR.full_name}") from None


async def _refuse(method: str, error: ServiceError, context: Any, metrics: Metrics) -> None:
    log.info("refused", extra={"method": method, "reason": error.reason, "detail": error.message})
    metrics.refusals.labels(method, error.reason).inc()
    await context.abort_with_status(to_status(error))


def _unary(
    name: str,
    kind: type[Message],
    call: Callable[[Any, Any], Awaitable[Message | bytes]],
    forwarder: Forwarder,
    service: GameService,
) -> Any:
    guard, metrics, registry = service.guard, service.metrics, service.registry

    async def handle(data: bytes, context: Any) -> bytes:
        refusal: ServiceError
        try:
            # Sizes are checked before anything is decoded from the request.
            guard.size(name, data)
            _vouch(name, data, context, forwarder.secret, registry.store.node)
            try:
                response = await call(_decode(kind, data), context)
            except Forward as forward:
                reply = await forwarder.call(forward.address, name, data, context, forward.node)
                await registry.settle(forward.name)
                return reply
            return response if isinstance(response, bytes) else response.SerializeToString()
        except ServiceError as error:
            refusal = error
        except (grpc.aio.AbortError, AssertionError):
            raise
        except Exception as error:
            refusal = _failed(name, error)
        # Refused outside the except blocks, and without the request: nothing of it
        # stays referenced by the refusal's traceback.
        del data
        await _refuse(name, refusal, context, metrics)
        raise AssertionError("unreachable")  # abort_with_status raises

    return grpc.unary_unary_rpc_method_handler(handle)


def _watch(service: GameService) -> Any:
    guard, metrics = service.guard, service.metrics

    async def handle(data: bytes, context: Any) -> AsyncIterator[bytes]:
        # One generator from the first message to the last: every frame of every
        # watch passes here, so no generator is stacked on another.
        refusal: ServiceError | None = None
        try:
            guard.size("WatchGame", data)
            with guard.watch(context):
                metrics.watches.inc()
                try:
                    request = _decode(spb.WatchGameRequest, data)
                    game, viewer, first, watcher = await service.WatchGame(request, context)
                    latest = request.include_latest
                    if first:
                        yield first + _latest(game, viewer) if latest else first
                    if watcher is None:
                        return
                    try:
                        while True:
                            item = await watcher.next()
                            if isinstance(item, bytes):
                                # The batch was just taken: the game is exactly as its
                                # last entry left it.
                                yield item + _latest(game, viewer) if latest else item
                            elif item is End.FINISHED:
                                return
                            else:
                                reason, message = _WATCH_END[item]
                                raise ServiceError(reason, message, resume_after=watcher.delivered)
                    finally:
                        game.hub.unsubscribe(watcher)
                finally:
                    metrics.watches.dec()
        except ServiceError as error:
            refusal = error
        except (grpc.aio.AbortError, AssertionError, GeneratorExit):
            raise
        except Exception as error:
            refusal = _failed("WatchGame", error)
        if refusal is not None:
            await _refuse("WatchGame", refusal, context, metrics)

    return grpc.unary_stream_rpc_method_handler(handle)


def _latest(game: Authority, viewer: str | None) -> bytes:
    """The ``latest`` field of a watch message: the game as ``viewer`` sees it now."""
    return convert.latest_field(*game.latest(viewer))


def _submit_stream(service: GameService, forwarder: Forwarder) -> Any:
    guard, metrics = service.guard, service.metrics

    async def handle(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        refusal: ServiceError | None = None
        try:
            async for data in requests:
                guard.size("SubmitActions", data)
                request = _decode(spb.SubmitActionsRequest, data)
                try:
                    yield await service.SubmitAction(request, context)
                except Forward as forward:
                    # The same fields as SubmitActionRequest: forwarded one by one.
                    yield await forwarder.call(
                        forward.address, "SubmitAction", data, context, forward.node
                    )
                    await service.registry.settle(forward.name)
        except ServiceError as error:
            refusal = error
        except (grpc.aio.AbortError, AssertionError, GeneratorExit):
            raise
        except Exception as error:
            refusal = _failed("SubmitActions", error)
        if refusal is not None:
            await _refuse("SubmitActions", refusal, context, metrics)

    return grpc.stream_stream_rpc_method_handler(handle)


def generic_handler(service: GameService, forwarder: Forwarder) -> Any:
    """The gRPC handler of every method, requests and responses as bytes."""
    methods = {
        name: _unary(name, kind, getattr(service, name), forwarder, service)
        for name, kind in _UNARY.items()
    }
    methods["WatchGame"] = _watch(service)
    methods["SubmitActions"] = _submit_stream(service, forwarder)
    return grpc.method_handlers_generic_handler(SERVICE, methods)
