"""An e-stop or a dealer reboot in the middle of a Release (the hand-over of passed cards: one
DEAL_PLAN over the cards parked in the loop), on the real path: the table host, the Dealer
driver and the dealer simulator behind its pty, bots feeding their passes and plays. The e-stop's
reset carries the card in the read window to the reject pocket; a reboot loses the dealer's
unsent per-card events and the cards on the belt. The referee asks people to put the cards of the
reject pocket, the belt and the read window in the play slot before Resume; passed cards it still
cannot find are counted on the shared screen (never named there) and named to each receiver on
their own screen. The simulator's person does what the screen says, and the hand is played to its
end with every card where the referee says it is. The same stops in a deal itself (a DealPlan)
are recovered by gathering every card (the reject pocket too) and redealing."""

from __future__ import annotations

from typing import Any

import pytest
from release_strike import at_release_card

from trickref.device.dealer import messages as m
from trickref.device.simulated.table import PowerCut, SimTable
from trickref.device.table.dealers import target_byte
from trickref.engine import cards as C
from trickref.engine.referee.commands import Release
from trickref.engine.referee.events import DealerFault
from trickref.ui.i18n import set_language
from trickref.ui.referee_words import translate, understood


def _strike(table: SimTable, kind: str, after: int) -> list[int]:
    """At the ``after``-th card the first Release delivers: the e-stop button is pressed, or
    the dealer reboots (on the simulator's thread, so it strikes at the same card)."""
    sim = table.sim
    assert sim is not None

    def strike() -> None:
        if kind == "estop":
            sim.board.estop_button = True
        else:  # the watchdog's reboot, at the end of this firmware pass
            sim.board.reboot_requested = True

    return at_release_card(table, after, strike)


def _every_card_accounted(table: SimTable, decks: int) -> None:
    """The simulator holds the whole deck once, nothing in the reject pocket, on the belt or in
    the read window, and each pocket holds what the referee's model says it does."""
    sim = table.sim
    assert sim is not None
    pockets, loop, gate = table.referee.places.restore()
    with sim.lock:
        b = sim.board
        assert b.tray(m.REJECT) == [] and b.gate is None and not b.belt_cards
        held = [c for cards in b.trays.values() for c in cards] + list(b.hopper) + list(b.slot)
        assert sorted(held) == sorted(C.full_deck(decks))
        for target, cards in pockets.items():
            byte = target_byte(target)
            assert sorted(b.tray(byte)) == sorted(cards), (target, C.names(cards), C.names(b.tray(byte)))
    assert loop == [] and gate == []


def _words_clear(table: SimTable) -> None:
    """Every fault paragraph and every message about the missing passed cards is a sentence the
    kiosk gives whole in its languages, and the shared screen names no card."""
    names = set(C.NAMES)
    said = [(msg.text, msg.seat) for msg in table.messages
            if "Dealer stopped" in msg.text or "passed to you" in msg.text]
    assert any("Dealer stopped" in t for t, _ in said)
    for text, seat in said:
        assert understood(text), text
        if seat is None:  # the shared screen: no card named
            assert not names & set(text.replace(",", " ").replace(";", " ").split()), text
        for language in ("fr", "ht", "tr"):
            set_language(language)
            try:
                assert translate(text) != text, (language, text)
            finally:
                set_language("en")


CASES = [("hearts", 4, 5, 1), ("cancellation-hearts", 6, 4, 2)]


@pytest.mark.parametrize("kind", ["estop", "reboot"])
@pytest.mark.parametrize(("game", "players", "after", "decks"), CASES)
def test_a_stop_in_the_middle_of_the_passes(kind: str, game: str, players: int, after: int, decks: int) -> None:
    with SimTable(game, players, seed=5) as table:
        hit = _strike(table, kind, after)
        table.start()
        table.run(max_hands=1)
        assert hit, "the stop never struck a Release"
        g = table.referee.game
        assert g is not None and len(g.hand_results) == 1  # the hand was played to its end
        if kind == "estop":
            assert any("emergency stop" in r for r in table.recoveries), table.recoveries
        _every_card_accounted(table, decks)
        _words_clear(table)


@pytest.mark.parametrize("kind", ["estop", "reboot"])
def test_a_stop_in_the_middle_of_the_deal(kind: str) -> None:
    """The same stops ten cards into the deal itself (a DealPlan): Resume gathers every card
    (the reject pocket, the belt and the read window too) and the hand is redealt."""
    with SimTable("hearts", 4, seed=5) as table:
        sim = table.sim
        assert sim is not None
        fw = sim.firmware.dealer
        landed, count = fw.landed, [0]

        def strike(card: int, target: int, conf: int, kind_: int) -> None:
            landed(card, target, conf, kind_)
            count[0] += 1
            if count[0] == 10:
                if kind == "estop":
                    sim.board.estop_button = True
                else:
                    sim.board.reboot_requested = True

        fw.landed = strike
        table.start()
        table.run(max_hands=1)
        assert count[0] >= 10
        g = table.referee.game
        assert g is not None and len(g.hand_results) == 1
        assert len(table.recoveries) == 1, table.recoveries
        _every_card_accounted(table, 1)


def test_the_host_loses_power_while_passed_cards_are_missing(tmp_path: Any) -> None:
    """The journal keeps the fault that counted the missing passed cards: the restarted host (a
    fresh simulator put back where the referee's model says, those cards in the hopper) hands
    them over, and the hand ends."""
    journal = str(tmp_path / "journal.jsonl")
    with SimTable("hearts", 4, seed=5, journal_path=journal) as table:
        hit = _strike(table, "reboot", 5)
        table.host.cut_after = lambda ev, ref: isinstance(ev, DealerFault) and bool(ev.missing)
        table.start()
        with pytest.raises(PowerCut):
            table.run(max_hands=1)
        assert hit
    with SimTable("hearts", 4, seed=5, journal_path=journal) as again:
        again.start()
        head = again.referee.steps[0] if again.referee.steps else None
        assert isinstance(head, Release) and head.step == hit[0]
        again.run(max_hands=1)
        g = again.referee.game
        assert g is not None and len(g.hand_results) == 1
        _every_card_accounted(again, 1)
