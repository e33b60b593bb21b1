"""A relearning of the loop whose step id the dealer already holds for another plan goes again
under a fresh id.

The dealer keeps the steps it took (their ids and the CRC of their bodies), and a DEAL_PLAN sent
under a known id with another body is refused CONFLICT ("the same id for another step"). Every
relearning of the loop not given an id of its own goes under the referee's step 0; a second
relearning with other cards (a card moved since, or one a person put back through the play
slot) met the first one's id. The driver read the refusal as a malformed command, the table as
the link down ("the dealer has not taken back the 23 card(s) parked in its loop since the table
restarted: the dealer refused DEAL_PLAN as malformed (CONFLICT)"), and it waited for good for a
dealer that answered every frame (the fault campaign's estop_fetch row on the physical twin,
seed 11025, under load). Here on the simulated board, with the real firmware behind a pty and
the real driver.
"""

from __future__ import annotations

from dealer_testkit import running

from trickref.device.table.dealers import LOOP, DealerAdapter
from trickref.engine import cards as C
from trickref.engine.referee.commands import DealPlan, Fetch
from trickref.engine.referee.events import DealDone, DealerDone

N = C.parse
STOCK = ["2C", "9H", "KD", "4S", "7D", "QS"]


def test_a_relearning_under_another_relearnings_id_goes_again_under_a_fresh_one() -> None:
    with running(seats=2) as (sim, dealer):
        adapter = DealerAdapter(dealer)
        sim.load_deck([N(c) for c in STOCK])
        assert adapter.run(DealPlan(1, tuple((c, "loop") for c in STOCK), step=1)) == DealDone(1, True)
        first = [N(c) for c in STOCK]
        dealer.deal([(c, LOOP) for c in first], step=adapter._sid(0, 0))  # an earlier relearning
        # the loop relearned again, with its cards in another order (the plan's body differs)
        adapter.loop_cards = list(reversed(first))
        adapter.relearn = list(adapter.loop_cards)
        out = adapter.run(Fetch("QS", "seat:1", step=2))
        assert isinstance(out, DealerDone), out  # before: DealerFault("link_down", ... CONFLICT)
        assert adapter.relearn is None
        assert N("QS") in sim.board.trays[1]
