"""Tongiaki: the complete rules as a pure Python library.

>>> from engine import Game, STACK_TILES
>>> game = Game.new(["yellow", "red"], list(STACK_TILES))
>>> game.decision.kind, game.decision.player
('setup', 'yellow')
"""

from .errors import ActionError, EngineError, Reason, RecordError
from .game import DECISION_KINDS, Action, Decision, Event, Game, canonical
from .tiles import COLOURS, DIRECTIONS, STACK_TILES, TILES, Tile, neighbour

__all__ = [
    "COLOURS",
    "DECISION_KINDS",
    "DIRECTIONS",
    "STACK_TILES",
    "TILES",
    "Action",
    "ActionError",
    "Decision",
    "EngineError",
    "Event",
    "Game",
    "Reason",
    "RecordError",
    "Tile",
    "canonical",
    "neighbour",
]
