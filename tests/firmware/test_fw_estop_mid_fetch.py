"""The e-stop pressed mid-FETCH, then RESET and the FETCH sent again (what the table does after
"Fixed, continue"): the fetched card and the cards the FETCH sent round are where the loop model
says, and nothing the stop left on the belt is taken for the next card's.

Found by the fault campaign's estop_fetch row (device/simulated/fault_trials.py: German Whist, the
e-stop 0-2.5 s after a FETCH began), 4 tables of 40 stopped for good before: the card found and
routed but still in the read window had left the loop model (every FETCH of it refused: "there is
no card for it"); its eject begun with the hopper held made RESET take it for a fed card and send
it to the reject pocket; and the cards frozen on the loop were forgotten at the stop, so their
edges at E were taken for the next FETCH's card passing its pocket (JAM 4, at every Resume).
"""

from __future__ import annotations

import random

from fw_host import Host, make_host, plan_body

from trickref.firmware import protocol as P


def stock_on_the_loop() -> Host:
    """Forty cards dealt to four seats, twelve round the loop (a stock)."""
    order = list(range(52))
    random.Random(21).shuffle(order)
    host = make_host(deck=order)
    plan = [(c, i % 4) for i, c in enumerate(order[:40])] + [(c, P.LOOP) for c in order[40:]]
    host.command(P.DEAL_PLAN, plan_body(3, plan))
    host.until(P.EV_DEAL_DONE)
    host.run(3000)
    return host


def estop_when(host: Host, card: int, stage: str, ejecting: bool | None = None) -> list[int]:
    """Run the mechanism a simulated ms at a time until the op of ``card`` is in ``stage``, then
    press the e-stop; the cards the FETCH had sent round the loop and were still on it."""
    mech = host.sim.firmware.dealer.mech
    for _ in range(20000):
        host.sim.step(1)
        st = mech.stage
        if mech.op is not None and mech.op.card == card and st is not None and st[0] == stage \
                and (ejecting is None or mech.ejecting == ejecting):
            break
    else:
        raise AssertionError(f"the op of card {card} never reached its {stage} stage")
    cycled = [f.op.card for f in mech.flights if f.pocket is None]
    host.board.estop_button = True
    host.run(20)
    host.board.estop_button = False  # twisted out
    return cycled


def reset_and_fetch_again(host: Host, card: int) -> None:
    host.cursor = len(host.events)
    assert host.command(P.RESET, b"\x00").type == P.OK
    host.run(500)
    assert host.board.gate == card and host.board.tray(P.REJECT) == []  # left in the window
    assert host.command(P.FETCH, bytes((P.LOOP, card, 1))).type == P.OK  # refused EMPTY before
    assert host.until(P.EV_CARD_ROUTED, max_ms=30000)[2] == bytes((card, 1))
    host.run(3000)
    assert host.board.seat(1)[-1] == card
    assert not [e for e in host.events[host.cursor:] if e[1] == P.EV_JAM]  # JAM 4 before


def test_an_estop_while_the_fetched_cards_flap_turns() -> None:
    host = stock_on_the_loop()
    d = host.sim.firmware.dealer
    want = d.loop[3]
    host.send(P.FETCH, P.u16(0x100) + bytes((P.LOOP, want, 1)))
    cycled = estop_when(host, want, "turn")
    assert len(cycled) == 3  # the three cards over it, still on their way round
    assert host.board.gate == want and d.loop[0] == want  # the loop's first card again, in the window
    reset_and_fetch_again(host, want)
    assert len(d.loop) == 11


def test_an_estop_mid_eject_with_nothing_pulled_after_it() -> None:
    """Its eject under way with the hopper held (no NEXT pull) and the gate still seeing it: no
    other card can be there, so the card in the window is still the fetched one."""
    host = stock_on_the_loop()
    d = host.sim.firmware.dealer
    want = d.loop[3]
    host.send(P.FETCH, P.u16(0x100) + bytes((P.LOOP, want, 1)))
    estop_when(host, want, "eject", ejecting=True)
    assert host.board.gate == want and d.loop[0] == want
    assert not d.mech.from_slot  # not a fed card: RESET leaves it where it is
    reset_and_fetch_again(host, want)


def test_an_estop_mid_eject_with_the_next_card_pulled_leaves_the_card_to_the_host() -> None:
    """Flag NEXT: the eject brings the loop's next card to the window as the fetched card leaves
    it, so the gate's card may be either; the fetched card is left out of the loop model (the
    host, finding the dealer's loop a card short after the stop, relearns it and asks people for
    a card it does not find), never claimed for the window where another card may lie."""
    host = stock_on_the_loop()
    d = host.sim.firmware.dealer
    want = d.loop[3]
    host.send(P.FETCH, P.u16(0x100) + bytes((P.LOOP, want, 1, P.FETCH_NEXT)))
    estop_when(host, want, "eject", ejecting=True)
    assert want not in d.loop and len(d.loop) == 11
