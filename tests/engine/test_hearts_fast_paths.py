"""The fast paths of both Hearts games (``legal_actions`` and ``apply`` of plays written out in
one frame, and the plain pass) agree with the general path they shortcut: the same legal list
as the ``_legal_play`` hook, and for every card (and many passes, legal or not), an action that
the fast ``apply`` takes exactly when ``check`` allows it, leaving the same state as
``GameState.apply`` (the hooks), or refused with the same reason and nothing changed."""

from __future__ import annotations

import random

import pytest

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.actions import PLAY, Action
from trickref.engine.base import GameState
from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game
from trickref.engine.hearts_common import HeartsFamilyState

CASES = [("hearts", n) for n in (3, 4, 5, 6, 7)] + [("cancellation-hearts", n) for n in (6, 8, 11)]


def compare_every_card(s: HeartsFamilyState, seat: int) -> None:
    assert list(s.legal_actions(seat)) == list(s._legal_play(seat))
    assert list(s.legal_actions(None)) == list(s.legal_actions(seat))
    for c in [*range(52), -1, 52]:
        fast, slow = s.copy(), s.copy()
        action = PLAY[c] if 0 <= c < 52 else Action("play", c)
        reason = s._check_play(seat, c)
        if reason is None:
            fast.apply(action, seat)
            GameState.apply(slow, action, seat)
            assert fast == slow, C.NAMES[c]
        else:
            with pytest.raises(IllegalAction) as e:
                fast.apply(action, seat)
            assert e.value.reason == reason
            assert fast == s


def compare_passes(s: HeartsFamilyState, seat: int, rng: random.Random) -> None:
    hand = s.hand_of(seat)
    legal = s.legal_actions(seat)
    tries = [legal[rng.randrange(len(legal))] for _ in range(6)]
    tries += [A.pass_cards(rng.sample(range(52), 3)) for _ in range(6)]
    tries += [Action("pass", (hand[0], hand[0], hand[1])), Action("pass", (hand[2], hand[1], hand[0])),
              Action("pass", (hand[0], hand[1])), Action("pass", [hand[0], hand[1], hand[2]]),
              Action("pass", (-1, hand[0], hand[1])), Action("pass", (hand[0], hand[1], 52)),
              Action("pass", (True, hand[1], hand[2])), A.PLAY[hand[0]]]
    for action in tries:
        for who in (seat, (seat + 1) % s.n, None):
            fast, slow = s.copy(), s.copy()
            reason = s.check(action, who)
            if reason is None:
                fast.apply(action, who)
                GameState.apply(slow, action, who)
                assert fast == slow, action
            else:
                with pytest.raises(IllegalAction) as e:
                    fast.apply(action, who)
                assert e.value.reason == reason
                assert fast == s


@pytest.mark.parametrize("game,n", CASES)
def test_fast_paths_agree_with_the_hooks(game: str, n: int) -> None:
    rng = random.Random(n * 7 + len(game))
    s = new_game(game, n)
    assert isinstance(s, HeartsFamilyState)
    for _ in range(2):
        deck = C.full_deck(s.DECKS)
        rng.shuffle(deck)
        s.start_hand(deck)
        while seats := s.turn_seats():
            seat = rng.choice(seats)
            if s.phase == "play":
                compare_every_card(s, seat)
            elif s.phase == "pass":
                compare_passes(s, seat, rng)
            s.apply(rng.choice(s.legal_actions(seat)), seat)
