"""The fault matrix: every injected fault ends in one of two ways, never a third.

Either the deal completes and every card is physically where the plan put it (checked on the
simulator's trays, not on what the driver says), or the driver raises a typed DealerError
and the dealer is left stopped and safe. A wrong hand is never reported as good.
"""

from __future__ import annotations

import contextlib
import os
import threading

import pytest
from dealer_testkit import (
    GENEROUS,
    OnCard,
    is_stopped,
    mech_state,
    round_robin_plan,
    running,
    table_matches,
    wait_until,
)

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer, DealerRebooted
from trickref.device.dealer.errors import (
    DealerError,
    DealerFault,
    DealerJam,
    DealerLinkDown,
    DealerTimeout,
    DealMismatch,
)
from trickref.device.dealer.plan import DealPlan, DealReport
from trickref.device.dealer.sim import DealerSimulator

IDLE, JAMMED, PAUSED, ESTOPPED = 0, 4, 3, 5


def deal_outcome(sim: DealerSimulator, dealer: Dealer, plan: DealPlan, *,
                 check_stopped: bool = True) -> DealReport | DealerError:
    """Run the deal and apply the universal rule; return the report or the typed error.
    (``check_stopped=False`` only where the simulated dealer is cut off and frozen: the test
    then checks it is stopped once it is back.)"""
    try:
        report = dealer.deal(plan, timeout=GENEROUS)
    except DealerError as exc:
        assert str(exc)  # a clear message
        if check_stopped:
            assert wait_until(lambda: is_stopped(sim)), "the dealer was left moving"
        return exc
    assert table_matches(sim, plan) == [], "a deal reported good does not match the table"
    return report


# --- byte faults: the deal must complete -------------------------------------------------

@pytest.mark.parametrize("fault", [
    {"corrupt": 0.01},
    {"drop": 0.01},
    {"duplicate": 0.01},
    {"delay_s": 0.3},
    {"corrupt": 0.005, "drop": 0.005, "duplicate": 0.005},
], ids=["corrupted", "dropped", "duplicated", "delayed", "all-at-once"])
def test_byte_faults_are_survived(fault: dict[str, float]) -> None:
    with running(seats=4, seed=3) as (sim, dealer):
        sim.set_link_faults(**fault)
        for shuffle in (1, 2):
            plan = round_robin_plan(4, shuffle_seed=shuffle, extra={51: m.CENTRE})
            outcome = deal_outcome(sim, dealer, plan)
            assert isinstance(outcome, DealReport), outcome
            sim.gather_to_hopper(order_seed=shuffle)
        stats = dealer.link.stats
        hit = sum(sim.to_host.counts.values()) + sum(sim.to_dealer.counts.values())
        if "delay_s" in fault:
            assert stats.retransmits > 0  # replies later than the reply timeout
        else:
            assert hit > 0
        sim.set_link_faults()
        assert dealer.status().state_name == "IDLE"


def test_dealer_acts_once_on_retransmitted_commands() -> None:
    # Replies delayed past the reply timeout make the host resend every command; the dealer
    # must deal each plan once (a second deal of the same plan would find an empty hopper).
    with running(seats=2, seed=5) as (sim, dealer):
        sim.set_link_faults(delay_s=0.25, direction="to_host")
        plan = round_robin_plan(2, extra={i: m.LOOP for i in range(40, 52)})
        assert isinstance(deal_outcome(sim, dealer, plan), DealReport)
        card = plan.stock[0]
        assert dealer.fetch_loop(card, 1) == card
        assert sim.board.seat(1).count(card) == 1
        assert dealer.status().loop_count == 11
        assert dealer.link.stats.retransmits > 0


# --- silence and disconnects ---------------------------------------------------------------

def unplug(sim: DealerSimulator, come_back_after: float | None) -> None:
    """Pull the cable: the pty closes and, as udev does for /dev/trickref-dealer, the stable
    name disappears until the port is back (a dangling link could meet a recycled pty number
    of another process)."""
    with sim.lock:
        sim.disconnect(come_back_after=come_back_after)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(sim.stable_path)

