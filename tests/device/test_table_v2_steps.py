"""The referee's v2 dealer steps on the real driver over the dealer simulator's pty
(device/table/dealers.py): a pass parked in the loop and released to its receiver, a fetch by
identity out of the loop, a stage, a drawn card fed back (the right one routed on, a wrong one
held for the referee), the loop relearned after a reboot, and a v1 step refused in words."""

from __future__ import annotations

import pytest

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.sim import DealerSimulator
from trickref.device.table.dealers import LOOP, DealerAdapter
from trickref.engine import cards as C
from trickref.engine.referee.commands import (
    DealPlan,
    FeedBack,
    Fetch,
    Release,
    RouteFed,
    Stage,
    V1Step,
)
from trickref.engine.referee.events import DealDone, DealerDone, DealerFault

N = C.parse


@pytest.fixture
def dealer():  # type: ignore[no-untyped-def]
    sim = DealerSimulator(seats=2, speed=2000.0, seed=4)
    sim.start()
    driver = Dealer(sim.stable_path, link_timeout=1.0, stall_timeout=10.0)
    driver.open()
    try:
        yield sim, driver
    finally:
        driver.close()
        sim.stop()


def _pocket(sim, target: int) -> list[int]:  # type: ignore[no-untyped-def]
    with sim.lock:
        return list(sim.board.tray(target))


