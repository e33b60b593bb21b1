"""A moving command the dealer refuses BUSY while its mechanism runs on is sent again once the
mechanism is still, not taken as a fault that stops the table.

The host ends a step when it hears the step's card land (its CARD_ROUTED), and the dealer may
run on after it: the cards a FETCH read under its card go round to their places (1.5 s after one
FETCH of a two-player Spades draw on the twin, benchmarks/event_latency.py's hand 1004, longer
than the second the firmware's batching holds the event). The table's next step then met "the
dealer refused FEED: the dealer is busy with another action" and stopped for a person to press
Resume (tests/e2e/test_sim_twin.py, the caught stock card, saw it with the event sent sooner).
The driver now asks STATUS until the mechanism is still and sends the command again (the dealer
forgets a refused step: the same id).

Here the real firmware behind its pty runs a whole deal the host did not wait for (started on
the firmware itself), standing in for any motion that outlasts the step the host heard end."""

from __future__ import annotations

import random
import threading

from dealer_testkit import GENEROUS, running, wait_until

from trickref.device.dealer import messages as m


def _deal_behind_the_hosts_back(sim) -> None:  # type: ignore[no-untyped-def]
    order = list(range(52))
    random.Random(5).shuffle(order)
    entries = [[c, i % 4] for i, c in enumerate(order)]
    with sim.lock:
        d = sim.firmware.dealer
        for off in (0, 26):
            body = m.encode_body(m.DEAL_PLAN, {"deal_id": 99, "total": 52, "offset": off, "flags": m.PLAN_FRESH,
                                                "entries": entries[off:off + 26]})
            d.dispatch(m.DEAL_PLAN, body)
        assert d.mech.busy()


def test_a_feed_refused_busy_while_the_mechanism_runs_on_goes_when_it_is_still() -> None:
    with running(seats=4, speed=40.0) as (sim, dealer):
        _deal_behind_the_hosts_back(sim)
        played: list[int] = []

        def person() -> None:  # once the deal is done, a player feeds a card from their pocket
            wait_until(lambda: sum(len(sim.board.seat(s)) for s in range(4)) == 52, GENEROUS)
            with sim.lock:
                card = sim.board.seat(0)[0]
                sim.board.trays[0].remove(card)
            played.append(card)
            sim.play(card)

        helper = threading.Thread(target=person, daemon=True)
        helper.start()
        card = dealer.read_card()  # FEED 1 HOLD: refused BUSY while the deal runs, sent again after
        helper.join(GENEROUS)
        assert dealer.busy_waits == 1
        assert played and card == played[0]
        assert dealer.status().card_presented
        assert dealer.route_presented(m.TRICK) == card
