"""benchmarks/bots.py's duplicate for the Hearts games: each hand is played again from the same
position and cards with a rule bot in the search bot's seat. With a rule bot in that seat the
two plays are the same hand, so every duplicate difference must be zero; with a real search bot
the figure is the search bot's points against the rule bot's in its place."""

from __future__ import annotations

import random
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest


@pytest.fixture
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("bots")


class _RuleAsSearch:
    """The rule bot, wearing the Timed search bot's fields (nothing searched)."""

    def __init__(self, rule: Any) -> None:
        self.rule = rule
        self.last_worlds = 0

    def choose(self, state: Any, seat: int, rng: random.Random) -> Any:
        return self.rule.choose(state, seat, rng)


def test_duplicate_of_a_rule_bot_is_the_same_hand(bench: ModuleType) -> None:
    from trickref.engine.bots import bot_for

    timed = bench.Timed(_RuleAsSearch(bot_for("hearts")))  # type: ignore[arg-type]
    sec = bench.table_hands("hearts", 8, timed, seed=3, counts=[4, 5])
    for n in ("4", "5"):
        rows = sec["per_player_count"][n]["per_hand"]
        assert len(rows) == 8
        assert all(len(r) == 3 and r[0] == r[2] for r in rows), rows  # the same hand twice
        assert sec["per_player_count"][n]["duplicate"]["reduction"] == 0.0
    assert any(r[0] for n in ("4", "5") for r in sec["per_player_count"][n]["per_hand"])  # points were taken


def test_duplicate_of_the_search_bot_is_paired_hand_by_hand(bench: ModuleType) -> None:
    from trickref.engine.bots.levels import make_search_bot

    timed = bench.Timed(make_search_bot("hearts", iterations=4))
    sec = bench.table_hands("hearts", 4, timed, seed=1, counts=[4])
    rows = sec["per_player_count"]["4"]["per_hand"]
    dup = sec["duplicate"]
    assert dup["hands"] == 4
    assert dup["search_points_per_hand"] == round(sum(r[0] for r in rows) / 4, 3)
    assert dup["rule_points_per_hand"] == round(sum(r[2] for r in rows) / 4, 3)
    assert timed.worlds  # the search bot searched
