"""benchmarks/hearts_ceiling.py's bare engines play the same game as ours: the same seats on
turn and the same legal actions at every decision, the same totals after every hand. The
native one (hearts_ceiling_native.py, which ``--native`` compiles with mypyc) is checked here
as plain Python: the same source, so the same rules."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture
def bench(bench_module: Callable[[str], ModuleType]) -> ModuleType:
    return bench_module("hearts_ceiling")


def test_bare_hearts_plays_our_game(bench: ModuleType) -> None:
    assert bench.same_game(30, 4) > 30 * 52


def test_native_hearts_plays_our_game(bench: ModuleType, bench_module: Callable[[str], ModuleType]) -> None:
    native = bench_module("hearts_ceiling_native")
    assert bench.same_game(40, 5, native.NativeHearts) > 40 * 52
