"""The fault suite: several nodes on one PostgreSQL, played and watched, and broken on purpose.

Run by the tests (a few games, each fault once) and by
``benchmarks/fault_bench.py`` (more games, more rounds). The faults:

- ``kill``: SIGKILL of the node that owns the most games (its bot workers too
  must end); another node takes each game over.
- ``stop``: SIGSTOP of an owner past its lease, then SIGCONT: the paused node
  gives its games up and serves again.
- ``restart``: ``pg_ctl restart -m fast`` of the database under play: every
  node writes again afterwards.
- ``twice``: throughout, some actions are sent to two nodes at once with the
  same request id: both answers are the same entry.
- ``address``: a node started at another live node's address refuses to
  start; a node started with an address nothing answers at is unhealthy.

Afterwards: every acknowledged action is in the log exactly once, every game
ended, every watcher saw each entry once, and no process is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psycopg
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.launch import launch
from tests.pgcluster import PgCluster, free_port
from tongiaki.v1 import game_pb2 as pb
from tongiaki.v1 import game_service_pb2 as spb
from tongiaki.v1 import game_service_pb2_grpc as rpc

ROOT = Path(__file__).resolve().parents[1]
COLOURS = [pb.COLOUR_YELLOW, pb.COLOUR_ORANGE, pb.COLOUR_RED, pb.COLOUR_GREEN]
FAULTS = ("twice", "kill", "stop", "restart", "address")

#: Status codes a client retries (on another node), as docs/server.md's retry rules say.
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def reason(error: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason of a refusal ('' if it has none)."""
    details = dict(error.trailing_metadata() or ()).get("grpc-status-details-bin")
    if details is None:
        return ""
    info = error_details_pb2.ErrorInfo()
    status = status_pb2.Status.FromString(details)
    return info.reason if status.details and status.details[0].Unpack(info) else ""


def auth(token: str | None) -> list[tuple[str, str]]:
    """Call metadata carrying a seat token."""
    return [] if token is None else [("authorization", "Bearer " + token)]


# ---------------------------------------------------------------- processes


