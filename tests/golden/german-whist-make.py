"""Writes the German Whist golden records (run from the repository root):

    .venv/bin/python tests/golden/german-whist-make.py

Each record is a game played with a fixed seed (the bot, or uniformly random legal moves);
its ``.expected.json`` is what ``trickref replay --json`` printed for it when it was checked
(tests/engine/test_german_whist_golden.py re-derives the first hand independently)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.records import dumps, record_of

HERE = Path(__file__).parent
BOT = bot_for("german-whist")


def play(options: dict, first_dealer: int, seed: int, bot: bool, hands: int | None, partial: int = 0) -> str:
    rng = random.Random(seed)
    g = new_game("german-whist", 2, options, first_dealer, ["Ana", "Ben"])
    h = 0
    while not g.over and (hands is None or h < hands + (1 if partial else 0)):
        deck = list(range(52))
        rng.shuffle(deck)
        g.start_hand(deck)
        limit = partial if hands is not None and h == hands else 10_000
        while g.phase == "play" and limit:
            s = g.turn_seats()[0]
            a = BOT.choose(g, s, rng) if bot else rng.choice(g.legal_actions(s))
            g.apply(a, s)
            limit -= 1
        h += 1
    return dumps(record_of(g))


GOLDENS = {
    "german-whist-bot-game": play({}, 0, 2026, True, None),
    "german-whist-all-tricks": play({"score_all_tricks": True, "target": 3}, 1, 7, False, None),
    "german-whist-in-progress": play({"target": 21}, 0, 99, True, 2, partial=17),
}

if __name__ == "__main__":
    for name, text in GOLDENS.items():
        path = HERE / f"{name}.json"
        path.write_text(text)
        out = subprocess.run([sys.executable, "-m", "trickref.ui.cli", "replay", str(path), "--json"],
                             capture_output=True, text=True, check=True).stdout
        (HERE / f"{name}.expected.json").write_text(json.dumps(json.loads(out), indent=1) + "\n")
        print(name, out.strip()[:200])
