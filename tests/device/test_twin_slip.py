"""A pickup that slips, on the physical twin (the unmodified firmware).

The pickup roller P drives a card off the hopper against the separator pad; when it slips, the
card lags P until F1's sprung nip takes it, and then rides with the rollers: it ends its feed
move 2-17 mm short of the read window (the reader decodes within about 5 mm). Before, such a
card could not be read, and its eject's blocked length at the gate, counted from where a card
at rest should be, came out longer than a card: DOUBLE_FEED, and the people's recovery put a
card the referee still counted in a pocket back on the hopper. Now the firmware sees the card's
leading edge reach the gate late (the gate IRQ notes F's position) and moves it on by that lag,
the hopper held off P so that no card is taken, before it reads it."""

from __future__ import annotations

import pytest
from twin_deals import fault_after, put_back_double

from trickref.device.dealer import twin_host as th

P = th.P
DF_STOPS = (P.EV_DOUBLE_FEED, P.EV_DEAL_DONE, P.EV_JAM)


def deal_with_slips(slip: float, seats: int, seed: int, slipping: int = 52, stock: bool = False,
                    knows_lag: bool = True) -> tuple[object, tuple[int, int, bytes], list[tuple[int, int]]]:
    order, hopper = th.shuffled(seed)
    if stock:
        entries = [(c, i % seats) for i, c in enumerate(order[:26])] + [(c, th.LOOP) for c in order[26:]]
    else:
        entries = [(c, i % seats) for i, c in enumerate(order)]
    tw = th.new_twin(seats=seats, seed=seed)
    tw.mech.hopper = list(hopper)
    tw.mech.fault_slip = slipping
    tw.mech.slip_range = (slip, slip)
    if not knows_lag:  # the firmware before: it never knew a card lay short
        tw.board.window_lag_mm = lambda: 0
    host = th.TwinHost(tw)
    host.hello()
    return tw, host.deal(1, entries), entries


@pytest.mark.parametrize("slip", [0.05, 0.15, 0.30])
def test_every_card_slipping_is_moved_on_read_and_dealt_where_planned(slip: float) -> None:
    tw, end, entries = deal_with_slips(slip, seats=4, seed=71)
    assert end[1] == P.EV_DEAL_DONE, end
    assert end[2][2:5] == bytes((52, 0, 0)), end  # 52 dealt, no card rejected
    assert th.misplaced(tw, entries) == []


def test_german_whist_stock_with_slipping_pickups_goes_round_in_its_order() -> None:
    tw, end, entries = deal_with_slips(0.3, seats=2, seed=72, stock=True)
    assert end[1] == P.EV_DEAL_DONE, end
    assert th.misplaced(tw, entries) == []
    assert tw.fw.dealer.loop == [c for c, t in entries if t == th.LOOP]


def test_a_card_short_of_the_window_is_what_broke_the_deal_before() -> None:
    """The same deal without moving the card on: the first slipped card stops it (it cannot be
    read, or its length at the gate reads as two cards)."""
    tw, end, entries = deal_with_slips(0.3, seats=4, seed=71, slipping=1, knows_lag=False)
    assert end[1] != P.EV_DEAL_DONE or end[2][2:5] != bytes((52, 0, 0)), end


def test_a_slip_under_the_stop_tolerance_is_read_where_it_lies() -> None:
    """A card 2 mm short (slip 5 %) is within the reader's field: it is read without a move."""
    tw, end, entries = deal_with_slips(0.05, seats=4, seed=73, slipping=3)
    assert end[1] == P.EV_DEAL_DONE, end
    assert th.misplaced(tw, entries) == []


def double_fed_deal(seed: int, after: int, seats: int = 4) -> tuple[object, object, list[tuple[int, int]], tuple[int, int, bytes]]:
    """A deal whose pickup after ``after`` cards takes two cards (shingled: the gate reads the
    pair longer than a card while the first is ejected, with the next card already coming in
    behind). Run to the DOUBLE_FEED; the person puts both back under the stack, the first
    lowest (what the screen says) and presses Resume; run to the deal's end."""
    hopper, entries = th.random_deal(seats, seed)
    tw = th.new_twin(seats=seats, seed=seed)
    host, _, stop = fault_after(tw, hopper, entries, after, "fault_double", DF_STOPS)
    return tw, host, entries, stop


@pytest.mark.parametrize("seed,after", [(81, 5), (82, 20), (83, 40)])
def test_a_double_feed_put_back_under_the_stack_is_dealt_where_planned(seed: int, after: int) -> None:
    tw, host, entries, stop = double_fed_deal(seed, after)
    assert stop[1] == P.EV_DOUBLE_FEED, stop
    back = put_back_double(tw)
    assert len(back) == 2, back  # the pair, shingled in the feed
    start = len(host.events)
    assert host.command(P.RESUME, P.u16(0x7101)).type == P.OK
    end = host.until(DF_STOPS, start=start)
    assert end[1] == P.EV_DEAL_DONE, end
    assert end[2][2:5] == bytes((52, 0, 0)), end
    assert th.misplaced(tw, entries) == []


@pytest.mark.parametrize("seed,after", [(91, 10), (92, 20), (93, 30)])
def test_a_double_feed_in_a_stock_deal_leaves_the_switchbacks_card_to_finish_its_pull(seed: int, after: int) -> None:
    """Two-player Spades' stock: every card round the loop. The double feed stops everything
    with a card half pulled into the switchback (already over Rv) and the next on the belt.
    Before, Resume pulled the switchback's card in again by a whole pull: past Rv, R pulled on
    after it, the next card met it there and both fell together; D saw one fall, and the deal
    ended with a card named lost (JAM 5) that lay in the hopper."""
    hopper, dealt = th.random_deal(2, seed)
    order = [c for c, _ in dealt]  # the plan's order, every card round the loop
    entries = [(c, th.LOOP) for c in order]
    tw = th.new_twin(seats=2, seed=seed, scale={"sorter.error_chance": 0.0})
    host, _, stop = fault_after(tw, hopper, entries, after, "fault_double", DF_STOPS)
    assert stop[1] == P.EV_DOUBLE_FEED
    assert any(c.mode == "r" for c in tw.mech.cards)  # (the case: a card in the switchback)
    put_back_double(tw)
    start = len(host.events)
    assert host.command(P.RESUME, P.u16(0x7102)).type == P.OK
    end = host.until(DF_STOPS, start=start)
    assert end[1] == P.EV_DEAL_DONE and end[2][2:5] == bytes((52, 0, 0)), end
    host.run(1500)  # (the last cards fall onto the stack)
    assert [e for e in host.events[start:] if e[1] == P.EV_JAM] == []
    assert tw.fw.dealer.loop == order
    assert sorted(tw.mech.hopper + [c.card for c in tw.mech.cards]) == sorted(order)
