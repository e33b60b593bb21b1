"""Correcting an earlier hand: on a kept score sheet (ScoreSheet.amend) and in a refereed game
(the referee's HandCorrection, the record's ``hand_corrections``). The plays stay as played;
the hand, every total after it, the bags and the game's end follow; the record replays to the
same scores; a journal replays to the same referee."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trickref.engine import cards as C
from trickref.engine.bots import bot_for
from trickref.engine.errors import RecordError
from trickref.engine.games import new_game
from trickref.engine.records import dump, parse, replay, summary
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.autotable import replay as replay_events
from trickref.engine.referee.commands import Message, SaveRecord
from trickref.engine.referee.events import (
    HandCorrection,
    ScoreCorrection,
    UndoConfirm,
    UndoRequest,
    make_shuffle,
)
from trickref.engine.scorekeeper import EntryError, ScoreSheet, entries_from_figures, sheet_of_game


def sp(bids: list[int], tricks: list[int], double: list[bool] | None = None) -> dict[str, Any]:
    return {"bids": bids, "double_nil": double or [False, False], "tricks": tricks}


# ---------------------------------------------------------------------------- the kept sheet
def test_a_corrected_spades_hand_moves_every_total_and_the_bags_after_it() -> None:
    s = ScoreSheet("spades-2p", 2, {"target": 500}, names=["Ana", "Ben"])
    s.enter(sp([4, 5], [4, 9]))  # Ben 4 bags
    s.enter(sp([3, 5], [3, 10]))  # Ben 9 bags
    s.enter(sp([4, 4], [4, 9]))  # Ben 14 bags: -100, 4 carry
    assert s.bags == [0, 4] and s.hand_results[2]["points"] == [40, 45 - 100]
    # hand 2 was miscounted: Ben took 8, Ana 5 (Ben's bags 3 then, 8 after hand 3: no penalty)
    fix = s.amend(2, sp([3, 5], [5, 8]), "miscounted", "2025-05-02T21:14:03")
    assert fix["hand"] == 2 and fix["after_hand"] == 3 and fix["at"] == "2025-05-02T21:14:03"
    assert s.hand_results[1]["points"] == [32, 53] and s.hand_results[1]["bags"] == [2, 7]
    assert s.hand_results[2]["points"] == [40, 45 - 100] and s.bags == [2, 2]
    assert s.totals == [40 + 32 + 40, 54 + 53 - 55]
    # the hand keeps what was first entered, scored the same way
    row = s.hand_results[1]
    assert row["original"] == {"entries": sp([3, 5], [3, 10]), "points": [30, 55]}
    assert row["corrections"][0]["reason"] == "miscounted" and row["entries"]["tricks"] == [5, 8]
    assert "original" not in s.hand_results[0] and s.corrected_hands() == [2]


def test_a_correction_is_checked_like_an_entry_and_against_its_own_hand() -> None:
    s = ScoreSheet("partnership-spades", 4, names=["A", "B", "C", "D"])
    s.enter({"bids": [4, 3, 3, 3], "tricks": [4, 3, 3, 3]})
    s.enter({"bids": [1, 3, 1, 3], "tricks": [1, 5, 1, 6]})
    with pytest.raises(EntryError, match="add up to 12"):
        s.amend(1, {"bids": [4, 3, 3, 3], "tricks": [4, 3, 3, 2]})
    with pytest.raises(EntryError, match="no hand 3"):
        s.amend(3, {"bids": [4, 3, 3, 3], "tricks": [4, 3, 3, 3]})
    with pytest.raises(EntryError, match="nothing to correct"):
        s.amend(1, {"bids": [4, 3, 3, 3], "tricks": [4, 3, 3, 3]})
    # a Blind Nil the table allowed when the hand was played is not judged again
    s.amend(2, {"bids": [1, 0, 1, 3], "blind_nil": [False, True, False, False], "tricks": [1, 0, 6, 6]})
    assert s.hand_results[1]["entries"]["blind_nil"] == [False, True, False, False]
    assert len(s.amendments) == 1 and s.totals[0] == s.totals[2]


def test_undo_takes_back_whichever_change_came_last() -> None:
    s = ScoreSheet("german-whist", 2)
    s.enter({"tricks": [8, 5]})
    s.correct(1, 5, "carried over")
    s.amend(1, {"tricks": [9, 4]}, "revoke")
    assert s.totals == [3, 5] and s.last_undo_text() == "the correction of hand 1"
    assert "amendment" in s.undo() and s.totals == [2, 5]
    assert "correction" in s.undo() and s.totals == [2, 0]
    assert "entries" in s.undo() and not s.can_undo()


def test_a_correction_can_end_the_game_or_reopen_it() -> None:
    s = ScoreSheet("hearts", 4, {"target": 50})
    s.enter({"hearts": [0, 0, 13, 0], "qs": 2, "moon": "others"})  # 26 for the others
    s.enter({"hearts": [0, 4, 9, 0], "qs": 1})
    assert not s.over
    s.amend(1, {"hearts": [0, 0, 13, 0], "qs": 2, "moon": "self"})  # the shooter chose "self" after all
    assert s.hand_results[0]["points"] == [0, 0, s.options["moon_self"], 0]
    s.amend(2, {"hearts": [0, 4, 9, 0], "qs": 3}, "the Q\u2660 was Dee's")
    s.amend(1, {"hearts": [0, 0, 13, 0], "qs": 2, "moon": "others"})
    assert s.totals == [26, 30, 9, 39] and not s.over
    s.amend(2, {"hearts": [0, 4, 9, 0], "qs": 0}, "the Q\u2660 was Ana's")
    assert s.totals == [39, 30, 9, 26] and not s.over
    s.amend(2, {"hearts": [0, 11, 2, 0], "qs": 1})  # Ben 24 more: 50, the target
    assert s.over and s.winners == [2]
    s.undo()
    assert not s.over


def test_the_record_keeps_the_corrections_and_reads_back_the_same_sheet() -> None:
    s = ScoreSheet("cancellation-hearts", 6, names=list("ABCDEF"))
    s.enter({"hearts": [5, 5, 4, 4, 4, 4], "qs": [1, 1, 0, 0, 0, 0]})
    s.correct(2, -3, "misdeal")
    s.enter({"hearts": [6, 5, 4, 4, 4, 3], "qs": [0, 0, 2, 0, 0, 0]})
    s.amend(1, {"hearts": [4, 6, 4, 4, 4, 4], "qs": [1, 1, 0, 0, 0, 0]}, "miscounted", "21:02")
    obj = json.loads(json.dumps(s.to_json()))
    assert obj["hand_corrections"][0]["hand"] == 1 and obj["hand_corrections"][0]["after_hand"] == 2
    back = ScoreSheet.from_json(obj)
    assert back.summary() == s.summary() and back.hand_results[0]["original"] == s.hand_results[0]["original"]
    assert back.last_undo_text() == "the correction of hand 1"
    obj["hand_corrections"][0]["hand"] = 3
    with pytest.raises(RecordError, match=r"hand_corrections\[0\]\.hand"):
        ScoreSheet.from_json(obj)


def _entries(sheet: ScoreSheet, rng: random.Random) -> dict[str, Any]:
    """Random entries that can be right for ``sheet``'s game."""
    n, g = sheet.n, sheet.GAME_ID

    def split(total: int, parts: int) -> list[int]:
        cuts = sorted(rng.randint(0, total) for _ in range(parts - 1))
        return [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]

    if g == "spades-2p":
        return sp([rng.randint(0, 7) for _ in range(2)], split(13, 2))
    if g == "german-whist":
        return {"tricks": split(13, 2)}
    hearts = split(13, n)
    e: dict[str, Any] = {"hearts": hearts, "qs": rng.randrange(n)}
    e["moon"] = rng.choice(["self", "others"]) if sheet.moon_shooter(e) is not None else None
    return e


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(["spades-2p", "german-whist", "hearts"]), seed=st.integers(0, 2**32 - 1),
       ops=st.lists(st.sampled_from(["hand", "hand", "fix", "amend", "amend", "undo"]), max_size=25))
