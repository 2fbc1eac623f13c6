"""Bots that play seats on the server: levels, settings and where they think.

A bot sees what its seat sees: the seats, the accepted actions and the tiles
drawn so far (those of every ``tile_placed`` event, in order), never the stack
order. It thinks in an executor (threads by default, or processes), so the
event loop keeps serving every other game while a strong bot searches.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import multiprocessing
from dataclasses import dataclass
from typing import Any

from bots import PublicRecord, make_bot
from engine.playout import SplitMix64

#: Acts that begin a turn; every decision after one, until the next, belongs to its turn.
TURN_ACTS = frozenset({"setup", "expand", "royal", "settle", "tonga", "single"})


def turn_decisions(actions: list[Any], kind: str | None) -> int:
    """Decisions taken so far in the current turn (0 when a new turn is pending)."""
    if kind in (None, "turn", "setup"):
        return 0
    taken = 0
    for action in reversed(actions):
        taken += 1
        if action["act"] in TURN_ACTS:
            break
    return taken


@dataclass(frozen=True)
class BotConfig:
    """How server-side bots think."""

    #: CPU seconds per decision of a strong bot.
    strong_budget: float = 1.0
    #: Worker threads (or processes) thinking for bots.
    workers: int = 2
    #: Think in separate processes (spawned) instead of threads.
    processes: bool = False
    #: Seconds a bot waits (thinking included) before it acts in a game with a
    #: person's seat, so that people can follow; games of bots only never wait.
    pace: float = 0.0


def seed_of(game: str, sequence: int) -> int:
    """The bot's random seed for the decision at ``sequence`` of ``game`` (reproducible)."""
    digest = hashlib.sha256(f"{game}:{sequence}".encode()).digest()
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


def think(job: Job) -> Any:
    """The option the bot picks for ``job.viewer`` from the public record."""
    record = PublicRecord(job.seats, job.actions, job.drawn, job.viewer)
    settings: dict[str, float] = {"budget": job.budget} if job.level == "strong" else {}
    return make_bot(job.level, **settings).choose(record, SplitMix64(job.seed))


class BotRunner:
    """The executor bots think in."""

    def __init__(self, config: BotConfig) -> None:
        self.config = config
        self._executor: concurrent.futures.Executor
        if config.processes:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                config.workers, mp_context=multiprocessing.get_context("spawn")
            )
        else:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                config.workers, thread_name_prefix="bot"
            )

    @property
    def executor(self) -> concurrent.futures.Executor:
        """Where :func:`think` runs."""
        return self._executor

    def close(self) -> None:
        """Drop queued work; running decisions finish on their own."""
        self._executor.shutdown(wait=False, cancel_futures=True)