def _deal_to_loop(sim, adapter: DealerAdapter, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    sim.load_deck([N(c) for c in names])
    out = adapter.run(DealPlan(1, tuple((c, "loop") for c in names), step=1))
    assert out == DealDone(1, True), out


def test_fetch_and_stage_by_identity_out_of_the_loop(dealer) -> None:  # type: ignore[no-untyped-def]
    sim, driver = dealer
    adapter = DealerAdapter(driver)
    stock = ["2C", "9H", "KD", "4S", "QS", "7C"]
    _deal_to_loop(sim, adapter, stock)
    assert adapter.run(Fetch("QS", "seat:1", step=2)) == DealerDone(2, "QS")
    assert _pocket(sim, 1) == [N("QS")]
    assert adapter.run(Stage("9H", step=3)) == DealerDone(3, "9H")
    assert adapter.run(Fetch("9H", "seat:0", step=4)) == DealerDone(4, "9H")
    assert _pocket(sim, 0) == [N("9H")]
    with sim.lock:  # the rest still queued in the hopper (one may wait in the read window)
        left = list(sim.board.hopper) + ([sim.board.gate] if sim.board.gate is not None else [])
    assert sorted(left) == sorted(N(c) for c in ("2C", "KD", "4S", "7C"))


def test_passes_parked_in_the_loop_then_released(dealer) -> None:  # type: ignore[no-untyped-def]
    sim, driver = dealer
    adapter = DealerAdapter(driver)
    sim.load_deck([])  # mid-hand: every card is in the pockets
    for step, card in enumerate(["AH", "3D", "JC", "5S"], start=1):
        sim.play(N(card))
        assert adapter.read_fed() == N(card)
        assert adapter.run(RouteFed(card, "loop", step=step)) == DealerDone(step, card)
    out = adapter.run(Release((("AH", "seat:1"), ("3D", "seat:1"), ("JC", "seat:0"), ("5S", "seat:0")), step=9))
    assert out == DealerDone(9, None), out
    assert sorted(_pocket(sim, 1)) == sorted([N("AH"), N("3D")])
    assert sorted(_pocket(sim, 0)) == sorted([N("JC"), N("5S")])


def test_a_drawn_card_fed_back(dealer) -> None:  # type: ignore[no-untyped-def]
    sim, driver = dealer
    adapter = DealerAdapter(driver)  # no refeed: a person feeds it, as on hardware
    assert not adapter.auto_feed_back
    sim.load_deck([])
    sim.play(N("8D"))  # the wrong card first: read and held for the referee to route
    assert adapter.run(FeedBack(1, "KH", "discard", step=5)) == DealerDone(5, "8D")
    assert adapter.held == N("8D") and not _pocket(sim, m.DISCARD)
    assert adapter.run(RouteFed("8D", "seat:1", step=6)) == DealerDone(6, "8D")
    sim.play(N("KH"))
    assert adapter.run(FeedBack(1, "KH", "discard", step=7)) == DealerDone(7, "KH")
    assert _pocket(sim, m.DISCARD) == [N("KH")] and _pocket(sim, 1) == [N("8D")]


def test_after_a_reboot_the_loop_is_relearned_before_a_fetch(dealer) -> None:  # type: ignore[no-untyped-def]
    sim, driver = dealer
    sim.load_deck([N(c) for c in ("6H", "TC", "2S")])  # the loop's cards lie in the hopper; the dealer knows none
    adapter = DealerAdapter(driver)
    adapter.relearn = [N(c) for c in ("6H", "TC", "2S")]
    assert adapter.run(Fetch("2S", "seat:0", step=1)) == DealerDone(1, "2S")
    assert adapter.relearn is None and _pocket(sim, 0) == [N("2S")]


def test_a_v1_step_is_refused_in_words(dealer) -> None:  # type: ignore[no-untyped-def]
    _, driver = dealer
    out = DealerAdapter(driver).run(V1Step("present", {"seat": 1, "expect": "QS"}, step=4))
    assert isinstance(out, DealerFault) and out.step == 4
    assert "'present'" in out.message and "v1 dealer" in out.message and "PRESENT" in out.message
    assert LOOP == 0x85


def test_after_a_reboot_the_card_in_the_gate_goes_in_the_relearn_plan(dealer) -> None:  # type: ignore[no-untyped-def]
    """A rebooted dealer does not know the cards parked in its hopper: the card read before the
    power went (still in the read window) and the loop's cards are dealt in one plan, the
    former to its target, before anything is fed."""
    sim, driver = dealer
    loop = [N(c) for c in ("3S", "9H", "KD", "4S", "QS", "7C")]
    sim.load_deck(loop)
    with sim.lock:
        sim.board.trays[0] = [N("2S"), N("5H")]
        sim.board.gate = N("AS")
    adapter = DealerAdapter(driver)
    adapter.in_gate, adapter.relearn = N("AS"), list(loop)
    assert adapter.run(RouteFed("AS", "trick", step=1)) == DealerDone(1, "AS")
    assert adapter.relearn is None and _pocket(sim, m.TRICK) == [N("AS")]
    sim.play(N("2S"))  # the next play, while the loop's cards wait in the hopper
    with sim.lock:
        sim.board.trays[0].remove(N("2S"))
    assert adapter.read_fed() == N("2S")
    assert adapter.run(RouteFed("2S", "trick", step=2)) == DealerDone(2, "2S")
    assert adapter.run(Fetch("QS", "seat:1", step=3)) == DealerDone(3, "QS")
    assert _pocket(sim, 1) == [N("QS")] and sorted(_pocket(sim, m.TRICK)) == sorted([N("AS"), N("2S")])


def _park(sim, adapter: DealerAdapter, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Players feed ``names`` (their passes): each read and parked in the loop."""
    sim.load_deck([])
    for step, card in enumerate(names, start=100):
        sim.play(N(card))
        assert adapter.read_fed() == N(card)
        assert adapter.run(RouteFed(card, "loop", step=step)) == DealerDone(step, card)


def _jam_after(sim, cards: int, stage: str = "eject") -> None:  # type: ignore[no-untyped-def]
    """The simulator jams at its next ``stage`` motion once its firmware reported ``cards``
    cards placed (on the simulator's thread: the same card whatever the machine's load)."""
    fw = sim.firmware.dealer
    landed, seen = fw.landed, [0]

    def jam_at(card, target, conf, kind) -> None:  # type: ignore[no-untyped-def]
        landed(card, target, conf, kind)
        seen[0] += 1
        if seen[0] == cards:
            sim.board.jam_stage = stage

    fw.landed = jam_at


PASSES = (("AH", "seat:1"), ("3D", "seat:1"), ("JC", "seat:0"), ("5S", "seat:0"), ("9D", "seat:1"),
          ("KC", "seat:0"))


def test_a_release_a_jam_stopped_goes_on_where_it_stopped(dealer) -> None:  # type: ignore[no-untyped-def]
    """A jam in the middle of the hand-over: the fault names the cards already in their pockets
    (for the journal), and Resume finishes the dealer's own deal (RESUME), not a new one over
    cards that are no longer in the loop."""
    sim, driver = dealer
    adapter = DealerAdapter(driver)
    _park(sim, adapter, [c for c, _ in PASSES])
    _jam_after(sim, 2)
    out = adapter.run(Release(PASSES, step=9))
    assert isinstance(out, DealerFault) and out.kind == "jam", out
    assert 2 <= len(out.delivered) < len(PASSES)
    assert all(e in PASSES for e in out.delivered)
    sim.clear_jam()
    assert adapter.run(Release(PASSES, step=9)) == DealerDone(9, None)
    assert sorted(_pocket(sim, 1)) == sorted(N(c) for c, t in PASSES if t == "seat:1")
    assert sorted(_pocket(sim, 0)) == sorted(N(c) for c, t in PASSES if t == "seat:0")


def test_a_release_the_link_lost_is_done_again_over_the_cards_left(dealer) -> None:  # type: ignore[no-untyped-def]
    """The cable out in the middle of the hand-over (the driver gives up and stops the dealer):
    done again, only the cards still in the loop are dealt; those delivered while the link was
    down are found in the dealer's event log and left out too."""
    sim, driver = dealer
    adapter = DealerAdapter(driver)
    _park(sim, adapter, [c for c, _ in PASSES])
    fw = sim.firmware.dealer
    landed, seen = fw.landed, [0]

    def unplug(card, target, conf, kind) -> None:  # type: ignore[no-untyped-def]
        landed(card, target, conf, kind)  # (the simulator's thread: the cable goes at this card)
        seen[0] += 1
        if seen[0] == 2:
            sim.silent = True

    fw.landed = unplug
    out = adapter.run(Release(PASSES, step=9))
    assert isinstance(out, DealerFault) and out.kind in ("link_down", "timeout", "fault"), out
    # (the dealer batches per-card events: the two cards' events had not left it yet)
    assert len(out.delivered) < 2
    sim.go_silent(False)
    rest = tuple(e for e in PASSES if e not in out.delivered)  # what the referee sends again
    assert adapter.run(Release(rest, step=9)) == DealerDone(9, None)
    assert sorted(_pocket(sim, 1)) == sorted(N(c) for c, t in PASSES if t == "seat:1")
    assert sorted(_pocket(sim, 0)) == sorted(N(c) for c, t in PASSES if t == "seat:0")
    with sim.lock:
        assert not sim.board.hopper and sim.board.gate is None and not sim.board.trays.get(m.REJECT)


def test_a_single_card_step_a_jam_stopped_is_resumed_not_sent_again(dealer) -> None:  # type: ignore[no-untyped-def]
    """A jam while a played card goes to the trick pocket, then while a card is fetched from
    the loop: Resume finishes each motion (sent again, the dealer would refuse it: it waits for
    RESUME with the card in its path)."""
    sim, driver = dealer
    adapter = DealerAdapter(driver)
    _deal_to_loop(sim, adapter, ["2C", "9H", "KD"])
    sim.play(N("AS"))
    assert adapter.read_fed() == N("AS")
    sim.jam("eject")
    out = adapter.run(RouteFed("AS", "trick", step=5))
    assert isinstance(out, DealerFault) and out.kind == "jam", out
    sim.clear_jam()
    assert adapter.run(RouteFed("AS", "trick", step=5)) == DealerDone(5, "AS")
    assert _pocket(sim, m.TRICK) == [N("AS")]
    sim.jam("eject")
    out = adapter.run(Fetch("KD", "seat:1", step=6))
    assert isinstance(out, DealerFault) and out.kind == "jam", out
    sim.clear_jam()
    assert adapter.run(Fetch("KD", "seat:1", step=6)) == DealerDone(6, "KD")
    assert _pocket(sim, 1) == [N("KD")]


def test_a_relearn_a_jam_stopped_is_resumed_before_the_step(dealer) -> None:  # type: ignore[no-untyped-def]
    """After a restart the loop's cards are dealt back to the loop first; a jam in the middle
    of that plan: Resume finishes it (RESUME), then the fetch that needed it is done."""
    sim, driver = dealer
    loop = [N(c) for c in ("6H", "TC", "9D", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TD", "JD", "QD", "2S", "KS")]
    sim.load_deck(loop)
    adapter = DealerAdapter(driver)
    adapter.relearn = list(loop)
    sim.jam("feed")  # its first feed move sticks
    out = adapter.run(Fetch("2S", "seat:0", step=1))
    assert isinstance(out, DealerFault) and out.kind == "jam", out
    assert adapter.relearn_jammed
    sim.clear_jam()
    assert adapter.run(Fetch("2S", "seat:0", step=1)) == DealerDone(1, "2S")
    assert _pocket(sim, 0) == [N("2S")] and not adapter.relearn_jammed and adapter.relearn is None
    assert adapter.run(Fetch("KS", "seat:1", step=2)) == DealerDone(2, "KS")



def test_a_release_done_again_reads_again_the_cards_it_sent_round(dealer) -> None:  # type: ignore[no-untyped-def]
    """A Release that also sends cards round the loop again (a bot seat's hand, say) and stops
    partway: a card it put in a pocket is reported delivered and left out when the step is done
    again; a card it sent round is back in the hopper, so it stays in the plan (a new DEAL_PLAN
    starts the dealer's loop model afresh: a hopper card left out of it would be rejected)."""
    _, driver = dealer
    adapter = DealerAdapter(driver)
    plan = (("QH", "loop"), ("AH", "seat:1"), ("4D", "loop"), ("JC", "seat:0"))
    step = Release(plan, step=9)
    adapter._release = 9
    for card, target in ((N("QH"), LOOP), (N("AH"), 1)):  # what CARD_DEALT said before the stop
        adapter._on_event(type("Ev", (), {"kind": m.EV_CARD_DEALT, "__getitem__":
                                          lambda self, k, c=card, t=target: {"card": c, "target": t}[k]})())
    assert adapter._release_rest(step) == [(N("QH"), LOOP), (N("4D"), LOOP), (N("JC"), 0)]
    assert adapter._take_delivered(step) == (("AH", "seat:1"),)
