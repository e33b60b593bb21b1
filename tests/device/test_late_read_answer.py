"""A read whose answer came late is asked about, never aborted (issue 18: the campaign's
"seat 0's pocket does not hold 3H", Cancellation Hearts seed 9069 on a loaded host with its
process stopped and continued at random moments).

The table waits for a fed card with a FEED. On a loaded host the FEED's answer can come after
the link's timeout: the port gives the read up ("the dealer did not answer FEED") and the table
stops until the dealer answers again. The dealer was only slow: its FEED still runs, and the card
a player puts in the play slot just then is read and held. The read's end was posted while the
port still counted the read as waiting, so the worker, seeing the table stop, stopped that read
with an ABORT: the dealer sent the player's card to the reject pocket (unread, when the ABORT
came mid-read) and nobody was told; the player's card was gone. Here the worker's stop comes at
once, as it does when the port's thread is slow to leave the read."""

from __future__ import annotations

from typing import Any

from dealer_testkit import GENEROUS, round_robin_plan, running, wait_until

from trickref.device.dealer import messages as m
from trickref.device.dealer.errors import DealerTimeout
from trickref.device.table.host import SerialDealer
from trickref.engine.referee.events import DealerFault


def test_a_read_given_up_for_a_late_answer_is_not_aborted() -> None:
    with running(seats=4) as (sim, dealer):
        dealer.deal(round_robin_plan(4))
        card = sim.board.seat(0)[0]
        port = SerialDealer(dealer)
        posts: list[Any] = []

        def post(item: Any) -> None:
            posts.append(item)
            if isinstance(item, DealerFault):
                port.stop_read()  # the worker: the table stopped, it wants no card now

        port.start(post)
        try:
            adapter = port.adapter
            read_fed_wait = adapter.read_fed_wait

            def late_answer() -> int:
                try:
                    return read_fed_wait(0.3)  # the FEED went out; its answer is late
                except DealerTimeout:
                    # just then the player puts a card in the play slot: the dealer's FEED, still
                    # running, reads it and holds it in the window
                    with sim.lock:
                        sim.board.trays[0].remove(card)
                    sim.play(card)
                    assert wait_until(lambda: sim.firmware.dealer.mech.held is not None, GENEROUS)
                    raise

            adapter.read_fed = late_answer  # type: ignore[method-assign]
            port.read()
            assert wait_until(lambda: any(isinstance(p, DealerFault) for p in posts), GENEROUS)
            fault = next(p for p in posts if isinstance(p, DealerFault))
            assert fault.kind == "timeout"
            wait_until(lambda: not port._waiting, GENEROUS)  # noqa: SLF001
            dealer.status()  # (an ABORT sent meanwhile has been carried out)
            assert sim.board.tray(m.REJECT) == [], "the player's card went to the reject pocket"
            # asked about on Resume, the read held the card: it is read, not lost
            assert adapter.pending_read() == card
        finally:
            port.close()
