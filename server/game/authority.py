"""The authority of one game: its seats, the engine state, its log and its watchers.

All changes to a game go through one lock, in this order: check, apply in
memory, write the log entry (and the game's summary) durably, then publish
it. Readers take the same lock, so nobody ever sees a state whose entry is not
yet durable. The critical sections run as tasks of their own, so a client
hanging up mid-write cannot leave memory and disk apart. If a write fails the
authority is *broken*: it stops, ends its watches (they resume elsewhere) and
the registry rebuilds the game from the store on the next request.

An authority is the game's *owner* (it writes, and its bots and turn clock
run) or a *follower*: a copy on another node that applies the entries the
owner wrote, read from the store, so that any node serves watches and reads.

It speaks no protobuf: entries are typed (server.game.entries), the codec
(server.rpc.codec) encodes each once as the frame every watcher shares.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from engine import ActionError, Game, Reason, canonical
from server.game import entries as log_entries
from server.game.entries import (
    ASIDES,
    PHRASES,
    Acted,
    Joined,
    Left,
    LogEntry,
    Rematched,
    Said,
    Started,
    Stopped,
    TakenBack,
    TakenOver,
)
from server.game.errors import ServerReason, ServiceError, reused
from server.game.fanout import Boards, End, Hub, Watcher
from server.game.hooks import Codec, Hooks
from server.game.seats import Seats, hash_token, new_token, request_digest, seal, unseal
from server.game.turns import Acting, must_act, turn_timeout
from server.storage.base import (
    ACTIVE,
    FINISHED,
    OPEN,
    Entry,
    Setup,
    Store,
    Stored,
    Summary,
    Tokens,
)

log = logging.getLogger(__name__)

T = TypeVar("T")


class Pending:
    """An entry applied in memory, to publish once it is durable.

    Its frame is encoded once, when first asked for (before the store writes
    it, for a store that keeps frames; else as it is published), or taken as
    the store gave it back.
    """

    __slots__ = ("_after", "_encode", "_frame")

    def __init__(
        self,
        encode: Callable[[], bytes],
        after: Callable[[bytes], object],
        frame: bytes | None = None,
    ) -> None:
        self._encode = encode
        self._after = after
        self._frame = frame

    def frame(self) -> bytes:
        """The entry's watch frame."""
        if self._frame is None:
            self._frame = self._encode()
        return self._frame

    def publish(self) -> bytes:
        """Send the frame to the watchers and the resume window; returns it."""
        frame = self.frame()
        self._after(frame)
        return frame


#: An attention no summary can have: the stored one is not known here.
_UNKNOWN = object()

#: A frame and the seat that submitted its entry (its own watches may leave it out).
Frame = tuple[bytes, str | None]


@dataclass(frozen=True)
class Limits:
    """Per-game memory and buffering limits."""

    #: How many recent entries a resuming watcher is sent from memory (older
    #: ones are read back from the store).
    resume_window: int = 16
    #: How many frames may wait for one watcher before it is cut off.
    watch_buffer: int = 64
    #: How many recent request ids per game are remembered for safe retries.
    request_ids: int = 16
    #: How many entries a resuming watcher is sent from the store when memory no
    #: longer holds them; a watcher further behind gets a snapshot.
    replay_from_store: int = 4096
    #: Quick messages a game holds at most (all seats together).
    messages_per_game: int = 200
    #: Quick messages one seat may send at once, and the seconds after which it
    #: may send one more (a token bucket per seat, kept in memory).
    message_burst: int = 3
    message_every: float = 4.0
    #: The game is kept in memory as it was every this many entries (a
    #: checkpoint), so the game after any entry is rebuilt from the checkpoint
    #: before it and at most this many entries read from the store.
    checkpoint_every: int = 16
    #: How many of the bots' latest answers are remembered by position (see
    #: :meth:`Authority.pending_bot`), as read from the log.
    bot_answers: int = 64


class Checkpoint(NamedTuple):
    """The game as it was right after entry ``sequence`` (copies that never change)."""

    sequence: int
    state: str
    decided: int
    messages: int
    rematch: str | None
    seats: Seats
    game: Game | None
    drawn: tuple[str, ...]
    stopped: dict[str, Any] | None
    quiet_turns: int


class PublicRecord(NamedTuple):
    """What a seat may know of the game: seats, actions and the tiles drawn so far."""

    seats: tuple[str, ...]
    actions: tuple[Any, ...]
    drawn: tuple[str, ...]


#: The position of a game before its first action (see :func:`position_after`).
START = hashlib.sha256(b"tongiaki position").digest()


def position_after(position: bytes, action: Any) -> bytes:
    """The digest of a game's position after ``action``, from the one before it.

    A position is the game's accepted actions so far (its seats and stack are
    the game's own): two positions of one game are the same exactly when their
    actions are, whatever was taken back in between.
    """
    return hashlib.sha256(position + canonical(action).encode()).digest()


def position_of(actions: list[Any]) -> bytes:
    """The digest of the position after ``actions``."""
    position = START
    for action in actions:
        position = position_after(position, action)
    return position


