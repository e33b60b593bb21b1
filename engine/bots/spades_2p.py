"""The spades-2p bot: a draw that keeps good cards, bids counted from the hand, careful play.

What the seat knows: the card it is shown on its draw turn (``view(seat)["shown"]``), its own
hand, the discard-pile cards it saw go there, the public bids and the play so far.

Draw: keep spades and high cards (or, going for Nil, low cards); the value of a shown card is
compared with what a blind next card is worth on average. Double Nil: only when trailing
badly (the opponent leads by 300 or more, or by 200 while within 150 of the target) and the first shown card is low. Exchange: give away the highest cards (up to 3, the
ones above an eight). Bid: the estimated tricks of the hand; Nil when the hand is very low.
Play: see ``_spades_play``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .. import cards as C
from ..actions import BIDS, DISCARD, DOUBLE_NIL, KEEP, Action
from ..base import GameState
from ..spades_2p import Spades2PState
from ._spades_play import choose_play, estimate_tricks, hand, nil_hand, others_mask


def _keep_value(card: int, nil_mode: bool) -> float:
    r = card % 13  # 0 (two) .. 12 (ace)
    if nil_mode:
        return (12 - r) + (-4 if card // 13 == C.SPADES else 0)
    return r + (7 if card // 13 == C.SPADES else 0)


# a blind card is worth the average value of a card: keep what is clearly better
_KEEP_THRESHOLD = 10.0  # queens and better, spades from the five up (self-play matches)
_NIL_KEEP_THRESHOLD = 7.0


class Spades2PBot:
    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        assert isinstance(state, Spades2PState)
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        phase = state.phase
        if phase == "draw":
            return self._draw(state, seat, legal)
        if phase == "exchange":
            return self._exchange(state, seat, legal)
        if phase == "bid":
            return self._bid(state, seat)
        return self._play(state, seat, legal)

    # -- draw -----------------------------------------------------------------
    def _trailing_badly(self, state: Spades2PState, seat: int) -> bool:
        me, opp = state.totals[seat], state.totals[1 - seat]
        target = state.options["target"]
        return opp - me >= 300 or (opp >= target - 150 and opp - me >= 200)

    def _nil_mode(self, state: Spades2PState, seat: int) -> bool:
        if state.double[seat]:
            return True
        held = hand(state, seat)
        # a weak start: after five cards with nothing high, aim for Nil
        return len(held) >= 5 and estimate_tricks(held, C.SPADES, 2) < 0.5 and nil_hand(held, C.SPADES)

    def _draw(self, state: Spades2PState, seat: int, legal: Sequence[Action]) -> Action:
        shown = C.parse(state.view(seat)["shown"])
        if DOUBLE_NIL in legal and self._trailing_badly(state, seat) and shown % 13 <= 4 and shown // 13 != C.SPADES:
            return DOUBLE_NIL
        nil_mode = self._nil_mode(state, seat)
        v = _keep_value(shown, nil_mode)
        return KEEP if v >= (_NIL_KEEP_THRESHOLD if nil_mode else _KEEP_THRESHOLD) else DISCARD

    # -- Double Nil exchange: give away the highest cards ---------------------------
    def _exchange(self, state: Spades2PState, seat: int, legal: Sequence[Action]) -> Action:
        held = hand(state, seat)
        danger = sorted(held, key=lambda c: (c % 13 + (3 if c // 13 == C.SPADES else 0)), reverse=True)
        give = tuple(sorted(c for c in danger[:3] if c % 13 >= 7 or c // 13 == C.SPADES and c % 13 >= 4))
        for a in legal:
            if a.value[0] == give:
                return a
        return legal[0]

    # -- bidding --------------------------------------------------------------
    def _bid(self, state: Spades2PState, seat: int) -> Action:
        held = hand(state, seat)
        est = estimate_tricks(held, C.SPADES, 2)
        # two-handed, the opponent sees every trick: only a very low hand makes Nil
        if est < 0.6 and nil_hand(held, C.SPADES) and max(c % 13 for c in held) <= 9:
            return BIDS[0]
        return BIDS[max(1, min(13, int(est + 0.5)))]

    # -- play -----------------------------------------------------------------
    def _play(self, state: Spades2PState, seat: int, legal: Sequence[Action]) -> Action:
        taken = state.tricks_taken[seat]
        bid = state.bids[seat]
        opp = 1 - seat
        seen_out = state.seen[seat] & ~state.masks[seat]  # discards this seat saw
        ctx = {
            "partner": None,
            "need": bid - taken if bid > 0 else 0,
            "nil": bid == 0 and taken == 0,
            "partner_nil": False,
            "others": others_mask(state, seat, seen_out),
            "opp_nil": [opp] if state.bids[opp] == 0 and state.tricks_taken[opp] == 0 else [],
        }
        if bid == 0 and taken > 0:
            # a failed Nil: take tricks from the opponent's contract instead
            ctx["need"] = 13
        elif bid > 0 and taken >= bid:
            opp_bid = state.bids[opp]
            opp_need = opp_bid - state.tricks_taken[opp]
            left = 13 - len(state.tricks)
            # setting the opponent is worth more than a bag
            if opp_bid > 0 and 0 < opp_need <= left and left - opp_need < 2:
                ctx["need"] = 1
        return choose_play(state, seat, legal, ctx)


BOT = Spades2PBot()
