"""Bots: only offered options, no peeking at the stack order, sampled games replay."""

from __future__ import annotations

import pytest

from bots import (
    ExpertBot,
    GreedyBot,
    PublicRecord,
    RandomBot,
    StrongBot,
    make_bot,
    oracle,
    players,
    with_stack,
)
from bots.players import Bot, turn_length
from engine import Game
from engine.playout import SplitMix64, shuffled_stack

SEATS = ["yellow", "orange", "red", "green"]


def _advance(game: Game, rng: SplitMix64, steps: int) -> None:
    """Play ``steps`` random decisions (or until the game ends)."""
    for _ in range(steps):
        if game.over:
            return
        game.apply_option(rng.below(len(game.options())))


def _thinking_game(seed: int, steps: int) -> Game:
    """A game after ``steps`` random decisions, at a decision with several options."""
    game = Game.new(SEATS, shuffled_stack(seed))
    rng = SplitMix64(seed)
    _advance(game, rng, steps)
    while not game.over and len(game.options()) < 2:
        game.apply_option(0)
    assert not game.over
    return game


def _same_past_other_future(game: Game, seed: int) -> Game:
    """The game replayed with the same drawn tiles but the undrawn ones reordered."""
    drawn = len(game.initial_stack) - len(game.stack_remaining)
    head = list(game.initial_stack[:drawn])
    rest = list(game.initial_stack[drawn:])
    other = SplitMix64(seed).shuffled(rest)
    if other == rest:
        other = rest[1:] + rest[:1]
    twin = Game.from_record(
        {"seats": list(game.seats), "stack": head + other, "actions": list(game.actions)}
    )
    assert twin.snapshot() == game.snapshot()
    assert list(twin.initial_stack) != list(game.initial_stack)
    return twin


def test_the_record_of_a_game_holds_no_stack_order() -> None:
    game = _thinking_game(3, 60)
    twin = _same_past_other_future(game, 9)
    one = PublicRecord.from_game(game, game.active_player)
    two = PublicRecord.from_game(twin, twin.active_player)
    assert one == two
    assert one.stack_tiles == game.stack_remaining
    assert one.options() == game.options()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_choices_do_not_depend_on_the_undrawn_order(seed: int) -> None:
    bots: list[Bot] = [
        RandomBot(),
        GreedyBot(),
        StrongBot(iterations=12, candidates=4),
        ExpertBot(iterations=12),
    ]
    for steps in (20, 70):
        game = _thinking_game(seed, steps)
        twin = _same_past_other_future(game, seed + 100)
        player = game.active_player
        for bot in bots:
            first = bot.choose(PublicRecord.from_game(game, player), SplitMix64(seed))
            second = bot.choose(PublicRecord.from_game(twin, player), SplitMix64(seed))
            assert first == second, bot.name


def test_a_sampled_game_is_the_replayed_game() -> None:
    game = _thinking_game(5, 80)
    record = PublicRecord.from_game(game, game.active_player)
    sampled = record.sample(SplitMix64(4))
    replayed = Game.from_record(sampled.record())
    assert replayed.snapshot() == sampled.snapshot()
    assert sorted(sampled.stack_remaining) == game.stack_remaining
    rng = SplitMix64(8)
    while not sampled.over:
        index = rng.below(len(sampled.options()))
        assert sampled.options() == replayed.options()
        assert sampled.apply_option(index) == replayed.apply_option(index)
    assert sampled.result == replayed.result


def test_with_stack_refuses_other_tiles() -> None:
    game = _thinking_game(6, 30)
    rest = game.stack_remaining
    with pytest.raises(ValueError):
        with_stack(game, rest[1:])
    with pytest.raises(ValueError):
        with_stack(game, [*rest[1:], "tonga"])


def test_from_view_checks_the_drawn_tiles() -> None:
    game = _thinking_game(7, 50)
    player = game.active_player
    drawn = list(game.initial_stack[: 31 - len(game.stack_remaining)])
    record = PublicRecord.from_view(game.view(player), game.actions, drawn)
    assert record == PublicRecord.from_game(game, player)
    assert record.viewer == player
    with pytest.raises(ValueError):
        PublicRecord.from_view(game.view(player), game.actions, drawn[:-1])


def test_a_bot_answers_only_for_the_seat_to_move() -> None:
    game = _thinking_game(8, 40)
    other = next(c for c in game.seats if c != game.active_player)
    with pytest.raises(ValueError):
        RandomBot().choose(PublicRecord.from_game(game, other), SplitMix64(1))


def test_make_bot_knows_the_bots() -> None:
    assert make_bot("random").name == "random"
    assert make_bot("strong", budget=0.5).name == "strong"
    assert make_bot("expert").name == "expert"
    assert "oracle" not in players.LEVELS
    with pytest.raises(ValueError):
        make_bot("oracle")


