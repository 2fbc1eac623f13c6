"""The bots: random, greedy (one turn ahead) and strong (sampled-stack search).

Every bot answers ``choose(record, rng)`` with one of ``record.options()``,
where ``record`` is a :class:`~bots.public.PublicRecord` for the seat to move:
what that seat sees, never the stack order. ``rng`` is the only source of
chance. A decision with a single option is answered at once.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from engine import STACK_TILES, Action, Game
from engine.playout import SplitMix64

from .evaluate import DEFAULT, EXPERT, Weights, evaluate
from .public import PublicRecord

_TURN = "turn"
_SETUP = "setup"
#: Acts that begin a turn; everything after them until the next is the turn's follow-up.
_TURN_ACTS = frozenset({"setup", "expand", "royal", "settle", "tonga", "single"})
#: Follow-up decisions in one turn after which a searching bot answers at random.
STALL = 40
#: Rounds without a tile drawn after which every bot draws one in its turn (see :func:`impatient`).
PATIENCE = 3
#: What an option that goes round in circles is worth less than any other.
CIRCLE = 1000.0
#: Decisions a bot plays through, at most, looking for a way to finish its turn
#: in a new position (see :func:`fresh`); past them the option counts as going back.
LOOKOUT = 400


class Bot(Protocol):
    """What a server or a tournament calls."""

    name: str

    def choose(self, record: PublicRecord, rng: SplitMix64) -> Action:
        """One of ``record.options()`` for the seat to move."""
        ...


def _without_search(record: PublicRecord, rng: SplitMix64) -> Action | None:
    """A forced single option, or a random one once a turn has stalled; else None."""
    options = _check(record)
    if len(options) == 1:
        return options[0]
    if turn_length(record) >= STALL:
        return first_fresh(record, _from(rng.below(len(options)), len(options)))
    return None


def _from(first: int, n: int) -> list[int]:
    """Every index below ``n``, from ``first`` on and round."""
    return [(first + k) % n for k in range(n)]


def _check(record: PublicRecord) -> tuple[Action, ...]:
    if record.over or record.to_move != record.viewer:
        raise ValueError(f"it is not {record.viewer}'s decision")
    return record.options()


def turn_length(record: PublicRecord) -> int:
    """Decisions taken so far in the current turn after its first.

    A chain reaction may walk through quiet positions for as long as its player
    likes (R11 only forbids walks that can never end). An evaluation can prefer
    such a walk forever, so the searching bots answer at random once a turn has
    gone on for :data:`STALL` decisions: a random walk leaves it.
    """
    if record.kind in (_TURN, _SETUP):
        return 0
    n = 0
    for action in reversed(record.actions):
        if action["act"] in _TURN_ACTS:
            return n
        n += 1
    return n


def impatient(record: PublicRecord) -> bool:
    """Whether the pending turn must draw a tile: :data:`PATIENCE` rounds went by without one.

    Nothing in the rules pushes a game towards its end: the evaluation may
    find expanding and emigrating round the same islands better than drawing,
    turn after turn, for ever. So a bot never chooses a turn that ends in a
    position a turn already began in since the last draw (unless every option
    does), and once :data:`PATIENCE` rounds have gone by without a draw, it
    chooses only among turns that draw a tile (settling, R10, always does).
    A game of bots therefore draws a tile at least every ``PATIENCE`` rounds
    and one turn, and ends after at most 31 such spells.
    """
    return record.kind == _TURN and record.quiet_turns > PATIENCE * len(record.seats)


def must_draw(record: PublicRecord) -> bool:
    """Whether the current turn (pending, or under way) began :func:`impatient`.

    Until it draws a tile, every decision of such a turn keeps a draw within
    reach (see :func:`fresh`), whoever takes it.
    """
    return record.quiet_turns > PATIENCE * len(record.seats)


def turn_bound(seats: int) -> int:
    """Turns a game of bots with ``seats`` seats takes at most (see :func:`impatient`).

    Each of the 31 stack tiles is drawn within ``PATIENCE`` rounds and one turn
    of the one before (the game ends when one kind runs out, before that).
    """
    return len(STACK_TILES) * (PATIENCE * seats + 1)


def turns_taken(actions: Sequence[Action]) -> int:
    """Turns begun in ``actions`` (set-up placements are not turns)."""
    return sum(1 for a in actions if a["act"] in _TURN_ACTS and a["act"] != _SETUP)


def overdue(deadline: float | None) -> bool:
    """Whether the wall-clock ``deadline`` (``time.time()``) has passed.

    A server gives its bots a deadline when a person is waiting for their
    moves: whatever CPU the bot was given, it answers with what it has found
    by then (a busy machine gives a low-priority bot less than its budget).
    """
    return deadline is not None and time.time() >= deadline


def _tiles(game: Game) -> int:
    counts = game.stack_counts
    return counts["island"] + counts["sea"]


def fresh(record: PublicRecord, option: int, limit: int = LOOKOUT) -> bool:
    """Whether the pending turn, after ``option``, can end without repeating a position.

    It can if some way of playing its remaining decisions draws a tile, ends
    the game, or passes the turn in a position no turn began in since the last
    draw (:meth:`PublicRecord.seen`); in a turn that must draw (see
    :func:`must_draw`), only drawing a tile or ending the game will do. The
    remaining decisions are searched depth first, at most ``limit`` of them,
    each position once; the stack order does not matter (any draw will do), so
    the search runs on the public past. Every bot plays only options that are
    fresh (unless none is), so a game of bots never comes back to a position
    without drawing a tile: the option a bot chose at the start of its turn was
    fresh, hence so is one option at each of the turn's later decisions,
    whoever takes them.
    """
    game = record.with_rest(record.stack_tiles)
    tiles = _tiles(game)
    game.apply_option(option)
    return _fresh(record, game, tiles, [limit], set(), draw=must_draw(record))


def _fresh(
    record: PublicRecord,
    game: Game,
    tiles: int,
    nodes: list[int],
    visited: set[object],
    *,
    draw: bool,
) -> bool:
    if game.over or _tiles(game) != tiles or game.decision_kind == _SETUP:
        return True
    position = game.position()
    if game.decision_kind == _TURN:
        return not draw and not record.seen(position)
    if position in visited:
        return False
    visited.add(position)
    for i in range(len(game.options())):
        if nodes[0] <= 0:
            return False
        nodes[0] -= 1
        child = game.copy()
        child.apply_option(i)
        if _fresh(record, child, tiles, nodes, visited, draw=draw):
            return True
    return False


def first_fresh(record: PublicRecord, order: Sequence[int]) -> Action:
    """The first option of ``order`` (best first) that is :func:`fresh`.

    Options missing from ``order`` are tried after it, in their order; if none
    is fresh, the first of ``order``. A decision with one option is answered at once.
    """
    options = record.options()
    if len(options) == 1:
        return options[0]
    ranked: list[int] = list(dict.fromkeys([*order, *range(len(options))]))
    for i in ranked:
        if fresh(record, i):
            return options[i]
    return options[ranked[0]]


def _settle(options: tuple[Action, ...]) -> int:
    return next(i for i, o in enumerate(options) if o["act"] == "settle")


def circles(record: PublicRecord, before: Game, after: Game) -> bool:
    """Whether a turn played from ``before`` to ``after`` goes round in circles.

    It does if it drew no tile and either ends in a position a turn already
    began in since the last draw, or the bot is :func:`impatient`.
    """
    if after.over or len(after.stack_remaining) != len(before.stack_remaining):
        return False
    if impatient(record):
        return True
    return after.decision_kind == _TURN and record.seen(after.position())


class RandomBot:
    """Uniform over the options; settles (R10) once :func:`impatient`."""

    name = "random"

    def choose(self, record: PublicRecord, rng: SplitMix64) -> Action:
        options = _check(record)
        if impatient(record):
            return options[_settle(options)]
        if len(options) == 1:
            return options[0]
        return first_fresh(record, _from(rng.below(len(options)), len(options)))


def _turn_goes_on(game: Game, me: str) -> bool:
    """True while the pending decision is a follow-up of ``me``'s current turn."""
    return not game.over and game.active_player == me and game.decision_kind not in (_TURN, _SETUP)


