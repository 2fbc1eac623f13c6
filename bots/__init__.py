"""Bots for Tongiaki that see only what a seat sees.

>>> from engine import Game
>>> from engine.playout import SplitMix64, shuffled_stack
>>> game = Game.new(["yellow", "red"], shuffled_stack(seed=1))
>>> record = PublicRecord.from_game(game, "yellow")
>>> make_bot("greedy").choose(record, SplitMix64(1)) in game.options()
True
"""

from .evaluate import Weights, evaluate
from .players import BOTS, LEVELS, Bot, ExpertBot, GreedyBot, RandomBot, StrongBot, make_bot, oracle
from .public import PublicRecord, with_stack

__all__ = [
    "BOTS",
    "LEVELS",
    "Bot",
    "ExpertBot",
    "GreedyBot",
    "PublicRecord",
    "RandomBot",
    "StrongBot",
    "Weights",
    "evaluate",
    "make_bot",
    "oracle",
    "with_stack",
]
