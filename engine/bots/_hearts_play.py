"""The rule-based player shared by the Hearts and Cancellation Hearts bots.

It sees only its seat's knowledge: its own hand (``state.hand_of(seat)``), the cards played so
far this hand (the public trick history), the totals and the options. The plan is the one good
club players teach: pass the dangerous cards (Q♠, A♠ K♠ without spade cover, high hearts,
the last cards of a short suit), duck (the highest card that still loses), dump the Q♠ and
then high hearts when void, lead low, smoke out the Q♠ with low spades when it is safe, and
choose the moon option that leaves the best standing (the two totals are compared by trying
both on copies). In Cancellation Hearts the would-be winner of a trick is worked out with the
cancellation rule, so matching the card that is winning (which cancels it) counts as ducking.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .. import actions as A
from ..base import GameState
from ..cards import HEARTS, QS, SPADES
from ..hearts_common import POINTS

AS, KS = SPADES * 13 + 12, SPADES * 13 + 11


def rank(c: int) -> int:
    return c % 13 + 2


def trick_winner_index(cards: Sequence[int], cancellation: bool) -> int:
    """Index of the winning card of ``cards`` (led first), -1 when every led-suit card is
    cancelled. Without cancellation the highest led-suit card wins."""
    if not cards:
        return -1
    led = cards[0] // 13
    best, bi = -1, -1
    for i, c in enumerate(cards):
        if c // 13 == led and c > best and (not cancellation or cards.count(c) == 1):
            best, bi = c, i
    return bi


class HeartsBot:
    """``choose(state, seat, rng)`` for either Hearts game (``cancellation`` picks the rule)."""

    def __init__(self, cancellation: bool) -> None:
        self.cancellation = cancellation

    # ------------------------------------------------------------------ entry point
    def choose(self, state: GameState, seat: int, rng: random.Random) -> A.Action:
        legal = state.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has nothing to do now (phase {state.phase})")
        if len(legal) == 1:
            return legal[0]
        if state.phase == "pass":
            action = self.choose_pass(state, seat)
        elif state.phase == "moon":
            action = self.choose_moon(state, seat, legal)
        else:
            action = A.PLAY[self.choose_card(state, seat, [a.value for a in legal])]
        return action if action in legal else rng.choice(legal)

    # ------------------------------------------------------------------ passing
    def choose_pass(self, state: GameState, seat: int) -> A.Action:
        hand = state.hand_of(seat)
        low_spades = sum(1 for c in hand if c // 13 == SPADES and c < QS)
        length = [0, 0, 0, 0]
        for c in hand:
            length[c // 13] += 1

        def danger(c: int) -> float:
            s, r = c // 13, rank(c)
            if c == QS:
                return 100.0 if low_spades < 4 else 25.0
            if c in (AS, KS):
                return 80.0 + r if low_spades < 4 else 20.0 + r
            if s == HEARTS:
                return (40.0 + r) if r >= 10 else float(r)
            if s == SPADES:
                return float(r) - 5  # low spades protect against the Q♠: keep them
            # clubs and diamonds: high cards, and the last cards of a short suit
            return r + (12.0 if length[s] <= 2 else 0.0)

        ranked = sorted(hand, key=lambda c: (-danger(c), -c))
        return A.pass_cards(ranked[:3])

    # ------------------------------------------------------------------ the moon
    def choose_moon(self, state: GameState, seat: int, legal: Sequence[A.Action]) -> A.Action:
        """Try both choices on copies and keep the one with the better standing for ``seat``:
        winning the game beats everything, losing it is worst, otherwise the margin over the
        best other total counts."""
        best: A.Action = legal[0]
        best_score = float("-inf")
        for action in legal:
            trial = state.copy()
            trial.apply(action, seat)
            totals = trial.totals
            if trial.over:
                score = 1e9 if seat in trial.winners else -1e9 - totals[seat]
            else:
                others = min(t for i, t in enumerate(totals) if i != seat)
                score = others - totals[seat]
            if score > best_score:
                best, best_score = action, score
        return best

    # ------------------------------------------------------------------ trick play
    def _played(self, state: GameState) -> list[int]:
        out: list[int] = []
        for _, cards, _ in getattr(state, "tricks"):  # noqa: B009 - the public trick history
            out.extend(cards)
        out.extend(getattr(state, "trick"))  # noqa: B009
        return out

    def choose_card(self, state: GameState, seat: int, legal: list[int]) -> int:
        hand = state.hand_of(seat)
        trick: list[int] = list(getattr(state, "trick"))  # noqa: B009
        played = self._played(state)
        decks = state.DECKS
        qs_out = decks - played.count(QS) - hand.count(QS)  # queens still in other hands/widow
        if not trick:
            return self._lead(state, hand, legal, qs_out)
        led = trick[0] // 13
        if legal[0] // 13 == led:
            return self._follow(state, seat, hand, trick, legal, qs_out, played)
        return self._discard(hand, legal, qs_out)

    def _lead(self, state: GameState, hand: list[int], legal: list[int], qs_out: int) -> int:
        holds_qs = QS in hand
        high_spades = any(c in (AS, KS) for c in hand)
        length = [0, 0, 0, 0]
        for c in hand:
            length[c // 13] += 1

        def cost(c: int) -> float:
            s, r = c // 13, rank(c)
            v = float(r)
            if s == HEARTS:
                v += 4
            if s == SPADES:
                if c == QS:
                    v += 40
                elif c in (AS, KS) and (qs_out or holds_qs):
                    v += 30
                elif qs_out and not holds_qs and not high_spades:
                    v -= 3  # smoke out the Q♠ with a low spade
            v -= 0.1 * length[s]  # from a long suit, others are less likely to be void
            return v

        return min(legal, key=lambda c: (cost(c), c))

    def _follow(self, state: GameState, seat: int, hand: list[int], trick: list[int], legal: list[int],
                qs_out: int, played: list[int]) -> int:
        n = state.n
        last = len(trick) == n - 1
        losing: list[int] = []
        winning: list[int] = []
        me = len(trick)
        for c in dict.fromkeys(legal):
            w = trick_winner_index(trick + [c], self.cancellation)
            (winning if w == me else losing).append(c)
        if losing:
            # duck with the highest card that still loses (the Q♠ goes to the winner then)
            return max(losing, key=lambda c: (rank(c), c == QS))
        # what the winner takes besides this trick: cancelled tricks waiting on the table and
        # the face-down widow (about half a point per card) in Cancellation Hearts
        points_now = sum(POINTS[c] for c in trick) + sum(POINTS[c] for c in getattr(state, "waiting", ()))
        if getattr(state, "widow_on_table", False):
            points_now += 1
        if last:
            # the trick is ours anyway: unload the highest card, but not the Q♠
            safe = [c for c in winning if c != QS] or winning
            return max(safe)
        led = trick[0] // 13
        earlier_rounds = sum(1 for _, cards, _ in getattr(state, "tricks") if cards[0] // 13 == led)  # noqa: B009
        if points_now == 0 and led != HEARTS and earlier_rounds == 0 and not (led == SPADES and qs_out):
            safe = [c for c in winning if c != QS] or winning
            return max(safe)  # the first round of a side suit rarely carries points
        return min(winning)

    def _discard(self, hand: list[int], legal: list[int], qs_out: int) -> int:
        length = [0, 0, 0, 0]
        for c in hand:
            length[c // 13] += 1

        def value(c: int) -> float:
            s, r = c // 13, rank(c)
            if c == QS:
                return 1000.0
            if c in (AS, KS) and qs_out and QS not in hand:
                return 500.0 + r
            if s == HEARTS:
                return 100.0 + r
            return r + 3.0 * max(0, 4 - length[s])

        return max(legal, key=lambda c: (value(c), c))
