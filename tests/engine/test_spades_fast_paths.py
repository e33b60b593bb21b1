"""The play-phase fast paths of both Spades games (``legal_actions`` and ``apply`` written out
in one frame on the hand masks) agree with the general path they shortcut: the same legal
plays as the ``_play_legal`` hook, and for every card an action that the fast ``apply`` takes
exactly when ``check`` allows it, leaving the same state as ``GameState.apply`` (the hooks),
or refused with the same reason and nothing changed."""

from __future__ import annotations

import random

import pytest
from engine_helpers import random_action

from trickref.engine import cards as C
from trickref.engine.actions import PLAY, Action
from trickref.engine.base import GameState
from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game
from trickref.engine.spades_common import SpadesTrickState

CASES = [
    ("spades-2p", 2, {}),
    ("partnership-spades", 4, {}),
    ("partnership-spades", 4, {"trump": "spades", "must_beat": False, "first_lead": "left"}),
    ("partnership-spades", 4, {"must_beat": False}),
    ("partnership-spades", 4, {"trump": "spades"}),
]


def compare_every_card(s: SpadesTrickState, seat: int) -> None:
    assert list(s.legal_actions(seat)) == list(s._play_legal(seat))
    assert list(s.legal_actions(None)) == list(s.legal_actions(seat))
    for c in [*range(52), -1, 52]:
        fast, slow = s.copy(), s.copy()
        action = PLAY[c] if 0 <= c < 52 else Action("play", c)
        reason = s.check(action, seat)
        if reason is None:
            fast.apply(action, seat)
            GameState.apply(slow, action, seat)
            assert fast == slow, C.NAMES[c]
        else:
            with pytest.raises(IllegalAction) as e:
                fast.apply(action, seat)
            assert e.value.reason == reason
            assert fast == s


@pytest.mark.parametrize("game,n,options", CASES)
def test_fast_paths_agree_with_the_hooks(game: str, n: int, options: dict[str, object]) -> None:
    rng = random.Random(n * 11 + len(options))
    s = new_game(game, n, options)
    assert isinstance(s, SpadesTrickState)
    plays = 0
    for _ in range(2):
        deck = C.full_deck()
        rng.shuffle(deck)
        s.start_hand(deck)
        while s.turn_seats():
            if s.phase == "play":
                compare_every_card(s, s.turn_seats()[0])
                plays += 1
            s.apply(*reversed(random_action(s, rng)))
    assert plays == 13 * n * 2  # 13 tricks a hand
