"""benchmarks/stack_tail.py's model of the stock deal's insertions: exact with a blade that does
not err, and one early error grown into a run of cards under a card drawn before them."""

from __future__ import annotations

from benchkit import load_bench
from hypothesis import given, settings
from hypothesis import strategies as st

ST = load_bench("stack_tail")
TS = load_bench("twin_stock")


class Scripted:
    """A generator whose shuffle gives ``order`` and whose draws are ``draws`` (then 1.0: no error)."""

    def __init__(self, order: list[int], draws: list[float]) -> None:
        self.order, self.draws = order, list(draws)

    def shuffle(self, xs: list[int]) -> None:
        xs[:] = self.order

    def random(self) -> float:
        return self.draws.pop(0) if self.draws else 1.0


@settings(max_examples=50, deadline=None)
@given(st.permutations(list(range(20))))
def test_a_blade_that_does_not_err_builds_the_plan_order(order: list[int]) -> None:
    real, later = ST.build(20, 0.0, Scripted(order, []))
    assert real == sorted(real, reverse=True) and later == 0  # the top drawn last
    assert TS.stack_bound(list(reversed(real))) == 0


def test_one_error_in_the_third_landing_grows_into_a_run() -> None:
    """0 and 50 land on the top; 25 goes one card too deep, under 0 (drawn first). Every card
    later placed between 0 and 25 counts 25 over 0 and goes under 0 too."""
    order = [0, 50, 25] + [k for k in range(1, 50) if k != 25]
    real, _ = ST.build(51, 0.5, Scripted(order, [0.0, 0.1]))  # the third landing errs, one deeper
    assert real[-1] != 0
    under_zero = real[real.index(0) + 1:]
    assert sorted(under_zero) == list(range(1, 26))  # 25 and the 24 placed between them
    assert TS.stack_bound(list(reversed(real))) == 25


def test_the_counted_lift_catches_the_early_error_and_the_stack_is_exact() -> None:
    """The same deal with the counted lift weighing to depth 10: 25's error (depth 1) is seen,
    the blade goes in again (that try right), and nothing grows."""
    order = [0, 50, 25] + [k for k in range(1, 50) if k != 25]
    real, _ = ST.build(51, 0.5, Scripted(order, [0.0, 0.1]), weighed=10)
    assert real == sorted(real, reverse=True)
    assert TS.stack_bound(list(reversed(real))) == 0


def test_the_counted_lift_gives_up_after_its_tries() -> None:
    """Two entries wrong running (the first and its one try again): the card lands off its place."""
    order = [0, 50, 25] + [k for k in range(1, 50) if k != 25]
    real, _ = ST.build(51, 0.5, Scripted(order, [0.0, 0.1] * (1 + ST.TRIES)), weighed=10)
    assert TS.stack_bound(list(reversed(real))) == 25
