"""Search budgets (engine/bots/levels.py, engine/bots/search.py): a level is CPU time per
decision of the searching thread, with the kiosk's wall-clock limit on top; the search is
anytime (it stops at either and answers with what it has). Clocks are injected: no test here
depends on the machine's speed."""

from __future__ import annotations

import random
import time

import pytest
from engine_helpers import random_deck

from trickref.engine.bots import bot_for
from trickref.engine.bots.levels import (
    LEVELS,
    PI4_SLOWDOWN,
    WALL_LIMIT,
    budget_of,
    make_search_bot,
    search_bot,
)
from trickref.engine.bots.search import SearchBot
from trickref.engine.games import new_game


class Ticks:
    """A clock that moves ``step`` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def first_lead(game: str = "hearts", n: int = 4, seed: int = 3) -> tuple[object, int]:
    s = new_game(game, n, {"target": 10**6})
    rng = random.Random(seed)
    rule = bot_for(game)
    s.start_hand(random_deck(rng, 1))
    while True:  # to the first play decision with more than two cards to choose from
        seat = s.turn_seats()[0]
        if s.phase == "play" and len(s.legal_actions(seat)) > 2:
            return s, seat
        s.apply(rule.choose(s, seat, rng), seat)


def test_levels_are_cpu_budgets_with_a_pi4_row() -> None:
    assert budget_of("rule") is None
    assert budget_of("strong") == LEVELS["strong"]
    assert budget_of("strong@pi4") == pytest.approx(LEVELS["strong"] / PI4_SLOWDOWN)  # type: ignore[operator]
    with pytest.raises(ValueError):
        budget_of("expert")
    with pytest.raises(ValueError):
        budget_of("strong@pi5")
    bot = search_bot("hearts", "strong")
    assert isinstance(bot, SearchBot)
    assert bot.clock is time.thread_time and bot.wall_limit == WALL_LIMIT and bot.iterations is None
    assert search_bot("hearts", "strong", budget=0.5).budget == 0.5
    fixed = search_bot("hearts", "strong", worlds=3)
    assert fixed.iterations == 3 and fixed.wall_limit is None
    assert search_bot("hearts", "search", reproducible=True).iterations == 6


@pytest.mark.parametrize("game,n", [("hearts", 4), ("partnership-spades", 4), ("german-whist", 2)])
def test_the_search_stops_at_its_budget(game: str, n: int) -> None:
    s, seat = first_lead(game, n)
    clock = Ticks(0.001)  # every read of the clock: a millisecond of CPU
    bot = search_bot(game, "strong", budget=0.03, clock=clock, wall_limit=None)
    a = bot.choose(s, seat, random.Random(1))  # type: ignore[attr-defined]
    assert a in s.legal_actions(seat)  # type: ignore[attr-defined]
    assert 1 <= bot.last_worlds and bot.last_cut
    assert clock.now <= 0.03 + 0.002  # the decision ended at its budget (a read or two past it)


def test_the_wall_limit_holds_whatever_the_cpu_clock_says() -> None:
    s, seat = first_lead()
    wall = Ticks(0.002)
    frozen = Ticks(0.0)  # a CPU clock that never moves: only the wall limit can stop the search
    bot = search_bot("hearts", "strong", clock=frozen, wall_clock=wall, wall_limit=0.05)
    bot.choose(s, seat, random.Random(1))  # type: ignore[attr-defined]
    assert bot.last_cut and wall.now <= 0.05 + 0.004


def test_no_time_for_a_world_leaves_the_rule_bots_choice() -> None:
    s, seat = first_lead()
    bot = search_bot("hearts", "strong", budget=0.0005, clock=Ticks(0.001), wall_limit=None)
    got = bot.choose(s, seat, random.Random(5))  # type: ignore[attr-defined]
    assert bot.last_worlds == 0 and bot.last_cut
    assert got == bot_for("hearts").choose(s, seat, random.Random(5))  # type: ignore[arg-type]


def test_fixed_worlds_ignore_the_clocks() -> None:
    s, seat = first_lead()
    bot = search_bot("hearts", "strong", worlds=4, clock=Ticks(1.0), wall_clock=Ticks(1.0))
    a = bot.choose(s, seat, random.Random(2))  # type: ignore[attr-defined]
    b = bot.choose(s, seat, random.Random(2))  # type: ignore[attr-defined]
    assert a == b and bot.last_worlds in (4, 0) and not bot.last_cut


def test_a_settled_search_stops_early_unless_told_to_spend_its_budget() -> None:
    """``settle_z``: the search ends when the best candidate leads every other by that many
    standard errors (the default 2.5); None spends the whole budget."""
    s, seat = first_lead()
    settled = cut = 0
    for k in range(6):
        for z in (2.5, None):
            clock = Ticks(0.0001)
            bot = search_bot("hearts", "strong", budget=0.5, clock=clock, wall_limit=None, settle_z=z)
            bot.choose(s, seat, random.Random(k))  # type: ignore[attr-defined]
            if z is None:
                assert bot.last_cut  # it ran to its budget
                cut += 1
            else:
                settled += not bot.last_cut
    assert cut == 6 and settled >= 1  # some of the default's searches settled before the budget


def test_bot_options_read_literals_and_words_for_the_games_bot() -> None:
    from trickref.engine.bots.levels import bot_options

    got = bot_options("hearts", ["infer=soft", "settle_z=None", "soft_eps=0.25", "search_pass=False"])
    assert got == {"infer": "soft", "settle_z": None, "soft_eps": 0.25, "search_pass": False}
    assert bot_options("partnership-spades", ["solve_at=3"]) == {"solve_at": 3}  # SearchBot's own
    bot = make_search_bot("hearts", budget=0.01, **got)  # the options are the bot's own keywords
    assert bot.infer == "soft" and bot.settle_z is None


@pytest.mark.parametrize("pair, words", [
    ("infr=soft", "takes no 'infr'"),          # a typo: refused with the keys there are
    ("infer", "wants KEY=VALUE"),
    ("=3", "wants KEY=VALUE"),
    ("bid_sigma=1", "takes no 'bid_sigma'"),    # a Spades bot's key is not a Hearts bot's
])
def test_bot_options_refuse_what_the_bot_does_not_take(pair: str, words: str) -> None:
    from trickref.engine.bots.levels import bot_options

    with pytest.raises(ValueError, match=words) as e:
        bot_options("hearts", [pair], flag="--bot-option")
    assert "--bot-option" in str(e.value)
    if "takes no" in words:
        assert "infer" in str(e.value) and "settle_z" in str(e.value)


def test_cancellation_hearts_spends_its_whole_budget_by_default() -> None:
    # its early stop cost it a third of its edge at the Pi-4-sized budget (RESULTS.md, 2026-12-03)
    assert make_search_bot("cancellation-hearts").settle_z is None
    assert make_search_bot("hearts").settle_z == 2.5  # the other games keep it
    assert make_search_bot("cancellation-hearts", settle_z=2.5).settle_z == 2.5  # still a choice
