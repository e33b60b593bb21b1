"""Three-handed Whist: the tests' own game, a plug-in that no product file names (issue 19).

Three players, one deck. The deal gives 17 cards each, one at a time from the dealer's left;
the 52nd card is nobody's: it goes to the dealer's reject pocket and its suit is trump for the
hand. The player on the dealer's left leads; follow suit if you can; the highest trump, else
the highest card of the suit led, takes the trick, and its winner leads the next. Each trick
is a point; the first player to ``target`` wins (a tie for first plays another hand).

Everything a game module may bring is here: the rules (``Whist3State``), the rule bot
(``BOT``) and the keep-score rules (``Whist3Keeping``); ``whist3_info.py`` is its descriptor.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from trickref.engine import cards as C
from trickref.engine.actions import PLAY, Action
from trickref.engine.base import GameState
from trickref.engine.keeping import TricksKeeping
from trickref.engine.spades_common import higher_total_wins

TRICKS = 17


def winner_of(trick: Sequence[tuple[int, int]], trump: int) -> int:
    """The seat taking ``trick`` so far: the highest trump, else the highest card of the suit led."""
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        s, b = card // 13, best // 13
        if (s == b and card > best) or (s == trump and b != trump):
            best_seat, best = seat, card
    return best_seat


class Whist3State(GameState):
    GAME_ID = "whist-3p"
    TITLE = "Three-handed Whist"
    PLAYER_COUNTS = (3,)
    DECKS = 1
    HAS_BAGS = False
    TEAMS = False

    def _reset_hand(self) -> None:
        self.hands: list[list[int]] = [[], [], []]
        self.trump: int = -1
        self.leader: int = 0
        self.trick: list[tuple[int, int]] = []
        self.last_trick: list[tuple[int, int]] = []
        self.played: list[int] = []
        self.taken: list[int] = [0, 0, 0]

    def _deal(self) -> None:
        for i, card in enumerate(self.deck[:51]):
            self.hands[(self.dealer + 1 + i) % 3].append(card)
        self.trump = self.deck[51] // 13
        self.leader = (self.dealer + 1) % 3
        self.phase = "play"

    def _turn(self) -> tuple[int, ...]:
        return ((self.leader + len(self.trick)) % 3,)

    def _legal(self, seat: int) -> list[Action]:
        hand = self.hands[seat]
        if self.trick:
            led = self.trick[0][1] // 13
            follow = [PLAY[c] for c in hand if c // 13 == led]
            if follow:
                return follow
        return [PLAY[c] for c in hand]

    def _check(self, seat: int, action: Action) -> str | None:
        if action.kind != "play":
            return f"Three-handed Whist has no {action.kind} action: players only play cards"
        card = action.value
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            return f"not a card: {card!r}"
        if card not in self.hands[seat]:
            return f"you do not hold {C.NAMES[card]}"
        if self.trick:
            led = self.trick[0][1] // 13
            if card // 13 != led and any(c // 13 == led for c in self.hands[seat]):
                return f"must follow {C.SUIT_NAMES[led]}"
        return None

    def _apply(self, seat: int, action: Action) -> None:
        card: int = action.value
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        if len(self.trick) < 3:
            return
        winner = winner_of(self.trick, self.trump)
        self.played += [c for _, c in self.trick]
        self.last_trick = self.trick
        self.trick = []
        self.leader = winner
        self.taken[winner] += 1
        if sum(self.taken) == TRICKS:
            self._end_hand(self.taken[:])

    def _game_end(self) -> tuple[bool, list[int]]:
        return higher_total_wins(self.totals, self.options["target"])

    def _hand_of(self, seat: int) -> list[int]:
        return self.hands[seat]

    def card_locations(self) -> dict[str, list[int]]:
        return {"hand0": self.hands[0][:], "hand1": self.hands[1][:], "hand2": self.hands[2][:],
                "trick": [c for _, c in self.trick], "taken": self.played[:],
                "out": [self.deck[51]] if self.phase == "play" else []}

    def trick_log(self) -> list[dict[str, Any]]:
        plays = [(s, a.value) for s, a in self.actions if a.kind == "play"]
        out: list[dict[str, Any]] = []
        for k in range(0, len(plays), 3):
            trick = plays[k:k + 3]
            done = len(trick) == 3
            out.append({"leader": trick[0][0], "cards": [[s, C.NAMES[c]] for s, c in trick],
                        "winner": winner_of(trick, self.trump) if done else None, "done": done})
        return out

    def _hand_figures(self) -> dict[str, Any]:
        return {"tricks_taken": self.taken[:]}

    def _public_extra(self) -> dict[str, Any]:
        return {
            "trump": C.SUIT_NAMES[self.trump] if self.trump >= 0 else None,
            "trump_card": C.NAMES[self.deck[51]] if self.deck else None,
            "leader": self.leader,
            "trick": [[s, C.NAMES[c]] for s, c in self.trick],
            "trick_winning": winner_of(self.trick, self.trump) if self.trick else None,
            "last_trick": [[s, C.NAMES[c]] for s, c in self.last_trick],
            "last_trick_winner": self.leader if self.last_trick else None,
            "tricks_taken": self.taken[:],
            "hand_sizes": [len(h) for h in self.hands],
            "played": C.names(self.played),
        }

    def sample_world(self, seat: int, rng: random.Random) -> Whist3State:
        """A state ``seat`` cannot tell from this one: the cards it has not seen dealt again at
        random among the other seats, each keeping its hand size and the suits it showed void in."""
        void: list[set[int]] = [set(), set(), set()]
        plays = [(s, a.value) for s, a in self.actions if a.kind == "play"]
        for k in range(0, len(plays), 3):
            led = plays[k][1] // 13
            for s, c in plays[k + 1:k + 3]:
                if c // 13 != led:
                    void[s].add(led)
        others = [s for s in range(3) if s != seat]
        unseen = [c for s in others for c in self.hands[s]]
        world = self.copy()
        assert isinstance(world, Whist3State)
        for _try in range(100):
            rng.shuffle(unseen)
            pool = unseen[:]
            got: dict[int, list[int]] = {}
            for s in sorted(others, key=lambda x: -len(void[x])):
                fit = [c for c in pool if c // 13 not in void[s]][: len(self.hands[s])]
                if len(fit) < len(self.hands[s]):
                    break
                got[s] = fit
                for c in fit:
                    pool.remove(c)
            else:
                for s in others:
                    world.hands[s] = got[s]
                return world
        return world  # no redeal fitted: the true hands (a rare fallback)


class Whist3Bot:
    """Win the trick as cheaply as possible when it can be won, else throw the lowest card."""

    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        legal = list(state.legal_actions(seat))
        assert isinstance(state, Whist3State)
        if not state.trick:
            return max(legal, key=lambda a: (a.value % 13, -a.value))
        winning = [a for a in legal if winner_of([*state.trick, (seat, a.value)], state.trump) == seat]
        if winning:
            return min(winning, key=lambda a: (a.value // 13 == state.trump, a.value % 13))
        return min(legal, key=lambda a: (a.value // 13 == state.trump, a.value % 13))


BOT = Whist3Bot()


class Whist3Keeping(TricksKeeping):
    """Keep-score: each player's tricks (17 a hand), a point each."""

    def tricks_per_hand(self) -> int:
        return TRICKS

    @staticmethod
    def from_figures(options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
        return {"tricks": [int(t) for t in figures["tricks_taken"]]}
