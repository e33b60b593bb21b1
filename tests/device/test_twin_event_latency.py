"""A single-card step's last event reaches the host when its card lands, not a second later.

The firmware batches per-card events (CARD_DEALT, CARD_ROUTED, MISREAD, DUPLICATE) for up to
EVENT_BATCH_MS (1000 ms) so that a deal's cards share EVENT frames (hardware/PROTOCOL.md section
8). The batching is for a moving mechanism: before this test, a ROUTE_PRESENTED or a FETCH whose
card landed with nothing moving after it left its CARD_ROUTED waiting the whole second, and the
host, which ends the step on that event (device/dealer/driver.py), waited with it: a second of
dead time after each card played, fed back or drawn at a real table (51 such waits in a
two-player Spades hand on the twin). Now a stopped mechanism sends what waits at once
(firmware/config.py EVENT_SEND_STOPPED; False gives the dealer as it was, for the comparison
here and in benchmarks/event_latency.py).

On the physical twin with the unmodified firmware, the host passing every millisecond."""

from __future__ import annotations

from trickref.device.dealer import twin_host as th

P = th.P
HOLD, SEAT = 0xFE, 1
ON_TIME_MS = 20  # the frame leaves within a few loop passes of the card landing


class Watch:
    def __init__(self, send_stopped: bool = True) -> None:
        self.tw = th.new_twin(seats=2, seed=3, EVENT_SEND_STOPPED=send_stopped)
        self.host = th.TwinHost(self.tw, pass_ms=1)
        self.host.hello()
        self.sid = 0x6000

    def command(self, ftype: int, body: bytes) -> int:
        self.sid += 1
        start = len(self.host.events)
        r = self.host.command(ftype, P.u16(self.sid) + body)
        assert r.type == P.OK, r
        return start

    def rest(self) -> None:
        while self.tw.mech.busy() or self.tw.fw.dealer.mech.busy():
            self.host.run(1)
        self.host.run(1500)  # anything still batched goes out: the next step starts clean

    def landed_and_heard(self, card: int, pocket: int, start: int) -> tuple[int, int]:
        """Pass by pass until the host has the step's CARD_ROUTED: the twin's ms at which
        ``card`` fell into ``pocket`` and at which the host heard of it."""
        landed = heard = -1
        for _ in range(60_000):
            self.host.run(1)
            now = self.tw.mech.now // 1000
            if landed < 0 and card in self.tw.mech.pockets.get(pocket, []):
                landed = now
            if any(e[1] == P.EV_CARD_ROUTED and e[2][0] == card for e in self.host.events[start:]):
                heard = now
                break
        assert landed >= 0 and heard >= 0, (landed, heard, self.host.events[start:])
        return landed, heard

    def fed(self, card: int) -> int:
        """A player drops ``card`` into the play slot; FEED 1 HOLD reads it."""
        self.tw.mech.slot.append(card)
        start = self.command(P.FEED, bytes((1, HOLD)))
        e = self.host.until((P.EV_PRESENTED,), start=start)
        assert e[2][1] == card, e
        return card


def test_a_played_card_routed_to_a_seat_is_heard_when_it_lands() -> None:
    w = Watch()
    for card in (12, 40, 7):  # three plays, one after the other
        w.fed(card)
        start = w.command(P.ROUTE_PRESENTED, bytes((SEAT,)))
        landed, heard = w.landed_and_heard(card, SEAT, start)
        assert heard - landed <= ON_TIME_MS, (card, landed, heard)
        w.rest()


def fetch_lateness(send_stopped: bool) -> list[int]:
    """Two cards fed into the loop through the play slot, then FETCHed to a seat: how late the
    host hears of each after it landed (twin ms)."""
    w = Watch(send_stopped)
    for card in (5, 30):
        w.fed(card)
        w.command(P.ROUTE_PRESENTED, bytes((th.LOOP,)))
        w.rest()
    late = []
    for card in (30, 5):
        start = w.command(P.FETCH, bytes((th.LOOP, card, SEAT)))
        landed, heard = w.landed_and_heard(card, SEAT, start)
        late.append(heard - landed)
        w.rest()
    return late


def test_a_card_fetched_from_the_loop_is_heard_when_it_lands() -> None:
    assert all(ms <= ON_TIME_MS for ms in fetch_lateness(True)), fetch_lateness(True)
    # the batching as it was (the mechanism stopped, the event waiting out EVENT_BATCH_MS)
    assert all(ms >= 900 for ms in fetch_lateness(False)), fetch_lateness(False)


def test_a_deals_cards_still_share_frames() -> None:
    """The batching keeps its purpose while the mechanism moves: a 52-card deal to 4 seats
    sends its 52 CARD_DEALT events in far fewer EVENT frames."""
    tw = th.new_twin(seats=4, seed=5)
    host = th.TwinHost(tw, pass_ms=1)
    host.hello()
    frames = 0
    collect = host._collect

    def counting() -> None:
        nonlocal frames
        frames += tw.link.tx.count(0)  # every COBS frame ends with one zero byte
        collect()

    host._collect = counting  # type: ignore[method-assign]
    hopper, entries = th.random_deal(4, 5)
    tw.mech.hopper = hopper
    end = host.deal(1, entries)
    assert th.deal_shortfall(end) is None
    dealt = [e for e in host.events if e[1] == P.EV_CARD_DEALT]
    assert len(dealt) == 52
    assert frames <= 52 * 2 // 3, frames  # two or three cards a frame (and the replies)


def test_the_latency_benchmark_hears_a_hand_both_ways(bench_module) -> None:
    """benchmarks/event_latency.py's hand: the same German Whist stage one under both settings,
    every pocket as the referee says; the dealer as it was leaves the host a second late on
    each of the stage's 26 plays and fetches, the dealer now on none."""
    bench = bench_module("event_latency")
    before = bench.one_hand("german-whist", 1000, "before")
    after = bench.one_hand("german-whist", 1000, "after")
    assert before["agree"] and after["agree"] and before["steps"] == after["steps"] > 26
    assert before["late_steps"] >= 20 and after["late_steps"] == 0, (before, after)
    assert after["wait_s"] < before["wait_s"] - 20
