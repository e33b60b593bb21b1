"""Two decks: a card the dealer clears to the reject pocket goes back to the hand it came from.

The campaign's corrupt_5 trial 308081 (Cancellation Hearts, 6 players, 5 % of the link's bytes
corrupted): the EVENT frame with the dealer's read of seat 3's 5C was lost, and the answer to
the EVENTS_SINCE that asked for it again came damaged past its CRC ("event 0x02 runs past the
end of the block"). The table stopped, the dealer cleared the card from its read window to the
reject pocket, and the referee, looking for 5C in its model, took the first pocket that held
one: seat 2's. Seat 2 was told to take "their" 5C back and ended with two, seat 3 with none.
Here the same moment is struck on purpose (fault_trials' ``malformed_twin_read``): the read of
the first card played whose twin a lower seat also holds is lost, and its EVENTS answer cut one
byte short. On the real path (the firmware behind a pty, the real driver, host and referee),
every pocket must match the referee's hand before every play, and the hand end as it would have.

Since the link asks again for a reply damaged past its CRC (tests/device/test_malformed_replies.py)
the damaged answer no longer stops the table at all: the EVENTS_SINCE is sent again, the read comes,
and nothing is cleared to the reject pocket. (The referee's choice of the twin's owner when a card
does go there is tests/engine/test_reject_twin_owner.py.)
"""

from __future__ import annotations

from trickref.device.simulated.fault_trials import run_trial


def test_a_two_deck_read_whose_answer_came_damaged_is_asked_again_and_the_table_goes_on() -> None:
    r = run_trial("malformed_twin_read", 308081, compare=True, guard_s=240.0, at=1)
    assert r.struck
    assert r.faults == [] and r.pressed == 0, r.faults  # no stop: the answer was asked for again
    assert r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)
