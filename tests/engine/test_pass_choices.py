"""The lazy pass list (hearts_common.PassChoices) behaves like the list it replaced: the same
actions in the same order (combinations of the sorted hand, first occurrences only), so seeded
random choices are unchanged; membership, equality, slices and ``+`` as for a list."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trickref.engine import actions as A
from trickref.engine.games import new_game
from trickref.engine.hearts_common import PassChoices, _pass_table


def reference(hand: list[int]) -> list[A.Action]:
    """The list the engine returned before PassChoices (each multiset of cards once)."""
    table = _pass_table()
    return list(map(table.__getitem__, dict.fromkeys(combinations(hand, 3))))


@given(seed=st.integers(0, 2**32 - 1), decks=st.sampled_from([1, 2]), size=st.integers(0, 20))
def test_same_actions_in_the_same_order(seed: int, decks: int, size: int) -> None:
    rng = random.Random(seed)
    deck = list(range(52)) * decks
    rng.shuffle(deck)
    hand = sorted(deck[:size])
    ref = reference(hand)
    pc = PassChoices(hand)
    assert len(pc) == len(ref)
    assert [pc[i] for i in range(len(pc))] == ref
    assert [pc[i] for i in range(-len(pc), 0)] == ref
    assert list(pc) == ref and pc == ref and ref == pc and not pc != ref
    assert all(pc[i] is ref[i] for i in range(len(pc)))  # the shared Action objects
    assert pc[1:7] == ref[1:7] and pc[::-5] == ref[::-5]
    for bad in (len(pc), -len(pc) - 1):
        with pytest.raises(IndexError):
            pc[bad]
    for a in ref:
        assert a in pc
    for _ in range(20):
        p = A.pass_cards(rng.sample(range(52), 3))
        assert (p in pc) == (p in ref)
    held = sorted(set(hand))
    if len(held) >= 2:
        doubled = A.Action("pass", (held[0], held[0], held[1]))
        assert (doubled in pc) == (doubled in ref)


def test_membership_is_that_of_a_list() -> None:
    hand = [0, 5, 9, 13, 20]
    pc = PassChoices(hand)
    assert A.pass_cards([0, 5, 9]) in pc
    assert ("pass", (0, 5, 9)) in pc  # a plain tuple equal to the Action, as in a list
    assert A.Action("pass", (9, 5, 0)) not in pc  # unsorted: not one of the listed actions
    assert A.Action("pass", [0, 5, 9]) not in pc  # a list is not equal to the tuple
    assert A.Action("pass", (0.0, 5, 9)) in pc  # equal by ==, as for a list
    assert A.PLAY[0] not in pc and None not in pc and "pass" not in pc
    assert A.Action("pass", (0, 0, 5)) not in pc


def test_list_operations() -> None:
    hand = [1, 2, 3, 4]
    pc = PassChoices(hand)
    ref = reference(hand)
    assert pc + [A.MOON_SELF] == ref + [A.MOON_SELF]
    assert [A.MOON_SELF] + pc == [A.MOON_SELF, *ref]
    assert pc.index(ref[2]) == 2 and pc.count(ref[0]) == 1
    assert sorted(pc) == sorted(ref) and set(pc) == set(ref)
    assert pc == PassChoices(hand) and pc != PassChoices([1, 2, 3, 5])
    assert pc != tuple(ref)  # like a list, not equal to a tuple
    rng = random.Random(3)
    assert random.Random(3).choice(ref) == rng.choice(pc)
    assert len(random.Random(4).sample(cast(Sequence[A.Action], pc), 3)) == 3  # a registered Sequence
    assert PassChoices([]) == [] and len(PassChoices([7, 8])) == 0


@pytest.mark.parametrize("hand", [[0, 5, 9, 13, 20], [1, 1, 4, 7, 7, 9], [3, 8], []])
def test_pickled_and_copied_like_a_list(hand: list[int]) -> None:
    import copy
    import pickle

    pc = PassChoices(hand)
    for other in (pickle.loads(pickle.dumps(pc)), copy.copy(pc), copy.deepcopy(pc)):
        assert type(other) is PassChoices and other == pc and list(other) == reference(hand)
    assert isinstance(pc, Sequence) and list(reversed(pc)) == reference(hand)[::-1]


def test_a_snapshot_of_the_hand() -> None:
    st_ = new_game("hearts", 4)
    st_.start_hand(list(range(52)))
    assert st_.phase == "pass"
    legal = st_.legal_actions(0)
    before = list(legal)
    st_.apply(legal[0], 0)
    assert list(legal) == before and len(legal) == 286
    assert st_.legal_actions(0) == []


def test_the_shared_pass_table_is_never_seen_half_built_from_another_thread() -> None:
    """Club tables run engines on several threads: the first use of the pass table from two
    threads at once must not raise (it once showed a half-filled table: KeyError)."""
    import threading

    from trickref.engine import hearts_common

    errors: list[BaseException] = []
    for _ in range(3):
        hearts_common._PASS_TABLE.clear()
        start = threading.Barrier(4)

        def use(start: threading.Barrier = start) -> None:
            try:
                start.wait()
                table = hearts_common._pass_table()
                assert table[(0, 1, 2)].value == (0, 1, 2)
                assert len(table) == 24804
            except BaseException as e:  # collected for the assert below
                errors.append(e)

        threads = [threading.Thread(target=use) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
