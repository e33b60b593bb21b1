"""A card a stop leaves short of the read gate, in the feed path, on the physical twin with the
unmodified firmware (the host passing every millisecond: no threads, the same every run).

The e-stop stops the feed rollers where they are. A card they were bringing to the read window
stays in the feed path, short of the gate, where the gate sees nothing; the next feed move brings
it in ahead of any card put in the play slot since. Found through the whole table on the twin
(the fault campaign's estop_fetch row, ``run_trial(..., twin=True)``, seed 11028): a played card
fed from the slot, cut 28 mm short; after RESET the next FEED waited for a card in the empty slot,
and the table waited for good (the players had fed theirs).
"""

from __future__ import annotations

from typing import Any

import pytest

from trickref.device.dealer import twin_host as th

P = th.P
STOCK = [5, 9, 14, 22, 31, 40, 47]  # parked in the loop (German Whist's stock, say)


class Table:
    def __init__(self) -> None:
        self.tw = th.new_twin(seats=2, seed=3, scale={"sorter.error_chance": 0.0})
        self.tw.mech.hopper = list(STOCK)
        self.host = th.TwinHost(self.tw, pass_ms=1)
        self.host.hello()
        end = self.host.deal(1, [(c, th.LOOP) for c in STOCK])
        assert end[1] == P.EV_DEAL_DONE, end
        self.rest()
        self.sid = 0x6000

    def rest(self) -> None:
        while self.tw.mech.busy() or self.tw.fw.dealer.mech.busy() or self.on_path():
            self.host.run(5)

    def on_path(self) -> list[int]:
        return [c.card for c in self.tw.mech.cards if c.mode in ("belt", "fb", "r", "loop", "drop")]

    def command(self, ftype: int, body: bytes) -> int:
        self.sid += 1
        start = len(self.host.events)
        r = self.host.command(ftype, P.u16(self.sid) + body)
        assert r.type == P.OK, r
        return start

    def short_of_gate(self, card: int) -> Any:
        """``card`` in the feed path, its leading edge 10 mm or more short of the gate."""
        m = self.tw.mech
        return next((c for c in m.cards if c.card == card and c.mode == "f" and c.x < m.gate_x - 10), None)

    def estop_and_reset(self) -> None:
        """The e-stop pressed, twisted out, and the table's RESET (what Resume does)."""
        self.tw.mech.estop = True
        self.host.run(50)
        self.tw.mech.estop = False
        r = self.host.command(P.RESET, b"\x00")
        assert r.type == P.OK, r
        self.host.run(500)

    def fed(self, card: int) -> int:
        """``card`` dropped in the play slot and read (FEED 1 HOLD): the card presented."""
        self.tw.mech.slot.append(card)
        start = self.command(P.FEED, bytes((1, P.HOLD)))
        e = self.host.until((P.EV_PRESENTED,), max_ms=20_000, start=start)
        return int(e[2][1])


def test_a_played_card_cut_short_of_the_gate_is_read_by_the_next_feed() -> None:
    t = Table()
    t.tw.mech.slot.append(12)
    t.command(P.FEED, bytes((1, P.HOLD)))
    for _ in range(20_000):
        t.host.run(1)
        if t.short_of_gate(12) is not None and t.tw.fw.dealer.mech.feeding:
            break
    assert t.short_of_gate(12) is not None
    t.estop_and_reset()
    assert t.short_of_gate(12) is not None and not t.tw.mech.slot  # where the stop left it
    start = t.command(P.FEED, bytes((1, P.HOLD)))  # the table reads the card played again
    e = t.host.until((P.EV_PRESENTED,), max_ms=20_000, start=start)  # before: waited for good
    assert e[2][1] == 12
    assert t.tw.fw.dealer.loop == STOCK  # the loop is as it was



def test_a_loop_card_cut_between_the_gate_and_the_window_comes_on_before_the_slot_card_is_read() -> None:
    """The e-stop while a played card's eject pulls the loop's next card (NEXT), that card's
    edge past the gate, short of the window; the played card is lifted off the belt and put in
    the play slot. Before: the FEED took the loop card for the window's card, read nothing
    three times, and its eject brought the slot card only part way in: JAM at every Resume
    (the fault campaign's estop_fetch row on the twin, seeds 11030, 11063, 11080)."""
    t = Table()
    t.tw.mech.slot.append(12)
    start = t.command(P.FEED, bytes((1, P.HOLD)))
    assert t.host.until((P.EV_PRESENTED,), max_ms=20_000, start=start)[2][1] == 12
    t.host.run(300)
    t.command(P.ROUTE_PRESENTED, bytes((P.TRICK, 0xFF, P.FEED_NEXT)))  # to the trick pocket, pulling
    m = t.tw.mech
    for _ in range(20_000):
        t.host.run(1)
        pulled = next((c for c in m.cards if c.card == STOCK[0] and c.mode == "f"), None)
        if pulled is not None and m.gate_x + 2 < pulled.x < m.gate_x + 20:
            break
    assert pulled is not None and m.gate_x < pulled.x < 80  # between the gate and the window
    t.estop_and_reset()
    assert abs(pulled.x - m.v["geometry.window_x"]) < 0.5  # RESET ran the rest of the cut move
    played = next(c for c in m.cards if c.card == 12)  # the people lift the played card out
    m.cards.remove(played)
    assert t.fed(12) == 12  # before: JAM 3 (card unread)
    assert sorted(t.tw.fw.dealer.loop) == sorted(STOCK)  # the loop card went round, not lost
    assert not m.stuck