def test_short_silence_mid_deal_pauses_the_dealer_then_completes() -> None:
    with running(seats=4, speed=20, deadman_ms=500) as (sim, dealer):
        seen: list[str] = []
        dealer.add_listener(lambda e: seen.append(e.name))
        unsilence = threading.Timer(1.5, sim.go_silent, args=(False,))
        dealer.add_listener(OnCard(5, lambda: (sim.go_silent(True), unsilence.start())))
        plan = round_robin_plan(4)
        try:
            outcome = deal_outcome(sim, dealer, plan)
        finally:
            unsilence.cancel()
        assert isinstance(outcome, DealReport), outcome
        assert "DEADMAN" in seen and "RESUMED" in seen  # the dealer stopped while unheard


def test_long_silence_raises_and_the_dealer_stays_stopped() -> None:
    """Silent longer than the link timeout: a typed error, and the dealer's dead-man stopped its
    motors. No ABORT follows (protocol 3): sent again under its id when the dealer answers, the
    same deal goes on from where it stopped, and no card is dealt twice."""
    with running(seats=4, speed=20, deadman_ms=500, link_timeout=2.0) as (sim, dealer):
        dealer.add_listener(OnCard(5, lambda: sim.go_silent(True)))
        plan = round_robin_plan(4)
        try:
            dealer.deal(plan, timeout=GENEROUS, step=0x0777)
            raise AssertionError("a deal with its dealer silent for 2 s reported good")
        except (DealerTimeout, DealerLinkDown) as e:
            assert "silent" in str(e) or "gone" in str(e)
        assert wait_until(lambda: is_stopped(sim))
        sim.go_silent(False)
        assert wait_until(lambda: dealer.status().state_name == "PAUSED")  # stopped, waiting
        assert dealer.query_step(0x0777).state == m.STEP_STOPPED
        report = dealer.deal(plan, timeout=GENEROUS, step=0x0777)
        assert report.ok and table_matches(sim, plan) == []


def test_disconnect_and_come_back_mid_deal_completes() -> None:
    with running(seats=4, speed=50) as (sim, dealer):
        dealer.add_listener(OnCard(10, lambda: unplug(sim, come_back_after=0.5)))
        plan = round_robin_plan(4)
        outcome = deal_outcome(sim, dealer, plan)
        assert isinstance(outcome, DealReport), outcome
        assert dealer.link.stats.reconnects >= 1  # reopened by the same stable name


def test_disconnect_for_good_raises_link_down_and_the_deal_goes_on_when_back() -> None:
    with running(seats=4, speed=50, link_timeout=1.5) as (sim, dealer):
        dealer.add_listener(OnCard(10, lambda: unplug(sim, come_back_after=None)))
        plan = round_robin_plan(4)
        try:
            dealer.deal(plan, timeout=GENEROUS, step=0x0778)
            raise AssertionError("a deal with its cable out reported good")
        except (DealerLinkDown, DealerTimeout) as e:
            assert str(e)
        assert not dealer.link.connected
        with pytest.raises(DealerLinkDown):
            dealer.status()
        # The cable goes back in: the dealer stopped its motors (dead-man) and kept the deal;
        # the same deal, sent again, is finished, not dealt again.
        with sim.lock:
            sim._come_back_at = 0.0
        assert wait_until(lambda: dealer.link.connected)
        assert wait_until(lambda: is_stopped(sim))
        assert dealer.query_step(0x0778).state in (m.STEP_STOPPED, m.STEP_RUNNING, m.STEP_DONE)
        report = dealer.deal(plan, timeout=GENEROUS, step=0x0778)
        assert report.ok and table_matches(sim, plan) == []


def test_reboot_mid_deal_is_a_typed_fault() -> None:
    with running(seats=4, speed=50) as (sim, dealer):
        dealer.add_listener(OnCard(20, sim.reboot))
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealerRebooted), outcome
        assert isinstance(outcome, DealerFault)
        assert "rebooted" in str(outcome)
        assert dealer.identity.boot_id == sim.board.boot
        assert mech_state(sim) == IDLE


# --- mechanism faults ----------------------------------------------------------------------

def test_jam_stops_the_dealer_and_the_deal_resumes_after_clearing() -> None:
    with running(seats=4) as (sim, dealer):
        sim.jam("eject")
        plan = round_robin_plan(4)
        outcome = deal_outcome(sim, dealer, plan)
        assert isinstance(outcome, DealerJam), outcome
        assert "jammed" in str(outcome)
        assert mech_state(sim) == JAMMED
        assert dealer.status().state_name == "JAMMED"
        sim.clear_jam()
        report = dealer.resume_deal(timeout=GENEROUS)
        assert report.ok
        assert table_matches(sim, plan) == []


