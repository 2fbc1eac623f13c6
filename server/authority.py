"""The authority of one game: seats, the engine state, the log and its watchers.

All changes to a game go through one lock, in this order: check, apply to the
engine (checked), write the log entry durably, then publish it. Readers take
the same lock, so nobody ever sees a state whose entry is not yet durable. The
critical sections run as tasks of their own, so a client hanging up mid-write
cannot leave memory and disk apart.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from google.protobuf.timestamp_pb2 import Timestamp

from engine import ActionError, Game
from server import convert
from server.botseats import LEVEL, REASON, BotRunner, Job, seed_of, think, turn_decisions
from server.errors import ServerReason, ServiceError
from server.fanout import End, Hub, Watcher
from server.gen.tongiaki.v1 import game_pb2 as pb
from server.gen.tongiaki.v1 import game_service_pb2 as spb
from server.store import Store, StoredGame
from server.webhooks import Webhooks

log = logging.getLogger(__name__)

T = TypeVar("T")

OPEN, ACTIVE, FINISHED = pb.GAME_STATE_OPEN, pb.GAME_STATE_ACTIVE, pb.GAME_STATE_FINISHED

#: Encoded tags: LogEntry.sequence, LogEntry.action_applied, WatchGameResponse.entries
#: and SubmitActionResponse.entry (the last two hold the same LogEntry encoding).
_SEQUENCE_TAG = convert.varint(pb.LogEntry.DESCRIPTOR.fields_by_name["sequence"].number << 3)
_ACTION_APPLIED = pb.LogEntry.DESCRIPTOR.fields_by_name["action_applied"].number
_DECISION = pb.ActionApplied.DESCRIPTOR.fields_by_name["decision"].number
_FRAME_TAG = convert.varint(
    spb.WatchGameResponse.DESCRIPTOR.fields_by_name["entries"].number << 3 | 2
)
_REPLY_TAG = convert.varint(
    spb.SubmitActionResponse.DESCRIPTOR.fields_by_name["entry"].number << 3 | 2
)


@dataclass(frozen=True)
class Limits:
    """Per-game memory and buffering limits."""

    #: How many recent entries a resuming watcher can be sent instead of a snapshot.
    resume_window: int = 256
    #: How many frames may wait for one watcher before it is cut off.
    watch_buffer: int = 64
    #: How many recent request ids per game are remembered for safe retries.
    request_ids: int = 256


def hash_token(token: str) -> str:
    """The stored form of a seat token (only hashes are kept)."""
    return hashlib.sha256(token.encode()).hexdigest()


class Authority:
    """One game and everything that changes it."""

    def __init__(
        self,
        stored: StoredGame,
        store: Store,
        limits: Limits,
        token_index: dict[str, str],
        runner: BotRunner | None = None,
        *,
        webhooks: Webhooks | None = None,
    ) -> None:
        self._webhooks = webhooks
        self.id = stored.id
        self.name = "games/" + stored.id
        self.ordinal = stored.ordinal
        self.seats: list[str] = list(stored.seats)
        self.settings = dict(stored.settings)
        self.created = stored.created
        self.state: pb.GameState.ValueType = OPEN
        self.sequence = 0
        self.game: Game | None = None
        self._stack = list(stored.stack)
        self._store = store
        self._limits = limits
        self._tokens: dict[str, str] = {}  # colour -> token hash
        self._names: dict[str, str] = {}  # colour -> display name
        self._token_index = token_index  # token hash -> game id, shared by all games
        self._frames: list[bytes] = []  # encoded entries, the last resume_window of them
        self._owners: list[str | None] = []  # the seat that submitted each of them, if any
        self._first_frame = 1  # sequence of self._frames[0]
        self._requests: OrderedDict[tuple[str, str], bytes] = OrderedDict()  # -> reply
        self._lock = asyncio.Lock()
        self.hub = Hub(limits.watch_buffer)
        self._runner = runner
        self._bots: dict[str, str] = dict(self.settings.get("bots", {}))  # colour -> level
        self._takeover: dict[str, str] = {}  # colour -> why a bot took it over
        self._drawn: list[str] = []  # tiles of every tile_placed event, in order
        self._bot_task: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = -1  # the sequence the turn clock runs for
        self._tasks: set[asyncio.Future[Any]] = set()
        self._stopped = False
        #: Bot decisions accepted, and refused (a refusal would be a bug).
        self.bot_moves = 0
        self.bot_refusals = 0
        for _, kind, body in stored.entries:
            self._replay(kind, body)

    # ------------------------------------------------------------ reading

    def game_proto(self) -> pb.Game:
        """The game resource."""
        created = Timestamp()
        created.FromNanoseconds(int(self.created * 1e9))
        return pb.Game(
            name=self.name,
            state=self.state,
            sequence=self.sequence,
            create_time=created,
            settings=settings_proto(self.settings),
            seats=[
                pb.Seat(
                    colour=convert.COLOUR[c],
                    occupied=c in self._tokens or c in self._bots,
                    display_name=self._names.get(c, ""),
                    bot=LEVEL[self._bots[c]] if c in self._bots else pb.BOT_LEVEL_UNSPECIFIED,
                    takeover=REASON[self._takeover[c]]
                    if c in self._takeover
                    else pb.TAKEOVER_REASON_UNSPECIFIED,
                )
                for c in self.seats
            ],
        )

    def _taken(self, colour: str) -> bool:
        return colour in self._tokens or colour in self._bots

    def seat_of(self, token_hash: str) -> str | None:
        """The colour whose token has this hash, if any."""
        for colour, held in self._tokens.items():
            if secrets.compare_digest(held, token_hash):
                return colour
        return None

    def _snapshot(self, viewer: str | None) -> pb.GameSnapshot:
        snapshot = pb.GameSnapshot(sequence=self.sequence, game=self.game_proto())
        if self.game is not None:
            snapshot.view.CopyFrom(convert.view_to_proto(self.game.view(viewer)))
        return snapshot

    async def snapshot(self, viewer: str | None) -> pb.GameSnapshot:
        """The game at its last durable entry, as ``viewer`` (None: a spectator) sees it."""
        async with self._lock:
            return self._snapshot(viewer)

    async def watch(
        self,
        viewer: str | None,
        after: int | None,
        exclude_own: bool = False,
        hold_until_turn: bool = False,
    ) -> tuple[bytes, Watcher | None]:
        """What a new watch sends first, and its watcher (None if nothing more will come).

        Resuming ``after`` a recent sequence replays the entries since; otherwise,
        or if that is too old, the stream starts with a snapshot. With
        ``exclude_own``, the entries of actions ``viewer`` submitted are left out;
        with ``hold_until_turn``, new entries wait until one gives ``viewer``
        the decision (or half the watch buffer is full, or the watch ends).
        """
        skip = viewer if exclude_own else None
        async with self._lock:
            if after is not None and not 0 <= after <= self.sequence:
                raise ServiceError(
                    ServerReason.SEQUENCE_OUT_OF_RANGE,
                    f"after_sequence must be 0..{self.sequence}",
                    sequence=self.sequence,
                )
            if after is not None and after + 1 >= self._first_frame:
                start = after + 1 - self._first_frame
                first = b"".join(
                    frame
                    for frame, owner in zip(self._frames[start:], self._owners[start:], strict=True)
                    if skip is None or owner != skip
                )
                if not first:
                    first = spb.WatchGameResponse(
                        sequence=self.sequence, caught_up=True
                    ).SerializeToString()
            else:
                snapshot = self._snapshot(viewer)
                first = spb.WatchGameResponse(snapshot=snapshot).SerializeToString()
            if self.state == FINISHED:
                return first, None
            hold_for = viewer if hold_until_turn else None
            return first, self.hub.subscribe(self.sequence, skip, hold_for)

    def record(self) -> dict[str, Any]:
        """The record of the finished game (stack included)."""
        if self.state != FINISHED or self.game is None:
            raise ServiceError(
                ServerReason.GAME_NOT_FINISHED, "the record is public once the game is over"
            )
        return self.game.record()

    # ------------------------------------------------------------ changing

    async def _exclusive(self, change: Callable[[], Awaitable[T]]) -> T:
        async def locked() -> T:
            async with self._lock:
                turn = Webhooks.turn(self.game)
                try:
                    return await change()
                finally:
                    self._schedule()
                    if self._webhooks is not None:
                        self._webhooks.changed(
                            turn,
                            name=self.name,
                            settings=self.settings,
                            sequence=self.sequence,
                            game=self.game,
                            bots=self._bots,
                        )

        return await asyncio.shield(asyncio.ensure_future(locked()))

    async def join(self, colour: str | None, display_name: str) -> tuple[str, str]:
        """Take a seat (``colour``, or the first open one); returns it and its secret token."""

        async def change() -> tuple[str, str]:
            open_seats = [c for c in self.seats if not self._taken(c)]
            if colour is not None and colour not in self.seats:
                raise ServiceError(
                    ServerReason.NO_SUCH_SEAT, f"{colour} is no seat of this game", colour=colour
                )
            if not open_seats:
                raise ServiceError(ServerReason.GAME_FULL, "every seat is taken")
            if colour is not None and colour not in open_seats:
                raise ServiceError(ServerReason.SEAT_TAKEN, f"{colour} is taken", colour=colour)
            seat = colour or open_seats[0]
            token = secrets.token_urlsafe(24)
            await self._append(
                "joined", {"colour": seat, "token": hash_token(token), "name": display_name}
            )
            if (
                self.settings.get("auto_start")
                and self.state == OPEN
                and all(self._taken(c) for c in self.seats)
            ):
                await self._append("started", {})
            return seat, token

        return await self._exclusive(change)

    async def leave(self, colour: str) -> None:
        """Give up ``colour``'s seat: its token stops working, the seat is open again."""

        async def change() -> None:
            await self._append("left", {"colour": colour})
            level = self.settings.get("leave_bot")
            if level and self.state == ACTIVE:
                await self._append("takeover", {"colour": colour, "level": level, "reason": "left"})

        await self._exclusive(change)

    async def start(self) -> None:
        """Start the game once every seat is taken."""

        async def change() -> None:
            if self.state != OPEN:
                raise ServiceError(ServerReason.GAME_ALREADY_STARTED, "the game has started")
            missing = [c for c in self.seats if not self._taken(c)]
            if missing:
                raise ServiceError(ServerReason.SEATS_OPEN, "seats are open", seats=missing)
            await self._append("started", {})

        await self._exclusive(change)

    async def start_bots_only(self) -> None:
        """Start a new game whose seats are all bots (nobody else could start it)."""

        async def change() -> None:
            if self.state == OPEN and all(c in self._bots for c in self.seats):
                await self._append("started", {})

        await self._exclusive(change)

    async def submit(self, colour: str, sequence: int, request_id: str, action: Any) -> bytes:
        """Apply ``colour``'s action chosen at ``sequence``; a repeated request id is a no-op.

        Bots send an empty ``request_id`` (clients must send one): never remembered.

        Returns the encoded SubmitActionResponse.
        """

        async def change() -> bytes:
            done = self._requests.get((colour, request_id)) if request_id else None
            if done is not None:
                return done
            if self.game is None:
                raise ServiceError(ServerReason.GAME_NOT_STARTED, "the game has not started")
            if sequence != self.sequence:
                raise ServiceError(
                    ServerReason.STALE_SEQUENCE,
                    f"the game is at sequence {self.sequence}, not {sequence}",
                    sequence=self.sequence,
                )
            try:
                events = self.game.apply(action, colour)
            except ActionError as error:
                raise ServiceError.from_engine(error) from None
            body = {"player": colour, "action": self.game.actions[-1], "request": request_id}
            future = self._store.append(self.id, self.sequence + 1, "action", body)
            try:
                await future
            except BaseException:
                self._rebuild()
                raise
            return self._applied(body, events)

        return await self._exclusive(change)

    # ------------------------------------------------------------ the log

    async def _append(self, kind: str, body: dict[str, Any]) -> None:
        """Write a lobby entry durably, then apply and publish it."""
        await self._store.append(self.id, self.sequence + 1, kind, body)
        self._replay(kind, body)

    def _replay(self, kind: str, body: dict[str, Any]) -> None:
        """Apply a stored (or just stored) entry to memory and publish it."""
        if kind == "joined":
            self._tokens[body["colour"]] = body["token"]
            self._names[body["colour"]] = body["name"]
            self._token_index[body["token"]] = self.id
            self._publish(
                pb.LogEntry(
                    seat_joined=pb.SeatJoined(
                        colour=convert.COLOUR[body["colour"]], display_name=body["name"]
                    )
                )
            )
        elif kind == "left":
            token = self._tokens.pop(body["colour"], None)
            self._names.pop(body["colour"], None)
            self._token_index.pop(token or "", None)
            self._publish(pb.LogEntry(seat_left=pb.SeatLeft(colour=convert.COLOUR[body["colour"]])))
        elif kind == "takeover":
            colour = body["colour"]
            token = self._tokens.pop(colour, None)
            self._token_index.pop(token or "", None)
            self._bots[colour] = body["level"]
            self._takeover[colour] = body["reason"]
            self._publish(
                pb.LogEntry(
                    seat_taken_over=pb.SeatTakenOver(
                        colour=convert.COLOUR[colour],
                        level=LEVEL[body["level"]],
                        reason=REASON[body["reason"]],
                    )
                )
            )
        elif kind == "started":
            self.game = Game.new(self.seats, self._stack)
            self.state = ACTIVE
            view = convert.view_to_proto(self.game.view(None))
            self._publish(pb.LogEntry(game_started=pb.GameStarted(view=view)))
        elif kind == "action":
            assert self.game is not None
            events = self.game.apply_unchecked(body["action"])
            self._applied(body, events)
        else:  # pragma: no cover - the server writes no other kind
            raise ValueError(f"unknown entry kind {kind!r}")

    def _applied(self, body: dict[str, Any], events: list[dict[str, Any]]) -> bytes:
        """Publish an applied action; returns the encoded SubmitActionResponse."""
        assert self.game is not None
        self._drawn.extend(e["tile"] for e in events if e["kind"] == "tile_placed")
        decision = self.game.decision
        applied = pb.ActionApplied(
            player=convert.COLOUR[body["player"]],
            action=convert.action_to_proto(body["action"]),
            events=convert.events_to_proto(events),
        ).SerializeToString()
        if decision is not None:
            applied += convert.field_bytes(_DECISION, convert.decision_bytes(decision.to_dict()))
        # A client's action is its seat's own (a bot's, sent without request id, is not).
        owner = body["player"] if body["request"] else None
        decider = decision.player if decision is not None else None
        frame = self._publish_encoded(_ACTION_APPLIED, applied, owner, decider)
        reply = _REPLY_TAG + frame[len(_FRAME_TAG) :]
        if body["request"]:  # bots send none: nobody retries their requests
            self._requests[(body["player"], body["request"])] = reply
            if len(self._requests) > self._limits.request_ids:
                self._requests.popitem(last=False)
        if self.game.over:
            self.state = FINISHED
            self.hub.close(End.FINISHED)
            log.info("game finished", extra={"game": self.id, "sequence": self.sequence})
        return reply

    def _publish(self, entry: pb.LogEntry) -> None:
        change = entry.WhichOneof("change")
        assert change is not None
        self._publish_encoded(
            pb.LogEntry.DESCRIPTOR.fields_by_name[change].number,
            getattr(entry, change).SerializeToString(),
        )

    def _publish_encoded(
        self, change: int, data: bytes, owner: str | None = None, decider: str | None = None
    ) -> bytes:
        """Publish the next entry, whose ``change`` field holds ``data``; returns its frame.

        The frame is the encoded ``WatchGameResponse`` of that one entry, built
        once for every watcher, the resume window and the SubmitAction reply.
        ``owner`` is the seat that submitted it (its watches may leave it out),
        ``decider`` the seat that decides next (watches held until their turn
        wait for it).
        """
        self.sequence += 1
        entry = _SEQUENCE_TAG + convert.varint(self.sequence) + convert.field_bytes(change, data)
        frame = _FRAME_TAG + convert.varint(len(entry)) + entry
        self._frames.append(frame)
        self._owners.append(owner)
        if len(self._frames) > self._limits.resume_window:
            drop = len(self._frames) - self._limits.resume_window
            del self._frames[:drop]
            del self._owners[:drop]
            self._first_frame += drop
        self.hub.publish(self.sequence, frame, owner, decider)
        return frame

    def _rebuild(self) -> None:
        """Undo the action whose write failed: replay the durable actions."""
        assert self.game is not None
        record = self.game.record()
        record["actions"] = record["actions"][:-1]
        self.game = Game.from_record(record, checked=False)
        log.error("log write failed; game rolled back", extra={"game": self.id})

    # ------------------------------------------------------------ bots and the clock

    def _schedule(self) -> None:
        """After every change: let a bot move, or run the turn clock of a person's seat."""
        if self._stopped or self._runner is None:
            return
        decision = self.game.decision if self.game is not None and self.state == ACTIVE else None
        if decision is None:
            self._stop_clock()
            return
        player = decision.player
        if player in self._bots:
            self._stop_clock()
            if self._bot_task is None or self._bot_task.done():
                self._bot_task = asyncio.ensure_future(self._play_bots())
            return
        assert self.game is not None
        most = int(self.settings.get("max_turn_decisions") or 0)
        if most and turn_decisions(self.game.actions, self.game.decision_kind) >= most:
            self._stop_clock()
            self._take_over(self.sequence, player, "turn_too_long")
            return
        timeout = float(self.settings.get("turn_timeout_seconds") or 0)
        if timeout > 0 and self._timer_at != self.sequence:
            self._stop_clock()
            self._timer_at = self.sequence
            self._timer = asyncio.get_running_loop().call_later(
                timeout, self._time_out, self.sequence, player
            )

    def _stop_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_at = -1

    def _time_out(self, sequence: int, player: str) -> None:
        """The clock of ``player``'s decision at ``sequence`` ran out: a bot takes the seat."""
        self._timer = None
        self._timer_at = -1
        self._take_over(sequence, player, "timed_out")

    def _take_over(self, sequence: int, player: str, reason: str) -> None:
        """Let a bot take ``player``'s seat if its decision at ``sequence`` is still pending."""

        async def change() -> None:
            if self._stopped or self.sequence != sequence or self.state != ACTIVE:
                return
            decision = self.game.decision if self.game is not None else None
            if decision is None or decision.player != player or player in self._bots:
                return
            level = self.settings.get("timeout_bot") or "random"
            await self._append("takeover", {"colour": player, "level": level, "reason": reason})
            log.info("seat taken over", extra={"game": self.id, "colour": player, "why": reason})

        task = asyncio.ensure_future(self._exclusive(change))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _play_bots(self) -> None:
        """Play every pending decision of a bot seat, through the same path as anyone's."""
        assert self._runner is not None
        loop = asyncio.get_running_loop()
        budget = self._runner.config.strong_budget
        while not self._stopped:
            async with self._lock:
                if self.game is None or self.state != ACTIVE or self.game.decision is None:
                    return
                player = self.game.decision.player
                if player not in self._bots:
                    return
                sequence = self.sequence
                job = Job(
                    level=self._bots[player],
                    budget=budget,
                    seats=tuple(self.seats),
                    actions=tuple(self.game.actions),
                    drawn=tuple(self._drawn),
                    viewer=player,
                    seed=seed_of(self.id, sequence),
                )
            try:
                action = await loop.run_in_executor(self._runner.executor, think, job)
                await self.submit(player, sequence, "", action)
            except ServiceError as error:
                if error.reason == ServerReason.STALE_SEQUENCE:
                    continue
                self.bot_refusals += 1
                log.error(
                    "bot action refused",
                    extra={"game": self.id, "colour": player, "reason": error.reason},
                )
                return
            except RuntimeError:  # the executor was shut down: the server is stopping
                return
            except Exception:
                self.bot_refusals += 1
                log.exception("bot failed", extra={"game": self.id, "colour": player})
                return
            self.bot_moves += 1
            if self.sequence <= sequence:  # pragma: no cover - a submit always appends
                log.error("bot action not applied", extra={"game": self.id, "colour": player})
                return

    def stop(self) -> None:
        """Stop the bots and the clock (the server is shutting down)."""
        self._stopped = True
        self._stop_clock()
        if self._bot_task is not None:
            self._bot_task.cancel()
        for task in list(self._tasks):
            task.cancel()

    def resume(self) -> None:
        """Let bots and the clock run again after loading (the event loop is running)."""
        self._schedule()


def settings_proto(settings: dict[str, Any]) -> pb.GameSettings:
    """The GameSettings message of stored settings."""
    return pb.GameSettings(
        display_name=settings.get("display_name", ""),
        auto_start=bool(settings.get("auto_start")),
        bots=[
            pb.BotSeat(colour=convert.COLOUR[c], level=LEVEL[level])
            for c, level in settings.get("bots", {}).items()
        ],
        turn_timeout_seconds=float(settings.get("turn_timeout_seconds") or 0),
        timeout_bot=LEVEL.get(settings.get("timeout_bot") or "", pb.BOT_LEVEL_UNSPECIFIED),
        leave_bot=LEVEL.get(settings.get("leave_bot") or "", pb.BOT_LEVEL_UNSPECIFIED),
        max_turn_decisions=int(settings.get("max_turn_decisions") or 0),
    )
