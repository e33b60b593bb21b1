"""Golden records of whole Spades games: each tests/golden/<game>*.json replays to exactly its
tests/golden/<game>*.expected.json (the ``trickref replay --json`` output), and the first hand
of each is re-derived here independently of the engine (draws or deal, trick winners, scores).

Regenerate (only when a rule change is intended) with
``.venv/bin/python tests/engine/test_spades_golden.py``: whole games played by the bots with
fixed seeds; Double Nil replacement cards are drawn at random as the referee does.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trickref.engine import cards as C
from trickref.engine.actions import Action
from trickref.engine.base import trick_winner
from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.records import load, replay, summary

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FILES = sorted(p for p in GOLDEN.glob("*.json") if not p.name.endswith(".expected.json")
               and (p.name.startswith("spades-2p") or p.name.startswith("partnership-spades")))

# (file stem, game, players, options, seed)
GAMES: list[tuple[str, str, int, dict[str, Any], int]] = [
    ("spades-2p-bots", "spades-2p", 2, {}, 11),
    ("spades-2p-bots-options", "spades-2p", 2, {"first_bidder": "first", "failed_nil_tricks_are_bags": True,
                                                "target": 300}, 36),
    ("partnership-spades-bots", "partnership-spades", 4, {}, 14),
    ("partnership-spades-bots-openspiel-rules", "partnership-spades", 4,
     {"trump": "spades", "must_beat": False, "first_lead": "left", "target": 300,
      "nil_tricks_count_for_partner": True, "cap_team_bid_at_13": True, "loss_floor": -300}, 8),
]


def test_there_are_golden_files_for_both_games() -> None:
    names = [p.name for p in FILES]
    assert any(n.startswith("spades-2p") for n in names)
    assert any(n.startswith("partnership-spades") for n in names)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_golden_replays_to_its_expected_summary(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    state = replay(load(str(path)))
    assert summary(state) == expected
    assert state.over  # whole games
    assert state.to_json() == json.loads(path.read_text())


def test_cli_replay_json_matches_the_first_golden() -> None:
    path = FILES[0]
    out = subprocess.run([sys.executable, "-c", "from trickref.ui.cli import main; raise SystemExit(main())",
                          "replay", str(path), "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(path.with_name(path.stem + ".expected.json").read_text())


# ---------------------------------------------------------------------- first hand, by hand


def _tricks(plays: list[tuple[int, int]], leader: int, n: int, trump: int) -> tuple[list[int], int]:
    """Tricks taken per seat, re-derived with base.trick_winner, checking turn order."""
    taken = [0] * n
    for t in range(13):
        trick = plays[t * n:(t + 1) * n]
        assert [s for s, _ in trick] == [(leader + i) % n for i in range(n)]
        leader = trick_winner(trick, trump)
        taken[leader] += 1
    return taken, leader


def _contract(bid: int, t: int) -> tuple[int, int]:
    return (10 * bid + (t - bid), t - bid) if t >= bid else (-10 * bid, 0)


@pytest.mark.parametrize("path", [p for p in FILES if p.name.startswith("spades-2p")], ids=lambda p: p.name)
def test_first_hand_of_spades_2p_golden_by_hand(path: Path) -> None:
    rec = json.loads(path.read_text())
    opts = {"first_bidder": "second", "failed_nil_tricks_are_bags": False} | rec["options"]
    dealer = rec["first_dealer"]
    deck = [C.parse(c) for c in rec["hands"][0]["deck"]]
    acts = rec["hands"][0]["actions"]
    first, second = (dealer + 1) % 2, dealer
    hands: dict[int, list[int]] = {0: [], 1: []}
    pile: list[int] = []
    double = {0: False, 1: False}
    i = pos = 0
    for turn in range(26):
        seat = first if turn % 2 == 0 else second
        if "double_nil" in acts[i]:
            assert acts[i]["seat"] == seat and turn < 2
            double[seat] = True
            i += 1
        a = acts[i]
        assert a["seat"] == seat
        top, nxt = deck[pos], deck[pos + 1]
        keep, drop = (top, nxt) if a["draw"] == "keep" else (nxt, top)
        hands[seat].append(keep)
        pile.append(drop)
        pos += 2
        i += 1
    for seat in (first, second):
        if double[seat]:
            ex = acts[i]["exchange"]
            give, get = [C.parse(c) for c in ex["give"]], [C.parse(c) for c in ex["get"]]
            assert acts[i]["seat"] == seat and len(give) == len(get) <= 3
            assert set(get) <= set(pile) and set(give) <= set(hands[seat])
            hands[seat] = [c for c in hands[seat] if c not in give] + get
            i += 1
    bids = {s: 0 for s in (0, 1) if double[s]}
    order = [second, first] if opts["first_bidder"] == "second" else [first, second]
    for seat in order:
        if not double[seat]:
            assert acts[i]["seat"] == seat
            bids[seat] = acts[i]["bid"]
            i += 1
    plays = [(a["seat"], C.parse(a["play"])) for a in acts[i:]]
    assert len(plays) == 26
    for s in (0, 1):
        assert sorted(c for seat, c in plays if seat == s) == sorted(hands[s])
    taken, _ = _tricks(plays, second, 2, C.SPADES)
    points = []
    for s in (0, 1):
        if bids[s] == 0:
            value = 200 if double[s] else 100
            p = value if taken[s] == 0 else -value
            if taken[s] and opts["failed_nil_tricks_are_bags"]:
                p += taken[s]
        else:
            p, _ = _contract(bids[s], taken[s])
        points.append(p)  # no bag penalty is possible in a first hand of 13 tricks below 10 bags
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    first_row = expected["hands"][0]
    bag_counts = [max(0, taken[s] - bids[s]) if bids[s] else 0 for s in (0, 1)]
    if all(b < 10 for b in bag_counts):
        assert first_row["points"] == points


@pytest.mark.parametrize("path", [p for p in FILES if p.name.startswith("partnership")], ids=lambda p: p.name)
def test_first_hand_of_partnership_golden_by_hand(path: Path) -> None:
    rec = json.loads(path.read_text())
    opts = {"trump": "clubs", "first_lead": "dealer", "nil_tricks_count_for_partner": False} | rec["options"]
    dealer = rec["first_dealer"]
    deck = [C.parse(c) for c in rec["hands"][0]["deck"]]
    hands = {s: [deck[i] for i in range(52) if (dealer + 1 + i) % 4 == s] for s in range(4)}
    acts = rec["hands"][0]["actions"]
    bids = {}
    for k in range(4):
        a = acts[k]
        assert a["seat"] == (dealer + 1 + k) % 4 and "bid" in a  # no Blind Nil in a first hand (0 v 0)
        bids[a["seat"]] = a["bid"]
    plays = [(a["seat"], C.parse(a["play"])) for a in acts[4:]]
    for s in range(4):
        assert sorted(c for seat, c in plays if seat == s) == sorted(hands[s])
    leader = dealer if opts["first_lead"] == "dealer" else (dealer + 1) % 4
    trump = C.CLUBS if opts["trump"] == "clubs" else C.SPADES
    taken, _ = _tricks(plays, leader, 4, trump)
    expected_points = []
    for team in (0, 1):
        seats = (team, team + 2)
        pts = sum((100 if taken[s] == 0 else -100) for s in seats if bids[s] == 0)
        contract = sum(bids[s] for s in seats if bids[s] > 0)
        if contract:
            got = sum(taken[s] for s in seats if bids[s] > 0 or opts["nil_tricks_count_for_partner"])
            pts += _contract(contract, got)[0]
        expected_points.append(pts)
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    assert expected["hands"][0]["points"] == [expected_points[0], expected_points[1]] * 2


# ---------------------------------------------------------------------- regeneration


def play_game(game: str, players: int, options: dict[str, Any], seed: int) -> Any:
    rng = random.Random(seed)
    bot = bot_for(game)
    state = new_game(game, players, options, first_dealer=seed % players)
    while not state.over:
        deck = list(range(52))
        rng.shuffle(deck)
        state.start_hand(deck)
        while state.turn_seats():
            seat = state.turn_seats()[0]
            action = bot.choose(state, seat, rng)
            if action.kind == "exchange":  # the referee draws the replacements at random
                give = action.value[0]
                action = Action("exchange", (give, tuple(sorted(rng.sample(state.discards, len(give))))))  # type: ignore[attr-defined]
            state.apply(action, seat)
    return state


def regenerate() -> None:
    for stem, game, players, options, seed in GAMES:
        state = play_game(game, players, options, seed)
        path = GOLDEN / f"{stem}.json"
        path.write_text(json.dumps(state.to_json(), separators=(",", ":")) + "\n")
        out = subprocess.run([sys.executable, "-c", "from trickref.ui.cli import main; raise SystemExit(main())",
                              "replay", str(path), "--json"], capture_output=True, text=True, check=True)
        path.with_name(f"{stem}.expected.json").write_text(json.dumps(json.loads(out.stdout), indent=1) + "\n")
        print(path.name, len(state.hand_results), "hands", state.totals, state.winners)


if __name__ == "__main__":
    regenerate()
