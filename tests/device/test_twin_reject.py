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

When nothing says which of two holders fed a card that went to the reject pocket (a pass, every
seat on turn, nobody pressed OK), the referee guesses neither: both are told to take it back if it
is no longer in their hand, and the simulated person does exactly that (the tests below).
"""

from __future__ import annotations

from collections import Counter

import pytest
from simtable_testkit import dealt, keep_commands

from trickref.device.dealer import messages as m
from trickref.device.simulated.fault_trials import run_trial
from trickref.device.simulated.table import SimTable
from trickref.engine import cards as C
from trickref.engine.referee.commands import Message, TakeBack
from trickref.engine.referee.events import DealerMoved


def test_a_two_deck_read_whose_answer_came_damaged_is_asked_again_and_the_table_goes_on() -> None:
    r = run_trial("malformed_twin_read", 308081, compare=True, guard_s=240.0, at=1)
    assert r.struck
    assert r.faults == [] and r.pressed == 0, r.faults  # no stop: the answer was asked for again
    assert r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)


def test_a_rejected_twin_either_of_two_seats_may_have_fed_goes_back_to_the_one_who_fed_it() -> None:
    """The first pass of Cancellation Hearts (6 players): every seat is on turn, nobody has
    pressed OK or fed a card, and two seats hold a copy of a card. The higher one feeds it (a
    person at real panels may skip OK) and the dealer clears it to its reject pocket, its read
    never reported (its ledger says so). Nothing says which of the two fed it: both are told,
    each on their own screen, to take it back if it is no longer in their hand; the simulated
    person does what the words say (the feeder's pocket no longer holds it). Before, the lower
    seat was told to take "their" card back and held two copies, the feeder none. Every pocket
    then matches the referee's hand, and the hand is played to its end."""
    with SimTable("cancellation-hearts", 6, {}, seed=5) as table:
        cmds = keep_commands(table)
        g = dealt(table)
        ref, sim = table.referee, table.sim
        assert sim is not None
        assert g.phase == "pass" and ref.claim is None and not any(ref.fed.values())
        card = next(c for c in range(52) if sum(c in g.hand_of(s) for s in range(g.n)) == 2)
        lo, hi = [s for s in range(g.n) if card in g.hand_of(s)]
        with sim.lock:  # seat hi fed it; the dealer cleared it to its reject pocket (its ledger says so)
            sim.board.trays[hi].remove(card)
            sim.board.trays.setdefault(m.REJECT, []).append(card)
        table.host.post(DealerMoved(((C.NAMES[card], "reject"),), 1))
        table.settle()
        with sim.lock:
            assert card not in sim.board.trays.get(m.REJECT, [])
            for s in range(g.n):
                assert Counter(sim.board.trays.get(s, [])) == Counter(g.hand_of(s)), s
        taken = [c for c in cmds if isinstance(c, TakeBack)]
        assert [(c.card, c.owners) for c in taken] == [(C.NAMES[card], (lo, hi))], taken
        assert Counter(ref.places.at.get(f"seat:{hi}", [])) == Counter(g.hand_of(hi))
        said = [(c.text, c.seat) for c in cmds if isinstance(c, Message) and "reject pocket" in c.text]
        assert sorted(seat for _t, seat in said if seat is not None) == [lo, hi], said
        table.run(max_hands=1)
        assert len(g.hand_results) == 1


@pytest.mark.parametrize("estop", [False, True])
def test_a_twin_fed_to_pass_without_ok_goes_back_to_the_one_who_fed_it(estop: bool) -> None:
    """The same first pass on the real path: seat 5 feeds 3S (seat 1 holds the other copy)
    without pressing OK; the dealer reads it and the referee, not knowing whose it is, sends it
    to the reject pocket (``estop``: the e-stop is pressed as the dealer reads it; after Resume
    the dealer clears it from its read window there). Both holders are told; the feeder, whose
    pocket no longer holds it, takes it back. Before, the model took seat 1's copy and nobody was
    told to take the card back: seat 1's pocket held a 3S the model did not, seat 5's model one
    its pocket did not."""
    with SimTable("cancellation-hearts", 6, {}, seed=5) as table:
        cmds = keep_commands(table)
        g = dealt(table)
        ref, sim = table.referee, table.sim
        assert sim is not None
        assert g.phase == "pass" and ref.claim is None and not any(ref.fed.values())
        card = C.parse("3S")
        assert [s for s in range(g.n) if card in g.hand_of(s)] == [1, 5]
        if estop:
            fw = sim.firmware.dealer
            emit = fw.emit
            struck: list[bool] = []

            def wrapper(kind: int, payload: bytes) -> None:
                emit(kind, payload)
                if kind == m.EV_PRESENTED and not struck:
                    struck.append(True)
                    sim.board.estop_button = True  # twisted out by the person's Resume

            fw.emit = wrapper
        table.opened.feed(card, 5)  # no OK pressed
        # read and routed (the step done), or the dealer stopped
        assert table.host.wait(lambda: ref.dealer_fault is not None or (table.host.read_counts["3S"] > 0
                                                                        and not ref.steps), 60.0)
        table.settle()
        if estop:
            assert ref.dealer_fault is not None and "emergency stop" in ref.dealer_fault, ref.dealer_fault
            table.recover()
        with sim.lock:
            assert card not in sim.board.trays.get(m.REJECT, [])
            for s in range(g.n):
                assert Counter(sim.board.trays.get(s, [])) == Counter(g.hand_of(s)), s
                assert Counter(ref.places.at.get(f"seat:{s}", [])) == Counter(g.hand_of(s)), s
        taken = [c for c in cmds if isinstance(c, TakeBack)]
        assert [(c.card, c.owners) for c in taken] == [("3S", (1, 5))], taken
        table.run(max_hands=1)
        assert len(g.hand_results) == 1
