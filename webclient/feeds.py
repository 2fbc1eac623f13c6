"""One upstream watch per game, fanned out to every browser as Server-Sent Events.

A :class:`Feed` holds the game's last snapshot and every log entry after it,
each already encoded once as an SSE frame whose ``id`` is its sequence number.
A browser that reconnects sends ``Last-Event-ID`` and gets exactly the frames it
missed (or the snapshot again if it is further behind than the feed). However
many browsers watch, the game costs one gRPC stream: the server sends the
board after each entry with it (``include_boards``), and it rides along with
its entry, converted once for every browser, so browsers play a batch of
entries back one by one without asking for the board between them, and never
recompute it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from tongiaki.v1 import game_pb2 as pb
from webclient.upstream import Upstream, UpstreamError, responses
from webclient.wire import to_json

log = logging.getLogger(__name__)

#: How many of the latest entries keep the board after them (a whole game,
#: mostly: a browser catching up plays it back board by board); older ones are
#: held without it (a browser that far behind draws the next board it gets),
#: so a feed holds at most this many boards (some 4 KB each).
BOARDS_KEPT = 256

#: Reasons after which watching again cannot help.
FATAL = {"GAME_NOT_FOUND", "INVALID_REQUEST", "TOKEN_INVALID", "TOKEN_WRONG_GAME"}


def frame(event: str, data: Any, ident: int | None = None) -> bytes:
    """One SSE frame."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {event}\ndata: {text}\n\n".encode()


