"""The games this node holds in memory, loaded from the store when asked for.

Only games being played or watched here (and, for a while, those recently
asked for) are in memory; any other game is rebuilt from its log when a
request needs it, and let go once idle. Starting reads nothing per stored game:
the games whose bots or turn clocks need a server are found with an indexed
query and loaded in the background.

Where several nodes share the store, a copy of a game is either the owner
(it writes) or a follower (it applies what the owner wrote, as the store tells
it). A change to a game is made by its owner: this node takes the game if it
has no living owner, and otherwise names the node that has it, for the call
to be forwarded there.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from engine.playout import shuffled_stack
from server.game.authority import Authority, Frame, Limits
from server.game.errors import ServerReason, ServiceError, invalid
from server.game.fanout import End
from server.game.hooks import Hooks
from server.game.seats import Seats, hash_token
from server.node.forward import Hashed
from server.storage.base import (
    CREATE_REQUEST_SECONDS,
    FINISHED,
    MAX_PAGE,
    Entry,
    LeaseLapsed,
    Owner,
    Requested,
    Setup,
    Store,
    Stored,
    Summary,
    Tokens,
)

log = logging.getLogger(__name__)

_NAME = re.compile(r"games/([A-Za-z0-9_-]{1,64})")

#: ListGames pages.
MAX_LIST_PAGE = 1000
DEFAULT_PAGE = 50


def game_id(name: str) -> str:
    """The id in a game's name ``games/{game}``."""
    match = _NAME.fullmatch(name)
    if match is None:
        raise invalid("name must look like games/{game}", field="name")
    return match.group(1)


def not_found(name: str) -> ServiceError:
    """The refusal for a game that does not exist."""
    return ServiceError(ServerReason.GAME_NOT_FOUND, f"no game {name}", name=name)


