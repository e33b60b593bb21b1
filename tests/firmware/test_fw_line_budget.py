"""The protocol's line-time budget: under 0.1 s at 115200 baud for a 52-card deal.

A byte count, not a timing: every frame both ways of a whole deal on the real firmware
(including the host's dead-man keep-alives), at 10 bits a byte. benchmarks/dealer_protocol.py
prints the same figures with a breakdown.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("dealer_protocol")


def test_52_card_deal_fits_the_line_budget(bench: ModuleType) -> None:
    r = bench.line_time(4, 1, seed=3)
    assert r["cards_placed_as_planned"]
    assert r["bytes_dealer_to_host"]["busy"] == 0  # card events keep the link alive
    assert r["line_ms_total"] < 100.0, r


def test_per_card_events_share_frames(bench: ModuleType) -> None:
    r = bench.line_time(4, 1, seed=4)
    assert r["bytes_dealer_to_host"]["events"] < 52 * 14  # less than one 14-byte frame per card
