"""Two decks: a card the dealer put in the reject pocket by itself (its read never reported) is
given back to the seat that fed it, not to the first pocket in the model that holds its twin.

The fault campaign's corrupt_5 trial 308081 (Cancellation Hearts, six players): seat 3 fed 5C to
play, the table stopped before its read was reported, the dealer cleared the card to the reject
pocket, and the referee told seat 2 (who also held a 5C) to take it back: seat 2 ended with two 5C
and seat 3 with none. The end-to-end reproduction is tests/device/test_twin_reject.py; this is
the referee's part alone, fast, at every such moment of a few seeded hands."""

from __future__ import annotations

from collections import Counter

import pytest

from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.commands import Message, RouteFed, TakeBack
from trickref.engine.referee.events import CardRead, DealerMoved
from trickref.ui.i18n import set_language
from trickref.ui.referee_words import translate, understood


def _moments(seed: int) -> list[tuple[AutoTable, int, int]]:
    """(table, seat on turn, card) at the first play of ``seed``'s hand where the seat on turn
    holds a card a lower seat also holds."""
    t = AutoTable(seed=seed, entry="reader")
    t.start("cancellation-hearts", 6)
    for _ in range(400):
        g = t.ref.game
        assert g is not None
        seat = g.to_move if g.phase == "play" and t.ref.waiting == "turn" and not t.ref.steps else None
        if seat is not None:
            twins = [c for c in sorted(set(g.hand_of(seat))) if any(c in g.hand_of(s) for s in range(seat))]
            if twins:
                return [(t, seat, twins[0])]
        if not t.step():
            break
    return []


def test_the_feeder_takes_back_a_two_deck_card_the_dealer_rejected() -> None:
    found = 0
    for seed in range(1, 6):
        for t, seat, card in _moments(seed):
            g = t.ref.game
            assert g is not None
            out = t.feed(DealerMoved(((C.NAMES[card], "reject"),), 1))
            taken = [c for c in out if isinstance(c, TakeBack)]
            assert [(c.card, c.dest) for c in taken] == [(C.NAMES[card], f"seat:{seat}")], (seed, taken)
            for s in range(g.n):
                assert Counter(t.ref.places.at.get(f"seat:{s}", [])) == Counter(g.hand_of(s)), (seed, s)
            found += 1
    assert found >= 3


# ---------------------------------------------------------------- two seats equally likely
# A pass (every seat on turn): nobody pressed OK ("I am feeding now", which a person at real panels
# may skip: the reader does not know who fed a card) and neither holder of the card has begun
# feeding. Before, the lower seat was told to take "their" card back: when the other had fed it,
# the lower seat's pocket held two copies and the feeder's none, while the referee's model had one
# in each (pocket ≠ referee, and nobody could tell).


def _pass_twins(seed: int) -> tuple[AutoTable, int, int, int] | None:
    """(table, card, lower seat, higher seat) at the start of ``seed``'s first pass, where two
    seats hold a copy of ``card`` and nobody has pressed OK or fed a card."""
    t = AutoTable(seed=seed, entry="reader")
    t.start("cancellation-hearts", 6)
    g = t.ref.game
    assert g is not None and g.phase == "pass" and t.ref.waiting == "turn" and not t.ref.steps
    assert t.ref.claim is None and not any(t.ref.fed.values())
    for card in range(52):
        holders = [s for s in range(g.n) if card in g.hand_of(s)]
        if len(holders) == 2:
            return t, card, holders[0], holders[1]
    return None


def _follow(out: list[object], pockets: dict[int, Counter[int]], reject: list[int]) -> None:
    """The people do what the screen says: a ``TakeBack`` naming one seat puts the card there;
    one naming several is done by whichever of them no longer holds the card (exactly one)."""
    for c in out:
        if not isinstance(c, TakeBack):
            continue
        card = C.parse(c.card)
        if c.owners:
            missing = [s for s in c.owners if pockets[s][card] == 0]
            assert len(missing) == 1, (c, missing)
            seat = missing[0]
        else:
            seat = int(c.dest[5:])
        reject.remove(card)
        pockets[seat][card] += 1


@pytest.mark.parametrize("feeder", ["lower", "higher"])
def test_a_rejected_card_two_seats_may_have_fed_is_taken_back_by_the_one_who_fed_it(feeder: str) -> None:
    found = 0
    for seed in range(1, 4):
        got = _pass_twins(seed)
        if got is None:
            continue
        t, card, lo, hi = got
        g = t.ref.game
        assert g is not None
        fed_by = lo if feeder == "lower" else hi
        pockets = {s: Counter(t.ref.places.at.get(f"seat:{s}", [])) for s in range(g.n)}
        pockets[fed_by][card] -= 1  # fed, then cleared by the dealer to the reject pocket unreported
        reject = [card]
        out = t.feed(DealerMoved(((C.NAMES[card], "reject"),), 1))
        _follow(out, pockets, reject)
        assert reject == [], (seed, out)
        for s in range(g.n):
            assert +pockets[s] == Counter(t.ref.places.at.get(f"seat:{s}", [])) == Counter(g.hand_of(s)), (seed, s)
        # both holders told, each on their own screen, naming the card; the shared screen names
        # the two seats, never the card
        said = [c for c in out if isinstance(c, Message) and "reject pocket" in c.text]
        assert sorted(c.seat for c in said if c.seat is not None) == [lo, hi], said
        assert all(C.NAMES[card] in c.text for c in said if c.seat is not None), said
        public = [c.text for c in said if c.seat is None]
        assert len(public) == 1 and g.names[lo] in public[0] and g.names[hi] in public[0], public
        assert not set(C.NAMES) & set(public[0].replace(",", " ").replace(":", " ").split()), public
        for c in said:
            assert understood(c.text), c.text
            for language in ("fr", "ht", "tr"):
                set_language(language)
                try:
                    assert translate(c.text) != c.text, (language, c.text)
                finally:
                    set_language("en")
        # the hand goes on: every pocket stays the referee's hand until the play
        for _ in range(60):
            if g.phase != "pass" or not t.step():
                break
        assert g.phase == "play", g.phase
        found += 1
    assert found >= 2