def test_totals_are_the_sum_of_the_lines_after_any_changes(game: str, seed: int, ops: list[str]) -> None:
    rng = random.Random(seed)
    sheet = ScoreSheet(game, 4 if game == "hearts" else 2, {"target": 10**6})
    for op in ops:
        try:
            if op == "hand":
                sheet.enter(_entries(sheet, rng))
            elif op == "fix":
                sheet.correct(rng.randrange(sheet.n), rng.choice([-10, -3, 4, 25]), "agreed")
            elif op == "amend" and sheet.entries:
                sheet.amend(rng.randint(1, len(sheet.entries)), _entries(sheet, rng), "miscounted", "now")
            elif op == "undo" and sheet.can_undo():
                sheet.undo()
        except EntryError as e:
            assert "nothing to correct" in e.reason
    fixes = [0] * sheet.n
    for c in sheet.corrections:
        fixes[c["seat"]] += c["points"]
    lines = [sum(r["points"][s] for r in sheet.hand_results) for s in range(sheet.n)]
    assert sheet.totals == [a + b for a, b in zip(lines, fixes, strict=True)]
    for h, row in enumerate(sheet.hand_results):  # each line scores the hand's last correction
        assert row["entries"] == sheet.effective(h)
        assert ("original" in row) == (h + 1 in sheet.corrected_hands())
    again = ScoreSheet.from_json(json.loads(json.dumps(sheet.to_json())))
    assert again.summary() == sheet.summary()


