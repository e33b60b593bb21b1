"""The Cancellation Hearts golden records (tests/golden/cancellation-hearts*.json) re-derived
without the engine: a small independent referee written from RULES.md deals each hand (one at
a time from the dealer's left, the rest the widow), carries out the passes, checks the leads
and follow-suit, applies the cancellation rule (pairs cancel; a fully cancelled trick waits and
its leader leads again), gives the widow to the first won trick, and scores the hand.
The first hand of cancellation-hearts-bot-game-6p was also checked by hand: seat 1 leads the
2C; seat 4, void after passing KC 5C, plays a KS; the KC wins and seat 0 takes the widow (3C
4H); then AD wins; 9S 9S and 8S 8S cancel and the AS wins; 4S 4S and 2S 2S cancel and the
other AS wins with the AH on it.
"""

from __future__ import annotations

import json
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
FILES = sorted(p for p in GOLDEN.glob("cancellation-hearts*.json") if not p.name.endswith(".expected.json"))


def referee_hand(n: int, dealer: int, hand_no: int, deck: list[str], actions: list[dict],
                 options: dict) -> list[int] | None:
    each = 104 // n
    hands: list[list[str]] = [[] for _ in range(n)]
    for k in range(each * n):
        hands[(dealer + 1 + k) % n].append(deck[k])
    widow = deck[each * n:]
    mode = options.get("passing", "left-right")
    offset = {"none": 0, "right": n - 1}.get(mode, 1 if hand_no % 2 == 1 else n - 1)
    i = take_passes(hands, actions, offset) if offset else 0
    leader = (dealer + 1) % n
    taken = [0] * n
    waiting: list[str] = []
    widow_taken = False
    broken = False
    for t in range(each):
        trick: list[str] = []
        for k in range(n):
            s = (leader + k) % n
            c = next_play(actions, i, s, hands)
            if c is None:
                return None
            i += 1
            if t == 0 and k == 0 and points(c):
                assert all(points(x) for x in hands[s]), "the first lead may not be a heart or QS"
            if not trick and c[1] == "H" and t > 0:
                assert broken or all(x[1] == "H" for x in hands[s]), "hearts led unbroken"
            assert_follows(trick, c, hands[s])
            if trick and c[1] != trick[0][1] and t == 0 and points(c) and options.get("no_points_on_first_trick"):
                assert all(points(x) for x in hands[s])
            broken = broken or points(c) > 0
            hands[s].remove(c)
            trick.append(c)
        led = trick[0][1]
        alive = [(value(c), k) for k, c in enumerate(trick) if c[1] == led and trick.count(c) == 1]
        waiting += trick
        if not alive:
            if t < each - 1:
                continue  # the same leader leads again
            if options.get("last_trick_cancelled", "nobody") == "nobody":
                break
            w = leader
        else:
            w = (leader + max(alive)[1]) % n
        if not widow_taken:
            waiting += widow
            widow_taken = True
        taken[w] += sum(points(c) for c in waiting)
        waiting = []
        leader = w
    return moon_points(taken, 52, actions, i, options, -28)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_independent_referee_agrees_with_the_expected_scores(path: Path) -> None:
    assert_expected_scores(path, referee_hand)


def test_goldens_cover_whole_games_and_cancelled_last_tricks() -> None:
    names = {p.stem for p in FILES}
    assert {"cancellation-hearts-bot-game-6p", "cancellation-hearts-all-cancelled-nobody",
            "cancellation-hearts-all-cancelled-leader"} <= names
    nobody = json.loads((GOLDEN / "cancellation-hearts-all-cancelled-nobody.expected.json").read_text())
    assert nobody["hands"][0]["points"] == [0] * 6


@pytest.mark.parametrize("n", [6, 7, 8, 9, 10, 11])
def test_independent_referee_agrees_on_random_games(n: int) -> None:
    """Beyond the goldens: random legal hands (random options) scored by both referees."""
    assert_agrees_on_random_games("cancellation-hearts", n, referee_hand, lambda rng: {
        "passing": rng.choice(["left-right", "right", "none"]), "no_points_on_first_trick": rng.random() < 0.5,
        "last_trick_cancelled": rng.choice(["nobody", "leader"]), "target": 10**6}, games=4)
