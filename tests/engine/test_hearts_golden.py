"""The Hearts golden records (tests/golden/hearts*.json) re-derived without the engine.

A small independent referee written straight from RULES.md deals every hand of each record,
carries out its passes, checks each play against the follow-suit rule, finds each trick's
winner and scores the hand; its points must equal the record's .expected.json. The generic
tests/engine/test_golden.py replays the same files through the engine and the CLI format.
The first hand of hearts-bot-game-4p was also checked by hand (trick by trick: KC, 5S, JD with
the QS, KD, JS, 8D, AH, AC, TS, 8C, QD, QC, AD; points 2 9 2 13).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hearts_referee import (
    assert_agrees_on_random_games,
    assert_expected_scores,
    assert_follows,
    moon_points,
    next_play,
    points,
    take_passes,
    value,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FILES = sorted(p for p in GOLDEN.glob("hearts*.json") if not p.name.endswith(".expected.json"))

REMOVED = {3: {"2D"}, 4: set(), 5: {"2D", "2C"}, 6: {"2D", "3D", "3C", "4C"}, 7: {"2D", "3D", "3C"}}


def referee_hand(n: int, dealer: int, hand_no: int, deck: list[str], actions: list[dict],
                 options: dict) -> list[int] | None:
    """The points of one hand per RULES.md, or None when the hand stopped part way."""
    hands: list[list[str]] = [[] for _ in range(n)]
    seat = (dealer + 1) % n
    for c in deck:
        if c in REMOVED[n]:
            continue
        hands[seat].append(c)
        seat = (seat + 1) % n
    cycle = [1, n - 1, 2, 0] if n == 4 else [1, n - 1]
    offset = cycle[(hand_no - 1) % len(cycle)]
    i = take_passes(hands, actions, offset) if offset else 0
    first = "3C" if n == 5 else "2C"
    leader = next(s for s in range(n) if first in hands[s])
    taken = [0] * n
    omnibus = {"TD": "TD", "JD": "JD"}[options.get("omnibus_card", "TD")]
    omnibus_taker = None
    each = len(hands[0])
    broken = False
    for t in range(each):
        trick: list[str] = []
        for k in range(n):
            s = (leader + k) % n
            c = next_play(actions, i, s, hands)
            if c is None:
                return None
            i += 1
            if t == 0 and k == 0:
                assert c == first
            assert_follows(trick, c, hands[s])
            if trick and c[1] != trick[0][1] and t == 0 and points(c):
                assert all(points(x) for x in hands[s]), "points on the first trick"
            if not trick and c[1] == "H":
                assert broken or all(x[1] == "H" for x in hands[s]), "hearts led unbroken"
            broken = broken or points(c) > 0
            hands[s].remove(c)
            trick.append(c)
        led = trick[0][1]
        best = max((value(c), k) for k, c in enumerate(trick) if c[1] == led)[1]
        w = (leader + best) % n
        taken[w] += sum(points(c) for c in trick)
        if omnibus in trick:
            omnibus_taker = w
        leader = w
    pts = moon_points(taken, 26, actions, i, options, -25)
    if pts is None:
        return None
    if options.get("omnibus") and omnibus_taker is not None:
        pts[omnibus_taker] -= 10
    return pts


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_independent_referee_agrees_with_the_expected_scores(path: Path) -> None:
    assert_expected_scores(path, referee_hand)


def test_there_are_hearts_goldens_of_whole_games_and_the_moon() -> None:
    names = {p.stem for p in FILES}
    assert {"hearts-bot-game-4p", "hearts-moon-others"} <= names
    for p in FILES:
        assert p.with_name(p.stem + ".expected.json").exists()


def test_the_replay_command_prints_the_expected_object() -> None:
    path = GOLDEN / "hearts-bot-game-4p.json"
    out = subprocess.run([sys.executable, "-m", "trickref.ui.cli", "replay", str(path), "--json"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == json.loads(path.with_name(path.stem + ".expected.json").read_text())


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_independent_referee_agrees_on_random_games(n: int) -> None:
    """Beyond the goldens: random legal hands (random options) scored by both referees."""
    assert_agrees_on_random_games("hearts", n, referee_hand, lambda rng: {
        "omnibus": rng.random() < 0.5, "omnibus_card": rng.choice(["TD", "JD"]), "target": 10**6}, games=6)