# ---------------------------------------------------------------------------- a dealt game's sheet
GAMES = [("hearts", 4, {}), ("hearts", 5, {"omnibus": True}), ("cancellation-hearts", 7, {}),
         ("spades-2p", 2, {}), ("partnership-spades", 4, {}), ("german-whist", 2, {}),
         ("german-whist", 2, {"score_all_tricks": True})]


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[f"{g}-{n}-{len(o)}" for g, n, o in GAMES])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_dealt_games_sheet_scores_every_hand_as_the_engine(game: str, players: int, options: dict[str, Any],
                                                             seed: int) -> None:
    rng = random.Random(seed)
    state = new_game(game, players, options, 0, None)
    bot = bot_for(game)
    while len(state.hand_results) < 3 and not state.over:
        if state.needs_deck:
            deck = C.full_deck(state.DECKS)
            rng.shuffle(deck)
            state.start_hand(deck)
            continue
        seat = state.turn_seats()[0]
        state.apply(bot.choose(state, seat, rng), seat)
    sheet = sheet_of_game(state)
    assert sheet.totals == state.totals and sheet.bags == state.bags
    assert [r["points"] for r in sheet.hand_results] == [r["points"] for r in state.hand_results]
    for row in state.hand_results:  # what a table keeping score would enter is a valid entry
        e = entries_from_figures(game, state.options, row["figures"])
        if e.get("nobody_hearts", 0) + e.get("nobody_qs", 0) == 0:
            assert ScoreSheet(game, players, options).before(1)._canonical(e, amending=True) == e


# ---------------------------------------------------------------------------- the referee
def _next_hand(t: AutoTable) -> None:
    """Deal the next hand (AutoTable stops asking for shuffles at ``max_hands``)."""
    g = t.ref.game
    t.max_hands = len(g.hand_results) + 1
    if t.ref.waiting == "shuffle":
        t.feed(make_shuffle(g.DECKS, t.shuffle_rng))
    t.drain()