def _stopped_out_of_the_window(t: Table, card: int, lo: float, hi: float) -> None:
    """Run until ``card``'s eject has its leading edge between ``lo`` and ``hi`` mm (past the
    window, its tail past the gate), then the e-stop, twisted out, and RESET."""
    m = t.tw.mech
    x = -1.0
    for _ in range(20_000):
        t.host.run(1)
        c = next((c for c in m.cards if c.card == card and c.mode in ("f", "fb", "belt")), None)
        x = m.pos(c, m.now) if c is not None else -1.0
        if lo < x < hi:
            break
    assert lo < x < hi, x
    t.estop_and_reset()
    t.rest()  # RESET sends it round now (MOVING: the host's commands get BUSY meanwhile)


def _jams(t: Table, start: int) -> list[tuple[int, int, bytes]]:
    return [e for e in t.host.events[start:] if e[1] in (P.EV_JAM, P.EV_FAULT, P.EV_DOUBLE_FEED)]


@pytest.mark.parametrize(("lo", "hi"), [(150.0, 160.0), (175.0, 195.0)], ids=["in F2's rollers", "on the belt"])
def test_a_card_sent_round_stopped_past_the_window_goes_into_the_loop(lo: float, hi: float) -> None:
    """The e-stop while a FETCH sends the loop's first card round (the card wanted is the
    next), that card past the gate: in F2's rollers short of the belt's grip, or on the belt
    already, with no flight following it yet. Before: the FETCH done again ran the cut move's
    rest, which pushed the card onto the belt unannounced (or the next belt run took it); the
    loop sensors took it for the wanted card's, and the table stopped at every Resume (the
    fault campaign's estop_fetch row on the twin, seed 11025). Now RESET sends it round at
    once, every flap down, the belt running from the start (with the belt standing, the rest
    closed the card's gap to a loop card ahead of it, and the switchback let it run into its
    nip: seeds 12015 and 12079): it lands on the stack at its place."""
    t = Table()
    first, wanted = STOCK[0], STOCK[1]
    t.command(P.FETCH, bytes((th.LOOP, wanted, 0)))
    _stopped_out_of_the_window(t, first, lo, hi)
    m = t.tw.mech
    start = t.command(P.FETCH, bytes((th.LOOP, wanted, 0)))  # the table's FETCH again
    e = t.host.until((P.EV_CARD_ROUTED, P.EV_JAM, P.EV_FAULT), max_ms=30_000, start=start)
    assert e[1] == P.EV_CARD_ROUTED and e[2][0] == wanted, e
    t.rest()
    assert not _jams(t, start)
    assert m.pockets[0] == [wanted] and not m.stuck
    assert t.tw.fw.dealer.loop == m.hopper == [c for c in STOCK if c != wanted]


def test_a_fetched_card_stopped_past_the_window_comes_back_to_the_loop_and_is_fetched_again() -> None:
    """The same stop with the FETCH's own card on its way to its seat's pocket (its eject
    pulling the loop's next card): it goes round into the loop instead, back in the model, and
    the FETCH done again brings it to the seat."""
    t = Table()
    wanted = STOCK[0]
    t.command(P.FETCH, bytes((th.LOOP, wanted, 1, P.FETCH_NEXT)))
    _stopped_out_of_the_window(t, wanted, 150.0, 160.0)
    m = t.tw.mech
    assert sorted(t.tw.fw.dealer.loop) == sorted(STOCK)  # a loop card again
    start = t.command(P.FETCH, bytes((th.LOOP, wanted, 1)))
    e = t.host.until((P.EV_CARD_ROUTED, P.EV_JAM, P.EV_FAULT), max_ms=60_000, start=start)
    assert e[1] == P.EV_CARD_ROUTED and e[2][0] == wanted, e
    t.rest()
    assert not _jams(t, start)
    assert m.pockets[1] == [wanted] and not m.stuck
    assert sorted(t.tw.fw.dealer.loop) == sorted(m.hopper) == sorted(STOCK[1:])


def test_a_card_the_e_stop_caught_dropping_into_its_pocket_confirms_no_later_card() -> None:
    """The e-stop while a played card drops into the trick pocket: the card falls in, and the
    pocket's opto counts it after the stop forgot its flight. Before: that count confirmed the
    next card sent to the trick pocket as it left the window; its flap came down under it and
    the card after it ran on past the pocket to the switchback: JAM at every Resume (the fault
    campaign's estop_fetch row on the twin, seed 11004, under load)."""
    from trickref.firmware import config

    t = Table()
    m = t.tw.mech
    trick = config.pocket_of(t.tw.fw.dealer.cfg, P.TRICK)
    assert t.fed(12) == 12
    t.command(P.ROUTE_PRESENTED, bytes((P.TRICK, 0xFF)))
    for _ in range(20_000):
        t.host.run(1)
        if not (m.mouth_bits() >> trick) & 1:  # in the trick pocket's mouth
            break
    assert not (m.mouth_bits() >> trick) & 1
    t.estop_and_reset()
    assert m.pockets[trick] == [12]  # it fell in
    m.pockets[trick].remove(12)  # the screen asks for it back in the play slot
    for card in (12, 20, 33):  # it, then the next plays
        assert t.fed(card) == card
        start = t.command(P.ROUTE_PRESENTED, bytes((P.TRICK, 0xFF)))
        e = t.host.until((P.EV_CARD_ROUTED, P.EV_JAM, P.EV_FAULT), max_ms=20_000, start=start)
        assert e[1] == P.EV_CARD_ROUTED and e[2][0] == card, e
        assert card in m.pockets[trick], (card, m.where())  # reported once it is in, not before
    t.rest()
    assert m.pockets[trick] == [12, 20, 33] and not m.stuck
