"""A card of a deal the reader cannot read, through the whole table: the simulated dealer (or the
unmodified firmware on the physical twin) behind its pty, the real driver, host and referee, and
simulated people doing what the screen says.

The card goes to the reject pocket and the deal ends without it. In a game without a stock the
table no longer has every card gathered and the hand dealt again: the screen says one card could
not be read and every other card went where it belongs; the person puts it back on the hopper,
presses Resume, and the dealer deals just that card to its pocket. The hand then plays exactly
as it does without the fault, also when the power goes while the screen waits for the card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trickref.device.simulated.table import PowerCut, SimTable
from trickref.engine.referee.events import DealDone
from trickref.engine.referee.fault_words import UNREAD_DEAL_WORDS


def _hand(t: SimTable) -> Any:
    g = t.referee.game
    assert g is not None and len(g.hand_results) == 1
    return g.finished_hands[0]


@pytest.fixture(scope="module")
def clean_hand() -> Any:
    with SimTable("hearts", 4, seed=3) as t:
        t.start()
        t.run(max_hands=1)
        return _hand(t)


@pytest.mark.parametrize("twin", [False, True], ids=["simulated", "twin"])
def test_an_unread_card_of_a_deal_is_dealt_alone(twin: bool, clean_hand: Any) -> None:
    with SimTable("hearts", 4, seed=3, faults=[("misread", 1)], twin=twin) as t:
        t.start()
        t.run(max_hands=1)
        assert len(t.recoveries) == 1 and t.recoveries[0].startswith("1 card of the deal could not be read")
        texts = [m.text for m in t.messages]
        assert any(x.startswith("Dealing the 1 card the reader could not read") for x in texts), texts
        assert not any(x.startswith("Redealing") for x in texts), texts
        assert _hand(t) == clean_hand  # the same deal, the same plays


def test_with_cards_set_aside_in_the_reject_pocket() -> None:
    """Hearts at five: 2C and 2D lie in the reject pocket with the unread card; the people put
    all three on the hopper, the dealer deals the unread one to its seat and the two back."""
    with SimTable("hearts", 5, seed=2, faults=[("misread", 1)], twin=True) as t:
        t.start()
        t.run(max_hands=1)
        assert len(t.recoveries) == 1 and UNREAD_DEAL_WORDS in t.recoveries[0], t.recoveries
        assert len(t.referee.game.hand_results) == 1


def test_a_power_cut_while_the_screen_asks_for_the_unread_card(tmp_path: Path, clean_hand: Any) -> None:
    journal = str(tmp_path / "j")
    first = SimTable("hearts", 4, seed=3, faults=[("misread", 1)], journal_path=journal)

    def cut(ev: Any, ref: Any) -> bool:  # on the table's worker, once ev is journaled and handled
        return isinstance(ev, DealDone) and bool(ev.unread)

    first.host.cut_after = cut
    try:
        first.start()
        with pytest.raises(PowerCut):
            first.run(max_hands=1)
    finally:
        first.close()
    with SimTable("hearts", 4, seed=3, journal_path=journal) as second:
        second.start()
        assert second.replayed > 0
        ref = second.referee
        assert UNREAD_DEAL_WORDS in (ref.dealer_fault or "") and len(ref.deal_unread) == 1
        # the fresh dealer is put back as the model says: 51 cards in the pockets, one rejected
        assert sorted(len(v) for v in ref.places.at.values()) == [1, 12, 13, 13, 13]
        second.run(max_hands=1)
        assert _hand(second) == clean_hand
