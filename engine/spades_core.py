"""A bitboard core of the Spades games' play phase for the search bots (engine/bots/search_spades.py):
positions as a few ints, the rule bots' card choice on them (engine/bots/_spades_play.py with
each game's own reading of the contract), whole-hand rollouts, the seat's own last plays
searched exactly, and the hand scored as the engine scores it (the games' ``score_hand`` and
game end) and valued as the search bot values it (the side's chance of winning the game).

Like engine/hearts_core.py: ``SCore.rule_card`` picks the same card as the rule bot at every
position (tests/engine/test_spades_core.py checks it, with the play, the scores and both
builds, against the engine); the module is compiled with the engine and never changes a state.
"""

from __future__ import annotations

import math
from typing import Any, Final

from .hearts_core import nth_card
from .partnership_spades import game_end as ps_game_end
from .partnership_spades import score_hand as ps_score_hand
from .rand import Rand
from .spades_2p import score_hand as s2_score_hand
from .spades_common import higher_total_wins

FULL: Final = 0x1FFF
ALL: Final = (1 << 52) - 1
SUIT_M: Final[tuple[int, int, int, int]] = (FULL, FULL << 13, FULL << 26, FULL << 39)


def low_card(m: int) -> int:
    c = 0
    while True:
        b = m >> c & FULL
        if b:
            return c + (b & -b).bit_length() - 1
        c += 13


def high_card(m: int) -> int:
    c = 39
    while True:
        b = m >> c & FULL
        if b:
            return c + b.bit_length() - 1
        c -= 13


def count(m: int) -> int:
    k = 0
    while m:
        m &= m - 1
        k += 1
    return k


def beats(card: int, win: int, led: int, trump: int) -> bool:
    s = card // 13
    w = win // 13
    if s == trump:
        return w != trump or card > win
    return s == led and w == led and card > win


def is_top(card: int, others: int) -> bool:
    """No card that others may hold ranks above ``card`` in its suit."""
    s = card // 13
    return not (others >> (s * 13) & FULL) >> (card - s * 13 + 1)


def _lowest(cards: int, trump: int) -> int:
    """_spades_play._lowest: the lowest-ranked side card (the first in card order among equal
    ranks), else the lowest-ranked trump."""
    side = cards & ~SUIT_M[trump]
    pool = side if side else cards
    best = -1
    for r in range(13):
        for s in range(4):
            if pool >> (s * 13 + r) & 1:
                c = s * 13 + r
                if best < 0 or c < best:
                    best = c
        if best >= 0:
            return best
    return best


def _highest(cards: int, trump: int) -> int:
    """_spades_play._highest: the highest rank, a trump first on equal ranks (else the first
    in card order)."""
    for r in range(12, -1, -1):
        if cards >> (trump * 13 + r) & 1:
            return trump * 13 + r
        for s in range(4):
            if cards >> (s * 13 + r) & 1:
                return s * 13 + r
    return -1


def _lowest_lead(cards: int, trump: int) -> int:
    return _lowest(cards, trump)


