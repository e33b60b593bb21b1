"""A bitboard core of Hearts' play phase for the search bots: positions as a few ints, the rule
bot's card choice on them, whole-hand rollouts, and worlds drawn straight into them.

The search bot (engine/bots/search_hearts.py) spends nearly all its time playing hands out: at
each decision it draws a few hundred worlds (the hidden cards dealt consistently with what its
seat has seen) and plays every candidate card to the end of the hand in each, the other seats
and its own later turns played by the rule bot. On ``HeartsState`` that is a copy, ``apply``
through the public API and the rule bot's Python for every card (about 0.25 ms a rollout
here). ``Core`` keeps only what the play needs (each hand a 52-bit mask, the trick, the
leader, broken hearts, the points taken) and plays with a handful of integer operations;
``Core.rule_card`` is the rule bot's card choice (engine/bots/_hearts_play.py, ``HeartsBot``
without cancellation) written on the masks, with the same numbers in the same order, so it
picks the same card (tests/engine/test_hearts_core.py checks both against the engine and the
rule bot over thousands of positions, in both builds). The module is compiled with the engine
(engine/build.py); it reads ``HeartsState`` fields but never changes a state.

Worlds (``Worlds``): what ``HeartsState.sample_world`` knows about hidden cards in the play
phase (voids shown, a first-trick point discard, a heart led unbroken, the first lead's holder,
the cards this seat passed and the receiver still holds, and a caller's ``avoid`` masks), as
an allowed mask per seat; each world deals the hidden cards card by card, the most constrained
first, each to a random seat that may hold it and still leaves room for the rest (Hall's
condition over the other seats' capacities, checked on the cards grouped by the seats they
may go to). A 32-bit xorshift generator seeded from the caller's ``random.Random`` makes the
draws: the same seed, the same worlds, in both builds.
"""

from __future__ import annotations

from typing import Any, Final

from .hearts import FIRST_LEAD
from .rand import Rand

FULL: Final = 0x1FFF
SPADES_M: Final = FULL
HEARTS_M: Final = FULL << 13
QS: Final = 10
KS: Final = 11
AS: Final = 12
NOT_HEARTS: Final = ((1 << 52) - 1) & ~HEARTS_M
NO_POINTS: Final = NOT_HEARTS & ~(1 << QS)
SUIT_M: Final[tuple[int, int, int, int]] = (FULL, FULL << 13, FULL << 26, FULL << 39)


def _points(c: int) -> int:
    return 13 if c == QS else 1 if 13 <= c < 26 else 0


POINTS: Final[tuple[int, ...]] = tuple(_points(c) for c in range(52))
POP13: Final[tuple[int, ...]] = tuple(bin(b).count("1") for b in range(8192))


def low_card(m: int) -> int:
    """The lowest card of a non-empty mask."""
    c = 0
    while True:
        b = m >> c & FULL
        if b:
            return c + (b & -b).bit_length() - 1
        c += 13


def high_card(m: int) -> int:
    """The highest card of a non-empty mask."""
    c = 39
    while True:
        b = m >> c & FULL
        if b:
            return c + b.bit_length() - 1
        c -= 13


def count(m: int) -> int:
    return POP13[m & FULL] + POP13[m >> 13 & FULL] + POP13[m >> 26 & FULL] + POP13[m >> 39 & FULL]


def nth_card(m: int, k: int) -> int:
    """The ``k``-th lowest card of a mask (from 0)."""
    while k:
        m &= m - 1
        k -= 1
    return low_card(m)


def deal_core(deck: list[int], n: int, first_card: int) -> Core:
    """A 4-player-style deal straight into a Core with no pass (card k to seat k mod n; the
    holder of ``first_card`` leads): for benchmarks of the core's speed."""
    hands = [0] * n
    for k in range(len(deck)):
        hands[k % n] |= 1 << deck[k]
    leader = 0
    for s in range(n):
        if hands[s] >> first_card & 1:
            leader = s
    return Core(n, hands, [], leader, leader, False, 0, [0] * n, 0, [0, 0, 0, 0], first_card, -1, -1, -1, -1, -1)


