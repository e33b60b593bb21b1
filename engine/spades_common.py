"""What the two Spades games share: trick play with a trump, contract and Nil scoring, bags.

Both ``spades-2p`` and ``partnership-spades`` (RULES.md) play 13 tricks with a fixed trump that
may not be led until broken, score contracts as 10 per trick bid plus one per overtrick (a
*bag*), score Nil/Double Nil/Blind Nil as a flat bonus or penalty, keep bags in their own
counter (each time it reaches 10: -100 and the counter drops by 10, the rest carries over;
never derived from the score, which is one of OpenSpiel's Spades bugs), and end when someone
reaches the target with the higher total winning and equal totals playing on.

Hands are kept as 52-bit masks (bit ``c`` set when card ``c`` is held, see masks.py): a suit
is then 13 bits at ``suit * 13``, and precomputed tables turn those 13 bits straight into the
shared ``PLAY`` actions or card ints. This keeps ``_legal``, ``_check`` and ``_apply`` free of
per-card loops, which is what the bots and the benchmark live on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from . import cards as C
from .actions import Action
from .base import GameState, trick_winner
from .masks import (
    ALL_CARDS,
    BIT,
    FULL_SUIT,
    SEAT_CARD,
    SEAT_PLAY,
    SUIT_MASK,
    SUIT_PLAYS,
    cards_of,
    mask_of,
    plays_of,
    suit_mask,
)

if TYPE_CHECKING:  # the compiler's native 64-bit int (mypyc reads it); never imported at run time
    from mypy_extensions import i64

__all__ = ["BIT", "FULL_SUIT", "SUIT_PLAYS", "cards_of", "mask_of", "plays_of", "suit_mask"]

# (seat,) shared; typed ``tuple[int, ...]``: mypyc unboxes a ``tuple[int]`` into a C struct and
# boxes a new tuple where it is stored (``on_turn``, every play)
SEATS: Final[tuple[tuple[int, ...], ...]] = tuple((s,) for s in range(8))
SHIFT: Final[tuple[int, ...]] = (0, 13, 26, 39)  # a suit's bits start at suit * 13
NOT_SUIT: Final[tuple[int, ...]] = tuple(ALL_CARDS & ~SUIT_MASK[s] for s in range(4))  # every card but a suit's

# ---------------------------------------------------------------------- scoring


def contract_score(bid: int, tricks: int) -> tuple[int, int]:
    """(points, bags) of a contract of ``bid`` tricks when ``tricks`` were taken toward it:
    made: 10 per trick bid plus 1 per overtrick (the overtricks are bags); failed: -10 per
    trick bid, no bags."""
    if tricks >= bid:
        return 10 * bid + tricks - bid, tricks - bid
    return -10 * bid, 0


def nil_score(tricks: int, value: int) -> int:
    """Nil (value 100) or Double/Blind Nil (200): +value when no trick was taken, else -value."""
    return value if tricks == 0 else -value


def add_bags(counter: int, new: int) -> tuple[int, int]:
    """(new counter, penalty): the bag counter after ``new`` bags; each time it reaches 10 it
    costs 100 points and drops by 10, the rest carrying over (Bonnie's 3 + 3 + 5 = 11 bags:
    -100 once, 1 carries)."""
    counter += new
    penalty = 0
    while counter >= 10:
        counter -= 10
        penalty -= 100
    return counter, penalty


def higher_total_wins(side_totals: Sequence[int], target: int) -> tuple[bool, list[int]]:
    """(over, winning sides): after a hand in which some side reached ``target``, the higher
    total wins; equal highest totals play another hand."""
    if max(side_totals) < target:
        return False, []
    top = max(side_totals)
    best = [i for i, t in enumerate(side_totals) if t == top]
    if len(best) > 1:
        return False, []
    return True, best


# ---------------------------------------------------------------------- trick play


_ACTION: Final = Action  # a static in the compiled build (a module global is a dict lookup there)

class SpadesTrickState(GameState):
    """Trick play shared by both Spades games: follow suit, a fixed trump that is not led until
    broken, and (partnership-spades) the seed's optional duty to beat.

    A subclass sets ``self.trump`` (a suit), ``self.must_beat`` and ``self.masks`` (one hand
    mask per seat), then calls ``_start_play(leader)``; when the last trick is taken
    ``_score_hand()`` is called.

    The trick in progress is tracked incrementally: ``led`` (suit), ``win_seat`` and
    ``win_card`` (the card now winning), so legality and the winner never rescan the trick.
    """

    HAND_SIZE: ClassVar[int] = 13
    NEXT_SEAT: ClassVar[tuple[tuple[int, ...], ...]] = ()  # NEXT_SEAT[s] == (s + 1 mod n,): set by each game
    trump: int = C.SPADES
    must_beat: bool = False

    def _reset_trick_play(self) -> None:
        self.masks: list[int] = [0] * self.n
        self.trick: list[tuple[int, int]] = []
        self.tricks: list[tuple[tuple[int, int], ...]] = []  # finished tricks, in order
        self.tricks_taken: list[int] = [0] * self.n
        self.led: int = -1
        self.win_card: int = -1
        self.broken: bool = False
        self.on_turn: tuple[int, ...] = ()

    def _start_play(self, leader: int) -> None:
        self.phase = "play"
        self.on_turn = SEATS[leader]

    # ``leader``, ``win_seat`` and ``played`` are worked out when read (the bots and the
    # views read them), not kept as fields: fewer fields, and a play writes less (see
    # GameState.bags for why the count of fields matters).
    @property
    def leader(self) -> int:
        """The seat that led the trick in progress, or leads the next one; -1 outside play."""
        if self.trick:
            return self.trick[0][0]
        t = self.on_turn
        return t[0] if t and self.phase == "play" else -1

    @property
    def win_seat(self) -> int:
        """The seat whose card (``win_card``) is winning the trick in progress; -1 if none."""
        w = self.win_card
        for seat, card in self.trick:
            if card == w:
                return seat
        return -1

    @property
    def played(self) -> int:
        """The mask of every card played this hand (public)."""
        m = 0
        for t in self.tricks:
            for _, c in t:
                m |= BIT[c]
        for _, c in self.trick:
            m |= BIT[c]
        return m

    def _score_hand(self) -> None:
        raise NotImplementedError

    # -- fast paths of the verbs for the play phase ---------------------------
    # Plays are ~90% of all actions; these skip the generic checks of GameState when the
    # answer is plainly the same (the seat on turn playing a card) and defer to it otherwise,
    # so errors and edge cases behave exactly as in the base class.
    def turn_seats(self) -> tuple[int, ...]:
        return self.on_turn  # () between hands and after the game

    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        if self.phase == "play":
            on = self.on_turn[0]
            if seat is None or (seat == on and type(seat) is int):
                if self.must_beat:
                    return self._play_legal(on)
                # _play_legal without the duty to beat, written out: following suit returns
                # the shared tuple of the suit's plays (no allocation). The mask and the
                # suit's bits are native 64-bit ints in the compiled build (``i64``: plain C
                # arithmetic, about a third of the machine code of mypyc's tagged ints).
                m: i64 = self.masks[on]
                if self.trick:
                    led: i64 = self.led
                    bits: i64 = m >> (led * 13) & 0x1FFF
                    if bits:
                        return SUIT_PLAYS[led][bits]
                    return plays_of(m)
                if not self.broken:
                    rest: i64 = m & NOT_SUIT[self.trump]
                    if rest:
                        return plays_of(rest)
                return plays_of(m)
        elif len(self.on_turn) == 1:  # bids, draws: the one seat on turn, straight to the hook
            on = self.on_turn[0]
            if seat is None or (seat == on and type(seat) is int):
                return self._legal(on)
        return super().legal_actions(seat)

    def apply(self, action: Action, seat: int | None = None) -> tuple[int, ...]:
        if type(action) is _ACTION and action[0] == "play" and self.phase == "play":
            on = self.on_turn[0]
            value = action[1]
            if (seat is None or (seat == on and type(seat) is int)) and type(value) is int and 0 <= value < 52:
                # card, mask, suits and the winning card as native 64-bit ints in the compiled
                # build (``i64``): one unboxing of the card, plain C arithmetic after it. No
                # left shift of a literal: mypyc writes ``1 << card`` as C's 32-bit int shift
                # (wrong from bit 31 on); the 64-bit masks come from the tables (BIT, NOT_SUIT).
                card: i64 = value
                m: i64 = self.masks[on]
                if m >> card & 1:
                    # the plain cases inline (follow suit, broken trumps); the duty to beat
                    # through _play_check; anything refused goes to the base class for its reason
                    s: i64 = card // 13
                    trump: i64 = self.trump
                    trick = self.trick
                    if trick:
                        led: i64 = self.led
                        ok = s == led or not m >> (led * 13) & 0x1FFF
                        if ok and self.must_beat:
                            ok = self._play_check(on, value) is None
                    else:
                        ok = s != trump or self.broken or not m & NOT_SUIT[trump]
                    if ok:
                        self.actions.append(SEAT_PLAY[on][card])  # (on, action), shared
                        # _play_apply written out
                        self.masks[on] = m ^ BIT[card]  # a table: mypyc's i64 ``1 << card`` is a C int shift
                        if not trick:
                            self.led = s
                            self.win_card = card
                            if s == trump:
                                self.broken = True
                        else:
                            w: i64 = self.win_card
                            if s == trump:
                                self.broken = True
                                if w // 13 != s or card > w:
                                    self.win_card = card
                            elif card > w and s == w // 13:
                                self.win_card = card
                        trick.append(SEAT_CARD[on][card])  # (on, card), shared
                        n = self.n
                        if len(trick) < n:
                            t = self.on_turn = SEATS[on + 1 if on + 1 < n else 0]
                            return t
                        self._end_played_trick(trick)
                        return self.on_turn
        elif type(action) is _ACTION and len(self.on_turn) == 1 and self.phase != "play":
            # bids, draws and the like by the one seat on turn: the hooks without the generic
            # checks (a refusal goes to the base class for its reason)
            on = self.on_turn[0]
            if (seat is None or (seat == on and type(seat) is int)) and self._check(on, action) is None:
                self.actions.append((on, action))
                self._apply(on, action)
                return self.on_turn
        return super().apply(action, seat)

    def _end_played_trick(self, trick: list[tuple[int, int]]) -> None:
        """The trick just completed by ``apply``'s fast path: _end_trick written out (its own
        method, so that the three plays of four that do not end a trick run less code)."""
        w = self.win_card
        winner = -1
        for p, c in trick:  # the seat of the winning card
            if c == w:
                winner = p
                break
        self.tricks_taken[winner] += 1
        tricks = self.tricks
        tricks.append(tuple(trick))
        self.trick = []
        if len(tricks) == self.HAND_SIZE:
            self.on_turn = ()
            self._score_hand()
        else:
            self.on_turn = SEATS[winner]

    # -- legality ---------------------------------------------------------
    def _play_legal(self, seat: int) -> list[Action]:
        m = self.masks[seat]
        trump = self.trump
        if not self.trick:
            if not self.broken:
                rest = m & ~(FULL_SUIT << (trump * 13))
                if rest:
                    return plays_of(rest)
            return plays_of(m)
        led = self.led
        bits = (m >> (led * 13)) & FULL_SUIT
        w = self.win_card
        if bits:
            if self.must_beat and w // 13 == led:  # not trumped (or trumps were led)
                r = w - led * 13 + 1
                hi = bits >> r << r
                if hi:
                    return list(SUIT_PLAYS[led][hi])
            return list(SUIT_PLAYS[led][bits])
        if self.must_beat:
            tb = (m >> (trump * 13)) & FULL_SUIT
            if tb:
                if w // 13 == trump:
                    r = w - trump * 13 + 1
                    hi = tb >> r << r
                    if hi:
                        return list(SUIT_PLAYS[trump][hi])
                return list(SUIT_PLAYS[trump][tb])
        return plays_of(m)

    def _play_check(self, seat: int, card: Any) -> str | None:
        if type(card) is not int or not 0 <= card < 52:
            return f"not a card: {card!r}"
        m = self.masks[seat]
        if not m >> card & 1:
            return f"you do not hold {C.NAMES[card]}"
        s = card // 13
        trump = self.trump
        if not self.trick:
            if s == trump and not self.broken and m & ~(FULL_SUIT << (trump * 13)):
                return f"{C.SUIT_NAMES[trump]} are not broken"
            return None
        led = self.led
        bits = (m >> (led * 13)) & FULL_SUIT
        w = self.win_card
        if bits:
            if s != led:
                return f"must follow {C.SUIT_NAMES[led]}"
            if self.must_beat and w // 13 == led and card < w and bits >> (w - led * 13 + 1):
                return f"must beat the {C.NAMES[w]}"
            return None
        if self.must_beat:
            tb = (m >> (trump * 13)) & FULL_SUIT
            if tb:
                if s != trump:
                    return "must trump"
                if w // 13 == trump and card < w and tb >> (w - trump * 13 + 1):
                    return f"must over-trump the {C.NAMES[w]}"
        return None

    # -- taking a play ----------------------------------------------------
    def _play_apply(self, seat: int, card: int) -> None:
        self.masks[seat] ^= BIT[card]
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
        trick.append((seat, card))
        if len(trick) < self.n:
            self.on_turn = self.NEXT_SEAT[seat]
        else:
            self._end_trick()

    def _end_trick(self) -> None:
        winner = self.win_seat
        self.tricks_taken[winner] += 1
        self.tricks.append(tuple(self.trick))
        self.trick = []  # led and win_card are only read while a trick is open
        if len(self.tricks) == self.HAND_SIZE:
            self.on_turn = ()
            self._score_hand()
        else:
            self.on_turn = SEATS[winner]

    # -- views --------------------------------------------------------------
    def _hand_of(self, seat: int) -> list[int]:
        return cards_of(self.masks[seat])

    def _locations(self) -> dict[str, list[int]]:
        out = {f"hand{s}": cards_of(m) for s, m in enumerate(self.masks)}
        out["trick"] = [c for _, c in self.trick]
        out["taken"] = [c for t in self.tricks for _, c in t]
        return out

    def _trick_public(self) -> dict[str, Any]:
        last = self.tricks[-1] if self.tricks else ()
        return {
            "trump": C.SUITS[self.trump],
            "broken": self.broken,
            "trick": [[s, C.NAMES[c]] for s, c in self.trick],
            "trick_winning": self.win_seat if self.trick else None,  # tracked as the cards are played
            "leader": self.leader if self.phase == "play" else None,
            "tricks_taken": self.tricks_taken[:],
            "last_trick": [[s, C.NAMES[c]] for s, c in last],
            "last_trick_winner": (self._last_winner() if last else None),
            "hand_sizes": [m.bit_count() for m in self.masks],
            "played": C.names(cards_of(self.played)),
        }

    def trick_log(self) -> list[dict[str, Any]]:
        """GameState.trick_log: the finished tricks with their winners, then the trick in progress."""
        out: list[dict[str, Any]] = []
        for trick in self.tricks:
            out.append({"leader": trick[0][0], "cards": [[s, C.NAMES[c]] for s, c in trick],
                        "winner": trick_winner(trick, self.trump), "done": True})
        if self.trick and self.phase == "play":
            out.append({"leader": self.trick[0][0], "cards": [[s, C.NAMES[c]] for s, c in self.trick],
                        "winner": None, "done": False})
        return out

    def _last_winner(self) -> int:
        return trick_winner(self.tricks[-1], self.trump)

    def _turn(self) -> tuple[int, ...]:
        return self.on_turn

    def _game_end_sides(self, side_totals: Sequence[int]) -> tuple[bool, list[int]]:
        return higher_total_wins(side_totals, self.options["target"])


def wrong_kind(phase: str, kind: str) -> str:
    """The reason for an action of the wrong kind in ``phase``."""
    wanted = {
        "draw": "keep or discard the shown card",
        "exchange": "exchange up to 3 cards with the discard pile",
        "bid": "bid 0 (Nil) to 13",
        "pass": "pass 2 cards to your partner",
        "play": "play a card",
    }.get(phase, "wait")
    return f"it is not the time to {kind.replace('_', ' ')}: now {wanted}"
