"""Writes the Cancellation Hearts golden records (run from the repository root):

    .venv/bin/python tests/golden/cancellation-hearts-make.py

Each record is a game played with a fixed seed (the bot, or uniformly random legal moves), or
a hand dealt from a chosen deck order (every trick cancelled); its ``.expected.json`` is what
``trickref replay --json`` printed for it when it was checked.
tests/engine/test_cancellation_hearts_golden.py re-derives the first hand independently."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from trickref.engine import actions as A
from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.records import dumps, record_of

HERE = Path(__file__).parent
GAME = "cancellation-hearts"
NAMES = ["Al", "Beth", "Charlie", "Dave", "Ed", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit"]


def play(n: int, options: dict[str, Any], first_dealer: int, seed: int, bot: bool,
         hands: int | None = None, partial: int = 0) -> str:
    rng = random.Random(seed)
    b = bot_for(GAME)
    g = new_game(GAME, n, options, first_dealer, NAMES[:n])
    h = 0
    while not g.over and (hands is None or h < hands + (1 if partial else 0)):
        deck = [c % 52 for c in range(104)]
        rng.shuffle(deck)
        g.start_hand(deck)
        limit = partial if hands is not None and h == hands else 100_000
        while g.phase not in ("deal", "over") and limit:
            s = rng.choice(g.turn_seats())
            a = b.choose(g, s, rng) if bot else rng.choice(g.legal_actions(s))
            g.apply(a, s)
            limit -= 1
        h += 1
    return dumps(record_of(g))


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
    "cancellation-hearts-bot-game-6p": lambda: play(6, {}, 0, 2026, True),
    "cancellation-hearts-random-9p-options": lambda: play(
        9, {"passing": "right", "no_points_on_first_trick": True, "last_trick_cancelled": "leader", "target": 100},
        4, 13, False),
    "cancellation-hearts-bot-11p-no-pass": lambda: play(11, {"passing": "none", "moon_self": -52, "moon_others": 52}, 3, 8, True),
    "cancellation-hearts-in-progress-8p": lambda: play(8, {}, 7, 21, True, hands=1, partial=40),
    "cancellation-hearts-all-cancelled-nobody": lambda: all_cancelled("nobody"),
    "cancellation-hearts-all-cancelled-leader": lambda: all_cancelled("leader"),
}

if __name__ == "__main__":
    for name, make in GOLDENS.items():
        path = HERE / f"{name}.json"
        path.write_text(make())
        out = subprocess.run([sys.executable, "-m", "trickref.ui.cli", "replay", str(path), "--json"],
                             capture_output=True, text=True, check=True).stdout
        (HERE / f"{name}.expected.json").write_text(json.dumps(json.loads(out), indent=1) + "\n")
        print(name, out.strip()[:200])
