"""A dealer slow relative to its host (issue 18: the emulated Pi's "refused FETCH").

On a real dealer (or the simulator on a CPU 3-10x slower than this one) a FETCH that sends
most of the loop round takes seconds: 25 cards at about half a second each. The host's stall
check saw no progress in STATUS (a fetch reported the last deal's card count, standing still)
and gave the fetch up as a stalled dealer; the table then carried on from a false fault.
Here the simulator's clock runs only a few times real time, and the host's stall timeout is
shorter than the fetch: a fetch that keeps sending cards round must finish.
"""

from __future__ import annotations

from dealer_testkit import round_robin_plan, running

from trickref.device.dealer import messages as m


def test_a_long_fetch_is_progress_not_a_stall() -> None:
    plan = round_robin_plan(2, extra={i: m.LOOP for i in range(26, 52)})
    with running(seats=2) as (sim, dealer):
        dealer.deal(plan)
        order = list(sim.firmware.dealer.loop)
        assert len(order) == 26
        # the mechanism now at 5x real time: 25 cards round the loop take ~2.4 s of real time,
        # each about 0.1 s; the host gives a dealer that shows no progress for 1.5 s up
        sim.speed = 5.0
        dealer.stall_timeout = 1.5
        assert dealer.fetch_loop(order[-1], 1) == order[-1]  # DealerTimeout before the fix
        assert sim.board.seat(1)[-1] == order[-1]
        assert dealer.status().loop_count == 25

