"""partnership-spades (seed 003): four players, partners opposite (0+2 v 1+3), clubs trump by
default (RULES.md).

Phases of a hand:

``bid``
    13 cards each are dealt one at a time from the dealer's left. One round of bids, starting
    left of the dealer, 0 (Nil) to 13 (option ``cap_team_bid_at_13``: partners' bids may not
    add up to more than 13). **Blind Nil** is offered at a seat's own bidding turn, as the
    ``blind_nil`` action instead of a bid, when that seat's team trails the other team by more
    than ``blind_nil_margin`` points and its partner has not declared Blind Nil this hand (at
    most one per team). The rule says "before looking at their cards": the engine cannot see
    eyes, so ``view(seat)`` carries ``"blind_nil_offer": true`` while the seat may still declare
    it, and the kiosk keeps that seat's hand hidden until the seat declares Blind Nil or chooses
    to look (which gives the offer up on the kiosk's side; the engine keeps accepting Blind Nil
    until the seat has bid).
``pass``
    Only after a Blind Nil: the Blind Nil player passes 2 cards to the partner, then the
    partner passes 2 back (each ``pass`` is a sorted pair). Neither sees the other's cards
    before giving: the Blind Nil player's cards reach the partner only once the partner has
    passed. With a Blind Nil in both teams, the two teams pass at the same time.
``play``
    The dealer leads (option ``first_lead``: ``left``); trump is clubs (option ``trump``:
    spades), not led until broken; follow suit; option ``must_beat`` (default on) adds the
    seed's duty to head the trick or trump/over-trump (see ``spades_common``).

Totals and bag counters are kept per seat; both partners always show their team's figures.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, ClassVar, Final

from . import cards as C
from .actions import BIDS, BLIND_NIL, Action
from .base import COMPILED
from .masks import deal_masks
from .spades_common import (
    SEATS,
    SpadesTrickState,
    add_bags,
    cards_of,
    contract_score,
    higher_total_wins,
    mask_of,
    nil_score,
    wrong_kind,
)
from .worlds import sample_partnership_spades

_TRUMPS: Final = {"clubs": C.CLUBS, "spades": C.SPADES}
# One shared Blind Nil pass Action per sorted pair of cards (the 78 passes of a hand are
# listed from it without building an Action each).
_PASS_PAIR: Final[dict[tuple[int, ...], Action]] = {p: Action("pass", p) for p in combinations(range(52), 2)}
# _PASS_FLAT[a * 52 + b]: the same shared Action for the cards a < b (None elsewhere): a list
# index per pass instead of a dict lookup keyed by a new tuple (the compiled build's loop)
_PASS_FLAT: Final[tuple[Action | None, ...]] = tuple(_PASS_PAIR.get((i // 52, i % 52)) for i in range(52 * 52))
# The bids up to each highest bid, without and with Blind Nil (for legal_actions).
BIDS_UPTO: Final[tuple[tuple[Action, ...], ...]] = tuple(BIDS[: top + 1] for top in range(14))
BIDS_BLIND: Final[tuple[tuple[Action, ...], ...]] = tuple((*BIDS[: top + 1], BLIND_NIL) for top in range(14))


# ---------------------------------------------------------------------- scoring
# Module functions, so the score sheet (engine/scorekeeper.py) scores with this same code.


def trails_enough(totals: Sequence[int], seat: int, margin: int) -> bool:
    """True when ``seat``'s team trails the other by more than ``margin`` (Blind Nil allowed)."""
    return totals[(seat + 1) % 4] - totals[seat] > margin


def score_hand(
    bids: Sequence[int], blind: Sequence[bool], taken: Sequence[int], bags: Sequence[int],
    opts: Mapping[str, Any],
) -> tuple[list[int], list[int]]:
    """(points, bag counters after the hand) per seat, partners sharing their team's figures:
    each Nil/Blind Nil scored alone, the team contract (sum of non-Nil bids) on the bidders'
    tricks (and the Nil bidder's with ``nil_tricks_count_for_partner``), bags per team."""
    out_bags = list(bags)
    points = [0, 0, 0, 0]
    nil_for_partner = opts["nil_tricks_count_for_partner"]
    failed_nil_bags = opts["failed_nil_tricks_are_bags"]
    for team in (0, 1):
        pts = 0
        new_bags = 0
        contract = counted = nil_taken = 0
        bidders = False
        for s in (team, team + 2):  # without generators: this runs at every hand's end
            b = bids[s]
            if b == 0:
                pts += nil_score(taken[s], 200 if blind[s] else 100)
                nil_taken += taken[s]
            elif b > 0:
                bidders = True
                contract += b
                counted += taken[s]
        nil_counted = bidders and nil_for_partner
        if bidders:
            if nil_counted:
                counted += nil_taken
            p, made_bags = contract_score(contract, counted)
            pts += p
            new_bags += made_bags
        if failed_nil_bags and not nil_counted:
            pts += nil_taken
            new_bags += nil_taken
        out_bags[team], penalty = add_bags(out_bags[team], new_bags)
        out_bags[team + 2] = out_bags[team]
        points[team] = points[team + 2] = pts + penalty
    return points, out_bags