def _first_hand(ref: Any) -> dict[str, Any]:
    """Hand 1's figures changed: two tricks (or hearts) moved from one seat to another."""
    e = dict(ref.game.hand_results[0].get("entries") or entries_from_figures(
        ref.game.GAME_ID, ref.game.options, ref.game.hand_results[0]["figures"]))
    key = "tricks" if "tricks" in e else "hearts"
    counts = list(e[key])
    a = next(s for s, c in enumerate(counts) if c >= 2)
    b = (a + 1) % len(counts)
    counts[a] -= 2
    counts[b] += 2
    e[key] = counts
    if "moon" in e:
        e["moon"] = None
        sheet = ScoreSheet(ref.game.GAME_ID, ref.game.n, ref.game.options)
        if sheet.moon_shooter(e) is not None:
            e["moon"] = "others"
    return e


@pytest.mark.parametrize("game,players", [("partnership-spades", 4), ("hearts", 4), ("german-whist", 2),
                                          ("cancellation-hearts", 6), ("spades-2p", 2)])
def test_the_referee_corrects_a_hand_and_its_record_replays_to_the_same_scores(game: str, players: int) -> None:
    t = AutoTable(seed=5, entry="touch")
    ref = t.run(game, players, {"target": 10000} if game != "german-whist" else {"target": 1000}, max_hands=2)
    g = ref.game
    assert g is not None and len(g.hand_results) == 2 and ref.waiting == "shuffle"
    played = summary(g)
    corrected = _first_hand(ref)
    out = t.feed(HandCorrection(1, corrected, "revoke", "admin", "2025-05-02T21:14:03"))
    assert not [c for c in out if isinstance(c, Message) and c.level == "warn" and "cannot" in c.text]
    row = g.hand_results[0]
    assert row["corrections"][0]["reason"] == "revoke" and row["original"]["points"] == played["hands"][0]["points"]
    assert summary(g)["totals"] != played["totals"]
    assert g.hand_results[1]["totals"] == [a + b for a, b in zip(row["totals"], g.hand_results[1]["points"],
                                                                  strict=True)]
    fix = ref.public_view()["table"]["hand_corrections"][0]
    assert fix["hand"] == 1 and fix["after_hand"] == 2 and fix["by"] == "admin" and "during_hand" not in fix
    record = [c for c in out if isinstance(c, SaveRecord)][0].record
    assert record["hand_corrections"] == [fix]
    # the hand after it is played on the corrected totals; the record replays to them
    _next_hand(t)
    for _ in range(5000):
        if len(g.hand_results) >= 3 or ref.waiting == "over":
            break
        if not t.step():
            t.drain()
    again = replay(parse(json.loads(json.dumps(dump(parse(ref.record()))))))
    assert summary(again) == summary(g)
    assert replay(parse(dict(ref.record(), hand_corrections=[]))).totals != g.totals
    assert replay_events(t.events) == ref  # the journal rebuilds the same referee


def test_a_correction_during_a_hand_is_replayed_at_its_place_and_survives_an_undo() -> None:
    t = AutoTable(seed=8, entry="touch")
    ref = t.run("partnership-spades", 4, {"target": 10000}, max_hands=1)
    _next_hand(t)
    g = ref.game
    while g.phase != "play" or len(g.actions) < 6:
        t.step()
    before = g.totals[:]
    t.feed(HandCorrection(1, _first_hand(ref), "miscounted"))
    fix = ref.hand_corrections[0]
    assert fix["during_hand"] == 2 and fix["after_action"] == len(g.actions)
    assert g.totals != before
    fixed = g.totals[:]
    t.feed(ScoreCorrection(1, 20, "agreed"))
    t.feed(UndoRequest(None))
    t.feed(UndoConfirm())
    assert g.totals == [fixed[0], fixed[1] + 20, fixed[2], fixed[3] + 20]
    while len(g.hand_results) < 2:
        t.step()
    state = replay(parse(ref.record()))
    assert summary(state) == summary(g)
    assert replay_events(t.events) == ref