class Core:
    """A Hearts hand in its play phase, for rollouts. ``hands``: a mask per seat; ``trick``: the
    cards of the trick in progress, the leader's first; ``points``: points taken this hand;
    ``played``: every card played this hand (the trick's too); ``rounds``: tricks finished per
    suit led; ``omni``: the omnibus card (-1 without the option) and ``omni_taker``."""

    def __init__(self, n: int, hands: list[int], trick: list[int], leader: int, turn: int, broken: bool,
                 tricks_done: int, points: list[int], played: int, rounds: list[int], first_card: int, omni: int,
                 omni_taker: int, led: int, win_seat: int, win_card: int) -> None:
        self.n = n
        self.hands = hands
        self.trick = trick
        self.leader = leader
        self.turn = turn
        self.broken = broken
        self.tricks_done = tricks_done
        self.points = points
        self.played = played
        self.rounds = rounds
        self.first_card = first_card
        self.omni = omni
        self.omni_taker = omni_taker
        self.led = led  # the suit led, -1 before the trick's first card
        self.win_seat = win_seat  # the seat and card winning the trick so far (-1 before)
        self.win_card = win_card

    def copy(self) -> Core:
        return Core(self.n, self.hands[:], self.trick[:], self.leader, self.turn, self.broken, self.tricks_done,
                    self.points[:], self.played, self.rounds[:], self.first_card, self.omni, self.omni_taker,
                    self.led, self.win_seat, self.win_card)

    def with_hands(self, hands: list[int]) -> Core:
        """A copy of this position with other hands (a world)."""
        return Core(self.n, hands, self.trick[:], self.leader, self.turn, self.broken, self.tricks_done,
                    self.points[:], self.played, self.rounds[:], self.first_card, self.omni, self.omni_taker,
                    self.led, self.win_seat, self.win_card)

    def done(self) -> bool:
        return self.hands[self.turn] == 0

    def legal(self) -> int:
        """The legal cards of the seat on turn, as a mask."""
        m = self.hands[self.turn]
        led = self.led
        if led >= 0:
            bits = m & SUIT_M[led]
            if bits:
                return bits
            if self.tricks_done == 0 and m & NO_POINTS:
                return m & NO_POINTS
            return m
        if self.tricks_done == 0:
            return 1 << self.first_card
        if self.broken or not m & NOT_HEARTS:
            return m
        return m & NOT_HEARTS

    def play(self, c: int) -> None:
        """The seat on turn plays ``c`` (legal: not checked)."""
        seat = self.turn
        bit = 1 << c
        self.hands[seat] ^= bit
        self.played |= bit
        trick = self.trick
        trick.append(c)
        s = c // 13
        if self.led < 0:
            self.led = s
            self.win_seat = seat
            self.win_card = c
        elif s == self.led and c > self.win_card:
            self.win_seat = seat
            self.win_card = c
        if POINTS[c]:
            self.broken = True
        n = self.n
        if len(trick) < n:
            self.turn = seat + 1 if seat + 1 < n else 0
            return
        w = self.win_seat
        pts = 0
        omni = self.omni
        for x in trick:
            pts += POINTS[x]
            if x == omni:
                self.omni_taker = w
        self.points[w] += pts
        self.rounds[self.led] += 1
        self.tricks_done += 1
        self.trick = []
        self.leader = w
        self.turn = w
        self.led = -1
        self.win_seat = -1
        self.win_card = -1

    # ------------------------------------------------------------------ the rule bot
    def rule_card(self) -> int:
        """The rule bot's card for the seat on turn (HeartsBot.choose_card, no cancellation)."""
        lm = self.legal()
        if lm & (lm - 1) == 0:
            return low_card(lm)
        seat = self.turn
        hand = self.hands[seat]
        qs_out = not (self.played >> QS & 1) and not (hand >> QS & 1)
        if not self.trick:
            return self._lead(hand, lm, qs_out)
        if lm & SUIT_M[self.led]:
            return self._follow(lm, qs_out)
        return self._discard(hand, lm, qs_out)

    def _lead(self, hand: int, lm: int, qs_out: bool) -> int:
        holds_qs = bool(hand >> QS & 1)
        high_spades = bool(hand >> AS & 1) or bool(hand >> KS & 1)
        best = -1
        best_cost = 0.0
        for s in range(4):
            bits = lm >> (13 * s) & FULL
            if not bits:
                continue
            length = POP13[hand >> (13 * s) & FULL]
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
        win = self.win_card
        losing = lm & ((1 << win) - 1)
        if losing:
            return high_card(losing)  # duck with the highest card that still loses
        trick = self.trick
        safe = lm & ~(1 << QS)
        if not safe:
            safe = lm
        if len(trick) == self.n - 1:
            return high_card(safe)  # the trick is taken anyway: the highest, but not the Q♠
        led = self.led
        pts = 0
        for x in trick:
            pts += POINTS[x]
        if pts == 0 and led != 1 and self.rounds[led] == 0 and not (led == 0 and qs_out):
            return high_card(safe)  # the first round of a side suit rarely carries points
        return low_card(lm)

    def _discard(self, hand: int, lm: int, qs_out: bool) -> int:
        best = -1
        best_v = 0.0
        no_qs = not (hand >> QS & 1)
        for s in range(4):
            bits = lm >> (13 * s) & FULL
            if not bits:
                continue
            short = 4 - POP13[hand >> (13 * s) & FULL]
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
        """The rest of the hand played by the rule bot in every seat."""
        while self.hands[self.turn]:
            self.play(self.rule_card())

    def random_play(self, rnd: Rand) -> None:
        """The rest of the hand with a uniformly random legal card at every turn (benchmarks)."""
        while self.hands[self.turn]:
            self.play(nth_card(self.legal(), rnd.below(count(self.legal()))))


