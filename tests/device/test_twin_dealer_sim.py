"""The dealer simulator on the physical twin (device/dealer/twin_sim.py), through its pty, opened
with pyserial exactly like the real port: the unmodified firmware on firmware/board.py driving
device/dealer/twin.py, where a card goes to the pocket whose flap really stands up when it
arrives (``trickref dealer-sim --twin``)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import pytest
from test_dealer_sim import Link

from trickref.device.dealer.twin_host import deal_done_words
from trickref.device.dealer.twin_sim import TwinDealerSimulator
from trickref.firmware import protocol as P

LOOP = 0x85


@pytest.fixture
def sim():
    s = TwinDealerSimulator(seats=4, deck_order_seed=3, speed=200.0, seed=3)
    yield s
    s.stop()


def test_a_deal_to_four_seats_through_the_pty_lands_every_card_in_its_pocket(sim: TwinDealerSimulator) -> None:
    order = list(range(52))
    random.Random(8).shuffle(order)
    path = sim.start()
    assert os.path.realpath(sim.stable_path) == path
    link = Link(path)
    try:
        ident = link.command(P.HELLO, b"\x03\x00\x00")
        assert ident.type == P.IDENTIFY and ident.body[8] == 4  # 4 seats
        assert ident.body[9] == 1  # reader kind: the GM65-S (the twin's reader), not the simulated one
        body = P.u16(41) + bytes((52, 0, 1)) + bytes(x for i, c in enumerate(order) for x in (c, i % 4))
        assert link.command(P.DEAL_PLAN, body).body == bytes((P.DEAL_PLAN, P.OK_STARTED))
        done = link.wait_event(P.EV_DEAL_DONE, timeout=60)
        assert deal_done_words(done[2]) is None, deal_done_words(done[2])
    finally:
        link.close()
    pockets = sim.pockets()
    for seat in range(4):
        assert sorted(pockets[seat]) == sorted(order[seat::4])
    assert sim.twin.mech.stuck == []


def test_a_stock_deal_and_its_fetches_on_the_sorting_hopper_through_the_pty(sim: TwinDealerSimulator) -> None:
    """Two-player Spades' deal (the first card to seat 0, 51 round the loop into the sorting
    hopper in the plan's order), then the first six stock cards FETCHed by identity."""
    order = list(range(52))
    random.Random(9).shuffle(order)
    link = Link(sim.start())
    try:
        link.command(P.HELLO, b"\x03\x00\x00")
        body = P.u16(7) + bytes((52, 0, 1)) + bytes(x for i, c in enumerate(order) for x in (c, 0 if i == 0 else LOOP))
        assert link.command(P.DEAL_PLAN, body).body[1] == P.OK_STARTED
        done = link.wait_event(P.EV_DEAL_DONE, timeout=60)
        assert deal_done_words(done[2]) is None, deal_done_words(done[2])
        for k, card in enumerate(order[1:7]):
            link.events.clear()
            assert link.command(P.FETCH, bytes((LOOP, card, k % 2))).type == P.OK
            routed = link.wait_event(P.EV_CARD_ROUTED, timeout=60)
            assert routed[2][0] == card
    finally:
        link.close()
    pockets = sim.pockets()
    assert sorted(pockets[0]) == sorted([order[0]] + order[1:7:2])
    assert sorted(pockets[1]) == sorted(order[2:7:2])


def test_a_noisy_link_still_deals_every_card_on_the_twin(sim: TwinDealerSimulator) -> None:
    """The simulator's own link faults (corrupted, dropped, duplicated bytes both ways) over the
    twin: the host's retries and EVENTS_SINCE bring the deal through, every card in its pocket."""
    order = list(range(52))
    random.Random(10).shuffle(order)
    sim.set_link_faults(corrupt=0.003, drop=0.003, duplicate=0.003)
    link = Link(sim.start())
    try:
        body = P.u16(3) + bytes((52, 0, 1)) + bytes(x for i, c in enumerate(order) for x in (c, i % 4))
        assert link.command(P.DEAL_PLAN, body).body[1] in (P.OK_STARTED, P.OK_ALREADY)
        link.wait_event(P.EV_DEAL_DONE, timeout=60)
    finally:
        link.close()
    pockets = sim.pockets()
    for seat in range(4):
        assert sorted(pockets[seat]) == sorted(order[seat::4])
    assert sum(sim.to_dealer.counts.values()) + sum(sim.to_host.counts.values()) > 0


