"""What the independent referees of the Hearts family share (tests/engine/test_hearts_golden.py,
test_cancellation_hearts_golden.py): card values and points, the passes, the moon's choice, and
the two drivers that hold a referee against the golden records' expected scores and against
the engine on random games. Written from RULES.md, with no engine code: each game's own
referee (the deal, the leads, cancelling, the omnibus) stays in its test file.

A referee is ``referee_hand(n, dealer, hand_no, deck, actions, options)``: the hand's points,
or None when the record stops part way through it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

RANKS = "23456789TJQKA"
PASS = 3  # cards a pass takes in both games

RefereeHand = Callable[[int, int, int, list[str], list[dict], dict], "list[int] | None"]


def value(card: str) -> int:
    return RANKS.index(card[0])


def points(card: str) -> int:
    return 1 if card[1] == "H" else 13 if card == "QS" else 0


def take_passes(hands: list[list[str]], actions: list[dict], offset: int) -> int:
    """Every seat's pass (the first n actions, in any order: passes are simultaneous), each
    three cards of the passer's hand, handed ``offset`` seats on; returns the next action's index."""
    n = len(hands)
    passed: dict[int, list[str]] = {}
    i = 0
    while len(passed) < n:
        a = actions[i]
        assert a["seat"] not in passed and len(a["pass"]) == PASS, a
        for c in a["pass"]:
            assert c in hands[a["seat"]], f"seat {a['seat']} passed {c}, not in its hand"
            hands[a["seat"]].remove(c)
        passed[a["seat"]] = a["pass"]
        i += 1
    for s, cards in passed.items():
        hands[(s + offset) % n] += cards
    return i


def next_play(actions: list[dict], i: int, seat: int, hands: list[list[str]]) -> str | None:
    """The card ``actions[i]`` plays, checked to be ``seat``'s turn and a card of its hand;
    None when the record stops before it."""
    if i >= len(actions):
        return None
    a = actions[i]
    assert a["seat"] == seat
    assert a["play"] in hands[seat]
    return str(a["play"])


def assert_follows(trick: list[str], card: str, hand: list[str]) -> None:
    """A card of another suit than the lead's only from a hand void in it."""
    if trick and card[1] != trick[0][1]:
        assert not any(x[1] == trick[0][1] for x in hand), "did not follow suit"


def moon_points(taken: list[int], full: int, actions: list[dict], i: int, options: dict,
                self_default: int) -> list[int] | None:
    """The hand's points once its tricks are taken: as taken, or, when one seat took all
    ``full`` points, what the shooter chose (``actions[i]``; None when not chosen yet)."""
    if full not in taken:
        return list(taken)
    if i >= len(actions):
        return None
    shooter = taken.index(full)
    assert actions[i]["seat"] == shooter
    if actions[i]["moon"] == "self":
        pts = [0] * len(taken)
        pts[shooter] = options.get("moon_self", self_default)
    else:
        pts = [options.get("moon_others", 26)] * len(taken)
        pts[shooter] = 0
    return pts


def assert_expected_scores(path: Path, referee_hand: RefereeHand) -> None:
    """The referee's points for every hand of the golden record at ``path`` that was played
    through are its ``.expected.json``'s."""
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


def assert_agrees_on_random_games(game: str, n: int, referee_hand: RefereeHand, options: Callable[[random.Random], dict],
                                  games: int, hands: int = 3) -> None:
    """Beyond the goldens: ``games`` games of ``hands`` random legal hands (seeded by ``n``,
    options drawn by ``options``), every hand scored by the referee as the engine scored it."""
    from trickref.engine import cards as C
    from trickref.engine.games import new_game

    rng = random.Random(n)
    for _ in range(games):
        opts: dict[str, Any] = options(rng)
        g = new_game(game, n, opts, rng.randrange(n))
        for _ in range(hands):
            d = C.full_deck(g.DECKS)
            rng.shuffle(d)
            g.start_hand(d)
            while g.turn_seats():
                s = rng.choice(g.turn_seats())
                g.apply(rng.choice(g.legal_actions(s)), s)
        record = g.to_json()
        for h, hand in enumerate(record["hands"]):
            pts = referee_hand(n, (g.first_dealer + h) % n, h + 1, hand["deck"], hand["actions"], g.options)
            assert pts == g.hand_results[h]["points"]
