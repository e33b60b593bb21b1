"""Two decks: a card the dealer put in the reject pocket by itself (its read never reported) is
given back to the seat that fed it, not to the first pocket in the model that holds its twin.

The fault campaign's corrupt_5 trial 308081 (Cancellation Hearts, six players): seat 3 fed 5C to
play, the table stopped before its read was reported, the dealer cleared the card to the reject
pocket, and the referee told seat 2 (who also held a 5C) to take it back: seat 2 ended with two 5C
and seat 3 with none. The end-to-end reproduction is tests/device/test_twin_reject.py; this is
the referee's part alone, fast, at every such moment of a few seeded hands."""

from __future__ import annotations

from collections import Counter

from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.commands import TakeBack
from trickref.engine.referee.events import DealerMoved


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
