"""The e-stop pressed while a played card is read and routed, on the physical twin (SimTable:
the unmodified firmware driving device/dealer/twin.py behind a pty, pyserial, the driver, the
table host and referee, bots in every seat, the simulated person doing only what the screen
says).

The fault campaign's estop_fetch row on the twin (``run_trial(..., twin=True)``) stopped these
tables for good before: the twin's FETCH ends sooner than the simulated board's, so the e-stop
falls on the next step, a played card fed, read and routed to the trick pocket. The card was on
the belt, or lifted out by the person clearing a jam, or had landed in the trick pocket after the
stop; RESET forgot it, and the RouteFed, sent again at every Resume, met "not in the reader gate
and the dealer did not route it" three times. Now the screen names the card and where to look,
the person puts it in the play slot, and the step, sent again, reads it there and routes it.
"""

from __future__ import annotations

import pytest

from trickref.device.simulated.fault_trials import run_trial

CASES = {
    # the firmware's part (mechanics.pull_cut): the stock card the played card's eject was pulling
    # (flag NEXT) lay short of the gate after the stop and a jam, and the feed move brought it in
    # ahead of the slot's card; it was read as the card fed, sent to the reject pocket, and a
    # player told to take a stock card "back" into their hand
    1: "a jam after the e-stop; the stock card a cut NEXT pull left short came in first",
    2: "the played card left on the belt by the stop",
    22: "the played card left on the belt by the stop",
    93: "the played card left on the belt by the stop",
    11007: "the played card lifted out clearing a jam",
    11012: "the played card lifted out clearing a jam",
}


@pytest.mark.parametrize("seed", sorted(CASES))
def test_an_estop_on_a_played_cards_route_then_resume_goes_on(seed: int) -> None:
    r = run_trial("estop_fetch", seed, compare=True, guard_s=240.0, twin=True)
    assert r.struck, f"the e-stop was never pressed (seed {seed})"
    assert r.mismatches == [], r.mismatches
    assert r.outcome == "right", (CASES[seed], r.outcome, r.detail, r.faults)
    assert any("was going to the trick pocket when the dealer stopped" in f for f in r.faults), r.faults