def test_refused_corrections_change_nothing() -> None:
    t = AutoTable(seed=2, entry="touch")
    ref = t.run("hearts", 4, {"target": 10000}, max_hands=1)
    g = ref.game
    totals = g.totals[:]
    for ev in (HandCorrection(2, {"hearts": [13, 0, 0, 0], "qs": 1}), HandCorrection(0, {}),
               HandCorrection(1, {"hearts": [13, 0, 0, 0]}), HandCorrection(1, {"hearts": [14, 0, 0, 0], "qs": 1}),
               HandCorrection(1, entries_from_figures("hearts", g.options, g.hand_results[0]["figures"]))):
        out = t.feed(ev)
        assert any(isinstance(c, Message) and c.level == "warn" for c in out), ev
    assert g.totals == totals and not ref.hand_corrections


def test_a_correction_that_reaches_the_target_ends_the_game_and_one_that_undoes_it_reopens_it() -> None:
    t = AutoTable(seed=3, entry="touch")
    ref = t.run("german-whist", 2, {"target": 7}, max_hands=1)
    g = ref.game
    assert not g.over
    t.feed(HandCorrection(1, {"tricks": [13, 0]}, "agreed at the table"))
    assert g.over and g.winners == [0] and ref.waiting == "over"
    t.feed(HandCorrection(1, {"tricks": [7, 6]}, "no, it was 7-6"))
    assert not g.over and ref.waiting == "shuffle"
    record = ref.record()
    assert len(record["hand_corrections"]) == 2
    assert summary(replay(parse(record))) == summary(g)


def test_a_broken_hand_correction_is_an_invalid_record() -> None:
    t = AutoTable(seed=6, entry="touch")
    ref = t.run("hearts", 4, {"target": 10000}, max_hands=1)
    t.feed(HandCorrection(1, _first_hand(ref), "miscounted"))
    record = ref.record()
    for field, value, where in (("hand", 2, "hand"), ("after_hand", 5, "after_hand"), ("entries", [], "entries"),
                                ("reason", 7, "reason"), ("during_hand", 1, "during_hand")):
        bad = json.loads(json.dumps(record))
        bad["hand_corrections"][0][field] = value
        with pytest.raises(RecordError, match=rf"hand_corrections\[0\]\.{where}"):
            parse(bad)
    bad = json.loads(json.dumps(record))
    bad["hand_corrections"][0]["entries"]["hearts"] = [13, 13, 0, 0]
    with pytest.raises(RecordError, match=r"hand_corrections\[0\]\.entries"):
        replay(parse(bad))


def test_verify_checks_a_corrected_record_like_any_other() -> None:
    from trickref.engine.referee.fairness import verify_record

    t = AutoTable(seed=4, entry="touch")
    ref = t.run("spades-2p", 2, {"target": 10000}, max_hands=2)
    e = entries_from_figures("spades-2p", ref.game.options, ref.game.hand_results[1]["figures"])
    t.feed(HandCorrection(2, dict(e, tricks=e["tricks"][::-1]), "miscounted"))
    assert ref.hand_corrections
    checks = verify_record(ref.record())
    assert len(checks) == 2 and all(c.ok for c in checks)


# ---------------------------------------------------------------------------- the hand's review
@pytest.mark.parametrize("game,players", [("hearts", 4), ("hearts", 7), ("cancellation-hearts", 11),
                                          ("spades-2p", 2), ("partnership-spades", 4), ("german-whist", 2)])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), stop=st.integers(0, 400))