@pytest.mark.parametrize("seed", [11, 12])
def test_bots_only_ever_submit_offered_options(seed: int) -> None:
    """Whole games: every action a bot returns is one of the offered options."""
    bots: dict[str, Bot] = {
        "yellow": RandomBot(),
        "orange": GreedyBot(),
        "red": StrongBot(iterations=6, candidates=3, rounds=1),
        "green": GreedyBot(samples=1),
    }
    rngs = {c: SplitMix64(seed * 10 + i) for i, c in enumerate(SEATS)}
    game = Game.new(SEATS, shuffled_stack(seed))
    kinds: set[str] = set()
    while not game.over:
        player = game.active_player
        decision = game.decision
        assert decision is not None
        kinds.add(decision.kind)
        action = bots[player].choose(PublicRecord.from_game(game, player), rngs[player])
        assert action in decision.options
        game.apply(action, player=player)  # checked: an illegal action would raise
    assert game.result is not None
    assert {"setup", "turn"} <= kinds


def test_greedy_prefers_points() -> None:
    """A greedy bot never takes a turn option that scores worse in every sampled future."""
    game = _thinking_game(21, 40)
    while not game.over and game.decision_kind != "turn":
        game.apply_option(0)
    player = game.active_player
    record = PublicRecord.from_game(game, player)
    bot = GreedyBot(samples=1)
    values = bot.values(record, SplitMix64(2))
    choice = bot.choose(record, SplitMix64(2))
    best = max(values.values())
    assert values[record.options().index(choice)] == best


def test_turn_length_counts_the_follow_ups_of_the_current_turn() -> None:
    game = Game.new(SEATS, shuffled_stack(31))
    rng = SplitMix64(31)
    seen = 0
    while not game.over and seen < 200:
        record = PublicRecord.from_game(game, game.active_player)
        length = turn_length(record)
        if game.decision_kind in ("turn", "setup"):
            assert length == 0
        else:
            last_start = max(
                i
                for i, a in enumerate(game.actions)
                if a["act"] in ("expand", "royal", "settle", "tonga", "single")
            )
            assert length == len(game.actions) - 1 - last_start
            seen += 1
        game.apply_option(rng.below(len(game.options())))
    assert seen > 0


def test_a_stalled_turn_is_answered_at_random() -> None:
    """After STALL follow-ups the searching bots stop searching (a quiet walk cannot last)."""
    game = _thinking_game(13, 40)
    while game.decision_kind in ("turn", "setup") or len(game.options()) < 2:
        game.apply_option(game.options().index(game.options()[-1]))
        assert not game.over
    record = PublicRecord.from_game(game, game.active_player)
    n = turn_length(record)
    random_choice = RandomBot().choose(record, SplitMix64(5))
    stall = players.STALL
    try:
        players.STALL = n
        assert GreedyBot().choose(record, SplitMix64(5)) == random_choice
        assert StrongBot(iterations=4).choose(record, SplitMix64(5)) == random_choice
    finally:
        players.STALL = stall


def test_the_strong_bot_stops_when_its_clock_says_so() -> None:
    """The budget is read from the bot's clock (a fake one here: no timing in tests)."""
    ticks: list[float] = []

    def clock() -> float:
        ticks.append(0.25 * len(ticks))
        return ticks[-1]

    game = _thinking_game(17, 50)
    record = PublicRecord.from_game(game, game.active_player)
    bot = StrongBot(budget=1.0, clock=clock)
    assert bot.choose(record, SplitMix64(3)) in record.options()
    assert 2 <= len(ticks) <= 8


class _Scripted(StrongBot):
    """A strong bot whose playouts return a fixed value per option, and are counted."""

    def __init__(self, worth: dict[int, float], **settings: float) -> None:
        super().__init__(**settings)  # type: ignore[arg-type]
        self.worth = worth
        self.played: dict[int, int] = {}

    def _playout(self, game: Game, option: int, me: str, rng: SplitMix64) -> float:
        self.played[option] = self.played.get(option, 0) + 1
        return self.worth.get(option, 0.0)


def test_sequential_halving_spends_the_budget_on_the_better_half() -> None:
    """Eight candidates, 64 playouts: 3 phases, halved to 4 and then to 2 candidates."""
    game = _thinking_game(19, 30)
    while game.decision_kind != "turn" or len(game.options()) < 8:
        game.apply_option(0)
    record = PublicRecord.from_game(game, game.active_player)
    n = len(record.options())
    worth = {i: float(i) for i in range(n)}
    bot = _Scripted(worth, iterations=64, candidates=8, decisive=0)
    choice = bot.choose(record, SplitMix64(4))
    race = sorted(bot.played, key=lambda i: -worth[i])
    assert len(race) == 8
    assert record.options().index(choice) == race[0]
    assert sum(bot.played.values()) == 64
    counts = [bot.played[i] for i in race]
    assert counts == [18, 18, 8, 8, 3, 3, 3, 3]