class BotTurn(NamedTuple):
    """A decision a bot seat is to take now (see :meth:`Authority.pending_bot`)."""

    #: The sequence it is taken at (quick messages since change nothing).
    sequence: int
    player: str
    level: str
    #: What the seat may know.
    record: PublicRecord
    #: The digest of the position (:func:`position_after`).
    position: bytes
    #: The answer a bot of this seat gave in this position before (it was taken
    #: back since), if one is remembered: legal, as the position is the same.
    answered: Any = None


class Authority:
    """One game and everything that changes it."""

    def __init__(
        self,
        stored: Stored,
        store: Store,
        limits: Limits,
        hooks: Hooks,
        *,
        owner: bool = True,
        keep_after: int | None = None,
    ) -> None:
        """Rebuild the game from ``stored``; frames are kept for the entries after
        ``keep_after`` (default: the last ``limits.resume_window``)."""
        self._hooks = hooks
        self._codec = hooks.codec
        self.setup = stored.setup
        self.id = self.setup.id
        self.name = "games/" + self.id
        self.settings = dict(self.setup.settings)
        self.seats = Seats(self.setup.seats, self.settings.get("bots", {}))
        self.state = OPEN
        self.sequence = 0
        #: The sequence of the last entry that changed the game (not an aside:
        #: a quick message or a rematch proposal). Actions chosen at any
        #: sequence from here to ``sequence`` are current.
        self.decided = 0
        #: Quick messages in the log, and each seat's message bucket (tokens, when).
        self.messages = 0
        self._buckets: dict[str, tuple[float, float]] = {}
        #: The id of this finished game's rematch, once proposed.
        self.rematch: str | None = None
        #: Why the server stopped the game before its end (its ``stopped`` entry's
        #: reason and rounds), once it did: the game is finished, with no result.
        self.stopped: dict[str, Any] | None = None
        #: Turns begun since a tile was last drawn (the pending one included), as
        #: the log tells it: every node and every restart counts the same (a
        #: take-back leaves it as it was, a few turns over until the next draw).
        self.quiet_turns = 0
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
        #: When the pending person's turn clock runs out, if it was stored (epoch seconds).
        self.deadline: float | None = stored.summary.attention
        #: The attention in the store's summary (_UNKNOWN: another node may have written it).
        self._attention_written: object = stored.summary.attention if owner else _UNKNOWN
        self._store = store
        self._limits = limits
        self._frames: list[bytes] = []  # encoded entries, the last resume_window of them
        self._owners: list[str | None] = []  # the seat that submitted each of them, if any
        # Recent request ids -> the frame answered (a dict keeps them in order, oldest first).
        self._requests: dict[tuple[str, str], bytes] = {}
        # Recent joins' request digests -> seat, digest of what was asked, sealed token.
        self._joins: dict[str, tuple[str, str, str]] = {}
        #: The seat and request id of the StartGame that started the game, if it sent one.
        self._started: tuple[str, str] | None = None
        self._lock = asyncio.Lock()
        self.hub = Hub(limits.watch_buffer)
        self._drawn: list[str] = []  # tiles of every tile_placed event, in order
        self._token_change = Tokens()  # what the entry applied last did to seat tokens
        #: While a follower applies a run of entries: their frames, published together.
        self._run: list[tuple[int, bytes, str | None, str | None, Boards | None]] | None = None
        #: The game every ``limits.checkpoint_every`` entries, oldest first.
        self._checkpoints: list[Checkpoint] = []
        #: The last entry if it is an accepted action, with its events (for take-backs).
        self._last_action: tuple[Acted, list[dict[str, Any]]] | None = None
        #: When it was applied here (monotonic seconds).
        self._last_action_at = 0.0
        #: The decision a person may still take back: its seat, its sequence and how
        #: many actions taking it back undoes (it and the bots' answers since, none of
        #: which drew a tile). Gone once a tile is drawn or anything else happens.
        self._undoable: tuple[str, int, int] | None = None
        #: The digest of the game's position (its actions so far, see position_after).
        self._position = START
        #: The bots' latest answers by the position they answered: seat, level, action
        #: (the last ``limits.bot_answers`` of the log, taken-back ones included).
        self._answers: dict[bytes, tuple[str, str, Any]] = {}
        self.autoplay = hooks.self_play(self) if hooks.self_play is not None else None
        last = stored.entries[-1].sequence if stored.entries else 0
        keep = max(0, last - limits.resume_window) if keep_after is None else keep_after
        self._first_frame = keep + 1  # sequence of self._frames[0]
        for entry in stored.entries:
            pending = self._apply(log_entries.parse(entry.kind, entry.body), entry.frame)
            if entry.sequence > keep:
                pending.publish()
            else:  # history before the window: no frame to build
                self.sequence += 1
                self._keep_checkpoint()

    # ------------------------------------------------------------ reading

    def summary(self, sequence: int | None = None, now: float | None = None) -> Summary:
        """The game's summary as stored beside its log (at ``sequence``, default the last)."""
        return Summary(
            state=self.state,
            sequence=self.sequence if sequence is None else sequence,
            seats=self.seats.summary(),
            result=self.game.result if self.game is not None and self.game.over else None,
            attention=self._attention(time.time() if now is None else now),
            rematch=self.rematch,
            stopped=self.stopped,
        )

    def _attention(self, now: float) -> float | None:
        """When the server must act on this game by itself (see Summary.attention)."""
        game = self.game
        acting = must_act(game if self.state == ACTIVE else None, self.seats.bots, self.settings)
        if acting is Acting.NOBODY:
            return None
        if acting is not Acting.PERSON:
            return now
        timeout = turn_timeout(self.settings)
        return now + timeout if timeout > 0 else None

    def resource(self) -> Stored:
        """The game's set-up and summary (what the Game resource shows)."""
        return Stored(self.setup, self.summary())

    def seat_of(self, token_hash: str) -> str | None:
        """The colour whose token has this hash, if any."""
        return self.seats.holder(token_hash)

    def latest(self, viewer: str | None) -> tuple[Stored, dict[str, Any] | None]:
        """The game now, and the board as ``viewer`` (None: a spectator) sees it
        (a stopped game's board has no pending decision: nobody can act)."""
        if self.game is None:
            return self.resource(), None
        view = self.game.view(viewer)
        if self.stopped is not None:
            view["decision"] = None
        return self.resource(), view

    async def snapshot(self, viewer: str | None) -> tuple[Stored, dict[str, Any] | None]:
        """The game at its last durable entry (see :meth:`latest`)."""
        async with self._lock:
            return self.latest(viewer)

    def checkpoint(self, at: int) -> Checkpoint | None:
        """The last checkpoint at or before entry ``at`` (None: none, start from the set-up)."""
        found = None
        for checkpoint in self._checkpoints:
            if checkpoint.sequence > at:
                break
            found = checkpoint
        return found

    def _keep_checkpoint(self) -> None:
        every = self._limits.checkpoint_every
        if every <= 0 or self.sequence % every or self.game is None:
            return
        if self._checkpoints and self._checkpoints[-1].sequence >= self.sequence:
            return
        self._checkpoints.append(
            Checkpoint(
                self.sequence,
                self.state,
                self.decided,
                self.messages,
                self.rematch,
                copy.deepcopy(self.seats),
                self.game.copy(),
                tuple(self._drawn),
                self.stopped,
                self.quiet_turns,
            )
        )

    @classmethod
    def rebuilt(
        cls,
        setup: Setup,
        store: Store,
        limits: Limits,
        checkpoint: Checkpoint | None,
        entries: list[Entry],
        *,
        codec: Codec,
    ) -> Authority:
        """A copy of the game (that never writes, and acts in nothing by itself) from
        ``checkpoint`` (None: the set-up) and the entries right after it; it keeps no
        frames."""
        start = checkpoint.sequence if checkpoint is not None else 0
        last = start + len(entries)
        past = cls(
            Stored(setup, Summary(OPEN, 0)),
            store,
            limits,
            Hooks(codec),
            owner=False,
            keep_after=last,
        )
        if checkpoint is not None:
            past.sequence = checkpoint.sequence
            past.state = checkpoint.state
            past.decided = checkpoint.decided
            past.messages = checkpoint.messages
            past.rematch = checkpoint.rematch
            past.seats = copy.deepcopy(checkpoint.seats)
            past.game = checkpoint.game.copy() if checkpoint.game is not None else None
            past._drawn = list(checkpoint.drawn)
            past.stopped = checkpoint.stopped
            past.quiet_turns = checkpoint.quiet_turns
            if past.game is not None:
                past._position = position_of(past.game.actions)
        for entry in entries:
            past._apply(log_entries.parse(entry.kind, entry.body))
            past.sequence += 1
        return past

    async def _boards_after(self, after: int, viewer: str | None) -> dict[int, bytes]:
        """The ``boards`` fields of the entries after ``after`` (a watch resumes
        there), by sequence: rebuilt from the checkpoint before ``after``."""
        checkpoint = self.checkpoint(after)
        start = checkpoint.sequence if checkpoint is not None else 0
        entries: list[Entry] = []
        while start + len(entries) < self.sequence:
            run = await self._store.entries(
                self.id, start + len(entries), self.sequence - start - len(entries)
            )
            if not run:
                break
            entries.extend(run)
        past = Authority.rebuilt(
            self.setup,
            self._store,
            self._limits,
            checkpoint,
            entries[: after - start],
            codec=self._codec,
        )
        made = {}
        for entry in entries[after - start :]:
            past._apply(log_entries.parse(entry.kind, entry.body))
            past.sequence += 1
            made[past.sequence] = self._codec.board_field(*past.latest(viewer))
        return made

    def window(self) -> list[Frame]:
        """The frames memory holds, with the seat that submitted each (if any)."""
        return list(zip(self._frames, self._owners, strict=True))

    async def watch(
        self,
        viewer: str | None,
        after: int | None,
        exclude_own: bool = False,
        hold_until_turn: bool = False,
        *,
        older: Callable[[int, int], Awaitable[list[Frame]]] | None = None,
        gather: float = 0.0,
        paced: bool = False,
        boards: bool = False,
    ) -> tuple[bytes, Watcher | None]:
        """What a new watch sends first, and its watcher (None if nothing more will come).

        Resuming ``after`` a sequence replays the entries since (from memory, or
        through ``older(after, until)`` from the store); otherwise, or if that
        is too far back, the stream starts with a snapshot. With
        ``exclude_own``, the entries of actions ``viewer`` submitted are left
        out; with ``hold_until_turn``, new entries wait until one gives
        ``viewer`` the decision (or half the watch buffer is full, or the watch
        ends); with ``gather`` (seconds), a ready entry waits that long for more
        (``paced``: at most one message per ``gather``, an entry going at once
        when the last message is older); with ``boards``, each new entry comes
        with the board after it.
        """
        skip = viewer if exclude_own else None
        async with self._lock:
            if after is not None and not 0 <= after <= self.sequence:
                raise ServiceError(
                    ServerReason.SEQUENCE_OUT_OF_RANGE,
                    f"after_sequence must be 0..{self.sequence}",
                    sequence=self.sequence,
                )
            replay: list[Frame] | None = None
            if after is not None and after + 1 >= self._first_frame:
                start = after + 1 - self._first_frame
                replay = self.window()[start:]
            elif (
                after is not None
                and older is not None
                and self.sequence - after <= self._limits.replay_from_store
            ):
                replay = [*await older(after, self._first_frame - 1), *self.window()]
            if replay is not None and boards and after is not None:
                made = await self._boards_after(after, viewer)
                replay = [
                    (frame + made.get(sequence, b""), owner)
                    for sequence, (frame, owner) in enumerate(replay, after + 1)
                ]
            if replay is not None:
                first = b"".join(frame for frame, owner in replay if skip is None or owner != skip)
                first = first or self._codec.caught_up(self.sequence)
            else:
                first = self._codec.watch_snapshot(*self.latest(viewer))
            if self.state == FINISHED:
                return first, None
            hold_for = viewer if hold_until_turn else None
            watcher = self.hub.subscribe(
                self.sequence, skip, hold_for, gather, boards=boards, viewer=viewer, paced=paced
            )
            return first, watcher

    def record(self) -> dict[str, Any]:
        """The record of the finished game (stack included)."""
        if self.state != FINISHED or self.game is None:
            raise ServiceError(
                ServerReason.GAME_NOT_FINISHED, "the record is public once the game is over"
            )
        return self.game.record()

    def undoable_since(self, sequence: int) -> float | None:
        """When the entry at ``sequence`` was applied here (monotonic seconds), if it is
        the last entry that changed the game (quick messages after it do not count)
        and a person's decision its seat may still take back (R: TakeBack)."""
        last = self._last_action
        if last is None or sequence != self.decided or self.state != ACTIVE:
            return None
        acted, events = last
        if not acted.request or any(e["kind"] == "tile_placed" for e in events):
            return None
        return self._last_action_at

    async def pending_bot(self) -> BotTurn | None:
        """The decision a bot seat is to take now: sequence, seat, level, what it may
        know, the position, and the answer given in that position before, if any.

        A position answered before was taken back since (the log keeps the bots'
        answers, taken back or not): the bot answers it as it did, so that taking
        a decision back and making it again never changes what the bots do.
        """
        async with self._lock:
            engine = self.game
            if engine is None or self.state != ACTIVE or engine.decision is None:
                return None
            player = engine.decision.player
            level = self.seats.bots.get(player)
            if level is None or not self.owner or self.broken:
                return None
            record = PublicRecord(
                tuple(self.seats.colours), tuple(engine.actions), tuple(self._drawn)
            )
            answered = None
            known = self._answers.get(self._position)
            # (Always legal, the position being the same; checked all the same.)
            if known is not None and known[:2] == (player, level) and known[2] in engine.options():
                answered = known[2]
            # The state's sequence, not the log's: quick messages change nothing.
            return BotTurn(self.decided, player, level, record, self._position, answered)

    # ------------------------------------------------------------ changing

    async def _exclusive(self, change: Callable[[], Awaitable[T]]) -> T:
        async def locked() -> T:
            async with self._lock:
                if self.broken or not self.owner:
                    raise ServiceError(
                        ServerReason.GAME_MOVED, "the game moved; retry", name=self.name
                    )
                webhooks = self._hooks.notices if self.settings.get("webhook_url") else None
                turn = webhooks.turn(self.game) if webhooks is not None else None
                try:
                    return await change()
                finally:
                    self.deadline = None  # a stored deadline holds only until the next change
                    self._after_change()
                    if webhooks is not None:
                        webhooks.changed(
                            turn,
                            name=self.name,
                            settings=self.settings,
                            sequence=self.sequence,
                            game=self.game,
                            bots=self.seats.bots,
                        )

        return await asyncio.shield(asyncio.ensure_future(locked()))

    async def _commit(self, entry: LogEntry, pending: Pending | None = None) -> bytes:
        """Apply ``entry`` in memory (unless already), write it durably, publish it."""
        pending = pending or self._apply(entry)
        kind, body = log_entries.stored(entry)
        frame = pending.frame() if self._store.keeps_frames else None
        stored = Entry(self.sequence + 1, kind, body, frame)
        now = time.time()
        if isinstance(entry, Said):
            # Nothing the summary holds changed; a turn clock runs on as it was.
            known = self._attention_written
            attention = self._attention(now) if known is _UNKNOWN else known
            assert attention is None or isinstance(attention, float)
            summary = Summary(self.state, stored.sequence, attention=attention, changed=False)
        # An action changes no seat, and the game's state only when it ends it.
        elif not isinstance(entry, Acted) or self.state == FINISHED:
            summary = self.summary(stored.sequence, now)
        else:
            attention = self._attention(now)
            summary = Summary(self.state, stored.sequence, attention=attention, changed=False)
        summary.attention_changed = summary.attention != self._attention_written
        self.writing = stored.sequence
        try:
            await self._store.append(self.id, stored, summary, self._token_change, self.epoch)
        except BaseException:
            self.break_off()
            raise
        finally:
            self.writing = 0
        self._attention_written = summary.attention
        return pending.publish()

    async def join(
        self, colour: str | None, display_name: str, request_id: str = "", asked: str = ""
    ) -> tuple[str, str]:
        """Take a seat (``colour``, or the first open one); returns it and its secret token.

        A repeated ``request_id`` returns the seat and token the first request got
        (among the game's last ``limits.request_ids`` joins with one, as stored in
        the log: on any node, after a restart); ``asked`` is the digest of what
        was asked for, and a repeat that asks for something else is refused.
        """
        digest = request_digest("join", self.id, request_id) if request_id else ""

        async def change() -> tuple[str, str]:
            done = self._joins.get(digest) if digest else None
            if done is not None:
                seat, first, sealed = done
                if first != asked:
                    raise reused()
                return seat, unseal(sealed, "join", self.id, request_id)
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
            sealed = seal(token, "join", self.id, request_id) if digest else ""
            joined = Joined(seat, hash_token(token), display_name, digest, asked, sealed)
            await self._commit(joined)
            if self.settings.get("auto_start") and self.state == OPEN and not self.seats.open():
                await self._commit(Started())
            return seat, token

        return await self._exclusive(change)

    async def leave(self, colour: str) -> None:
        """Give up ``colour``'s seat: its token stops working, the seat is open again."""

        async def change() -> None:
            await self._commit(Left(colour))
            level = self.settings.get("leave_bot")
            if level and self.state == ACTIVE:
                await self._commit(TakenOver(colour, level, "left"))

        await self._exclusive(change)

    async def start(self, colour: str = "", request_id: str = "") -> None:
        """Start the game once every seat is taken (``colour``: the seat asking).

        A repeat of the request that started it (the same seat and request id)
        succeeds again instead of finding the game started.
        """

        async def change() -> None:
            if self.state != OPEN:
                if request_id and self._started == (colour, request_id):
                    return
                raise ServiceError(ServerReason.GAME_ALREADY_STARTED, "the game has started")
            missing = self.seats.open()
            if missing:
                raise ServiceError(ServerReason.SEATS_OPEN, "seats are open", seats=missing)
            await self._commit(Started(colour, request_id) if request_id else Started())

        await self._exclusive(change)

    async def start_bots_only(self) -> None:
        """Start a new game whose seats are all bots (nobody else could start it)."""

        async def change() -> None:
            if self.state == OPEN and all(c in self.seats.bots for c in self.seats.colours):
                await self._commit(Started())

        await self._exclusive(change)

    async def take_over(self, sequence: int, player: str, reason: str) -> None:
        """Let a bot take ``player``'s seat if its decision at ``sequence`` is still pending."""

        async def change() -> None:
            if self.decided != sequence or self.state != ACTIVE:
                return
            decision = self.game.decision if self.game is not None else None
            if decision is None or decision.player != player or player in self.seats.bots:
                return
            level = self.settings.get("timeout_bot") or "random"
            await self._commit(TakenOver(player, level, reason))
            log.info("seat taken over", extra={"game": self.id, "colour": player, "why": reason})

        await self._exclusive(change)

    async def submit(self, colour: str, sequence: int, request_id: str, action: Any) -> bytes:
        """Apply ``colour``'s action chosen at ``sequence``; a repeated request id is a no-op.

        Bots send an empty ``request_id`` (clients must send one): never remembered.

        Returns the encoded SubmitActionResponse.
        """

        async def change() -> bytes:
            done = self._requests.get((colour, request_id)) if request_id else None
            if done is not None:
                return self._codec.reply_of(done)
            if self.game is None:
                raise ServiceError(ServerReason.GAME_NOT_STARTED, "the game has not started")
            self._refuse_if_stopped()
            if not self.decided <= sequence <= self.sequence:
                raise ServiceError(
                    ServerReason.STALE_SEQUENCE,
                    f"the game is at sequence {self.sequence}, not {sequence}",
                    sequence=self.sequence,
                )
            try:
                events = self.game.apply(action, colour)
            except ActionError as error:
                raise ServiceError.from_engine(error) from None
            # The game keeps the shared object equal to its action (see entries.shared).
            self.game.actions[-1] = log_entries.shared(self.game.actions[-1])
            entry = Acted(colour, self.game.actions[-1], request_id)
            self._token_change = Tokens()
            self._last_action = (entry, events)
            self._last_action_at = time.monotonic()
            frame = await self._commit(entry, self._acted(entry, events, None))
            return self._codec.reply_of(frame)

        return await self._exclusive(change)

    async def take_back(self, colour: str, sequence: int, request_id: str) -> bytes:
        """Undo ``colour``'s own decision at ``sequence``, the last entry of the log.

        Refused once a tile was drawn by it or since, or if another person
        decided after it; the bots' answers since it (they drew no tile, so they
        learnt nothing hidden) are taken back with it. A repeated request id is a
        no-op. Returns the encoded TakeBackResponse (whose entry field is
        SubmitActionResponse's).
        """

        async def change() -> bytes:
            key = (colour, "take-back:" + request_id)
            done = self._requests.get(key)
            if done is not None:
                return self._codec.reply_of(done)
            if self.game is None:
                raise ServiceError(ServerReason.GAME_NOT_STARTED, "the game has not started")
            self._refuse_if_stopped()
            if self.state == FINISHED:
                raise ServiceError(Reason.GAME_OVER, "the game is over")
            last = self._last_action
            undoable = self._undoable
            if undoable is not None and undoable[:2] == (colour, sequence):
                frame = await self._commit(TakenBack(colour, sequence, request_id))
                return self._codec.reply_of(frame)
            if sequence != self.decided or last is None:
                raise ServiceError(
                    ServerReason.TAKE_BACK_NOT_LAST,
                    f"only the last entry ({self.sequence}) can be taken back, if it is a decision",
                    sequence=self.sequence,
                )
            acted, events = last
            if acted.player != colour or not acted.request:
                raise ServiceError(
                    ServerReason.TAKE_BACK_NOT_YOURS,
                    "the last decision is not this seat's own",
                    player=acted.player,
                )
            if any(e["kind"] == "tile_placed" for e in events):
                raise ServiceError(
                    ServerReason.TAKE_BACK_AFTER_DRAW,
                    "a tile was drawn by that decision; it stands",
                )
            frame = await self._commit(TakenBack(colour, sequence, request_id))
            return self._codec.reply_of(frame)

        return await self._exclusive(change)

    def _refuse_if_stopped(self) -> None:
        """Refuse an action or take-back on a game the server stopped, with the stop's reason."""
        stopped = self.stopped
        if stopped is None:
            return
        if stopped["reason"] == ServerReason.GAME_STALLED:
            message = f"the game was stopped: no tile was drawn for {stopped['rounds']} rounds"
        else:
            message = "the game was stopped"
        raise ServiceError(stopped["reason"], message, rounds=stopped["rounds"])

    async def stop_stalled(self, sequence: int, rounds: int) -> bool:
        """Stop the game (``GAME_STALLED``): no tile was drawn for ``rounds`` rounds.

        Only if it still runs at ``sequence`` (its state then; nothing changed it
        since): the ``stopped`` entry is written once, through the same path as
        every change, and the game is finished from there on. Returns whether
        this call stopped it.
        """

        async def change() -> bool:
            if self.state != ACTIVE or self.decided != sequence or self.stopped is not None:
                return False
            await self._commit(Stopped(ServerReason.GAME_STALLED.value, rounds))
            return True

        return await self._exclusive(change)

    async def say(self, colour: str, phrase: str, request_id: str) -> bytes:
        """Send ``colour``'s quick message ``phrase``; a repeated request id is a no-op.

        Refused past the game's total (``MESSAGE_LIMIT``) or the seat's rate
        (``RATE_LIMITED``). Returns the encoded SendMessageResponse.
        """

        async def change() -> bytes:
            key = (colour, "say:" + request_id)
            done = self._requests.get(key)
            if done is not None:
                return self._codec.reply_of(done)
            if phrase not in PHRASES:
                raise ServiceError(ServerReason.UNKNOWN_PHRASE, "no such phrase", phrase=phrase)
            most = self._limits.messages_per_game
            if self.messages >= most:
                raise ServiceError(
                    ServerReason.MESSAGE_LIMIT,
                    f"a game holds at most {most} quick messages",
                    limit=most,
                )
            now = time.monotonic()
            burst, every = self._limits.message_burst, self._limits.message_every
            tokens, then = self._buckets.get(colour, (float(burst), now))
            tokens = min(float(burst), tokens + (now - then) / every)
            if tokens < 1:
                raise ServiceError(
                    ServerReason.RATE_LIMITED,
                    "too many quick messages from this seat; wait a moment",
                    retry_after_seconds=f"{(1 - tokens) * every:.1f}",
                )
            self._buckets[colour] = (tokens - 1, now)
            frame = await self._commit(Said(colour, phrase, request_id))
            return self._codec.reply_of(frame)

        return await self._exclusive(change)

    async def propose_rematch(
        self, colour: str, create: Callable[[], Awaitable[str]]
    ) -> tuple[str, bool]:
        """This finished game's rematch: the one proposed before, or a new one made
        by ``create`` (which returns its id) and recorded. Returns it and whether
        this call created it."""

        async def change() -> tuple[str, bool]:
            if self.rematch is not None:
                return self.rematch, False
            if self.state != FINISHED:
                raise ServiceError(
                    ServerReason.GAME_NOT_FINISHED, "a rematch follows a finished game"
                )
            rematch = await create()
            await self._commit(Rematched(colour, rematch))
            return rematch, True

        return await self._exclusive(change)

    # ------------------------------------------------------------ the log

    def _apply(self, entry: LogEntry, frame: bytes | None = None) -> Pending:
        """Apply an entry in memory; returns it to publish once durable (``frame``:
        its frame as stored, if the store keeps them)."""
        self._token_change = Tokens()
        if isinstance(entry, ASIDES):
            # The game is as it was: an action or take-back chosen before still holds.
            if isinstance(entry, Said):
                self.messages += 1
            else:
                self.rematch = entry.rematch

            def published(f: bytes) -> None:
                self._publish(f)
                # A message's request id, remembered when the log is read again too.
                if isinstance(entry, Said) and entry.request:
                    self._remember((entry.player, "say:" + entry.request), f)

            return Pending(lambda: self._codec.frame(self.sequence + 1, entry), published, frame)
        self.decided = self.sequence + 1
        self._last_action = None
        if isinstance(entry, Acted):
            assert self.game is not None
            events = self.game.apply_unchecked(entry.action)
            self._last_action = (entry, events)
            self._last_action_at = time.monotonic()
            return self._acted(entry, events, frame)
        undoable, self._undoable = self._undoable, None
        if isinstance(entry, TakenBack):
            return self._taken_back(entry, undoable, frame)
        if isinstance(entry, Joined):
            self._token_change = self.seats.join(entry.colour, entry.token, entry.name)
            if entry.request:
                self._joins[entry.request] = (entry.colour, entry.asked, entry.sealed)
                if len(self._joins) > self._limits.request_ids:
                    del self._joins[next(iter(self._joins))]
        elif isinstance(entry, Left):
            self._token_change = self.seats.leave(entry.colour)
        elif isinstance(entry, TakenOver):
            self._token_change = self.seats.take_over(entry.colour, entry.level, entry.reason)
        elif isinstance(entry, Stopped):
            self.state = FINISHED
            self.stopped = {"reason": entry.reason, "rounds": entry.rounds}

            def stopped(frame: bytes) -> None:
                self._publish(frame)
                if self._run is None:
                    self.hub.close(End.FINISHED)

            return Pending(lambda: self._codec.frame(self.sequence + 1, entry), stopped, frame)
        elif isinstance(entry, Started):
            self._started = (entry.player, entry.request) if entry.request else None
            self.game = Game.new(self.seats.colours, list(self.setup.stack))
            self._position = START
            self.state = ACTIVE
            game = self.game
            return Pending(
                lambda: self._codec.frame(self.sequence + 1, entry, view=game.view(None)),
                self._publish,
                frame,
            )
        return Pending(lambda: self._codec.frame(self.sequence + 1, entry), self._publish, frame)

    def _taken_back(
        self, entry: TakenBack, undoable: tuple[str, int, int] | None, frame: bytes | None
    ) -> Pending:
        """Undo the decision taken back and the bots' answers since it in memory
        (replay the others); returns it to publish."""
        assert self.game is not None
        count = undoable[2] if undoable is not None and undoable[1] == entry.taken_back else 1
        record = self.game.record()
        record["actions"] = record["actions"][:-count]
        self.game = Game.from_record(record, checked=False)
        self._position = position_of(self.game.actions)
        view = self.game.view(None)
        owner = entry.player if entry.request else None

        def after(f: bytes) -> None:
            self._publish(f, owner, entry.player)
            # Remembered as it is published, when made and when the log is read
            # again (a restart, another node): a retry still gets this answer.
            if entry.request:
                self._remember((entry.player, "take-back:" + entry.request), f)

        return Pending(lambda: self._codec.frame(self.sequence + 1, entry, view=view), after, frame)

    def _acted(self, entry: Acted, events: list[dict[str, Any]], frame: bytes | None) -> Pending:
        """Account for an applied action; returns its entry to publish.

        The next decision's options are listed only to encode the frame: a
        frame the store gave back needs none of them.
        """
        game = self.game
        assert game is not None
        self.decided = self.sequence + 1
        before, self._position = self._position, position_after(self._position, entry.action)
        level = self.seats.bots.get(entry.player)
        if level is not None and not entry.request:  # a bot's answer (bots send no request id)
            self._remember_answer(before, (entry.player, level, entry.action))
        self._drawn.extend(e["tile"] for e in events if e["kind"] == "tile_placed")
        for event in events:
            if event["kind"] == "tile_placed":
                self.quiet_turns = 0
            elif event["kind"] == "turn_started":
                self.quiet_turns += 1
        undoable, self._undoable = self._undoable, None
        if not any(e["kind"] == "tile_placed" for e in events):
            if entry.request:  # a person's decision
                self._undoable = (entry.player, self.decided, 1)
            elif undoable is not None:  # a bot's answer since
                self._undoable = (undoable[0], undoable[1], undoable[2] + 1)
        if game.over:
            self.state = FINISHED
        decider = None if game.over else game.active_player
        sequence = self.sequence + 1

        def encode() -> bytes:
            decision = game.decision
            decision_dict = decision.to_dict() if decision is not None else None
            return self._codec.frame(sequence, entry, events=events, decision=decision_dict)

        def after(frame: bytes) -> None:
            # A client's action is its seat's own (a bot's, sent without request id, is not).
            owner = entry.player if entry.request else None
            self._publish(frame, owner, decider)
            if entry.request:  # bots send none: nobody retries their requests
                self._remember((entry.player, entry.request), frame)
            if self.state == FINISHED and self._run is None:
                self.hub.close(End.FINISHED)

        return Pending(encode, after, frame)

    def _remember_answer(self, position: bytes, answer: tuple[str, str, Any]) -> None:
        """Remember a bot's answer in ``position``; the oldest is forgotten past the limit."""
        answers = self._answers
        answers.pop(position, None)
        answers[position] = answer
        if len(answers) > self._limits.bot_answers:
            del answers[next(iter(answers))]

    def _remember(self, key: tuple[str, str], frame: bytes) -> None:
        """Remember a request's answer for its retries; the oldest is forgotten past the limit."""
        requests = self._requests
        requests[key] = frame
        if len(requests) > self._limits.request_ids:
            del requests[next(iter(requests))]

    def _publish(self, frame: bytes, owner: str | None = None, decider: str | None = None) -> bytes:
        """Publish the next entry's ``frame`` to every watcher and the resume window.

        ``owner`` is the seat that submitted it (its watches may leave it out),
        ``decider`` the seat that decides next (watches held until their turn
        wait for it).
        """
        self.sequence += 1
        self._keep_checkpoint()
        # The boards after the entry, encoded once per kind of viewer that asked.
        viewers = self.hub.board_viewers()
        boards = {v: self._codec.board_field(*self.latest(v)) for v in viewers} if viewers else None
        if self.sequence >= self._first_frame:
            self._frames.append(frame)
            self._owners.append(owner)
            if len(self._frames) > self._limits.resume_window:
                drop = len(self._frames) - self._limits.resume_window
                del self._frames[:drop]
                del self._owners[:drop]
                self._first_frame += drop
        if self._run is not None:
            self._run.append((self.sequence, frame, owner, decider, boards))
        else:
            self.hub.publish(self.sequence, frame, owner, decider, boards)
        return frame

    async def follow(self, entries: list[Entry]) -> None:
        """Apply entries another node wrote (a follower), in order, and publish them
        to the watchers as one run."""
        async with self._lock:
            self._run = []
            try:
                for entry in entries:
                    if entry.sequence == self.sequence + 1:
                        parsed = log_entries.parse(entry.kind, entry.body)
                        self._apply(parsed, entry.frame).publish()
                self.hub.publish_many(self._run)
                if self.state == FINISHED:
                    self.hub.close(End.FINISHED)
            finally:
                self._run = None

    # ------------------------------------------------------------ bots, clock, life cycle

    def _after_change(self) -> None:
        if self.autoplay is not None and self.owner and not self.broken:
            self.autoplay.after_change()

    @property
    def busy(self) -> bool:
        """Whether this game runs by itself here (a bot thinking, a clock running)."""
        return self.autoplay is not None and self.autoplay.busy

    @property
    def bot_moves(self) -> int:
        """Bot decisions accepted here."""
        return self.autoplay.bot_moves if self.autoplay is not None else 0

    @property
    def bot_refusals(self) -> int:
        """Bot decisions refused here (a refusal would be a bug)."""
        return self.autoplay.bot_refusals if self.autoplay is not None else 0

    @property
    def bot_repeats(self) -> int:
        """Bot decisions accepted here that answered a position as before (no search)."""
        return self.autoplay.bot_repeats if self.autoplay is not None else 0

    def break_off(self, why: End = End.MOVED) -> None:
        """Stop serving this copy of the game: a write failed or another node owns it."""
        self.broken = True
        self.stop()
        self.hub.close(why)

    def stop(self) -> None:
        """Stop the bots and the clock (the server is shutting down, or the game leaves)."""
        if self.autoplay is not None:
            self.autoplay.stop()

    def resume(self) -> None:
        """Let bots and the clock run (the event loop is running)."""
        self._after_change()

    def take_ownership(self, epoch: int) -> None:
        """This copy becomes the owner, writing with ``epoch`` (it is up to date)."""
        self.owner = True
        self.epoch = epoch
        self._attention_written = _UNKNOWN
        self._after_change()
