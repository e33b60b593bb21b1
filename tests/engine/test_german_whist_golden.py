"""The German Whist golden records are known-good, not just recorded: the first hand of each
is re-derived here from the rules alone (no engine code) and compared with its expected
result; the all-tricks record's first hand was also checked by hand, trick by trick."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
RECORDS = sorted(p for p in GOLDEN.glob("german-whist*.json") if not p.name.endswith(".expected.json"))
RANKS = "23456789TJQKA"


def first_hand_points(rec: dict) -> tuple[list[int], list[int], list[int]]:
    """(points, stage-one tricks, stage-two tricks) of the record's first hand, by RULES.md."""
    hand = rec["hands"][0]
    deck: list[str] = hand["deck"]
    dealer = rec.get("first_dealer", 0)
    nd = 1 - dealer
    hands = {nd: set(deck[0:26:2]), dealer: set(deck[1:26:2])}
    trump = deck[26][1]
    stock = deck[26:]
    leader = nd
    t1, t2 = [0, 0], [0, 0]
    acts = hand["actions"]
    assert len(acts) == 52
    for t in range(26):
        (a, b) = acts[2 * t], acts[2 * t + 1]
        assert a["seat"] == leader and b["seat"] == 1 - leader
        lead, follow = a["play"], b["play"]
        assert lead in hands[leader] and follow in hands[1 - leader]
        if follow[1] != lead[1]:
            assert not any(c[1] == lead[1] for c in hands[1 - leader]), f"trick {t + 1}: must follow"
        hands[leader].discard(lead)
        hands[1 - leader].discard(follow)
        if follow[1] == lead[1]:
            win = 1 - leader if RANKS.index(follow[0]) > RANKS.index(lead[0]) else leader
        else:
            win = 1 - leader if follow[1] == trump else leader
        if t < 13:
            t1[win] += 1
            hands[win].add(stock[2 * t])  # the face-up card
            hands[1 - win].add(stock[2 * t + 1])  # the next, face down
        else:
            t2[win] += 1
        leader = win
    if rec.get("options", {}).get("score_all_tricks"):
        pts = [max(0, t1[s] + t2[s] - 13) for s in (0, 1)]
    else:
        pts = [max(0, t2[s] - 6) for s in (0, 1)]
    return pts, t1, t2


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_first_hand_re_derived_from_the_rules(path: Path) -> None:
    rec = json.loads(path.read_text())
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    pts, _, _ = first_hand_points(rec)
    assert expected["hands"][0]["points"] == pts


def test_the_hand_checked_golden() -> None:
    """german-whist-all-tricks, first hand, checked by hand: dealer seat 1, trump spades (9S);
    seat 0 wins 6 stage-one and 2 stage-two tricks, seat 1 wins 7 and 11: 18 - 13 = 5."""
    rec = json.loads((GOLDEN / "german-whist-all-tricks.json").read_text())
    assert first_hand_points(rec) == ([0, 5], [6, 7], [2, 11])