@pytest.mark.parametrize("feeder", ["lower", "higher"])
def test_a_twin_fed_to_pass_without_ok_goes_back_to_the_one_who_fed_it(feeder: str) -> None:
    """The same pass, its read reported this time: the card is in two hands and nobody pressed
    OK, so the referee refuses it and routes it to the reject pocket. Before, the model's copy
    came out of the lower seat's hand and stayed out (no words for anyone to take it back):
    with the higher seat the feeder, the lower seat's pocket held a card the model did not, and
    the feeder's model a card its pocket did not."""
    found = 0
    for seed in range(1, 4):
        got = _pass_twins(seed)
        if got is None:
            continue
        t, card, lo, hi = got
        g = t.ref.game
        assert g is not None
        fed_by = lo if feeder == "lower" else hi
        pockets = {s: Counter(t.ref.places.at.get(f"seat:{s}", [])) for s in range(g.n)}
        pockets[fed_by][card] -= 1  # fed; the referee sends it to the reject pocket
        reject = [card]
        n = len(t.commands)
        t.feed(CardRead(C.NAMES[card]))
        t.drain()
        out = t.commands[n:]
        assert any(isinstance(c, RouteFed) and c.target == "reject" for c in out), out
        _follow(out, pockets, reject)
        assert reject == [], (seed, out)
        for s in range(g.n):
            assert +pockets[s] == Counter(t.ref.places.at.get(f"seat:{s}", [])) == Counter(g.hand_of(s)), (seed, s)
        said = [c for c in out if isinstance(c, Message) and c.seat is not None and "reject pocket" in c.text]
        assert sorted(c.seat for c in said) == [lo, hi], said
        for _ in range(60):
            if g.phase != "pass" or not t.step():
                break
        assert g.phase == "play", g.phase
        for s in range(g.n):
            assert Counter(t.ref.places.at.get(f"seat:{s}", [])) == Counter(g.hand_of(s)), (seed, s)
        found += 1
    assert found >= 2


def _off_turn_twins(seed: int) -> tuple[AutoTable, int, int, int] | None:
    """(table, card, lower seat, higher seat) at the first play of ``seed``'s hand where two
    seats off turn each hold a copy of a card the seat on turn does not hold."""
    t = AutoTable(seed=seed, entry="reader")
    t.start("cancellation-hearts", 6)
    for _ in range(400):
        g = t.ref.game
        assert g is not None
        seat = g.to_move if g.phase == "play" and t.ref.waiting == "turn" and not t.ref.steps else None
        if seat is not None:
            for card in range(52):
                holders = [s for s in range(g.n) if card in g.hand_of(s)]
                if len(holders) == 2 and seat not in holders:
                    return t, card, holders[0], holders[1]
        if not t.step():
            break
    return None


@pytest.mark.parametrize("feeder", ["lower", "higher"])
def test_a_twin_fed_out_of_turn_goes_back_to_the_one_who_fed_it(feeder: str) -> None:
    """In the play, a card two seats off turn hold is fed (neither's turn). Before, it was
    routed to the lower seat's pocket ("a card of P1's was fed out of turn: it goes back to
    P1"): when the higher seat had fed it, the lower pocket held two copies, the feeder's none.
    Now it goes to the reject pocket and both are told."""
    found = 0
    for seed in range(1, 4):
        got = _off_turn_twins(seed)
        if got is None:
            continue
        t, card, lo, hi = got
        g = t.ref.game
        assert g is not None
        fed_by = lo if feeder == "lower" else hi
        pockets = {s: Counter(t.ref.places.at.get(f"seat:{s}", [])) for s in range(g.n)}
        pockets[fed_by][card] -= 1
        reject: list[int] = []
        n = len(t.commands)
        t.feed(CardRead(C.NAMES[card]))
        t.drain()
        out = t.commands[n:]
        for c in out:  # the dealer routes it where the step says
            if isinstance(c, RouteFed) and c.card == C.NAMES[card]:
                if c.target.startswith("seat:"):
                    pockets[int(c.target[5:])][card] += 1
                else:
                    reject.append(card)
        _follow(out, pockets, reject)
        assert reject == [], (seed, out)
        for s in range(g.n):
            assert +pockets[s] == Counter(t.ref.places.at.get(f"seat:{s}", [])) == Counter(g.hand_of(s)), (seed, s)
        said = [c for c in out if isinstance(c, Message) and c.seat is not None and "reject pocket" in c.text]
        assert sorted(c.seat for c in said) == [lo, hi], said
        for c in out:
            if isinstance(c, Message):
                assert understood(c.text), c.text
        found += 1
    assert found >= 2
