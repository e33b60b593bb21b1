"""A card fed while the table is stopped for a silent link is waited for, as itself (issue 18, the
campaign's power-cut hand 219: Cancellation Hearts, 6 players, seed 9219, "seat 0's pocket does
not hold AD").

What happened there, on a host so loaded that a restart took 80 s: seat 0 had pressed OK and fed
QS of its pass (QS KH AD). While its bot was still choosing, the link fell silent under the
reader's FEED ("the dealer did not answer STATUS"), and the table stopped. The person then fed KH
anyway; its wait ("a card read, or the table stopped") ended at once, the table being stopped
already. The link came back; Resume asked the dealer about its FEED (``pending_read``): still
waiting (KH was not in the window yet), so the table went on with the same FEED, which read KH,
late. Meanwhile the person, seeing the table go on, fed AD, and took KH's read for AD's: it
believed AD read, looked again, and, the referee still counting AD in its hand (AD lay in the
read window, its FEED not yet sent), fed AD a second time from a pocket that no longer held it.

The table did nothing wrong: the dealer read KH, then AD from the window. The simulated person did:
it waits for the card it fed to be read (``TableHost.read_counts``), not for any card; a card it
fed that the table has not read yet lies in the dealer, and it feeds nothing more until it is
read. The interleaving is forced here: the silence while seat 0's bot chooses its second card,
KH reaching the play slot just after the dealer was asked about its read, and every read's answer
late until the person's next move (or LATE_S)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from dealer_testkit import wait_until

from trickref.device.dealer import messages as m
from trickref.device.dealer.sim import DealerSimulator
from trickref.device.simulated.fault_trials import _record, _Table, clean_run
from trickref.device.table.host import SerialDealer
from trickref.engine import cards as C

GENEROUS = 30.0
LATE_S = 1.0  # a read's answer waits at most this long for the person's next move


def _feed_running(sim: DealerSimulator) -> bool:
    with sim.lock:
        steps = sim.firmware.dealer.steps.list
        return bool(steps) and steps[-1].type == m.FEED and steps[-1].state == m.STEP_RUNNING


class _StoppedWhileSeat0Feeds(_Table):
    """Seat 0's second card of the pass is fed while the table is stopped for a silent link and
    going on by itself (the campaign's order: "the people fix", then the feed)."""

    struck = False

    def setup_hooks(self) -> None:
        port = self.host.dealer
        assert isinstance(port, SerialDealer)
        self.recovering = threading.Event()  # the table is going on by itself (Resume under way)
        self.fed_while_stopped = threading.Event()  # the person fed and looked at the table
        self.asked = threading.Event()  # Resume asked the dealer about the read the silence cut
        self.moved = threading.Event()  # the person made a move since a read got its card
        self.late = 0  # the reads whose answer comes late (KH's and AD's, after the silence)
        adapter = port.adapter
        pending_read, read_fed = adapter.pending_read, adapter.read_fed

        def asked_about() -> int | None:
            if not self.struck:
                return pending_read()
            self.recovering.set()
            self.fed_while_stopped.wait(GENEROUS)
            out = pending_read()  # (the card has not reached the window yet: the FEED still waits)
            self.asked.set()
            return out

        def late_read() -> int:
            card = read_fed()
            if self.late:
                self.late -= 1
                self.moved.clear()
                self.moved.wait(LATE_S)  # the answer reaches the host once the person moved again
            return card

        adapter.pending_read = asked_about  # type: ignore[method-assign]
        adapter.read_fed = late_read  # type: ignore[method-assign]

    def _note(self, what: str) -> None:
        super()._note(what)
        if getattr(self, "late", 0) and what.startswith("seat "):
            self.moved.set()

    def feed(self, card: int, seat: int) -> None:
        ref = self.referee
        g = ref.game
        if not (not self.struck and seat == 0 and g is not None and g.phase == "pass"
                and len(ref.fed.get(0, [])) == 1):
            super().feed(card, seat)
            return
        self.struck = True
        sim = self.sim
        assert isinstance(sim, DealerSimulator)
        # while the bot chose its card, the link fell silent under the reader's FEED (running at
        # the dealer, waiting for a card): the table stops
        assert wait_until(lambda: _feed_running(sim), GENEROUS)
        sim.go_silent(True)
        assert self.host.wait(lambda: ref.dealer_fault is not None, GENEROUS)
        assert ref.dealer_fault_kind in ("timeout", "link_down")
        self.late = 2
        sim.go_silent(False)  # the link comes back: the table goes on by itself
        assert self.recovering.wait(GENEROUS)
        play, wait = sim.play, self.host.wait

        def reaches_the_slot_late(c: int) -> None:
            # the card reaches the play slot just after the dealer was asked about its read
            def later() -> None:
                self.asked.wait(GENEROUS)
                play(c)

            threading.Thread(target=later, daemon=True).start()

        def looks_while_stopped(pred: Callable[[], bool], timeout: float = 60.0) -> bool:
            # the person's first look at the table comes while it is still stopped
            seen = pred()
            self.fed_while_stopped.set()
            return seen or wait(pred, timeout)

        sim.play = reaches_the_slot_late  # type: ignore[method-assign]
        self.host.wait = looks_while_stopped  # type: ignore[method-assign]
        try:
            super().feed(card, seat)
        finally:
            sim.play = play  # type: ignore[method-assign]
            self.host.wait = wait  # type: ignore[method-assign]


def test_a_card_fed_while_the_link_is_silent_is_waited_for_as_itself() -> None:
    table = _StoppedWhileSeat0Feeds("cancellation-hearts", 6, seed=9219)
    table.mismatches = []
    try:
        table.setup_hooks()
        table.start()
        table.run(max_hands=1)
        assert table.struck
        assert any(r.startswith("Dealer stopped: the dealer stopped answering") for r in table.recoveries)
        g = table.referee.game
        assert g is not None
        assert table.mismatches == []
        got: Any = _record(table)
    finally:
        table.close()
    assert got == clean_run("cancellation-hearts", 6, {}, 9219)


def test_a_card_dropped_while_the_last_is_being_read_is_read_after_it() -> None:
    """What a real table sees: a person drops KH into the play slot and then AD, while KH is in
    the read window, before the host has heard of its read: the dealer reads KH, routes it to
    the loop, then reads AD from the window. Nobody is told anything; nothing is lost."""
    _ad_dropped_while_kh_is_held(passed_first=())


def test_a_card_dropped_while_the_last_is_being_read_is_read_though_its_twin_is_parked() -> None:
    """The same, after seat 1 passed its AD (two decks: the twin of seat 0's) into the loop.
    Routing KH brings seat 0's AD from the play slot to the window; the dealer took it there
    for the loop's first card (seat 1's AD), left it unread and waited for a card in the play
    slot, while the person waited for AD's read: a stuck table, the loop model a card short."""
    _ad_dropped_while_kh_is_held(passed_first=("AD", "4S", "6S"))


def _ad_dropped_while_kh_is_held(passed_first: tuple[str, ...]) -> None:
    """Seat 1 passes ``passed_first`` (parked in the loop), then seat 0 feeds QS, then KH, and
    drops AD in while the dealer holds KH, read, before the host hears of it."""
    table = _Table("cancellation-hearts", 6, seed=9219)
    table.mismatches = []
    try:
        table.start()
        table._deal_next()
        g = table.referee.game
        sim = table.sim
        assert g is not None and g.phase == "pass" and isinstance(sim, DealerSimulator)
        qs, kh, ad = (C.parse(c) for c in ("QS", "KH", "AD"))
        first = [C.parse(c) for c in passed_first]
        reads = table.host.read_counts
        port = table.host.dealer
        assert isinstance(port, SerialDealer)
        read_fed = port.adapter.read_fed
        dropped = threading.Event()  # the person dropped AD in while KH was held

        def then_ad() -> int:
            card = read_fed()
            if card == kh:  # read and held in the window, the host not told yet: AD goes in
                assert sim.board.gate == kh
                table.opened.feed(ad, 0)
                dropped.set()
            return card

        # Hooked before any card is fed: the port's thread looks ``adapter.read_fed`` up as each
        # read starts, and the read that gets KH starts once QS's has ended. Hooked after QS was
        # read, the port's thread could already be inside the unhooked read that then got KH (it
        # starts the next read as soon as QS is routed, while settle() sees a table waiting for a
        # card): AD stayed in seat 0's pocket and the next FEED waited for a card nobody fed.
        port.adapter.read_fed = then_ad  # type: ignore[method-assign]
        if first:
            assert table.press(1, "ok")
            for c in first:
                table.feed(c, 1)
        assert table.press(0, "ok")
        table.feed(qs, 0)
        table.opened.feed(kh, 0)
        ref = table.referee
        ad_reads = 1 + first.count(ad)
        assert table.host.wait(lambda: reads["KH"] == 1 or ref.dealer_fault is not None, GENEROUS)
        assert dropped.is_set()  # KH's read was the hooked one: AD went in while KH was held
        assert table.host.wait(lambda: reads["AD"] == ad_reads or ref.dealer_fault is not None, GENEROUS)
        table.settle()
        assert table.referee.dealer_fault is None
        assert reads["KH"] == 1 and reads["AD"] == ad_reads
        assert table.referee.places.at["loop"] == [*first, qs, kh, ad]
        with sim.lock:
            assert sim.board.gate is None and not sim.board.slot
            assert [c for c in sim.firmware.dealer.loop if c < 52] == [*first, qs, kh, ad]
        assert not any("reject" in msg.text for msg in table.messages)
    finally:
        table.close()
