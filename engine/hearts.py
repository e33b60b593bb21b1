"""Hearts for 3 to 7 players (seed 004; RULES.md "hearts").

One deck; with other than four players some low cards are set aside before the deal (the
``REMOVED`` table) and skipped as they come off the deck order. Three cards are passed (four
players: left, right, across, none; otherwise left, right), the holder of the lowest club in
play leads it, and on the first trick a player void in clubs may not play a heart or the Q♠
unless holding nothing else. Hearts 1 point each, Q♠ 13; shooting the moon lets the shooter
choose; the omnibus option gives -10 to whoever takes the 10♦ (or J♦).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, ClassVar

from . import cards as C
from .actions import PLAY, Action
from .hearts_common import (
    HEARTS_HI,
    HEARTS_LO,
    ONE,
    POINTS,
    HeartsFamilyState,
    leads,
    may_lead_hearts,
    without_points,
)

# Cards set aside before the deal, by player count.
REMOVED: dict[int, tuple[int, ...]] = {
    3: tuple(C.parse_all(["2D"])),
    4: (),
    5: tuple(C.parse_all(["2D", "2C"])),
    6: tuple(C.parse_all(["2D", "3D", "3C", "4C"])),
    7: tuple(C.parse_all(["2D", "3D", "3C"])),
}
CARDS_EACH = {n: (52 - len(r)) // n for n, r in REMOVED.items()}
# The lowest club in play leads the first trick: 2C, or 3C where the 2C is set aside.
FIRST_CARD = {n: min(c for c in range(C.CLUBS * 13, 52) if c not in r) for n, r in REMOVED.items()}

_PLAY_OF = PLAY.__getitem__  # card int -> its shared play Action

OMNIBUS_CARDS = {"TD": C.parse("TD"), "JD": C.parse("JD")}


def omnibus_points(players: int, taker: int, enabled: bool) -> list[int]:
    """The omnibus option's points, moon or not: -10 for whoever took the omnibus card (taker
    -1: nobody). A module function so the score sheet (engine/scorekeeper.py) shares it."""
    pts = [0] * players
    if enabled and taker >= 0:
        pts[taker] -= 10
    return pts


class HeartsState(HeartsFamilyState):
    GAME_ID: ClassVar[str] = "hearts"
    TITLE: ClassVar[str] = "Hearts"
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (3, 4, 5, 6, 7)
    DECKS: ClassVar[int] = 1
    HAS_BAGS: ClassVar[bool] = False
    TEAMS: ClassVar[bool] = False
    MOON_TOTAL: ClassVar[int] = 26

    def _reset_hand(self) -> None:
        super()._reset_hand()
        self.omnibus_taker = -1

    # ------------------------------------------------------------------ deal and passing
    def _deal(self) -> None:
        n = self.n
        removed = REMOVED[n]
        deck = [c for c in self.deck if c not in removed] if removed else self.deck
        first = (self.dealer + 1) % n
        # the k-th card of what is dealt goes to seat first + k (mod n)
        self.hands = [sorted(deck[(s - first) % n::n]) for s in range(n)]
        self._start_passing()

    def _pass_offsets(self) -> tuple[int, ...]:
        n = self.n
        return (1, n - 1, 2, 0) if n == 4 else (1, n - 1)

    def _begin_play(self) -> None:
        first = FIRST_CARD[self.n]
        holder = next(s for s in range(self.n) if first in self.hands[s])
        self.leader = holder
        self.phase = "play"
        self.turn_t = ONE[holder]

    def _extra_points(self) -> list[int]:
        return omnibus_points(self.n, self.omnibus_taker, self.options["omnibus"])

    # ------------------------------------------------------------------ play
    # legal_actions and apply below are the play phase of HeartsFamilyState's fast paths with
    # the hooks (_legal_play, _check_play, _apply_play) written out in one frame: a random
    # hand is 52 plays, and the method calls were a fair share of each. Anything not plainly
    # a legal play of the seat on turn goes to the general path, which gives the reason.
    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        if self.phase == "play":
            on = self.turn_t[0]
            if seat is None or (seat == on and type(seat) is int):
                h = self.hands[on]
                if self.trick:
                    lo = self.led * 13
                    a = bisect_left(h, lo)
                    b = bisect_left(h, lo + 13, a)
                    if a < b:
                        return [*map(_PLAY_OF, h[a:b])]
                    if self.tricks_played == 0:
                        safe = without_points(h)
                        if safe:
                            return [*map(_PLAY_OF, safe)]
                    return [*map(_PLAY_OF, h)]
                if self.tricks_played == 0:
                    return [PLAY[FIRST_CARD[self.n]]]
                if self.broken or (HEARTS_LO <= h[0] and h[-1] < HEARTS_HI):
                    return [*map(_PLAY_OF, h)]
                a = bisect_left(h, HEARTS_LO)
                b = bisect_left(h, HEARTS_HI, a)
                return [*map(_PLAY_OF, h[:a]), *map(_PLAY_OF, h[b:])]
        return super().legal_actions(seat)

    def apply(self, action: Action, seat: int | None = None) -> None:
        if self.phase == "play" and type(action) is Action and action[0] == "play":
            on = self.turn_t[0]
            c = action[1]
            if (seat is None or (seat == on and type(seat) is int)) and type(c) is int:
                h = self.hands[on]
                i = bisect_left(h, c)
                if i < len(h) and h[i] == c:  # held (a card int 0..51)
                    trick = self.trick
                    if trick:  # follow suit; if void, no points on the first trick unless only points
                        if c // 13 == self.led:
                            ok = True
                        else:
                            lo = self.led * 13
                            a = bisect_left(h, lo)
                            ok = not (a < len(h) and h[a] < lo + 13) and (
                                self.tricks_played > 0 or not POINTS[c] or all(map(POINTS.__getitem__, h)))
                    elif self.tricks_played:  # lead: hearts once broken, or when holding only hearts
                        ok = (not HEARTS_LO <= c < HEARTS_HI or self.broken
                              or (HEARTS_LO <= h[0] and h[-1] < HEARTS_HI))
                    else:
                        ok = c == FIRST_CARD[self.n]
                    if ok:
                        del h[i]
                        self.actions.append((on, action))
                        if not trick:
                            self.led = c // 13
                        trick.append(c)
                        if POINTS[c]:
                            self.broken = True
                        if len(trick) < self.n:
                            self.turn_t = ONE[(on + 1) % self.n]
                        else:
                            self._end_trick()
                        return
        super().apply(action, seat)

    def _legal_play(self, seat: int) -> list[Action]:
        h = self.hands[seat]
        if self.trick:
            lo = self.led * 13
            a = bisect_left(h, lo)
            b = bisect_left(h, lo + 13, a)
            if a < b:
                return list(map(PLAY.__getitem__, h[a:b]))
            if self.tricks_played == 0:
                safe = without_points(h)
                if safe:
                    return list(map(PLAY.__getitem__, safe))
            return list(map(PLAY.__getitem__, h))
        if self.tricks_played == 0:
            return [PLAY[FIRST_CARD[self.n]]]
        return list(map(PLAY.__getitem__, leads(h, self.broken)))

    def _check_play(self, seat: int, c: Any) -> str | None:
        if type(c) is not int or not 0 <= c < 52:
            return f"not a card: {c!r}"
        h = self.hands[seat]
        if c not in h:
            return f"you do not hold {C.NAMES[c]}"
        if self.trick:
            led = self.led
            if c // 13 != led:
                lo = led * 13
                a = bisect_left(h, lo)
                if a < len(h) and h[a] < lo + 13:
                    return f"must follow {C.SUIT_NAMES[led]}"
                if self.tricks_played == 0 and POINTS[c] and any(not POINTS[x] for x in h):
                    return "no hearts or QS on the first trick"
            return None
        if self.tricks_played == 0:
            first = FIRST_CARD[self.n]
            if c != first:
                return f"the first lead must be the {C.NAMES[first]}"
            return None
        if HEARTS_LO <= c < HEARTS_HI and not may_lead_hearts(h, self.broken):
            return "hearts are not broken"
        return None

    def _apply_play(self, seat: int, c: int) -> None:
        self.hands[seat].remove(c)
        trick = self.trick
        if not trick:
            self.led = c // 13
        trick.append(c)
        if POINTS[c]:
            self.broken = True
        n = self.n
        if len(trick) < n:
            self.turn_t = ONE[(seat + 1) % n]
            return
        self._end_trick()

    def _end_trick(self) -> None:
        """The trick is complete: the highest card of the led suit wins it."""
        trick = self.trick
        n = self.n
        lo = self.led * 13
        hi = lo + 13
        best = -1
        bi = 0
        pts = 0
        for i, x in enumerate(trick):
            pts += POINTS[x]
            if lo <= x < hi and x > best:
                best, bi = x, i
        leader = self.leader
        w = (leader + bi) % n
        self.points_taken[w] += pts
        self.tricks_taken[w] += 1
        if self.options["omnibus"] and OMNIBUS_CARDS[self.options["omnibus_card"]] in trick:
            self.omnibus_taker = w
        self.tricks.append((leader, tuple(trick), w))
        self.trick = []
        self.tricks_played += 1
        self.leader = w
        self.led = -1
        if self.hands[w]:
            self.turn_t = ONE[w]
        else:
            self._finish_hand()

    # ------------------------------------------------------------------ views
    def card_locations(self) -> dict[str, list[int]] | None:
        out = super().card_locations()
        if out is not None:
            out["removed"] = list(REMOVED[self.n])
        return out

    def _public_extra(self) -> dict[str, Any]:
        v = super()._public_extra()
        v["removed"] = C.names(REMOVED[self.n])
        if self.options["omnibus"]:
            v["omnibus_taker"] = None if self.omnibus_taker < 0 else self.omnibus_taker
        return v
