"""The loop passes no FETCH can do without (benchmarks/twin_stock.stack_bound), against a draw
that feeds only the stack's bottom card: whatever a FETCH does with the cards it reads, it feeds
at least the bound's count before the hand is drawn."""

from __future__ import annotations

from collections.abc import Callable

from benchkit import load_bench
from hypothesis import given, settings
from hypothesis import strategies as st

TS = load_bench("twin_stock")


def test_the_bound_of_known_stacks() -> None:
    assert TS.stack_bound(list(range(1, 52))) == 0  # in the plan's order: nothing to read
    assert TS.stack_bound([1, 2, 32, 5, 6, 7, 3, 33]) == 4  # 32, 5, 6, 7 lie under 3 (hand 1087's shape)
    assert TS.stack_bound([3, 2, 1]) == 2  # upside down: all but the top card
    assert TS.stack_bound([2, 1, 3]) == 1  # one pair the blade put the wrong way round
    assert TS.stack_bound([]) == 0


def draw_feeding_the_bottom(stack: list[int], depth_for: Callable[[int, list[int]], int]) -> int:
    """Draw every card in its place's order from ``stack`` (bottom first), feeding only the bottom
    card: a card read before the wanted one goes back into the stack at the depth under the top
    that ``depth_for(card, the stack)`` chooses (a FETCH's choice, clamped). The cards fed
    that were not the one wanted."""
    stack = list(stack)
    fed = 0
    for want in sorted(stack):
        while stack[0] != want:
            card = stack.pop(0)
            fed += 1
            depth = max(0, min(len(stack), depth_for(card, stack)))
            stack.insert(len(stack) - depth, card)
            assert fed < 10_000, "a FETCH that never finds its card"
        stack.pop(0)
    return fed


@settings(max_examples=300, deadline=None)
@given(st.permutations(list(range(12))), st.data())
def test_no_fetch_feeds_fewer_cards_than_the_bound(stack: list[int], data: st.DataObject) -> None:
    """Whatever depths a FETCH gives the cards it reads (drawn at random for each one, or the
    depth of the card's place among the cards left, as the firmware's model would give it)."""
    bound = TS.stack_bound(stack)
    assert (bound == 0) == (stack == sorted(stack))
    chosen = draw_feeding_the_bottom(stack, lambda card, now: data.draw(st.integers(0, len(now)), label="depth"))
    at_place = draw_feeding_the_bottom(stack, lambda card, now: sum(1 for c in now if c > card))
    assert chosen >= bound
    assert at_place >= bound