def test_silence_and_a_power_cycle_of_the_twin_are_visible_to_the_host(sim: TwinDealerSimulator) -> None:
    """Silence (no answer, the port open) and a power cycle (the firmware boots again on the
    twin, a new boot id in IDENTIFY, the cards where they lay)."""
    link = Link(sim.start())
    try:
        boot = P.get_u16(link.command(P.HELLO, b"\x03\x00\x00").body, 4)
        sim.go_silent()
        with pytest.raises(AssertionError):
            link.command(P.PING, tries=2, timeout=0.1)
        sim.go_silent(False)
        assert link.command(P.PING).type == P.OK
        boots = sim.boots
        sim.reboot()
        assert sim.boots == boots + 1
        assert P.get_u16(link.command(P.HELLO, b"\x03\x00\x00").body, 4) != boot
    finally:
        link.close()
    assert len(sim.twin.mech.hopper) == 52


def test_dealer_sim_twin_command_prints_a_path_a_host_can_open() -> None:
    """``trickref dealer-sim --twin`` prints the pty's path; HELLO over it gets IDENTIFY."""
    proc = subprocess.Popen([sys.executable, "-m", "trickref", "dealer-sim", "--twin", "--seats", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        assert path.startswith("/dev/"), (path, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        link = Link(path)
        try:
            ident = link.command(P.HELLO, b"\x03\x00\x00")
            assert ident.type == P.IDENTIFY and ident.body[8] == 2
        finally:
            link.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_twins_clock_does_not_run_on_while_the_host_only_talks() -> None:
    """A reply ends the firmware's run and goes at once (device/dealer/twin_sim.py). Before, the
    pump stepped the twin through its whole budget (the real time since its last pass times the
    speed) with the reply held: each command cost up to 200 ms of the twin's clock at speed 4,
    which ``trickref sim --twin`` reports as the machine's time (491 s for one two-player Spades
    hand, 312 s of it replies waiting)."""
    s = TwinDealerSimulator(seats=4, deck_order_seed=3, speed=4.0, seed=3)
    link = Link(s.start())
    try:
        link.command(P.HELLO, b"\x03\x00\x00")
        time.sleep(0.3)
        before = s.twin.mech.now
        for _ in range(10):
            time.sleep(0.04)  # the host thinks between commands; nothing moves
            assert link.command(P.PING).type == P.OK
        advanced_ms = (s.twin.mech.now - before) / 1000
    finally:
        link.close()
        s.stop()
    assert advanced_ms < 100, advanced_ms  # a few ms a command (was up to 160-200 each)


def test_the_twins_figures_count_the_random_faults_it_drew() -> None:
    """``figures()["random_faults"]``: None with the twin's random faults off; with them on, how
    many of each it drew (``trickref sim --twin --twin-faults`` prints them). Every card misread
    (the chance scaled to 1): the deal's cards count misreads, and nothing else is drawn."""
    from trickref.device.dealer import twin_host as th

    off = TwinDealerSimulator(seats=2, seed=5)
    assert off.figures()["random_faults"] is None
    sim = TwinDealerSimulator(seats=2, seed=5, faults=True,
                              scale={"reader.misread_chance": 1000.0, "feed.slip_chance": 0.0,
                                     "feed.double_chance": 0.0, "sensors.gate_irq_gc_chance": 0.0})
    host = th.TwinHost(sim.twin)
    host.hello()
    sim.twin.mech.hopper = list(range(6))
    host.deal(1, [(c, c % 2) for c in range(6)])
    drawn = sim.figures()["random_faults"]
    assert drawn is not None and drawn["misread"] >= 1, drawn
    assert drawn["pickup_slip"] == drawn["double_feed"] == drawn["late_gate_irq"] == 0, drawn
