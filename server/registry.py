"""The registry: every game by name, seat tokens, paging, and loading from the log."""

from __future__ import annotations

import base64
import bisect
import logging
import re
import secrets
import time
from typing import Any

from engine.playout import shuffled_stack
from server.authority import Authority, Limits, hash_token
from server.botseats import BotRunner
from server.errors import ServerReason, ServiceError, invalid
from server.fanout import End
from server.store import Store, StoredGame
from server.webhooks import Webhooks

log = logging.getLogger(__name__)

_NAME = re.compile(r"games/([A-Za-z0-9_-]{1,64})")

#: Largest page of ListGames.
MAX_PAGE = 1000
DEFAULT_PAGE = 50


class Registry:
    """All games of this server."""

    def __init__(
        self,
        store: Store,
        limits: Limits | None = None,
        runner: BotRunner | None = None,
        webhooks: Webhooks | None = None,
    ) -> None:
        #: Checks new games' webhook URLs and sends every game's notices.
        self.webhooks = webhooks or Webhooks()
        self._store = store
        self._runner = runner
        self._limits = limits or Limits()
        self._games: dict[str, Authority] = {}
        self._order: list[Authority] = []
        self._tokens: dict[str, str] = {}  # token hash -> game id

    def load(self) -> int:
        """Rebuild every game from the store; returns how many there are."""
        for stored in self._store.load():
            self._add(
                Authority(
                    stored,
                    self._store,
                    self._limits,
                    self._tokens,
                    self._runner,
                    webhooks=self.webhooks,
                )
            )
        return len(self._order)

    def resume(self) -> None:
        """Let the bots and turn clocks of loaded games run (the event loop is running)."""
        for game in self._order:
            game.resume()

    def _add(self, game: Authority) -> None:
        self._games[game.id] = game
        self._order.append(game)

    async def create(self, seats: list[str], settings: dict[str, Any]) -> Authority:
        """A new game with a stack shuffled from a secret seed; durable before it is returned."""
        ordinal = self._order[-1].ordinal + 1 if self._order else 1
        stored = StoredGame(
            id=secrets.token_hex(8),
            ordinal=ordinal,
            seats=seats,
            stack=shuffled_stack(secrets.randbits(64)),
            settings=settings,
            created=time.time(),
        )
        game = Authority(
            stored, self._store, self._limits, self._tokens, self._runner, webhooks=self.webhooks
        )
        self._add(game)  # before the write, so the next ordinal is taken
        try:
            await self._store.create_game(stored)
        except BaseException:
            del self._games[game.id]
            self._order.remove(game)
            raise
        log.info("game created", extra={"game": game.id, "seats": seats})
        await game.start_bots_only()
        return game

    def find(self, name: str) -> Authority:
        """The game called ``name`` (``games/{game}``)."""
        match = _NAME.fullmatch(name)
        if match is None:
            raise invalid("name must look like games/{game}", field="name")
        game = self._games.get(match.group(1))
        if game is None:
            raise ServiceError(ServerReason.GAME_NOT_FOUND, f"no game {name}", name=name)
        return game

    def seat(self, game: Authority, token: str | None, *, required: bool) -> str | None:
        """The seat ``token`` holds in ``game``; None for a spectator (no token, not required)."""
        if token is None:
            if required:
                raise ServiceError(
                    ServerReason.TOKEN_MISSING,
                    "send the seat token as 'authorization: Bearer <token>'",
                )
            return None
        hashed = hash_token(token)
        colour = game.seat_of(hashed)
        if colour is not None:
            return colour
        if hashed in self._tokens:
            raise ServiceError(
                ServerReason.TOKEN_WRONG_GAME, "the token is a seat of another game", name=game.name
            )
        raise ServiceError(ServerReason.TOKEN_INVALID, "the token is no seat token")

    def page(self, size: int, token: str, state: int) -> tuple[list[Authority], str]:
        """One page of games in creation order, and the token of the next page."""
        if size < 0:
            raise invalid("page_size must not be negative", field="page_size")
        size = min(size or DEFAULT_PAGE, MAX_PAGE)
        after = _decode_page(token) if token else 0
        start = bisect.bisect_right([g.ordinal for g in self._order], after)
        games: list[Authority] = []
        for game in self._order[start:]:
            if state and game.state != state:
                continue
            if len(games) == size:
                return games, _encode_page(games[-1].ordinal)
            games.append(game)
        return games, ""

    def close(self, why: End) -> None:
        """End every watch."""
        for game in self._order:
            game.stop()
            game.hub.close(why)

    def __len__(self) -> int:
        return len(self._order)


def _encode_page(ordinal: int) -> str:
    return base64.urlsafe_b64encode(f"after:{ordinal}".encode()).decode()


def _decode_page(token: str) -> int:
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
        prefix, number = text.split(":")
        if prefix != "after":
            raise ValueError(prefix)
        return int(number)
    except (ValueError, UnicodeError):
        raise invalid("page_token is not a token this server gave", field="page_token") from None
