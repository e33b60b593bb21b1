"""Every game's fast paths (``turn_seats``, ``legal_actions`` and ``apply`` overridden to skip
the generic checks of ``GameState``) agree with the general path: in random hands of every
game, the same seats on turn and the same legal actions as ``GameState``'s own verbs (the
hooks), and for every card (and every legal action) an ``apply`` that succeeds exactly when
``check`` allows it, leaving the same state as ``GameState.apply`` and returning the seats on
turn after it, or is refused with the same reason and nothing changed. (test_hearts_fast_paths
and test_spades_fast_paths go through every card against the play hooks themselves.)"""

from __future__ import annotations

import random

import pytest
from engine_helpers import game_player_counts, random_action

from trickref.engine import ENGINE_BUILD
from trickref.engine import cards as C
from trickref.engine.actions import PLAY, Action
from trickref.engine.base import GameState
from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game


def same_as_the_base(s: GameState, seat: int, rng: random.Random) -> None:
    assert s.turn_seats() == GameState.turn_seats(s)
    assert list(s.legal_actions(seat)) == list(GameState.legal_actions(s, seat))
    legal = list(s.legal_actions(seat))
    tries: list[Action] = [PLAY[c] for c in range(52)] + [Action("play", -1), Action("play", "QS")]
    tries += rng.sample(legal, min(4, len(legal)))
    for action in tries:
        if action.kind == "exchange":
            continue  # its get is drawn from the pile by the caller (random_action)
        reason = s.check(action, seat)
        fast, slow = s.copy(), s.copy()
        if reason is None:
            # apply returns the seats on turn after it: the fast paths the tuple they keep
            assert fast.apply(action, seat) == fast.turn_seats() == GameState.turn_seats(fast)
            assert GameState.apply(slow, action, seat) == slow.turn_seats()
            assert fast == slow, action
        else:
            with pytest.raises(IllegalAction) as e:
                fast.apply(action, seat)
            assert e.value.reason == reason
            assert fast == s


@pytest.mark.parametrize("game,n", list(game_player_counts()))
def test_fast_paths_agree_with_the_base_class(game: str, n: int) -> None:
    rng = random.Random(n * 13 + len(game))
    s = new_game(game, n)
    deck = C.full_deck(s.DECKS)
    rng.shuffle(deck)
    s.start_hand(deck)
    steps = 0
    while s.turn_seats():
        seats = s.turn_seats()
        if len(seats) == 1 or steps % 3 == 0:
            same_as_the_base(s, rng.choice(seats), rng)
        seat, action = random_action(s, rng)
        assert s.apply(action, seat) == s.turn_seats()
        steps += 1
    assert steps > 10


@pytest.mark.skip_ok("the pure-Python build's test: scripts/test.sh runs tests/engine again on that build")
@pytest.mark.skipif(ENGINE_BUILD == "compiled", reason="the compiled engine's states keep their fields in "
                    "slots of their own (no __dict__): the limit is the interpreter's, for the pure-Python build")
@pytest.mark.parametrize("game,n", [("hearts", 3), ("hearts", 4), ("hearts", 7), ("german-whist", 2), ("partnership-spades", 4)])
def test_few_enough_fields_to_stay_inline(game: str, n: int) -> None:
    """CPython (3.11) keeps an instance's fields inline, where attribute access is fastest,
    only while its class has at most 29 of them (the 30th moved them into a dict here); the
    games below that limit stay below it through a whole hand (GameState.bags says why)."""
    rng = random.Random(3)
    s = new_game(game, n)
    deck = C.full_deck(s.DECKS)
    rng.shuffle(deck)
    s.start_hand(deck)
    while s.turn_seats():
        seat, action = random_action(s, rng)
        s.apply(action, seat)
    assert len(vars(s)) <= 29, sorted(vars(s))
