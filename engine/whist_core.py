"""A bitboard core of German Whist for the search bot (engine/bots/search.py): a world's hand as
a few ints (the two hands as masks, the stock as the world's deck and an index), the rule bot's
card choice on them (engine/bots/german_whist.py), whole-hand rollouts, and the seat's own last
plays searched exactly; scored as the search bot scores a hand (the hand's points, plus a tenth
of the stage-two trick difference).

The rule bot breaks ties between equal cards by the order of its hand list, which is the
order the cards were dealt and drawn: the deck order. ``pos[c]`` keeps each card's place in
the deck, so the core breaks them the same way. Like engine/hearts_core.py, it is compiled with
the engine, never changes a state, and is tested against the engine and the rule bot
(tests/engine/test_whist_core.py).
"""

from __future__ import annotations

from typing import Any, Final

FULL: Final = 0x1FFF
SUIT_M: Final[tuple[int, int, int, int]] = (FULL, FULL << 13, FULL << 26, FULL << 39)
WORTH_RANK: Final = 9  # the rule bot plays for a face-up jack or better (or a trump)


def count(m: int) -> int:
    k = 0
    while m:
        m &= m - 1
        k += 1
    return k


class WCore:
    """A German Whist hand in play: ``hands`` masks, ``deck`` (the world's deck order) and
    ``pos`` (each card's place in it), ``stock`` (deck index of the face-up card, 52 when
    empty), ``lead`` (the card led to the trick in progress, -1 if none)."""

    def __init__(self, hands: list[int], deck: list[int], pos: list[int], stock: int, stage: int, leader: int,
                 lead: int, trump: int, played: int, tricks1: list[int], tricks2: list[int], score_all: bool) -> None:
        self.hands = hands
        self.deck = deck
        self.pos = pos
        self.stock = stock
        self.stage = stage
        self.leader = leader
        self.lead = lead
        self.trump = trump
        self.played = played
        self.tricks1 = tricks1
        self.tricks2 = tricks2
        self.score_all = score_all

    def copy(self) -> WCore:
        return WCore(self.hands[:], self.deck, self.pos, self.stock, self.stage, self.leader, self.lead, self.trump,
                     self.played, self.tricks1[:], self.tricks2[:], self.score_all)

    def turn(self) -> int:
        return 1 - self.leader if self.lead >= 0 else self.leader

    def done(self) -> bool:
        return self.tricks2[0] + self.tricks2[1] == 13

    def legal(self) -> int:
        m = self.hands[self.turn()]
        if self.lead >= 0:
            f = m & SUIT_M[self.lead // 13]
            if f:
                return f
        return m

    def play(self, card: int) -> None:
        seat = self.turn()
        self.hands[seat] ^= 1 << card
        if self.lead < 0:
            self.lead = card
            return
        c0 = self.lead
        s0 = self.leader
        s1 = 1 - s0
        if card // 13 == c0 // 13:
            winner = s1 if card > c0 else s0
        elif card // 13 == self.trump:
            winner = s1
        else:
            winner = s0
        self.played |= (1 << c0) | (1 << card)
        self.lead = -1
        self.leader = winner
        if self.stage == 1:
            self.tricks1[winner] += 1
            i = self.stock
            self.hands[winner] |= 1 << self.deck[i]
            self.hands[1 - winner] |= 1 << self.deck[i + 1]
            self.stock = i + 2
            if self.stock >= 52:
                self.stage = 2
            return
        self.tricks2[winner] += 1

    # ------------------------------------------------------------------ the rule bot
    def _power(self, c: int) -> int:
        return c % 13 + (13 if c // 13 == self.trump else 0)

    def _lowest(self, cs: int) -> int:
        """min by (power, card)."""
        best = -1
        best_key = 0
        m = cs
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            key = self._power(c) * 64 + c
            if best < 0 or key < best_key:
                best = c
                best_key = key
        return best

    def _first_max(self, cs: int, trump_first: bool) -> int:
        """max by power (``trump_first``: by (a trump, power)), the first in hand order (the
        deck order) among equals."""
        best = -1
        best_key = -1
        best_pos = 0
        m = cs
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            key = self._power(c)
            if trump_first and c // 13 == self.trump:
                key += 100
            p = self.pos[c]
            if key > best_key or (key == best_key and p < best_pos):
                best = c
                best_key = key
                best_pos = p
        return best

    def _safe_lead(self, c: int, maybe: int) -> bool:
        s = c // 13
        trump = self.trump
        if (maybe & SUIT_M[s]) >> (c + 1):
            return False
        if s != trump:
            has_suit = bool(maybe & SUIT_M[s])
            if self.stage == 2:
                if not has_suit and maybe & SUIT_M[trump]:
                    return False
            elif maybe & SUIT_M[trump]:
                if not has_suit:
                    return False
        return True

    def rule_card(self) -> int:
        """GermanWhistBot's card for the seat on turn."""
        cards = self.legal()
        if cards & (cards - 1) == 0:
            return (cards & -cards).bit_length() - 1
        seat = self.turn()
        trump = self.trump
        hand = self.hands[seat]
        seen = hand | self.played
        up = -1
        if self.stage == 1 and self.stock < 52:
            up = self.deck[self.stock]
            seen |= 1 << up
        if self.lead >= 0:
            seen |= 1 << self.lead
        maybe = ((1 << 52) - 1) & ~seen
        if self.stage == 1:
            worth = up >= 0 and (up // 13 == trump or up % 13 >= WORTH_RANK)
        else:
            worth = True
        if self.lead < 0:
            if worth:
                safe = 0
                m = cards
                while m:
                    low = m & -m
                    c = low.bit_length() - 1
                    m ^= low
                    if self._safe_lead(c, maybe):
                        safe |= low
                if safe:
                    if self.stage == 1:
                        return self._lowest(safe)
                    return self._first_max(safe, True)
                if self.stage == 1:
                    non_trump = cards & ~SUIT_M[trump]
                    return self._first_max(non_trump if non_trump else cards, False)
            return self._lowest(cards)
        lead = self.lead
        led = lead // 13
        winners = 0
        m = cards
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            cs = c // 13
            if cs == led:
                b = c > lead
            elif cs == trump:
                b = True
            else:
                b = False  # neither the suit led nor a trump (the led card is of the suit led)
            if b:
                winners |= low
        if winners and (worth or self.stage == 2):
            return self._lowest(winners)
        return self._lowest(cards)

    def rollout(self) -> None:
        while not self.done():
            self.play(self.rule_card())


class WScorer:
    """The search bot's worth of a finished hand for ``seat``: its points minus the
    opponent's, plus a tenth of the stage-two trick difference."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def value(self, core: WCore) -> float:
        seat = self.seat
        t1 = core.tricks1
        t2 = core.tricks2
        if core.score_all:
            over = 13
            mine = t1[seat] + t2[seat] - over
            theirs = t1[1 - seat] + t2[1 - seat] - over
        else:
            over = 6
            mine = t2[seat] - over
            theirs = t2[1 - seat] - over
        if mine < 0:
            mine = 0
        if theirs < 0:
            theirs = 0
        return float(mine - theirs) + 0.1 * (t2[seat] - t2[1 - seat])


def finish(core: WCore, scorer: WScorer, solve_at: int) -> float:
    """The rest of the hand by the rule bot, the scorer's seat searching its own last
    ``solve_at`` cards exactly once the stock is gone (stage two: every card is known)."""
    seat = scorer.seat
    while not core.done():
        if core.stage == 2 and core.turn() == seat and count(core.hands[seat]) <= solve_at:
            return solve(core, scorer)
        core.play(core.rule_card())
    return scorer.value(core)


def solve(core: WCore, scorer: WScorer) -> float:
    seat = scorer.seat
    while not core.done() and core.turn() != seat:
        core.play(core.rule_card())
    if core.done():
        return scorer.value(core)
    lm = core.legal()
    if lm & (lm - 1) == 0:
        core.play((lm & -lm).bit_length() - 1)
        return solve(core, scorer)
    best = -1e18
    prev = -2
    while lm:
        low = lm & -lm
        c = low.bit_length() - 1
        lm ^= low
        if c == prev + 1 and c // 13 == prev // 13:  # touching cards take the same tricks
            prev = c
            continue
        prev = c
        w = core.copy()
        w.play(c)
        v = solve(w, scorer)
        if v > best:
            best = v
    return best


def from_state(state: Any) -> WCore:
    """The WCore of a German Whist state in play (the state is not changed)."""
    deck: list[int] = list(state.deck)
    pos = [0] * 52
    for i in range(len(deck)):
        pos[deck[i]] = i
    hands = [0, 0]
    for s in range(2):
        for c in state.hands[s]:
            hands[s] |= 1 << c
    played = 0
    for c in state.played:
        played |= 1 << c
    trick: list[tuple[int, int]] = list(state.trick)
    lead = trick[0][1] if trick else -1
    return WCore(hands, deck, pos, state.stock, state.stage, state.leader, lead, state.trump, played,
                 list(state.tricks1), list(state.tricks2), bool(state.options["score_all_tricks"]))
