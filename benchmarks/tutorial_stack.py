"""Search for the tutorial's stack: the one on which a first game shows most kinds early.

A learner (yellow, seat 0) plays against a random bot (red). The learner does
what the tutorial's coach suggests: it founds a royal island the first time it
can, tries a New settlement on its third turn if it has not yet, and otherwise
picks at random. For every stack of the seeds searched, games against several
bot seeds give, per kind of decision or act, the learner's decision at which
it first came up; the best stack has the smallest mean sum (a kind that never
came counts as decision 100), and its game must stay short.

    .venv/bin/python benchmarks/tutorial_stack.py --seeds 400 --games 8

prints the best stacks, then the chosen one's figures and its tile ids (what
``server/tutorials.py`` holds).
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from engine import Game
from engine.playout import SplitMix64, shuffled_stack

#: What the coach explains, as (decision kind, act) pairs met by the learner.
KINDS = ("expand", "emigrate", "land", "royal", "place", "settle_ship", "no_ship")
NEVER = 100


def learner_choice(game: Game, turn: int, done: set[str], rng: SplitMix64) -> Any:
    """The learner's option: royal and settle when the coach suggests them, else at random."""
    options = list(game.options())
    acts = {o["act"] for o in options}
    if game.decision_kind == "turn":
        if "royal" in acts and "royal" not in done:
            return next(o for o in options if o["act"] == "royal")
        if turn >= 3 and "settle" not in done and not acts & {"tonga", "single"}:
            return next(o for o in options if o["act"] == "settle")
        if "expand" in acts:
            options = [o for o in options if o["act"] == "expand"]
    return options[rng.below(len(options))]


def play(stack: list[str], seed: int) -> dict[str, int]:
    """One game: the learner's decision index at which each kind first came up, and its length."""
    game = Game.new(["yellow", "red"], stack)
    rng = SplitMix64(seed)
    first: dict[str, int] = {}
    done: set[str] = set()
    decisions = turns = 0
    while not game.over:
        kind = game.decision_kind
        assert game.decision is not None
        if game.decision.player != "yellow":
            game.apply_option(rng.below(len(game.options())))
            continue
        decisions += 1
        if kind == "turn":
            turns += 1
            if {o["act"] for o in game.options()} & {"tonga", "single"}:
                first.setdefault("no_ship", decisions)
        if kind in ("emigrate", "land", "place", "settle_ship"):
            first.setdefault(kind, decisions)
        action = learner_choice(game, turns, done, rng)
        if action["act"] in ("expand", "royal"):
            first.setdefault(action["act"], decisions)
        done.add(action["act"])
        game.apply(action, player="yellow")
    return {**{k: first.get(k, NEVER) for k in KINDS}, "length": decisions}


def score(stack: list[str], games: int) -> tuple[float, dict[str, float]]:
    """The mean sum of first indices over ``games`` bot seeds, and the mean per kind."""
    runs = [play(stack, seed) for seed in range(games)]
    means = {k: statistics.mean(r[k] for r in runs) for k in (*KINDS, "length")}
    return sum(means[k] for k in KINDS) + 0.2 * means["length"], means


def shortened(stack: list[str], head: int | None) -> list[str]:
    """``stack`` with its islands after the first ``head`` tiles moved ahead of its sea
    tiles: the game ends once the last island is placed (R12), about a third sooner."""
    if head is None:
        return stack
    rest = stack[head:]
    islands = [t for t in rest if not t.startswith("sea-")]
    return stack[:head] + islands + [t for t in rest if t.startswith("sea-")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=400)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seed", type=int, help="only this seed's stack (no search)")
    parser.add_argument("--islands-after", type=int, help="shortened: see shortened()")
    args = parser.parse_args()
    head: int | None = args.islands_after

    def stack(seed: int) -> list[str]:
        return shortened(shuffled_stack(seed), head)

    if args.seed is None:
        ranked = sorted((score(stack(s), args.games)[0], s) for s in range(args.seeds))
        for value, seed in ranked[:5]:
            print(f"seed {seed}: score {value:.1f}")
        best = ranked[0][1]
    else:
        best = args.seed
    _, means = score(stack(best), args.games)
    print("first came up (learner's decision, mean):")
    for kind, value in means.items():
        print(f"  {kind}: {value:.1f}")
    print(stack(best))


if __name__ == "__main__":
    main()
