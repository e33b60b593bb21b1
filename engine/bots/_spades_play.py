"""Card play and hand valuation shared by the two Spades bots.

Everything here uses only what the seat may know: its own hand (``state.masks[seat]``, the same
as ``state.hand_of(seat)``), the public trick state (``trick``, ``led``, ``win_seat``,
``win_card``, ``played``, ``tricks_taken``, ``bids``) and, in spades-2p, the discards this seat
saw (``known_out``). Cards are ints; suits are 13-bit slices of 52-bit masks, as in
``engine.spades_common``.

The play policy, in order of priority:

- a Nil bidder whose Nil still stands plays the highest card that still loses, and when every
  card would win, the highest (to shed danger);
- partner of an intact Nil (partnership): cover: play over the Nil bidder's card, or high
  before it plays, so the Nil bidder can duck under it;
- a partner already winning the trick is never overtaken (play low);
- contract not yet made: win as cheaply as possible (the lowest card that wins; ahead of
  others, the top card of the suit if it is a sure winner); lead sure winners, else low;
- contract made: duck (the highest card that loses) to avoid bags, lead low.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import PLAY, Action
from ..spades_common import FULL_SUIT, cards_of

# rank index (0 for a 2 .. 12 for an ace) -> rough value of a high card as a trick
_HIGH = {12: 1.0, 11: 0.75, 10: 0.35}


def suit_bits(m: int, s: int) -> int:
    return (m >> (s * 13)) & FULL_SUIT


def estimate_tricks(hand: list[int], trump: int, players: int) -> float:
    """Tricks this hand should take: sure tricks from high trumps and aces/kings, trump
    length, and ruffs from short side suits when trumps are spare."""
    by_suit: list[list[int]] = [[], [], [], []]
    for c in hand:
        by_suit[c // 13].append(c % 13)
    tricks = 0.0
    trumps = sorted(by_suit[trump], reverse=True)
    n_trump = len(trumps)
    for i, r in enumerate(trumps):
        # a high trump wins when guarded by enough lower ones
        if r == 12 or (r == 11 and n_trump >= 2) or (r == 10 and n_trump >= 3) or (r == 9 and n_trump >= 4):
            tricks += 1.0
        elif i >= 3:
            tricks += 0.8 if players == 4 else 0.6  # length beyond three
    used_trumps = min(n_trump, 3)
    spare = n_trump - used_trumps
    for s in range(4):
        if s == trump:
            continue
        ranks = sorted(by_suit[s], reverse=True)
        n = len(ranks)
        for i, r in enumerate(ranks[:3]):
            v = _HIGH.get(r, 0.0)
            if r == 11 and n < 2:
                v = 0.3  # a bare king
            if r == 10 and n < 3:
                v = 0.15
            if players == 4 and n >= 6 and i == 2:
                v *= 0.5  # long suits get ruffed
            tricks += v
        if n <= 1 and spare > 0:
            ruffs = min(spare, 2 - n)
            tricks += 0.7 * ruffs
            spare -= ruffs
    # calibrated in self-play matches (benchmarks): a set costs more than the bags of a
    # cautious bid, so four-handed estimates are shaded down
    return tricks * (1.0 if players == 2 else 0.85)


def nil_hand(hand: list[int], trump: int) -> bool:
    """A hand low enough to bid Nil: no ace or king, trumps few and low, and no long suit
    without a low card to duck with."""
    by_suit: list[list[int]] = [[], [], [], []]
    for c in hand:
        by_suit[c // 13].append(c % 13)
    for s in range(4):
        ranks = by_suit[s]
        if not ranks:
            continue
        top = max(ranks)
        low = min(ranks)
        if s == trump:
            if len(ranks) > 3 or top >= 8:  # a ten of trumps or more
                return False
        else:
            if top >= 11:
                return False
            if top >= 10 and len(ranks) < 4:
                return False
            if low >= 6:  # nothing below an eight to duck with
                return False
    return True


def beats(card: int, win: int, led: int, trump: int) -> bool:
    s = card // 13
    w = win // 13
    if s == trump:
        return w != trump or card > win
    return s == led and w == led and card > win


def is_top(card: int, others: int) -> bool:
    """True when no card that others may hold ranks above ``card`` in its suit."""
    s = card // 13
    bits = suit_bits(others, s)
    return not bits >> (card - s * 13 + 1)


def choose_play(state: Any, seat: int, legal: Sequence[Action], ctx: dict[str, Any]) -> Action:
    """The play of ``seat``. ``ctx`` holds what the game adds: ``partner`` (seat or None),
    ``need`` (tricks still needed toward the seat's contract, or the team's; <= 0 when made),
    ``nil`` (this seat's Nil stands), ``partner_nil`` (the partner's Nil stands), ``others``
    (mask of cards other seats may hold), ``opp_nil`` (seats whose Nil stands)."""
    cards = [a.value for a in legal]
    if len(cards) == 1:
        return legal[0]
    trump = state.trump
    trick = state.trick
    partner = ctx["partner"]
    others = ctx["others"]
    if not trick:
        return PLAY[_lead(cards, trump, ctx, others)]
    led = state.led
    win = state.win_card
    win_seat = state.win_seat
    last = len(trick) == state.n - 1
    winners = sorted(c for c in cards if beats(c, win, led, trump))
    losers = sorted(c for c in cards if not beats(c, win, led, trump))

    if ctx["nil"]:
        if losers:
            return PLAY[_highest(losers, trump)]
        return PLAY[_highest(winners, trump)]

    partner_played = partner is not None and any(s == partner for s, _ in trick)
    if ctx["partner_nil"]:
        if win_seat == partner and winners:
            return PLAY[winners[-1] if not last else winners[0]]  # cover the Nil bidder
        if not partner_played and winners:
            return PLAY[_highest(winners, trump)]  # go high before the Nil bidder plays
        return PLAY[_lowest(losers or cards, trump)]

    if partner is not None and win_seat == partner:
        # do not overtake a partner who is winning, unless a card still out can beat the
        # partner's in the led suit and the contract still needs tricks
        if losers and (ctx["need"] <= 0 or last or win // 13 == trump or is_top(win, others)):
            return PLAY[_lowest(losers, trump)]
        if not losers:
            return PLAY[winners[0]]

    if ctx["need"] > 0:
        if winners:
            if last:
                return PLAY[winners[0]]
            led_winners = [c for c in winners if c // 13 == led]
            sure = [c for c in led_winners if is_top(c, others)]
            if sure:
                return PLAY[sure[0]]
            if led_winners:
                return PLAY[led_winners[-1]]
            return PLAY[winners[0]]  # the cheapest trump
        return PLAY[_lowest(losers, trump)]
    # contract made: duck to avoid bags
    if losers:
        return PLAY[_highest(losers, trump)]
    return PLAY[winners[0]]


def _lead(cards: list[int], trump: int, ctx: dict[str, Any], others: int) -> int:
    if ctx["nil"]:
        return _lowest_lead(cards, trump)
    if ctx["partner_nil"]:
        # lead high cards so the Nil bidder can play under them
        sure = [c for c in cards if is_top(c, others)]
        if sure:
            return max(sure, key=lambda c: (c // 13 != trump, c % 13))
        return max(cards, key=lambda c: (c // 13 != trump, c % 13))
    if ctx["need"] > 0:
        sure = [c for c in cards if is_top(c, others) and c // 13 != trump]
        if sure:
            return max(sure, key=lambda c: c % 13)
        trumps = [c for c in cards if c // 13 == trump]
        if trumps and is_top(max(trumps), others) and len(trumps) >= 2:
            return max(trumps)  # draw trumps with the top one
    return _lowest_lead(cards, trump)


def _lowest_lead(cards: list[int], trump: int) -> int:
    side = [c for c in cards if c // 13 != trump]
    pool = side or cards
    return min(pool, key=lambda c: c % 13)


def _lowest(cards: list[int], trump: int) -> int:
    """The cheapest card to give up: the lowest side card, else the lowest trump."""
    side = [c for c in cards if c // 13 != trump]
    pool = side or cards
    return min(pool, key=lambda c: c % 13)


def _highest(cards: list[int], trump: int) -> int:
    """The most dangerous card to keep: the highest by rank, trumps first on equal ranks."""
    return max(cards, key=lambda c: (c % 13, c // 13 == trump))


def others_mask(state: Any, seat: int, extra_out: int = 0) -> int:
    """Cards other seats may hold: not played, not ours, not known to be out of play."""
    return ((1 << 52) - 1) & ~(state.played | state.masks[seat] | extra_out)


def hand(state: Any, seat: int) -> list[int]:
    return cards_of(state.masks[seat])
