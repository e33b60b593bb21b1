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
from simtable_testkit import dealt, keep_commands

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


def _in_play_keeping_commands(table: SimTable) -> tuple[list[Any], Any]:
    """``table`` started, dealt and passed up to the first card of the hand; every command the
    referee gives from now on kept in the list returned (with the game)."""
    cmds = keep_commands(table)
    g = dealt(table)  # the deal, then the bots pass until the play begins
    for _ in range(40):
        if g.phase == "play":
            break
        seats = table.referee.bot_turns() or table._human_turns()
        table.bot_enter(seats[0])
    assert g.phase == "play"
    return cmds, g


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
        cmds, g = _in_play_keeping_commands(table)
        sim = table.sim
        assert sim is not None
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


def test_a_card_cleared_unread_is_told_and_its_feeder_takes_it_back_and_feeds_it_again() -> None:
    """The dealer was stopped (an ABORT of the read the table waited on) while a card a player
    had just fed was on its way into the read window: the card goes to the reject pocket unread
    (tests/firmware/test_fw_steps.py), the ledger names it unknown, and nobody was told. The
    host names it UNREAD; the referee says on the shared screen that whoever fed it takes it
    back and feeds it again, and the simulated person who fed it does so; the hand ends."""
    from trickref.engine.referee.events import UNREAD

    with SimTable("hearts", 4, {}, seed=41) as table:
        cmds, g = _in_play_keeping_commands(table)
        sim, world = table.sim, table.opened.world
        assert sim is not None and world is not None
        seat = g.turn_seats()[0]
        card = sorted(g.hand_of(seat))[0]
        with sim.lock:  # fed, then cleared unread (as the firmware does on that ABORT)
            sim.board.trays[seat].remove(card)
            world.fed_last[seat] = card
            sim.board.trays.setdefault(m.REJECT, []).append(card)
        table.host.post(DealerMoved(((UNREAD, "reject"),), 1))
        table.settle()
        with sim.lock:
            assert card in sim.board.trays[seat] and card not in sim.board.trays.get(m.REJECT, [])
        assert any(isinstance(c, TakeBack) and c.card == "" and c.owners == (seat,) for c in cmds), cmds
        said = [(c.text, c.seat) for c in cmds if getattr(c, "TYPE", "") == "message" and "before it was read" in c.text]
        assert said == [("A card went to the reject pocket before it was read: whoever fed it takes it back and "
                         "feeds it again", None)], said
        _words_right(said)
        assert card in g.hand_of(seat) and table.referee.rejects_seen == 1
        table.run(max_hands=1)
        assert len(g.hand_results) == 1


def test_the_host_names_a_card_cleared_unread_and_not_a_misread_one() -> None:
    """The ledger names both unknown (a misread card, whose words the read's outcome gives, and
    a card cleared from the window before its read): only the cleared one is told, as UNREAD."""
    from trickref.device.table.dealers import DealerAdapter
    from trickref.engine.referee.events import UNREAD

    class Link:
        def __init__(self) -> None:
            self.listeners: list[Any] = []

        def add_listener(self, fn: Any) -> None:
            self.listeners.append(fn)

    class Ev(dict):
        def __init__(self, kind: int, **kw: int) -> None:
            super().__init__(kw)
            self.kind = kind

    adapter = DealerAdapter(Link())  # type: ignore[arg-type]
    adapter._on_event(Ev(m.EV_MISREAD, card=m.UNKNOWN_CARD, target=m.REJECT))
    adapter._on_event(Ev(m.EV_CARD_ROUTED, card=m.UNKNOWN_CARD, target=m.REJECT))
    adapter._note_rejects([m.UNKNOWN_CARD, m.UNKNOWN_CARD, C.parse("7D")])
    moved = adapter.take_moved()
    assert moved is not None and moved.upto == 3
    assert sorted(moved.moves) == sorted([("7D", "reject"), (UNREAD, "reject")])
    adapter._note_rejects([m.UNKNOWN_CARD, m.UNKNOWN_CARD, C.parse("7D")])
    assert adapter.take_moved() is None  # told once
