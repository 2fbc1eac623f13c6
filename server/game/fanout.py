"""Fan-out of encoded log entries to the watchers of one game.

Publishing never waits: each watcher has a bounded buffer of frames that are
already encoded once for everybody. A watcher whose buffer is full is cut off
(it is told to resume from the last sequence it received) instead of slowing
the game or the other watchers. Frames waiting for a watcher are sent as one
message: encoded ``WatchGameResponse`` messages holding only ``entries`` (and
``boards``) concatenate into one valid message. A seat's watcher may hold its
frames back until one is published after which that seat decides, and send
them together. A watcher that asked for boards gets each entry's frame followed
by the board after it, as encoded once for its kind of viewer. Watchers that
gather (wait a few milliseconds for more entries before sending) are released
together by one timer of their game, not one timer each. Paced watchers (a
spectator that left the wait to the server) get at most one message per wait:
an entry ready when the last message of their group went out longer ago goes
at once, one that comes sooner waits until a wait has passed since then.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping
from enum import Enum

#: The encoded boards after one entry, by kind of viewer (a seat's colour, None
#: for a spectator): the ``boards`` field of a watch message.
Boards = Mapping[str | None, bytes]


class End(Enum):
    """Why a watch ends."""

    #: The game is over and every entry was delivered.
    FINISHED = "finished"
    #: The watcher's buffer overflowed; it must resume.
    LAGGING = "lagging"
    #: The server is shutting down.
    SHUTDOWN = "shutdown"
    #: The game left this node's memory (another node owns it now, or it is
    #: reloaded from the store); the watcher resumes.
    MOVED = "moved"


class Watcher:
    """One watch stream's buffer of frames not yet sent."""

    def __init__(
        self,
        limit: int,
        sequence: int,
        skip: str | None = None,
        hold_for: str | None = None,
        gather: float = 0.0,
        *,
        boards: bool = False,
        viewer: str | None = None,
        gathering: Callable[[Watcher], None] | None = None,
        paced: bool = False,
    ) -> None:
        self._limit = limit
        # Called when frames become ready and the watcher gathers: something that
        # calls release() ``gather`` seconds later (None: the watcher's own timer).
        self._gathering = gathering
        self._due = False  # a release is scheduled
        #: Whether each entry is sent with the board after it, as ``viewer`` sees it.
        self.boards = boards
        self.viewer = viewer
        #: Seconds to wait, once a frame is ready, for more to send with it (0: none).
        self.gather = gather
        #: The wait counts from the last message of the watcher's group, not
        #: from the frame ready: at most one message per ``gather``.
        self.paced = paced
        #: Entries published with this owner are not for this watcher (None: every entry).
        self.skip = skip
        #: Frames are held back until one is published for this decider (None: none held).
        self.hold_for = hold_for
        self._frames: deque[bytes] = deque()
        self._released = False  # the frames queued may be sent
        # What next() waits on: a plain future of the loop (cheaper than an Event).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._end: End | None = None
        #: The sequence of the last frame handed out by :meth:`next`.
        self.delivered = sequence
        self._queued = sequence
        # A watcher that takes every frame as it is (no skip, hold or boards)
        # reads them from the queue it shares with the others like it (its
        # flock), from index ``_taken`` on, instead of a queue of its own.
        self._flock: _Flock | None = None
        self._taken = 0

    def push(self, sequence: int, frame: bytes, release: bool = True) -> bool:
        """Queue ``frame`` (the entry ``sequence``); False if this watcher just overflowed.

        Without ``release`` the frame waits for a later one that releases it,
        unless half the buffer is full.
        """
        if self._end is not None:
            return False
        if len(self._frames) >= self._limit:
            self._frames.clear()
            self.close(End.LAGGING)
            return False
        self._frames.append(frame)
        self._queued = sequence
        if 2 * len(self._frames) >= self._limit:
            self.release()
        elif release and not self._released:
            if not self.gather:
                self.release()
            elif not self._due:
                # More entries may come meanwhile: they go out in the same message.
                self._due = True
                if self._gathering is not None:
                    self._gathering(self)
                else:
                    asyncio.get_running_loop().call_later(self.gather, self.release)
        return True

    def release(self) -> None:
        """Let the frames queued so far be sent (the wait for more is over)."""
        self._due = False
        if self._frames:
            self._released = True
            if self._waiter is not None:
                self._wake()

    def close(self, why: End) -> None:
        """End the watch once the frames queued so far are sent (at once if lagging)."""
        if self._end is None:
            self._end = why
            self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next(self) -> bytes | End:
        """The frames queued since the last call, joined, or why the watch ends."""
        while True:
            if self._end is End.LAGGING:
                return End.LAGGING
            if self._flock is not None:
                if self._released or self._end is not None:
                    self._released = False
                    data = self._flock.take(self)
                    if data is not None:
                        return data
            elif self._frames and (self._released or self._end is not None):
                data = self._frames[0] if len(self._frames) == 1 else b"".join(self._frames)
                self._frames.clear()
                self._released = False
                self.delivered = self._queued
                return data
            if self._end is not None:
                return self._end
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            waiter = self._waiter = self._loop.create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None