def test_the_trick_log_shows_every_card_played_and_never_one_in_a_hand(game: str, players: int, seed: int,
                                                                        stop: int) -> None:
    rng = random.Random(seed)
    state = new_game(game, players, {}, 0, None)
    bot = bot_for(game)
    deck = C.full_deck(state.DECKS)
    rng.shuffle(deck)
    state.start_hand(deck)
    for _ in range(stop):
        if state.phase in ("deal", "over"):
            break
        seat = state.turn_seats()[0]
        state.apply(bot.choose(state, seat, rng), seat)
    log = state.trick_log()
    shown = [c for t in log for _s, c in t["cards"]]
    held = [c for s in range(players) for c in C.names(state.hand_of(s))]
    plays = [C.NAMES[a.value] for _s, a in state.actions if a.kind == "play"]
    assert sorted(shown) == sorted(plays)  # every card played, each once (twice with two decks)
    if state.phase not in ("deal", "over"):
        assert not set(shown) & set(held) or state.DECKS == 2
        # with two decks a card may be both played and held (its twin): never more often than played
        for name in set(shown):
            assert shown.count(name) == plays.count(name)
    for t in log[:-1]:
        assert t["done"]
        if "cancelled" in t and t["winner"] is None:
            assert t["cancelled"]  # nobody won: every led-suit card was cancelled
    seats = [[s for s, _c in t["cards"]] for t in log]
    assert all(len(set(ss)) == len(ss) for ss in seats)


def test_replay_prints_the_corrected_scores_and_names_a_broken_correction(tmp_path: Any, capsys: Any) -> None:
    from trickref.ui.cli import main

    t = AutoTable(seed=6, entry="touch")
    ref = t.run("hearts", 4, {"target": 10000}, max_hands=1)
    t.feed(HandCorrection(1, _first_hand(ref), "miscounted"))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(ref.record()))
    assert main(["replay", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["totals"] == ref.game.totals
    bad = ref.record()
    bad["hand_corrections"][0]["entries"]["qs"] = 9
    path.write_text(json.dumps(bad))
    assert main(["replay", "--json", str(path)]) == 2
    out = capsys.readouterr()
    assert json.loads(out.out)["error"]["field"] == "hand_corrections[0].entries" and "Q" in out.err


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(["german-whist", "hearts", "partnership-spades"]), seed=st.integers(0, 10**6),
       when=st.lists(st.integers(0, 120), min_size=1, max_size=4))
def test_corrections_at_any_point_replay_from_the_record_and_the_journal(game: str, seed: int,
                                                                          when: list[int]) -> None:
    """Hand corrections made at random moments (between hands or in the middle of one), then
    play on: the record replays to the referee's scores, the journal to the same referee."""
    rng = random.Random(seed)
    n = {"german-whist": 2, "hearts": 4, "partnership-spades": 4}[game]
    t = AutoTable(seed=seed, entry="touch")
    t.max_hands = 4
    t.start(game, n, {"target": 10000})
    steps = 0
    marks = sorted(when)
    while t.ref.game is not None and len(t.ref.game.hand_results) < 4 and steps < 2000:
        g = t.ref.game
        while marks and steps >= marks[0] and g.hand_results:
            marks.pop(0)
            h = rng.randint(1, len(g.hand_results))
            e = entries_from_figures(game, g.options, g.hand_results[h - 1]["figures"])
            key = "tricks" if "tricks" in e else "hearts"
            counts = list(e[key])
            a = rng.choice([s for s, c in enumerate(counts) if c > 0])
            counts[a] -= 1
            counts[(a + 1) % n] += 1
            e[key] = counts
            if "moon" in e:
                e["moon"] = "others" if ScoreSheet(game, n, g.options).moon_shooter(e) is not None else None
            t.feed(HandCorrection(h, e, "miscounted", "admin", f"t{steps}"))
        if not t.step():
            t.drain()
            if not t.ref.accepting() and t.ref.waiting == "shuffle":
                break
        steps += 1
    g = t.ref.game
    assert g is not None
    fixes = t.ref.hand_corrections
    assert summary(replay(parse(json.loads(json.dumps(t.ref.record()))))) == summary(g)
    assert replay_events(t.events) == t.ref
    assert g.totals == [sum(r["points"][s] for r in g.hand_results) for s in range(n)] or not g.hand_results
    for f in fixes:  # each corrected hand scores its last correction
        last = [x for x in fixes if x["hand"] == f["hand"]][-1]
        assert g.hand_results[f["hand"] - 1]["entries"] == last["entries"]