def children(pid: int) -> set[int]:
    """Every living process below ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Node:
    """``python -m server`` on the suite's database, as a process of its own."""

    def __init__(
        self,
        database: str,
        folder: Path,
        *,
        lease: float | None = None,
        advertise: str | None = None,
        wait: bool = True,
    ) -> None:
        command = [
            *("--database", database, "--data-dir", str(folder), "--bot-pace", "0.05"),
            # A bot holds its answer to a person's decision a tenth of a second here
            # (the server's default holds it not at all), so that the hold is run.
            *("--undo-window", "0.1"),
        ]
        if lease is not None:
            command += ["--lease", str(lease)]
        if advertise is not None:
            command += ["--advertise", advertise]
        self.server = launch(command, folder, wait=False)
        self.pid = self.server.pid
        self.address = ""
        if wait:
            self.wait_started()

    def wait_started(self, timeout: float = 60) -> None:
        """Wait until the node listens (it wrote its port)."""
        self.address = self.server.wait_started(timeout).address

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the node."""
        self.server.process.send_signal(sig)

    def stop(self) -> int | None:
        """SIGTERM (then SIGKILL if it hangs); its exit status."""
        if self.server.process.poll() is None:
            self.server.process.send_signal(signal.SIGCONT)
        return self.server.stop(30)


async def healthy(address: str, timeout: float = 2.0) -> bool:
    """Whether the node at ``address`` says it is SERVING."""
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=timeout
            )
        except grpc.aio.AioRpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


# ---------------------------------------------------------------- clients


class Client:
    """Talks to any node: a retryable refusal moves it on to the next node.

    As the retry rules of docs/server.md say.
    """

    def __init__(self, cluster: Cluster, first: int) -> None:
        self.cluster = cluster
        self.at = first
        #: The last retryable refusal met (for a report of games that never ended).
        self.last = ""

    def stub(self, offset: int = 0) -> rpc.GameServiceStub:
        channels = self.cluster.channels()
        return rpc.GameServiceStub(channels[(self.at + offset) % len(channels)])

    async def call(
        self, method: str, request: Any, token: str | None = None, offset: int = 0
    ) -> Any:
        for _ in range(600):
            try:
                call = getattr(self.stub(offset), method)(request, metadata=auth(token), timeout=3)
                # (A guard of this side's own: a call gRPC never ends despite its deadline
                # is given up and counted, and the request sent again.)
                return await asyncio.wait_for(call, 10)
            except TimeoutError:
                self.cluster.failed["CLIENT_CALL_HUNG"] += 1
                self.last = f"a call that never ended, to node {self.at}"
                self.at += 1
                continue
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE:
                    raise
                self.cluster.failed[reason(error) or error.code().name] += 1
                self.last = f"{reason(error) or error.code().name} from node {self.at}"
                self.at += 1
                await asyncio.sleep(0.05)
        raise AssertionError(f"{method} never got through")


async def watch(client: Client, name: str) -> list[bytes]:
    """Every entry of the game, resuming on another node whenever the stream breaks."""
    entries: list[bytes] = []
    after: int | None = None
    while True:
        request = spb.WatchGameRequest(name=name)
        if after is not None:
            request.after_sequence = after
        try:
            async for message in client.stub().WatchGame(request):
                if message.HasField("snapshot"):
                    after = message.snapshot.sequence
                for entry in message.entries:
                    entries.append(entry.SerializeToString())
                    after = entry.sequence
                if message.caught_up:
                    after = message.sequence
            return entries
        except grpc.aio.AioRpcError as error:
            if error.code() not in (*RETRYABLE, grpc.StatusCode.ABORTED):
                raise
            client.at += 1
            await asyncio.sleep(0.05)


#: What each player is doing now, and the last refusal it met (for a report of
#: games that never ended).
DOING: dict[str, str] = {}
LAST: dict[str, Client] = {}


async def play(
    client: Client, name: str, tokens: dict[int, str], acked: dict[int, bytes], doubled: list[str]
) -> None:
    """Play the people's seats at random until the game ends; every fifth action is
    sent to two nodes at once with the same request id."""
    rng = random.Random(name)
    LAST[name] = client
    while True:
        DOING[name] = "GetGame"
        snapshot = (await client.call("GetGame", spb.GetGameRequest(name=name))).snapshot
        DOING[name] = f"at {snapshot.sequence}, {snapshot.view.decision.player} to move"
        if snapshot.game.state == pb.GAME_STATE_FINISHED:
            return
        decision = snapshot.view.decision
        if decision.player not in tokens:  # a bot's turn
            await asyncio.sleep(0.02)
            continue
        request = spb.SubmitActionRequest(
            name=name,
            sequence=snapshot.sequence,
            request_id=f"r{snapshot.sequence}",
            action=rng.choice(list(decision.options)),
        )
        token = tokens[decision.player]
        DOING[name] = f"SubmitAction {request.request_id}"
        try:
            if rng.random() < 0.2:
                one, two = await asyncio.gather(
                    client.call("SubmitAction", request, token),
                    client.call("SubmitAction", request, token, offset=1),
                )
                if one.entry != two.entry:
                    doubled.append(f"{name}: two answers to {request.request_id}")
                reply = one
            else:
                reply = await client.call("SubmitAction", request, token)
        except grpc.aio.AioRpcError as error:
            if reason(error) in ("STALE_SEQUENCE", "NOT_YOUR_TURN", "GAME_OVER"):
                continue
            raise
        acked[reply.entry.sequence] = reply.entry.SerializeToString()
        await asyncio.sleep(rng.random() * 0.03)


# ---------------------------------------------------------------- the suite


@dataclass
class Report:
    """What the suite injected and found."""

    faults: Counter[str] = field(default_factory=Counter)
    #: Seconds from a node's death (kill) or pause (stop) to each of its games'
    #: owner changing (or the game ending), by fault.
    takeover: dict[str, list[float]] = field(default_factory=dict)
    #: Retryable refusals clients met, by reason, per fault (from injection to recovery).
    failed: dict[str, dict[str, int]] = field(default_factory=dict)
    games: int = 0
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    watch_mismatches: list[str] = field(default_factory=list)
    unwritable_after_restart: int = 0
    processes_left: list[int] = field(default_factory=list)
    address_faults: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        """The report as printed (takeover percentiles, counts)."""
        takeover: dict[str, dict[str, float]] = {}
        for fault, times in self.takeover.items():
            ordered = sorted(times)
            if ordered:
                takeover[fault] = {
                    "games": len(ordered),
                    "p50": round(statistics.median(ordered), 3),
                    "p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 3),
                    "max": round(ordered[-1], 3),
                }
        return {
            "faults": dict(self.faults),
            "games": self.games,
            "acknowledged": self.acknowledged,
            "lost": len(self.lost),
            "doubled": len(self.doubled),
            "unfinished": len(self.unfinished),
            "watch_mismatches": len(self.watch_mismatches),
            "unwritable_after_restart": self.unwritable_after_restart,
            "processes_left": len(self.processes_left),
            "address_faults": self.address_faults,
            "takeover_seconds": takeover,
            "failed_calls": self.failed,
        }

    @property
    def ok(self) -> bool:
        """Whether nothing was lost, doubled, misreported, stuck or left behind."""
        return not (
            self.lost
            or self.doubled
            or self.unfinished
            or self.watch_mismatches
            or self.unwritable_after_restart
            or self.processes_left
            or self.address_faults
        )


class Cluster:
    """The nodes of the suite, and the channels clients use."""

    def __init__(self, pg: PgCluster, database: str, folder: Path, lease: float | None) -> None:
        self.pg = pg
        self.database = database
        self.folder = folder
        self.lease = lease
        self.nodes: list[Node] = []
        self.started = 0
        self._channels: dict[str, grpc.aio.Channel] = {}
        self.failed: Counter[str] = Counter()
        self.pids: set[int] = set()

    def add(self) -> Node:
        node = Node(self.database, self.folder / f"node{self.started}", lease=self.lease)
        self.started += 1
        self.nodes.append(node)
        self.pids.add(node.pid)
        return node

    def channels(self) -> list[grpc.aio.Channel]:
        found = []
        for node in self.nodes:
            channel = self._channels.get(node.address)
            if channel is None:
                channel = self._channels[node.address] = grpc.aio.insecure_channel(node.address)
            found.append(channel)
        return found

    async def owners(self) -> dict[str, list[str]]:
        """Running games by owning node address."""
        async with await psycopg.AsyncConnection.connect(self.database) as conn:
            cursor = await conn.execute(
                "SELECT n.address, g.id FROM games g JOIN nodes n ON n.id = g.owner"
                " WHERE g.state <> 'finished' AND n.lease_until > clock_timestamp()"
            )
            found: dict[str, list[str]] = {}
            for address, gid in await cursor.fetchall():
                found.setdefault(address, []).append(gid)
        return found

    async def wait_moved(self, games: list[str], gone: str, since: float) -> list[float]:
        """Seconds (from ``since``) until each game's owner is a living node other than ``gone``."""
        waiting = set(games)
        times: list[float] = []
        deadline = time.monotonic() + 60
        async with await psycopg.AsyncConnection.connect(self.database) as conn:
            while waiting and time.monotonic() < deadline:
                cursor = await conn.execute(
                    "SELECT g.id FROM games g JOIN nodes n ON n.id = g.owner"
                    " WHERE g.id = ANY (%s) AND n.address <> %s"
                    " AND n.lease_until > clock_timestamp()"
                    " UNION SELECT id FROM games WHERE id = ANY (%s) AND state = 'finished'",
                    (list(waiting), gone, list(waiting)),
                )
                now = time.monotonic() - since
                for (gid,) in await cursor.fetchall():
                    waiting.discard(gid)
                    times.append(now)
                await asyncio.sleep(0.02)
        return times

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
        for node in self.nodes:
            node.stop()


