"""Embedding the engine: a self-play loop with two simple players.

    python examples/selfplay.py [--games 20] [--seed 1]

The engine is all an embedding application needs: it creates games from seats
and a stack, lists the options of each decision, applies the chosen one and
reports what happened as events. Here a "hoarder" (who prefers options that
place ships) plays against random players; the script prints the record of
the last game's result and how often each player won.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable

from engine import Action, Decision, Game
from engine.playout import SplitMix64, shuffled_stack

Player = Callable[[Decision, SplitMix64], Action]


def random_player(decision: Decision, rng: SplitMix64) -> Action:
    """Any option, uniformly."""
    return decision.options[rng.below(len(decision.options))]


def hoarder(decision: Decision, rng: SplitMix64) -> Action:
    """Expand with as many ships as possible, otherwise play at random."""
    expands = [o for o in decision.options if o["act"] == "expand"]
    if expands:
        most = max(len(o["beaches"]) for o in expands)
        expands = [o for o in expands if len(o["beaches"]) == most]
        return expands[rng.below(len(expands))]
    return random_player(decision, rng)


def play(players: dict[str, Player], seed: int) -> Game:
    """One game between ``players`` (colour to player), stack and choices from ``seed``."""
    rng = SplitMix64(seed)
    game = Game.new(list(players), shuffled_stack(seed))
    while (decision := game.decision) is not None:
        action = players[decision.player](decision, rng)
        game.apply(action, player=decision.player)  # returns the events, unused here
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    players: dict[str, Player] = {"yellow": hoarder, "red": random_player, "blue": random_player}
    wins: Counter[str] = Counter()
    game = None
    for n in range(args.games):
        game = play(players, args.seed + n)
        assert game.result is not None
        wins.update(c for c, rank in game.result["rank"].items() if rank == 1)
    assert game is not None and game.result is not None
    print("last game:", game.result["points"], "ranks", game.result["rank"])
    for colour, player in players.items():
        print(f"{colour:7} {player.__name__:14} won {wins[colour]} of {args.games}")


if __name__ == "__main__":
    main()
