"""Writes the Hearts golden records (run from the repository root):

    .venv/bin/python tests/golden/hearts-make.py

Each record is a game played with a fixed seed (the bot, or uniformly random legal moves), or
a hand dealt from a chosen deck order (the moon); its ``.expected.json`` is what
``trickref replay --json`` printed for it when it was checked. tests/engine/test_hearts_golden.py
re-derives the first hand of each record independently of the engine."""

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
GAME = "hearts"
NAMES = ["Ana", "Ben", "Cem", "Dee", "Eli", "Fay", "Gus"]


def play(n: int, options: dict[str, Any], first_dealer: int, seed: int, bot: bool,
         hands: int | None = None, partial: int = 0) -> str:
    """A game with ``seed``; ``hands`` whole hands then ``partial`` actions of one more."""
    rng = random.Random(seed)
    b = bot_for(GAME)
    g = new_game(GAME, n, options, first_dealer, NAMES[:n])
    h = 0
    while not g.over and (hands is None or h < hands + (1 if partial else 0)):
        deck = list(range(52 * g.DECKS))
        deck = [c % 52 for c in deck]
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
    "hearts-bot-game-4p": lambda: play(4, {}, 0, 2026, True),
    "hearts-random-5p-omnibus": lambda: play(5, {"omnibus": True, "omnibus_card": "JD", "target": 50}, 2, 11, False),
    "hearts-bot-3p-options": lambda: play(3, {"moon_self": -26, "target": 50}, 1, 5, True),
    "hearts-in-progress-7p": lambda: play(7, {}, 6, 77, True, hands=2, partial=23),
    "hearts-moon-others": moon,
}

if __name__ == "__main__":
    for name, make in GOLDENS.items():
        path = HERE / f"{name}.json"
        path.write_text(make())
        out = subprocess.run([sys.executable, "-m", "trickref.ui.cli", "replay", str(path), "--json"],
                             capture_output=True, text=True, check=True).stdout
        (HERE / f"{name}.expected.json").write_text(json.dumps(json.loads(out), indent=1) + "\n")
        print(name, out.strip()[:200])
