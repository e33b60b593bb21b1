"""A step the dealer stalls on is not sent again into the same stall.

The driver gives a step up when the dealer answers but shows no progress for its stall timeout
(DealerStalled): the table stops, the screen asks people to look for a card caught or a motor
that does not turn, and "Fixed, continue" runs the step again. When nothing physical was wrong
(the firmware itself waited for something that would never come), the step sent again as it
was met the same stalled step in the dealer, and the table stopped again at every continue:
the people's only way on was to power the dealer off and on.

The world here is the firmware's frozen-loop FETCH of 7934473 put back (a FETCH of a card an
ABORT froze on the belt, with the hopper empty, never ran the belt again): the cards a FETCH sent
round the loop are frozen on the belt by an ABORT, and the next FETCH wants one of them.
"""

from __future__ import annotations

from dealer_testkit import GENEROUS, running, wait_until

from trickref.device.table.dealers import DealerAdapter
from trickref.engine import cards as C
from trickref.engine.referee.commands import DealPlan, Fetch
from trickref.engine.referee.events import DealDone, DealerDone, DealerFault

N = C.parse


def test_continue_after_a_stall_restarts_the_step_the_dealer_still_sits_on() -> None:
    stock = ["2C", "9H", "KD", "4S"]
    with running(seats=2) as (sim, dealer):
        fw = sim.firmware.dealer
        fw.mech._unfreeze = lambda: None  # noqa: SLF001 - the frozen-loop defect put back
        adapter = DealerAdapter(dealer)
        sim.load_deck([N(c) for c in stock])
        assert adapter.run(DealPlan(1, tuple((c, "loop") for c in stock), step=1)) == DealDone(1, True)
        sim.speed = 1.0  # real time: the cards the FETCH sends round are still on the belt after it
        assert adapter.run(Fetch("4S", "seat:1", step=2)) == DealerDone(2, "4S")
        dealer.abort()  # (the table's read of a played card, stopped for the next step)
        with sim.lock:
            frozen = [C.NAMES[f.op.card] for f in fw.mech.flights]
            assert fw.mech.stopped_at is not None
        assert frozen == ["2C", "9H", "KD"]
        sim.speed = 50.0
        dealer.stall_timeout = 2.0
        out = adapter.run(Fetch("KD", "seat:0", step=3))
        assert isinstance(out, DealerFault) and out.kind == "fault" and "no progress" in out.message, out
        # the people find nothing caught and press "Fixed, continue": the step comes again
        assert adapter.run(Fetch("KD", "seat:0", step=3)) == DealerDone(3, "KD")  # stalled again before
        with sim.lock:
            assert sim.board.seat(0) == [N("KD")] and sim.board.seat(1) == [N("4S")]
        assert adapter.run(Fetch("9H", "seat:1", step=4)) == DealerDone(4, "9H")  # and the table goes on
        def left() -> list[int]:
            with sim.lock:
                return list(sim.board.hopper) + ([sim.board.gate] if sim.board.gate is not None else [])

        wait_until(lambda: left() == [N("2C")], GENEROUS)  # (the FETCH may have sent it round)
        assert fw.loop == [N("2C")]
        assert any("no progress since it stalled" in f for f in adapter.faults)


def test_a_stalled_step_that_went_on_is_not_reset() -> None:
    """The people freed what held it and the dealer went on by itself: its step is not stopped;
    sent again, the dealer's step memory gives its outcome."""
    stock = ["2C", "9H", "KD", "4S"]
    with running(seats=2) as (sim, dealer):
        adapter = DealerAdapter(dealer)
        sim.load_deck([N(c) for c in stock])
        assert adapter.run(DealPlan(1, tuple((c, "loop") for c in stock), step=1)) == DealDone(1, True)
        adapter.stalled = (3, (4, 0, 0))  # as if step 3 had stalled: the dealer has moved on since
        assert adapter.run(Fetch("KD", "seat:0", step=3)) == DealerDone(3, "KD")
        assert not any(f.startswith("reset:") for f in adapter.faults)
