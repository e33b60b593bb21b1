"""Cancellation Hearts for 6 to 11 players with two decks (seed 001; RULES.md).

Every card exists twice. The deal goes one at a time from the dealer's left as far as the
104 cards go evenly; the rest is the face-down widow, taken by the winner of the first trick
that is won. Identical cards played to the same trick cancel: only uncancelled cards of the
led suit can win, and when every led-suit card is cancelled nobody wins: the cards wait on the
table, the same player leads again and the next won trick takes them all. A cancelled last
trick goes to nobody (or, by option, to its leader).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar, Final, cast

from . import cards as C
from .actions import Action, pass_cards
from .hearts_common import (
    HEARTS_HI,
    HEARTS_LO,
    ONE,
    PASS_COUNT,
    POINTS,
    HeartsFamilyState,
    place_hidden,
)
from .masks import ALL_CARDS, BIT, FULL_SUIT, SUIT_MASK, SUIT_PLAYS, cards_of, plays_of

SHIFT: Final[tuple[int, ...]] = (0, 13, 26, 39)  # a suit's bits start at suit * 13
NOT_HEARTS: Final = ALL_CARDS & ~SUIT_MASK[C.HEARTS]
NO_POINTS: Final = NOT_HEARTS & ~BIT[C.QS]  # the cards worth no points
POINT_CARDS: Final = ALL_CARDS & ~NO_POINTS  # the hearts and the Q♠

# cards each and widow size by player count (RULES.md's table: 104 // n, 104 % n)
CARDS_EACH: Final = {n: 104 // n for n in range(6, 12)}
WIDOW_SIZE: Final = {n: 104 % n for n in range(6, 12)}


class CancellationHeartsState(HeartsFamilyState):
    GAME_ID: ClassVar[str] = "cancellation-hearts"
    TITLE: ClassVar[str] = "Cancellation Hearts"
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (6, 7, 8, 9, 10, 11)
    DECKS: ClassVar[int] = 2
    HAS_BAGS: ClassVar[bool] = False
    TEAMS: ClassVar[bool] = False
    MOON_TOTAL: ClassVar[int] = 52

    widow: list[int]
    waiting: list[int]

    def _reset_hand(self) -> None:
        super()._reset_hand()
        self.widow = []
        self.widow_taker = -1  # -1 while the widow is on the table (or there is none)
        self.waiting = []  # cards of fully cancelled tricks, waiting for the next won trick
        self.first_lead = True  # the lead of trick 1 is still to come

    # ------------------------------------------------------------------ the hands, as masks
    # Two 52-bit masks per seat (see masks.py): ``once`` has bit c when the seat holds card c
    # at least once, ``twice`` when it holds both copies. The distinct cards held, which is
    # what the legal plays are, are then ``once`` alone.
    def _reset_holdings(self) -> None:
        n = self.n
        self.once: list[int] = [0] * n
        self.twice: list[int] = [0] * n

    def _hand_of(self, seat: int) -> list[int]:
        two = self.twice[seat]
        if not two:
            return cards_of(self.once[seat])
        return sorted(cards_of(self.once[seat]) + cards_of(two))

    def _hand_size(self, seat: int) -> int:
        return self.once[seat].bit_count() + self.twice[seat].bit_count()

    def _holds_each(self, seat: int, a: int, b: int, c: int) -> bool:
        m = self.once[seat]
        return bool(m >> a & 1 and m >> b & 1 and m >> c & 1)

    def _remove_cards(self, seat: int, cards: tuple[int, ...]) -> None:
        for c in cards:
            self._take_out(seat, c)

    def _add_cards(self, seat: int, cards: tuple[int, ...]) -> None:
        once, twice = self.once, self.twice
        for c in cards:
            bit = BIT[c]
            if once[seat] & bit:
                twice[seat] |= bit
            else:
                once[seat] |= bit

    def _take_out(self, seat: int, c: int) -> None:
        """One copy of ``c`` (held) leaves ``seat``'s hand."""
        bit = BIT[c]
        if self.twice[seat] & bit:
            self.twice[seat] ^= bit
        else:
            self.once[seat] ^= bit

    # ------------------------------------------------------------------ deal and passing
    def _deal(self) -> None:
        n = self.n
        each = CARDS_EACH[n]
        deck = self.deck
        dealt = deck[: each * n]
        first = (self.dealer + 1) % n
        # the k-th card dealt goes to seat first + k (mod n)
        for s in range(n):
            self._add_cards(s, tuple(dealt[(s - first) % n::n]))
        self.widow = sorted(deck[each * n:])
        self._start_passing()

    def _pass_offsets(self) -> tuple[int, ...]:
        mode = self.options["passing"]
        if mode == "none":
            return (0,)
        if mode == "right":
            return (self.n - 1,)
        return (1, self.n - 1)

    def _begin_play(self) -> None:
        self.leader = (self.dealer + 1) % self.n
        self.phase = "play"
        self.turn_t = ONE[self.leader]

    @property
    def widow_on_table(self) -> bool:
        return bool(self.widow) and self.widow_taker < 0

    # ------------------------------------------------------------------ play
    # legal_actions and apply: the play phase of HeartsFamilyState's fast paths with the hooks
    # written out in one frame for the common cases (as in hearts.py); anything else, and
    # every refusal, goes through the general path and its reasons.
    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        if self.phase == "play":
            on = self.turn_t[0]
            if seat is None or (seat == on and type(seat) is int):
                if self.trick:
                    led = self.led
                    bits = self.once[on] >> SHIFT[led] & FULL_SUIT
                    if bits:
                        return SUIT_PLAYS[led][bits]
                return self._legal_play(on)
        return super().legal_actions(seat)

    def apply(self, action: Action, seat: int | None = None) -> tuple[int, ...]:
        if type(action) is Action and action[0] == "play" and self.phase == "play":
            on = self.turn_t[0]
            c = action[1]
            if (seat is None or (seat == on and type(seat) is int)) and type(c) is int and 0 <= c < 52:
                m = self.once[on]
                # the plain cases: following the suit led, or leading after the first lead
                # while hearts may be led or the card is no heart
                if m >> c & 1 and (
                        c // 13 == self.led if self.trick else not self.first_lead and (
                            not HEARTS_LO <= c < HEARTS_HI or self.broken or not m & NOT_HEARTS)):
                    bit = BIT[c]
                    if self.twice[on] & bit:
                        self.twice[on] ^= bit
                    else:
                        self.once[on] = m ^ bit
                    self.actions.append((on, action))
                    self._after_play(on, c)
                    return self.turn_t
        return super().apply(action, seat)

    def _legal_play(self, seat: int) -> Sequence[Action]:
        m = self.once[seat]
        if self.trick:
            led = self.led
            bits = m >> SHIFT[led] & FULL_SUIT
            if bits:
                return SUIT_PLAYS[led][bits]
            if not self.tricks and self.options["no_points_on_first_trick"] and m & NO_POINTS:
                return plays_of(m & NO_POINTS)
            return plays_of(m)
        if self.first_lead:
            return plays_of(m & NO_POINTS or m)
        if self.broken or not m & NOT_HEARTS:
            return plays_of(m)
        return plays_of(m & NOT_HEARTS)

    def _check_play(self, seat: int, c: Any) -> str | None:
        if type(c) is not int or not 0 <= c < 52:
            return f"not a card: {c!r}"
        m = self.once[seat]
        if not m >> c & 1:
            return f"you do not hold {C.NAMES[c]}"
        if self.trick:
            led = self.led
            if c // 13 != led:
                if m >> SHIFT[led] & FULL_SUIT:
                    return f"must follow {C.SUIT_NAMES[led]}"
                if (not self.tricks and POINTS[c] and self.options["no_points_on_first_trick"]
                        and m & NO_POINTS):
                    return "no hearts or QS on the first trick"
            return None
        if self.first_lead:
            if POINTS[c] and m & NO_POINTS:
                return "the first lead may not be a heart or QS"
            return None
        if HEARTS_LO <= c < HEARTS_HI and not self.broken and m & NOT_HEARTS:
            return "hearts are not broken"
        return None

    def _apply_play(self, seat: int, c: int) -> None:
        self._take_out(seat, c)
        self._after_play(seat, c)

    def _after_play(self, seat: int, c: int) -> None:
        """``c`` has left ``seat``'s hand: put it on the trick, and settle a complete trick."""
        trick = self.trick
        if not trick:
            self.led = c // 13
            self.first_lead = False
        trick.append(c)
        if POINTS[c]:
            self.broken = True
        n = self.n
        if len(trick) < n:
            self.turn_t = ONE[(seat + 1) % n]
            return
        # complete: the highest led-suit card played only once wins; pairs cancel
        lo = self.led * 13
        hi = lo + 13
        best = -1
        bi = -1
        for i, x in enumerate(trick):
            if lo <= x < hi and x > best and trick.count(x) == 1:
                best, bi = x, i
        leader = self.leader
        last = not self.once[leader]
        cards = tuple(trick)
        self.trick = []
        self.led = -1
        if bi < 0:  # every led-suit card cancelled: nobody wins, the cards wait on the table
            self.tricks.append((leader, cards, -1))
            self.waiting.extend(cards)
            if not last:
                self.turn_t = ONE[leader]  # the same player leads again
                return
            if self.options["last_trick_cancelled"] == "leader":
                self._take(leader)
        else:
            w = (leader + bi) % n
            self.tricks.append((leader, cards, w))
            self.waiting.extend(cards)
            self._take(w)
            self.leader = w
            if not last:
                self.turn_t = ONE[w]
                return
        self._finish_hand()

    def _take(self, seat: int) -> None:
        """``seat`` takes the waiting cards (the trick just played included) and the widow if
        it is still on the table."""
        pts = 0
        for x in self.waiting:
            pts += POINTS[x]
        self.waiting = []
        if self.widow and self.widow_taker < 0:
            self.widow_taker = seat
            for x in self.widow:
                pts += POINTS[x]
        self.points_taken[seat] += pts
        self.tricks_taken[seat] += 1

    # ------------------------------------------------------------------ determinization
    def sample_world(self, seat: int, rng: random.Random, avoid: Sequence[int] | None = None) -> CancellationHeartsState:
        """A full state of this game that ``seat`` cannot tell from this one (as
        ``HeartsState.sample_world``): the cards it has not seen dealt at random among the
        other hands, the passes in flight and the face-down widow, consistently with its own
        hand, its passes, every play, the widow if it took it, the shown voids, a point card
        led first or discarded on the first trick (only points held then), a heart led before
        hearts were broken (only hearts then) and, once someone else took the widow, the
        widow's points (they show in that seat's points). Two decks: cards are counted, a
        card may be hidden twice. The other seats' passes are drawn again. Rebuilt from the
        snapshot before this hand's deal by replay. ``avoid`` as for Hearts."""
        if self.phase in ("deal", "over"):
            return cast("CancellationHeartsState", self.copy())
        n = self.n
        off = self.pass_offset
        passing = self.phase == "pass"
        hands, flying, widow, played, mine = self._holdings(seat, rng, avoid)
        passes: list[Counter[int]] = [Counter() for _ in range(n)]
        if off:
            for p in range(n):
                q = (p + off) % n
                if p == seat:
                    passes[p] = mine
                elif passing:
                    passes[p] = flying[p]
                elif q == seat:
                    passes[p] = Counter(self.received[seat])
                else:
                    passes[p] = Counter(rng.sample(sorted((hands[q] + played[q]).elements()), PASS_COUNT))
        dealt: list[list[int]] = []
        for p in range(n):
            d = hands[p] + played[p] + passes[p]
            if off and not passing:
                d = d - passes[(p - off) % n]  # what it received was not dealt to it
            cards = list(d.elements())
            rng.shuffle(cards)
            dealt.append(cards)
        first_seat = (self.dealer + 1) % n
        order: list[int] = [0] * (n * CARDS_EACH[n])
        for p in range(n):
            order[(p - first_seat) % n::n] = dealt[p]
        h = len(self.finished_hands)
        new = cast("CancellationHeartsState", self._snaps[h]._clone())
        new._snaps = self._snaps[:h]
        new.start_hand(order + widow)
        for p, a in self.actions:
            if a.kind == "pass" and p != seat:
                a = pass_cards(sorted(passes[p].elements()))
            new.apply(a, p)
        return new

    def _holdings(self, seat: int, rng: random.Random, avoid: Sequence[int] | None
                  ) -> tuple[list[Counter[int]], list[Counter[int]], list[int], list[Counter[int]], Counter[int]]:
        """The hidden cards of a world placed (``sample_world``'s draw, before the deck is
        rebuilt): every seat's hand and pass in flight, the widow, and what each seat has played
        and this seat passed."""
        return HoldingsDraw(self, seat, avoid).draw(rng)

    def holdings_sampler(self, seat: int, avoid: Sequence[int] | None = None) -> HoldingsDraw:
        """What ``sample_holdings(seat, rng, avoid)`` works out before its random draw (the
        cards ``seat`` has not seen, the places they may take, the shown voids), worked out once:
        ``.holdings(rng)`` then draws one world's hands exactly as ``sample_holdings`` does (the
        same random numbers give the same hands). For a search drawing many worlds at one
        decision; it describes this moment only (apply an action and make a new one)."""
        return HoldingsDraw(self, seat, avoid)

    def sample_holdings(self, seat: int, rng: random.Random, avoid: Sequence[int] | None = None
                        ) -> tuple[list[int], list[int], list[int]]:
        """A world's hands in the play phase without the rest of the state (the search's core,
        engine/chearts_core.py): (cards held at least once, cards held twice) as masks per
        seat and the widow, drawn exactly as ``sample_world`` draws them."""
        return HoldingsDraw(self, seat, avoid).holdings(rng)

    # ------------------------------------------------------------------ views
    def card_locations(self) -> dict[str, list[int]] | None:
        """As for Hearts, with "waiting" (cancelled tricks not yet taken, or taken by nobody)
        and "widow" while it is on the table; a taken widow is part of "taken"."""
        out = super().card_locations()
        if out is None:
            return None
        taken = out["taken"]
        for c in self.waiting:
            taken.remove(c)
        out["waiting"] = self.waiting[:]
        if self.widow_taker >= 0:
            taken += self.widow
            out["widow"] = []
        else:
            out["widow"] = self.widow[:]
        return out

    def _trick_winning(self) -> int | None:
        """Only a led-suit card played once can take the trick: None when the trick is empty
        or every led-suit card so far is cancelled by its twin."""
        trick = self.trick
        if not trick:
            return None
        led = trick[0] // 13
        once = [i for i, c in enumerate(trick) if c // 13 == led and trick.count(c) == 1]
        if not once:
            return None
        return (self.leader + max(once, key=trick.__getitem__)) % self.n

    def _cards_taken(self) -> tuple[list[list[int]], list[int]]:
        """As for Hearts, plus the widow for whoever took it; cancelled tricks at the end of the
        hand went to the last leader when the engine took them (``last_trick_cancelled``)."""
        got, left = super()._cards_taken()
        if left and not self.waiting and self.tricks:
            got[self.tricks[-1][0]].extend(left)
            left = []
        if self.widow_taker >= 0:
            got[self.widow_taker].extend(self.widow)
        return got, left

    def _public_extra(self) -> dict[str, Any]:
        v = super()._public_extra()
        v["waiting"] = C.names(self.waiting)
        v["widow_size"] = len(self.widow)
        v["widow_on_table"] = self.widow_on_table
        v["widow_taker"] = None if self.widow_taker < 0 else self.widow_taker
        v["first_lead"] = self.first_lead
        return v

    def _private_extra(self, seat: int) -> dict[str, Any]:
        v = super()._private_extra(seat)
        if self.widow_taker == seat:
            v["widow"] = C.names(self.widow)
        return v


def _widow_first(hidden: list[int], slots: list[tuple[int, int]], allowed: list[int], size: int,
                 points: int, rng: random.Random) -> tuple[list[int], list[tuple[int, int]], list[int]]:
    """For ``sample_world`` once another seat took the widow: ``size`` hidden cards with
    ``points`` for the widow, the others placed in ``slots``; returns the others, their places
    and the widow. Not one placement of all the cards at once, then kept only when the widow's
    points match (that took up to a second at 6 players): the widow's cards go anywhere, so
    they are drawn first and the rest placed once."""
    # one placement of everything first: it raises when nothing fits (the caller's ``avoid``)
    # and is kept when its widow happens to have the points
    got = place_hidden(hidden, slots + [(-1, 1)] * size, allowed, rng)
    widow = [c for c, sl in zip(hidden, got, strict=True) if sl[0] < 0]
    if sum(POINTS[c] for c in widow) == points:
        return ([c for c, sl in zip(hidden, got, strict=True) if sl[0] >= 0],
                [sl for sl in got if sl[0] >= 0], widow)
    idx = list(range(len(hidden)))
    for _ in range(100_000):
        pick = rng.sample(idx, size)
        if sum(POINTS[hidden[i]] for i in pick) != points:
            continue
        chosen = set(pick)
        rest = [c for i, c in enumerate(hidden) if i not in chosen]
        try:
            got = place_hidden(rest, slots, allowed, rng)
        except AssertionError:  # the rest does not fit the shown voids: another widow
            continue
        return rest, got, sorted(hidden[i] for i in pick)
    raise AssertionError("no widow with the points shown")  # pragma: no cover - the real widow is one


class HoldingsDraw:
    """One seat's view of the hidden cards at one moment (``CancellationHeartsState.
    _holdings`` split in two): the constructor reads the state (what each seat has played, the
    shown voids, the cards not seen, the free places), ``draw`` places the hidden cards at
    random. Nothing here is changed by a draw, so one object draws any number of worlds."""

    def __init__(self, state: CancellationHeartsState, seat: int, avoid: Sequence[int] | None) -> None:
        n = state.n
        off = state.pass_offset
        played: list[Counter[int]] = [Counter() for _ in range(n)]
        allowed = [ALL_CARDS] * n
        led = -1
        on_trick = tricks = 0
        broken = False
        first = True
        no_pts = state.options["no_points_on_first_trick"]
        for p, a in state.actions:
            if a.kind != "play":
                continue
            c = a.value
            played[p][c] += 1
            if not on_trick:
                led = c // 13
                if first and POINTS[c]:
                    allowed[p] &= POINT_CARDS  # a point card led first: only points held
                elif not first and HEARTS_LO <= c < HEARTS_HI and not broken:
                    allowed[p] &= SUIT_MASK[C.HEARTS]  # a heart led unbroken: only hearts
                first = False
            elif c // 13 != led:
                allowed[p] &= ~SUIT_MASK[led]  # failed to follow: void
                if tricks == 0 and no_pts and POINTS[c]:
                    allowed[p] &= POINT_CARDS
            if POINTS[c]:
                broken = True
            on_trick += 1
            if on_trick == n:
                on_trick = 0
                tricks += 1
        if avoid is not None:  # a caller's own beliefs: cards a seat does not hold (a mask each)
            for p in range(n):
                if p != seat:
                    allowed[p] &= ~avoid[p]
        passing = state.phase == "pass"
        mine = Counter(state.passes[seat])
        t = (seat + off) % n
        known: list[Counter[int]] = [Counter() for _ in range(n)]
        if off and not passing:
            known[t] = mine - played[t]  # what this seat passed and the receiver still holds
        widow_seen = state.widow_taker == seat
        # what the seat has seen: its hand, every play, its pass (in flight, or what of it the
        # receiver still holds; the rest is among the plays), the widow if it took it
        own = state._hand_of(seat)
        seen = Counter(own) + sum(played, Counter()) + (mine if passing else known[t])
        if widow_seen:
            seen += Counter(state.widow)
        slots: list[tuple[int, int]] = []
        for p in range(n):
            if p != seat:
                slots += [(p, 0)] * (state._hand_size(p) - sum(known[p].values()))
                if passing and state.passes[p]:
                    slots += [(p, 1)] * PASS_COUNT
        self.n = n
        self.seat = seat
        self.own = own
        self.hidden = sorted((Counter({c: 2 for c in range(52)}) - seen).elements())
        self.slots = slots
        self.allowed = allowed
        self.known = known
        self.played = played
        self.mine = mine
        self.widow = list(state.widow)
        self.widow_seen = widow_seen
        self.widow_open = state.widow_taker < 0  # the widow still face down on the table
        self.widow_points = sum(POINTS[c] for c in state.widow)
        # the cards each seat is known to hold (this seat's hand; what it passed that the
        # receiver still holds), as ``holdings``' masks: held at least once, held twice
        self.once = [0] * n
        self.twice = [0] * n
        for p in range(n):
            for c, k in (Counter(own) if p == seat else known[p]).items():
                if k > 0:
                    self.once[p] |= BIT[c]
                if k > 1:
                    self.twice[p] |= BIT[c]

    def _place(self, rng: random.Random) -> tuple[list[int], list[tuple[int, int]], list[int]]:
        """The random part: the hidden cards (the widow's taken out first when another seat took
        it), the place of each and the widow."""
        hidden = self.hidden
        if self.widow_seen:
            return hidden, place_hidden(hidden, self.slots, self.allowed, rng), self.widow[:]
        if self.widow_open:
            got = place_hidden(hidden, self.slots + [(-1, 1)] * len(self.widow), self.allowed, rng)
            return hidden, got, [c for c, sl in zip(hidden, got, strict=True) if sl[0] < 0]
        # another seat took the widow: its points are public (in that seat's points), so the
        # widow is drawn first among the hidden cards with those points (a cheap draw,
        # repeated until the points match and the rest still fit the hands)
        return _widow_first(hidden, self.slots, self.allowed, len(self.widow), self.widow_points, rng)

    def draw(self, rng: random.Random
             ) -> tuple[list[Counter[int]], list[Counter[int]], list[int], list[Counter[int]], Counter[int]]:
        """One world: every seat's hand and pass in flight, the widow, what each seat has
        played and what this seat passed (the last two are this object's own: do not change them)."""
        hidden, got, widow = self._place(rng)
        seat = self.seat
        hands = [Counter(self.own) if p == seat else Counter(self.known[p]) for p in range(self.n)]
        flying: list[Counter[int]] = [Counter() for _ in range(self.n)]
        for c, (p, where) in zip(hidden, got, strict=True):
            if p >= 0:
                (flying if where else hands)[p][c] += 1
        return hands, flying, widow, self.played, self.mine

    def holdings(self, rng: random.Random) -> tuple[list[int], list[int], list[int]]:
        """One world's hands as ``sample_holdings`` returns them: (cards held at least once,
        cards held twice) as masks per seat, and the widow (``draw``'s hands, as masks)."""
        hidden, got, widow = self._place(rng)
        once = self.once[:]
        twice = self.twice[:]
        for c, (p, where) in zip(hidden, got, strict=True):
            if p >= 0 and not where:
                b = BIT[c]
                if once[p] & b:
                    twice[p] |= b
                else:
                    once[p] |= b
        return once, twice, widow
