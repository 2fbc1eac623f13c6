"""What a game does by itself on its owner: bots play their seats, turn clocks run out.

Both are clients of the game's authority, like anybody else: a bot submits
its decision through :meth:`Authority.submit` (checked, logged, published), and
a clock that runs out asks :meth:`Authority.take_over` to hand the seat to a
bot. The authority calls :meth:`Autoplay.after_change` after every change.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from server.game.errors import ServerReason, ServiceError
from server.game.turns import Acting, must_act, turn_timeout
from server.play.botseats import BotRunner, Job, seed_of
from server.storage.base import ACTIVE

if TYPE_CHECKING:
    from server.game.authority import Authority

log = logging.getLogger(__name__)

#: Seconds before a bot whose decision failed (its worker died, say) tries again,
#: doubling at each failure in a row up to ``RETRY_MOST``: a game whose bot is to
#: move is never left standing, and a failure that repeats is not hammered.
RETRY_FIRST = 1.0
RETRY_MOST = 60.0


class Autoplay:
    """The bots and the turn clock of one game."""

    def __init__(self, game: Authority, runner: BotRunner) -> None:
        self._game = game
        self._runner = runner
        self._bot_task: asyncio.Future[None] | None = None
        #: The bots' next try after a failed decision, and the wait before the one after.
        self._retry: asyncio.TimerHandle | None = None
        self._retry_after = RETRY_FIRST
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = -1  # the sequence the turn clock runs for
        self._tasks: set[asyncio.Future[Any]] = set()
        self._stopped = False
        #: Bot decisions accepted, and refused (a refusal would be a bug).
        self.bot_moves = 0
        self.bot_refusals = 0
        #: Bot decisions accepted that answered a position again as before (no search).
        self.bot_repeats = 0
        #: Set once this game was stopped here because it stopped progressing.
        self.stalled = False

    @property
    def busy(self) -> bool:
        """Whether a bot is thinking (or will try again), or a clock is running."""
        return (
            (self._bot_task is not None and not self._bot_task.done())
            or self._timer is not None
            or self._retry is not None
        )

    def after_change(self) -> None:
        """Let a bot move, or run the turn clock of a person's seat.

        Called after every change, when the game is taken up here, and now and
        then by the registry: whatever ended the bots' task or the clock, the
        game is driven again (a bot that failed waits for its retry).
        """
        game = self._game
        if self._stopped:
            return
        engine = game.game if game.state == ACTIVE else None
        acting = must_act(engine, game.seats.bots, game.settings)
        if engine is None or acting is Acting.NOBODY:
            self._stop_clock()
            return
        player = engine.active_player
        if acting is Acting.BOT:
            self._stop_clock()
            if self._retry is None and (self._bot_task is None or self._bot_task.done()):
                self._bot_task = asyncio.ensure_future(self._play_bots())
            return
        if acting is Acting.TOO_LONG:
            self._stop_clock()
            self._spawn(game.take_over(game.decided, player, "turn_too_long"))
            return
        # The clock runs for a decision: a quick message (which leaves the
        # decision as it was) neither restarts nor stops it.
        timeout = turn_timeout(game.settings)
        if timeout > 0 and self._timer_at != game.decided:
            self._stop_clock()
            self._timer_at = game.decided
            deadline = game.deadline or time.time() + timeout
            self._timer = asyncio.get_running_loop().call_later(
                max(0.0, deadline - time.time()), self._time_out, game.decided, player
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
        self._spawn(self._game.take_over(sequence, player, "timed_out"))

    def _failed(self) -> None:
        """A bot's decision failed: the bots try again a while later."""
        if self._stopped:
            return
        delay, self._retry_after = self._retry_after, min(RETRY_MOST, self._retry_after * 2)
        self._retry = asyncio.get_running_loop().call_later(delay, self._try_again)

    def _try_again(self) -> None:
        self._retry = None
        self.after_change()

    def _spawn(self, change: Any) -> None:
        task = asyncio.ensure_future(change)
        self._tasks.add(task)
        task.add_done_callback(_consume)
        task.add_done_callback(self._tasks.discard)

    def _stalls(self) -> bool:
        """Whether the game is a game of bots only that drew no tile for too long.

        The game counts the turns begun since its last draw (from its log, so a
        restart or another node counts on where this one stopped).
        """
        game = self._game
        limit = self._runner.config.stall_rounds
        bots_only = all(c in game.seats.bots for c in game.seats.colours)
        return bool(limit) and bots_only and game.quiet_turns > limit * len(game.seats.colours)

    async def _stop_stalled(self, sequence: int) -> None:
        """Stop the stalled game: its ``stopped`` entry finishes it, logged here once."""
        game = self._game
        limit = self._runner.config.stall_rounds
        try:
            stopped = await game.stop_stalled(sequence, limit)
        except Exception:
            # (The write failed: the game is rebuilt from the store, and stopped again there.)
            log.exception("stopping a stalled game failed", extra={"game": game.id})
            return
        if not stopped:
            return
        self.stalled = True
        log.warning(
            "game stalled: it is stopped",
            extra={
                "game": game.id,
                "reason": ServerReason.GAME_STALLED.value,
                "rounds": limit,
                "sequence": sequence,
            },
        )

    async def _play_bots(self) -> None:
        """Play every pending decision of a bot seat, through the same path as anyone's."""
        game = self._game
        # People follow the game: a bot's move comes no sooner than `pace` after the last.
        people = any(c not in game.settings.get("bots", {}) for c in game.seats.colours)
        pace = self._runner.config.pace if people else 0.0
        undo_window = self._runner.config.undo_window
        while not self._stopped:
            pending = await game.pending_bot()
            if pending is None:
                return
            sequence, player, level, record, position, answered = pending
            if self._stalls():
                await self._stop_stalled(sequence)
                return
            job = Job(
                level=level,
                budget=self._runner.config.budget(level, pace),
                deadline=self._runner.config.deadline(pace),
                seats=record.seats,
                actions=record.actions,
                drawn=record.drawn,
                viewer=player,
                # The same position, the same seed: in a game after a take-back, and in
                # a tutorial (whose bot plays the same game against the same moves).
                seed=seed_of(game.settings.get("tutorial") or game.id, position),
            )
            try:
                began = time.monotonic()
                # A position answered before (and taken back since) gets the same answer.
                action = answered if answered is not None else await self._runner.think(job)
                wait = pace - (time.monotonic() - began)
                # A person's decision the bot answers may still be taken back: the
                # bot holds its answer for the undo window (a take-back meanwhile
                # makes the answer stale, and the bot thinks again when its turn is back).
                since = game.undoable_since(sequence)
                if since is not None:
                    wait = max(wait, since + undo_window - time.monotonic())
                if wait > 0:
                    await asyncio.sleep(wait)
                await game.submit(player, sequence, "", action)
            except ServiceError as error:
                if error.reason == ServerReason.STALE_SEQUENCE:
                    continue
                if error.reason == ServerReason.GAME_MOVED:
                    return
                self.bot_refusals += 1
                log.error(
                    "bot action refused",
                    extra={"game": game.id, "colour": player, "reason": error.reason},
                )
                self._failed()
                return
            except Exception:
                # (A worker pool that broke twice is a failure: the bot tries again later.)
                if game.broken or self._runner.closed:  # the game moved; the server stops
                    return
                self.bot_refusals += 1
                log.exception("bot failed", extra={"game": game.id, "colour": player})
                self._failed()
                return
            self._retry_after = RETRY_FIRST
            self.bot_moves += 1
            if answered is not None:
                self.bot_repeats += 1
            self._runner.moved()

    def stop(self) -> None:
        """Stop the bots and the clock for good."""
        self._stopped = True
        self._stop_clock()
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._bot_task is not None:
            self._bot_task.cancel()
        for task in list(self._tasks):
            task.cancel()


def _consume(task: asyncio.Future[Any]) -> None:
    """Retrieve a background change's error (it was logged where it mattered)."""
    if not task.cancelled():
        task.exception()
