"""German Whist (Honeymoon Whist), two players (seed 002, RULES.md "german-whist").

A hand has two stages of 13 tricks. The deal gives 13 cards each, one at a time, non-dealer
first, so deck positions 0, 2, .. 24 go to the non-dealer and 1, 3, .. 25 to the dealer. The
27th card (deck[26]) is turned up on the stock: its suit is trump for the whole hand.

Stage one: after each trick the winner takes the face-up stock card and the loser the next
card face down (only the loser ever sees it), then the next card is turned up. The 26 stock
cards are 13 pairs, so the stock runs out exactly with trick 13. Stage two: the winner of
trick 13 leads, no drawing; each player scores max(0, stage-two tricks - 6), or with option
``score_all_tricks`` max(0, all tricks - 13). The first player to reach ``target`` wins.

The stock is never copied: ``stock`` is the deck index of the face-up card (52 when empty),
so the face-down cards still in the stock are simply ``deck[stock + 1:]``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from . import cards as C
from .actions import PLAY, Action
from .base import GameState
from .worlds import sample_german_whist

_TURN: Final[tuple[tuple[int, ...], ...]] = ((0,), (1,))
_SUIT: Final = tuple(c // 13 for c in range(52))
_STOCK_START: Final = 26  # deck index of the first face-up card (the trump card)


# Scoring as module functions, so the score sheet (engine/scorekeeper.py) uses this same code.


def hand_points(tricks: Sequence[int], score_all_tricks: bool) -> list[int]:
    """Each player's points: stage-two tricks over 6, or (``score_all_tricks``) all 26
    tricks' count over 13; ``tricks`` is the count that option scores."""
    over = 13 if score_all_tricks else 6
    return [max(0, t - over) for t in tricks]


def game_end(totals: Sequence[int], target: int) -> tuple[bool, list[int]]:
    """First to the target wins; only one player scores per hand, but should totals ever be
    equal at or over the target, another hand is played."""
    if max(totals) < target or totals[0] == totals[1]:
        return False, []
    return True, [0 if totals[0] > totals[1] else 1]

