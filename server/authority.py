"""The authority of one game: its seats, the engine state, its log and its watchers.

All changes to a game go through one lock, in this order: check, apply in
memory, write the log entry (and the game's summary) durably, then publish
it. Readers take the same lock, so nobody ever sees a state whose entry is not
yet durable. The critical sections run as tasks of their own, so a client
hanging up mid-write cannot leave memory and disk apart. If a write fails the
authority is *broken*: it stops, ends its watches (they resume elsewhere) and
the registry rebuilds the game from the store on the next request.

An authority is the game's *owner* (it writes, and runs its bots and turn
clock) or a *follower*: a copy on another node that applies the entries the
owner wrote, read from the store, so that watches and reads can be served by
any node.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from engine import ActionError, Game, Reason
from server import convert
from server.botseats import BotRunner, Job, seed_of, think, turn_decisions
from server.errors import ServerReason, ServiceError
from server.fanout import End, Hub, Watcher
from server.gen.tongiaki.v1 import game_pb2 as pb
from server.gen.tongiaki.v1 import game_service_pb2 as spb
from server.seats import Seats, hash_token, new_token
from server.storage.base import ACTIVE, FINISHED, OPEN, Entry, Store, Stored, Summary, Tokens

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Encoded tags: LogEntry.sequence, LogEntry.action_applied, WatchGameResponse.entries
#: and SubmitActionResponse.entry (the last two hold the same LogEntry encoding).
_SEQUENCE_TAG = convert.varint(pb.LogEntry.DESCRIPTOR.fields_by_name["sequence"].number << 3)
_ACTION_APPLIED = pb.LogEntry.DESCRIPTOR.fields_by_name["action_applied"].number
_TAKEN_BACK = pb.LogEntry.DESCRIPTOR.fields_by_name["action_taken_back"].number
_DECISION = pb.ActionApplied.DESCRIPTOR.fields_by_name["decision"].number
_FRAME_TAG = convert.varint(
    spb.WatchGameResponse.DESCRIPTOR.fields_by_name["entries"].number << 3 | 2
)
_REPLY_TAG = convert.varint(
    spb.SubmitActionResponse.DESCRIPTOR.fields_by_name["entry"].number << 3 | 2
)

#: What applying an entry in memory returns: publishing it, which returns its frame.
Publish = Callable[[], bytes]


@dataclass(frozen=True)
class Limits:
    """Per-game memory and buffering limits."""

    #: How many recent entries a resuming watcher is sent from memory (older
    #: ones are read back from the store).
    resume_window: int = 32
    #: How many frames may wait for one watcher before it is cut off.
    watch_buffer: int = 64
    #: How many recent request ids per game are remembered for safe retries.
    request_ids: int = 32
    #: How many entries a resuming watcher is sent from the store when memory no
    #: longer holds them; a watcher further behind gets a snapshot.
    replay_from_store: int = 4096


def entry_frame(sequence: int, change: int, data: bytes) -> bytes:
    """The encoded ``WatchGameResponse`` holding one LogEntry (``change`` field holds ``data``)."""
    entry = _SEQUENCE_TAG + convert.varint(sequence) + convert.field_bytes(change, data)
    return _FRAME_TAG + convert.varint(len(entry)) + entry


def reply_of(frame: bytes) -> bytes:
    """The SubmitActionResponse holding the entry of ``frame``."""
    return _REPLY_TAG + frame[len(_FRAME_TAG) :]


class Authority:
    """One game and everything that changes it."""

    def __init__(
        self,
        stored: Stored,
        store: Store,
        limits: Limits,
        *,
        runner: BotRunner | None = None,
        owner: bool = True,
        keep_after: int | None = None,
    ) -> None:
        """Rebuild the game from ``stored``; frames are kept for the entries after
        ``keep_after`` (default: the last ``limits.resume_window``)."""
        setup = stored.setup
        self.id = setup.id
        self.name = "games/" + setup.id
        self.ordinal = setup.ordinal
        self.settings = dict(setup.settings)
        self.created = setup.created
        self.seats = Seats(setup.seats, self.settings.get("bots", {}))
        self.state = OPEN
        self.sequence = 0
        self.game: Game | None = None
        #: The owner's epoch this authority writes with (owners only).
        self.epoch = stored.epoch
        self.owner = owner
        #: Set when a write failed: the game must be rebuilt from the store.
        self.broken = False
        #: The sequence of the entry being written now (0: none).
        self.writing = 0
        #: When the game was last asked for (monotonic seconds), for eviction.
        self.used = time.monotonic()
        self._stack = list(setup.stack)
        self._store = store
        self._limits = limits
        self._frames: list[bytes] = []  # encoded entries, the last resume_window of them
        self._owners: list[str | None] = []  # the seat that submitted each of them, if any
        self._first_frame = 1  # sequence of self._frames[0]
        self._requests: OrderedDict[tuple[str, str], bytes] = OrderedDict()  # -> its frame
        self._lock = asyncio.Lock()
        self.hub = Hub(limits.watch_buffer)
        self._runner = runner
        self._drawn: list[str] = []  # tiles of every tile_placed event, in order
        self._deadline: float | None = None  # when the pending person's clock runs out
        self._bot_task: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = -1  # the sequence the turn clock runs for
        self._tasks: set[asyncio.Future[Any]] = set()
        self._stopped = False
        self._token_change = Tokens()  # what the entry applied last did to seat tokens
        #: The last entry if it is an accepted action: its body and events (for take-backs).
        self._last_action: tuple[dict[str, Any], list[dict[str, Any]]] | None = None
        #: Bot decisions accepted, and refused (a refusal would be a bug).
        self.bot_moves = 0
        self.bot_refusals = 0
        last = stored.entries[-1].sequence if stored.entries else 0
        keep = max(0, last - limits.resume_window) if keep_after is None else keep_after
        self._first_frame = keep + 1
        for entry in stored.entries:
            publish = self._apply(entry.kind, entry.body)
            if entry.sequence > keep:
                publish()
            else:  # history before the window: no frame to build
                self.sequence += 1
        if stored.summary.attention is not None and stored.summary.attention > 0:
            self._deadline = stored.summary.attention

    # ------------------------------------------------------------ reading

    def summary(self, sequence: int | None = None, now: float | None = None) -> Summary:
        """The game's summary as stored beside its log (at ``sequence``, default the last)."""
        return Summary(
            state=self.state,
            sequence=self.sequence if sequence is None else sequence,
            seats=self.seats.summary(),
            result=self.game.result if self.game is not None and self.game.over else None,
            attention=self._attention(time.time() if now is None else now),
        )

    def _attention(self, now: float) -> float | None:
        """When the server must act on this game by itself (see Summary.attention)."""
        decision = self.game.decision if self.game is not None and self.state == ACTIVE else None
        if decision is None:
            return None
        if decision.player in self.seats.bots:
            return now
        assert self.game is not None
        most = int(self.settings.get("max_turn_decisions") or 0)
        if most and turn_decisions(self.game.actions, self.game.decision_kind) >= most:
            return now
        timeout = float(self.settings.get("turn_timeout_seconds") or 0)
        return now + timeout if timeout > 0 else None

    def game_proto(self) -> pb.Game:
        """The game resource."""
        return convert.game_to_proto(
            self.id,
            self.created,
            self.settings,
            state=self.state,
            sequence=self.sequence,
            seats=self.seats.summary(),
            result=self.game.result if self.game is not None and self.game.over else None,
        )

    def seat_of(self, token_hash: str) -> str | None:
        """The colour whose token has this hash, if any."""
        return self.seats.holder(token_hash)

    def _snapshot(self, viewer: str | None) -> pb.GameSnapshot:
        snapshot = pb.GameSnapshot(sequence=self.sequence, game=self.game_proto())
        if self.game is not None:
            snapshot.view.CopyFrom(convert.view_to_proto(self.game.view(viewer)))
        return snapshot

    async def snapshot(self, viewer: str | None) -> pb.GameSnapshot:
        """The game at its last durable entry, as ``viewer`` (None: a spectator) sees it."""
        async with self._lock:
            return self._snapshot(viewer)

    def latest(self, viewer: str | None) -> pb.GameSnapshot:
        """The snapshot now, without waiting (a watch's batch was just taken)."""
        return self._snapshot(viewer)

    def window(self) -> list[tuple[bytes, str | None]]:
        """The frames memory holds, with the seat that submitted each (if any)."""
        return list(zip(self._frames, self._owners, strict=True))

    async def watch(
        self,
        viewer: str | None,
        after: int | None,
        exclude_own: bool = False,
        hold_until_turn: bool = False,
        older: Callable[[int, int], Awaitable[list[tuple[bytes, str | None]]]] | None = None,
    ) -> tuple[bytes, Watcher | None]:
        """What a new watch sends first, and its watcher (None if nothing more will come).

        Resuming ``after`` a sequence replays the entries since (from memory, or
        through ``older(after, until)`` from the store); otherwise, or if that
        cannot be done, the stream starts with a snapshot. With ``exclude_own``,
        the entries of actions ``viewer`` submitted are left out; with
        ``hold_until_turn``, new entries wait until one gives ``viewer`` the
        decision (or half the watch buffer is full, or the watch ends).
        """
        skip = viewer if exclude_own else None
        async with self._lock:
            if after is not None and not 0 <= after <= self.sequence:
                raise ServiceError(
                    ServerReason.SEQUENCE_OUT_OF_RANGE,
                    f"after_sequence must be 0..{self.sequence}",
                    sequence=self.sequence,
                )
            replay: list[tuple[bytes, str | None]] | None = None
            if after is not None and after + 1 >= self._first_frame:
                start = after + 1 - self._first_frame
                replay = list(zip(self._frames[start:], self._owners[start:], strict=True))
            elif (
                after is not None
                and older is not None
                and self.sequence - after <= self._limits.replay_from_store
            ):
                earlier = await older(after, self._first_frame - 1)
                replay = [*earlier, *zip(self._frames, self._owners, strict=True)]
            if replay is not None:
                first = b"".join(frame for frame, owner in replay if skip is None or owner != skip)
                if not first:
                    first = spb.WatchGameResponse(
                        sequence=self.sequence, caught_up=True
                    ).SerializeToString()
            else:
                first = spb.WatchGameResponse(snapshot=self._snapshot(viewer)).SerializeToString()
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
                if self.broken or not self.owner:
                    raise ServiceError(
                        ServerReason.GAME_MOVED, "the game moved; retry", name=self.name
                    )
                try:
                    return await change()
                finally:
                    self._schedule()

        return await asyncio.shield(asyncio.ensure_future(locked()))

    async def _write(self, kind: str, body: dict[str, Any], tokens: Tokens) -> None:
        """Write the entry just applied in memory, with the summary after it."""
        entry = Entry(self.sequence + 1, kind, body)
        self.writing = entry.sequence
        try:
            await self._store.append(
                self.id, entry, self.summary(entry.sequence), tokens, self.epoch
            )
        except BaseException:
            self.break_off()
            raise
        finally:
            self.writing = 0

    async def _commit(self, kind: str, body: dict[str, Any]) -> bytes:
        """Apply a lobby entry in memory, write it durably, publish it; returns its frame."""
        publish = self._apply(kind, body)
        await self._write(kind, body, self._token_change)
        return publish()

    async def join(self, colour: str | None, display_name: str) -> tuple[str, str]:
        """Take a seat (``colour``, or the first open one); returns it and its secret token."""

        async def change() -> tuple[str, str]:
            open_seats = self.seats.open()
            if colour is not None and colour not in self.seats.colours:
                raise ServiceError(
                    ServerReason.NO_SUCH_SEAT, f"{colour} is no seat of this game", colour=colour
                )
            if not open_seats:
                raise ServiceError(ServerReason.GAME_FULL, "every seat is taken")
            if colour is not None and colour not in open_seats:
                raise ServiceError(ServerReason.SEAT_TAKEN, f"{colour} is taken", colour=colour)
            seat = colour or open_seats[0]
            token = new_token()
            await self._commit(
                "joined", {"colour": seat, "token": hash_token(token), "name": display_name}
            )
            if self.settings.get("auto_start") and self.state == OPEN and not self.seats.open():
                await self._commit("started", {})
            return seat, token

        return await self._exclusive(change)

    async def leave(self, colour: str) -> None:
        """Give up ``colour``'s seat: its token stops working, the seat is open again."""

        async def change() -> None:
            await self._commit("left", {"colour": colour})
            level = self.settings.get("leave_bot")
            if level and self.state == ACTIVE:
                await self._commit("takeover", {"colour": colour, "level": level, "reason": "left"})

        await self._exclusive(change)

    async def start(self) -> None:
        """Start the game once every seat is taken."""

        async def change() -> None:
            if self.state != OPEN:
                raise ServiceError(ServerReason.GAME_ALREADY_STARTED, "the game has started")
            missing = self.seats.open()
            if missing:
                raise ServiceError(ServerReason.SEATS_OPEN, "seats are open", seats=missing)
            await self._commit("started", {})

        await self._exclusive(change)

    async def start_bots_only(self) -> None:
        """Start a new game whose seats are all bots (nobody else could start it)."""

        async def change() -> None:
            if self.state == OPEN and all(c in self.seats.bots for c in self.seats.colours):
                await self._commit("started", {})

        await self._exclusive(change)

    async def submit(self, colour: str, sequence: int, request_id: str, action: Any) -> bytes:
        """Apply ``colour``'s action chosen at ``sequence``; a repeated request id is a no-op.

        Bots send an empty ``request_id`` (clients must send one): never remembered.

        Returns the encoded SubmitActionResponse.
        """

        async def change() -> bytes:
            done = self._requests.get((colour, request_id)) if request_id else None
            if done is not None:
                return reply_of(done)
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
            self._last_action = (body, events)
            publish = self._applied(body, events)
            await self._write("action", body, Tokens())
            return reply_of(publish())

        return await self._exclusive(change)

    async def take_back(self, colour: str, sequence: int, request_id: str) -> bytes:
        """Undo ``colour``'s own decision at ``sequence``, the last entry of the log.

        Refused once a tile was drawn by it, or if any entry came after it
        (another seat decided). A repeated request id is a no-op. Returns the
        encoded TakeBackResponse (whose entry field is SubmitActionResponse's).
        """

        async def change() -> bytes:
            key = (colour, "take-back:" + request_id)
            done = self._requests.get(key)
            if done is not None:
                return reply_of(done)
            if self.game is None:
                raise ServiceError(ServerReason.GAME_NOT_STARTED, "the game has not started")
            if self.state == FINISHED:
                raise ServiceError(Reason.GAME_OVER, "the game is over")
            last = self._last_action
            if sequence != self.sequence or last is None:
                raise ServiceError(
                    ServerReason.TAKE_BACK_NOT_LAST,
                    f"only the last entry ({self.sequence}) can be taken back, if it is a decision",
                    sequence=self.sequence,
                )
            body, events = last
            if body["player"] != colour or not body["request"]:
                raise ServiceError(
                    ServerReason.TAKE_BACK_NOT_YOURS,
                    "the last decision is not this seat's own",
                    player=body["player"],
                )
            if any(e["kind"] == "tile_placed" for e in events):
                raise ServiceError(
                    ServerReason.TAKE_BACK_AFTER_DRAW,
                    "a tile was drawn by that decision; it stands",
                )
            entry = {"player": colour, "taken_back": sequence, "request": request_id}
            publish = self._apply("taken_back", entry)
            await self._write("taken_back", entry, Tokens())
            frame = publish()
            self._requests[key] = frame
            if len(self._requests) > self._limits.request_ids:
                self._requests.popitem(last=False)
            return reply_of(frame)

        return await self._exclusive(change)

    # ------------------------------------------------------------ the log

    def _apply(self, kind: str, body: dict[str, Any]) -> Publish:
        """Apply an entry in memory; returns how to publish it (once it is durable)."""
        self._token_change = Tokens()
        self._last_action = None
        if kind == "joined":
            self._token_change = self.seats.join(body["colour"], body["token"], body["name"])
            message = pb.LogEntry(
                seat_joined=pb.SeatJoined(
                    colour=convert.COLOUR[body["colour"]], display_name=body["name"]
                )
            )
        elif kind == "left":
            self._token_change = self.seats.leave(body["colour"])
            message = pb.LogEntry(seat_left=pb.SeatLeft(colour=convert.COLOUR[body["colour"]]))
        elif kind == "takeover":
            colour = body["colour"]
            self._token_change = self.seats.take_over(colour, body["level"], body["reason"])
            message = pb.LogEntry(
                seat_taken_over=pb.SeatTakenOver(
                    colour=convert.COLOUR[colour],
                    level=convert.LEVEL[body["level"]],
                    reason=convert.REASON[body["reason"]],
                )
            )
        elif kind == "started":
            self.game = Game.new(self.seats.colours, self._stack)
            self.state = ACTIVE
            game = self.game

            def started() -> bytes:
                view = convert.view_to_proto(game.view(None))
                return self._publish(pb.LogEntry(game_started=pb.GameStarted(view=view)))

            return started
        elif kind == "action":
            assert self.game is not None
            events = self.game.apply_unchecked(body["action"])
            self._last_action = (body, events)
            return self._applied(body, events)
        elif kind == "taken_back":
            return self._taken_back(body)
        else:  # pragma: no cover - the server writes no other kind
            raise ValueError(f"unknown entry kind {kind!r}")
        return lambda: self._publish(message)

    def _taken_back(self, body: dict[str, Any]) -> Publish:
        """Undo the last action in memory (replay the others); returns how to publish it."""
        assert self.game is not None
        record = self.game.record()
        record["actions"] = record["actions"][:-1]
        self.game = game = Game.from_record(record, checked=False)
        player = body["player"]

        def publish() -> bytes:
            taken = pb.ActionTakenBack(
                player=convert.COLOUR[player],
                taken_back=body["taken_back"],
                view=convert.view_to_proto(game.view(None)),
            ).SerializeToString()
            owner = player if body["request"] else None
            return self._publish_encoded(_TAKEN_BACK, taken, owner, player)

        return publish

    def _applied(self, body: dict[str, Any], events: list[dict[str, Any]]) -> Publish:
        """Account for an applied action; returns how to publish its entry."""
        assert self.game is not None
        self._drawn.extend(e["tile"] for e in events if e["kind"] == "tile_placed")
        decision = self.game.decision
        decision_dict = decision.to_dict() if decision is not None else None
        if self.game.over:
            self.state = FINISHED

        def publish() -> bytes:
            applied = pb.ActionApplied(
                player=convert.COLOUR[body["player"]],
                action=convert.action_to_proto(body["action"]),
                events=convert.events_to_proto(events),
            ).SerializeToString()
            if decision_dict is not None:
                applied += convert.field_bytes(_DECISION, convert.decision_bytes(decision_dict))
            # A client's action is its seat's own (a bot's, sent without request id, is not).
            owner = body["player"] if body["request"] else None
            decider = decision_dict["player"] if decision_dict is not None else None
            frame = self._publish_encoded(_ACTION_APPLIED, applied, owner, decider)
            if body["request"]:  # bots send none: nobody retries their requests
                self._requests[(body["player"], body["request"])] = frame
                if len(self._requests) > self._limits.request_ids:
                    self._requests.popitem(last=False)
            if self.state == FINISHED:
                self.hub.close(End.FINISHED)
            return frame

        return publish

    def _publish(self, entry: pb.LogEntry) -> bytes:
        change = entry.WhichOneof("change")
        assert change is not None
        return self._publish_encoded(
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
        frame = entry_frame(self.sequence, change, data)
        if self.sequence >= self._first_frame:
            self._frames.append(frame)
            self._owners.append(owner)
            if len(self._frames) > self._limits.resume_window:
                drop = len(self._frames) - self._limits.resume_window
                del self._frames[:drop]
                del self._owners[:drop]
                self._first_frame += drop
        self.hub.publish(self.sequence, frame, owner, decider)
        return frame

    async def follow(self, entries: list[Entry]) -> None:
        """Apply entries another node wrote (a follower), in order, and publish them."""
        async with self._lock:
            for entry in entries:
                if entry.sequence != self.sequence + 1:
                    continue
                self._apply(entry.kind, entry.body)()

    def break_off(self, why: End = End.MOVED) -> None:
        """Stop serving this copy of the game: a write failed or another node owns it."""
        self.broken = True
        self.stop()
        self.hub.close(why)

    # ------------------------------------------------------------ bots and the clock

    def _schedule(self) -> None:
        """After every change: let a bot move, or run the turn clock of a person's seat."""
        if self._stopped or self._runner is None or not self.owner or self.broken:
            return
        decision = self.game.decision if self.game is not None and self.state == ACTIVE else None
        if decision is None:
            self._stop_clock()
            return
        player = decision.player
        if player in self.seats.bots:
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
            deadline = self._deadline if self._deadline is not None else time.time() + timeout
            self._deadline = None
            self._timer = asyncio.get_running_loop().call_later(
                max(0.0, deadline - time.time()), self._time_out, self.sequence, player
            )

    def _stop_clock(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_at = -1

    @property
    def busy(self) -> bool:
        """Whether this game runs by itself here (a bot thinking, a clock running)."""
        return (self._bot_task is not None and not self._bot_task.done()) or (
            self._timer is not None
        )

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
            if decision is None or decision.player != player or player in self.seats.bots:
                return
            level = self.settings.get("timeout_bot") or "random"
            await self._commit("takeover", {"colour": player, "level": level, "reason": reason})
            log.info("seat taken over", extra={"game": self.id, "colour": player, "why": reason})

        task = asyncio.ensure_future(self._exclusive(change))
        self._tasks.add(task)
        task.add_done_callback(_consume)
        task.add_done_callback(self._tasks.discard)

    async def _play_bots(self) -> None:
        """Play every pending decision of a bot seat, through the same path as anyone's."""
        assert self._runner is not None
        loop = asyncio.get_running_loop()
        budget = self._runner.config.strong_budget
        # People follow the game: a bot's move is shown no sooner than `pace` after the last.
        people = any(c not in self.settings.get("bots", {}) for c in self.seats.colours)
        pace = self._runner.config.pace if people else 0.0
        while not self._stopped:
            async with self._lock:
                if self.game is None or self.state != ACTIVE or self.game.decision is None:
                    return
                player = self.game.decision.player
                if player not in self.seats.bots:
                    return
                sequence = self.sequence
                job = Job(
                    level=self.seats.bots[player],
                    budget=budget,
                    seats=tuple(self.seats.colours),
                    actions=tuple(self.game.actions),
                    drawn=tuple(self._drawn),
                    viewer=player,
                    seed=seed_of(self.id, sequence),
                )
            try:
                began = loop.time()
                action = await loop.run_in_executor(self._runner.executor, think, job)
                wait = pace - (loop.time() - began)
                if wait > 0:
                    await asyncio.sleep(wait)
                await self.submit(player, sequence, "", action)
            except ServiceError as error:
                if error.reason == ServerReason.STALE_SEQUENCE:
                    continue
                if error.reason == ServerReason.GAME_MOVED:
                    return
                self.bot_refusals += 1
                log.error(
                    "bot action refused",
                    extra={"game": self.id, "colour": player, "reason": error.reason},
                )
                return
            except RuntimeError:  # the executor was shut down: the server is stopping
                return
            except Exception:
                if self.broken:
                    return
                self.bot_refusals += 1
                log.exception("bot failed", extra={"game": self.id, "colour": player})
                return
            self.bot_moves += 1
            if self.sequence <= sequence:  # pragma: no cover - a submit always appends
                log.error("bot action not applied", extra={"game": self.id, "colour": player})
                return

    def stop(self) -> None:
        """Stop the bots and the clock (the server is shutting down, or the game leaves)."""
        self._stopped = True
        self._stop_clock()
        if self._bot_task is not None:
            self._bot_task.cancel()
        for task in list(self._tasks):
            task.cancel()

    def resume(self) -> None:
        """Let bots and the clock run (the event loop is running)."""
        self._schedule()

    def take_ownership(self, epoch: int) -> None:
        """This copy becomes the owner, writing with ``epoch`` (it is up to date)."""
        self.owner = True
        self.epoch = epoch
        self._schedule()


def _consume(task: asyncio.Future[Any]) -> None:
    """Retrieve a background change's error (it was logged where it mattered)."""
    if not task.cancelled():
        task.exception()
