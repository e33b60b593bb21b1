"""Every card's place is known after a fault (issue 18, point 2), on the real path.

The e-stop is pressed the moment the dealer has read a card a player fed (it holds it in its read
window). The person twists the button out and presses Resume; the dealer's RESET clears the card
from the window to the reject pocket. The host compares the dealer's ledger of its reject pocket
(INVENTORY) with what the referee has accounted for, and the referee says where the card went and
what to do: a card of a hand goes back into that hand (named on that player's screen only), a
card already played stays there. The simulated person does only what the screen says (a
``TakeBack``), the hand is played to its end, and every seat's pocket matches the referee's hand
before every play. The words are whole sentences the kiosk gives in French, Haitian Creole and
Turkish, and the shared screen names no card of a hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from trickref.device.dealer import messages as m
from trickref.device.simulated.fault_trials import run_trial
from trickref.device.simulated.table import SimTable
from trickref.engine import cards as C
from trickref.engine.referee.commands import TakeBack
from trickref.engine.referee.events import DealerMoved
from trickref.ui.i18n import set_language
from trickref.ui.referee_words import translate, understood


def _words_right(texts: list[tuple[str, int | None]]) -> None:
    for text, _seat in texts:
        assert understood(text), text
        for language in ("fr", "ht", "tr"):
            set_language(language)
            try:
                assert translate(text) != text, (language, text)
            finally:
                set_language("en")


@pytest.mark.parametrize("seed", [12, 13, 30])
def test_a_card_cleared_to_the_reject_pocket_is_put_back_where_it_belongs(seed: int) -> None:
    """German Whist (12), two-player Spades with a drawn card being fed back (13), hearts (30)."""
    r = run_trial("estop_read", seed, compare=True, guard_s=240.0)
    assert r.struck and r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)


def test_the_words_for_a_card_in_the_reject_pocket_and_the_person_who_follows_them() -> None:
    """The dealer's ledger says a card of seat 1's hand went to the reject pocket (as if the
    dealer had cleared it there): the referee names it on seat 1's screen only, says on the
    shared screen that its owner takes it back, and the simulated person puts it back in the
    pocket; the hand then ends as it would have."""
    with SimTable("hearts", 4, {}, seed=41) as table:
        cmds: list[Any] = []
        on = table.host.on_commands

        def keep(out: list[Any]) -> None:
            cmds.extend(out)
            if on is not None:
                on(out)

        table.host.on_commands = keep
        table.start()
        table.run(max_hands=0)  # up to the first shuffle
        table._deal_next()  # the deal, then the bots pass until the play begins
        g = table.referee.game
        assert g is not None
        sim = table.sim
        assert sim is not None
        for _ in range(40):
            if g.phase == "play":
                break
            seats = table.referee.bot_turns() or table._human_turns()
            table.bot_enter(seats[0])
        assert g.phase == "play"
        card = sorted(g.hand_of(1))[0]
        with sim.lock:  # the dealer cleared it there (its ledger says so)
            sim.board.trays[1].remove(card)
            sim.board.trays.setdefault(m.REJECT, []).append(card)
        table.host.post(DealerMoved(((C.NAMES[card], "reject"),), 1))
        table.settle()
        with sim.lock:
            assert card in sim.board.trays[1] and card not in sim.board.trays.get(m.REJECT, [])
        assert any(isinstance(c, TakeBack) and c.card == C.NAMES[card] and c.dest == "seat:1" for c in cmds)
        said = [(c.text, c.seat) for c in cmds if getattr(c, "TYPE", "") == "message" and "reject pocket" in c.text]
        assert any(seat == 1 and C.NAMES[card] in text for text, seat in said), said
        names = set(C.NAMES)
        for text, seat in said:
            if seat is None:
                assert not names & set(text.replace(",", " ").replace(":", " ").split()), text
        _words_right(said)
        assert table.referee.rejects_seen == 1
        table.run(max_hands=1)
        assert len(g.hand_results) == 1
