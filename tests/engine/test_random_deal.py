"""The engine's own random deal (``start_random_hand``, engine/rand.py): a simulation's hand
dealt from a deck the engine's generator shuffles, kept in the record like any dealt hand, the
same numbers in both builds (tests/engine/test_engine_builds.py plays hands dealt so)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from engine_helpers import game_player_counts, random_action
from hypothesis import given
from hypothesis import strategies as st

from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game
from trickref.engine.rand import Rand
from trickref.engine.records import record_of, replay


@pytest.mark.parametrize("game, n", game_player_counts())
def test_a_random_deal_is_a_full_deck_kept_in_the_record(game: str, n: int) -> None:
    state = new_game(game, n)
    rand = Rand(n * 1000 + len(game))
    rng = random.Random(5)
    for _ in range(2):
        if state.over:
            break
        deck = state.start_random_hand(rand)
        assert deck == state.deck and deck is not state.deck  # (a copy: the caller may keep it)
        assert Counter(deck) == Counter(list(range(52)) * state.DECKS)
        while state.turn_seats():
            seat, action = random_action(state, rng)
            state.apply(action, seat)
    again = replay(record_of(state))
    assert again.to_json() == state.to_json()


def test_a_random_deal_is_refused_mid_hand_and_after_the_game() -> None:
    state = new_game("hearts", 4)
    state.start_random_hand(Rand(1))
    with pytest.raises(IllegalAction, match="the hand in progress has not ended"):
        state.start_random_hand(Rand(2))
    state.over = True
    with pytest.raises(IllegalAction, match="the game is over"):
        state.start_random_hand(Rand(2))


@given(st.integers(min_value=0, max_value=2**40), st.integers(min_value=0, max_value=104))
def test_the_shuffle_is_fisher_yates_on_below(seed: int, size: int) -> None:
    """``shuffle`` written out on native ints draws exactly what ``below`` would, in order."""
    xs = list(range(size))
    a, b = Rand(seed), Rand(seed)
    a.shuffle(xs)
    ys = list(range(size))
    for i in range(size - 1, 0, -1):
        j = b.below(i + 1)
        ys[i], ys[j] = ys[j], ys[i]
    assert xs == ys and a.x == b.x


def test_every_order_of_four_comes_about_as_often() -> None:
    """24 orders of 4 cards over 48,000 shuffles: each within 10 % of 2,000 (a biased swap, such
    as drawing ``below(n)`` for every place, is off by more than a third on some orders)."""
    rand = Rand(12345)
    seen: Counter[tuple[int, ...]] = Counter()
    for _ in range(48_000):
        xs = [0, 1, 2, 3]
        rand.shuffle(xs)
        seen[tuple(xs)] += 1
    assert len(seen) == 24
    assert all(1800 <= c <= 2200 for c in seen.values()), sorted(seen.values())
