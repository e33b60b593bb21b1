"""The German Whist bot: simple card counting from what its seat has seen.

What a seat knows: its own hand, every played card, the trump, the face-up stock card, and the
face-up cards the opponent took (they sit in the opponent's hand until played). The cards the
opponent drew face down and the stock below the face-up card are unknown. In stage two the
stock is gone, so every card not in the bot's hand and not played is in the opponent's hand:
the bot then knows the opponent's hand exactly and plays from it.

Stage one: a face-up card worth having (a trump, or a jack or better) is played for: lead or
win with the cheapest card that surely (or most likely) wins. A poor face-up card is not: throw
the lowest card and keep the strong ones for stage two.
Stage two: lead a card the opponent cannot beat if there is one, else the lowest card; follow
by winning as cheaply as possible, else throw the lowest card.
"""

from __future__ import annotations

import random

from ..actions import PLAY, Action
from ..base import GameState
from ..german_whist import GermanWhistState
from .search import SearchBot

_WORTH_RANK = 9  # rank index of the jack (card % 13): J, Q, K, A are worth playing for


class GermanWhistBot:
    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        assert isinstance(state, GermanWhistState)
        trump = state.trump
        hand = list(state.hand_of(seat))
        played = set(state.played)
        trick = list(state.trick)
        stage = state.stage
        in_trick = {c for _, c in trick}
        up: int | None = None
        stock = state.stock
        if stage == 1 and stock < 52:
            up = state.deck[stock]  # the face-up card: public
        # cards that may be in the opponent's hand (certainly, in stage two)
        seen = set(hand) | played | in_trick
        if up is not None:
            seen.add(up)
        maybe_opp = [c for c in range(52) if c not in seen]
        cards = [a.value for a in legal]

        def power(c: int) -> int:  # trick-taking strength: trumps above everything
            return c % 13 + (13 if c // 13 == trump else 0)

        def beats(c: int, other: int, led: int) -> bool:
            """Would ``c`` beat ``other`` on a trick led in suit ``led``?"""
            cs, os_ = c // 13, other // 13
            if cs == os_:
                return c > other
            if cs == trump:
                return True
            if os_ == trump:
                return False
            return cs == led and os_ != led

        def safe_lead(c: int) -> bool:
            """No card the opponent may hold beats ``c`` (stage two: exactly; stage one: among
            the cards not yet seen, a void opponent may still trump, so non-trumps only count
            as safe when every trump is accounted for)."""
            s = c // 13
            for o in maybe_opp:
                if o // 13 == s and o > c:
                    return False
            if s != trump:
                if stage == 2:
                    has_suit = any(o // 13 == s for o in maybe_opp)
                    if not has_suit and any(o // 13 == trump for o in maybe_opp):
                        return False
                elif any(o // 13 == trump for o in maybe_opp):
                    # in stage one the opponent usually still holds trumps, but only plays one
                    # when void; treat a master in a suit with unseen cards as safe enough
                    if not any(o // 13 == s for o in maybe_opp):
                        return False
            return True

        def lowest(cs: list[int]) -> int:
            return min(cs, key=lambda c: (power(c), c))

        if stage == 1:
            worth = up is not None and (up // 13 == trump or up % 13 >= _WORTH_RANK)
        else:
            worth = True

        if not trick:  # leading
            if worth:
                safe = [c for c in cards if safe_lead(c)]
                if safe:
                    # stage one: the cheapest sure winner; stage two: cash masters, trumps first
                    if stage == 1:
                        return PLAY[lowest(safe)]
                    return PLAY[max(safe, key=lambda c: (c // 13 == trump, power(c)))]
                if stage == 1:
                    non_trump = [c for c in cards if c // 13 != trump]
                    pool = non_trump or cards
                    return PLAY[max(pool, key=power)]
            # not worth it (or nothing safe in stage two): lead low from the longest side suit
            return PLAY[lowest(cards)]

        # following
        lead_card = trick[0][1]
        led = lead_card // 13
        winners = [c for c in cards if beats(c, lead_card, led)]
        if worth and winners:
            return PLAY[lowest(winners)]
        if stage == 2 and winners:
            return PLAY[lowest(winners)]
        return PLAY[lowest(cards)]


BOT = GermanWhistBot()


class GermanWhistSearchBot(SearchBot):
    """The search bot of German Whist: a rollout scores the seat's points minus the opponent's,
    plus a tenth of the stage-two trick difference."""

    def _value(self, state: GameState, seat: int) -> float:
        pts = state.hand_results[-1]["points"]
        t2 = getattr(state, "tricks2")  # noqa: B009 - per-hand counters, still set after the hand
        return float(pts[seat] - pts[1 - seat]) + 0.1 * (t2[seat] - t2[1 - seat])