async def _create(cluster: Cluster, i: int) -> tuple[str, dict[int, str]]:
    client = Client(cluster, i)
    seats = COLOURS[: 2 + i % 3]
    settings = pb.GameSettings()
    if i % 2:  # a bot seat: the node's bot workers play it
        settings.bots.add(colour=seats[-1], level=pb.BOT_LEVEL_RANDOM)
    created = await client.call("CreateGame", spb.CreateGameRequest(seats=seats, settings=settings))
    name = created.game.name
    tokens = {}
    for _ in range(len(seats) - (i % 2)):
        joined = await client.call("JoinGame", spb.JoinGameRequest(name=name))
        tokens[joined.colour] = joined.seat_token
    await client.call("StartGame", spb.StartGameRequest(name=name), tokens[seats[0]])
    return name, tokens


async def run(
    pg: PgCluster,
    folder: Path,
    *,
    games: int = 12,
    nodes: int = 3,
    rounds: int = 1,
    faults: tuple[str, ...] = FAULTS,
    lease: float | None = None,
    log: Any = None,
) -> Report:
    """Run the suite on ``pg`` (a new database of it); the report."""
    say = log or (lambda text: None)
    database = pg.create_database()
    report = Report(games=games)
    cluster = Cluster(pg, database, folder, lease)
    try:
        for _ in range(nodes):
            cluster.add()
        made = [await _create(cluster, i) for i in range(games)]
        acked: dict[str, dict[int, bytes]] = {name: {} for name, _ in made}
        watchers = [
            asyncio.ensure_future(watch(Client(cluster, i + k), name))
            for i, (name, _) in enumerate(made)
            for k in range(2)
        ]
        players = [
            asyncio.ensure_future(
                play(Client(cluster, i + 1), name, tokens, acked[name], report.doubled)
            )
            for i, (name, tokens) in enumerate(made)
        ]
        await asyncio.sleep(1.0)
        if "twice" in faults:
            report.faults["twice"] += 1
        for _ in range(rounds):
            for fault in faults:
                if fault == "twice" or all(p.done() for p in players):
                    continue
                before = Counter(cluster.failed)
                say(f"fault: {fault}")
                await _inject(fault, cluster, report)
                report.faults[fault] += 1
                spent = cluster.failed - before
                into = report.failed.setdefault(fault, {})
                for key, count in spent.items():
                    into[key] = into.get(key, 0) + count
                await asyncio.sleep(0.5)
        before = Counter(cluster.failed)
        done, pending = await _played_out(cluster, [name for name, _ in made], players)
        report.failed["after the faults"] = dict(cluster.failed - before)
        for task in pending:
            task.cancel()
        for task in done:
            if task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
        _, unwatched = await asyncio.wait(watchers, timeout=60)
        for watcher in unwatched:
            watcher.cancel()
        await _check(cluster, made, acked, watchers, report)
    finally:
        await cluster.close()
        await asyncio.sleep(1.0)  # the lifeline of a worker looks twice a second
        report.processes_left = sorted(pid for pid in cluster.pids if alive(pid))
    return report