def _pick(n: int, limit: int, rng: SplitMix64) -> list[int]:
    if n <= limit:
        return list(range(n))
    chosen: set[int] = set()
    while len(chosen) < limit:
        chosen.add(rng.below(n))
    return sorted(chosen)


def one_ply(game: Game, rng: SplitMix64, weights: Weights, width: int) -> int:
    """The option of the pending decision whose immediate result evaluates best."""
    n = len(game.options())
    if n == 1:
        return 0
    me = game.active_player
    best, best_value = 0, -math.inf
    for i in _pick(n, width, rng):
        trial = game.copy()
        trial.apply_option(i)
        value = evaluate(trial, me, weights)
        if value > best_value:
            best, best_value = i, value
    return best


def finish_turn(
    game: Game, me: str, rng: SplitMix64, *, weights: Weights, width: int, cap: int
) -> None:
    """Play ``me``'s follow-up decisions one ply greedily until the turn passes.

    At most ``cap`` decisions are played: a long chain reaction is cut short.
    """
    for _ in range(cap):
        if not _turn_goes_on(game, me):
            return
        game.apply_option(one_ply(game, rng, weights, width))


@dataclass
class GreedyBot:
    """One turn ahead: each option is played out to the end of the turn and evaluated.

    The rest of the turn (emigrations, landings, placings) is played one ply
    greedily on ``samples`` sampled stacks, shared by all options; the option
    with the best mean evaluation (points and position) wins.
    """

    samples: int = 2
    width: int = 10  #: options tried at each follow-up decision
    max_options: int = 40  #: options compared at the decision itself
    cap: int = 30  #: follow-up decisions played per turn at most
    weights: Weights = DEFAULT
    name: str = "greedy"
    #: How a future is sampled from what the seat knows (a test-only bot sees the stack).
    sample: Callable[[PublicRecord, SplitMix64], Game] = PublicRecord.sample
    #: When the choice must be made (``time.time()``), if ever: see :func:`overdue`.
    deadline: float | None = None

    def values(
        self, record: PublicRecord, rng: SplitMix64, indices: list[int] | None = None
    ) -> dict[int, float]:
        """The mean evaluation of each option (or of ``indices``) after the whole turn."""
        me = record.viewer
        games = [self.sample(record, rng) for _ in range(self.samples)]
        n = len(record.options())
        chosen = indices if indices is not None else _pick(n, self.max_options, rng)
        if record.kind == _TURN and indices is None:
            settle = _settle(record.options())
            if settle not in chosen:
                chosen = sorted([*chosen, settle])
        if record.kind == _TURN and indices is None and self.deadline is not None:
            # Against the clock, settling first: the one option that always draws a tile.
            chosen = sorted(chosen, key=lambda i: i != settle)
        values: dict[int, float] = {}
        for i in chosen:
            if values and overdue(self.deadline):
                break  # out of time: the options valued so far
            total = 0.0
            for game in games:
                trial = game.copy()
                trial.apply_option(i)
                finish_turn(trial, me, rng, weights=self.weights, width=self.width, cap=self.cap)
                total += evaluate(trial, me, self.weights)
                if record.kind == _TURN and circles(record, game, trial):
                    total -= CIRCLE
            values[i] = total / len(games)
        return values

    def choose(self, record: PublicRecord, rng: SplitMix64) -> Action:
        quick = _without_search(record, rng)
        if quick is not None:
            return quick
        values = self.values(record, rng)
        return first_fresh(record, sorted(values, key=lambda i: (-values[i], i)))


