"""A card caught on the path on the physical twin (the unmodified firmware): while a two-player
Spades stock goes round the return loop (the sorting hopper's blade without its random error, so
the stock's order can be compared card for card), and in a deal to the seats' pockets.

Loop cards follow each other a switchback's cycle apart (about 330 ms); E's window for a card (the
slowest belt plus a margin) is wider than that. Before, a card caught on the path was taken for
the next one at E, and so on for every card after it (the blade set for the card before each),
until the deal stopped with JAM 3 naming the plan's last card, not the one caught; the stock was
then one card off its places for the rest of the hand. Now E's edge is matched by the time the
last loop card took from the window: the dealer stops at once naming the caught card, forgets it
(loop model and blade), and after the person lifts it out and presses Resume the card held in the
switchback is pulled in again, the cards on the belt go round before another leaves, and the deal
ends with that one card missing and the stock in its plan's order.
"""

from __future__ import annotations

import random

import pytest
from test_twin_sweep import point  # the sweep's corner-heavy sample of the +-30 % box
from twin_deals import STOPS, fault_after

from trickref.device.dealer import twin_host as th
from trickref.device.dealer.twin_cards import TwinCards

P = th.P


def out_of_place(got: list[int], want: list[int]) -> int:
    """Cards to move to turn ``got`` into ``want`` (length less the longest run in order)."""
    rank = {c: i for i, c in enumerate(want)}
    tails: list[int] = []
    for c in got:
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < rank[c]:
                lo = mid + 1
            else:
                hi = mid
        tails[lo:lo + 1] = [rank[c]]
    return len(got) - len(tails)


def caught_in_stock_deal(seed: int, after: int) -> tuple[object, th.TwinHost, list[int], int, tuple[int, int, bytes]]:
    """A spades-2p deal (one card to seat 0, 51 round the loop) whose card picked after ``after``
    cards catches on the path; run to the stop. (twin, host, deck, the caught card, the stop)."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    tw = th.new_twin(seats=2, seed=seed, scale={"sorter.error_chance": 0.0})
    entries = [(deck[0], 0)] + [(c, th.LOOP) for c in deck[1:]]
    host, caught, stop = fault_after(tw, deck, entries, after, "fault_lose", pass_ms=2)
    return tw, host, deck, caught, stop


@pytest.mark.parametrize("seed,after", [(31, 10), (32, 25), (33, 40)])
def test_a_loop_card_caught_on_the_path_is_named_at_once_and_the_deal_ends_without_it(seed: int, after: int) -> None:
    tw, host, deck, caught, stop = caught_in_stock_deal(seed, after)
    assert stop[1] == P.EV_JAM and stop[2][0] == 3, stop
    assert stop[2][1] == caught, f"JAM named {P.card_name(stop[2][1])}, {P.card_name(caught)} was caught"
    assert [s[0] for s in tw.mech.stuck] == [caught]
    assert caught not in tw.fw.dealer.loop  # forgotten: it will not land
    lifted = TwinCards(tw).clear_caught()  # the person clears the path
    assert lifted == [caught]
    start = len(host.events)
    assert host.command(P.RESUME, P.u16(0x7001)).type == P.OK
    end = host.until(STOPS, start=start)
    assert end[1] == P.EV_DEAL_DONE, end
    assert th.deal_shortfall(end) == f"1 card of the plan not dealt (missing: {P.card_name(caught)})"
    while tw.fw.dealer.mech.busy() or tw.mech.cards:
        host.run(10)
    stock = [c for c in deck[1:] if c != caught]
    assert tw.mech.stuck == []
    assert sorted(tw.mech.hopper) == sorted(stock)
    assert tw.fw.dealer.loop == stock  # the model: the plan's order without the caught card
    # every card at its place (the PWM's half-card steps may leave one or two a card off)
    assert out_of_place(tw.mech.hopper, stock) <= 2, [P.card_name(c) for c in tw.mech.hopper]
    assert tw.mech.pockets.get(0) == [deck[0]]




def caught_in_pocket_deal(seats: int, seed: int, after: int, swept: bool) -> None:
    """Deal a random plan to ``seats`` pockets (the rest to the centre) and catch the card picked
    after ``after`` cards on the path; the person clears each stop and presses Resume."""
    scale = point(seed) if swept else None
    hopper, entries = th.random_deal(seats, seed)
    tw = th.new_twin(seats=seats, seed=seed, scale=scale)
    host, caught, stop = fault_after(tw, hopper, entries, after, "fault_lose", pass_ms=2)
    assert stop[1] == P.EV_JAM and stop[2][0] == 3, (stop, scale)
    assert stop[2][1] == caught, f"JAM named {P.card_name(stop[2][1])}, {P.card_name(caught)} was caught ({scale})"
    assert TwinCards(tw).clear_caught() == [caught]
    start = len(host.events)
    assert host.command(P.RESUME, P.u16(0x7002)).type == P.OK
    end = host.until(STOPS, start=start)
    assert th.deal_shortfall(end) == f"1 card of the plan not dealt (missing: {P.card_name(caught)})", (end, scale)
    host.run(3000)
    assert tw.mech.stuck == []
    assert th.misplaced(tw, [e for e in entries if e[0] != caught]) == []
    # what the dealer reported is what the pockets hold: no card taken for another
    cfg = tw.board.cfg
    reported = {e[2][0]: e[2][1] for e in host.events if e[1] == P.EV_CARD_DEALT}
    found = {c: k for k, cards in tw.mech.pockets.items() for c in cards}
    assert caught not in reported
    assert {c: (t if t < cfg.SEAT_COUNT else cfg.POCKET[t]) for c, t in reported.items()} == found


@pytest.mark.parametrize("seats,seed,after,swept", [
    (4, 1, 6, False),    # the next card passes over the caught card's pocket: it fell in
    (3, 3, 30, False),   # the card behind goes to the same pocket; then one passes over it
    (5, 5, 40, False),
    (4, 8, 45, False),   # named while the next card's feed move ran: the stop waits for its end
    (6, 149, 22, True),  # the same at the sweep's slow belt, the belt's restart ramp after Resume
    (10, 131, 45, True),
    (7, 4, 10, True),
    (7, 173, 18, True),
    (9, 170, 18, True),  # the card behind, same seat, at the fastest belt
    (9, 202, 41, True),  # the same for the centre pocket, the farthest
    (8, 214, 30, True),
])
def test_a_card_caught_in_a_deal_to_the_pockets_is_named_and_no_card_goes_one_pocket_early(
        seats: int, seed: int, after: int, swept: bool) -> None:
    caught_in_pocket_deal(seats, seed, after, swept)