#: Seconds without any game's log growing after which the games still running are
#: given up as stopped (a slow machine slows them, it does not stop them).
STOPPED_AFTER = 60.0


async def _played_out(
    cluster: Cluster, names: list[str], players: list[asyncio.Task[None]]
) -> tuple[set[asyncio.Task[None]], set[asyncio.Task[None]]]:
    """Wait for the players to end their games, as long as the games move on."""
    ids = [name.removeprefix("games/") for name in names]
    moved, last = time.monotonic(), -1
    async with await psycopg.AsyncConnection.connect(cluster.database, autocommit=True) as conn:
        while True:
            done, pending = await asyncio.wait(players, timeout=5)
            if not pending:
                return done, pending
            cursor = await conn.execute(
                "SELECT coalesce(sum(sequence), 0) FROM games WHERE id = ANY (%s)", (ids,)
            )
            row = await cursor.fetchone()
            total = int(row[0]) if row is not None else 0
            if total != last:
                moved, last = time.monotonic(), total
            elif time.monotonic() - moved > STOPPED_AFTER:
                return done, pending


async def _inject(fault: str, cluster: Cluster, report: Report) -> None:
    if fault in ("kill", "stop"):
        owners = await cluster.owners()
        victim = max(
            (n for n in cluster.nodes if n.address in owners),
            key=lambda n: len(owners[n.address]),
            default=None,
        )
        if victim is None:
            return
        games = owners[victim.address]
        workers = children(victim.pid)
        cluster.pids |= workers
        since = time.monotonic()
        if fault == "kill":
            victim.signal(signal.SIGKILL)
            victim.server.process.wait()
            cluster.nodes.remove(victim)
            moved = await cluster.wait_moved(games, victim.address, since)
            report.takeover.setdefault(fault, []).extend(moved)
            cluster.add()
        else:
            victim.signal(signal.SIGSTOP)
            moved = await cluster.wait_moved(games, victim.address, since)
            report.takeover.setdefault(fault, []).extend(moved)
            await asyncio.sleep(0.5)
            victim.signal(signal.SIGCONT)
            deadline = time.monotonic() + 30
            while not await healthy(victim.address):
                if time.monotonic() > deadline:
                    report.address_faults.append("a paused node did not serve again")
                    break
                await asyncio.sleep(0.1)
    elif fault == "restart":
        await asyncio.to_thread(cluster.pg.restart)
        deadline = time.monotonic() + 30
        for node in list(cluster.nodes):
            while True:
                try:
                    async with grpc.aio.insecure_channel(node.address) as channel:
                        await rpc.GameServiceStub(channel).CreateGame(
                            spb.CreateGameRequest(seats=COLOURS[:2]), timeout=5
                        )
                    break
                except grpc.aio.AioRpcError:
                    if time.monotonic() > deadline:
                        report.unwritable_after_restart += 1
                        break
                    await asyncio.sleep(0.1)
    elif fault == "address":
        taken = Node(
            cluster.database,
            cluster.folder / "taken",
            advertise=cluster.nodes[0].address,
            wait=False,
        )
        cluster.pids.add(taken.pid)
        try:
            status = await asyncio.to_thread(taken.server.process.wait, 60)
        except subprocess.TimeoutExpired:
            status = None
        if status in (None, 0):
            report.address_faults.append("a node started at another live node's address")
        taken.stop()
        closed = f"127.0.0.1:{free_port()}"
        wrong = Node(cluster.database, cluster.folder / "wrong", advertise=closed)
        cluster.pids.add(wrong.pid)
        deadline = time.monotonic() + 30
        while await healthy(wrong.address):
            if time.monotonic() > deadline:
                report.address_faults.append("a node with a wrong address stayed healthy")
                break
            await asyncio.sleep(0.1)
        wrong.stop()


