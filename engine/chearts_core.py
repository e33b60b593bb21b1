"""A bitboard core of Cancellation Hearts' play phase for the search bot (engine/bots/search_hearts.py):
two decks, so each hand is two masks (``once``: cards held at least once, ``twice``: held
twice), the trick with its cancellations (identical cards cancel; only a led-suit card played
once can win; a fully cancelled trick waits on the table for the next trick won, whose winner
also takes the widow while it is there), the rule bot's card choice (engine/bots/_hearts_play.py
with the cancellation rule), rollouts and the seat's own last plays searched exactly.

Like engine/hearts_core.py, it is compiled with the engine, never changes a state, and is
tested against the engine and the rule bot (tests/engine/test_chearts_core.py).
"""

from __future__ import annotations

from typing import Any, Final

from .hearts_core import Scorer, count, high_card, low_card

FULL: Final = 0x1FFF
SUIT_M: Final[tuple[int, int, int, int]] = (FULL, FULL << 13, FULL << 26, FULL << 39)
NOT_HEARTS: Final = ((1 << 52) - 1) & ~(FULL << 13)
NO_POINTS: Final = NOT_HEARTS & ~(1 << 10)
QS: Final = 10
KS: Final = 11
AS: Final = 12


def _points(c: int) -> int:
    return 13 if c == QS else 1 if 13 <= c < 26 else 0


POINTS: Final[tuple[int, ...]] = tuple(_points(c) for c in range(52))


class CCore:
    """A Cancellation Hearts hand in play (see the module docstring). ``rounds``: tricks played
    per suit led (cancelled ones too); ``waiting``: the points of cancelled tricks on the table
    (``waiting_cards``: whether any card waits); ``widow``: the widow's points, ``widow_on``:
    whether it is still on the table."""

    def __init__(self, n: int, once: list[int], twice: list[int], trick: list[int], leader: int, turn: int,
                 led: int, first_lead: bool, broken: bool, tricks_done: int, rounds: list[int], qs_played: int,
                 waiting: int, waiting_cards: bool, widow: int, widow_on: bool, points: list[int],
                 no_pts_first: bool, last_to_leader: bool) -> None:
        self.n = n
        self.once = once
        self.twice = twice
        self.trick = trick
        self.leader = leader
        self.turn = turn
        self.led = led
        self.first_lead = first_lead
        self.broken = broken
        self.tricks_done = tricks_done
        self.rounds = rounds
        self.qs_played = qs_played
        self.waiting = waiting
        self.waiting_cards = waiting_cards
        self.widow = widow
        self.widow_on = widow_on
        self.points = points
        self.no_pts_first = no_pts_first
        self.last_to_leader = last_to_leader
        self.over = False

    def copy(self) -> CCore:
        c = CCore(self.n, self.once[:], self.twice[:], self.trick[:], self.leader, self.turn, self.led,
                  self.first_lead, self.broken, self.tricks_done, self.rounds[:], self.qs_played, self.waiting,
                  self.waiting_cards, self.widow, self.widow_on, self.points[:], self.no_pts_first,
                  self.last_to_leader)
        c.over = self.over
        return c

    def with_hands(self, once: list[int], twice: list[int], widow: int) -> CCore:
        c = self.copy()
        c.once = once
        c.twice = twice
        c.widow = widow
        return c

    def legal(self) -> int:
        m = self.once[self.turn]
        if self.trick:
            bits = m & SUIT_M[self.led]
            if bits:
                return bits
            if self.tricks_done == 0 and self.no_pts_first and m & NO_POINTS:
                return m & NO_POINTS
            return m
        if self.first_lead:
            return m & NO_POINTS if m & NO_POINTS else m
        if self.broken or not m & NOT_HEARTS:
            return m
        return m & NOT_HEARTS

    def play(self, c: int) -> None:
        seat = self.turn
        bit = 1 << c
        if self.twice[seat] & bit:
            self.twice[seat] ^= bit
        else:
            self.once[seat] ^= bit
        trick = self.trick
        if not trick:
            self.led = c // 13
            self.first_lead = False
        trick.append(c)
        if c == QS:
            self.qs_played += 1
        if POINTS[c]:
            self.broken = True
        n = self.n
        if len(trick) < n:
            self.turn = seat + 1 if seat + 1 < n else 0
            return
        led = self.led
        best = -1
        bi = -1
        seen1 = 0
        seen2 = 0
        pts = 0
        for x in trick:
            pts += POINTS[x]
            b = 1 << x
            if seen1 & b:
                seen2 |= b
            else:
                seen1 |= b
        for i in range(n):
            x = trick[i]
            if x // 13 == led and x > best and not (seen2 >> x & 1):
                best = x
                bi = i
        leader = self.leader
        last = not self.once[leader]
        self.trick = []
        self.led = -1
        self.rounds[led] += 1
        self.tricks_done += 1
        self.waiting += pts
        self.waiting_cards = True
        if bi < 0:
            if not last:
                self.turn = leader
                return
            if self.last_to_leader:
                self._take(leader)
        else:
            w = (leader + bi) % n
            self._take(w)
            self.leader = w
            if not last:
                self.turn = w
                return
        self.over = True

    def _take(self, seat: int) -> None:
        pts = self.waiting
        self.waiting = 0
        self.waiting_cards = False
        if self.widow_on:
            self.widow_on = False
            pts += self.widow
        self.points[seat] += pts

    # ------------------------------------------------------------------ the rule bot
    def rule_card(self) -> int:
        """HeartsBot.choose_card with the cancellation rule, for the seat on turn."""
        lm = self.legal()
        if lm & (lm - 1) == 0:
            return low_card(lm)
        seat = self.turn
        once = self.once[seat]
        twice = self.twice[seat]
        qs_out = 2 - self.qs_played - (once >> QS & 1) - (twice >> QS & 1) > 0
        if not self.trick:
            return self._lead(once, twice, lm, qs_out)
        if lm & SUIT_M[self.led]:
            return self._follow(lm, qs_out)
        return self._discard(once, twice, lm, qs_out)

    def _lead(self, once: int, twice: int, lm: int, qs_out: bool) -> int:
        holds_qs = bool(once >> QS & 1)
        high_spades = bool(once >> AS & 1) or bool(once >> KS & 1)
        best = -1
        best_cost = 0.0
        for s in range(4):
            bits = lm >> (13 * s) & FULL
            if not bits:
                continue
            length = count(once & SUIT_M[s]) + count(twice & SUIT_M[s])
            r = 0
            while bits:
                if bits & 1:
                    c = 13 * s + r
                    v = float(r + 2)
                    if s == 1:
                        v += 4
                    if s == 0:
                        if c == QS:
                            v += 40
                        elif (c == AS or c == KS) and (qs_out or holds_qs):
                            v += 30
                        elif qs_out and not holds_qs and not high_spades:
                            v -= 3
                    v -= 0.1 * length
                    if best < 0 or v < best_cost:
                        best = c
                        best_cost = v
                bits >>= 1
                r += 1
        return best

    def _follow(self, lm: int, qs_out: bool) -> int:
        trick = self.trick
        led = self.led
        in1 = 0
        in2 = 0
        for x in trick:
            b = 1 << x
            if in1 & b:
                in2 |= b
            else:
                in1 |= b
        cur = -1  # the led-suit card winning so far (played once)
        for x in trick:
            if x // 13 == led and not (in2 >> x & 1) and x > cur:
                cur = x
        # a card wins when it is not on the trick yet and beats the card winning so far
        above = lm & ~((2 << cur) - 1) if cur >= 0 else lm
        winning = above & ~in1
        losing = lm & ~winning
        if losing:
            return high_card(losing)
        safe = winning & ~(1 << QS)
        if not safe:
            safe = winning
        if len(trick) == self.n - 1:
            return high_card(safe)
        pts = self.waiting + (1 if self.widow_on else 0)
        for x in trick:
            pts += POINTS[x]
        if pts == 0 and led != 1 and self.rounds[led] == 0 and not (led == 0 and qs_out):
            return high_card(safe)
        return low_card(winning)

    def _discard(self, once: int, twice: int, lm: int, qs_out: bool) -> int:
        best = -1
        best_v = 0.0
        no_qs = not (once >> QS & 1)
        for s in range(4):
            bits = lm >> (13 * s) & FULL
            if not bits:
                continue
            short = 4 - count(once & SUIT_M[s]) - count(twice & SUIT_M[s])
            if short < 0:
                short = 0
            r = 0
            while bits:
                if bits & 1:
                    c = 13 * s + r
                    if c == QS:
                        v = 1000.0
                    elif (c == AS or c == KS) and qs_out and no_qs:
                        v = 500.0 + (r + 2)
                    elif s == 1:
                        v = 100.0 + (r + 2)
                    else:
                        v = (r + 2) + 3.0 * short
                    if best < 0 or v >= best_v:
                        best = c
                        best_v = v
                bits >>= 1
                r += 1
        return best

    def rollout(self) -> None:
        while not self.over:
            self.play(self.rule_card())