@pytest.mark.parametrize("rounds", [1, 2])
def test_a_playout_looks_rounds_ahead(rounds: int) -> None:
    """A playout ends with the searching seat to move again, after ``rounds`` whole rounds."""
    game = _thinking_game(23, 40)
    while game.decision_kind != "turn":
        game.apply_option(0)
    me = game.active_player
    record = PublicRecord.from_game(game, me)
    sampled = record.sample(SplitMix64(1))
    before = len(sampled.actions)
    StrongBot(rounds=rounds)._playout(sampled, 0, me, SplitMix64(2))
    assert not sampled.over
    assert sampled.active_player == me and sampled.decision_kind == "turn"
    turns = [a for a in sampled.actions[before:] if a["act"] in players._TURN_ACTS]
    assert len(turns) == rounds * len(SEATS)


def _wide_turn(seed: int, steps: int, width: int) -> PublicRecord:
    game = _thinking_game(seed, steps)
    while game.decision_kind != "turn" or len(game.options()) < width:
        game.apply_option(0)
    return PublicRecord.from_game(game, game.active_player)


def test_a_decisive_leader_ends_the_search_early() -> None:
    """Candidates that are clearly worse on the same futures drop out; the search stops."""
    record = _wide_turn(19, 30, 4)
    worth = {i: float(i) for i in range(len(record.options()))}
    bot = _Scripted(worth, iterations=400, candidates=4, decisive=2.5, decisive_after=8)
    choice = bot.choose(record, SplitMix64(4))
    race = sorted(bot.played, key=lambda i: -worth[i])
    assert record.options().index(choice) == race[0]
    assert [bot.played[i] for i in race] == [8, 8, 8, 8]


class _Noisy(_Scripted):
    """Playouts worth the option's value plus noise of its own, different for every option."""

    def _playout(self, game: Game, option: int, me: str, rng: SplitMix64) -> float:
        super()._playout(game, option, me, rng)
        noise = SplitMix64(rng.next() ^ (option + 1) * 0x9E3779B97F4A7C15).below(1000) / 100
        return self.worth.get(option, 0.0) + noise


def test_close_candidates_keep_the_whole_budget() -> None:
    """Two candidates worth the same (up to noise) are not cut short: all playouts are spent."""
    record = _wide_turn(19, 30, 2)
    worth = dict.fromkeys(range(len(record.options())), 0.0)
    bot = _Noisy(worth, iterations=120, candidates=2, decisive=2.5, decisive_after=8)
    bot.choose(record, SplitMix64(5))
    assert sorted(bot.played.values()) == [60, 60]


def test_the_oracle_searches_the_real_future() -> None:
    """The test-only oracle samples nothing: every future it plays is the real stack."""
    game = _thinking_game(4, 50)
    twin = _same_past_other_future(game, 7)
    record = PublicRecord.from_game(game, game.active_player)
    seen = oracle(game.initial_stack)
    sampled = seen.sample(record, SplitMix64(1))
    assert sampled.initial_stack == game.initial_stack
    assert seen.sample(record, SplitMix64(2)).initial_stack == game.initial_stack
    assert oracle(twin.initial_stack).sample(record, SplitMix64(1)).initial_stack != (
        game.initial_stack
    )


def _turn_record(seed: int) -> PublicRecord:
    """A record at the start of a turn with several options (settling among them)."""
    game = _thinking_game(seed, 40)
    rng = SplitMix64(seed)
    while game.decision_kind != "turn" or len(game.options()) < 3:
        game.apply_option(rng.below(len(game.options())))
    return PublicRecord.from_game(game, game.active_player)


def test_a_bot_past_its_deadline_answers_with_what_it_has() -> None:
    """A deadline already passed: the greedy ranking values settling only, no search runs."""
    record = _turn_record(23)
    settle = record.options().index({"act": "settle"})
    assert GreedyBot(deadline=0.0).values(record, SplitMix64(1)).keys() == {settle}
    assert len(GreedyBot().values(record, SplitMix64(1))) > 1
    searching = _Scripted({}, budget=1e6, deadline=0.0)
    for bot in (GreedyBot(deadline=0.0), ExpertBot(budget=1e6, deadline=0.0), searching):
        assert bot.choose(record, SplitMix64(1)) == {"act": "settle"}
    assert searching.played == {}


class _Hurried(_Scripted):
    """A scripted strong bot whose deadline passes after ``after`` playouts."""

    def __init__(self, after: int, **settings: float) -> None:
        super().__init__({}, **settings)
        self.after = after

    def _playout(self, game: Game, option: int, me: str, rng: SplitMix64) -> float:
        if sum(self.played.values()) + 1 >= self.after:
            self.deadline = 0.0
        return super()._playout(game, option, me, rng)


def test_a_round_the_deadline_cuts_short_is_not_counted() -> None:
    """Four candidates; the deadline passes at the sixth playout: the second round stops."""
    record = _turn_record(29)
    bot = _Hurried(6, budget=1e6, candidates=4, decisive=0)
    assert bot.choose(record, SplitMix64(2)) in record.options()
    assert sorted(bot.played.values()) == [1, 1, 2, 2]
