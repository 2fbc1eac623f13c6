"""Bots that play seats on the server: levels, settings and where they think.

A bot sees what its seat sees: the seats, the accepted actions and the tiles
drawn so far (those of every ``tile_placed`` event, in order), never the stack
order. Its answer depends on the position alone: its seed comes from the game
and the actions so far (:func:`seed_of`), and a position it answered before
(taken back since) gets the same answer again, without a search (see
``Authority.pending_bot``), even where a search for a CPU budget would have
found another. Bots think in worker processes by default: a search holds the
interpreter for as long as it runs, and in the server's own process it would
slow every other game. At most ``workers`` decisions are searched at once; the
others wait their turn in a first-come queue (one place per game at most, as a
game has one bot decision pending at a time).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import multiprocessing
import os
import time
from dataclasses import dataclass
from typing import Any, Protocol

from bots import PublicRecord, make_bot
from engine.playout import SplitMix64
from server.play import lifeline


@dataclass(frozen=True)
class BotConfig:
    """How server-side bots think."""

    #: CPU seconds per decision of a strong bot.
    strong_budget: float = 0.1
    #: CPU seconds per decision of an expert bot, at most (see :meth:`budget`).
    expert_budget: float = 1.0
    #: Decisions searched at once (worker processes, or threads).
    workers: int = 2
    #: Think in separate (spawned) processes; False: in threads of the server's
    #: own process, which slows other games while a bot searches.
    processes: bool = True
    #: Seconds a bot waits (thinking included) before it acts in a game with a
    #: person's seat, so that people can follow; games of bots only never wait.
    pace: float = 0.0
    #: Seconds a bot holds its answer after a person's decision that may still be
    #: taken back (no tile drawn), so that the person can undo it (0: no hold).
    #: Bounded: once it has passed the bot answers, so a game never stalls.
    undo_window: float = 0.0
    #: Rounds a game of bots only may go without drawing a tile; then the game
    #: is stopped (a ``game_stopped`` entry with reason GAME_STALLED finishes it
    #: with no results; logged too). The bots themselves draw at least
    #: every ``bots.players.PATIENCE`` rounds, so this only catches a defect.
    #: Games with a person's seat are never stopped: their bots draw too, and
    #: people play at their own pace under the turn clock. 0: no limit.
    stall_rounds: int = 30

    def deadline(self, pace: float) -> float:
        """When a bot that begins thinking now must answer (``time.time()``; 0: never).

        With a person at the table (``pace`` > 0), by the end of the pace, less
        :data:`ANSWER_TIME` to hand the answer over: on a busy machine a bot
        worker (at a low priority) may get less processor than its budget in
        that time, and then answers with what it has found.
        """
        return time.time() + pace - ANSWER_TIME if pace > 0 else 0.0

    def budget(self, level: str, pace: float) -> float:
        """CPU seconds a bot of ``level`` may think for one decision.

        With a person at the table (``pace`` > 0) a bot never thinks longer
        than the pace it waits anyway: its thinking is hidden in the pace, and
        a person never waits for it beyond that (an expert at the default pace
        of 0.8 s thinks 0.8 s, not 1 s). Games of bots only think the full budget.
        """
        budget = self.expert_budget if level == "expert" else self.strong_budget
        return min(budget, pace) if pace > 0 else budget


#: Seconds kept, out of the pace, to pass a bot's answer back and submit it.
ANSWER_TIME = 0.15


def seed_of(game: str, position: bytes) -> int:
    """The bot's random seed in ``position`` of ``game`` (reproducible).

    ``position`` is the digest of the game's actions so far
    (``server.game.authority.position_after``), not the log's sequence, which
    grows with every entry: a decision taken back and made again brings the
    bots the positions, and so the seeds, they had before.
    """
    digest = hashlib.sha256(game.encode() + b":" + position).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class Job:
    """One decision for a bot: what its seat knows, and its level and seed."""

    level: str
    budget: float
    seats: tuple[str, ...]
    actions: tuple[Any, ...]
    drawn: tuple[str, ...]
    viewer: str
    seed: int
    #: When the choice must be made (``time.time()``; 0: no deadline): a person is
    #: waiting, and the bot answers with what it has found by then.
    deadline: float = 0.0


def think(job: Job) -> Any:
    """The option the bot picks for ``job.viewer`` from the public record."""
    record = PublicRecord(job.seats, job.actions, job.drawn, job.viewer)
    settings: dict[str, float] = {}
    if job.level in ("strong", "expert"):
        settings["budget"] = job.budget
    if job.deadline and job.level != "random":
        settings["deadline"] = job.deadline
    return make_bot(job.level, **settings).choose(record, SplitMix64(job.seed))


class BotGauges(Protocol):
    """Where the bots' figures go (the server's metrics): gauges, a histogram, a counter."""

    bot_queue: Any
    bot_searches: Any
    bot_seconds: Any
    bot_actions: Any


#: How much lower the bot workers' scheduling priority is than the server's: on a
#: busy machine the server's process (people's games) gets the processor first
#: and bots search with what is left.
WORKER_NICENESS = 15


class BotRunner:
    """Where bots think: a pool of ``workers`` processes (or threads) and a queue."""

    def __init__(self, config: BotConfig, metrics: BotGauges | None = None) -> None:
        self.config = config
        self.metrics = metrics
        self._executor = self._new_executor()
        self._slots: asyncio.Semaphore | None = None
        self._closed = False
        #: Decisions waiting for a free worker, and being searched, now.
        self.waiting = 0
        self.searching = 0

    def _new_executor(self) -> concurrent.futures.Executor:
        if self.config.processes:
            return concurrent.futures.ProcessPoolExecutor(
                self.config.workers,
                mp_context=multiprocessing.get_context("spawn"),
                # Workers end with this process, however it ends (see server.play.lifeline).
                initializer=lifeline.worker_start,
                initargs=(os.getpid(), WORKER_NICENESS),
            )
        return concurrent.futures.ThreadPoolExecutor(self.config.workers, thread_name_prefix="bot")

    @property
    def closed(self) -> bool:
        """Whether the runner was closed (the server is stopping)."""
        return self._closed

    @property
    def executor(self) -> concurrent.futures.Executor:
        """Where :func:`think` runs."""
        return self._executor

    def _gauges(self) -> None:
        if self.metrics is not None:
            self.metrics.bot_queue.set(self.waiting)
            self.metrics.bot_searches.set(self.searching)

    async def think(self, job: Job) -> Any:
        """The bot's choice for ``job``, once a worker is free (first come, first served).

        Raises RuntimeError once the runner is closed, and BrokenExecutor (a
        RuntimeError too) when its worker died with a fresh pool as well.
        """
        if self._slots is None:
            self._slots = asyncio.Semaphore(max(1, self.config.workers))
        loop = asyncio.get_running_loop()
        self.waiting += 1
        self._gauges()
        try:
            await self._slots.acquire()
        finally:
            self.waiting -= 1
        self.searching += 1
        self._gauges()
        started = time.perf_counter()
        try:
            for attempt in (1, 2):
                if self._closed:
                    raise RuntimeError("the bot runner is closed")
                executor = self._executor
                try:
                    return await loop.run_in_executor(executor, think, job)
                except concurrent.futures.BrokenExecutor:
                    # A worker died (killed, out of memory): start a fresh pool once.
                    if attempt == 2 or self._closed:
                        raise
                    if self._executor is executor:
                        executor.shutdown(wait=False, cancel_futures=True)
                        self._executor = self._new_executor()
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            self.searching -= 1
            self._slots.release()
            self._gauges()
            if self.metrics is not None:
                self.metrics.bot_seconds.observe(time.perf_counter() - started)

    def moved(self) -> None:
        """Count a bot's accepted action."""
        if self.metrics is not None:
            self.metrics.bot_actions.inc()

    def close(self) -> None:
        """Drop queued work; running decisions finish on their own."""
        self._closed = True
        self._executor.shutdown(wait=False, cancel_futures=True)
