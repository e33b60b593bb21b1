"""The protocol's line-time budget: under 0.1 s at 115200 baud for a 52-card deal.

A byte count, not a timing: every frame both ways of a whole deal on the real firmware
(including the host's dead-man keep-alives), at 10 bits a byte. benchmarks/dealer_protocol.py
prints the same figures with a breakdown.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any


def _bench() -> Any:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "dealer_protocol.py"
    spec = importlib.util.spec_from_file_location("dealer_protocol_bench", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_52_card_deal_fits_the_line_budget() -> None:
    r = _bench().line_time(4, 1, seed=3)
    assert r["cards_placed_as_planned"]
    assert r["bytes_dealer_to_host"]["busy"] == 0  # card events keep the link alive
    assert r["line_ms_total"] < 100.0, r


def test_per_card_events_share_frames() -> None:
    r = _bench().line_time(4, 1, seed=4)
    assert r["bytes_dealer_to_host"]["events"] < 52 * 14  # less than one 14-byte frame per card
