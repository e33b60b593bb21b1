"""Protocol 3 on the real firmware (CPython, simulated board): step ids, STEP_QUERY, INVENTORY,
and the state the dealer keeps over its own reboot (firmware/steps.py)."""

from __future__ import annotations

import random

from fw_host import Host, make_host, plan_body

from trickref.firmware import protocol as P


def shuffled(seed: int) -> list[int]:
    order = list(range(52))
    random.Random(seed).shuffle(order)
    return order


def step_reply(frame: object) -> dict[str, int]:
    assert getattr(frame, "type", None) == P.STEP, frame
    b = frame.body  # type: ignore[attr-defined]
    return {"step": P.get_u16(b, 0), "type": b[2], "state": b[3], "card": b[4], "target": b[5],
            "count": b[6], "first": P.get_u16(b, 7)}


def query(host: Host, sid: int) -> dict[str, int]:
    return step_reply(host.command(P.STEP_QUERY, P.u16(sid)))


def inventory(host: Host, part: int) -> list[int]:
    r = host.command(P.INVENTORY, bytes((part, 0, 0)))
    assert r.type == P.INVENTORY_REPLY and r.body[0] == part
    return list(r.body[3:])


def stock_table(seed: int = 4) -> tuple[Host, list[int]]:
    """A dealt table: 10 cards in the loop, the rest in seats 2 and 3."""
    order = shuffled(seed)
    host = make_host(deck=order)
    stock = [(c, 0x85) for c in order[:10]]
    host.command(P.DEAL_PLAN, plan_body(1, stock + [(c, 2 + i % 2) for i, c in enumerate(order[10:])]))
    host.until(P.EV_DEAL_DONE)
    return host, order


def read_held(host: Host, card: int, sid: int) -> None:
    """A player feeds ``card``; FEED HOLD (step ``sid``) reads it and holds it in the window."""
    host.sim.play(card)
    assert host.command(P.FEED, bytes((1, P.HOLD)), step=sid).type == P.OK
    host.until(P.EV_PRESENTED)


def test_a_fetch_sent_again_under_its_id_is_answered_with_what_it_did_and_not_done_twice() -> None:
    host, order = stock_table()
    assert host.command(P.FETCH, bytes((P.LOOP, order[0], 1)), step=0x0321).type == P.OK
    host.until(P.EV_CARD_ROUTED)
    # its answer was lost: the host sends the same step again (a new seq, the same id)
    again = step_reply(host.command(P.FETCH, bytes((P.LOOP, order[0], 1)), step=0x0321, ms=3000))
    assert (again["state"], again["card"], again["target"], again["count"]) == (P.STEP_DONE, order[0], 1, 1)
    host.run(3000)
    assert host.board.seat(1) == [order[0]]  # moved once
    # STEP_QUERY says the same; an id never sent is unknown
    assert query(host, 0x0321) == again
    assert query(host, 0x0999)["state"] == P.STEP_UNKNOWN
    # the same id for another step is refused, and changes nothing
    assert host.command(P.FETCH, bytes((P.LOOP, order[1], 1)), step=0x0321).body == bytes(
        (P.FETCH, P.NAK_CONFLICT))
    assert host.board.seat(1) == [order[0]]


def test_a_route_sent_again_after_it_was_done_is_not_refused() -> None:
    """The stuck route of issue 18: the card routed, the answer lost, ROUTE_PRESENTED sent
    again: v2 said 'no card held' (EMPTY) forever; v3 says what the step did."""
    host, order = stock_table()
    card = order[20]  # in seat 2's pocket
    host.board.trays[2].remove(card)
    read_held(host, card, 0x0401)
    assert query(host, 0x0401)["state"] == P.STEP_HELD and query(host, 0x0401)["card"] == card
    assert host.command(P.ROUTE_PRESENTED, bytes((P.TRICK,)), step=0x0402).type == P.OK
    host.until(P.EV_CARD_ROUTED)
    host.run(500)
    again = step_reply(host.command(P.ROUTE_PRESENTED, bytes((P.TRICK,)), step=0x0402))
    assert (again["state"], again["card"], again["target"]) == (P.STEP_DONE, card, P.TRICK)
    assert host.board.tray(P.TRICK) == [card]
    assert query(host, 0x0401)["state"] == P.STEP_DONE  # the FEED ended with its card routed
    # a route with a new id now: nothing is held (the v2 answer, right for a new step)
    assert host.command(P.ROUTE_PRESENTED, bytes((P.TRICK,)), step=0x0403).body == bytes(
        (P.ROUTE_PRESENTED, P.NAK_EMPTY))


def test_an_abort_sent_again_does_not_abort_twice_and_inventory_names_the_card_it_rejected() -> None:
    host, order = stock_table()
    card = order[21]
    host.board.trays[3].remove(card)
    read_held(host, card, 0x0501)
    assert host.command(P.ABORT, b"", step=0x0502).type == P.OK
    host.run(3000)
    assert host.board.tray(P.REJECT) == [card]  # an ABORT clears the read window
    assert query(host, 0x0501)["state"] == P.STEP_ABORTED
    done = query(host, 0x0502)
    assert (done["state"], done["card"], done["target"]) == (P.STEP_DONE, card, P.REJECT)
    assert inventory(host, P.INV_REJECT) == [card]
    # another card read and held; the old ABORT's answer was lost and it is sent again:
    other = order[22]
    host.board.trays[2].remove(other)
    read_held(host, other, 0x0503)
    assert host.command(P.ABORT, b"", step=0x0502).type == P.STEP  # what it did, not again
    host.run(2000)
    summary = inventory(host, P.INV_SUMMARY)
    assert summary[0] == other and summary[1] & 0x03 == 0x03  # still held in the window
    assert host.board.tray(P.REJECT) == [card]


