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



@pytest.mark.parametrize("driving", ["turn", "seat"])
def test_the_loop_drives_every_game_both_ways(bench: ModuleType, driving: str) -> None:
    """The loop of the comparison plays hands of every game with either driving: the verbs told
    no seat when one is on turn ("turn"), or the seat named at every call ("seat", the loop of
    2026-12-06); spades-2p's Double Nil exchange drawn either way (a game whose random hands
    reach it: it is tested for in that game only under "turn")."""
    from trickref.engine.games import GAME_IDS, game_class

    for game in GAME_IDS:
        n = game_class(game).PLAYER_COUNTS[0]
        got = bench.our_hands(game, n, {}, 0.05, 1, driving=driving)
        assert got["hands"] > 0 and got["actions"] > got["hands"] and got["driving"] == driving
    with pytest.raises(ValueError, match="driving"):
        bench.our_hands("hearts", 4, {}, 0.01, 1, driving="sideways")
