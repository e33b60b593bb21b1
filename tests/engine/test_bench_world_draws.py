"""benchmarks/world_draws.py: the worlds it counts are the search bot's own draws at real
decisions, and its interval of the median is the order statistics' one."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("world_draws")


def test_draws_counts_the_worlds_of_every_searched_decision(bench: ModuleType) -> None:
    got = bench.draws(players=6, hands=1, worlds=3, seed=1)
    assert got["decisions"] >= 5  # seat 0's play decisions with a choice in one hand (of 17 cards)
    assert got["worlds"] == 3 * got["decisions"]
    assert got["cpu_s"] > 0 and got["worlds_per_cpu_s"] > 0
    again = bench.draws(players=6, hands=1, worlds=3, seed=1)
    assert again["decisions"] == got["decisions"]  # the same hands every round


def test_median_interval_holds_the_median(bench: ModuleType) -> None:
    m, lo, hi = bench.median_ci([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0])
    assert m == 5.5 and lo <= m <= hi and (lo, hi) == (2.0, 9.0)
