"""The fault campaign's unplug_release trial 303029 (issue 18), forced on the real path: Cancellation
Hearts, six players, two decks; the cable is pulled during the hand-over of passed cards (a
``Release``) and the dealer's dead-man stops it with the first of the two passed QS (to seat 4) read
and on its way out of the read window (the eject stage), the second QS (to seat 5) still in the hopper.
The strike is made on the simulator's thread at the 9th card of the Release (its delivery report),
and the dead-man stop there too, so the moment is the same whatever the machine's load.

What went wrong in the campaign: at the Resume after the outage the simulated person put the read
window's QS in the play slot, though the screen said only that the table goes on by itself; the
dealer, resumed, took its eject as done (a QS on its way to seat 4), read the slot's QS again as the
second copy (to seat 5), jammed on the first (never seen at seat 4's pocket), and rejected the
hopper's QS as a third copy. The referee then told seat 4's player to take the reject pocket's QS
"back" into their hand while the Release's fault asked for it in the play slot; the person fed
another pocket's QS for it: seat 4 held two QS, seat 5 none, and the referee one each.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from trickref.device.simulated.fault_trials import _Table
from trickref.engine import cards as C

sys.path.insert(0, str(Path(__file__).parent))
from release_strike import at_release_card  # noqa: E402

SEED = 303029
OUTAGE = 3.7  # the campaign's drawn outage (3.69 s): longer than the person waits before Resume


@pytest.fixture
def table() -> Iterator[_Table]:
    t = _Table("cancellation-hearts", 6, {}, seed=SEED)
    t.mismatches = []
    try:
        yield t
    finally:
        t.close()


def _unplug_at_the_twin(t: _Table) -> list[tuple[int | None, str]]:
    """The cable out, and the dealer's dead-man stop, when the 9th card of the Release lands:
    returns the read window's card and the stopped stage at that moment."""
    sim = t.sim
    assert sim is not None
    seen: list[tuple[int | None, str]] = []

    def strike() -> None:
        fw = sim.firmware.dealer
        t.back_at = time.monotonic() + OUTAGE  # the person presses Resume only once it is back
        sim.disconnect(come_back_after=OUTAGE)
        fw.mech.deadman()  # the host unheard: motors stopped where they are
        stage = fw.mech.stage
        seen.append((sim.board.gate, stage[0] if stage else ""))

    assert at_release_card(t, 9, strike) is not None
    return seen


def test_after_a_pulled_cable_the_read_window_card_is_left_where_it_is(table: _Table) -> None:
    """The screen says the table goes on by itself: nobody touches the dealer, its deal goes on
    where the dead-man stopped it, and every pocket matches the referee before every play."""
    seen = _unplug_at_the_twin(table)
    table.start()
    table.run(max_hands=1)
    assert seen == [(C.parse("QS"), "eject")]  # the moment came: the first QS leaving the window
    assert table.mismatches == []
    assert len(table.recoveries) == 1 and "unplugged" in table.recoveries[0], table.recoveries
    g = table.referee.game
    assert g is not None and len(g.hand_results) == 1


def test_a_twin_read_again_and_rejected_is_fed_again_not_taken_back(table: _Table) -> None:
    """A person who clears the read window by hand anyway (into the play slot) gets the
    campaign's chain (a jam, QS to seat 5, the hopper's QS rejected): the reject pocket's QS is
    the passed card still due to seat 4, fed again through the play slot, never taken "back"
    into a hand; the pockets match the referee before every play to the end of the hand."""
    seen = _unplug_at_the_twin(table)
    people = table.host.people
    fix = people.fix
    sim = table.sim
    assert sim is not None

    def fix_and_clear(fault: str) -> None:
        fix(fault)
        if "unplugged" in fault:
            sim.strays_to_slot()  # the card in the read window into the play slot

    people.fix = fix_and_clear  # type: ignore[method-assign]
    said: list[str] = []
    on = table.host.on_commands

    def keep(out: list[object]) -> None:
        said.extend(str(getattr(c, "text", "")) for c in out)
        if on is not None:
            on(out)  # type: ignore[arg-type]

    table.host.on_commands = keep  # type: ignore[assignment]
    table.start()
    table.run(max_hands=1)
    assert seen == [(C.parse("QS"), "eject")]
    assert any("not in the dealer" in r for r in table.recoveries), table.recoveries  # the chain came
    assert not any("take it back" in s for s in said), [s for s in said if "reject" in s]
    assert table.mismatches == []
    g = table.referee.game
    assert g is not None and len(g.hand_results) == 1


def test_each_receiver_looks_for_a_named_card_in_their_own_pocket() -> None:
    """The screen after a Release's fault asks each receiver to look in their own pocket for the
    cards passed to them: the simulated person takes a named QS from that pocket, never its twin
    from another seat's (which is that seat's card), and counts the copies already in the reject
    pocket."""
    from trickref.device.dealer.sim import REJECT, DealerSimulator

    qs = C.parse("QS")
    sim = DealerSimulator(seats=6)
    sim.board.trays.update({4: [qs, C.parse("3H")], 5: [qs]})
    assert sim.strays_to_slot([qs], [5]) == [qs]
    assert sim.board.trays[4] == [qs, C.parse("3H")] and sim.board.trays[5] == []
    sim = DealerSimulator(seats=6)
    sim.board.trays.update({4: [qs], 5: [qs], REJECT: [qs]})
    assert sim.strays_to_slot([qs, qs], [4, 5]) == [qs, qs]  # the reject pocket's, then seat 5's
    assert sim.board.trays[4] == [qs] and sim.board.trays[5] == []
