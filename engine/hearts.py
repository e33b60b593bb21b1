"""Hearts for 3 to 7 players (seed 004; RULES.md "hearts").

One deck; with other than four players some low cards are set aside before the deal (the
``REMOVED`` table) and skipped as they come off the deck order. Three cards are passed (four
players: left, right, across, none; otherwise left, right), the holder of the lowest club in
play leads it, and on the first trick a player void in clubs may not play a heart or the Q♠
unless holding nothing else. Hearts 1 point each, Q♠ 13; shooting the moon lets the shooter
choose; the omnibus option gives -10 to whoever takes the 10♦ (or J♦).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

from . import cards as C
from .actions import PLAY, Action, pass_cards
from .base import COMPILED
from .hearts_common import (
    HEARTS_HI,
    HEARTS_LO,
    ONE,
    PASS_COUNT,
    POINTS,
    HeartsFamilyState,
    distinct_pass_choices,
    place_hidden,
)
from .masks import (
    ALL_CARDS,
    BIT,
    FULL_SUIT,
    SEAT_PLAY,
    SUIT_CARDS,
    SUIT_MASK,
    SUIT_PLAYS,
    cards_of,
    deal_masks,
    mask_of,
    plays_of,
)

# Cards set aside before the deal, by player count.
if TYPE_CHECKING:  # the compiler's native 64-bit int (mypyc reads it); never imported at run time
    from mypy_extensions import i64

REMOVED: Final[dict[int, tuple[int, ...]]] = {
    3: tuple(C.parse_all(["2D"])),
    4: (),
    5: tuple(C.parse_all(["2D", "2C"])),
    6: tuple(C.parse_all(["2D", "3D", "3C", "4C"])),
    7: tuple(C.parse_all(["2D", "3D", "3C"])),
}
CARDS_EACH: Final = {n: (52 - len(r)) // n for n, r in REMOVED.items()}
# The lowest club in play leads the first trick: 2C, or 3C where the 2C is set aside.
FIRST_CARD: Final = {n: min(c for c in range(C.CLUBS * 13, 52) if c not in r) for n, r in REMOVED.items()}

# The first lead, as the one legal action (a shared tuple).
FIRST_PLAY: Final[dict[int, tuple[Action, ...]]] = {n: (PLAY[c],) for n, c in FIRST_CARD.items()}
# NEXT_ONE[n][s]: the turn after seat s at a table of n, (s + 1) % n as a 1-tuple.
NEXT_ONE: Final[dict[int, tuple[tuple[int, ...], ...]]] = {n: tuple(ONE[(s + 1) % n] for s in range(n)) for n in REMOVED}
# NEXT_SEAT[n][s]: the same as a tuple indexed by n (a native index, no dict lookup, when compiled)
NEXT_SEAT: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(NEXT_ONE.get(n, ()) for n in range(8))
# FIRST_LEAD[n]: FIRST_CARD as a tuple indexed by n (-1 where no table of n plays)
FIRST_LEAD: Final[tuple[int, ...]] = tuple(FIRST_CARD.get(n, -1) for n in range(8))
# The passing cycle as seat offsets by player count (four players: left, right, across, none).
PASS_CYCLE: Final[dict[int, tuple[int, ...]]] = {n: (1, n - 1, 2, 0) if n == 4 else (1, n - 1) for n in REMOVED}
SHIFT: Final[tuple[int, ...]] = (0, 13, 26, 39)  # a suit's bits start at suit * 13
NOT_HEARTS: Final = ALL_CARDS & ~SUIT_MASK[C.HEARTS]
NO_POINTS: Final = NOT_HEARTS & ~BIT[C.QS]  # the cards worth no points
POINT_CARDS: Final = ALL_CARDS & ~NO_POINTS  # the hearts and the Q♠
NOT_SUIT: Final[tuple[int, ...]] = tuple(ALL_CARDS & ~SUIT_MASK[s] for s in range(4))
SUIT_OF: Final[tuple[int, ...]] = tuple(c // 13 for c in range(52))
_C0: Final = SUIT_CARDS[0]
_ACTION: Final = Action  # a static in the compiled build (a module global is a dict lookup there)
_C1: Final = SUIT_CARDS[1]
_C2: Final = SUIT_CARDS[2]
_C3: Final = SUIT_CARDS[3]

OMNIBUS_CARDS: Final = {"TD": C.parse("TD"), "JD": C.parse("JD")}


def omnibus_points(players: int, taker: int, enabled: bool) -> list[int]:
    """The omnibus option's points, moon or not: -10 for whoever took the omnibus card (taker
    -1: nobody). A module function so the score sheet (engine/scorekeeper.py) shares it."""
    pts = [0] * players
    if enabled and taker >= 0:
        pts[taker] -= 10
    return pts


def acts_played(acts: Sequence[tuple[int, Action]]) -> bool:
    """True when some card has been played in ``acts``."""
    return any(a.kind == "play" for _, a in acts)


class HeartsState(HeartsFamilyState):
    GAME_ID: ClassVar[str] = "hearts"
    TITLE: ClassVar[str] = "Hearts"
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = (3, 4, 5, 6, 7)
    DECKS: ClassVar[int] = 1
    HAS_BAGS: ClassVar[bool] = False
    TEAMS: ClassVar[bool] = False
    MOON_TOTAL: ClassVar[int] = 26

    # The omnibus fields are instance fields only with the omnibus option (see GameState.bags).
    omnibus_card: int = -1  # the omnibus card, -1 without the option
    omnibus_taker: int = -1  # who took it this hand, -1 if nobody (yet)

    # ------------------------------------------------------------------ the hands, as masks
    def _reset_holdings(self) -> None:
        self.masks: list[int] = [0] * self.n
        self.win_seat = -1  # the seat whose card is winning the trick in progress
        self.win_card = -1  # that card (the highest of the suit led so far)
        opts = self.options
        if opts["omnibus"]:
            self.omnibus_card = OMNIBUS_CARDS[opts["omnibus_card"]]
            self.omnibus_taker = -1

    def _hand_of(self, seat: int) -> list[int]:
        return cards_of(self.masks[seat])

    def _hand_size(self, seat: int) -> int:
        return self.masks[seat].bit_count()

    def _holds_each(self, seat: int, a: int, b: int, c: int) -> bool:
        m = self.masks[seat]
        return bool(m >> a & 1 and m >> b & 1 and m >> c & 1)

    def _remove_cards(self, seat: int, cards: tuple[int, ...]) -> None:
        self.masks[seat] &= ~sum(map(BIT.__getitem__, cards))  # different cards: sum is or

    def _add_cards(self, seat: int, cards: tuple[int, ...]) -> None:
        self.masks[seat] |= sum(map(BIT.__getitem__, cards))

    # ------------------------------------------------------------------ deal and passing
    def _deal(self) -> None:
        n = self.n
        removed = REMOVED[n]
        deck = [c for c in self.deck if c not in removed] if removed else self.deck
        # the k-th card of what is dealt goes to seat first + k (mod n)
        self.masks = deal_masks(deck, n, (self.dealer + 1) % n)
        self._start_passing()

    def _pass_offsets(self) -> tuple[int, ...]:
        return PASS_CYCLE[self.n]

    def _begin_play(self) -> None:
        first = FIRST_CARD[self.n]
        holder = 0
        for m in self.masks:  # the holder of the first lead
            if m >> first & 1:
                break
            holder += 1
        self.leader = holder
        self.phase = "play"
        self.turn_t = ONE[holder]

    def _apply_pass(self, seat: int, cards: tuple[int, ...]) -> None:
        # HeartsFamilyState._apply_pass on the masks (three different cards, checked)
        masks = self.masks
        masks[seat] &= ~(BIT[cards[0]] | BIT[cards[1]] | BIT[cards[2]])  # three different cards
        self.passes[seat] = cards
        t = self.turn_t
        i = t.index(seat)
        waiting = t[:i] + t[i + 1:]
        self.turn_t = waiting
        if waiting:
            return
        n, off = self.n, self.pass_offset
        passes, received = self.passes, self.received
        for s, given in enumerate(passes):
            to = (s + off) % n
            received[to] = given
            masks[to] |= BIT[given[0]] | BIT[given[1]] | BIT[given[2]]
        self._begin_play()

    def _extra_points(self) -> list[int]:
        return omnibus_points(self.n, self.omnibus_taker, self.options["omnibus"])

    # ------------------------------------------------------------------ play
    # legal_actions and apply below are the play phase of HeartsFamilyState's fast paths with
    # the hooks (_legal_play, _check_play, _apply_play) written out in one frame on the hand
    # masks: a random hand is 52 plays, and the method calls were a fair share of each.
    # Following suit returns the shared tuple of the suit's plays (no allocation). Anything
    # not plainly a legal play of the seat on turn goes to the general path, which gives the
    # reason.
    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        if self.phase == "play":
            on = self.turn_t[0]
            if seat is None or (seat == on and type(seat) is int):
                m: i64 = self.masks[on]  # native 64-bit ints in the compiled build
                led: i64 = self.led
                if led >= 0:
                    bits: i64 = m >> (led * 13) & 0x1FFF
                    if bits:
                        return SUIT_PLAYS[led][bits]
                    if not self.tricks and m & NO_POINTS:
                        return plays_of(m & NO_POINTS)
                    return plays_of(m)
                if not self.tricks:
                    return FIRST_PLAY[self.n]
                if self.broken or not m & NOT_HEARTS:
                    return plays_of(m)
                return plays_of(m & NOT_HEARTS)
        elif self.phase == "pass" and type(seat) is int and seat in self.turn_t:
            m = self.masks[seat]
            return cast(Sequence[Action], distinct_pass_choices((*_C0[m & FULL_SUIT], *_C1[m >> 13 & FULL_SUIT],
                                                                 *_C2[m >> 26 & FULL_SUIT], *_C3[m >> 39])))
        return super().legal_actions(seat)

    def apply(self, action: Action, seat: int | None = None) -> tuple[int, ...]:
        if type(action) is not _ACTION:  # not an action at all: the general path says so
            pass
        elif action[0] == "play" and self.phase == "play":
            on = self.turn_t[0]
            c = action[1]
            if (seat is None or (seat == on and type(seat) is int)) and type(c) is int and 0 <= c < 52:
                # card, mask and suits as native 64-bit ints in the compiled build (``i64``:
                # one unboxing of the card, plain C arithmetic after it)
                card: i64 = c
                m: i64 = self.masks[on]
                if m >> card & 1:  # held
                    led: i64 = self.led
                    s: i64 = card // 13
                    if led >= 0:  # follow suit; if void, no points on the first trick unless only points
                        ok = s == led or not m >> (led * 13) & 0x1FFF and (
                            len(self.tricks) > 0 or not POINTS[card] or not m & NO_POINTS)  # a bool, not a list
                    elif self.tricks:  # lead: hearts once broken, or when holding only hearts
                        ok = s != C.HEARTS or self.broken or not m & NOT_HEARTS
                    else:
                        ok = card == FIRST_LEAD[self.n]
                    if ok:
                        self.masks[on] = m ^ BIT[card]  # a table: mypyc's i64 ``1 << card`` is a C int shift
                        self.actions.append(SEAT_PLAY[on][card])  # (on, action), shared
                        trick = self.trick
                        trick.append(c)
                        if led < 0:
                            self.led = s
                            self.win_seat = on
                            self.win_card = card
                        elif s == led and card > self.win_card:
                            self.win_seat = on
                            self.win_card = card
                        if POINTS[card]:
                            self.broken = True
                        n = self.n
                        if len(trick) < n:
                            t = self.turn_t = NEXT_SEAT[n][on]
                            return t
                        self._end_played_trick(trick)
                        return self.turn_t
        elif action[0] == "pass" and self.phase == "pass" and type(seat) is int:
            # the plain pass: three different cards (ints, ascending) that the seat holds
            v = action[1]
            if type(v) is tuple and len(v) == PASS_COUNT and seat in self.turn_t:
                a, b, c = v
                if type(a) is int and type(b) is int and type(c) is int and 0 <= a < b < c < 52:
                    m = self.masks[seat]
                    if m >> a & 1 and m >> b & 1 and m >> c & 1:
                        self.actions.append((seat, action))
                        self._apply_pass(seat, v)
                        return self.turn_t
        return super().apply(action, seat)

    def _end_played_trick(self, trick: list[int]) -> None:
        """The trick just completed by ``apply``'s fast path: _end_trick written out (its own
        method, so that the plays that do not end a trick run less code)."""
        w = self.win_seat
        if COMPILED:  # native: no builtins looked up, no iterator
            pts = 0
            for x in trick:
                pts += POINTS[x]
        else:
            pts = sum(map(POINTS.__getitem__, trick))
        if pts:
            self.points_taken[w] += pts
        self.tricks_taken[w] += 1
        if self.omnibus_card >= 0 and self.omnibus_card in trick:
            self.omnibus_taker = w
        self.tricks.append((self.leader, tuple(trick), w))
        self.trick = []
        self.leader = w
        self.led = -1
        if self.masks[w]:
            self.turn_t = ONE[w]
        else:
            self._finish_hand()

    def _legal_play(self, seat: int) -> Sequence[Action]:
        m = self.masks[seat]
        led = self.led
        if led >= 0:
            bits = m >> SHIFT[led] & FULL_SUIT
            if bits:
                return SUIT_PLAYS[led][bits]
            if not self.tricks_played and m & NO_POINTS:
                return plays_of(m & NO_POINTS)
            return plays_of(m)
        if not self.tricks_played:
            return FIRST_PLAY[self.n]
        if self.broken or not m & NOT_HEARTS:
            return plays_of(m)
        return plays_of(m & NOT_HEARTS)

    def _check_play(self, seat: int, c: Any) -> str | None:
        if type(c) is not int or not 0 <= c < 52:
            return f"not a card: {c!r}"
        m = self.masks[seat]
        if not m >> c & 1:
            return f"you do not hold {C.NAMES[c]}"
        led = self.led
        if led >= 0:
            if c // 13 != led:
                if m >> SHIFT[led] & FULL_SUIT:
                    return f"must follow {C.SUIT_NAMES[led]}"
                if self.tricks_played == 0 and POINTS[c] and m & NO_POINTS:
                    return "no hearts or QS on the first trick"
            return None
        if self.tricks_played == 0:
            first = FIRST_CARD[self.n]
            if c != first:
                return f"the first lead must be the {C.NAMES[first]}"
            return None
        if HEARTS_LO <= c < HEARTS_HI and not self.broken and m & NOT_HEARTS:
            return "hearts are not broken"
        return None

    def _apply_play(self, seat: int, c: int) -> None:
        self.masks[seat] ^= BIT[c]
        self._put(seat, c)

    def _put(self, seat: int, c: int) -> None:
        """``c`` has left ``seat``'s hand: onto the trick; the trick settled when complete.
        (``apply`` has these lines written out for its fast path.)"""
        trick = self.trick
        trick.append(c)
        if self.led < 0:
            self.led = c // 13
            self.win_seat, self.win_card = seat, c
        elif c > self.win_card and c // 13 == self.led:  # the highest card of the suit led wins
            self.win_seat, self.win_card = seat, c
        if POINTS[c]:
            self.broken = True
        if len(trick) < self.n:
            self.turn_t = NEXT_ONE[self.n][seat]
        else:
            self._end_trick()

    def _end_trick(self) -> None:
        """The trick is complete: its winner (tracked as it was played) takes it."""
        self._end_played_trick(self.trick)

    def _hand_figures(self) -> dict[str, Any]:
        """HeartsFamilyState's figures from the hand masks: every trick of Hearts has a
        winner, so the cards each seat took are the union of its tricks."""
        taken = [0] * self.n
        for _lead, cards, w in self.tricks:
            m = 0
            for c in cards:
                m |= BIT[c]
            taken[w] |= m
        out: dict[str, Any] = {"tricks_taken": self.tricks_taken[:],
                               "hearts": [(t >> HEARTS_LO & FULL_SUIT).bit_count() for t in taken],
                               "queens": [t >> C.QS & 1 for t in taken], "moon": self._moon_choice()}
        if self.options["omnibus"]:
            out["omnibus"] = None if self.omnibus_taker < 0 else self.omnibus_taker
        return out

    # ------------------------------------------------------------------ determinization
    def sample_world(self, seat: int, rng: random.Random, avoid: Sequence[int] | None = None) -> HeartsState:
        """A full state of this game that ``seat`` cannot tell from this one: the same
        ``view(seat)``, every card ``seat`` has not seen dealt at random among the places it
        may be, consistently with everything ``seat`` knows and nothing else:

        - its own hand, the cards it passed (those the receiver has not played are still
          with the receiver) and received, every card played, the removed cards;
        - a void shown by failing to follow suit; a first-trick discard of a point card (the
          player held only hearts and the Q♠ then); a heart led before hearts were broken
          (the leader held only hearts then);
        - the other seats' passes are drawn again too (each from what its receiver has held),
          and while passing, the cards in flight.

        Built like ``undo``: from the snapshot before this hand's deal, with a deck that deals
        the sampled hands, the same actions replayed (the other seats' passes replaced), so
        the result is a legal state of the game in every respect (``to_json``, ``undo``).
        Every consistent holding can come out (a randomized search over the constraints);
        the draw is not exactly uniform over them. ``avoid`` (a mask per seat, optional):
        hidden cards the caller believes a seat does not hold (a search bot's model of how
        the others play); AssertionError when nothing fits them and what was shown."""
        if self.phase in ("deal", "over"):
            return cast("HeartsState", self.copy())
        n = self.n
        off = self.pass_offset
        played, allowed, known, hidden_m = self.hidden_knowledge(seat, avoid)
        own = self.masks[seat]
        passing = self.phase == "pass"
        mine = mask_of(self.passes[seat])  # () until passed
        hidden = cards_of(hidden_m)
        # the places of hidden cards: every other seat's hand, and while passing the cards
        # each other seat has passed (in flight)
        hand_cap = [self._hand_size(p) for p in range(n)]
        slots: list[tuple[int, int]] = []  # (seat, 0: hand / 1: pass in flight) per hidden card place
        for p in range(n):
            if p == seat:
                continue
            slots += [(p, 0)] * (hand_cap[p] - known[p].bit_count())
            if passing and self.passes[p]:
                slots += [(p, 1)] * PASS_COUNT
        got = place_hidden(hidden, slots, allowed, rng)
        hands = [own if p == seat else known[p] for p in range(n)]
        flying = [0] * n
        for c, (p, where) in zip(hidden, got, strict=True):
            if where:
                flying[p] |= BIT[c]
            else:
                hands[p] |= BIT[c]
        # each seat's pass: its own, the one it received, or drawn from what its receiver held
        passes: list[int] = [0] * n
        if off:
            for p in range(n):
                if p == seat:
                    passes[p] = mine
                elif passing:
                    passes[p] = flying[p]
                elif (p + off) % n == seat:
                    passes[p] = mask_of(self.received[seat])
                else:
                    pool = cards_of(hands[(p + off) % n] | played[(p + off) % n])
                    passes[p] = mask_of(rng.sample(pool, PASS_COUNT))
        dealt = [0] * n
        for p in range(n):
            dealt[p] = hands[p] | played[p] | passes[p]
            if off and not passing:
                dealt[p] &= ~passes[(p - off) % n]  # what it received was not dealt to it
        return self._rebuilt(dealt, passes, seat, rng)

    def hidden_knowledge(self, seat: int, avoid: Sequence[int] | None = None) -> tuple[list[int], list[int], list[int], int]:
        """What ``seat`` knows of the hidden cards, as masks (``sample_world`` deals from it, and
        the search's own worlds, engine/hearts_core.py): the cards each seat has played this
        hand; the cards each seat may hold (from voids shown, a first-trick point discard, a
        heart led unbroken, the first lead's holder, and the caller's ``avoid``); the cards each
        seat is known to hold (what ``seat`` passed, while its receiver has not played them);
        and the hidden cards (neither ``seat``'s, nor played, nor removed, nor known)."""
        n = self.n
        off = self.pass_offset
        acts = self.actions
        played = [0] * n
        allowed = [ALL_CARDS] * n  # the cards each seat may hold now, from what it has shown
        led = -1
        on_trick = 0
        tricks = 0
        broken = False
        for p, a in acts:
            if a.kind != "play":
                continue
            c = a.value
            played[p] |= BIT[c]
            if not on_trick:
                led = c // 13
                if tricks and HEARTS_LO <= c < HEARTS_HI and not broken:
                    allowed[p] &= SUIT_MASK[C.HEARTS]  # led a heart unbroken: only hearts
            elif c // 13 != led:
                allowed[p] &= NOT_SUIT[led]  # failed to follow: void
                if tricks == 0 and POINTS[c]:
                    allowed[p] &= POINT_CARDS  # points on the first trick: only points
            if POINTS[c]:
                broken = True
            on_trick += 1
            if on_trick == n:
                on_trick = 0
                tricks += 1
        if self.phase == "play" and not acts_played(acts):  # the turn shows who holds the first lead
            holder = self.turn_t[0]
            for p in range(n):
                if p != holder:
                    allowed[p] &= ~BIT[FIRST_CARD[n]]
        if avoid is not None:  # a caller's own beliefs: cards a seat does not hold (a mask each)
            for p in range(n):
                if p != seat:
                    allowed[p] &= ~avoid[p]
        gone = 0
        for m in played:
            gone |= m
        gone |= mask_of(REMOVED[n])
        own = self.masks[seat]
        mine = mask_of(self.passes[seat])  # () until passed
        t = (seat + off) % n
        known = [0] * n
        if off and self.phase != "pass":
            known[t] = mine & ~played[t]  # what this seat passed, still with the receiver
        hidden = ALL_CARDS & ~own & ~gone & ~mine & ~known[t]
        return played, allowed, known, hidden

    def _rebuilt(self, dealt: list[int], passes: list[int], seat: int, rng: random.Random) -> HeartsState:
        """This hand dealt again with ``dealt`` hands (masks) and its actions replayed, the
        other seats' passes replaced by ``passes``; from the snapshot before the deal."""
        n = self.n
        first = (self.dealer + 1) % n
        order: list[int] = [0] * (n * CARDS_EACH[n])
        for p in range(n):
            cs = cards_of(dealt[p])
            rng.shuffle(cs)
            order[(p - first) % n::n] = cs
        deck = order + list(REMOVED[n])
        h = len(self.finished_hands)
        new = cast("HeartsState", self._snaps[h]._clone())
        new._snaps = self._snaps[:h]
        new.start_hand(deck)
        for p, a in self.actions:
            if a.kind == "pass" and p != seat:
                a = pass_cards(cards_of(passes[p]))
            new.apply(a, p)
        return new

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