async def _check(
    cluster: Cluster,
    made: list[tuple[str, dict[int, str]]],
    acked: dict[str, dict[int, bytes]],
    watchers: list[asyncio.Task[list[bytes]]],
    report: Report,
) -> None:
    client = Client(cluster, 0)
    async with await psycopg.AsyncConnection.connect(cluster.database) as conn:
        for i, (name, _) in enumerate(made):
            gid = name.removeprefix("games/")
            log = (
                await client.call(
                    "ListGameEntries", spb.ListGameEntriesRequest(name=name, page_size=2000)
                )
            ).entries
            encoded = [e.SerializeToString() for e in log]
            game = (await client.call("GetGame", spb.GetGameRequest(name=name))).snapshot.game
            if game.state != pb.GAME_STATE_FINISHED:
                report.unfinished.append(
                    f"{name}: {DOING.get(name)} ({getattr(LAST.get(name), 'last', '')})"
                )
            if [e.sequence for e in log] != list(range(1, len(log) + 1)):
                report.lost.append(f"{name}: gaps in the log")
            for sequence, entry in acked[name].items():
                report.acknowledged += 1
                if sequence > len(encoded) or encoded[sequence - 1] != entry:
                    report.lost.append(f"{name}: acknowledged entry {sequence}")
            cursor = await conn.execute(
                "SELECT body FROM entries WHERE game = %s AND kind = 'acted'", (gid,)
            )
            requests = Counter(
                json.loads(body).get("request") for (body,) in await cursor.fetchall()
            )
            requests.pop("", None)
            requests.pop(None, None)
            report.doubled += [
                f"{name}: {r} applied {n} times" for r, n in requests.items() if n > 1
            ]
            for k in range(2):
                task = watchers[2 * i + k]
                seen = (
                    task.result()
                    if task.done() and not task.cancelled() and task.exception() is None
                    else None
                )
                if (
                    seen is None
                    or seen != encoded[len(encoded) - len(seen) :]
                    or len(set(seen)) != len(seen)
                ):
                    report.watch_mismatches.append(f"{name}: watcher {k}")
