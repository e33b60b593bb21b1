"""BareHearts compiled: the ceiling of a compiled-Python Hearts through benchmarks/engine.py's loop.

benchmarks/hearts_ceiling.py ``--native`` compiles this module with mypyc (into a temporary folder,
never into the checkout) and times ``NativeHearts``: hearts_ceiling.py's ``BareHearts`` (the same
rules and checks, the same shared actions, the list of actions kept; no undo, no record, no
options, no reasons in words, the moon scored as 26 to the others) written the way mypyc runs
fastest: the four hands as native 64-bit fields (``m0``..``m3``, not a list of Python ints),
the trick's state in native fields, the plays of a mask built by appends. hearts_ceiling.py
checks it against our engine hand by hand before timing it.

What it answers: how far the engine's own representation is from the fastest a compiled
Python engine can be through this API (issue 22 point 3).
"""
from __future__ import annotations

from typing import Final

from mypy_extensions import i64

from trickref.engine import cards as C
from trickref.engine import masks as M
from trickref.engine.actions import PLAY, Action
from trickref.engine.hearts_common import distinct_pass_choices

ONE: Final[tuple[tuple[int, ...], ...]] = tuple((i,) for i in range(4))
NEXT: Final[tuple[tuple[int, ...], ...]] = (ONE[1], ONE[2], ONE[3], ONE[0])
ALL4: Final[tuple[int, ...]] = (0, 1, 2, 3)
BIT: Final[tuple[int, ...]] = tuple(M.BIT)
SP: Final[tuple[tuple[tuple[Action, ...], ...], ...]] = tuple(tuple(t) for t in M.SUIT_PLAYS)
SC: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(tuple(t) for t in M.SUIT_CARDS)
POINTS: Final[tuple[int, ...]] = tuple(1 if c // 13 == C.HEARTS else 13 if c == C.QS else 0 for c in range(52))
HEARTS: Final = C.HEARTS
TWO_CLUBS: Final = C.TWO_CLUBS
NOT_HEARTS: Final = M.ALL_CARDS & ~M.SUIT_MASK[C.HEARTS]
NO_POINTS: Final = NOT_HEARTS & ~M.BIT[C.QS]
FIRST: Final = (PLAY[C.TWO_CLUBS],)
SEAT_PLAY: Final = tuple(tuple((s, PLAY[c]) for c in range(52)) for s in range(4))
FULL: Final = list(range(52))


def plays_of(x: i64) -> list[Action]:
    out: list[Action] = []
    a: i64 = x & 0x1FFF
    if a:
        for p in SP[0][a]:
            out.append(p)
    a = (x >> 13) & 0x1FFF
    if a:
        for p in SP[1][a]:
            out.append(p)
    a = (x >> 26) & 0x1FFF
    if a:
        for p in SP[2][a]:
            out.append(p)
    a = x >> 39
    if a:
        for p in SP[3][a]:
            out.append(p)
    return out


class NativeHearts:
    """4-player Hearts, rules and checks only (the module's docstring)."""

    def __init__(self) -> None:
        self.hand_number: i64 = 0
        self.over = False
        self.totals = [0, 0, 0, 0]
        self.dealer: i64 = 0
        self.m0: i64 = 0
        self.m1: i64 = 0
        self.m2: i64 = 0
        self.m3: i64 = 0
        self.actions: list[tuple[int, Action]] = []
        self.trick: list[int] = []
        self.led: i64 = -1
        self.broken = False
        self.tp: i64 = 0
        self.ws: i64 = 0
        self.wc: i64 = 0
        self.leader: i64 = 0
        self.points = [0, 0, 0, 0]
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []
        self.off: i64 = 0
        self.passes: list[tuple[int, ...]] = [(), (), (), ()]
        self.phase = "deal"
        self.turn: tuple[int, ...] = ()

    def _m(self, s: i64) -> i64:
        if s == 0:
            return self.m0
        if s == 1:
            return self.m1
        if s == 2:
            return self.m2
        return self.m3

    def _set(self, s: i64, v: i64) -> None:
        if s == 0:
            self.m0 = v
        elif s == 1:
            self.m1 = v
        elif s == 2:
            self.m2 = v
        else:
            self.m3 = v

    def start_hand(self, deck: list[int]) -> None:
        if len(deck) != 52 or sorted(deck) != FULL:
            raise ValueError("not a deck")
        self.hand_number += 1
        first = (self.dealer + 1) % 4
        ms = [0, 0, 0, 0]
        for k in range(52):
            s = (first + k) % 4
            ms[s] |= BIT[deck[k]]
        self.m0, self.m1, self.m2, self.m3 = ms[0], ms[1], ms[2], ms[3]
        self.actions = []
        self.trick = []
        self.led = -1
        self.broken = False
        self.tp = 0
        self.points = [0, 0, 0, 0]
        self.tricks = []
        self.off = (1, 3, 2, 0)[(self.hand_number - 1) % 4]
        self.passes = [(), (), (), ()]
        if self.off:
            self.phase = "pass"
            self.turn = ALL4
        else:
            self._begin()

    def _begin(self) -> None:
        h: i64 = 0
        while not self._m(h) >> TWO_CLUBS & 1:
            h += 1
        self.phase = "play"
        self.turn = ONE[h]
        self.leader = h

    def turn_seats(self) -> tuple[int, ...]:
        return self.turn

    def legal_actions(self, seat: int) -> object:
        if self.phase == "play" and seat == self.turn[0]:
            m = self._m(seat)
            led = self.led
            if led >= 0:
                bits: i64 = m >> (13 * led) & 0x1FFF
                if bits:
                    return SP[led][bits]
                if not self.tp and m & NO_POINTS:
                    return plays_of(m & NO_POINTS)
                return plays_of(m)
            if not self.tp:
                return FIRST
            if self.broken or not m & NOT_HEARTS:
                return plays_of(m)
            return plays_of(m & NOT_HEARTS)
        if self.phase == "pass" and seat in self.turn:
            m = self._m(seat)
            return distinct_pass_choices((*SC[0][m & 0x1FFF], *SC[1][m >> 13 & 0x1FFF],
                                          *SC[2][m >> 26 & 0x1FFF], *SC[3][m >> 39]))
        return ()

    def apply(self, action: Action, seat: int) -> tuple[int, ...]:
        if self.phase == "play" and action[0] == "play":
            on: i64 = self.turn[0]
            cc = action[1]
            if seat == on and type(cc) is int and 0 <= cc < 52:
                c: i64 = cc
                m = self._m(on)
                if m >> c & 1:
                    led = self.led
                    s: i64 = c // 13
                    if led >= 0:
                        ok = s == led or not m >> (13 * led) & 0x1FFF and (
                            self.tp > 0 or not POINTS[c] or not m & NO_POINTS)
                    elif self.tp:
                        ok = s != HEARTS or self.broken or not m & NOT_HEARTS
                    else:
                        ok = c == TWO_CLUBS
                    if ok:
                        self._set(on, m ^ BIT[c])
                        self.actions.append(SEAT_PLAY[on][c])
                        trick = self.trick
                        trick.append(cc)
                        if led < 0:
                            self.led = s
                            self.ws = on
                            self.wc = c
                        elif s == led and c > self.wc:
                            self.ws = on
                            self.wc = c
                        if POINTS[c]:
                            self.broken = True
                        if len(trick) < 4:
                            t = self.turn = NEXT[on]
                            return t
                        w = self.ws
                        pts = 0
                        for x in trick:
                            pts += POINTS[x]
                        self.points[w] += pts
                        self.tricks.append((self.leader, tuple(trick), w))
                        self.trick = []
                        self.led = -1
                        self.leader = w
                        self.tp += 1
                        if self.tp < 13:
                            t = self.turn = ONE[w]
                            return t
                        self.turn = ()
                        self.phase = "deal"
                        pp = self.points
                        if 26 in pp:
                            pp = [0 if p else 26 for p in pp]
                        for i in range(4):
                            self.totals[i] += pp[i]
                        self.dealer = (self.dealer + 1) % 4
                        self.over = max(self.totals) >= 100
                        return ()
            raise ValueError("illegal play")
        if self.phase == "pass" and action[0] == "pass" and seat in self.turn:
            v = action[1]
            if type(v) is tuple and len(v) == 3:
                a, b, c2 = v
                m = self._m(seat)
                if type(a) is int and type(b) is int and type(c2) is int and 0 <= a < b < c2 < 52 and (
                        m >> a & 1 and m >> b & 1 and m >> c2 & 1):
                    self.actions.append((seat, action))
                    self._set(seat, m & ~(BIT[a] | BIT[b] | BIT[c2]))
                    self.passes[seat] = v
                    tt: tuple[int, ...] = self.turn
                    i = tt.index(seat)
                    self.turn = tt[:i] + tt[i + 1:]
                    if not self.turn:
                        for s2 in range(4):
                            p = self.passes[s2]
                            r = (s2 + self.off) % 4
                            self._set(r, self._m(r) | BIT[p[0]] | BIT[p[1]] | BIT[p[2]])
                        self._begin()
                    return self.turn
        raise ValueError("illegal action")