@dataclass
class StrongBot:
    """Search over sampled stacks with a per-move budget.

    The candidates are the options the greedy evaluation (on ``prior_samples``
    sampled stacks) ranks highest. The search runs in rounds: each round
    samples one stack and one playout seed and plays every candidate still in
    the race on them (common random numbers: candidates are compared on the
    same futures). A playout plays the candidate, finishes the turn one ply
    greedily, lets every other seat reply with one turn of a cheap greedy
    policy (who profits from a beach left nearly full, who reaches a new island
    first), plays ``rounds - 1`` further whole rounds with that policy for
    every seat and evaluates the position reached.

    The budget is split by sequential halving: with ``k`` candidates it has
    ``ceil(log2 k)`` equal phases, and at the end of each phase but the last
    the worse half of the race drops out, so the last two candidates share the
    last phase and every candidate is judged on a fair share of the budget,
    however large it is. Within a phase, a candidate also drops out as soon
    as the leader beats it clearly on the futures both were played on (by
    ``decisive`` standard errors of the paired difference, after
    ``decisive_after`` rounds), and the search ends when one is left: a clear
    decision does not spend the whole budget. The candidate with the best mean
    wins. ``budget`` is
    CPU seconds per decision; ``iterations`` (if set) fixes the number of
    playouts instead (the round that reaches it is finished), for
    reproducible runs.
    """

    budget: float = 1.0
    iterations: int | None = None
    candidates: int = 4
    prior_samples: int = 2  #: sampled stacks of the greedy ranking that picks the candidates
    rounds: int = 1  #: rounds a playout looks ahead (the others' replies, then whole rounds)
    width: int = 8  #: options tried per decision in the playouts
    cap: int = 60  #: decisions per playout at most, then the position is evaluated
    reply: str = "greedy"  #: how the others play their turns in a playout: greedy or one_ply
    decisive: float = 2.5  #: standard errors by which the leader drops a candidate (0: never)
    decisive_after: int = 8  #: rounds played before a candidate may be dropped that way
    weights: Weights = DEFAULT
    name: str = "strong"
    clock: Callable[[], float] = time.process_time
    sample: Callable[[PublicRecord, SplitMix64], Game] = PublicRecord.sample
    #: When the choice must be made (``time.time()``), if ever: see :func:`overdue`.
    deadline: float | None = None

    def choose(self, record: PublicRecord, rng: SplitMix64) -> Action:
        quick = _without_search(record, rng)
        if quick is not None:
            return quick
        start = self.clock()
        began = time.time()
        greedy = GreedyBot(
            samples=self.prior_samples,
            width=self.width,
            weights=self.weights,
            sample=self.sample,
            deadline=self.deadline,
        )
        prior = greedy.values(record, rng)
        by_prior = sorted(prior, key=lambda i: (-prior[i], i))
        if overdue(self.deadline):
            return first_fresh(record, by_prior)
        race = by_prior[: self.candidates]
        # An option that went round in circles on some sampled stack never races.
        race = [i for i in race if prior[i] > max(prior.values()) - CIRCLE / 2] or race
        if len(race) == 1:
            return first_fresh(record, [*race, *by_prior])
        me = record.viewer
        history: dict[int, list[float]] = {i: [] for i in race}
        phases = max(1, math.ceil(math.log2(len(race))))
        phase = played = 0
        while True:
            spent = self._spent(start, played, began)
            if played > 0 and spent >= 1.0:
                break
            while len(race) > 2 and spent * phases >= phase + 1:
                phase += 1
                race = sorted(race, key=lambda i: (-sum(history[i]), i))[: (len(race) + 1) // 2]
            stack_seed = rng.next()
            playout_seed = rng.next()
            done = []
            for candidate in race:
                if played > 0 and overdue(self.deadline):
                    break  # a round left unfinished is not counted
                game = self.sample(record, SplitMix64(stack_seed))
                done.append(self._playout(game, candidate, me, SplitMix64(playout_seed)))
            if len(done) < len(race):
                break
            for candidate, value in zip(race, done, strict=True):
                history[candidate].append(value)
            played += len(race)
            if self.decisive > 0:
                race = self._settled(race, history)
                if len(race) == 1:
                    break
        ranked = sorted(race, key=lambda i: (-sum(history[i]), i))
        return first_fresh(record, [*ranked, *by_prior])

    def _settled(self, race: list[int], history: dict[int, list[float]]) -> list[int]:
        """``race`` without the candidates the leader beats clearly on the same futures.

        Each round plays every candidate in the race on one sampled future, so
        the leader's value minus another's, round by round, is a paired sample.
        A candidate is dropped when the mean of that difference is at least
        :attr:`decisive` standard errors above 0, or when it never differed
        (the two options lead to the same futures).
        """
        leader = max(race, key=lambda i: (sum(history[i]), -i))
        ahead = history[leader]
        n = len(ahead)
        if n < self.decisive_after:
            return race
        kept = [leader]
        for other in race:
            if other == leader:
                continue
            diffs = [a - b for a, b in zip(ahead, history[other], strict=True)]
            mean = sum(diffs) / n
            spread = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            if spread == 0.0 or mean >= self.decisive * math.sqrt(spread / n):
                continue
            kept.append(other)
        return kept

    def _spent(self, start: float, played: int, began: float) -> float:
        """The share of the budget used so far (of ``iterations`` playouts, if set).

        With a :attr:`deadline`, the share of the wall time to it counts too,
        when it is larger (``began``: when the choice began, ``time.time()``).
        """
        if self.iterations is not None:
            return played / max(self.iterations, 1)
        spent = (self.clock() - start) / self.budget
        if self.deadline is not None:
            spent = max(spent, (time.time() - began) / max(self.deadline - began, 1e-6))
        return spent

    def _playout(self, game: Game, option: int, me: str, rng: SplitMix64) -> float:
        game.apply_option(option)
        finish_turn(game, me, rng, weights=self.weights, width=self.width, cap=self.cap)
        turns = self.rounds * len(game.seats) - 1
        steps = 0
        while not game.over and turns > 0 and steps < self.cap * self.rounds:
            player = game.active_player
            if self.reply == "greedy" and game.decision_kind == _TURN:
                game.apply_option(self._turn_choice(game, rng))
            else:
                game.apply_option(one_ply(game, rng, self.weights, self.width))
            steps += 1
            if game.active_player != player:
                turns -= 1
        return evaluate(game, me, self.weights)

    def _turn_choice(self, game: Game, rng: SplitMix64) -> int:
        """A turn option chosen as the greedy bot would, on this one sampled future."""
        n = len(game.options())
        if n == 1:
            return 0
        player = game.active_player
        best, best_value = 0, -math.inf
        for i in _pick(n, self.width, rng):
            trial = game.copy()
            trial.apply_option(i)
            finish_turn(trial, player, rng, weights=self.weights, width=4, cap=12)
            value = evaluate(trial, player, self.weights)
            if value > best_value:
                best, best_value = i, value
        return best


@dataclass
class ExpertBot(StrongBot):
    """The strong bot's search with a larger budget and a wider race.

    Up to 1 CPU second a decision; 8 candidates ranked on 3 sampled stacks race
    by sequential halving (three phases: 8, 4, then the best 2), so a larger
    budget buys more sampled futures for every candidate still in the race and
    the strength grows with it. Its evaluation weights are the ``expert`` set
    of ``bots/weights.json``.
    """

    budget: float = 1.0
    candidates: int = 8
    prior_samples: int = 3
    decisive: float = 3.0
    weights: Weights = EXPERT
    name: str = "expert"


def oracle(stack: Sequence[str]) -> ExpertBot:
    """An expert that knows the stack order: for tournaments only, never for a seat.

    Every future it searches is the real one (``stack`` is the game's whole
    stack, top first), so its margin over the expert measures what the hidden
    order costs.
    """
    full = tuple(stack)

    def real(record: PublicRecord, rng: SplitMix64) -> Game:
        return record.with_rest(full[len(record.drawn) :])

    return ExpertBot(name="oracle", sample=real)


BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "strong": StrongBot,
    "expert": ExpertBot,
}

#: The levels a server seat may be played by, weakest first.
LEVELS = tuple(BOTS)


def make_bot(name: str, **settings: float) -> Bot:
    """A bot by name: ``random``, ``greedy``, ``strong`` or ``expert`` (settings as keywords)."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}")
    factory: Callable[..., Bot] = BOTS[name]
    return factory(**settings)
