"""The e-stop pressed mid-FETCH at a real table (SimTable: the firmware behind a pty, pyserial,
the driver, the table host and referee, bots in every seat, the simulated person doing only what
the screen says: twist the button out, press Resume, put a card named in the play slot).

The fault campaign's estop_fetch row (device/simulated/fault_trials.py: German Whist, the e-stop
0-2.5 s of the dealer's time after a FETCH began) stopped 4 tables of 40 for good before: Resume
after Resume met "there is no card for it", or JAM 4 (a card passed its pocket), or a FETCH that
never ended. Each seed here stopped one of those ways; each hand now ends right, with the same
result as an uninterrupted run, every pocket matching the referee before every play.
"""

from __future__ import annotations

import pytest

from trickref.device.simulated.fault_trials import run_trial

CASES = {
    5: "the stock card's eject under way, the card still in the read window",
    22: "cards the FETCH sent round frozen on the loop: their edges at E taken for the next card's",
    30: "the stock card on the belt 83 ms from the winner's pocket: not in the dealer's loop any more",
    93: "its eject begun with the hopper held: RESET took the card for a fed one (reject pocket)",
    252: "NEXT pulled the next card in as the stock card left: the window's card is another",
}


@pytest.mark.parametrize("seed", sorted(CASES))
def test_an_estop_mid_fetch_then_resume_goes_on(seed: int) -> None:
    r = run_trial("estop_fetch", seed, compare=True, guard_s=240.0)
    assert r.struck, f"the e-stop was never pressed (seed {seed})"
    assert r.mismatches == [], r.mismatches
    assert r.outcome == "right", (CASES[seed], r.outcome, r.detail, r.faults)
    assert r.pressed >= 1  # the person pressed Resume after the e-stop


def test_a_card_the_stop_left_on_the_belt_is_named_and_put_in_the_play_slot() -> None:
    """Seed 30: after RESET the dealer's loop is a card short of the referee's; the table
    relearns the loop, misses the card, names it (on the winner's screen: look in your pocket),
    and the person puts it in the play slot; Resume deals it back to the loop and the FETCH ends."""
    r = run_trial("estop_fetch", 30, compare=True, guard_s=240.0)
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)
    assert any("not there after it stopped or restarted" in f for f in r.faults), r.faults


def test_on_the_twin_reset_sends_the_belt_home_before_the_reject_flap_rises() -> None:
    """Seed 16012 on the physical twin: the e-stop while a played card was read, the turn-up's
    stock card just sent round the loop. RESET cleared the unread card from the read gate to the
    reject pocket at once: the stock card, still on the belt, dropped in there, its count
    confirmed the played card's flight and the played card went round the loop; the screen asked
    its player to take back a card that was not in the reject pocket (stuck, 4 runs of 4). The
    belt now goes home first, every flap down (Mechanics.clear_gate)."""
    r = run_trial("estop_fetch", 16012, compare=True, guard_s=240.0, twin=True)
    assert r.struck and r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)


def no_counted_lift(monkeypatch: pytest.MonkeyPatch) -> None:
    """The twin as before the counted lift (no load cell under the splitter's blade): the seed's
    moments were found on it, and the cell's weighing moves them."""
    from trickref.device.dealer import physical

    values = physical.values

    def without_cell(table: dict[str, object] | None = None, scale: dict[str, float] | None = None) -> dict[str, object]:
        return values(table, scale=dict(scale or {}, **{"sorter.scale_fitted": 0.0}))

    monkeypatch.setattr(physical, "values", without_cell)


def test_on_the_twin_a_put_back_after_an_abort_waits_for_the_frozen_loop_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 16030 on the physical twin (German Whist): the e-stop while the FETCH's own card
    dropped into its seat's pocket. The relearning after RESET found the loop a card short; the
    table named it, the person put it in the play slot, and the host ABORTed the relearning with
    loop cards on the belt, one in the switchback. The put-back job fed its first card at once: a
    switchback's cycle after the last frozen card by the clock, but the belt had stood and ramped
    up again, the gap closed, and the card reached the switchback's nip with R still busy (JAM,
    then the put-back card read twice and rejected) at every Resume, until the table gave up
    after three alike. A job after an ABORT now waits, as after a Resume, until the loop cards
    it froze are past the switchback (Mechanics._unfreeze). On the twin without the counted lift
    (the seed's moments were found there)."""
    no_counted_lift(monkeypatch)
    r = run_trial("estop_fetch", 16030, compare=True, guard_s=240.0, twin=True)
    assert r.struck and r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)
    assert len(r.faults) == 2, r.faults  # the e-stop, then the card to put back: no jam
    assert any("not there after it stopped or restarted" in f for f in r.faults), r.faults
