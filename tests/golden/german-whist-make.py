"""Writes the German Whist golden records (run from the repository root):

    .venv/bin/python tests/golden/german-whist-make.py

Each record is a game played with a fixed seed (the bot, or uniformly random legal moves);
its ``.expected.json`` is what ``trickref replay --json`` printed for it when it was checked
(tests/engine/test_german_whist_golden.py re-derives the first hand independently)."""

from __future__ import annotations

from typing import Any

from golden_make import play, write

GAME = "german-whist"
NAMES = ["Ana", "Ben"]


def leader(g: Any, rng: Any) -> int:
    """The one seat on turn (no draw from the generator: the records were made so)."""
    return int(g.turn_seats()[0])


GOLDENS = {
    "german-whist-bot-game": lambda: play(GAME, NAMES, 2, {}, 0, 2026, True, seat=leader),
    "german-whist-all-tricks": lambda: play(GAME, NAMES, 2, {"score_all_tricks": True, "target": 3}, 1, 7, False,
                                            seat=leader),
    "german-whist-in-progress": lambda: play(GAME, NAMES, 2, {"target": 21}, 0, 99, True, hands=2, partial=17,
                                             seat=leader),
}

if __name__ == "__main__":
    write(GOLDENS)
