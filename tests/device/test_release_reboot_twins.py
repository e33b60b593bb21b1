"""A dealer reboot (the watchdog) in the middle of a two-deck Release (Cancellation Hearts: the
passed cards handed over by one DEAL_PLAN over the loop), struck at every card of the hand-over.

The reboot loses the dealer's unsent per-card events: a card it delivered just before is in its
receiver's pocket unreported. With both copies of a card in the plan (QH to seat 1 and to seat
3), the Release done again used to send the remaining copy to the first of the two entries again
(the dealer fills a card's entries in plan order), so seat 1 ended with both QH while the screen
asked seat 3 to look for theirs. Every seat's pocket is compared with the referee's hand before
every play and at the end of the hand, at every strike point; the simulated person does only what
the screen tells them."""

from __future__ import annotations

from collections import Counter

import pytest
from release_strike import at_release_card

from trickref.device.dealer import messages as m
from trickref.device.simulated.table import SimTable
from trickref.device.table.dealers import _twins_last_first, target_byte
from trickref.engine import cards as C
from trickref.ui.i18n import set_language
from trickref.ui.referee_words import seat_words, understood

SEEDS = {5: 18, 1: 18}  # seed -> the first Release's cards (both have seven or so cards twice)


class _Checked(SimTable):
    """A SimTable that compares every seat's pocket with the referee's hand before each play."""

    def feed(self, card: int, seat: int) -> None:
        self.check_pockets(f"before {C.NAMES[card]} from seat {seat}")
        super().feed(card, seat)

    def check_pockets(self, when: str) -> None:
        g = self.referee.game
        sim = self.sim
        if g is None or sim is None or g.phase != "play":
            return
        with sim.lock:
            pockets = {s: Counter(sim.board.trays.get(s, [])) for s in range(self.players)}
        for s in range(self.players):
            want = Counter(g.hand_of(s))
            assert pockets[s] == want, (when, s, "too many", C.names(list((pockets[s] - want).elements())),
                                        "lacking", C.names(list((want - pockets[s]).elements())))


@pytest.mark.parametrize(("seed", "after"), [(s, a) for s, n in SEEDS.items() for a in range(1, n + 1)])
def test_every_pocket_is_right_after_a_reboot_at_any_card(seed: int, after: int) -> None:
    with _Checked("cancellation-hearts", 6, seed=seed) as table:
        sim = table.sim
        assert sim is not None

        def strike() -> None:
            sim.board.reboot_requested = True  # the watchdog, at the end of this firmware pass

        hit = at_release_card(table, after, strike)
        table.start()
        table.run(max_hands=1)
        assert hit, "the reboot never struck a Release"
        g = table.referee.game
        assert g is not None and len(g.hand_results) == 1  # the hand was played to its end
        pockets, loop, gate = table.referee.places.restore()
        with sim.lock:
            b = sim.board
            assert b.tray(m.REJECT) == [] and b.gate is None and not b.belt_cards and not b.slot
            held = [c for cards in b.trays.values() for c in cards] + list(b.hopper)
            assert sorted(held) == sorted(C.full_deck(2))
            for target, cards in pockets.items():
                assert sorted(b.tray(target_byte(target))) == sorted(cards), target
        assert loop == [] and gate == []
        _said_whole(table)


def _said_whole(table: SimTable) -> None:
    """Each receiver's words about the passed cards the dealer lost track of are said to that
    seat only, and come out whole in every language the kiosk speaks."""
    for msg in table.messages:
        if "passed to you" not in msg.text:
            continue
        assert msg.seat is not None and understood(msg.text), msg.text
        for language in ("fr", "ht", "tr"):
            set_language(language)
            try:
                out = seat_words(msg.text)
                assert "{" not in out and "passed to you" not in out, (language, out)
            finally:
                set_language("en")