class Feed:
    """The shared watch of one game."""

    def __init__(
        self,
        upstream: Upstream,
        name: str,
        *,
        linger: float,
        heartbeat: float,
        window: int = 1024,
        start_after: int | None = None,
        on_stop: Callable[[Feed], None],
    ) -> None:
        self.upstream = upstream
        self.name = name
        self.linger = linger
        self.heartbeat = heartbeat
        #: How many recent entries a reconnecting browser can be sent instead of a snapshot.
        self.window = window
        self._on_stop = on_stop
        self._cond = threading.Condition()
        self._latest: bytes | None = None
        # A feed opened for a browser that resumes starts upstream where that
        # browser stopped, so it gets the entries it missed, not just a snapshot.
        self._start_after = start_after
        self._base = start_after or 0
        self._frames: list[bytes] = []
        # The last BOARDS_KEPT frames without their boards, to replace them by.
        self._bare: deque[bytes] = deque()
        self._done = False
        self._error: UpstreamError | None = None
        self._stopped = False
        self._call: Any = None
        self._subscribers = 0
        self._idle_since = time.monotonic()
        #: Upstream watch calls opened so far (1 unless the stream had to resume).
        self.upstream_calls = 0
        self._thread = threading.Thread(target=self._run, name=f"feed {name}", daemon=True)

    # ------------------------------------------------------------ upstream side

    def start(self) -> None:
        """Open the upstream watch."""
        self._thread.start()

    @property
    def last(self) -> int:
        """Sequence of the last entry held."""
        return self._base + len(self._frames)

    @property
    def current(self) -> bool:
        """Whether the feed holds the game's board (it has heard from the server)."""
        return self._latest is not None

    @property
    def subscribers(self) -> int:
        """Browsers currently attached."""
        return self._subscribers

    @property
    def stopped(self) -> bool:
        """Whether the feed has ended for good (a new one is needed)."""
        return self._stopped

    def _run(self) -> None:
        delay = 0.2
        while not self._stopped:
            with self._cond:
                after = self.last if self._latest is not None else self._start_after
            try:
                self._follow(after)
            except UpstreamError as error:
                if self._stopped:
                    break
                if error.reason in FATAL:
                    self._finish(error=error)
                    break
                if error.reason == "SEQUENCE_OUT_OF_RANGE":
                    with self._cond:
                        self._latest = None
                        self._start_after = None
                log.info("watch interrupted", extra={"game": self.name, "reason": error.reason})
                time.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            except Exception:
                if self._stopped:
                    break
                log.exception("feed failed", extra={"game": self.name})
                time.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            if not self._stopped:
                self._finish()
            break

    def _follow(self, after: int | None) -> None:
        """Relay one upstream call until it ends (normally only when the game is over)."""
        self._call = self.upstream.watch(self.name, after)
        self.upstream_calls += 1
        if self._stopped:
            self._call.cancel()
        pending: list[pb.LogEntry] = []
        boards: dict[int, pb.GameSnapshot] = {}
        for response in responses(self._call):
            if response.HasField("snapshot"):
                self._reset(response.snapshot)
                pending = []
                boards = {}
            pending.extend(response.entries)
            boards.update((board.sequence, board) for board in response.boards)
            # Every message carries the game after it (include_latest): no GetGame needed.
            latest = response.latest if response.HasField("latest") else None
            if latest is None:
                continue
            if not pending:
                self._adopt(latest)
            elif latest.sequence == pending[-1].sequence:
                self._publish(pending, latest, boards)
                pending = []
                boards = {}

    def _adopt(self, snapshot: pb.GameSnapshot) -> None:
        """Take a snapshot as the latest if it is exactly where the feed is."""
        with self._cond:
            if self._latest is None and snapshot.sequence == self.last:
                self._latest = frame("snapshot", to_json(snapshot), self.last)
                self._cond.notify_all()

    def _reset(self, snapshot: pb.GameSnapshot) -> None:
        with self._cond:
            self._base = snapshot.sequence
            self._frames = []
            self._bare.clear()
            self._latest = frame("snapshot", to_json(snapshot), snapshot.sequence)
            self._cond.notify_all()

    def _publish(
        self,
        entries: list[pb.LogEntry],
        snapshot: pb.GameSnapshot,
        boards: dict[int, pb.GameSnapshot],
    ) -> None:
        """Add ``entries``, each with the board after it (the last one's is ``snapshot``)."""
        with self._cond:
            latest: dict[str, Any] | None = None
            for entry in entries:
                if entry.sequence != self.last + 1:
                    continue
                data: dict[str, Any] = {"sequence": str(entry.sequence), "entry": to_json(entry)}
                self._bare.append(frame("entry", data, entry.sequence))
                board = boards.get(entry.sequence)
                if entry is entries[-1]:
                    data["snapshot"] = latest = to_json(board or snapshot)
                elif board is not None:
                    data["snapshot"] = to_json(board)
                self._frames.append(frame("entry", data, entry.sequence))
                if len(self._bare) > BOARDS_KEPT:
                    bare = self._bare.popleft()
                    if len(self._frames) > BOARDS_KEPT:
                        self._frames[-BOARDS_KEPT - 1] = bare
            if snapshot.sequence == self.last:
                latest = latest or to_json(snapshot)
                self._latest = frame("snapshot", latest, snapshot.sequence)
            excess = len(self._frames) - self.window
            if excess > 0:
                del self._frames[:excess]
                self._base += excess
            self._cond.notify_all()

    def _finish(self, error: UpstreamError | None = None) -> None:
        with self._cond:
            self._done = True
            self._error = error
            self._cond.notify_all()

    def stop(self) -> None:
        """End the feed: cancel the upstream watch and wake every browser."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._call is not None:
            self._call.cancel()
        self._on_stop(self)

    # ------------------------------------------------------------ browser side

    def stream(self, last_id: int | None) -> Iterator[bytes]:
        """The SSE frames for one browser that last saw ``last_id``."""
        with self._cond:
            self._subscribers += 1
        try:
            yield b"retry: 1000\n\n"
            yield from self._frames_after(last_id)
        finally:
            with self._cond:
                self._subscribers -= 1
                if self._subscribers == 0:
                    self._idle_since = time.monotonic()
            if self._subscribers == 0:
                timer = threading.Timer(self.linger, self._stop_if_idle)
                timer.daemon = True
                timer.start()

    def _frames_after(self, last_id: int | None) -> Iterator[bytes]:
        position = last_id
        while True:
            with self._cond:
                out: list[bytes] = []
                waited = False
                while True:
                    if self._error is not None:
                        yield frame("failure", self._error.to_json())
                        return
                    if self._latest is not None:
                        if position is None or position < self._base or position > self.last:
                            out.append(self._latest)
                            position = self.last
                        out.extend(self._frames[position - self._base :])
                        position = self.last
                    if out or self._stopped or (self._done and self._latest is not None):
                        break
                    if waited:
                        out.append(b": keep-alive\n\n")
                        break
                    self._cond.wait(self.heartbeat)
                    waited = True
                finished = self._done and position == self.last and self._latest is not None
                stopped = self._stopped
            if out:
                yield b"".join(out)
            if finished:
                yield frame("end", {"sequence": str(position)})
                return
            if stopped:
                return

    def _stop_if_idle(self) -> None:
        with self._cond:
            idle = self._subscribers == 0 and time.monotonic() - self._idle_since >= self.linger
        if idle:
            self.stop()


class FeedHub:
    """The feeds of every watched game, created on demand and dropped when idle."""

    def __init__(self, upstream: Upstream, *, linger: float = 30.0, heartbeat: float = 15.0):
        self.upstream = upstream
        self.linger = linger
        self.heartbeat = heartbeat
        self._lock = threading.Lock()
        self._feeds: dict[str, Feed] = {}
        self._closed = False

    def ensure_open(self) -> None:
        """Raise :class:`UpstreamError` (``SHUTTING_DOWN``) once the hub is closed."""
        if self._closed:
            raise UpstreamError("UNAVAILABLE", "the gateway is shutting down", "SHUTTING_DOWN")

    def feed(self, name: str, after: int | None = None) -> Feed:
        """The live feed of game ``name``, started (from ``after``, if given) if needed.

        Raises :class:`UpstreamError` (``SHUTTING_DOWN``) once the hub is closed: a
        browser reconnecting while the gateway stops must not start a feed that
        nothing would ever stop.
        """
        with self._lock:
            if self._closed:
                raise UpstreamError("UNAVAILABLE", "the gateway is shutting down", "SHUTTING_DOWN")
            feed = self._feeds.get(name)
            if feed is None or feed.stopped:
                feed = Feed(
                    self.upstream,
                    name,
                    linger=self.linger,
                    heartbeat=self.heartbeat,
                    start_after=after,
                    on_stop=self._forget,
                )
                self._feeds[name] = feed
                feed.start()
            return feed

    def live(self, name: str) -> Feed | None:
        """The feed of game ``name`` if one runs and holds the game's board (the game
        exists, and is known as far as the feed's ``last``), else None."""
        with self._lock:
            feed = self._feeds.get(name)
        return feed if feed is not None and not feed.stopped and feed.current else None

    def _forget(self, feed: Feed) -> None:
        with self._lock:
            if self._feeds.get(feed.name) is feed:
                del self._feeds[feed.name]

    def stats(self) -> dict[str, dict[str, int]]:
        """Per game: attached browsers and upstream watch calls opened."""
        with self._lock:
            feeds = list(self._feeds.values())
        return {
            f.name: {"browsers": f.subscribers, "upstream_calls": f.upstream_calls} for f in feeds
        }

    def close(self) -> None:
        """Stop every feed, and start no more."""
        with self._lock:
            self._closed = True
            feeds = list(self._feeds.values())
        for feed in feeds:
            with contextlib.suppress(Exception):
                feed.stop()
