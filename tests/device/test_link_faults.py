"""Issue 18 on the real path (SimTable: the firmware behind a pty, pyserial, the driver, the table
host and referee, bots in every seat, the simulated person doing only what the screen says):

- the stuck route: a fed card routed (or a stock card fetched) and its answer lost while the
  cable was out for longer than the link timeout; before protocol 3 every Resume sent the step
  again, the dealer refused it (the card was already in its pocket) and the table stopped for
  good (seeds 2105 and 7002 of the campaign's rows);
- the silent reject: the dealer read a fed card and fell silent; the host gave up on the read,
  the card ended in the reject pocket and the referee still counted it in the player's hand
  (seeds 2101 and 5016);
- a card fed back (a spades-2p draw) while the dealer fell silent: fed once (seed 9001);
- a card fed back and routed whose answer was lost: the table goes on (seed 8018's stuck Fetch);
- a played card whose read the dealer refused stays in the play slot and is read after Resume;
- a short seeded slice of the fault campaign (benchmarks/faults.py).

Each trial compares every seat's pocket with the referee's hand before every play
(device/simulated/fault_trials.py). All of these failed on the code before protocol 3.
"""

from __future__ import annotations

import pytest

from trickref.device.simulated.fault_trials import run_trial


def _right(row: str, seed: int, **kw: float) -> None:
    r = run_trial(row, seed, compare=False, guard_s=240.0, **kw)  # type: ignore[arg-type]
    assert r.struck, f"the fault never struck ({row}, seed {seed})"
    assert r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)
    # a link fault: the screen says the table goes on by itself when the dealer is back, and
    # it did (nobody pressed Resume)
    assert r.pressed == 0, r.faults


def test_a_route_whose_answer_was_lost_is_not_refused_on_resume() -> None:
    """Hearts, seed 2105: the third routed card reached the trick pocket, then the cable was out
    for 3.5 s (the link times out after 2 s). The host sends the routing again under its step id:
    the dealer answers that it did it; the hand goes on by itself when the cable is back."""
    _right("unplug_routed", 2105, at=3, outage=3.5)


def test_a_fetch_whose_answer_was_lost_is_not_refused_on_resume() -> None:
    """German Whist, seed 7002: the cable out for 3 s in the middle of the second Fetch."""
    _right("unplug_fetch", 7002, at=2, outage=3.0)


@pytest.mark.parametrize("seed", [2101, 5016])
def test_a_card_read_while_the_dealer_fell_silent_is_a_card_read(seed: int) -> None:
    """The dealer read a fed card and holds it, then is silent for 3-5 s: when it answers again
    the host asks what that read did (its step id): the card it holds is the card read, so it is
    neither thrown into the reject pocket nor left in the player's hand on the referee's books."""
    _right("silent_read", seed)


def test_a_card_fed_back_while_the_dealer_fell_silent_is_not_fed_twice() -> None:
    """Two-player Spades, seed 9001 (the campaign's 5 %-corrupted-bytes row, seed 8008, met it
    by chance): a drawn card is fed back, the dealer reads it and falls silent for 3-5 s; when
    the table goes on by itself the step is carried on, the card is in the dealer. The simulated
    person fed it again (from a pocket that no longer held it: the run died) instead of waiting."""
    _right("silent_feed_back", 9001)


def test_a_card_fed_back_routed_while_its_answer_was_lost_does_not_stop_the_table() -> None:
    """Two-player Spades, seed 9001 (the campaign's seed 8018 at 5 % corrupted bytes met it by
    chance): the dealer routes the drawn card fed back, and its answer is lost for 4 s
    ('did not answer ROUTE_PRESENTED after 4 tries'). Carried on, the step is only routed (the
    card was read before): the port kept saying it waited for a person to feed a card, so the
    table took the next step in flight (a Fetch) for an idle table and nobody could act."""
    _right("mute_feed_back_route", 9001, at=1, outage=4.0)


@pytest.mark.parametrize(("row", "seed"), [("none", 1001), ("unplug_deal", 2003), ("unplug_release", 3004)])
def test_a_slice_of_the_fault_campaign(row: str, seed: int) -> None:
    """A few of benchmarks/faults.py's trials, seeded: each hand ends right, with the same result
    as an uninterrupted run, and every pocket matched the referee before every play."""
    r = run_trial(row, seed, compare=True, guard_s=240.0)
    assert r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)