class Scorer:
    """A finished rollout's worth for ``seat``: the hand's points as the table books them (a moon
    chosen as the rule bot chooses it, the omnibus card), minus the seat's, plus the others'
    average when ``relative``."""

    def __init__(self, seat: int, totals: list[int], target: int, moon_self: int, moon_others: int, omnibus: bool,
                 relative: bool, moon_total: int = 26) -> None:
        self.seat = seat
        self.moon_total = moon_total
        self.totals = totals
        self.target = target
        self.moon_self = moon_self
        self.moon_others = moon_others
        self.omnibus = omnibus
        self.relative = relative

    def value(self, core: Core) -> float:
        return self.value_of(core.points, core.omni_taker)

    def value_of(self, points: list[int], omni_taker: int) -> float:
        """The worth of a hand whose seats took ``points``."""
        pts = moon_result(points, self.totals, self.target, self.moon_self, self.moon_others, omni_taker,
                          self.omnibus, self.moon_total)
        me = pts[self.seat]
        if not self.relative:
            return float(-me)
        tot = 0
        for x in pts:
            tot += x
        return (tot - me) / (len(pts) - 1) - me


def finish(core: Core, scorer: Scorer, solve_at: int) -> float:
    """The rest of the hand with the rule bot in every seat, until the scorer's seat holds
    ``solve_at`` cards or fewer: from there its best plays against the others' rule-bot
    answers, every line tried (``solve``); the hand's worth for the seat."""
    seat = scorer.seat
    hands = core.hands
    while hands[core.turn]:
        if core.turn == seat and count(hands[seat]) <= solve_at:
            return solve(core, scorer)
        core.play(core.rule_card())
    return scorer.value(core)