def test_inventory_counts_the_pockets_and_lists_the_loop_and_a_fresh_deal_starts_again() -> None:
    host, order = stock_table()
    pairs = inventory(host, P.INV_POCKETS)
    assert dict(zip(pairs[::2], pairs[1::2], strict=True)) == {2: 21, 3: 21}
    assert sorted(inventory(host, P.INV_LOOP)) == sorted(order[:10])
    summary = inventory(host, P.INV_SUMMARY)
    assert summary[1] & 0x04 and summary[2] == 10 and summary[3] == 0  # loop valid, 10 cards, no rejects
    # paged: a reply holds at most max_items
    r = host.command(P.INVENTORY, bytes((P.INV_LOOP, 4, 3)))
    assert r.body[:3] == bytes((P.INV_LOOP, 4, 10)) and len(r.body) == 6
    # a hand-over of parked cards (flags 0) keeps the counts; a fresh deal starts them again
    host.command(P.DEAL_PLAN, plan_body(2, [(c, 0) for c in order[:10]], flags=0))
    host.until(P.EV_DEAL_DONE)
    pairs = inventory(host, P.INV_POCKETS)
    assert dict(zip(pairs[::2], pairs[1::2], strict=True)) == {0: 10, 2: 21, 3: 21}
    host.sim.gather_to_hopper()
    host.command(P.DEAL_PLAN, plan_body(3, [(c, i % 4) for i, c in enumerate(order)]))
    host.until(P.EV_DEAL_DONE)
    pairs = inventory(host, P.INV_POCKETS)
    assert dict(zip(pairs[::2], pairs[1::2], strict=True)) == {0: 13, 1: 13, 2: 13, 3: 13}
    assert query(host, 2)["state"] == P.STEP_UNKNOWN  # the last hand's steps are history


def test_the_steps_the_ledger_and_the_loop_model_survive_the_dealers_reboot() -> None:
    host, order = stock_table()
    assert host.command(P.FETCH, bytes((P.LOOP, order[0], 1)), step=0x0601).type == P.OK
    host.until(P.EV_CARD_ROUTED)
    host.run(3000)
    writes = host.board.nv_writes
    assert writes > 0
    host.sim.reboot()  # a power cut of the dealer: the cards stay where they are
    host.run(100)
    again = step_reply(host.command(P.FETCH, bytes((P.LOOP, order[0], 1)), step=0x0601))
    assert (again["state"], again["card"], again["target"]) == (P.STEP_DONE, order[0], 1)
    assert host.board.seat(1) == [order[0]]
    summary = inventory(host, P.INV_SUMMARY)
    assert summary[1] & 0x04 and summary[2] == 9  # the loop model came back, still valid
    assert sorted(inventory(host, P.INV_LOOP)) == sorted(order[1:10])
    # and a fetch after the reboot finds its card by the restored model
    assert host.command(P.FETCH, bytes((P.LOOP, order[5], 1)), step=0x0602).type == P.OK
    host.until(P.EV_CARD_ROUTED)
    host.run(3000)
    assert host.board.seat(1) == [order[0], order[5]]


def test_a_step_running_when_the_dealer_rebooted_is_interrupted_and_the_loop_relearnt() -> None:
    host, order = stock_table()
    assert host.command(P.FETCH, bytes((P.LOOP, order[9], 1)), step=0x0701).type == P.OK
    host.run(40)  # cycling the loop for it: the power goes
    host.sim.reboot()
    host.run(100)
    assert query(host, 0x0701)["state"] == P.STEP_INTERRUPTED
    summary = inventory(host, P.INV_SUMMARY)
    assert not summary[1] & 0x04  # the loop model is not trusted: the host deals it back


def test_an_abort_rejects_a_fed_card_not_read_yet_even_with_cards_in_the_loop() -> None:
    """A player's card fed through the play slot sits in the read window, not read yet, when an
    ABORT comes (a stock game: ten cards in the loop). It was taken for the loop's first card
    and kept in the window (``Dealer.window_is_loop`` did not ask where the feed move took it
    from), and the inventory named the loop's first card there: the dealer's model wrong with
    nothing said. It goes to the reject pocket (unread, so named as unknown), and the loop's
    cards stay the loop's."""
    host, order = stock_table()
    card = order[21]
    host.board.trays[3].remove(card)
    host.sim.play(card)
    assert host.command(P.FEED, bytes((1, P.HOLD)), step=0x0701).type == P.OK
    mech = host.sim.firmware.dealer.mech
    for _ in range(200):  # until the feed move has brought it to the window, before its read
        host.run(5)
        if mech.gate.state and mech.held is None and mech.from_slot:
            break
    else:
        raise AssertionError("the fed card never sat unread in the window")
    assert host.command(P.ABORT, b"", step=0x0702).type == P.OK
    host.run(3000)
    assert host.board.tray(P.REJECT) == [card]
    done = query(host, 0x0702)
    assert (done["state"], done["target"]) == (P.STEP_DONE, P.REJECT)
    assert inventory(host, P.INV_REJECT) == [P.UNKNOWN_CARD]
    assert inventory(host, P.INV_LOOP) == order[:10]
    summary = inventory(host, P.INV_SUMMARY)
    if summary[1] & 0x01:  # a card in the window again: the loop's first, brought by a feed move
        assert host.board.gate == order[0] == summary[0]
