"""spades-2p (seed 000): two-player Spades with a draw instead of a deal (RULES.md).

A hand runs through these phases:

``draw``
    26 turns, first player (left of the dealer, seat ``dealer + 1``) first, then alternating
    with the second player (the dealer). On a turn the seat on turn sees the top stock card
    (its ``view`` shows it as ``"shown"``; the public view never does) and keeps it, the next
    card then being shown to it only and discarded, or discards it and must keep the next one.
    A seat may declare Double Nil (``double_nil`` action) on its first draw turn, before its
    first keep/discard; it stays on turn.
``exchange``
    Only when someone declared Double Nil: each such seat (first player first) takes one
    ``exchange`` action ``(give, get)``: up to 3 cards given, as many taken from the 26-card
    discard pile. The engine never draws randomness: the referee picks ``get`` at random from
    the discard pile and sends it in the action. ``_check`` accepts any ``get`` of
    ``len(give)`` distinct cards lying in the discard pile (before the given cards join it).
    ``legal_actions`` lists each ``give`` (0..3 cards) once, with the canonical ``get``: the
    first ``k`` cards of the discard pile in discard order; any other ``get`` of ``k`` discard
    cards is equally legal. The opponent learns only how many cards were exchanged.
``bid``
    One round, second player first (option ``first_bidder``); a Double Nil seat's turn is
    skipped (its bid is fixed at 0, Double Nil).
``play``
    The second player leads trick 1; follow suit; spades trump and are not led until broken.

Private knowledge (``view(seat)``): ``shown``, the card the seat on turn is looking at during
the draw; ``known_discards``, the discard-pile cards this seat saw go there (its own
discards, the cards shown to it after a keep, its Double Nil give-aways); ``exchange``, its
own give/get.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, ClassVar, Final

from . import cards as C
from .actions import BIDS, DISCARD, DOUBLE_NIL, KEEP, Action
from .spades_common import (
    SEATS,
    SpadesTrickState,
    add_bags,
    cards_of,
    contract_score,
    mask_of,
    nil_score,
    wrong_kind,
)
from .worlds import sample_spades_2p

_DRAW_FIRST: Final = [KEEP, DISCARD, DOUBLE_NIL]
_DRAW: Final = [KEEP, DISCARD]


def score_hand(
    bids: Sequence[int], double: Sequence[bool], tricks: Sequence[int], bags: Sequence[int],
    failed_nil_tricks_are_bags: bool,
) -> tuple[list[int], list[int]]:
    """(points, bag counters after the hand) per player: a bid made or failed
    (``contract_score``), Nil or Double Nil (``nil_score``), bags added with their penalty.
    A module function so the score sheet (engine/scorekeeper.py) scores with this same code."""
    points = [0] * len(bids)
    out_bags = list(bags)
    for s, bid in enumerate(bids):
        t = tricks[s]
        new_bags = 0
        if bid == 0:
            p = nil_score(t, 200 if double[s] else 100)
            if t and failed_nil_tricks_are_bags:
                p += t
                new_bags = t
        else:
            p, new_bags = contract_score(bid, t)
        out_bags[s], penalty = add_bags(out_bags[s], new_bags)
        points[s] = p + penalty
    return points, out_bags


class Spades2PState(SpadesTrickState):
    GAME_ID = "spades-2p"
    TITLE = "Two-player Spades"
    PLAYER_COUNTS = (2,)
    DECKS = 1
    HAS_BAGS = True
    DOUBLE_NIL_EXCHANGE = True
    NEXT_SEAT: ClassVar[tuple[tuple[int, ...], ...]] = tuple(SEATS[(s + 1) % 2] for s in range(2))
    TEAMS = False

    def __init__(
        self,
        players: int = 2,
        options: Mapping[str, Any] | None = None,
        first_dealer: int = 0,
        names: Sequence[str] | None = None,
        *,
        _blank: bool = False,
    ) -> None:
        super().__init__(players, options, first_dealer, names, _blank=_blank)

    # ------------------------------------------------------------------ hand set-up
    def _reset_hand(self) -> None:
        self.trump = C.SPADES
        self.must_beat = False
        self._reset_trick_play()
        self.pos: int = 0  # next stock card (index into self.deck)
        self.discards: list[int] = []  # the discard pile in the order cards joined it
        self.seen: list[int] = [0, 0]  # mask of discard-pile cards each seat saw go there
        self.double: list[bool] = [False, False]
        self.exchanged: list[int] = [-1, -1]  # how many cards each seat exchanged (-1: none)
        self.exchange_log: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((), ()), ((), ())]
        self.bids: list[int] = [-1, -1]
        self.bid_order: list[int] = []

    @property
    def first_player(self) -> int:
        return (self.dealer + 1) % 2

    @property
    def second_player(self) -> int:
        return self.dealer

    def _deal(self) -> None:
        self.phase = "draw"
        self.on_turn = SEATS[self.first_player]

    # ------------------------------------------------------------------ legality
    def _legal(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == "play":
            return self._play_legal(seat)
        if phase == "draw":
            if self.pos < 4 and not self.double[seat] and self.pos // 2 == (seat != self.first_player):
                return _DRAW_FIRST[:]
            return _DRAW[:]
        if phase == "bid":
            return list(BIDS)
        if phase == "exchange":
            hand = self._hand_of(seat)
            out: list[Action] = []
            for k in range(4):
                get = tuple(sorted(self.discards[:k]))
                for give in combinations(hand, k):
                    out.append(Action("exchange", (give, get)))
            return out
        return []

    def _check(self, seat: int, action: Action) -> str | None:
        kind, value = action
        phase = self.phase
        if kind != phase and not (kind == "double_nil" and phase == "draw"):
            return wrong_kind(phase, kind)
        if kind == "play":
            return self._play_check(seat, value)
        if kind == "draw":
            if value != "keep" and value != "discard":
                return f"a draw is \"keep\" or \"discard\", not {value!r}"
            return None
        if kind == "double_nil":
            if value is not True:
                return f"a Double Nil declaration is true, not {value!r}"
            if self.double[seat]:
                return "Double Nil is already declared"
            if self.pos // 2 != (seat != self.first_player):
                return "Double Nil must be declared before your first draw decision"
            return None
        if kind == "bid":
            if type(value) is not int or not 0 <= value <= 13:
                return "a bid is 0 to 13"
            return None
        return self._check_exchange(seat, value)

    def _check_exchange(self, seat: int, value: Any) -> str | None:
        if not (isinstance(value, tuple) and len(value) == 2):
            return "an exchange is a pair of card lists: (give, get)"
        give, get = value
        if not isinstance(give, tuple) or not isinstance(get, tuple):
            return "an exchange is a pair of sorted card tuples: (give, get)"
        if len(give) > 3:
            return "you may exchange at most 3 cards"
        if len(get) != len(give):
            return f"you get as many cards as you give ({len(give)}), not {len(get)}"
        for group in (give, get):
            for c in group:
                if type(c) is not int or not 0 <= c < 52:
                    return f"not a card: {c!r}"
            if len(set(group)) != len(group):
                return "the same card twice in an exchange"
            if list(group) != sorted(group):
                return "give and get are sorted tuples of cards (see actions.exchange)"
        m = self.masks[seat]
        for c in give:
            if not m >> c & 1:
                return f"you do not hold {C.NAMES[c]}"
        pile = set(self.discards)
        for c in get:
            if c not in pile:
                return f"{C.NAMES[c]} is not in the discard pile"
        return None

    # ------------------------------------------------------------------ taking actions
    def _apply(self, seat: int, action: Action) -> None:
        kind, value = action
        if kind == "play":
            self._play_apply(seat, value)
        elif kind == "draw":
            deck, pos = self.deck, self.pos
            top, nxt = deck[pos], deck[pos + 1]
            kept, dropped = (top, nxt) if value == "keep" else (nxt, top)
            self.masks[seat] |= 1 << kept
            self.discards.append(dropped)
            self.seen[seat] |= 1 << dropped
            self.pos = pos + 2
            if self.pos < 52:
                self.on_turn = SEATS[1 - seat]
            else:
                self._after_draw()
        elif kind == "double_nil":
            self.double[seat] = True
        elif kind == "bid":
            self.bids[seat] = value
            self._next_bidder()
        else:
            give, get = value
            self.masks[seat] ^= mask_of(give) ^ mask_of(get)
            for c in get:
                self.discards.remove(c)
            self.discards.extend(sorted(give))
            self.seen[seat] |= mask_of(give)
            self.exchanged[seat] = len(give)
            self.exchange_log[seat] = (tuple(sorted(give)), tuple(sorted(get)))
            self._next_exchanger()

    def _after_draw(self) -> None:
        self.phase = "exchange"
        self._next_exchanger()

    def _next_exchanger(self) -> None:
        for s in (self.first_player, self.second_player):
            if self.double[s] and self.exchanged[s] < 0:
                self.on_turn = SEATS[s]
                return
        order = [self.second_player, self.first_player]
        if self.options["first_bidder"] == "first":
            order.reverse()
        for s in order:
            if self.double[s]:
                self.bids[s] = 0
        self.bid_order = [s for s in order if not self.double[s]]
        self.phase = "bid"
        self._next_bidder()

    def _next_bidder(self) -> None:
        for s in self.bid_order:
            if self.bids[s] < 0:
                self.on_turn = SEATS[s]
                return
        self._start_play(self.second_player)

    def _score_hand(self) -> None:
        bags = self.bags
        assert bags is not None
        points, bags[:] = score_hand(self.bids, self.double, self.tricks_taken, bags,
                                     self.options["failed_nil_tricks_are_bags"])
        self._end_hand(points)

    def _game_end(self) -> tuple[bool, list[int]]:
        return self._game_end_sides(self.totals)

    # ------------------------------------------------------------------ views
    def card_locations(self) -> dict[str, list[int]] | None:
        if self.phase == "deal":
            return None
        out = self._locations()
        out["stock"] = self.deck[self.pos:]
        out["discards"] = self.discards[:]
        return out

    def _hand_figures(self) -> dict[str, Any]:
        return {"bids": [None if b < 0 else b for b in self.bids], "double_nil": self.double[:],
                "tricks_taken": self.tricks_taken[:]}

    def _public_extra(self) -> dict[str, Any]:
        v = self._trick_public()
        v.update({
            "first_player": self.first_player,
            "second_player": self.second_player,
            "stock_left": 52 - self.pos,
            "discard_count": len(self.discards),
            "double_nil": self.double[:],
            "exchanged": [None if x < 0 else x for x in self.exchanged],
            "bids": [None if b < 0 else b for b in self.bids],
            "taken_bid": [
                f"{self.tricks_taken[s]}/{'-' if self.bids[s] < 0 else self.bids[s]}" for s in range(2)
            ],
        })
        return v

    def _private_extra(self, seat: int) -> dict[str, Any]:
        v: dict[str, Any] = {
            "known_discards": C.names(C.sorted_hand(cards_of(self.seen[seat] & ~self.masks[seat]))),
        }
        if self.phase == "draw" and self.on_turn == SEATS[seat]:
            v["shown"] = C.NAMES[self.deck[self.pos]]
        if self.exchanged[seat] >= 0:
            give, get = self.exchange_log[seat]
            v["exchange"] = {"give": C.names(give), "get": C.names(get)}
        return v

    # ------------------------------------------------------------------ determinization
    def sample_world(self, seat: int, rng: random.Random) -> Spades2PState:
        """A full state ``seat`` cannot tell from this one (engine/worlds.py)."""
        return sample_spades_2p(self, seat, rng)
