"""The e-stop pressed mid-deal on the physical twin (device/dealer/twin.py: cards go where the
flaps and the belt send them), at a real table (SimTable: the firmware behind a pty, pyserial,
the driver, the table host and referee, bots in every seat, the simulated person doing only what
the screen says: twist the button out, press Resume).

The fault campaign's estop_deal row (device/simulated/fault_trials.py: the e-stop 0-16 s of the
dealer's time after it took the hand's DEAL_PLAN, with cards in the pickup, at the gate, on the
belt and dropping into pockets). One seed of each game (the row takes the games in turn): the
hand ends right, with the same result as an uninterrupted run, every pocket matching the referee
before every play."""

from __future__ import annotations

import pytest

from trickref.device.simulated.fault_trials import pick_game, run_trial

SEEDS = (1, 2, 3, 4, 5)


def test_the_seeds_cover_every_game() -> None:
    assert len({pick_game("estop_deal", s)[0] for s in SEEDS}) == 5


@pytest.mark.parametrize("seed", SEEDS)
def test_an_estop_mid_deal_then_resume_goes_on(seed: int) -> None:
    r = run_trial("estop_deal", seed, compare=True, guard_s=240.0, twin=True)
    assert r.struck, f"the e-stop was never pressed (seed {seed})"
    assert r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.game, r.outcome, r.detail, r.faults)
    assert any("emergency stop" in f for f in r.faults), r.faults
    assert r.pressed >= 1 and r.deals >= 1


def test_an_estop_mid_eject_is_one_stop() -> None:
    """Seed 1 (Cancellation Hearts): the e-stop during a dealt card's eject, the card on the belt
    but not a flight yet. RESET's reject of the next card, unread in the window, raised the
    reject pocket's flap with that card ahead of it on the belt: JAM 3 after RESET and again
    after the next Resume, and the hand was gathered and dealt again. The belt now goes home
    first (Mechanics._eject_cut): one stop, one Resume, and the deal goes on."""
    r = run_trial("estop_deal", 1, compare=True, guard_s=240.0, twin=True)
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)
    assert len(r.faults) == 1 and "emergency stop" in r.faults[0], r.faults


@pytest.mark.parametrize("seed", [12000, 12039])
def test_an_estop_with_the_next_card_in_the_throat_is_one_stop(seed: int) -> None:
    """The e-stop during a dealt card's eject, the move bringing the hopper's next card in.
    Seed 12000 (Hearts): that card had passed the gate, 16.5 mm short of the window. RESET sent
    it to the reject pocket, but the eject ran only the cut move's rest, with the hopper not
    held: the card came to the window, not the belt, the next card came in shingled under it
    (JAM 3, then a double feed at the ABORT, a jam at the feed stage and a card the dealer could
    not read: four stops). Now RESET brings it to the window (Mechanics._cut_comes_in,
    finish_cut). Seed 12039 (partnership Spades): that card had not reached the gate; the
    hand was gathered and dealt again, and the fresh deal's first feed move ran the cut move's
    rest: the first card 40 mm in, short of the gate (JAM at the feed stage), then past the
    window (rejected unread). A fresh deal now forgets what a stop left to run
    (Mechanics.path_gathered). Each: one stop, one Resume."""
    r = run_trial("estop_deal", seed, compare=True, guard_s=240.0, twin=True)
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)
    assert len(r.faults) == 1 and "emergency stop" in r.faults[0], r.faults
    assert r.pressed == 1