def solve(core: Core, scorer: Scorer) -> float:
    """The best worth the scorer's seat can reach from ``core`` (its cards chosen with every
    card seen, the other seats playing as the rule bot); ``core`` is played out."""
    seat = scorer.seat
    while core.hands[core.turn] and core.turn != seat:
        core.play(core.rule_card())
    if not core.hands[core.turn]:
        return scorer.value(core)
    lm = core.legal()
    if lm & (lm - 1) == 0:
        core.play(low_card(lm))
        return solve(core, scorer)
    best = -1e18
    prev = -2
    while lm:
        c = low_card(lm)
        lm &= lm - 1
        # a card next to the one tried before in the same suit, with nothing between them
        # still out, wins and loses the same tricks: tried once (not for point cards)
        if c == prev + 1 and c // 13 == prev // 13 and not POINTS[c] and not POINTS[prev] and c != core.omni \
                and prev != core.omni:
            prev = c
            continue
        prev = c
        w = core.copy()
        w.play(c)
        v = solve(w, scorer)
        if v > best:
            best = v
    return best


def from_state(state: Any) -> Core:
    """The Core of a ``HeartsState`` in its play phase (the state is not changed)."""
    n: int = state.n
    played = 0
    rounds = [0, 0, 0, 0]
    for _lead, cards, _w in state.tricks:
        for c in cards:
            played |= 1 << c
        rounds[cards[0] // 13] += 1
    trick: list[int] = list(state.trick)
    leader: int = state.leader
    led = -1
    win_seat = -1
    win_card = -1
    for i in range(len(trick)):
        c = trick[i]
        played |= 1 << c
        if i == 0:
            led = c // 13
        if c // 13 == led and c > win_card:
            win_card = c
            win_seat = (leader + i) % n
    return Core(n, list(state.masks), trick, leader, (leader + len(trick)) % n, state.broken, len(state.tricks),
                list(state.points_taken), played, rounds, FIRST_LEAD[n], state.omnibus_card, state.omnibus_taker,
                led, win_seat, win_card)


def moon_result(points: list[int], seat_totals: list[int], target: int, moon_self: int, moon_others: int,
                omni_taker: int, omni: bool, moon_total: int = 26) -> list[int]:
    """The hand's points from the points taken: a moon (one seat took all ``moon_total``: 26,
    or 52 with two decks) chosen as the rule bot chooses it (HeartsBot.choose_moon: the better standing for the shooter after the
    hand, a game won first), then the omnibus card's -10."""
    n = len(points)
    pts = points[:]
    shooter = -1
    for s in range(n):
        if points[s] == moon_total:
            shooter = s
    extra = [0] * n
    if omni and omni_taker >= 0:
        extra[omni_taker] = -10
    if shooter >= 0:
        best: list[int] = []
        best_score = 0.0
        for choice in range(2):  # "self" first, as the engine lists the moon actions
            trial = [0] * n
            for s in range(n):
                if choice == 0:
                    trial[s] = moon_self if s == shooter else 0
                else:
                    trial[s] = 0 if s == shooter else moon_others
            totals = [seat_totals[s] + trial[s] + extra[s] for s in range(n)]
            score = _standing(totals, shooter, target)
            if not best or score > best_score:
                best = trial
                best_score = score
        pts = best
    for s in range(n):
        pts[s] += extra[s]
    return pts


def _standing(totals: list[int], seat: int, target: int) -> float:
    """HeartsBot.choose_moon's score of ``totals`` for ``seat``."""
    n = len(totals)
    hi = totals[0]
    lo = totals[0]
    for t in totals:
        if t > hi:
            hi = t
        if t < lo:
            lo = t
    if hi >= target:
        k = 0
        for t in totals:
            if t == lo:
                k += 1
        if k == 1:  # the game is over: the lowest total wins
            if totals[seat] == lo:
                return 1e9
            return -1e9 - totals[seat]
    others = 0
    first = True
    for s in range(n):
        if s != seat and (first or totals[s] < others):
            others = totals[s]
            first = False
    return float(others - totals[seat])


# ---------------------------------------------------------------------- worlds
class Worlds:
    """Hidden cards dealt to the other seats within their allowed masks and hand sizes."""

    def __init__(self, n: int, seat: int, fixed: list[int], allowed: list[int], caps: list[int], hidden: int) -> None:
        """``fixed``: the cards each seat is known to hold (its own hand for ``seat``);
        ``allowed``: the hidden cards each seat may hold; ``caps``: how many hidden cards each
        seat takes; ``hidden``: the cards to deal. AssertionError when they cannot fit."""
        self.n = n
        self.seat = seat
        self.fixed = fixed
        self.caps = caps
        others = [p for p in range(n) if p != seat]
        self.others = others
        k = len(others)
        self.k = k
        # a card's signature: the others (bit i for others[i]) that may hold it
        cards: list[int] = []
        sigs: list[int] = []
        m = hidden
        while m:
            c = low_card(m)
            m &= m - 1
            g = 0
            for i in range(k):
                if allowed[others[i]] >> c & 1:
                    g |= 1 << i
            cards.append(c)
            sigs.append(g)
        self.cards = cards
        self.sigs = sigs
        full = (1 << k) - 1
        self.free = all(g == full for g in sigs)
        counts = [0] * (1 << k)
        for g in sigs:
            counts[g] += 1
        cap = [caps[p] for p in others]
        assert sum(cap) == len(cards), "hidden cards and hand sizes differ"
        assert _hall(counts, cap, k), "no placement of the hidden cards fits what has been shown"

    def deal(self, rnd: Rand) -> list[int]:
        """One world: every seat's hand as a mask."""
        k = self.k
        others = self.others
        hands = self.fixed[:]
        cap = [self.caps[p] for p in others]
        cards = self.cards
        nc = len(cards)
        order = list(range(nc))
        for i in range(nc - 1, 0, -1):  # shuffle
            j = rnd.below(i + 1)
            t = order[i]
            order[i] = order[j]
            order[j] = t
        if self.free:
            i = 0
            for p in range(k):
                seat = others[p]
                for _ in range(cap[p]):
                    hands[seat] |= 1 << cards[order[i]]
                    i += 1
            return hands
        sigs = self.sigs
        # the most constrained first (fewest seats), random among equals (the shuffle's order);
        # once only cards that may go anywhere are left, any free place will do
        full = (1 << k) - 1
        ranked: list[int] = []
        for size in range(1, k + 1):
            for i in order:
                if POP13[sigs[i]] == size:
                    ranked.append(i)
        counts = [0] * (1 << k)
        constrained = 0
        for g in sigs:
            counts[g] += 1
            if g != full:
                constrained += 1
        opts = [0] * k
        for i in ranked:
            g = sigs[i]
            counts[g] -= 1
            if g != full:
                constrained -= 1
            no = 0
            for p in range(k):
                if g >> p & 1 and cap[p]:
                    opts[no] = p
                    no += 1
            # a random seat among those that keep the rest placeable
            while True:
                j = rnd.below(no)
                p = opts[j]
                cap[p] -= 1
                if no == 1 or not constrained or _hall(counts, cap, k):
                    break
                cap[p] += 1
                opts[j] = opts[no - 1]
                no -= 1
            hands[others[p]] |= 1 << cards[i]
        return hands


def _hall(counts: list[int], cap: list[int], k: int) -> bool:
    """Every set of seats has room for the cards that can only go to them."""
    for sub in range(1, 1 << k):
        room = 0
        for p in range(k):
            if sub >> p & 1:
                room += cap[p]
        need = 0
        g = sub
        while True:  # every signature inside ``sub``
            need += counts[g]
            if g == 0:
                break
            g = (g - 1) & sub
        if need > room:
            return False
    return True
