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

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FILES = sorted(p for p in GOLDEN.glob("cancellation-hearts*.json") if not p.name.endswith(".expected.json"))
RANKS = "23456789TJQKA"


def value(card: str) -> int:
    return RANKS.index(card[0])


def points(card: str) -> int:
    return 1 if card[1] == "H" else 13 if card == "QS" else 0


def referee_hand(n: int, dealer: int, hand_no: int, deck: list[str], actions: list[dict],
                 options: dict) -> list[int] | None:
    each = 104 // n
    hands: list[list[str]] = [[] for _ in range(n)]
    for k in range(each * n):
        hands[(dealer + 1 + k) % n].append(deck[k])
    widow = deck[each * n:]
    mode = options.get("passing", "left-right")
    offset = {"none": 0, "right": n - 1}.get(mode, 1 if hand_no % 2 == 1 else n - 1)
    i = 0
    if offset:
        passed: dict[int, list[str]] = {}
        while len(passed) < n:
            a = actions[i]
            for c in a["pass"]:
                hands[a["seat"]].remove(c)
            passed[a["seat"]] = a["pass"]
            i += 1
        for s, cards in passed.items():
            hands[(s + offset) % n] += cards
    leader = (dealer + 1) % n
    taken = [0] * n
    waiting: list[str] = []
    widow_taken = False
    broken = False
    for t in range(each):
        trick: list[str] = []
        for k in range(n):
            if i >= len(actions):
                return None
            a = actions[i]
            i += 1
            s = (leader + k) % n
            assert a["seat"] == s
            c = a["play"]
            assert c in hands[s]
            if t == 0 and k == 0 and points(c):
                assert all(points(x) for x in hands[s]), "the first lead may not be a heart or QS"
            if not trick and c[1] == "H" and t > 0:
                assert broken or all(x[1] == "H" for x in hands[s]), "hearts led unbroken"
            if trick and c[1] != trick[0][1]:
                assert not any(x[1] == trick[0][1] for x in hands[s]), "did not follow suit"
                if t == 0 and points(c) and options.get("no_points_on_first_trick"):
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
    if 52 in taken:
        if i >= len(actions):
            return None
        shooter = taken.index(52)
        assert actions[i]["seat"] == shooter
        if actions[i]["moon"] == "self":
            pts = [0] * n
            pts[shooter] = options.get("moon_self", -28)
        else:
            pts = [options.get("moon_others", 26)] * n
            pts[shooter] = 0
        return pts
    return taken


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_independent_referee_agrees_with_the_expected_scores(path: Path) -> None:
    record = json.loads(path.read_text())
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    n = len(record["players"])
    dealer = record.get("first_dealer", 0)
    scored = []
    for h, hand in enumerate(record["hands"]):
        pts = referee_hand(n, (dealer + h) % n, h + 1, hand["deck"], hand["actions"], record.get("options", {}))
        if pts is not None:
            scored.append(pts)
    assert scored == [row["points"] for row in expected["hands"]]


def test_goldens_cover_whole_games_and_cancelled_last_tricks() -> None:
    names = {p.stem for p in FILES}
    assert {"cancellation-hearts-bot-game-6p", "cancellation-hearts-all-cancelled-nobody",
            "cancellation-hearts-all-cancelled-leader"} <= names
    nobody = json.loads((GOLDEN / "cancellation-hearts-all-cancelled-nobody.expected.json").read_text())
    assert nobody["hands"][0]["points"] == [0] * 6


@pytest.mark.parametrize("n", [6, 7, 8, 9, 10, 11])
def test_independent_referee_agrees_on_random_games(n: int) -> None:
    """Beyond the goldens: random legal hands (random options) scored by both referees."""
    import random

    from trickref.engine import cards as C
    from trickref.engine.games import new_game

    rng = random.Random(n)
    for _ in range(4):
        opts = {"passing": rng.choice(["left-right", "right", "none"]),
                "no_points_on_first_trick": rng.random() < 0.5,
                "last_trick_cancelled": rng.choice(["nobody", "leader"]), "target": 10**6}
        g = new_game("cancellation-hearts", n, opts, rng.randrange(n))
        for _ in range(3):
            d = C.full_deck(2)
            rng.shuffle(d)
            g.start_hand(d)
            while g.turn_seats():
                s = rng.choice(g.turn_seats())
                g.apply(rng.choice(g.legal_actions(s)), s)
        record = g.to_json()
        for h, hand in enumerate(record["hands"]):
            pts = referee_hand(n, (g.first_dealer + h) % n, h + 1, hand["deck"], hand["actions"], g.options)
            assert pts == g.hand_results[h]["points"]