def finish(core: CCore, scorer: Scorer, solve_at: int) -> float:
    """The rest of the hand by the rule bot, the scorer's seat searching its own last
    ``solve_at`` cards exactly (as engine/hearts_core.finish)."""
    seat = scorer.seat
    while not core.over:
        if core.turn == seat and count(core.once[seat]) + count(core.twice[seat]) <= solve_at:
            return solve(core, scorer)
        core.play(core.rule_card())
    return value(core, scorer)


def value(core: CCore, scorer: Scorer) -> float:
    return scorer.value_of(core.points, -1)


def solve(core: CCore, scorer: Scorer) -> float:
    seat = scorer.seat
    while not core.over and core.turn != seat:
        core.play(core.rule_card())
    if core.over:
        return value(core, scorer)
    lm = core.legal()
    if lm & (lm - 1) == 0:
        core.play(low_card(lm))
        return solve(core, scorer)
    best = -1e18
    while lm:
        c = low_card(lm)
        lm &= lm - 1
        w = core.copy()
        w.play(c)
        v = solve(w, scorer)
        if v > best:
            best = v
    return best


def from_state(state: Any) -> CCore:
    """The CCore of a CancellationHeartsState in its play phase (the state is not changed)."""
    n: int = state.n
    rounds = [0, 0, 0, 0]
    qs = 0
    for _lead, cards, _w in state.tricks:
        rounds[cards[0] // 13] += 1
        for c in cards:
            if c == QS:
                qs += 1
    trick: list[int] = list(state.trick)
    for c in trick:
        if c == QS:
            qs += 1
    waiting = 0
    for c in state.waiting:
        waiting += POINTS[c]
    widow = 0
    for c in state.widow:
        widow += POINTS[c]
    leader: int = state.leader
    return CCore(n, list(state.once), list(state.twice), trick, leader, (leader + len(trick)) % n,
                 state.led if trick else -1, state.first_lead, state.broken, len(state.tricks), rounds, qs,
                 waiting, bool(state.waiting), widow, bool(state.widow) and state.widow_taker < 0,
                 list(state.points_taken), bool(state.options["no_points_on_first_trick"]),
                 state.options["last_trick_cancelled"] == "leader")
