"""The partnership-spades bot: bids counted from the hand, team-aware play.

What the seat knows: its own hand, the public bids and play, the scores, and (after a Blind
Nil) the two cards it passed and received.

Bid: the estimated tricks of the hand (trump is clubs unless the option says spades), so the
team's contract is the sum of two honest estimates; with ``cap_team_bid_at_13`` the bid is cut
to what is legal. Nil when the hand is very low and the partner has not bid Nil. Blind Nil is
decided without looking at the cards (that is the rule): only when the team trails by 200 or
more and the partner has already bid 4 or more to cover it. Blind Nil pass: the Blind Nil
player gives its two most dangerous cards; the partner gives its two lowest side cards.
Play: see ``_spades_play`` (cover a partner's Nil, never overtake a winning partner, win
cheaply until the contract is made, then duck).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import BIDS, BLIND_NIL, Action, pass_cards
from ..base import GameState
from ..partnership_spades import PartnershipSpadesState
from ._spades_play import choose_play, estimate_tricks, hand, nil_hand, others_mask


class PartnershipSpadesBot:
    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        assert isinstance(state, PartnershipSpadesState)
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        phase = state.phase
        if phase == "bid":
            return self._bid(state, seat, legal)
        if phase == "pass":
            return self._pass(state, seat)
        return self._play(state, seat, legal)

    # -- bidding --------------------------------------------------------------
    def _bid(self, state: PartnershipSpadesState, seat: int, legal: Sequence[Action]) -> Action:
        partner = (seat + 2) % 4
        pbid = state.bids[partner]
        if BLIND_NIL in legal:
            # decided before looking at the hand
            gap = state.totals[(seat + 1) % 4] - state.totals[seat]
            if gap >= 200 and pbid >= 4:
                return BLIND_NIL
        held = hand(state, seat)
        est = estimate_tricks(held, state.trump, 4)
        if pbid != 0 and est < 1.0 and nil_hand(held, state.trump):
            return BIDS[0]
        want = max(1, min(13, int(est + 0.5)))
        top = max(a.value for a in legal if a.kind == "bid")
        return BIDS[min(want, top)]

    # -- Blind Nil pass --------------------------------------------------------------
    def _pass(self, state: PartnershipSpadesState, seat: int) -> Action:
        held = hand(state, seat)
        trump = state.trump
        if state.blind[seat]:
            give = sorted(held, key=lambda c: (c % 13 + (4 if c // 13 == trump else 0)), reverse=True)[:2]
        else:
            side = [c for c in held if c // 13 != trump]
            pool = side if len(side) >= 2 else held
            give = sorted(pool, key=lambda c: c % 13)[:2]
        return pass_cards(give)

    # -- play -----------------------------------------------------------------
    def _play(self, state: PartnershipSpadesState, seat: int, legal: Sequence[Action]) -> Action:
        team = seat % 2
        partner = (seat + 2) % 4
        bids, taken = state.bids, state.tricks_taken
        contract = state.team_contract(team)
        count_nil = state.options["nil_tricks_count_for_partner"]
        counted = sum(taken[s] for s in (team, team + 2) if bids[s] > 0 or count_nil)
        opp_nil = [s for s in ((seat + 1) % 4, (seat + 3) % 4) if bids[s] == 0 and taken[s] == 0]
        need = contract - counted if contract > 0 else 0
        if bids[seat] == 0 and taken[seat] > 0 and contract == 0:
            need = 13  # a failed Nil with no contract: take tricks from the opponents
        if need <= 0 and contract > 0:
            opp = (team + 1) % 2
            opp_contract = state.team_contract(opp)
            opp_need = opp_contract - sum(taken[s] for s in (opp, opp + 2) if bids[s] > 0)
            left = 13 - len(state.tricks)
            if opp_contract > 0 and 0 < opp_need <= left and left - opp_need < 2:
                need = 1  # one more trick sets them: worth a bag
        ctx = {
            "partner": partner,
            "need": need,
            "nil": bids[seat] == 0 and taken[seat] == 0,
            "partner_nil": bids[partner] == 0 and taken[partner] == 0 and bids[seat] != 0,
            "others": others_mask(state, seat),
            "opp_nil": opp_nil,
        }
        return choose_play(state, seat, legal, ctx)


BOT = PartnershipSpadesBot()
