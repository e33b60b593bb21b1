"""The score sheet of scorekeeper mode (engine/scorekeeper.py): every game's entries, every
refusal with its reason, the seed examples about scoring, moons, omnibus, Blind Nil
eligibility, game end and ties, undo, corrections, records and their replay; and a property
test that entering the per-hand counts of random engine-played games gives the engine's totals
(which is what proves the sheet scores with the games' own code)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import random_action, random_deck, random_options
from hypothesis import given
from hypothesis import strategies as st

from trickref.engine import cards as C
from trickref.engine.base import GameState
from trickref.engine.errors import RecordError
from trickref.engine.games import new_game
from trickref.engine.scorekeeper import EntryError, ScoreSheet, is_scorekeeper_record


def sp(bids: list[int], tricks: list[int], double: list[bool] | None = None) -> dict[str, Any]:
    return {"bids": bids, "tricks": tricks, "double_nil": double or [False, False]}


def ps(bids: list[int], tricks: list[int], blind: list[bool] | None = None) -> dict[str, Any]:
    return {"bids": bids, "tricks": tricks, "blind_nil": blind or [False] * 4}


def refused(sheet: ScoreSheet, entries: dict[str, Any], *words: str) -> str:
    """Assert ``entries`` is refused by check and enter alike, with all ``words`` in the reason,
    and that the refusal changed nothing."""
    before = sheet.to_json()
    reason = sheet.check(entries)
    assert reason is not None, f"accepted: {entries}"
    for w in words:
        assert w in reason, f"{w!r} not in {reason!r}"
    with pytest.raises(EntryError) as e:
        sheet.enter(entries)
    assert isinstance(e.value, ValueError) and e.value.reason == reason
    assert sheet.to_json() == before
    return reason


# ---------------------------------------------------------------------------- spades-2p
def test_karen_bids_7_takes_8_scores_71() -> None:
    s = ScoreSheet("spades-2p", 2, names=["Karen", "Drew"])
    assert s.check(sp([7, 5], [8, 5])) is None
    assert s.enter(sp([7, 5], [8, 5])) == [71, 50]
    assert s.totals == [71, 50] and s.bags == [1, 0]


def test_bonnies_bags_11_cost_100_once_and_1_carries() -> None:
    s = ScoreSheet("spades-2p", 2, names=["Bonnie", "Other"])
    pts = [s.enter(sp([bid, 13 - took], [took, 13 - took]))[0] for bid, took in ((4, 7), (3, 6), (4, 9))]
    assert pts == [43, 33, 45 - 100]
    assert [r["bags"][0] for r in s.hand_results] == [3, 6, 1]
    assert s.totals[0] == 43 + 33 - 55


def test_spades_2p_nil_double_nil_and_failed_contract() -> None:
    s = ScoreSheet("spades-2p", 2)
    assert s.enter(sp([0, 5], [0, 13], [True, False])) == [200, 58]  # Double Nil made
    assert s.enter(sp([0, 5], [1, 12])) == [-100, 57 - 100]  # Nil failed; 8 + 7 bags cost 100
    assert s.bags == [0, 5]
    assert s.enter(sp([6, 9], [5, 8])) == [-60, -90]  # both set
    s2 = ScoreSheet("spades-2p", 2, {"failed_nil_tricks_are_bags": True})
    assert s2.enter(sp([0, 5], [2, 11])) == [-98, 56]
    assert s2.bags == [2, 6]


def test_spades_2p_refusals() -> None:
    s = ScoreSheet("spades-2p", 2, names=["Ana", "Ben"])
    refused(s, sp([4, 4], [6, 6]), "tricks add up to 12, not 13")
    refused(s, sp([4, 4], [7, 7]), "add up to 14")
    refused(s, sp([3, 4], [13, 0], [True, False]), "Ana declared Double Nil", "bid is 0")
    refused(s, sp([14, 4], [6, 7]), "bid of Ana", "14 is not possible")
    refused(s, sp([4, 4], [-1, 14]), "tricks of Ana")
    refused(s, {"bids": [4, 4], "tricks": [6, 7], "blind_nil": [False, False]}, "no entry 'blind_nil'")
    refused(s, {"bids": [4], "tricks": [6, 7]}, "one whole number per player (2)")
    refused(s, {"bids": [4, "4"], "tricks": [6, 7]}, "a whole number is needed")
    refused(s, {"bids": [4, 4], "tricks": [6, 7], "double_nil": [1, 0]}, "true or false")


def test_spades_2p_game_end_higher_total_and_ties_play_on() -> None:
    s = ScoreSheet("spades-2p", 2, {"target": 100})
    s.enter(sp([6, 6], [6, 7]))  # 60, 61
    assert not s.over
    s.enter(sp([4, 4], [4, 9]))  # 100, 110: both pass, higher wins
    assert s.over and s.winners == [1]
    refused(s, sp([4, 4], [4, 9]), "the game is over")
    t = ScoreSheet("spades-2p", 2, {"target": 100})
    t.enter(sp([10, 3], [10, 3]))  # 100, 30
    assert t.over and t.winners == [0]
    u = ScoreSheet("spades-2p", 2, {"target": 100})
    u.enter(sp([5, 5], [6, 7]))  # 51, 52
    u.enter(sp([5, 5], [7, 6]))  # 103, 103: equal totals play on
    assert u.totals == [103, 103] and not u.over and u.winners == []
    u.enter(sp([4, 4], [5, 8]))
    assert u.over and u.winners == [1]


# ---------------------------------------------------------------------------- partnership-spades
def test_partnership_team_scoring_and_options() -> None:
    s = ScoreSheet("partnership-spades", 4, names=["A", "B", "C", "D"])
    # team 0 bids 3 + 2 = 5, takes 3 + 3 = 6: 51; team 1 bids 4 + 3 = 7, takes 4 + 3: 70
    assert s.enter(ps([3, 4, 2, 3], [3, 4, 3, 3])) == [51, 70, 51, 70]
    assert s.bags == [1, 0, 1, 0]
    # A Nil made (+100) with C making 4 of 4 (+40); B and D set at 8 with 7
    assert s.enter(ps([0, 4, 4, 4], [0, 3, 6, 4])) == [142, -80, 142, -80]
    # Nil failed: tricks do not count for the partner by default and are not bags
    t = ScoreSheet("partnership-spades", 4)
    assert t.enter(ps([0, 4, 5, 4], [2, 4, 4, 3])) == [-150, -80, -150, -80]
    u = ScoreSheet("partnership-spades", 4, {"nil_tricks_count_for_partner": True})
    assert u.enter(ps([0, 4, 5, 4], [2, 4, 4, 3])) == [-100 + 51, -80, -49, -80]
    v = ScoreSheet("partnership-spades", 4, {"failed_nil_tricks_are_bags": True})
    assert v.enter(ps([0, 4, 5, 4], [2, 4, 4, 3])) == [-150 + 2, -80, -148, -80]
    assert v.bags == [2, 0, 2, 0]


def test_partnership_blind_nil_eligibility() -> None:
    s = ScoreSheet("partnership-spades", 4, names=["A", "B", "C", "D"])
    assert not any(s.nil_allowed(x) for x in range(4))
    refused(s, ps([0, 4, 4, 4], [0, 4, 5, 4], [True, False, False, False]),
            "A may not declare Blind Nil", "trail by more than 100", "0 to 0")
    s.enter(ps([4, 4, 4, 4], [2, 4, 3, 4]))  # team 0 set: -80; team 1: 80
    assert s.totals == [-80, 80, -80, 80]
    assert s.nil_allowed(0) and s.nil_allowed(2) and not s.nil_allowed(1)
    refused(s, ps([4, 0, 4, 4], [4, 0, 5, 4], [False, True, False, False]), "B may not declare Blind Nil", "a lead")
    refused(s, ps([0, 4, 0, 4], [0, 6, 0, 7], [True, False, True, False]), "at most one Blind Nil per team")
    refused(s, ps([2, 4, 4, 4], [0, 4, 5, 4], [True, False, False, False]), "A declared Blind Nil", "bid is 0")
    assert s.enter(ps([0, 4, 4, 4], [0, 4, 5, 4], [True, False, False, False])) == [241, 80, 241, 80]
    # exactly the margin is not enough ("strictly more")
    m = ScoreSheet("partnership-spades", 4, {"blind_nil_margin": 160})
    m.enter(ps([4, 4, 4, 4], [2, 4, 3, 4]))
    assert not m.nil_allowed(0)


def test_partnership_cap_and_loss_floor_and_ties() -> None:
    s = ScoreSheet("partnership-spades", 4, {"cap_team_bid_at_13": True}, names=["A", "B", "C", "D"])
    refused(s, ps([7, 1, 7, 1], [7, 0, 6, 0]), "A and C bid 14 together", "more than 13")
    f = ScoreSheet("partnership-spades", 4, {"loss_floor": -200})
    f.enter(ps([10, 1, 10, 1], [3, 4, 3, 3]))  # team 0: -200, at the floor: loses at once
    assert f.over and f.winners == [1, 3]
    both = ScoreSheet("partnership-spades", 4, {"loss_floor": -200})
    both.enter(ps([10, 10, 1, 1], [3, 3, 3, 4]))  # both teams set: -110, not yet at the floor
    assert both.totals == [-110, -110, -110, -110] and not both.over
    both.enter(ps([10, 10, 1, 1], [3, 3, 3, 4]))  # both at -220, equal: play on
    assert not both.over
    both.enter(ps([1, 10, 1, 1], [1, 3, 5, 4]))  # team 0 makes 2 with 4 bags: -196 (above the floor) v -330
    assert both.over and both.winners == [0, 2]
    tie = ScoreSheet("partnership-spades", 4, {"target": 100})
    tie.enter(ps([3, 3, 3, 3], [4, 3, 3, 3]))  # 61 v 60
    tie.enter(ps([2, 2, 2, 2], [3, 3, 3, 4]))  # 103 v 103: both passed, equal: play on
    assert tie.totals == [103, 103, 103, 103] and not tie.over and tie.winners == []
    tie.enter(ps([3, 3, 3, 3], [4, 3, 3, 3]))
    assert tie.over and tie.winners == [0, 2]


# ---------------------------------------------------------------------------- hearts
def h(hearts: list[int], qs: int | None, omnibus: int | None = None, moon: str | None = None) -> dict[str, Any]:
    return {"hearts": hearts, "qs": qs, "omnibus": omnibus, "moon": moon}


def test_hearts_points_and_refusals() -> None:
    s = ScoreSheet("hearts", 4, names=["Ana", "Ben", "Cem", "Dee"])
    assert s.tally(s.blank()) == ["hearts: 0 of 13", "Q\u2660: not chosen"]
    assert s.enter(h([3, 5, 0, 5], 2)) == [3, 5, 13, 5]
    refused(s, h([3, 5, 0, 6], 2), "hearts add up to 14, not 13", "no heart is ever set aside")
    refused(s, h([14, 0, 0, 0], 2), "hearts of Ana", "14 is not possible")
    refused(s, h([13, 0, 0, 0], None), "who took the Q\u2660")
    refused(s, {"hearts": [13, 0, 0, 0], "qs": [True, True, False, False]}, "only one player can take the Q\u2660",
            "Ana and Ben")
    refused(s, h([13, 0, 0, 0], 4), "seat from 0 to 3")
    refused(s, h([3, 5, 0, 5], 2, omnibus=1), "omnibus option is off")
    refused(s, h([3, 5, 0, 5], 2, moon="self"), "nobody shot the moon")
    assert s.tally(h([3, 5, 0, 5], 2)) == ["hearts: 13 of 13", "Q\u2660: Cem"]
    # five players: 2D and 2C set aside, but every heart is still in play
    f = ScoreSheet("hearts", 5)
    assert f.enter(h([2, 2, 3, 3, 3], 0)) == [15, 2, 3, 3, 3]


def test_hearts_moon_both_choices() -> None:
    s = ScoreSheet("hearts", 4, names=["Ana", "Ben", "Cem", "Dee"])
    entry = h([0, 13, 0, 0], 1)
    assert s.moon_shooter(entry) == 1
    refused(s, entry, "Ben shot the moon", "\"self\" (-25 for Ben)", "\"others\" (+26")
    assert s.enter({**entry, "moon": "self"}) == [0, -25, 0, 0]
    assert s.enter({**entry, "moon": "others"}) == [26, 0, 26, 26]
    # 13 hearts without the queen is no moon
    assert s.moon_shooter(h([0, 13, 0, 0], 2)) is None
    o = ScoreSheet("hearts", 4, {"moon_self": -26, "moon_others": 20})
    assert o.enter(h([0, 0, 13, 0], 2, moon="others")) == [20, 20, 0, 20]


def test_hearts_omnibus() -> None:
    s = ScoreSheet("hearts", 4, {"omnibus": True}, names=["Ana", "Ben", "Cem", "Dee"])
    assert [f["key"] for f in s.schema()] == ["hearts", "qs", "omnibus"]
    refused(s, h([3, 5, 0, 5], 2), "who took the 10\u2666")
    assert s.enter(h([3, 5, 0, 5], 2, omnibus=0)) == [-7, 5, 13, 5]
    # moon or not, the omnibus counts
    assert s.enter(h([13, 0, 0, 0], 0, omnibus=0, moon="self")) == [-35, 0, 0, 0]
    assert s.enter(h([13, 0, 0, 0], 0, omnibus=3, moon="others")) == [0, 26, 26, 16]
    j = ScoreSheet("hearts", 4, {"omnibus": True, "omnibus_card": "JD"})
    assert j.schema()[2]["label"] == "J\u2666"


def test_hearts_game_end_lowest_wins_and_ties_play_on() -> None:
    s = ScoreSheet("hearts", 3, {"target": 50})
    s.enter(h([12, 1, 0], 0))  # 25 1 0
    s.enter(h([0, 12, 1], 1))  # 25 26 1
    assert not s.over
    s.enter(h([12, 0, 1], 0))  # 50 26 2: reached, lowest wins
    assert s.over and s.winners == [2]
    refused(s, h([12, 0, 1], 0), "the game is over")
    w = ScoreSheet("hearts", 4, {"target": 50})
    w.enter(h([12, 0, 1, 0], 0))  # 25 0 1 0
    w.enter(h([12, 0, 1, 0], 0))  # 50 0 2 0: a tie for lowest plays on
    assert w.totals == [50, 0, 2, 0] and not w.over and w.winners == []
    w.enter(h([0, 1, 0, 12], 3))  # 50 1 2 25
    assert w.over and w.winners == [1]
    v = ScoreSheet("hearts", 4, {"target": 50})
    v.enter(h([0, 0, 0, 13], 3, moon="others"))  # 26 26 26 0
    v.enter(h([0, 0, 0, 13], 3, moon="others"))  # 52 52 52 0
    assert v.over and v.winners == [3]


# ---------------------------------------------------------------------------- cancellation-hearts
def ch(hearts: list[int], qs: list[int], nh: int = 0, nq: int = 0, moon: str | None = None) -> dict[str, Any]:
    return {"hearts": hearts, "qs": qs, "nobody_hearts": nh, "nobody_qs": nq, "moon": moon}


def test_cancellation_points_nobody_and_refusals() -> None:
    s = ScoreSheet("cancellation-hearts", 6, names=list("ABCDEF"))
    assert s.enter(ch([10, 6, 4, 3, 2, 1], [0, 1, 0, 0, 1, 0])) == [10, 19, 4, 3, 15, 1]
    # a fully cancelled last trick took 3 hearts and a Q♠ away
    assert s.enter(ch([10, 6, 4, 3, 0, 0], [0, 1, 0, 0, 0, 0], 3, 1)) == [10, 19, 4, 3, 0, 0]
    refused(s, ch([10, 6, 4, 3, 2, 2], [0, 1, 0, 0, 1, 0]), "hearts add up to 27, not 26")
    refused(s, ch([10, 6, 4, 3, 2, 1], [0, 1, 0, 0, 1, 1]), "Q\u2660 add up to 3, not 2")
    refused(s, ch([10, 6, 4, 3, 2, 1], [0, 3, 0, 0, 0, 0]), "Q\u2660 of B", "3 is not possible")
    # several fully cancelled tricks can wait under a cancelled last trick: more than one trick's worth
    assert s.enter(ch([10, 6, 4, 0, 0, 0], [0, 1, 0, 0, 0, 0], 6, 1)) == [10, 19, 4, 0, 0, 0]
    refused(s, ch([10, 6, 4, 3, 2, 1], [0, 1, 0, 0, 1, 0], 0, 3), "only two Q\u2660")
    lead = ScoreSheet("cancellation-hearts", 6, {"last_trick_cancelled": "leader"})
    assert [f["key"] for f in lead.schema()] == ["hearts", "qs"]
    refused(lead, ch([10, 6, 4, 3, 0, 0], [0, 1, 0, 0, 0, 0], 3, 1), "the leader takes a cancelled last trick")
    assert s.tally(ch([10, 6, 4, 3, 0, 0], [0, 1, 0, 0, 0, 0], 3, 1)) == [
        "hearts: 26 of 26 (nobody's included)", "Q\u2660: 2 of 2 (nobody's included)"]


def test_cancellation_moon_both_choices_and_game_end() -> None:
    s = ScoreSheet("cancellation-hearts", 6, names=list("ABCDEF"))
    moon = ch([0, 0, 26, 0, 0, 0], [0, 0, 2, 0, 0, 0])
    assert s.moon_shooter(moon) == 2
    refused(s, moon, "C shot the moon", "-28", "+26")
    assert s.moon_shooter(ch([0, 0, 26, 0, 0, 0], [0, 0, 1, 1, 0, 0])) is None
    assert s.enter({**moon, "moon": "self"}) == [0, 0, -28, 0, 0, 0]
    assert s.enter({**moon, "moon": "others"}) == [26, 26, 0, 26, 26, 26]
    pool = ScoreSheet("cancellation-hearts", 6, {"moon_self": -52, "moon_others": 52, "target": 100})
    pool.enter({**moon, "moon": "others"})
    pool.enter({**moon, "moon": "others"})
    assert pool.over and pool.winners == [2]


# ---------------------------------------------------------------------------- german-whist
def test_german_whist_entries_and_end() -> None:
    s = ScoreSheet("german-whist", 2, {"target": 7}, names=["Ana", "Ben"])
    assert s.enter({"tricks": [9, 4]}) == [3, 0]
    refused(s, {"tricks": [9, 5]}, "stage-two tricks add up to 14, not 13")
    refused(s, {"tricks": [14, -1]}, "from 0 to 13")
    s.enter({"tricks": [3, 10]})  # 3, 4
    s.enter({"tricks": [11, 2]})  # 8, 4
    assert s.over and s.winners == [0]
    a = ScoreSheet("german-whist", 2, {"score_all_tricks": True})
    assert a.schema()[0]["sum"] == 26
    refused(a, {"tricks": [9, 4]}, "tricks add up to 13, not 26")
    assert a.enter({"tricks": [16, 10]}) == [3, 0]


# ---------------------------------------------------------------------------- undo, corrections, records
def test_undo_and_corrections() -> None:
    s = ScoreSheet("hearts", 4, {"target": 50}, names=["Ana", "Ben", "Cem", "Dee"])
    assert not s.can_undo() and s.last_undo_text() is None
    with pytest.raises(ValueError, match="nothing to undo"):
        s.undo()
    s.enter(h([3, 5, 0, 5], 2))
    s.enter(h([0, 0, 12, 1], 2))
    assert s.dealer == 2 and s.hand_number == 2
    assert s.last_undo_text() == "hand 2"
    assert s.undo() == {"entries": h([0, 0, 12, 1], 2)}
    assert s.totals == [3, 5, 13, 5] and s.dealer == 1
    s.correct(1, -5, "miscounted")
    assert s.totals == [3, 0, 13, 5]
    assert s.corrections == [{"after_hand": 1, "seat": 1, "points": -5, "reason": "miscounted"}]
    assert s.hand_results[-1]["totals"] == [3, 5, 13, 5]  # the hand's own row is not edited
    assert s.last_undo_text() == "the correction Ben -5"
    assert s.undo() == {"correction": {"after_hand": 1, "seat": 1, "points": -5, "reason": "miscounted"}}
    assert s.totals == [3, 5, 13, 5]
    with pytest.raises(EntryError, match="non-zero whole number"):
        s.correct(1, 0, "nothing")
    with pytest.raises(EntryError, match="seat from 0 to 3"):
        s.correct(4, 3, "")
    # a correction can end the game, and undoing it reopens it
    s.correct(2, 40, "penalty")
    assert s.totals[2] == 53 and s.over and s.winners == [0]
    s.undo()
    assert not s.over
    # partnership: a correction counts for the team
    p = ScoreSheet("partnership-spades", 4)
    p.correct(1, 50, "admin")
    assert p.totals == [0, 50, 0, 50]


def test_json_round_trip_and_record_shape() -> None:
    s = ScoreSheet("partnership-spades", 4, {"target": 300}, first_dealer=2, names=["A", "B", "C", "D"])
    s.enter(ps([4, 4, 4, 4], [2, 4, 3, 4]))
    s.correct(0, 10, "claim")
    s.enter(ps([0, 4, 4, 4], [0, 4, 5, 4], [True, False, False, False]))
    obj = json.loads(json.dumps(s.to_json()))
    assert obj["mode"] == "scorekeeper" and is_scorekeeper_record(obj)
    assert obj["options"] == {"target": 300} and obj["first_dealer"] == 2
    assert all(set(hand) == {"entries"} for hand in obj["hands"])
    assert obj["corrections"] == [{"after_hand": 1, "seat": 0, "points": 10, "reason": "claim"}]
    back = ScoreSheet.from_json(obj)
    assert back.to_json() == s.to_json()
    assert back.summary() == s.summary() and back.hand_results == s.hand_results
    assert back.dealer == s.dealer == 0
    bad = dict(obj, hands=[*obj["hands"], {"entries": ps([4, 4, 4, 4], [4, 4, 4, 4])}])
    with pytest.raises(EntryError) as e:
        ScoreSheet.from_json(bad)
    assert e.value.hand == 2 and "add up to 16" in e.value.reason
    with pytest.raises(RecordError, match="hands\\[0\\]"):
        ScoreSheet.from_json(dict(obj, hands=[{"deck": []}]))
    with pytest.raises(RecordError, match="mode"):
        ScoreSheet.from_json(dict(obj, mode=None))


def _cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trickref.ui.cli", "replay", "--json", str(path)],
                          capture_output=True, text=True, timeout=60)


def test_replay_of_a_scorekeeper_record(tmp_path: Path) -> None:
    s = ScoreSheet("hearts", 4, {"omnibus": True, "target": 50}, names=["Ana", "Ben", "Cem", "Dee"])
    s.enter(h([3, 5, 0, 5], 2, omnibus=1))
    s.enter(h([13, 0, 0, 0], 0, omnibus=0, moon="others"))
    s.correct(3, -4, "scoring slip")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(s.to_json()))
    r = _cli(good)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == s.summary()
    assert json.loads(r.stdout)["totals"] == [-7, 21, 39, 27]
    obj = s.to_json()
    obj["hands"][1]["entries"]["hearts"] = [13, 1, 0, 0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(obj))
    r = _cli(bad)
    assert r.returncode == 1
    err = json.loads(r.stdout)["error"]
    assert err["hand"] == 1 and "hearts add up to 14" in err["reason"]
    assert "hand 2: " in r.stderr, "people read hands counted from 1 (the JSON keeps the index)"
    obj["game"] = "bridge"
    bad.write_text(json.dumps(obj))
    r = _cli(bad)
    assert r.returncode == 2 and json.loads(r.stdout)["error"]["field"] == "game"
    bad.write_text("{not json")
    assert _cli(bad).returncode == 2


# ---------------------------------------------------------------------------- the engine and the sheet agree
def entries_of(state: GameState) -> dict[str, Any]:
    """What the players would enter for the hand ``state`` just finished, read off the engine."""
    g, n = state.GAME_ID, state.n
    st_: Any = state
    if g == "spades-2p":
        return {"bids": list(st_.bids), "double_nil": list(st_.double), "tricks": list(st_.tricks_taken)}
    if g == "partnership-spades":
        return {"bids": list(st_.bids), "blind_nil": list(st_.blind), "tricks": list(st_.tricks_taken)}
    if g == "german-whist":
        if state.options["score_all_tricks"]:
            return {"tricks": [st_.tricks1[s] + st_.tricks2[s] for s in range(2)]}
        return {"tricks": list(st_.tricks2)}
    moon = next((a.value for _, a in state.actions if a.kind == "moon"), None)
    hearts = [0] * n
    qs = [0] * n
    if g == "hearts":
        for _, cards, w in st_.tricks:
            hearts[w] += sum(1 for c in cards if c // 13 == C.HEARTS)
            qs[w] += cards.count(C.QS)
        omnibus = st_.omnibus_taker if state.options["omnibus"] else None
        return {"hearts": hearts, "qs": qs.index(1), "omnibus": omnibus, "moon": moon}
    waiting: list[int] = []
    widow = list(st_.widow)
    for _leader, cards, w in st_.tricks:
        waiting += cards
        if w >= 0:
            for c in waiting + widow:
                hearts[w] += c // 13 == C.HEARTS
                qs[w] += c == C.QS
            waiting, widow = [], []
    last_leader = st_.tricks[-1][0]
    if waiting and state.options["last_trick_cancelled"] == "leader":
        for c in waiting:
            hearts[last_leader] += c // 13 == C.HEARTS
            qs[last_leader] += c == C.QS
        waiting = []
    nobody = waiting + widow
    return {"hearts": hearts, "qs": qs, "nobody_hearts": sum(c // 13 == C.HEARTS for c in nobody),
            "nobody_qs": nobody.count(C.QS), "moon": moon}


GAMES = [("spades-2p", 2), ("partnership-spades", 4), ("german-whist", 2), ("hearts", 3), ("hearts", 4),
         ("hearts", 5), ("hearts", 7), ("cancellation-hearts", 6), ("cancellation-hearts", 8),
         ("cancellation-hearts", 11)]


@pytest.mark.parametrize(("game", "players"), GAMES, ids=[f"{g}-{n}" for g, n in GAMES])
@given(seed=st.integers(0, 2**32 - 1))
def test_sheet_scores_random_engine_games_like_the_engine(game: str, players: int, seed: int) -> None:
    rng = random.Random(seed)
    opts = random_options(game, rng)
    if game == "partnership-spades" and rng.random() < 0.5:
        opts["loss_floor"] = -200
    state = new_game(game, players, opts, first_dealer=rng.randrange(players))
    sheet = ScoreSheet(game, players, opts, state.first_dealer)
    for _ in range(4):
        if state.over:
            break
        state.start_hand(random_deck(rng, state.DECKS))
        while state.phase not in ("deal", "over"):
            state.apply(*reversed(random_action(state, rng)))
        entries = entries_of(state)
        if entries.get("nobody_hearts", 0) + entries.get("nobody_qs", 0) > players:
            # several cancelled tricks in a row at the end: beyond the one-trick bound of entries
            assert sheet.check(entries) is not None
            return
        reason = sheet.check(entries)
        assert reason is None, (entries, reason)
        sheet.enter(entries)
        assert sheet.hand_results[-1]["points"] == state.hand_results[-1]["points"]
        assert sheet.totals == state.totals
        assert sheet.bags == state.bags
        assert (sheet.over, sheet.winners) == (state.over, state.winners)
        assert sheet.dealer == state.dealer
    assert ScoreSheet.from_json(json.loads(json.dumps(sheet.to_json()))).summary() == sheet.summary()


def test_a_dealt_game_reader_names_a_scorekept_record_for_what_it_is() -> None:
    from trickref.engine.records import parse

    s = ScoreSheet("german-whist", 2)
    s.enter({"tricks": [7, 6]})
    with pytest.raises(RecordError) as e:
        parse(s.to_json())
    assert e.value.field == "mode" and "ScoreSheet.from_json" in e.value.problem


def test_first_dealer_only_before_the_first_hand() -> None:
    s = ScoreSheet("hearts", 4)
    s.set_first_dealer(3)
    assert s.dealer == 3
    s.enter(h([3, 5, 0, 5], 2))
    assert s.dealer == 0 and s.to_json()["first_dealer"] == 3
    with pytest.raises(EntryError, match="before the first hand"):
        s.set_first_dealer(1)
    with pytest.raises(EntryError, match="seat from 0 to 3"):
        ScoreSheet("hearts", 4).set_first_dealer(4)
