"""Assembling and running the server: storage, registry, gRPC, health, reflection."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import gc
import importlib
import importlib.util
import logging
import os
import signal
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from server.game.authority import Limits
from server.game.fanout import End
from server.game.hooks import Hooks
from server.node.forward import NODE_PREFIX, Forwarder
from server.node.registry import Registry
from server.play.autoplay import Autoplay
from server.play.botseats import BotConfig, BotRunner
from server.play.webhooks import WebhookConfig, Webhooks
from server.rpc import codec
from server.rpc.limits import MAX_MESSAGE_BYTES, ClientLimits, Guard
from server.rpc.metrics import Metrics
from server.rpc.service import SERVICE, GameService, generic_handler
from server.rpc.tls import TlsFiles, add_port
from server.storage import open_store
from server.storage.base import Store

log = logging.getLogger(__name__)

T = TypeVar("T")

#: gRPC server options: room for bursts of new calls.
SERVER_OPTIONS = [
    ("grpc.server.max_pending_requests", 20000),
    ("grpc.server.max_pending_requests_hard_limit", 40000),
    # No request is read into memory past this (server.rpc.limits has each method's).
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    # A port another process holds is refused, never shared (gRPC's default shares it).
    ("grpc.so_reuseport", 0),
]


#: Seconds between looks at the node's health.
HEALTH_EVERY = 0.1
#: Seconds between checks that the node's address answers as the node.
ADDRESS_EVERY = 5.0


class AddressTaken(RuntimeError):
    """Another live node answers at the address this node was to have."""


@dataclass(frozen=True)
class Config:
    """Everything that can be set from the command line or the environment."""

    #: Where to listen: this machine only unless told otherwise ("[::]": everywhere).
    host: str = "127.0.0.1"
    port: int = 50051
    data_dir: Path = Path("data")
    synchronous: str = "FULL"
    grace: float = 5.0
    limits: Limits = field(default_factory=Limits)
    bots: BotConfig = field(default_factory=BotConfig)
    #: A file to write the bound port to once listening.
    port_file: Path | None = None
    #: A ``postgresql://`` URL, or a SQLite file; None: SQLite in ``data_dir``.
    database: str | None = None
    #: Where other nodes reach this one (default: 127.0.0.1 and the bound port).
    advertise: str | None = None
    #: Seconds a game nobody plays or watches here stays in memory.
    idle: float = 30.0
    #: Seconds a node's lease on its games lasts without renewal (shared stores).
    lease: float = 1.5
    #: Per-client limits (new games, open watches).
    clients: ClientLimits = field(default_factory=ClientLimits)
    #: Serve Prometheus metrics on this port (0: a free one); None: not at all.
    metrics_port: int | None = None
    #: A token ``/metrics`` asks for (``Authorization: Bearer``); None: open to whoever
    #: reaches the port (which is on ``host``).
    metrics_token: str | None = None
    #: The secret nodes vouch for forwarded callers with (None: the one kept in the
    #: shared database, made at random by the first node).
    cluster_secret: str | None = None
    #: Serve TLS with this certificate and key; None: plain text.
    tls: TlsFiles | None = None
    #: Seconds an open game that no person joined is kept before it is deleted (0: for ever).
    open_game_ttl: float = 3600.0
    #: Turn webhooks: the allowed URL prefixes, retries and queue.
    webhooks: WebhookConfig = field(default_factory=WebhookConfig)


class RunningServer:
    """A started server: its port, registry and store, and how to stop it."""

    def __init__(
        self,
        server: grpc.aio.Server,
        port: int,
        registry: Registry,
        store: Store,
        health: HealthServicer,
        *,
        runner: BotRunner,
        webhooks: Webhooks,
        forwarder: Forwarder,
        metrics: Metrics | None = None,
        metrics_port: int | None = None,
        address: str = "",
    ) -> None:
        self.metrics = metrics or Metrics()
        #: Where ``/metrics`` is served, if it is.
        self.metrics_port = metrics_port
        self.runner = runner
        self.webhooks = webhooks
        self.forwarder = forwarder
        self.server = server
        self.port = port
        self.registry = registry
        self.store = store
        self.health = health
        #: Why the node is unhealthy now (empty: it serves).
        self.problems: list[str] = []
        #: Where other nodes reach this one ("" for a store no other node shares).
        self.address = address
        self._checking = asyncio.ensure_future(self._check_health())
        self._checking_address = asyncio.ensure_future(self._check_address())

    async def _check_address(self) -> None:
        """Now and then: does this node's address answer as this node? If not (a wrong
        ``--advertise``), no other node can forward to it: it owns no game until it does."""
        if not self.address or not self.store.node:
            return
        wrong: str | None = None
        while True:
            try:
                answers = await self.forwarder.answers_as(self.address, self.store.node)
            except Exception:
                log.exception("checking this node's address failed")
                answers = False
            found = None if answers else f"address {self.address} does not answer as this node"
            if found != wrong:
                if found:
                    log.error("wrong address", extra={"address": self.address})
                else:
                    log.info("address answers as this node", extra={"address": self.address})
                self.store.refuse(found)
                wrong = found
            await asyncio.sleep(ADDRESS_EVERY)

    async def _check_health(self) -> None:
        """Keep the health status NOT_SERVING while the node cannot serve its games
        (a task of its store ended, its lease is not renewed, its address is wrong),
        and log each change."""
        while True:
            try:
                problems = self.registry.problems()
            except Exception:
                log.exception("looking at the node's health failed")
                problems = ["its health cannot be known"]
            if problems != self.problems:
                if problems:
                    log.error("unhealthy", extra={"problems": problems})
                else:
                    log.info("healthy again")
                status = (
                    health_pb2.HealthCheckResponse.NOT_SERVING
                    if problems
                    else health_pb2.HealthCheckResponse.SERVING
                )
                for name in ("", SERVICE):
                    await self.health.set(name, status)
                self.problems = problems
            await asyncio.sleep(HEALTH_EVERY)

    async def stop(self, grace: float = 5.0) -> None:
        """Graceful shutdown: stop serving, end watches, finish calls, flush the log."""
        self._checking.cancel()
        self._checking_address.cancel()
        await self.health.enter_graceful_shutdown()
        self.registry.close(End.SHUTDOWN)
        await self.server.stop(grace)
        self.runner.close()
        await self.forwarder.close()
        await self.webhooks.close()
        await self.store.stop()
        self.metrics.close()
        log.info("stopped", extra={"commits": self.store.commits, "writes": self.store.writes})


async def start(config: Config) -> RunningServer:
    """Open the store and start serving on ``config.port``; no stored game is read."""
    # A burst of new calls (hundreds of watches opening at once) waits in gRPC's
    # queue of calls not yet taken by the event loop; past its default limits
    # (1000 soft, 3000 hard) gRPC cancels new calls outright with CANCELLED.
    server = grpc.aio.server(options=SERVER_OPTIONS)
    try:
        port = add_port(server, f"{config.host}:{config.port}", config.tls)
    except RuntimeError:
        if config.host != "[::]":
            raise
        port = add_port(server, f"0.0.0.0:{config.port}", config.tls)
    host = config.host if config.host not in ("[::]", "0.0.0.0", "::") else "127.0.0.1"
    address = config.advertise or f"{host}:{port}"
    store = open_store(
        config.database,
        config.data_dir,
        synchronous=config.synchronous,
        address=address,
        lease=config.lease,
    )
    await store.start()
    metrics = Metrics()
    runner = BotRunner(config.bots, metrics)
    webhooks = Webhooks(config.webhooks)
    hooks = Hooks(codec=codec, self_play=lambda game: Autoplay(game, runner), notices=webhooks)
    registry = Registry(
        store,
        hooks,
        config.limits,
        idle=config.idle,
        open_game_ttl=config.open_game_ttl,
    )
    await registry.start()
    metrics.count_games(lambda: len(registry))
    forwarder = Forwarder(
        config.tls.peer_credentials() if config.tls else None,
        alive=store.alive,
        patience=config.lease / 3,
        secret=config.cluster_secret.encode()
        if config.cluster_secret
        else await store.cluster_secret(),
    )
    service = GameService(registry, webhooks, Guard(config.clients), metrics)
    server.add_generic_rpc_handlers((generic_handler(service, forwarder),))
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        (
            SERVICE,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    metrics_port = None
    if config.metrics_port is not None:
        tls = config.tls
        metrics_port = metrics.serve(
            config.host.strip("[]"),
            config.metrics_port,
            certfile=str(tls.cert) if tls else None,
            keyfile=str(tls.key) if tls else None,
            token=config.metrics_token,
        )
    if store.node:
        await health.set(NODE_PREFIX + store.node, health_pb2.HealthCheckResponse.SERVING)
    await server.start()
    if store.shared:
        try:
            await _claim(address, store, forwarder)
        except AddressTaken:
            await server.stop(0)
            runner.close()
            await forwarder.close()
            await store.stop()
            raise
    for name in ("", SERVICE):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info(
        "listening",
        extra={
            "port": port,
            "pid": os.getpid(),
            "store": store.description,
            "tls": config.tls is not None,
            "metrics_port": metrics_port,
        },
    )
    if config.port_file is not None:
        temporary = config.port_file.with_name(config.port_file.name + ".tmp")
        temporary.write_text(f"{port}\n")
        os.replace(temporary, config.port_file)
    return RunningServer(
        server,
        port,
        registry,
        store,
        health,
        runner=runner,
        webhooks=webhooks,
        forwarder=forwarder,
        metrics=metrics,
        metrics_port=metrics_port,
        address=address if store.shared else "",
    )


async def _claim(address: str, store: Store, forwarder: Forwarder) -> None:
    """Take ``address`` among the nodes: refused (AddressTaken) if another live node
    answers there as itself; nodes registered there that do not are gone."""
    holders = await store.holders(address)
    for node in holders:
        if await forwarder.answers_as(address, node):
            log.error("address taken", extra={"address": address, "node": node})
            raise AddressTaken(f"node {node} is alive at {address}: give this node another address")
    if holders:
        # This process holds the address now: their games need not wait for their leases.
        await store.retire(holders)


#: Allocations between young-generation collections (Python's default is 700).
GC_THRESHOLD = (50_000, 20, 20)


def _tune_gc() -> None:
    """Fewer, cheaper garbage collections for a long-running server.

    Every message allocates many short-lived objects; at the default threshold
    the collector runs every few messages and keeps rescanning the long-lived
    games. The objects alive after start-up (modules, restored games) are moved
    out of the collector's sight, and young collections run less often.
    """
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


#: Seconds between looks at whether freed memory can go back to the operating system.
TRIM_EVERY = 1.0
#: Writes in one such second above which the server is busy and keeps its memory.
BUSY_WRITES = 20


async def _return_memory(writes: Callable[[], int]) -> None:
    """After a quiet second: collect the young garbage and give freed memory back.

    With the raised threshold an idle server would collect nothing, so what
    refused requests left behind in reference cycles stayed; and the C
    allocator keeps freed blocks (gRPC's threads allocate in arenas of their
    own) until told to trim them. A busy server (more than ``BUSY_WRITES``
    writes a second, ``writes`` counting them) skips it: it would reuse the
    memory at once, and trimming a large heap every second costs about a
    quarter of its processor time.
    """
    trim = _malloc_trim()
    last = writes()
    while True:
        await asyncio.sleep(TRIM_EVERY)
        now = writes()
        busy, last = now - last > BUSY_WRITES, now
        if busy:
            continue
        gc.collect(1)
        if trim is not None:
            trim(0)


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where there is none."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


async def serve(config: Config) -> None:
    """Run until SIGINT or SIGTERM, then shut down gracefully."""
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stopping.set)
    running = await start(config)
    _tune_gc()
    trimming = asyncio.ensure_future(_return_memory(lambda: running.store.writes))
    await stopping.wait()
    trimming.cancel()
    log.info("shutting down")
    await running.stop(config.grace)


#: Event loops ``run`` can use: auto is uvloop where it is installed.
EVENT_LOOPS = ("auto", "uvloop", "asyncio")


def loop_factory(event_loop: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory of the event loop named ``event_loop`` (None: asyncio's own)."""
    if event_loop not in EVENT_LOOPS:
        raise ValueError(f"event_loop must be one of {EVENT_LOOPS}")
    if event_loop == "asyncio" or (
        event_loop == "auto" and importlib.util.find_spec("uvloop") is None
    ):
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = importlib.import_module(
        "uvloop"
    ).new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], event_loop: str = "auto") -> T:
    """Run ``main`` to the end on a new event loop (uvloop's is the faster)."""
    with asyncio.Runner(loop_factory=loop_factory(event_loop)) as runner:
        return runner.run(main)