def test_jam_then_abort_leaves_the_dealer_idle() -> None:
    with running(seats=4) as (sim, dealer):
        sim.jam("feed")
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealerJam), outcome
        sim.clear_jam()
        dealer.abort()
        assert dealer.status().state_name == "IDLE"
        assert is_stopped(sim)


def test_full_tray_stops_like_a_jam() -> None:
    with running(seats=4) as (sim, dealer):
        sim.tray_full(2)
        plan = round_robin_plan(4)
        outcome = deal_outcome(sim, dealer, plan)
        assert isinstance(outcome, DealerJam) and outcome.name == "POCKET_FULL", outcome
        sim.tray_full(2, False)
        dealer.resume_deal(timeout=GENEROUS)
        assert table_matches(sim, plan) == []


def test_misread_card_is_a_mismatch() -> None:
    with running(seats=4) as (sim, dealer):
        sim.misread(1)
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealMismatch), outcome
        assert any("could not be read" in p for p in outcome.problems)
        assert any("missing" in p for p in outcome.problems)
        assert len(sim.board.tray(m.REJECT)) == 1
        assert mech_state(sim) == IDLE


def test_missing_card_is_a_mismatch_naming_it() -> None:
    with running(seats=4) as (sim, dealer):
        sim.remove_card(10)  # QS
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealMismatch), outcome
        assert "QS" in str(outcome)


def test_duplicate_card_is_a_mismatch() -> None:
    with running(seats=4) as (sim, dealer):
        sim.add_duplicate(5, position=3)
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealMismatch), outcome
        assert any("more often" in p for p in outcome.problems)
        assert sim.board.tray(m.REJECT) == [5]


def test_empty_hopper_is_a_mismatch() -> None:
    with running(seats=4) as (sim, dealer):
        sim.empty_hopper()
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealMismatch), outcome
        assert any("hopper ran out" in p for p in outcome.problems)


def test_hopper_running_out_mid_deal_is_a_mismatch() -> None:
    with running(seats=4, deck_seed=None) as (sim, dealer):
        sim.load_deck(range(30))
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealMismatch), outcome
        assert sum(len(sim.board.seat(s)) for s in range(4)) == 30


def test_reader_mistaking_one_card_for_another_is_never_good() -> None:
    # The reader reports QS (10) when it sees QH (23): QH physically lands where QS was
    # planned. The host must not report that hand as good.
    with running(seats=4) as (sim, dealer):
        real_poll = sim.board.read_poll

        def lying_poll() -> tuple[int, int] | None:
            result = real_poll()
            if result is not None and result[0] == 23:
                return (10, 60)
            return result

        sim.board.read_poll = lying_poll  # type: ignore[method-assign]
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealMismatch), outcome


def test_estop_button_mid_deal() -> None:
    with running(seats=4, speed=50) as (sim, dealer):
        dealer.add_listener(OnCard(10, lambda: sim.press_estop(True)))
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealerFault) and outcome.name == "ESTOP", outcome
        assert mech_state(sim) == ESTOPPED
        sim.press_estop(False)
        dealer.reset()
        assert dealer.status().state_name == "IDLE"


def test_host_emergency_stop_mid_deal_from_another_thread() -> None:
    with running(seats=4, speed=20) as (sim, dealer):
        stopper = threading.Thread(target=dealer.emergency_stop)
        dealer.add_listener(OnCard(5, stopper.start))
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        stopper.join(GENEROUS)
        assert isinstance(outcome, DealerFault) and outcome.name in ("ESTOP", "ABORTED"), outcome
        assert mech_state(sim) == ESTOPPED
        assert dealer.status().estop_latched


def test_a_new_deal_after_an_unresumed_jam_drops_the_old_one() -> None:
    with running(seats=4) as (sim, dealer):
        sim.jam("eject")
        outcome = deal_outcome(sim, dealer, round_robin_plan(4))
        assert isinstance(outcome, DealerJam), outcome
        listeners = len(dealer.link._listeners)
        sim.clear_jam()
        dealer.reset()
        sim.gather_to_hopper(order_seed=5)
        plan = round_robin_plan(4, shuffle_seed=6)
        assert isinstance(deal_outcome(sim, dealer, plan), DealReport)
        assert len(dealer.link._listeners) == listeners - 1  # the jammed deal's watch is gone
        with pytest.raises(DealerFault):
            dealer.resume_deal()