def game_end(totals: Sequence[int], opts: Mapping[str, Any]) -> tuple[bool, list[int]]:
    """(over, winning seats) after a hand: a team at or below ``loss_floor`` loses at once
    (both below: the higher wins, equal plays on); else the higher total once the target is
    reached, equal totals playing on."""
    a, b = totals[0], totals[1]
    floor = opts["loss_floor"]
    if floor is not None:
        low_a, low_b = a <= floor, b <= floor
        if low_a != low_b:
            return True, [1, 3] if low_a else [0, 2]
        if low_a and low_b:
            if a == b:
                return False, []
            return True, [0, 2] if a > b else [1, 3]
    over, sides = higher_total_wins([a, b], opts["target"])
    if not over:
        return False, []
    return True, [sides[0], sides[0] + 2]

class PartnershipSpadesState(SpadesTrickState):
    GAME_ID = "partnership-spades"
    TITLE = "Partnership Spades"
    PLAYER_COUNTS = (4,)
    DECKS = 1
    HAS_BAGS = True
    NEXT_SEAT: ClassVar[tuple[tuple[int, ...], ...]] = tuple(SEATS[(s + 1) % 4] for s in range(4))
    TEAMS = True

    def __init__(
        self,
        players: int = 4,
        options: Mapping[str, Any] | None = None,
        first_dealer: int = 0,
        names: Sequence[str] | None = None,
        *,
        _blank: bool = False,
    ) -> None:
        super().__init__(players, options, first_dealer, names, _blank=_blank)

    # ------------------------------------------------------------------ hand set-up
    def _reset_hand(self) -> None:
        self.trump = _TRUMPS[self.options["trump"]]
        self.must_beat = self.options["must_beat"]
        self._reset_trick_play()
        self.bids: list[int] = [-1] * 4
        self.blind: list[bool] = [False] * 4
        self.passes: list[tuple[int, ...] | None] = [None] * 4  # each seat's Blind Nil pass

    @property
    def received(self) -> list[tuple[int, ...] | None]:
        """What each seat received in the Blind Nil passes: its partner's pass, once both
        have passed (worked out when read, not a field: see GameState.bags)."""
        p = self.passes
        return [p[(s + 2) % 4] if p[s] is not None and p[(s + 2) % 4] is not None else None for s in range(4)]

    def _deal(self) -> None:
        self.masks = deal_masks(self.deck, 4, (self.dealer + 1) % 4)  # the k-th card to seat dealer + 1 + k
        self.phase = "bid"
        self.on_turn = SEATS[(self.dealer + 1) % 4]

    def blind_nil_allowed(self, seat: int) -> bool:
        """True when ``seat`` may still declare Blind Nil: bidding, not yet bid, its team trails
        by more than ``blind_nil_margin`` and its partner has not declared Blind Nil."""
        return (
            self.phase == "bid"
            and self.bids[seat] < 0
            and not self.blind[(seat + 2) % 4]
            and trails_enough(self.totals, seat, self.options["blind_nil_margin"])
        )

    def _max_bid(self, seat: int) -> int:
        if self.options["cap_team_bid_at_13"]:
            partner = self.bids[(seat + 2) % 4]
            if partner > 0:
                return 13 - partner
        return 13

    # ------------------------------------------------------------------ legality
    def _legal(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == "play":
            return self._play_legal(seat)
        if phase == "bid":  # 0 to the highest bid allowed (then Blind Nil), as a list
            top = self._max_bid(seat)
            return list(BIDS_BLIND[top] if self.blind_nil_allowed(seat) else BIDS_UPTO[top])
        if phase == "pass":
            cards = cards_of(self.masks[seat])
            if COMPILED:  # a native double loop over the sorted cards: combinations' order
                out: list[Action] = []
                k = len(cards)
                for i in range(k):
                    a = cards[i] * 52
                    for j in range(i + 1, k):
                        got = _PASS_FLAT[a + cards[j]]
                        assert got is not None
                        out.append(got)
                return out
            return list(map(_PASS_PAIR.__getitem__, combinations(cards, 2)))
        return []

    def _check(self, seat: int, action: Action) -> str | None:
        kind, value = action
        phase = self.phase
        if kind != phase and not (kind == "blind_nil" and phase == "bid"):
            return wrong_kind(phase, kind)
        if kind == "play":
            return self._play_check(seat, value)
        if kind == "bid":
            if type(value) is not int or not 0 <= value <= 13:
                return "a bid is 0 to 13"
            top = self._max_bid(seat)
            if value > top:
                return f"the team's bids may not add up to more than 13 (at most {top})"
            return None
        if kind == "blind_nil":
            if value is not True:
                return f"a Blind Nil declaration is true, not {value!r}"
            if self.blind[(seat + 2) % 4]:
                return "at most one Blind Nil per team"
            if not self.blind_nil_allowed(seat):
                margin = self.options["blind_nil_margin"]
                return f"Blind Nil needs the team to trail by more than {margin} points"
            return None
        # pass
        if not isinstance(value, tuple) or len(value) != 2:
            return "pass exactly 2 cards"
        a, b = value
        for c in value:
            if type(c) is not int or not 0 <= c < 52:
                return f"not a card: {c!r}"
        if a == b:
            return "pass two different cards"
        if a > b:
            return "a pass is a sorted pair of cards (see actions.pass_cards)"
        m = self.masks[seat]
        for c in value:
            if not m >> c & 1:
                return f"you do not hold {C.NAMES[c]}"
        return None

    # ------------------------------------------------------------------ taking actions
    def _apply(self, seat: int, action: Action) -> None:
        kind, value = action
        if kind == "play":
            self._play_apply(seat, value)
        elif kind == "bid" or kind == "blind_nil":
            if kind == "blind_nil":
                self.blind[seat] = True
                self.bids[seat] = 0
            else:
                self.bids[seat] = value
            if -1 in self.bids:  # someone has still to bid
                self.on_turn = SEATS[(seat + 1) % 4]
            elif any(self.blind):
                self.phase = "pass"
                self._pass_turn()
            else:
                self._begin_play()
        else:
            self.passes[seat] = value
            self.masks[seat] &= ~mask_of(value)
            partner = (seat + 2) % 4
            got = self.passes[partner]
            if got is not None:
                self.masks[seat] |= mask_of(got)
                self.masks[partner] |= mask_of(value)
            self._pass_turn()

    def _pass_turn(self) -> None:
        waiting: list[int] = []
        for b in range(4):
            if self.blind[b]:
                if self.passes[b] is None:
                    waiting.append(b)
                elif self.passes[(b + 2) % 4] is None:
                    waiting.append((b + 2) % 4)
        if waiting:
            self.on_turn = tuple(sorted(waiting))
        else:
            self._begin_play()

    def _begin_play(self) -> None:
        lead = self.dealer if self.options["first_lead"] == "dealer" else (self.dealer + 1) % 4
        self._start_play(lead)

    # ------------------------------------------------------------------ scoring
    def team_contract(self, team: int) -> int:
        """The sum of the team's non-Nil bids (bids not yet made count 0)."""
        return sum(b for b in (self.bids[team], self.bids[team + 2]) if b > 0)

    def _score_hand(self) -> None:
        bags = self.bags
        assert bags is not None
        points, bags[:] = score_hand(self.bids, self.blind, self.tricks_taken, bags, self.options)
        self._end_hand(points)

    def _game_end(self) -> tuple[bool, list[int]]:
        return game_end(self.totals, self.options)

    # ------------------------------------------------------------------ views
    def card_locations(self) -> dict[str, list[int]] | None:
        """Hands, trick and taken cards; "passing": Blind Nil pass cards given but not yet
        received (the partner has not passed back yet)."""
        if self.phase == "deal":
            return None
        out = self._locations()
        out["passing"] = [
            c for s in range(4) if self.passes[s] is not None and self.received[s] is None
            for c in self.passes[s] or ()
        ]
        return out

    def _hand_figures(self) -> dict[str, Any]:
        return {"bids": [None if b < 0 else b for b in self.bids], "blind_nil": self.blind[:],
                "tricks_taken": self.tricks_taken[:]}

    def _public_extra(self) -> dict[str, Any]:
        v = self._trick_public()
        v.update({
            "bids": [None if b < 0 else b for b in self.bids],
            "blind_nil": self.blind[:],
            "contracts": [self.team_contract(0), self.team_contract(1)],
            "taken_bid": [
                f"{self.tricks_taken[s]}/{'-' if self.bids[s] < 0 else self.bids[s]}" for s in range(4)
            ],
            "blind_nil_eligible": [s for s in range(4) if self.blind_nil_allowed(s)],
            "passed": [p is not None for p in self.passes],
        })
        return v

    def _private_extra(self, seat: int) -> dict[str, Any]:
        v: dict[str, Any] = {"blind_nil_offer": self.blind_nil_allowed(seat)}
        mine = self.passes[seat]
        if mine is not None:
            v["passed_cards"] = C.names(mine)
        got = self.received[seat]
        if got is not None:
            v["received_cards"] = C.names(got)
        return v

    # ------------------------------------------------------------------ determinization
    def sample_world(self, seat: int, rng: random.Random) -> PartnershipSpadesState:
        """A full state ``seat`` cannot tell from this one (engine/worlds.py)."""
        return sample_partnership_spades(self, seat, rng)
