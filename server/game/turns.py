"""Who must act in a game now: the one rule behind bots, turn clocks and attention.

The game's owner acts by itself when a bot is to decide, when a person's turn
has taken more decisions than the game allows, and when a person's turn clock
runs out; the store's ``attention`` says when that is due, so that another
node can take up a game whose owner died. Both ask :func:`must_act`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from engine import Game

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


class Acting(Enum):
    """Who acts on the pending decision."""

    #: Nobody needs to: no decision is pending.
    NOBODY = "nobody"
    #: A bot decides.
    BOT = "bot"
    #: A person's turn took as many decisions as the game allows: a bot takes the seat.
    TOO_LONG = "too_long"
    #: A person decides, with or without a turn clock.
    PERSON = "person"


def must_act(game: Game | None, bots: Mapping[str, str], settings: Mapping[str, Any]) -> Acting:
    """Who acts now in ``game`` (an active game, or None)."""
    if game is None or game.decision_kind is None:
        return Acting.NOBODY
    if game.active_player in bots:
        return Acting.BOT
    most = int(settings.get("max_turn_decisions") or 0)
    if most and turn_decisions(game.actions, game.decision_kind) >= most:
        return Acting.TOO_LONG
    return Acting.PERSON


def turn_timeout(settings: Mapping[str, Any]) -> float:
    """Seconds a person's decision may take (0: no clock)."""
    return float(settings.get("turn_timeout_seconds") or 0)