class _Flock:
    """Watchers that take every frame as it is and gather alike, sharing one queue.

    A frame published is queued once for all of them, and a batch they take
    together is joined once: a spectator costs a wake-up per message, not work
    per entry. The queue holds the frames some member has not taken yet.
    """

    def __init__(self, hub: Hub, gather: float, paced: bool) -> None:
        self._hub = hub
        self.gather = gather
        self.paced = paced
        self.members: set[Watcher] = set()
        self._frames: list[bytes] = []
        self._sequences: list[int] = []
        self._base = 0  # the index of _frames[0] among every frame queued
        self._low = 0  # no member has taken fewer frames than this (as of the last trim)
        self._due = False  # a release is scheduled
        self._released_at: float | None = None  # paced: when the last release was
        self._joined: tuple[int, int, bytes] | None = None  # the last batch joined

    @property
    def end(self) -> int:
        """The index after the last frame queued."""
        return self._base + len(self._frames)

    def join(self, watcher: Watcher) -> None:
        """Make ``watcher`` a member, taking the frames queued from now on."""
        watcher._flock = self
        watcher._taken = self.end
        self.members.add(watcher)

    def push(self, sequence: int, frame: bytes) -> list[Watcher]:
        """Queue ``frame`` for every member; the members it cut off (their buffer was full)."""
        lagging: list[Watcher] = []
        limit = self._hub._limit
        if 2 * (self.end + 1 - self._low) >= limit:
            # Some member may be half full with this frame, or full before it:
            # the members' least taken, exactly.
            lagging = self._trim(limit)
        self._frames.append(frame)
        self._sequences.append(sequence)
        if not self.gather:
            self.release()
            return lagging
        end = self.end
        if 2 * (end - self._low) >= limit:
            # A member half full goes without waiting; the others keep gathering.
            for watcher in self.members:
                if 2 * (end - watcher._taken) >= limit:
                    watcher._released = True
                    if watcher._waiter is not None:
                        watcher._wake()
        if not self._due:
            # More entries may come meanwhile: they go out in the same message.
            self._due = True
            loop = asyncio.get_running_loop()
            if not self.paced:
                loop.call_later(self.gather, self.release)
            elif self._released_at is None or self._released_at + self.gather <= loop.time():
                loop.call_soon(self.release)  # after the entries published meanwhile
            else:
                loop.call_at(self._released_at + self.gather, self.release)
        return lagging

    def _trim(self, limit: int) -> list[Watcher]:
        """Cut off the members whose buffer is full; forget what every member has taken."""
        end = self.end
        lagging = [w for w in self.members if end - w._taken >= limit]
        for watcher in lagging:
            self.members.discard(watcher)
            watcher.close(End.LAGGING)
        low = min((w._taken for w in self.members), default=end)
        del self._frames[: low - self._base]
        del self._sequences[: low - self._base]
        self._base = self._low = low
        self._joined = None
        return lagging

    def release(self) -> None:
        """Let every member send what it has not taken yet."""
        self._due = False
        if self.paced:
            self._released_at = asyncio.get_running_loop().time()
        end = self.end
        for watcher in self.members:
            if watcher._taken < end:
                watcher._released = True
                if watcher._waiter is not None:
                    watcher._wake()

    def take(self, watcher: Watcher) -> bytes | None:
        """The frames ``watcher`` has not taken, joined (None: none)."""
        start, end = watcher._taken, self.end
        if start >= end:
            return None
        joined = self._joined
        if joined is not None and joined[0] == start and joined[1] == end:
            data = joined[2]
        else:
            first = start - self._base
            data = self._frames[first] if end - start == 1 else b"".join(self._frames[first:])
            self._joined = (start, end, data)
        watcher._taken = end
        watcher.delivered = self._sequences[-1]
        return data

    def leave(self, watcher: Watcher) -> None:
        """Forget ``watcher``."""
        self.members.discard(watcher)


