"""The ABORT that stops a read must never stop the step after it (issue 18 point 2: the
emulated Pi's "the dealer refused FETCH: there is no card for it", three times, in a plain
two-player Spades game).

The table reads fed cards while it takes entries; when a step is wanted (a Double Nil give
ended early by OK, and its replacements fetched, say) the read is stopped with an ABORT, and
looked at again 0.2 s later in case the ABORT overtook the FEED. On a slow host the port's
thread had not yet marked the read over when that second look came: it sent another ABORT,
which reached the dealer after the port had started the Fetch, stopped it with its card on the
way to the pocket, and the Fetch sent again was refused (its card no longer in the loop).
Here the host is slowed where it was slow: the port's thread takes 0.35 s to leave a read, and
the second look takes 0.3 s between deciding and sending; the dealer's mechanism runs in real
time, so the Fetch is still moving when that ABORT would come.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from dealer_testkit import GENEROUS, round_robin_plan, running, wait_until

from trickref.device.dealer import messages as m
from trickref.device.table.host import SerialDealer
from trickref.engine import cards as C
from trickref.engine.referee.commands import Fetch
from trickref.engine.referee.events import DealerDone, DealerFault


def test_the_read_abort_never_stops_the_fetch_after_it() -> None:
    plan = round_robin_plan(2, extra={i: m.LOOP for i in range(26, 52)})
    with running(seats=2) as (sim, dealer):
        dealer.deal(plan)
        first = sim.firmware.dealer.loop[0]  # found at once: routed, then in flight to the pocket
        port = SerialDealer(dealer)
        posts: list[Any] = []
        port.start(posts.append)  # type: ignore[arg-type]
        try:
            read_fed = port.adapter.read_fed

            def slow_read_end() -> int:
                try:
                    return read_fed()
                finally:
                    time.sleep(0.35)  # the port's thread, slow to leave the read

            port.adapter.read_fed = slow_read_end  # type: ignore[method-assign]
            abort = dealer.abort

            def slow_abort(**kw: Any) -> Any:
                if isinstance(threading.current_thread(), threading.Timer):
                    time.sleep(0.3)  # the second look: decided, then slow to send
                return abort(**kw)

            dealer.abort = slow_abort  # type: ignore[method-assign]
            port.read()
            wait_until(lambda: port._waiting, GENEROUS)  # noqa: SLF001 - the read waits for a card
            sim.speed = 1.0  # the mechanism in real time: the fetched card flies for a while
            port.run(Fetch(C.NAMES[first], "seat:1", step=7))
            wait_until(lambda: any(isinstance(p, (DealerDone, DealerFault)) for p in posts), GENEROUS)
            outcome = next(p for p in posts if isinstance(p, (DealerDone, DealerFault)))
            assert isinstance(outcome, DealerDone), outcome
            assert outcome.card == C.NAMES[first]
            wait_until(lambda: first in sim.board.seat(1), GENEROUS)
        finally:
            port.close()