class GermanWhistState(GameState):
    """A whole game of German Whist. Per-hand fields are plain lists and ints (cheap copies)."""

    GAME_ID = "german-whist"
    TITLE = "German Whist"
    PLAYER_COUNTS = (2,)
    DECKS = 1
    HAS_BAGS = False
    TEAMS = False

    def _reset_hand(self) -> None:
        self.hands: list[list[int]] = [[], []]
        self.trump: int = -1
        self.stock: int = 52  # deck index of the face-up stock card; 52: the stock is empty
        self.stage: int = 1
        self.leader: int = 0
        self.trick: list[tuple[int, int]] = []
        self.last_trick: list[tuple[int, int]] = []
        self.played: list[int] = []  # cards of completed tricks, in play order (public)
        self.tricks1: list[int] = [0, 0]  # tricks won in stage one, per seat
        self.tricks2: list[int] = [0, 0]  # tricks won in stage two, per seat
        self.upcards: list[list[int]] = [[], []]  # face-up stock cards each seat took (public)
        self.drawn: list[list[int]] = [[], []]  # face-down stock cards each seat took (private)

    def _deal(self) -> None:
        deck = self.deck
        nd = 1 - self.dealer
        self.hands[nd] = deck[0:26:2]
        self.hands[self.dealer] = deck[1:26:2]
        self.trump = deck[_STOCK_START] // 13
        self.stock = _STOCK_START
        self.leader = nd
        self.phase = "play"

    # ------------------------------------------------------------------ turn and legality
    def _turn(self) -> tuple[int, ...]:
        if self.trick:
            return _TURN[1 - self.leader]
        return _TURN[self.leader]

    # -- fast paths of the verbs for the play phase (every action of the game is a play):
    # the seat on turn playing a card skips the generic checks of GameState; anything else,
    # and every refusal, goes to the base class, which gives the reason.
    def turn_seats(self) -> tuple[int, ...]:
        if self.phase == "play":
            return _TURN[1 - self.leader] if self.trick else _TURN[self.leader]
        return super().turn_seats()

    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        if self.phase == "play":
            trick = self.trick
            on = 1 - self.leader if trick else self.leader
            if seat is None or (seat == on and type(seat) is int):
                return self._legal(on)
        return super().legal_actions(seat)

    def apply(self, action: Action, seat: int | None = None) -> tuple[int, ...]:
        if type(action) is Action and self.phase == "play":
            on = 1 - self.leader if self.trick else self.leader
            if (seat is None or (seat == on and type(seat) is int)) and self._check(on, action) is None:
                self.actions.append((on, action))
                self._apply(on, action)
                return self.turn_seats()
        return super().apply(action, seat)

    def _legal(self, seat: int) -> list[Action]:
        hand = self.hands[seat]
        if self.trick:
            led = self.trick[0][1] // 13
            follow = [PLAY[c] for c in hand if _SUIT[c] == led]
            if follow:
                return follow
        return [PLAY[c] for c in hand]

    def _check(self, seat: int, action: Action) -> str | None:
        if action.kind != "play":
            return f"German Whist has no {action.kind} action: players only play cards"
        card = action.value
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            return f"not a card: {card!r}"
        hand = self.hands[seat]
        if card not in hand:
            return f"you do not hold {C.NAMES[card]}"
        if self.trick:
            led = self.trick[0][1] // 13
            if _SUIT[card] != led:
                for c in hand:
                    if _SUIT[c] == led:
                        return f"must follow {C.SUIT_NAMES[led]}"
        return None

    # ------------------------------------------------------------------ play
    def _apply(self, seat: int, action: Action) -> None:
        card: int = action.value
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append((seat, card))
        if len(trick) < 2:
            return
        (s0, c0), (s1, c1) = trick
        # highest trump, else highest of the suit led (card ints order ranks within a suit)
        if _SUIT[c1] == _SUIT[c0]:
            winner = s1 if c1 > c0 else s0
        elif _SUIT[c1] == self.trump:
            winner = s1
        else:
            winner = s0
        self.played.append(c0)
        self.played.append(c1)
        self.last_trick = trick
        self.trick = []
        self.leader = winner
        if self.stage == 1:
            self.tricks1[winner] += 1
            i = self.stock
            up, down = self.deck[i], self.deck[i + 1]
            self.hands[winner].append(up)
            self.upcards[winner].append(up)
            self.hands[1 - winner].append(down)
            self.drawn[1 - winner].append(down)
            self.stock = i + 2
            if self.stock >= 52:
                self.stage = 2
            return
        self.tricks2[winner] += 1
        if self.tricks2[0] + self.tricks2[1] == 13:
            self._end_hand(self._points())

    def _points(self) -> list[int]:
        if self.options["score_all_tricks"]:
            return hand_points([self.tricks1[s] + self.tricks2[s] for s in (0, 1)], True)
        return hand_points(self.tricks2, False)

    def _game_end(self) -> tuple[bool, list[int]]:
        return game_end(self.totals, self.options["target"])

    # ------------------------------------------------------------------ views
    def _hand_of(self, seat: int) -> list[int]:
        return self.hands[seat]

    def card_locations(self) -> dict[str, list[int]]:
        """Every card of the deck by place: hands, the trick, completed tricks, the stock."""
        return {
            "hand0": self.hands[0][:],
            "hand1": self.hands[1][:],
            "trick": [c for _, c in self.trick],
            "taken": self.played[:],
            "stock": self.deck[self.stock:] if self.phase == "play" else [],
        }

    def trick_log(self) -> list[dict[str, Any]]:
        """GameState.trick_log: every trick of both stages (``stage`` 1 or 2), from the hand's
        plays two by two, then the trick in progress. Which cards the players drew is not in it
        (the face-down one is private; the face-up one is now in the winner's hand)."""
        plays = [(s, a.value) for s, a in self.actions if a.kind == "play"]
        out: list[dict[str, Any]] = []
        for k in range(0, len(plays) - 1, 2):
            (s0, c0), (s1, c1) = plays[k], plays[k + 1]
            if _SUIT[c1] == _SUIT[c0]:
                winner = s1 if c1 > c0 else s0
            elif _SUIT[c1] == self.trump:
                winner = s1
            else:
                winner = s0
            out.append({"leader": s0, "cards": [[s0, C.NAMES[c0]], [s1, C.NAMES[c1]]], "winner": winner,
                        "done": True, "stage": 1 if k // 2 < 13 else 2})
        if len(plays) % 2 and self.phase == "play":
            s0, c0 = plays[-1]
            out.append({"leader": s0, "cards": [[s0, C.NAMES[c0]]], "winner": None, "done": False,
                        "stage": 1 if len(plays) // 2 < 13 else 2})
        return out

    def _hand_figures(self) -> dict[str, Any]:
        return {"tricks_taken": [self.tricks1[s] + self.tricks2[s] for s in (0, 1)],
                "tricks_stage1": self.tricks1[:], "tricks_stage2": self.tricks2[:]}

    def _public_extra(self) -> dict[str, Any]:
        up = self.deck[self.stock] if self.stock < 52 and self.phase == "play" else None
        return {
            "trump": C.SUIT_NAMES[self.trump] if self.trump >= 0 else None,
            "trump_card": C.NAMES[self.deck[_STOCK_START]] if self.deck else None,
            "stock_card": None if up is None else C.NAMES[up],
            "stock_size": 52 - self.stock if self.phase == "play" else 0,
            "stage": self.stage,
            "leader": self.leader,
            "trick": [[s, C.NAMES[c]] for s, c in self.trick],
            "trick_winning": self.trick[0][0] if self.trick else None,  # a trick of two ends at once
            "last_trick": [[s, C.NAMES[c]] for s, c in self.last_trick],
            "last_trick_winner": self.leader if self.last_trick else None,  # the winner leads next
            "tricks_stage1": self.tricks1[:],
            "tricks_stage2": self.tricks2[:],
            "tricks_taken": [self.tricks1[s] + self.tricks2[s] for s in (0, 1)],
            "hand_sizes": [len(self.hands[0]), len(self.hands[1])],
            "upcards_taken": [C.names(self.upcards[0]), C.names(self.upcards[1])],
            "played": C.names(self.played),
        }

    def _private_extra(self, seat: int) -> dict[str, Any]:
        return {"drawn": C.names(self.drawn[seat])}

    # ------------------------------------------------------------------ determinization
    def sample_world(self, seat: int, rng: random.Random) -> GermanWhistState:
        """A full state ``seat`` cannot tell from this one (engine/worlds.py)."""
        return sample_german_whist(self, seat, rng)
