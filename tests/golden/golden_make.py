"""What the golden records' make scripts share (tests/golden/*-make.py): a seeded game played
by the game's bot or by uniformly random legal moves, and the writing of each record with the
``.expected.json`` that ``trickref replay --json`` prints for it. The scripts run from the
repository root (``.venv/bin/python tests/golden/hearts-make.py``); this folder is then on the
import path."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.records import dumps, record_of

HERE = Path(__file__).parent


def random_seat(g: Any, rng: random.Random) -> int:
    """Who acts when several seats may (the simultaneous passes): a seeded pick."""
    return int(rng.choice(g.turn_seats()))


def play(game: str, names: list[str], n: int, options: dict[str, Any], first_dealer: int, seed: int, bot: bool,
         hands: int | None = None, partial: int = 0, seat: Callable[[Any, random.Random], int] = random_seat) -> str:
    """A game with ``seed`` (the record's JSON): to its end, or ``hands`` whole hands then
    ``partial`` actions of one more; each action the game's bot's choice (``bot``) or a random
    legal one, for the seat ``seat`` picks."""
    rng = random.Random(seed)
    b = bot_for(game)
    g = new_game(game, n, options, first_dealer, names[:n])
    h = 0
    while not g.over and (hands is None or h < hands + (1 if partial else 0)):
        deck = [c % 52 for c in range(52 * g.DECKS)]
        rng.shuffle(deck)
        g.start_hand(deck)
        limit = partial if hands is not None and h == hands else 100_000
        while g.phase not in ("deal", "over") and limit:
            s = seat(g, rng)
            a = b.choose(g, s, rng) if bot else rng.choice(g.legal_actions(s))
            g.apply(a, s)
            limit -= 1
        h += 1
    return dumps(record_of(g))


def write(goldens: dict[str, Callable[[], str]]) -> None:
    """Each record (made by its function) and its ``.expected.json`` written here."""
    for name, make in goldens.items():
        path = HERE / f"{name}.json"
        path.write_text(make())
        out = subprocess.run([sys.executable, "-m", "trickref.ui.cli", "replay", str(path), "--json"],
                             capture_output=True, text=True, check=True).stdout
        (HERE / f"{name}.expected.json").write_text(json.dumps(json.loads(out), indent=1) + "\n")
        print(name, out.strip()[:200])
