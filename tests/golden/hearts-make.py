"""Writes the Hearts golden records (run from the repository root):

    .venv/bin/python tests/golden/hearts-make.py

Each record is a game played with a fixed seed (the bot, or uniformly random legal moves), or
a hand dealt from a chosen deck order (the moon); its ``.expected.json`` is what
``trickref replay --json`` printed for it when it was checked. tests/engine/test_hearts_golden.py
re-derives the first hand of each record independently of the engine."""

from __future__ import annotations

import sys

from golden_make import HERE, play, write

from trickref.engine import actions as A
from trickref.engine.records import dumps, record_of

GAME = "hearts"
NAMES = ["Ana", "Ben", "Cem", "Dee", "Eli", "Fay", "Gus"]


def moon() -> str:
    """Hand 4 of a game (no pass) dealt so that seat 0 holds every club and shoots the moon;
    the three hands before are played with the lowest legal card; the shooter chooses
    "others"."""
    sys.path.insert(0, str(HERE.parent / "engine"))
    from test_hearts import no_pass_game, shoot

    g = no_pass_game()
    g.names = NAMES[:4]
    g.options["target"] = 100
    shoot(g)
    g.apply(A.MOON_OTHERS, 0)
    return dumps(record_of(g))


GOLDENS = {
    "hearts-bot-game-4p": lambda: play(GAME, NAMES, 4, {}, 0, 2026, True),
    "hearts-random-5p-omnibus": lambda: play(GAME, NAMES, 5, {"omnibus": True, "omnibus_card": "JD", "target": 50}, 2,
                                             11, False),
    "hearts-bot-3p-options": lambda: play(GAME, NAMES, 3, {"moon_self": -26, "target": 50}, 1, 5, True),
    "hearts-in-progress-7p": lambda: play(GAME, NAMES, 7, {}, 6, 77, True, hands=2, partial=23),
    "hearts-moon-others": moon,
}

if __name__ == "__main__":
    write(GOLDENS)
