"""Turn webhooks: the server calls a game's URL when a seat is to decide and when it ends.

A game created with ``GameSettings.webhook_url`` gets a secret of its own
(returned once, in ``CreateGameResponse.webhook_secret``, and kept with the
game's stored settings so it survives a restart). The server then POSTs a JSON
body to that URL

* when the seat that must decide changes (the game started, a turn passed, a
  chain reaction handed a decision to another seat, a take-back gave it back),
* and once when the game is over,

signed with ``X-Tongiaki-Signature: <hex HMAC-SHA256 of the body with the
secret>``. Only URLs that start with a prefix the operator allowed
(``--webhook-prefix``) are accepted, so nobody can make the server call an
address of their choosing; redirects are never followed.

Delivery never blocks a game: a notice goes into a bounded queue and is sent by
worker threads; a failed call (no answer, a timeout, 408, 429 or 5xx) is tried
again after a growing pause, up to ``attempts`` times in all. When the queue
is full a notice is dropped and counted. Notices are delivered at least once
(a retry may follow a call whose answer was lost), not necessarily in order:
receivers order and de-duplicate them by ``game`` and ``sequence``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from engine import Game
from server.game.errors import ServerReason, ServiceError, invalid

log = logging.getLogger(__name__)

#: The version of the body; it changes only when a field changes meaning or goes away.
VERSION = 1
#: Longest webhook URL accepted, in characters.
MAX_URL = 2000
#: The header holding the body's signature.
SIGNATURE_HEADER = "X-Tongiaki-Signature"
#: Answers after which a delivery is tried again; any other non-2xx answer is final.
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


class Notice:
    """The kinds of webhook call (the body's ``type``)."""

    #: A seat is to decide.
    DECISION = "decision"
    #: The game is over.
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class WebhookConfig:
    """The operator's webhook settings."""

    #: URL prefixes a game's webhook URL must start with; none allows no webhooks.
    allowed_prefixes: tuple[str, ...] = ()
    #: Calls tried per notice, the first included.
    attempts: int = 6
    #: Pause before the first retry, in seconds; each retry doubles it (with jitter).
    backoff: float = 0.5
    #: Longest pause between two tries, in seconds.
    max_backoff: float = 30.0
    #: Seconds one call may take.
    timeout: float = 5.0
    #: Notices waiting (or waiting for a retry) at most; more are dropped.
    queue: int = 1000
    #: Calls made at the same time.
    workers: int = 4


def prefixes_from_text(text: str) -> tuple[str, ...]:
    """Allowed prefixes from an environment variable: separated by spaces or commas."""
    return tuple(p for p in text.replace(",", " ").split() if p)


def check_url(url: str, allowed: Sequence[str]) -> None:
    """Refuse ``url`` unless it is a plain http(s) URL under one of the ``allowed`` prefixes.

    A prefix matches at a boundary only: ``https://hooks.example`` allows
    ``https://hooks.example/turns`` but not ``https://hooks.example.evil/``.
    """
    if len(url) > MAX_URL:
        raise invalid(f"webhook_url is longer than {MAX_URL} characters", field="webhook_url")
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise invalid("webhook_url holds spaces or control characters", field="webhook_url")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise invalid("webhook_url must be an http or https URL", field="webhook_url")
    if "@" in parts.netloc:
        raise invalid("webhook_url must not hold a user name or password", field="webhook_url")
    segments = urllib.parse.unquote(parts.path).split("/")
    if "." in segments or ".." in segments:
        raise invalid("webhook_url must not hold . or .. path segments", field="webhook_url")
    if not any(_under(url, prefix) for prefix in allowed):
        raise ServiceError(
            ServerReason.WEBHOOK_NOT_ALLOWED,
            "webhook_url does not start with a prefix this server allows",
            field="webhook_url",
        )


def _under(url: str, prefix: str) -> bool:
    if not url.startswith(prefix):
        return False
    return len(url) == len(prefix) or prefix.endswith("/") or url[len(prefix)] in "/?#"


def sign(secret: str, body: bytes) -> str:
    """The signature of ``body``: hex HMAC-SHA256 keyed with the game's secret."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def new_secret() -> str:
    """A game's webhook secret: 256 random bits, hex."""
    return secrets.token_hex(32)


@dataclass
class _Delivery:
    url: str
    secret: str
    body: bytes
    kind: str
    id: str
    attempt: int = 0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answers like any other: following one could leave the allowed prefixes."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Webhooks:
    """Checks webhook URLs at creation, and sends the notices of every game."""

    def __init__(self, config: WebhookConfig | None = None) -> None:
        self.config = config or WebhookConfig()
        self._opener = urllib.request.build_opener(_NoRedirect)
        self._queue: asyncio.Queue[_Delivery] | None = None
        self._workers: list[asyncio.Task[None]] = []
        self._retries: set[asyncio.TimerHandle] = set()
        self._executor: ThreadPoolExecutor | None = None
        self._closed = False
        #: Calls answered with 2xx, notices given up after their last try, dropped on a
        #: full queue, and retries scheduled.
        self.delivered = 0
        self.failed = 0
        self.dropped = 0
        self.retried = 0

    # ------------------------------------------------------------ creating games

    def settings(self, url: str) -> dict[str, str]:
        """The stored settings of a new game's ``webhook_url`` (checked), with its new secret."""
        if not url:
            return {}
        check_url(url, self.config.allowed_prefixes)
        return {"webhook_url": url, "webhook_secret": new_secret()}

    # ------------------------------------------------------------ noticing changes

    @staticmethod
    def turn(game: Game | None) -> str | None:
        """Who decides in ``game`` now (None before the start and after the end)."""
        decision = game.decision if game is not None else None
        return decision.player if decision is not None else None

    def changed(
        self,
        before: str | None,
        *,
        name: str,
        settings: Mapping[str, Any],
        sequence: int,
        game: Game | None,
        bots: Mapping[str, str],
    ) -> None:
        """After a change of game ``name``: queue its notice if the decider changed or it ended.

        ``before`` is :meth:`turn` before the change. Never blocks, never raises.
        """
        url = settings.get("webhook_url")
        if not url or game is None or self._closed:
            return
        decision = game.decision
        body: dict[str, Any]
        if decision is not None:
            if decision.player == before:
                return
            body = {
                "type": Notice.DECISION,
                "player": f"COLOUR_{decision.player.upper()}",
                "kind": f"DECISION_KIND_{decision.kind.upper()}",
                "bot": decision.player in bots,
            }
        elif game.over and before is not None:
            result = game.result or {}
            body = {
                "type": Notice.GAME_OVER,
                "results": [
                    {
                        "colour": f"COLOUR_{c.upper()}",
                        "points": points,
                        "islands": result["islands"][c],
                        "ships": result["ships"][c],
                        "rank": result["rank"][c],
                    }
                    for c, points in result.get("points", {}).items()
                ],
            }
        else:
            return
        delivery_id = str(uuid.uuid4())
        body = {
            "version": VERSION,
            "delivery": delivery_id,
            "game": name,
            "sequence": sequence,
            "time": round(time.time(), 3),
            **body,
        }
        encoded = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        self._enqueue(
            _Delivery(str(url), str(settings["webhook_secret"]), encoded, body["type"], delivery_id)
        )

    # ------------------------------------------------------------ delivering

    def _pending(self) -> int:
        return (self._queue.qsize() if self._queue is not None else 0) + len(self._retries)

    def _enqueue(self, delivery: _Delivery) -> None:
        if self._closed:
            return
        if self._queue is None:
            self._start()
        assert self._queue is not None
        if self._pending() >= self.config.queue:
            self.dropped += 1
            log.warning("webhook dropped: queue full", extra={"delivery": delivery.id})
            return
        self._queue.put_nowait(delivery)

    def _start(self) -> None:
        self._queue = asyncio.Queue()
        self._executor = ThreadPoolExecutor(self.config.workers, thread_name_prefix="webhook")
        self._workers = [
            asyncio.ensure_future(self._work()) for _ in range(max(1, self.config.workers))
        ]

    async def _work(self) -> None:
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        while True:
            delivery = await self._queue.get()
            delivery.attempt += 1
            try:
                status = await loop.run_in_executor(self._executor, self._post, delivery)
            except RuntimeError:  # the executor was shut down: the server is stopping
                return
            if 200 <= status < 300:
                self.delivered += 1
                continue
            retry = status in RETRY_STATUSES or status < 0
            if retry and delivery.attempt < self.config.attempts and not self._closed:
                self._retry_later(delivery)
                continue
            self.failed += 1
            log.warning(
                "webhook failed",
                extra={"delivery": delivery.id, "status": status, "attempts": delivery.attempt},
            )

    def _retry_later(self, delivery: _Delivery) -> None:
        pause = min(self.config.max_backoff, self.config.backoff * 2 ** (delivery.attempt - 1))
        pause *= random.uniform(0.75, 1.0)  # spread the retries of many games out
        self.retried += 1
        loop = asyncio.get_running_loop()

        def again() -> None:
            self._retries.discard(handle)
            if self._queue is not None and not self._closed:
                self._queue.put_nowait(delivery)

        handle = loop.call_later(pause, again)
        self._retries.add(handle)

    def _post(self, delivery: _Delivery) -> int:
        """One call (in a worker thread): the HTTP status, or -1 if there was no answer."""
        request = urllib.request.Request(
            delivery.url,
            data=delivery.body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "User-Agent": "tongiaki-webhooks/1",
                SIGNATURE_HEADER: sign(delivery.secret, delivery.body),
                "X-Tongiaki-Event": delivery.kind,
                "X-Tongiaki-Delivery": delivery.id,
            },
        )
        try:
            with self._opener.open(request, timeout=self.config.timeout) as answer:
                answer.read(65536)
                return int(answer.status)
        except urllib.error.HTTPError as error:
            return int(error.code)
        except (OSError, ValueError):
            return -1

    async def close(self) -> None:
        """Stop delivering: notices still waiting are dropped (the server is stopping)."""
        self._closed = True
        for handle in self._retries:
            handle.cancel()
        self._retries.clear()
        for task in self._workers:
            task.cancel()
        for task in self._workers:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._workers = []
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
