"""Writes the Cancellation Hearts golden records (run from the repository root):

    .venv/bin/python tests/golden/cancellation-hearts-make.py

Each record is a game played with a fixed seed (the bot, or uniformly random legal moves), or
a hand dealt from a chosen deck order (every trick cancelled); its ``.expected.json`` is what
``trickref replay --json`` printed for it when it was checked.
tests/engine/test_cancellation_hearts_golden.py re-derives the first hand independently."""

from __future__ import annotations

import sys

from golden_make import HERE, play, write

from trickref.engine import actions as A
from trickref.engine.games import new_game
from trickref.engine.records import dumps, record_of

GAME = "cancellation-hearts"
NAMES = ["Al", "Beth", "Charlie", "Dave", "Ed", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit"]


def all_cancelled(option: str) -> str:
    """One hand at six seats where seats 1+2, 3+4 and 5+0 hold identical hands: with the
    lowest legal card every trick is fully cancelled. With ``last_trick_cancelled`` "leader"
    the leader takes everything (the moon, choice "self"); with "nobody" nobody scores."""
    sys.path.insert(0, str(HERE.parent / "engine"))
    from test_cancellation_hearts import identical_hands_deck

    g = new_game(GAME, 6, {"passing": "none", "last_trick_cancelled": option}, 0, NAMES[:6])
    deck, _ = identical_hands_deck()
    g.start_hand(deck)
    while g.phase == "play":
        s = g.turn_seats()[0]
        g.apply(g.legal_actions(s)[0], s)
    if g.phase == "moon":
        g.apply(A.MOON_SELF, g.turn_seats()[0])
    return dumps(record_of(g))


GOLDENS = {
    "cancellation-hearts-bot-game-6p": lambda: play(GAME, NAMES, 6, {}, 0, 2026, True),
    "cancellation-hearts-random-9p-options": lambda: play(
        GAME, NAMES, 9, {"passing": "right", "no_points_on_first_trick": True, "last_trick_cancelled": "leader",
                         "target": 100}, 4, 13, False),
    "cancellation-hearts-bot-11p-no-pass": lambda: play(GAME, NAMES, 11, {"passing": "none", "moon_self": -52,
                                                                          "moon_others": 52}, 3, 8, True),
    "cancellation-hearts-in-progress-8p": lambda: play(GAME, NAMES, 8, {}, 7, 21, True, hands=1, partial=40),
    "cancellation-hearts-all-cancelled-nobody": lambda: all_cancelled("nobody"),
    "cancellation-hearts-all-cancelled-leader": lambda: all_cancelled("leader"),
}

if __name__ == "__main__":
    write(GOLDENS)