class SCore:
    """A Spades hand in its play phase. ``kind``: 4 for partnership-spades, 2 for spades-2p."""

    def __init__(self, n: int, trump: int, must_beat: bool, hands: list[int], trick: list[int], leader: int,
                 turn: int, led: int, win_card: int, broken: bool, taken: list[int], tricks_done: int, played: int,
                 bids: list[int], seen: list[int], count_nil: bool) -> None:
        self.n = n
        self.trump = trump
        self.must_beat = must_beat
        self.hands = hands
        self.trick = trick
        self.leader = leader
        self.turn = turn
        self.led = led
        self.win_card = win_card
        self.broken = broken
        self.taken = taken
        self.tricks_done = tricks_done
        self.played = played
        self.bids = bids
        self.seen = seen  # spades-2p: the cards each seat saw in the draw (0 in partnership)
        self.count_nil = count_nil  # partnership: a Nil bidder's tricks count for the partner's contract

    def copy(self) -> SCore:
        return SCore(self.n, self.trump, self.must_beat, self.hands[:], self.trick[:], self.leader, self.turn,
                     self.led, self.win_card, self.broken, self.taken[:], self.tricks_done, self.played, self.bids,
                     self.seen, self.count_nil)

    def with_hands(self, hands: list[int], seen: list[int]) -> SCore:
        return SCore(self.n, self.trump, self.must_beat, hands, self.trick[:], self.leader, self.turn, self.led,
                     self.win_card, self.broken, self.taken[:], self.tricks_done, self.played, self.bids, seen,
                     self.count_nil)

    def win_seat(self) -> int:
        trick = self.trick
        for i in range(len(trick)):
            if trick[i] == self.win_card:
                return (self.leader + i) % self.n
        return -1

    def legal(self) -> int:
        m = self.hands[self.turn]
        trump = self.trump
        if not self.trick:
            if not self.broken:
                rest = m & ~SUIT_M[trump]
                if rest:
                    return rest
            return m
        led = self.led
        bits = m & SUIT_M[led]
        w = self.win_card
        if bits:
            if self.must_beat and w // 13 == led:
                hi = bits & ~((2 << w) - 1)
                if hi:
                    return hi
            return bits
        if self.must_beat:
            tb = m & SUIT_M[trump]
            if tb:
                if w // 13 == trump:
                    hi = tb & ~((2 << w) - 1)
                    if hi:
                        return hi
                return tb
        return m

    def play(self, card: int) -> None:
        seat = self.turn
        bit = 1 << card
        self.hands[seat] ^= bit
        self.played |= bit
        s = card // 13
        trick = self.trick
        if not trick:
            self.led = s
            self.win_card = card
            if s == self.trump:
                self.broken = True
        else:
            w = self.win_card
            if s == self.trump:
                self.broken = True
                if w // 13 != s or card > w:
                    self.win_card = card
            elif card > w and s == w // 13:
                self.win_card = card
        trick.append(card)
        n = self.n
        if len(trick) < n:
            self.turn = seat + 1 if seat + 1 < n else 0
            return
        winner = self.win_seat()
        self.taken[winner] += 1
        self.tricks_done += 1
        self.trick = []
        self.leader = winner
        self.turn = winner
        self.led = -1
        self.win_card = -1

    # ------------------------------------------------------------------ the rule bots
    def _need(self, seat: int) -> tuple[int, bool, bool, int]:
        """(need, nil, partner_nil, partner) as the rule bots work them out."""
        bids = self.bids
        taken = self.taken
        left = 13 - self.tricks_done
        if self.n == 2:
            bid = bids[seat]
            t = taken[seat]
            opp = 1 - seat
            need = bid - t if bid > 0 else 0
            if bid == 0 and t > 0:
                need = 13
            elif bid > 0 and t >= bid:
                opp_bid = bids[opp]
                opp_need = opp_bid - taken[opp]
                if opp_bid > 0 and 0 < opp_need <= left and left - opp_need < 2:
                    need = 1
            return need, bid == 0 and t == 0, False, -1
        team = seat % 2
        partner = (seat + 2) % 4
        contract = 0
        counted = 0
        for s in (team, team + 2):
            if bids[s] > 0:
                contract += bids[s]
            if bids[s] > 0 or self.count_nil:
                counted += taken[s]
        need = contract - counted if contract > 0 else 0
        if bids[seat] == 0 and taken[seat] > 0 and contract == 0:
            need = 13
        if need <= 0 and contract > 0:
            opp = (team + 1) % 2
            opp_contract = 0
            opp_taken = 0
            for s in (opp, opp + 2):
                if bids[s] > 0:
                    opp_contract += bids[s]
                    opp_taken += taken[s]
            opp_need = opp_contract - opp_taken
            if opp_contract > 0 and 0 < opp_need <= left and left - opp_need < 2:
                need = 1
        nil = bids[seat] == 0 and taken[seat] == 0
        partner_nil = bids[partner] == 0 and taken[partner] == 0 and bids[seat] != 0
        return need, nil, partner_nil, partner

    def rule_card(self) -> int:
        """The rule bot's card for the seat on turn (_spades_play.choose_play with the game's
        contract reading: PartnershipSpadesBot._play, Spades2PBot._play)."""
        cards = self.legal()
        if cards & (cards - 1) == 0:
            return low_card(cards)
        seat = self.turn
        trump = self.trump
        need, nil, partner_nil, partner = self._need(seat)
        hand = self.hands[seat]
        others = ALL & ~(self.played | hand | (self.seen[seat] & ~hand))
        trick = self.trick
        if not trick:
            return self._lead(cards, trump, need, nil, partner_nil, others)
        led = self.led
        win = self.win_card
        win_seat = self.win_seat()
        last = len(trick) == self.n - 1
        winners = 0
        m = cards
        while m:
            c = low_card(m)
            m &= m - 1
            if beats(c, win, led, trump):
                winners |= 1 << c
        losers = cards & ~winners
        if nil:
            if losers:
                return _highest(losers, trump)
            return _highest(winners, trump)
        partner_played = False
        if partner >= 0:
            for i in range(len(trick)):
                if (self.leader + i) % self.n == partner:
                    partner_played = True
        if partner_nil:
            if win_seat == partner and winners:
                return high_card(winners) if not last else low_card(winners)
            if not partner_played and winners:
                return _highest(winners, trump)
            return _lowest(losers if losers else cards, trump)
        if partner >= 0 and win_seat == partner:
            if losers and (need <= 0 or last or win // 13 == trump or is_top(win, others)):
                return _lowest(losers, trump)
            if not losers:
                return low_card(winners)
        if need > 0:
            if winners:
                if last:
                    return low_card(winners)
                led_winners = winners & SUIT_M[led]
                m = led_winners
                while m:
                    c = low_card(m)
                    m &= m - 1
                    if is_top(c, others):
                        return c
                if led_winners:
                    return high_card(led_winners)
                return low_card(winners)
            return _lowest(losers, trump)
        if losers:
            return _highest(losers, trump)
        return low_card(winners)

    def _lead(self, cards: int, trump: int, need: int, nil: bool, partner_nil: bool, others: int) -> int:
        if nil:
            return _lowest_lead(cards, trump)
        if partner_nil:
            sure = 0
            m = cards
            while m:
                c = low_card(m)
                m &= m - 1
                if is_top(c, others):
                    sure |= 1 << c
            pool = sure if sure else cards
            # max by (not a trump, rank): the first in card order among equals
            best = -1
            best_key = -1
            m = pool
            while m:
                c = low_card(m)
                m &= m - 1
                key = (0 if c // 13 == trump else 13) + c % 13
                if key > best_key:
                    best = c
                    best_key = key
            return best
        if need > 0:
            best = -1
            m = cards & ~SUIT_M[trump]
            while m:
                c = low_card(m)
                m &= m - 1
                if is_top(c, others) and (best < 0 or c % 13 > best % 13):
                    best = c
            if best >= 0:
                return best
            trumps = cards & SUIT_M[trump]
            if trumps and is_top(high_card(trumps), others) and trumps & (trumps - 1):
                return high_card(trumps)
        return _lowest_lead(cards, trump)

    def rollout(self) -> None:
        while self.hands[self.turn]:
            self.play(self.rule_card())

    def random_play(self, rnd: Rand) -> None:
        """The rest of the hand with a uniformly random legal card at every turn (benchmarks)."""
        while self.hands[self.turn]:
            lm = self.legal()
            self.play(nth_card(lm, rnd.below(count(lm))))


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


class SScorer:
    """A finished hand's worth for ``seat`` as SpadesSearchBot values it: the hand scored (the
    game's ``score_hand``), then the side's chance of winning the game (a race model) or the
    points difference, bags at 10 each."""

    def __init__(self, game: str, seat: int, totals: list[int], bags: list[int], bids: list[int], flags: list[bool],
                 options: dict[str, Any], game_value: bool, gain: float, spread: float) -> None:
        self.game = game
        self.seat = seat
        self.totals = totals
        self.bags = bags
        self.bids = bids
        self.flags = flags  # blind (partnership) or double (spades-2p) per seat
        self.options = options
        self.target: int = options["target"]
        self.failed_bags: bool = options["failed_nil_tricks_are_bags"]
        self.game_value = game_value
        self.gain = gain
        self.spread = spread

    def value(self, core: SCore) -> float:
        n = core.n
        if n == 4:
            points, bags = ps_score_hand(self.bids, self.flags, core.taken, self.bags, self.options)
        else:
            points, bags = s2_score_hand(self.bids, self.flags, core.taken, self.bags, self.failed_bags)
        tot = [self.totals[s] + points[s] for s in range(n)]
        seat = self.seat
        opp = (seat + 1) % n
        me = tot[seat] - 10 * bags[seat]
        them = tot[opp] - 10 * bags[opp]
        if not self.game_value:
            return float(me - them)
        if n == 4:
            over, winners = ps_game_end(tot, self.options)
        else:
            over, sides = higher_total_wins(tot, self.target)
            winners = sides
        if over:
            return 1000.0 if seat in winners else 0.0
        lead = me if me > them else them
        hands = (self.target - lead) / self.gain + 0.5
        if hands < 0.5:
            hands = 0.5
        return 1000.0 * _phi((me - them) / (self.spread * math.sqrt(hands)))


def finish(core: SCore, scorer: SScorer, solve_at: int) -> float:
    """The rest of the hand by the rule bots, the scorer's seat searching its own last
    ``solve_at`` cards exactly (as engine/hearts_core.finish)."""
    seat = scorer.seat
    hands = core.hands
    while hands[core.turn]:
        if core.turn == seat and count(hands[seat]) <= solve_at:
            return solve(core, scorer)
        core.play(core.rule_card())
    return scorer.value(core)


def solve(core: SCore, scorer: SScorer) -> float:
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


def deal_score(deck: list[int], trump: int, leader: int) -> SCore:
    """Four hands dealt (card k to seat k mod 4) straight into an SCore, every bid 3: for
    benchmarks of the core's speed."""
    hands = [0, 0, 0, 0]
    for k in range(len(deck)):
        hands[k % 4] |= 1 << deck[k]
    return SCore(4, trump, False, hands, [], leader, leader, -1, -1, False, [0, 0, 0, 0], 0, 0, [3, 3, 3, 3],
                 [0, 0, 0, 0], False)


def from_state(state: Any) -> SCore:
    """The SCore of a Spades game's state in its play phase (the state is not changed)."""
    n: int = state.n
    trick_pairs: list[tuple[int, int]] = list(state.trick)
    trick = [c for _, c in trick_pairs]
    leader: int = trick_pairs[0][0] if trick_pairs else state.on_turn[0]
    played: int = state.played
    if n == 2:
        seen = [state.seen[0], state.seen[1]]
        count_nil = False
    else:
        seen = [0, 0, 0, 0]
        count_nil = bool(state.options["nil_tricks_count_for_partner"])
    return SCore(n, state.trump, state.must_beat, list(state.masks), trick, leader, state.on_turn[0],
                 state.led if trick else -1, state.win_card if trick else -1, state.broken, list(state.tricks_taken),
                 len(state.tricks), played, list(state.bids), seen, count_nil)
