"""A Fetch the dealer stopped twice relearns the loop before it goes again.

On the physical twin, an e-stop mid-FETCH could leave the dealer's loop model unlike its loop
(a card left in the feed or on the belt, one a person lifted out clearing a jam): the FETCH sent
again at every Resume met a card jammed at the loop stage, then a dealer idle that never
reported the end, over and over, until the table gave up (tests/device/test_estop_on_route.py,
seed 11004). Now the second stop of the same Fetch or Stage makes its next try stop whatever the
dealer runs, read every card of the loop round again (a card not found is named for the play
slot), then fetch. Here on the simulated board, with the real firmware behind a pty and the real
driver: the e-stop pressed as the dealer takes the FETCH, twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dealer_testkit import GENEROUS, estop_resume, running, wait_until

from trickref.device.table.dealers import DealerAdapter
from trickref.engine import cards as C
from trickref.engine.referee.commands import DealPlan, Fetch
from trickref.engine.referee.events import DealDone, DealerDone, DealerFault
from trickref.firmware import protocol as P

N = C.parse
STOCK = ["2C", "9H", "KD", "4S", "7D", "QS"]


@contextmanager
def stock_table(estops: int) -> Iterator[tuple[Any, Any, DealerAdapter]]:
    """Six stock cards round the loop; the e-stop pressed as the dealer takes each of the
    first ``estops`` FETCHes."""
    with running(seats=2) as (sim, dealer):
        fw = sim.firmware.dealer
        adapter = DealerAdapter(dealer)
        sim.load_deck([N(c) for c in STOCK])
        assert adapter.run(DealPlan(1, tuple((c, "loop") for c in STOCK), step=1)) == DealDone(1, True)
        adapter.loop_cards = [N(c) for c in STOCK]  # (the host keeps it from the referee)
        left = [estops]
        dispatch = fw.dispatch

        def on_command(ft: int, body: bytes, resumed: bool = False) -> Any:
            out = dispatch(ft, body, resumed)
            if ft == P.FETCH and left[0] > 0:
                left[0] -= 1
                sim.board.estop_button = True  # (on the simulator's thread, its lock held)
            return out

        fw.dispatch = on_command
        yield sim, dealer, adapter


def test_the_second_stop_of_a_fetch_relearns_the_loop_then_fetches() -> None:
    with stock_table(estops=2) as (sim, dealer, adapter):
        for _ in range(2):
            out = adapter.run(Fetch("QS", "seat:1", step=2))
            assert isinstance(out, DealerFault) and out.kind == "fault", out
            estop_resume(sim, dealer, adapter)
        assert adapter.run(Fetch("QS", "seat:1", step=2)) == DealerDone(2, "QS")
        assert any(f.startswith("resync: step 2 stopped 2 times") for f in adapter.faults), adapter.faults
        fw = sim.firmware.dealer

        def settled() -> bool:
            with sim.lock:
                return sorted(sim.board.hopper) == sorted(N(c) for c in STOCK[:-1])

        assert wait_until(settled, GENEROUS)  # (the FETCH's cards sent round land on the hopper)
        with sim.lock:
            assert sim.board.seat(1) == [N("QS")]
            assert fw.loop_valid and sorted(fw.loop) == sorted(N(c) for c in STOCK[:-1])
        # the table goes on: the next stock card comes out as usual
        assert adapter.run(Fetch("KD", "seat:0", step=3)) == DealerDone(3, "KD")


def test_one_stop_is_only_resumed() -> None:
    with stock_table(estops=1) as (sim, dealer, adapter):
        out = adapter.run(Fetch("QS", "seat:1", step=2))
        assert isinstance(out, DealerFault), out
        estop_resume(sim, dealer, adapter)
        assert adapter.run(Fetch("QS", "seat:1", step=2)) == DealerDone(2, "QS")
        assert not any(f.startswith("resync:") for f in adapter.faults), adapter.faults
