"""``sample_world(seat, rng)`` of both Hearts games: a determinization of what ``seat`` does
not know.

Properties, at random moments of random Hearts games (3 to 7 players) and Cancellation Hearts
games (6 to 11, several options), for the seats: the
sampled state's ``view(seat)`` equals the real one; it is a legal state of the game (its
record replays to it); the hidden cards are the same cards, spread over the same places with
the same counts; no seat holds a card of a suit it has shown a void in. And in a small
position (4 players, two tricks left, no pass) every holding of the hidden cards that is
consistent with the seat's knowledge comes out over many samples, and nothing else: the
consistent holdings are found independently, by replaying the record with every split of
the hidden cards and keeping those the rules allow and the seat's view cannot tell apart.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from engine_helpers import random_action, random_deck

from trickref.engine import cards as C
from trickref.engine.base import GameState
from trickref.engine.cancellation_hearts import CancellationHeartsState
from trickref.engine.games import new_game
from trickref.engine.hearts import HeartsState


def shown_voids(s: GameState) -> list[set[int]]:
    """The suits each seat has failed to follow this hand."""
    voids: list[set[int]] = [set() for _ in range(s.n)]
    trick: list[int] = []
    for p, a in s.actions:
        if a.kind != "play":
            continue
        if trick and a.value // 13 != trick[0] // 13:
            voids[p].add(trick[0] // 13)
        trick.append(a.value)
        if len(trick) == s.n:
            trick = []
    return voids


def hidden_from(s: GameState, seat: int) -> Counter[int]:
    """The cards in the other seats' hands and in flight (passed, not yet received)."""
    out: Counter[int] = Counter()
    for p in range(s.n):
        if p != seat:
            out.update(s.hand_of(p))
    locs = s.card_locations()
    assert locs is not None
    out.update(locs["passing"])
    if isinstance(s, CancellationHeartsState) and s.widow_taker != seat:
        out.update(s.widow)  # face down (on the table, or taken by another seat)
    return out


def check_world(s: HeartsState | CancellationHeartsState, seat: int, rng: random.Random) -> None:
    w = s.sample_world(seat, rng)
    assert w.view(seat) == s.view(seat)
    assert GameState.from_json(w.to_json()) == w  # a legal state: its record replays to it
    assert hidden_from(w, seat) == hidden_from(s, seat)
    for p in range(s.n):
        if p != seat:
            assert len(w.hand_of(p)) == len(s.hand_of(p))
            assert not {c // 13 for c in w.hand_of(p)} & shown_voids(s)[p], "a shown void holds a card"
    assert w.totals == s.totals and w.hand_number == s.hand_number


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_sampled_worlds_look_the_same_to_the_seat(n: int) -> None:
    rng = random.Random(n)
    s = new_game("hearts", n, {"target": 10**6})
    assert isinstance(s, HeartsState)
    checked = 0
    for _ in range(4):  # four hands: every pass direction, and the no-pass hand of 4 players
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            if rng.random() < 0.25:
                for seat in range(n):
                    check_world(s, seat, rng)
                    checked += 1
            s.apply(*reversed(random_action(s, rng)))
        for seat in range(n):  # between hands: nothing hidden
            assert s.sample_world(seat, rng) == s
    assert checked > 20


@pytest.mark.parametrize("n,options", [(6, {}), (7, {"passing": "right"}), (8, {"no_points_on_first_trick": False}),
                                       (9, {}), (10, {"passing": "none"}), (11, {})])
def test_cancellation_worlds_look_the_same_to_the_seat(n: int, options: dict[str, object]) -> None:
    rng = random.Random(n)
    s = new_game("cancellation-hearts", n, {"target": 10**6, **options})
    assert isinstance(s, CancellationHeartsState)
    checked = 0
    for _ in range(2):
        s.start_hand(random_deck(rng, 2))
        while s.turn_seats():
            if rng.random() < 0.1:
                for seat in rng.sample(range(n), 3):
                    check_world(s, seat, rng)
                    checked += 1
            s.apply(*reversed(random_action(s, rng)))
    assert checked > 20


def test_sampled_worlds_differ_from_the_real_one() -> None:
    rng = random.Random(5)
    s = new_game("hearts", 4, {"target": 10**6})
    assert isinstance(s, HeartsState)
    s.start_hand(random_deck(rng, 1))
    while s.phase != "play":
        s.apply(*reversed(random_action(s, rng)))
    other = [s.sample_world(0, rng).hand_of(1) for _ in range(20)]
    assert len({tuple(h) for h in other}) > 10


def consistent_holdings(s: HeartsState, seat: int) -> set[tuple[tuple[int, ...], ...]]:
    """Every split of the hidden cards over the other seats' hands (a no-pass hand) that the
    rules allow (the record replays with a deck dealing it) and ``seat`` cannot tell apart."""
    n = s.n
    others = [p for p in range(n) if p != seat]
    hidden = sorted(hidden_from(s, seat))
    sizes = [len(s.hand_of(p)) for p in others]
    played: list[list[int]] = [[] for _ in range(n)]
    for p, a in s.actions:
        if a.kind == "play":
            played[p].append(a.value)
    want = s.view(seat)
    rec = s.to_json()
    first = (s.dealer + 1) % n
    found = set()
    for perm in set(itertools.permutations(hidden)):
        split, i = [], 0
        for k in sizes:
            split.append(tuple(sorted(perm[i:i + k])))
            i += k
        hands = {seat: s.hand_of(seat)}
        hands.update({p: list(h) for p, h in zip(others, split, strict=True)})
        deck: list[int] = [0] * 52
        for p in range(n):
            deck[(p - first) % n::n] = hands[p] + played[p]
        rec["hands"][-1]["deck"] = C.names(deck)
        try:
            w = GameState.from_json(rec)
        except ValueError:
            continue
        if w.view(seat) == want:
            found.add(tuple(split))
    return found


def test_every_consistent_holding_comes_out() -> None:
    rng = random.Random(11)
    s = new_game("hearts", 4, {"target": 10**6})
    assert isinstance(s, HeartsState)
    while True:  # a no-pass hand (the fourth) with a void shown, two tricks left
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            if s.hand_number % 4 == 0 and s.tricks_played == 11 and not s.trick:
                break
            s.apply(*reversed(random_action(s, rng)))
        if s.turn_seats() and any(shown_voids(s)[p] for p in (1, 2, 3)):
            break
        while s.turn_seats():
            s.apply(*reversed(random_action(s, rng)))
    seat = 0
    want = consistent_holdings(s, seat)
    everything = len(set(itertools.permutations(sorted(hidden_from(s, seat))))) // 8  # 2+2+2 splits
    assert 1 < len(want) < everything, "the position should rule some holdings out"
    seen = Counter()
    for _ in range(60 * len(want)):
        w = s.sample_world(seat, rng)
        seen[tuple(tuple(w.hand_of(p)) for p in (1, 2, 3))] += 1
    assert set(seen) == want
