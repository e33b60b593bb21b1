"""A stop in a stock deal while the people take their time, on the physical twin.

The loop's diagonal and top run ride the transport's belt: when a stop halts the belt, a card
pushed out of the switchback waits on the diagonal, and only a card already falling past D
lands. The twin used to send a card the stop caught leaving the switchback on round the loop
with the belt standing still: it landed during the stop, where the firmware (stopped, and told
of landings by D's edges as it polls) never saw it fall. The next card to fall was then taken
for it and every landing after took the blade depth of the card before it: 30 of 51 stock cards
out of the plan's order, found through the whole table (benchmarks/twin_faults.py, two-player
Spades seeds 12 and 17: a double feed in the deal, the people taking two seconds to put the
cards back, then FETCHes refused and stages jammed for the rest of the hand). The tests that
resumed at once never gave the card time to land."""

from __future__ import annotations

import pytest
from twin_deals import arm_after, fault_after, put_back_double

from trickref.device.dealer import twin_host as th
from trickref.device.dealer.twin_cards import TwinCards

P = th.P


def stock_plan(seed: int) -> tuple[list[int], list[tuple[int, int]]]:
    """Two-player Spades' deal: the first card to seat 1, the stock round the loop."""
    hopper, entries = th.random_deal(2, seed)
    return hopper, [(entries[0][0], 1)] + [(c, th.LOOP) for c, _ in entries[1:]]


def stock_deal_stopped(seed: int, after: int, wait_ms: int) -> tuple[object, list[int], list[tuple[int, int, bytes]]]:
    """The stock deal with a blade that does not err; the pickup after ``after`` cards feeds
    two at once; the people take ``wait_ms`` to put both back under the stack (the one further
    along lowest) and press Resume. Returns the twin, the loop's plan order and the events
    after Resume."""
    hopper, entries = stock_plan(seed)
    tw = th.new_twin(seats=2, seed=seed, scale={"sorter.error_chance": 0.0})
    host, _, stop = fault_after(tw, hopper, entries, after, "fault_double")
    assert stop[1] == P.EV_DOUBLE_FEED, stop
    host.run(wait_ms)  # the people read the screen and take the two cards out
    back = put_back_double(tw)
    assert len(back) == 2, back
    start = len(host.events)
    assert host.command(P.RESUME, P.u16(0x7103)).type == P.OK
    host.until((P.EV_DEAL_DONE, P.EV_JAM, P.EV_DOUBLE_FEED), start=start)
    host.run(3000)  # (the last cards fall onto the stack)
    return tw, [c for c, _ in entries[1:]], host.events[start:]


@pytest.mark.parametrize("seed,after", [(91, 14), (91, 42), (17, 38)])
def test_a_double_feed_resumed_two_seconds_later_leaves_the_stock_in_the_plans_order(seed: int, after: int) -> None:
    tw, loop, events = stock_deal_stopped(seed, after, wait_ms=2000)
    done = [e for e in events if e[1] == P.EV_DEAL_DONE]
    assert done and done[0][2][2:5] == bytes((52, 0, 0)), events
    assert [e for e in events if e[1] == P.EV_JAM] == []
    assert tw.fw.dealer.loop == loop
    # the stack itself, bottom (next to be fed) first: before, 31-47 cards out of place
    assert tw.mech.hopper == loop


def test_a_card_leaving_the_switchback_when_the_belt_stops_waits_on_the_diagonal() -> None:
    """The twin's own physics: the stop that caught 5D being pushed out of the switchback
    (seed 91, after 14) leaves it on the diagonal until the belt runs again; it used to land
    1.3 s into the stop."""
    hopper, entries = stock_plan(91)
    tw = th.new_twin(seats=2, seed=91, scale={"sorter.error_chance": 0.0})
    host, _, stop = fault_after(tw, hopper, entries, 14, "fault_double")
    assert stop[1] == P.EV_DOUBLE_FEED, stop
    on_loop = sorted(c.card for c in tw.mech.cards if c.mode in ("loop", "r"))
    landed = len(tw.mech.log)
    host.run(2000)
    falls = [entry for entry in tw.mech.log[landed:] if "dropped" in entry[1]]
    assert falls == [], falls  # the belt stands still: nothing on the loop moves
    assert sorted(c.card for c in tw.mech.cards if c.mode in ("loop", "r")) == on_loop
    assert TwinCards(tw).gate is not None  # (the double feed's pair still in the feed)


def test_a_card_falling_past_d_when_the_belt_stops_lands_and_d_goes_light_once() -> None:
    """A card already falling onto the stack is off the belt: the stop does not hold it in
    the air. The twin used to freeze it there with D light, and when the belt ran again it
    fell past D a second time (D dark again: one landing seen as two by a dealer that looks)."""
    hopper, entries = stock_plan(91)
    tw = th.new_twin(seats=2, seed=91, scale={"sorter.error_chance": 0.0})
    host, _, _ = arm_after(tw, hopper, entries, 42, "fault_double")  # (not run to the stop's event)
    m = tw.mech
    falling: list[int] = []
    while m.belt_on_at is not None or not m.cards:  # to the moment the stop halts the belt
        falling = [c.card for c in m.cards if c.mode == "loop" and 0 <= c.until - m.drop_us <= m.now]
        host.run(1)
    assert len(falling) == 1, falling  # (the case: the stop came with one card falling past D)
    levels = []
    for _ in range(2000):
        host.run(1)
        levels.append(m.pin(th.twin.PIN_DROP))
    assert falling[0] in m.hopper  # it landed during the stop
    assert 0 not in levels[100:], "D dark again while the belt stood still"
    assert all(c.card != falling[0] for c in m.cards)
    assert any(e[1] == P.EV_DOUBLE_FEED for e in host.events)  # (the stop: the double feed)