class Hub:
    """The watchers of one game."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._watchers: set[Watcher] = set()
        # Watchers that asked for boards, by viewer (None: a spectator).
        self._boards: dict[str | None, int] = {}
        # Watchers waiting for more entries, by how long they gather and whether
        # they are paced: one timer of the game releases each group.
        self._gathering: dict[tuple[float, bool], list[Watcher]] = {}
        # When each group of paced watchers (by how long they gather) was last released.
        self._paced_at: dict[float, float] = {}
        # Watchers that take every frame as it is, by how they gather: one queue each.
        self._flocks: dict[tuple[float, bool], _Flock] = {}
        # The other watchers, each with a queue of its own.
        self._single: set[Watcher] = set()

    def __len__(self) -> int:
        return len(self._watchers)

    def subscribe(
        self,
        sequence: int,
        skip: str | None = None,
        hold_for: str | None = None,
        gather: float = 0.0,
        *,
        boards: bool = False,
        viewer: str | None = None,
        paced: bool = False,
    ) -> Watcher:
        """A new watcher that has seen everything up to ``sequence``; see :class:`Watcher`."""
        watcher = Watcher(
            self._limit,
            sequence,
            skip,
            hold_for,
            gather,
            boards=boards,
            viewer=viewer,
            gathering=self._gather,
            paced=paced,
        )
        self._watchers.add(watcher)
        if skip is None and hold_for is None and not boards:
            key = (gather, paced)
            flock = self._flocks.get(key)
            if flock is None:
                flock = self._flocks[key] = _Flock(self, gather, paced)
            flock.join(watcher)
        else:
            self._single.add(watcher)
        if boards:
            self._boards[viewer] = self._boards.get(viewer, 0) + 1
        return watcher

    def _gather(self, watcher: Watcher) -> None:
        """Release ``watcher`` with the others that gather alike, when their time is up."""
        key = (watcher.gather, watcher.paced)
        group = self._gathering.get(key)
        if group is None:
            group = self._gathering[key] = []
            loop = asyncio.get_running_loop()
            if not watcher.paced:
                loop.call_later(watcher.gather, self._release, key)
            else:
                due = self._paced_at.get(watcher.gather, -watcher.gather) + watcher.gather
                if due <= loop.time():
                    # The group's last message is a wait old: at once (after the
                    # entries published meanwhile, which go with it).
                    loop.call_soon(self._release, key)
                else:
                    loop.call_at(due, self._release, key)
        group.append(watcher)

    def _release(self, key: tuple[float, bool]) -> None:
        group = self._gathering.pop(key, None)
        if group is None:
            return  # the hub closed meanwhile
        gather, paced = key
        if paced:
            self._paced_at[gather] = asyncio.get_running_loop().time()
        for watcher in group:
            watcher.release()

    def unsubscribe(self, watcher: Watcher) -> None:
        """Forget ``watcher`` (its stream ended)."""
        if watcher in self._watchers:
            self._drop(watcher)

    def _drop(self, watcher: Watcher) -> None:
        self._watchers.discard(watcher)
        self._single.discard(watcher)
        flock = watcher._flock
        if flock is not None:
            flock.leave(watcher)
            if not flock.members and self._flocks.get((flock.gather, flock.paced)) is flock:
                del self._flocks[flock.gather, flock.paced]
        if watcher.boards:
            left = self._boards[watcher.viewer] - 1
            if left:
                self._boards[watcher.viewer] = left
            else:
                del self._boards[watcher.viewer]

    def board_viewers(self) -> list[str | None]:
        """The kinds of viewer some watcher wants the board after each entry for."""
        return list(self._boards)

    def publish(
        self,
        sequence: int,
        frame: bytes,
        owner: str | None = None,
        decider: str | None = None,
        boards: Boards | None = None,
    ) -> None:
        """Queue ``frame`` for every watcher not skipping ``owner``; cut off the laggards.

        ``decider`` is who decides next (None: nobody, or not known); watchers
        holding frames for somebody else keep holding them. ``boards`` are the
        boards after the entry, for the watchers that asked.
        """
        lagging = []
        for flock in self._flocks.values():
            lagging += flock.push(sequence, frame)
        if boards is None or not self._boards:
            for w in self._single:
                if (owner is None or w.skip != owner) and not w.push(
                    sequence, frame, w.hold_for is None or decider is None or w.hold_for == decider
                ):
                    lagging.append(w)
        else:
            for w in self._single:
                if (owner is None or w.skip != owner) and not w.push(
                    sequence,
                    _with_board(frame, boards, w),
                    w.hold_for is None or decider is None or w.hold_for == decider,
                ):
                    lagging.append(w)
        for watcher in lagging:
            self._drop(watcher)

    def publish_many(
        self, items: list[tuple[int, bytes, str | None, str | None, Boards | None]]
    ) -> None:
        """Publish a run of entries ``(sequence, frame, owner, decider, boards)`` at once.

        Each watcher gets the frames it takes joined as one, so a run that
        arrives together (a node catching up with another's entries) does not
        count as a watcher falling behind.
        """
        if not items:
            return
        last = items[-1][0]
        lagging = []
        if self._flocks:
            joined = b"".join(frame for _, frame, _, _, _ in items)
            for flock in self._flocks.values():
                lagging += flock.push(last, joined)
        for watcher in self._single:
            frames = [
                _with_board(f, boards, watcher)
                for _, f, owner, _, boards in items
                if owner is None or watcher.skip != owner
            ]
            if not frames:
                continue
            release = watcher.hold_for is None or any(
                decider is None or decider == watcher.hold_for for _, _, _, decider, _ in items
            )
            if not watcher.push(last, b"".join(frames), release):
                lagging.append(watcher)
        for watcher in lagging:
            self._drop(watcher)

    def close(self, why: End) -> None:
        """End every watch (game over or shutdown)."""
        for watcher in self._watchers:
            watcher.close(why)
        self._watchers.clear()
        self._single.clear()
        self._flocks.clear()
        self._boards.clear()
        self._gathering.clear()
        self._paced_at.clear()


def _with_board(frame: bytes, boards: Boards | None, watcher: Watcher) -> bytes:
    """``frame``, followed by the board after it if ``watcher`` asked for boards."""
    if not watcher.boards or boards is None:
        return frame
    return frame + boards.get(watcher.viewer, b"")
