"""Every kind of step the referee sends (issue 18 point 1), sent again after its answer was lost,
and sent again after the dealer rebooted with the step's effect in place: the dealer answers
with what the step did (its first outcome), never refuses it and never does it twice.

The referee's steps and the frames that carry them: a deal plan and a Release are DEAL_PLAN
(fresh, and a hand-over of the loop's cards), a route is ROUTE_PRESENTED, a fetch is FETCH to a
pocket, a stage is FETCH to the read window (HOLD), a feed back is FEED HOLD (then a route), an
abort is ABORT. ``world`` is everything a second run would change: every pocket, the play slot,
the hopper, and how many cards the dealer dealt, read, routed or staged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fw_host import Host, make_host, plan_body
from test_fw_steps import inventory, query, read_held, shuffled, step_reply, stock_table

from trickref.firmware import protocol as P

MOVES = (P.EV_CARD_DEALT, P.EV_PRESENTED, P.EV_CARD_ROUTED, P.EV_STAGED)


def world(host: Host) -> tuple[Any, ...]:
    board = host.board
    pockets = tuple(sorted((t, tuple(cs)) for t, cs in board.trays.items() if cs))
    moves = tuple(host.kinds().count(k) for k in MOVES)
    return pockets, tuple(board.slot), tuple(board.hopper), moves


def settle(host: Host) -> None:
    host.run(4000)  # long enough for any motion a second run would start


# Each scenario sets up a table, sends the step once and lets it finish; it returns the frame
# that sends the step again (the same id, the same body) and what the first run's answer said.

Scenario = Callable[[], tuple[Host, Callable[[], Any], dict[str, int]]]


def deal_plan() -> tuple[Host, Callable[[], Any], dict[str, int]]:
    order = shuffled(7)
    host = make_host(deck=order)
    body = plan_body(0x0101, [(c, i % 4) for i, c in enumerate(order)])
    assert host.command(P.DEAL_PLAN, body).type == P.OK
    host.until(P.EV_DEAL_DONE)
    settle(host)
    assert [len(host.board.seat(s)) for s in range(4)] == [13, 13, 13, 13]
    return host, lambda: host.command(P.DEAL_PLAN, body, ms=200), {"state": P.STEP_DONE, "count": 52}


def release() -> tuple[Host, Callable[[], Any], dict[str, int]]:
    host, order = stock_table()  # 10 cards parked in the loop
    body = plan_body(0x0202, [(c, i % 2) for i, c in enumerate(order[:10])], flags=0)
    assert host.command(P.DEAL_PLAN, body).type == P.OK
    host.until(P.EV_DEAL_DONE)
    settle(host)
    assert len(host.board.seat(0)) == len(host.board.seat(1)) == 5
    return host, lambda: host.command(P.DEAL_PLAN, body, ms=200), {"state": P.STEP_DONE, "count": 10}


def route() -> tuple[Host, Callable[[], Any], dict[str, int]]:
    host, order = stock_table()
    card = order[20]
    host.board.trays[2].remove(card)  # the player plays it
    read_held(host, card, 0x0301)
    assert host.command(P.ROUTE_PRESENTED, bytes((P.TRICK,)), step=0x0302).type == P.OK
    host.until(P.EV_CARD_ROUTED)
    settle(host)
    assert host.board.tray(P.TRICK) == [card]
    return host, lambda: host.command(P.ROUTE_PRESENTED, bytes((P.TRICK,)), step=0x0302, ms=200), {
        "state": P.STEP_DONE, "card": card, "target": P.TRICK}


def fetch() -> tuple[Host, Callable[[], Any], dict[str, int]]:
    host, order = stock_table()
    body = bytes((P.LOOP, order[4], 1))
    assert host.command(P.FETCH, body, step=0x0401).type == P.OK
    host.until(P.EV_CARD_ROUTED)
    settle(host)
    assert host.board.seat(1) == [order[4]]
    return host, lambda: host.command(P.FETCH, body, step=0x0401, ms=200), {
        "state": P.STEP_DONE, "card": order[4], "target": 1}


def stage() -> tuple[Host, Callable[[], Any], dict[str, int]]:
    host, order = stock_table()
    body = bytes((P.LOOP, order[3], P.HOLD))
    assert host.command(P.FETCH, body, step=0x0501).type == P.OK
    host.until(P.EV_STAGED)
    settle(host)
    return host, lambda: host.command(P.FETCH, body, step=0x0501, ms=200), {
        "state": P.STEP_DONE, "card": order[3], "target": P.HOLD}


def feed_back() -> tuple[Host, Callable[[], Any], dict[str, int]]:
    """The player feeds the card back (FEED HOLD reads it); a second card waits in the slot: a
    FEED done twice would read it too."""
    host, order = stock_table()
    card, other = order[20], order[21]
    host.board.trays[2].remove(card)
    host.board.trays[3].remove(other)
    read_held(host, card, 0x0601)
    host.sim.play(other)
    settle(host)
    return host, lambda: host.command(P.FEED, bytes((1, P.HOLD)), step=0x0601, ms=200), {
        "state": P.STEP_HELD, "card": card, "target": P.HOLD}


def abort() -> tuple[Host, Callable[[], Any], dict[str, int]]:
    host, order = stock_table()
    card = order[21]
    host.board.trays[3].remove(card)
    read_held(host, card, 0x0701)
    assert host.command(P.ABORT, b"", step=0x0702).type == P.OK
    settle(host)
    assert host.board.tray(P.REJECT) == [card]
    # the next card is read and held: an ABORT done twice would clear it to the reject pocket
    nxt = order[22]
    host.board.trays[2].remove(nxt)
    read_held(host, nxt, 0x0703)
    settle(host)
    return host, lambda: host.command(P.ABORT, b"", step=0x0702, ms=200), {
        "state": P.STEP_DONE, "card": card, "target": P.REJECT}


SCENARIOS: dict[str, Scenario] = {"deal plan": deal_plan, "release": release, "route": route,
                                  "fetch": fetch, "stage": stage, "feed back": feed_back, "abort": abort}


def check_answer(reply: Any, want: dict[str, int]) -> dict[str, int]:
    assert reply.type == P.STEP, f"sent again, the step was answered {reply.type:#x} {bytes(reply.body).hex()}"
    got = step_reply(reply)
    assert {k: got[k] for k in want} == want
    return got


@pytest.mark.parametrize("kind", list(SCENARIOS))
def test_a_step_sent_again_after_a_lost_answer_gets_its_first_outcome(kind: str) -> None:
    host, again, want = SCENARIOS[kind]()
    before = world(host)
    got = check_answer(again(), want)
    settle(host)
    assert world(host) == before, f"the {kind} was done twice"
    assert check_answer(again(), want) == got  # and a third time: the same answer
    assert query(host, got["step"]) == got  # STEP_QUERY says what the step did, the same


@pytest.mark.parametrize("kind", [k for k in SCENARIOS if k != "feed back"])
def test_a_finished_step_sent_again_after_the_dealers_reboot_gets_its_first_outcome(kind: str) -> None:
    host, again, want = SCENARIOS[kind]()
    before = world(host)
    host.sim.reboot()  # the power of the dealer goes and comes back: the cards stay where they are
    host.run(100)
    check_answer(again(), want)
    settle(host)
    pockets, slot, hopper, _moves = world(host)
    assert (pockets, slot, hopper) == before[:3], f"the {kind} was done again after the reboot"
    assert world(host)[3] == before[3]  # no card dealt, read, routed or staged again


def test_a_feed_held_when_the_dealer_rebooted_is_interrupted_and_reads_no_other_card() -> None:
    """A FEED's card waits in the read window when the power goes: sent again, the step says it
    was interrupted (the host then reads the window again: it cannot know the card is still
    there), and the card waiting in the slot is not read."""
    host, again, want = feed_back()
    before = world(host)
    host.sim.reboot()
    host.run(100)
    got = check_answer(again(), {"state": P.STEP_INTERRUPTED, "card": want["card"]})
    settle(host)
    assert world(host) == before
    assert query(host, 0x0601) == got
    assert not inventory(host, P.INV_SUMMARY)[1] & 0x04  # the loop model is relearnt, not trusted


def test_a_deal_plan_sent_again_while_it_runs_is_not_started_twice() -> None:
    order = shuffled(8)
    host = make_host(deck=order)
    body = plan_body(0x0102, [(c, i % 4) for i, c in enumerate(order)])
    assert host.command(P.DEAL_PLAN, body).type == P.OK
    host.run(600)
    running = check_answer(host.command(P.DEAL_PLAN, body), {"state": P.STEP_RUNNING})
    assert running["count"] < 52
    host.until(P.EV_DEAL_DONE)
    settle(host)
    assert [len(host.board.seat(s)) for s in range(4)] == [13, 13, 13, 13]
    assert host.kinds().count(P.EV_CARD_DEALT) == 52