def test_a_receiver_holding_another_copy_is_told_to_keep_it() -> None:
    """Seed 5, struck at the Release's 9th card: QD passed to seat 3 is lost track of while seat
    3 holds the other QD: they put exactly the named copies in the play slot and keep theirs."""
    with _Checked("cancellation-hearts", 6, seed=5) as table:
        sim = table.sim
        assert sim is not None
        hit = at_release_card(table, 9, lambda: setattr(sim.board, "reboot_requested", True))
        table.start()
        table.run(max_hands=1)
        assert hit
        said = [(m.seat, m.text) for m in table.messages if "passed to you" in m.text]
        assert said == [(3, "Bot 4: look in your pocket for JH, QH, QD (passed to you); put exactly those in the "
                            "play slot and keep your other QD")], said
        _said_whole(table)


def test_twins_go_last_first_when_sent_again() -> None:
    """A card twice in a Release done again: its entries in the reverse of the last plan's
    order (the dealer fills them in plan order; a reboot may have filled the first unreported)."""
    qh, qs, ah = C.parse("QH"), C.parse("QS"), C.parse("AH")
    sent = [(qh, 1), (qs, 2), (qh, 3), (ah, 4)]
    assert _twins_last_first([(qh, 1), (qs, 2), (qh, 3)], sent) == [(qh, 3), (qs, 2), (qh, 1)]
    assert _twins_last_first([(qh, 3), (qh, 1)], [(qh, 3), (qh, 1)]) == [(qh, 1), (qh, 3)]
    assert _twins_last_first([(qh, 1), (qs, 2)], sent) == [(qh, 1), (qs, 2)]  # one copy left: as it was
    assert _twins_last_first([(qh, 1), (qh, 3)], None) == [(qh, 1), (qh, 3)]  # the first time: as planned


def test_a_restarted_host_sends_the_twins_last_first_after_the_dealer_lost_the_plan() -> None:
    """The table and the dealer lose power together in a Release (QH to seat 0 and to seat 1):
    the dealer had delivered the first QH. The restarted host (its adapter knows no plan it
    sent) sends the Release under its first id; the dealer says that step was interrupted by its
    reboot, and the plan goes again under the next id with the twins last first: the other QH
    goes to seat 1, and the copy the deal misses is the one in seat 0's pocket."""
    from trickref.device.dealer.driver import Dealer
    from trickref.device.dealer.sim import DealerSimulator
    from trickref.device.table.dealers import DealerAdapter
    from trickref.engine.referee.commands import Release
    from trickref.engine.referee.events import DealerFault

    qh, c2 = C.parse("QH"), C.parse("2C")
    release = Release((("QH", "seat:0"), ("2C", "seat:1"), ("QH", "seat:1")), step=5)
    with DealerSimulator(seats=2, speed=50.0, seed=3) as sim:
        sim.load_deck([qh, c2, qh])
        fw = sim.firmware.dealer
        landed, count = fw.landed, [0]

        def strike(card: int, target: int, conf: int, kind: int) -> None:
            landed(card, target, conf, kind)
            count[0] += 1
            if count[0] == 1:  # the power goes right after the first QH reached seat 0
                sim.board.reboot_requested = True

        fw.landed = strike
        driver = Dealer(sim.stable_path, link_timeout=2.0, stall_timeout=30.0)
        driver.open()
        try:
            assert isinstance(DealerAdapter(driver).run(release), DealerFault)
        finally:
            driver.close()
        with sim.lock:
            assert sim.board.tray(0) == [qh] and sim.board.tray(1) == []
        sim.strays_to_slot()  # the screen's words: the belt's and the read window's cards in the play slot
        driver = Dealer(sim.stable_path, link_timeout=2.0, stall_timeout=30.0)  # the restarted host
        driver.open()
        try:
            out = DealerAdapter(driver).run(release)
        finally:
            driver.close()
        assert isinstance(out, DealerFault) and out.missing == (("QH", "seat:0"),), out
        with sim.lock:
            assert sim.board.tray(0) == [qh] and sorted(sim.board.tray(1)) == sorted([c2, qh])
