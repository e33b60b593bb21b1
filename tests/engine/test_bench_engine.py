"""benchmarks/engine.py --breakdown: the figures are of the timed hands only. The untimed hands
played first build what the engine makes on first use (Hearts' pass table), which was once
charged to the timed calls."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("engine")


def test_breakdown_counts_the_timed_hands_only(bench: ModuleType) -> None:
    got = bench.breakdown("hearts", 4, {}, hands=20, seed=1, warm=7)
    assert got["start_random_hand"][1] == 20
    assert got["play apply"][1] == got["play legal_actions"][1] == 20 * 52  # 13 tricks of 4
    passes = got["pass apply"][1]
    assert passes == got["pass legal_actions"][1] and passes % 4 == 0 and 0 < passes < 20 * 4
    assert all(calls > 0 for _seconds, calls in got.values())