class Registry:
    """The games of this node, by id, over the store."""

    def __init__(
        self,
        store: Store,
        hooks: Hooks,
        limits: Limits | None = None,
        *,
        idle: float = 30.0,
        open_game_ttl: float = 0.0,
    ) -> None:
        self.store = store
        #: The encoding, bots, clocks and notices each game here is given.
        self.hooks = hooks
        self._limits = limits or Limits()
        #: Seconds a game nobody watches or plays here stays in memory.
        self.idle = idle
        #: Seconds an open game that no person joined is kept (0: for ever).
        self.open_game_ttl = open_game_ttl
        self._games: dict[str, Authority] = {}
        self._loading: dict[str, asyncio.Future[Authority]] = {}
        self._acquiring: dict[str, asyncio.Future[Authority | Owner]] = {}
        self._behind: set[str] = set()  # followers told of entries not read yet
        self._retake: set[str] = set()  # games given up when the lease was not renewed
        self._wake = asyncio.Event()  # set when a game is added to _behind
        self._tasks: list[asyncio.Task[None]] = []
        self._closed = False
        #: Games loaded from the store so far (figures for tests and benchmarks).
        self.loads = 0

    # ------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Follow other nodes' entries, and take up games that run by themselves."""
        if getattr(self.store, "upgraded", False):
            await self.backfill()
        self.store.listen(self._on_entry)
        self._tasks = [
            asyncio.create_task(self._sweep(), name="registry-sweep"),
            asyncio.create_task(self._adopt(), name="registry-adopt"),
            asyncio.create_task(self._forget(), name="registry-forget"),
        ]
        if self.open_game_ttl > 0:
            self._tasks.append(asyncio.create_task(self._expire(), name="registry-expire"))
        if self.store.shared:
            self._tasks.append(asyncio.create_task(self._follow(), name="registry-follow"))
            self._tasks.append(asyncio.create_task(self._fence(), name="registry-fence"))

    def close(self, why: End) -> None:
        """Stop every game here and end every watch."""
        self._closed = True
        for task in self._tasks:
            task.cancel()
        for game in self._games.values():
            game.stop()
            game.hub.close(why)

    def __len__(self) -> int:
        return len(self._games)

    def in_memory(self) -> list[Authority]:
        """The games held in memory now."""
        return list(self._games.values())

    # ------------------------------------------------------------ finding games

    def problems(self) -> list[str]:
        """Why this node cannot serve games now (its store's, and tasks that ended)."""
        ended = [
            f"{task.get_name()} ended"
            for task in self._tasks
            if task.done()
            and not task.cancelled()
            and not self._closed
            # (Adoption ends by itself after its one pass where no other node shares the store.)
            and (task.exception() is not None or self.store.shared)
        ]
        return [*self.store.problems(), *ended]

    async def create(
        self,
        seats: list[str],
        settings: dict[str, Any],
        stack: Sequence[str] | None = None,
        requested: Requested | None = None,
    ) -> Authority:
        """A new game with a stack shuffled from a secret seed (a tutorial's is given);
        durable before it is returned, with its request id if it has one (a
        :class:`Conflict` if that id made a game already: see ``Store.create``).

        Refused while this node could not write the game (its lease is not known to run).
        """
        if not self.store.lease_valid():
            raise ServiceError(
                ServerReason.NODE_UNAVAILABLE,
                "this node cannot write games now; retry (on another node)",
            )
        setup = Setup(
            id=secrets.token_hex(8),
            ordinal=await self.store.next_ordinal(),
            seats=seats,
            stack=list(stack) if stack is not None else shuffled_stack(secrets.randbits(64)),
            settings=settings,
            created=time.time(),
        )
        summary = Summary(seats=Seats(seats, settings.get("bots", {})).summary())
        game = self._new(Stored(setup, summary, epoch=1), owner=True)
        await self.store.create(setup, summary, requested)
        self._games[game.id] = game
        log.info("game created", extra={"game": game.id, "seats": seats})
        await game.start_bots_only()
        return game

    def _new(self, stored: Stored, *, owner: bool) -> Authority:
        return Authority(stored, self.store, self._limits, self.hooks, owner=owner)

    async def find(self, name: str) -> Authority:
        """The game called ``name``, from memory or rebuilt from the store."""
        gid = game_id(name)
        game = self._games.get(gid)
        if game is not None and not game.broken:
            game.used = time.monotonic()
            return game
        loading = self._loading.get(gid)
        if loading is None:
            loading = asyncio.ensure_future(self._load(gid, name))
            self._loading[gid] = loading
            loading.add_done_callback(lambda _: self._loading.pop(gid, None))
        return await asyncio.shield(loading)

    async def _load(self, gid: str, name: str) -> Authority:
        stored = await self.store.load(gid)
        if stored is None:
            raise not_found(name)
        self.loads += 1
        if stored.summary.state == FINISHED:
            # A finished game never changes: answered from the store, not kept.
            return self._new(stored, owner=False)
        # One node alone owns everything it loads; a shared store's copies follow first.
        game = self._new(stored, owner=not self.store.shared)
        old = self._games.get(gid)
        if old is not None:
            old.break_off()
        self._games[gid] = game
        if game.owner:
            game.resume()
        else:
            # Listen first, then read: an entry written while the game was read is
            # read now (its notification may have come before the game was here).
            self._on_entry(gid, 0)
        return game

    async def settle(self, name: str) -> None:
        """After a change forwarded to the owner: bring this node's copy up to date."""
        game = self._games.get(game_id(name))
        if game is not None and not game.owner and not game.broken:
            await self._catch_up(game)

    async def refresh(self, game: Authority) -> None:
        """Bring a follower up to what the store has (before answering a read)."""
        if not game.owner:
            await self._catch_up(game)

    async def owned(self, name: str) -> Authority | Owner:
        """The game's owner copy here (taken if nobody has it), or who owns it."""
        game = await self.find(name)
        if game.owner:
            return game
        acquiring = self._acquiring.get(game.id)
        if acquiring is None:
            acquiring = asyncio.ensure_future(self._acquire(game))
            self._acquiring[game.id] = acquiring
            gid = game.id
            acquiring.add_done_callback(lambda _: self._acquiring.pop(gid, None))
        return await asyncio.shield(acquiring)

    async def _acquire(self, game: Authority) -> Authority | Owner:
        try:
            owner = await self.store.acquire(game.id)
        except LeaseLapsed:
            raise ServiceError(
                ServerReason.GAME_MOVED,
                "this node cannot take the game now; retry (on another node)",
                name=game.name,
            ) from None
        if owner is None:
            raise not_found(game.name)
        if not owner.mine:
            if not owner.address:
                raise ServiceError(
                    ServerReason.NODE_UNAVAILABLE, "the game's node is not known yet; retry"
                )
            return owner
        # Nobody else can append now: read what the last owner wrote, then write on.
        await self._catch_up(game)
        game.take_ownership(owner.epoch)
        log.info("game taken", extra={"game": game.id, "epoch": owner.epoch})
        return game

    async def seat(self, game: Authority, token: str | None, *, required: bool) -> str | None:
        """The seat ``token`` holds in ``game``; None for a spectator (no token, not required)."""
        if token is None:
            if required:
                raise ServiceError(
                    ServerReason.TOKEN_MISSING,
                    "send the seat token as 'authorization: Bearer <token>'",
                )
            return None
        # (A call forwarded by another node carries the token's hash, vouched for.)
        hashed = token if isinstance(token, Hashed) else hash_token(token)
        colour = game.seat_of(hashed)
        if colour is not None:
            return colour
        # (A token of this game that its seat no longer takes is simply no seat token.)
        if await self.store.token_game(hashed) not in (None, game.id):
            raise ServiceError(
                ServerReason.TOKEN_WRONG_GAME, "the token is a seat of another game", name=game.name
            )
        raise ServiceError(ServerReason.TOKEN_INVALID, "the token is no seat token")

    async def page(
        self, size: int, token: str, state: str | None, open_seats: bool
    ) -> tuple[list[Stored], str]:
        """One page of games in creation order (from the store's indexes), and the next token.

        Tutorial games are left out, so a page may hold fewer than ``size`` games.
        """
        if size < 0:
            raise invalid("page_size must not be negative", field="page_size")
        size = min(size or DEFAULT_PAGE, MAX_LIST_PAGE)
        after = _decode_page(token) if token else 0
        found = await self.store.page(after, size + 1, state, open_seats)
        following = _encode_page(found[size - 1].setup.ordinal) if len(found) > size else ""
        return [g for g in found[:size] if not g.setup.settings.get("tutorial")], following

    # ------------------------------------------------------------ history

    async def history(self, gid: str, after: int, until: int) -> list[Frame]:
        """The frames of entries ``after`` < sequence <= ``until``, rebuilt from the store."""
        stored = await self.store.load(gid)
        if stored is None:
            raise not_found("games/" + gid)
        entries = [e for e in stored.entries if e.sequence <= until]
        past = Authority(
            Stored(stored.setup, stored.summary, entries),
            self.store,
            dataclasses.replace(self._limits, resume_window=max(until - after, 1)),
            Hooks(self.hooks.codec),
            owner=False,
            keep_after=after,
        )
        return past.window()

    def older(self, gid: str) -> Callable[[int, int], Awaitable[list[Frame]]]:
        """What a watch calls for entries that memory no longer holds."""
        return lambda after, until: self.history(gid, after, until)

    async def past(self, name: str, at: int) -> tuple[Stored, dict[str, Any] | None]:
        """The game right after entry ``at``, as a spectator saw it.

        Rebuilt from the game's last checkpoint at or before ``at`` (kept in
        memory) and at most ``checkpoint_every`` entries read from the store,
        so its cost does not grow with the length of the game.
        """
        game = await self.find(name)
        last = game.sequence
        if at > last:  # this node may not have applied the newest entries yet
            stored = await self.store.load(game.id, entries=False)
            last = stored.summary.sequence if stored is not None else last
        if not 0 <= at <= last:
            raise ServiceError(
                ServerReason.SEQUENCE_OUT_OF_RANGE,
                f"at_sequence must be 0..{last}",
                sequence=last,
            )
        checkpoint = game.checkpoint(at)
        start = checkpoint.sequence if checkpoint is not None else 0
        entries = await self.store.entries(game.id, start, at - start) if at > start else []
        if len(entries) != at - start or any(
            e.sequence != start + i for i, e in enumerate(entries, 1)
        ):
            raise ServiceError(
                ServerReason.SEQUENCE_OUT_OF_RANGE, f"at_sequence must be 0..{last}", sequence=last
            )
        past = Authority.rebuilt(
            game.setup, self.store, self._limits, checkpoint, entries, codec=self.hooks.codec
        )
        return past.latest(None)

    async def log_page(self, name: str, after: int, size: int) -> tuple[list[bytes], int, bool]:
        """Frames of the public log after ``after`` (at most ``size``), the game's
        sequence, and whether more follow."""
        gid = game_id(name)
        game = await self.find(name)
        sequence = game.sequence
        if not 0 <= after <= sequence:
            raise ServiceError(
                ServerReason.SEQUENCE_OUT_OF_RANGE,
                f"after_sequence must be 0..{sequence}",
                sequence=sequence,
            )
        until = min(sequence, after + size)
        window = game.window()
        held = game.sequence - len(window)
        if after >= held:
            frames = [f for f, _ in window[after - held : until - held]]
        else:
            frames = [f for f, _ in await self.history(gid, after, until)]
        return frames, sequence, until < sequence

    # ------------------------------------------------------------ other nodes' entries

    def _on_entry(self, gid: str, sequence: int) -> None:
        """The store says ``gid`` has an entry ``sequence`` (("", 0): check every game)."""
        games = list(self._games.values()) if not gid else [self._games.get(gid)]
        for game in games:
            if game is None or game.broken:
                continue
            if game.owner:
                if sequence > max(game.sequence, game.writing):
                    # Somebody else wrote to a game this copy owns: it lost the game.
                    log.warning("game taken by another node", extra={"game": game.id})
                    game.owner = False
                    game.break_off()
                continue
            if sequence and sequence <= game.sequence:
                continue
            self._behind.add(game.id)
            self._wake.set()

    async def _follow(self) -> None:
        """Apply what other nodes write to the games followed here, one read at a time
        for every game the store said is behind.

        A notification that arrives while a read is under way may name an entry
        that read could not see yet: it marks its game again, and the game is
        read again.
        """
        while True:
            await self._wake.wait()
            self._wake.clear()
            games = [
                game
                for gid in self._behind
                if (game := self._games.get(gid)) is not None and not game.owner and not game.broken
            ]
            self._behind.clear()
            if not games:
                continue
            try:
                runs = await self.store.entries_after({g.id: g.sequence for g in games}, MAX_PAGE)
            except Exception:
                log.exception("reading other nodes' entries failed")
                for game in games:
                    game.break_off()
                continue
            for game in games:
                entries = runs.get(game.id, [])
                try:
                    if entries and not game.broken:
                        await game.follow(entries)
                except Exception:
                    log.exception("following failed", extra={"game": game.id})
                    game.break_off()
                if len(entries) >= MAX_PAGE:  # more than one page behind: read on
                    self._behind.add(game.id)
                    self._wake.set()

    async def _catch_up(self, game: Authority) -> None:
        """Apply every entry the store has after this copy's last one.

        A page shorter than asked for holds the last entry the store had when
        it was read: nothing is read again to find nothing (an entry committed
        since is notified, and :meth:`_follow` reads again).
        """
        while True:
            entries: list[Entry] = await self.store.entries(game.id, game.sequence, MAX_PAGE)
            if entries:
                await game.follow(entries)
            if len(entries) < MAX_PAGE:
                return

    # ------------------------------------------------------------ housekeeping

    async def _sweep(self) -> None:
        """Let go of games nobody plays or watches here any more; keep the others driven."""
        while True:
            await asyncio.sleep(max(self.idle / 4, 0.05))
            try:
                self.evict_idle()
                self.drive()
            except Exception:
                # One game's fault must not end the housekeeping of every game.
                log.exception("looking over the games failed")

    def drive(self) -> None:
        """Let every game this node owns act by itself if it must (a bot to move, a turn
        clock to run), whatever ended its bots' task or its clock before."""
        for game in self._games.values():
            if game.owner and not game.broken:
                game.resume()

    def evict_idle(self, now: float | None = None) -> int:
        """Drop idle games from memory (their state is in the store); returns how many."""
        now = time.monotonic() if now is None else now
        dropped = 0
        for gid, game in list(self._games.items()):
            if game.broken:
                del self._games[gid]
                continue
            if len(game.hub) or game.busy or now - game.used < self.idle:
                continue
            del self._games[gid]
            game.stop()
            dropped += 1
            if self.store.shared and game.owner and game.state != FINISHED:
                task = asyncio.ensure_future(self.store.release(gid, game.epoch))
                task.add_done_callback(_consume)
        return dropped

    async def _expire(self) -> None:
        """Delete open games that no person joined within ``open_game_ttl``."""
        while True:
            await asyncio.sleep(min(self.open_game_ttl / 4, 60.0))
            try:
                await self.expire_open()
            except Exception:
                log.exception("expiring open games failed")

    async def _forget(self) -> None:
        """Delete CreateGame request ids past their window, every minute."""
        while True:
            await asyncio.sleep(60.0)
            try:
                await self.store.forget_requests(time.time() - CREATE_REQUEST_SECONDS)
            except Exception:
                log.exception("forgetting request ids failed")

    async def expire_open(self) -> list[str]:
        """One pass of :meth:`_expire`; returns the games deleted."""
        gone: list[str] = []
        while True:
            batch = await self.store.expire(time.time() - self.open_game_ttl, 500)
            for gid in batch:
                game = self._games.pop(gid, None)
                if game is not None:
                    game.break_off()
            gone.extend(batch)
            if len(batch) < 500:
                break
        if gone:
            log.info("open games expired", extra={"games": len(gone)})
        return gone

    async def _fence(self) -> None:
        """Stop owning every game here once this node's lease is not known to run
        (or ran out since it was last looked at): another node may own them now.

        The store counts the lease ahead of the database, so this happens before
        another node can take a game; the database refuses a late write anyway.
        """
        lapses = self.store.lapses
        every = max(0.02, getattr(self.store, "lease", 1.0) / 20)
        while True:
            await asyncio.sleep(every)
            valid, now = self.store.lease_valid(), self.store.lapses
            if valid and now == lapses:
                continue
            lapses = now
            dropped = 0
            for game in list(self._games.values()):
                if game.owner and not game.broken:
                    game.owner = False
                    game.break_off()
                    dropped += 1
                    # Still this node's in the store if the lease was renewed in time:
                    # taken up again (or by another node) once the lease runs.
                    if game.state != FINISHED:
                        self._retake.add(game.id)
            if dropped:
                log.warning("lease not renewed: games given up", extra={"games": dropped})

    async def _adopt(self) -> None:
        """Load the games whose bots or clocks need a server (and, shared, have no owner),
        and take over the games watched here whose owner is gone.

        A failure (the database is away) is logged and the next round tried.
        """
        every = min(1.0, getattr(self.store, "lease", 1.0) / 6)
        started = False
        failures = 0
        while not self._closed:
            try:
                if not started:
                    for gid in await self.store.due(10_000):
                        await self._take_up(gid)
                    started = True
                    if not self.store.shared:
                        return
                if self.store.lease_valid():
                    # Games nobody living owns, and games this node still owns in the
                    # store but not here (given up at a lapse, or broken by a failed
                    # write) whose bots or clocks need it.
                    found = [*await self.store.orphans(100), *await self.store.due(100)]
                    # Games watched here whose owner died or stopped: taken over now,
                    # not when someone next asks for a change.
                    watched = [
                        gid
                        for gid, game in self._games.items()
                        if not game.owner and not game.broken and len(game.hub)
                    ]
                    if watched:
                        found += await self.store.unowned(watched)
                    retake, self._retake = self._retake, set()
                    for gid in dict.fromkeys([*retake, *found]):
                        held = self._games.get(gid)
                        if held is None or not held.owner or held.broken:
                            await self._take_up(gid)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception:
                if not failures:
                    log.warning("looking for games to take up failed", exc_info=True)
                failures += 1
            await asyncio.sleep(every * min(8, 1 + failures))

    async def _take_up(self, gid: str) -> None:
        try:
            game = await self.owned("games/" + gid)
        except ServiceError as error:
            log.info("game not taken up", extra={"game": gid, "reason": error.reason})
            if error.reason == ServerReason.GAME_MOVED:  # this node's lease: try again later
                self._retake.add(gid)
            return
        except Exception:
            log.exception("game not taken up", extra={"game": gid})
            return
        if isinstance(game, Authority):
            game.resume()

    async def backfill(self) -> int:
        """Fill in the summaries of games an earlier schema stored without (once)."""
        summarize = getattr(self.store, "summarize", None)
        unsummarized = getattr(self.store, "unsummarized", None)
        if summarize is None or unsummarized is None:
            return 0
        done = 0
        while True:
            batch = await unsummarized(500)
            if not batch:
                break
            for gid in batch:
                stored = await self.store.load(gid)
                assert stored is not None
                game = Authority(
                    stored,
                    self.store,
                    self._limits,
                    Hooks(self.hooks.codec),
                    owner=False,
                    keep_after=1 << 62,
                )
                tokens = Tokens(added=tuple(game.seats.hashes()))
                await summarize(gid, game.summary(), tokens)
                done += 1
        log.info("summaries filled in", extra={"games": done})
        return done


def _consume(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("release failed", exc_info=task.exception())


def _encode_page(ordinal: int) -> str:
    return base64.urlsafe_b64encode(f"after:{ordinal}".encode()).decode()


def _decode_page(token: str) -> int:
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
        prefix, number = text.split(":")
        if prefix != "after":
            raise ValueError(prefix)
        ordinal = int(number)
        if not 0 <= ordinal < 1 << 63:  # an ordinal is a signed 64-bit number
            raise ValueError(number)
        return ordinal
    except (ValueError, UnicodeError):
        raise invalid("page_token is not a token this server gave", field="page_token") from None
