"""DEAL_DONE counts a plan entry whose card the dealer gave up on at a jam (issue 18 leftover).

A card that never reached its pocket's sensor (JAM 3, transport) or the loop's (JAM 5) is dropped
from the cards on the belt; after RESUME the deal goes on without it. Its plan entry was taken,
so before this it was counted neither as dealt nor as missing in DEAL_DONE (dealt 51, missing
none): only the host's own replay of the events noticed. Now it is among the missing entries
(the field PROTOCOL.md defines as "plan entries never filled"), in plan order.
"""

from __future__ import annotations

import random

from fw_host import make_host, plan_body

from trickref.firmware import mechanics as M
from trickref.firmware import protocol as P


def _deal_done(body: bytes) -> tuple[int, int, int, list[int], list[int]]:
    deal_id = P.get_u16(body, 0)
    dealt, rejected, n = body[2], body[3], body[4]
    missing = list(body[5:5 + n])
    n_dup = body[5 + n]
    return deal_id, dealt, rejected, missing, list(body[6 + n:6 + n + n_dup])


def test_a_card_lost_on_the_belt_is_missing_in_deal_done() -> None:
    order = list(range(52))
    random.Random(31).shuffle(order)
    host = make_host(deck=order)
    host.command(P.DEAL_PLAN, plan_body(12, [(c, i % 4) for i, c in enumerate(order)]))
    host.run(2000)
    host.sim.jam("path")  # the next card put on the belt never reaches its pocket
    stage, lost = host.until(P.EV_JAM)[2]
    assert stage == M.ST_TRANSPORT
    assert host.command(P.RESUME).type == P.OK
    deal_id, dealt, rejected, missing, dups = _deal_done(host.until(P.EV_DEAL_DONE)[2])
    assert (deal_id, dealt, rejected, dups) == (12, 51, 0, [])
    assert missing == [lost]
    dealt_cards = [p[0] for _, k, p in host.events if k == P.EV_CARD_DEALT]
    assert sorted(dealt_cards + missing) == sorted(order)  # every entry counted once


def test_two_lost_cards_are_missing_in_plan_order() -> None:
    order = list(range(52))
    random.Random(5).shuffle(order)
    host = make_host(deck=order)
    host.command(P.DEAL_PLAN, plan_body(13, [(c, i % 4) for i, c in enumerate(order)]))
    lost = []
    for wait in (3000, 1500):
        host.run(wait)
        host.sim.jam("path")
        lost.append(host.until(P.EV_JAM)[2][1])
        assert host.command(P.RESUME).type == P.OK
    _, dealt, _, missing, _ = _deal_done(host.until(P.EV_DEAL_DONE)[2])
    assert dealt == 50
    assert missing == sorted(lost, key=order.index)
