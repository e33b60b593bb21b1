"""The score sheet as the paper pad, correcting an earlier hand, and the hand's review, driven
on the kiosk with taps held like a finger (frames drawn while the finger is down, a few pixels
of drift before it lifts)."""

from __future__ import annotations

import json
import re
from typing import Any

import pygame
import pytest
from kiosk_helpers import settle

from trickref.engine import cards as C
from trickref.engine.scorekeeper import ScoreSheet
from trickref.ui import paperpad as P
from trickref.ui import screenshots as S


def finger(app: Any, pos: tuple[int, int], frames: int = 4, drift: int = 3) -> None:
    """A finger's tap: down, frames drawn while it is held (~0.2 s), a small drift, up."""
    x, y = int(pos[0]), int(pos[1])
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1, touch=True))
    for i in range(frames):
        app.tick(0.05)
        app.render(force=True)
        if i == frames // 2:
            app.dispatch(pygame.event.Event(pygame.MOUSEMOTION, pos=(x + drift, y + drift), rel=(drift, drift),
                                            buttons=(1, 0, 0), touch=True))
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(x + drift, y + drift), button=1, touch=True))
    app.render(force=True)


def press(app: Any, name: str) -> None:
    app.render(force=True)
    b = app.scene.button(name)
    assert b.visible and b.enabled, (name, app.scene.name)
    finger(app, b.rect.center)


def hand_row(app: Any, hand: int) -> tuple[int, int]:
    """Where hand ``hand``'s line of the pad is on screen."""
    app.render(force=True)
    grid = app.scene.grid
    i = next(i for i, ln in enumerate(grid.pad.lines) if ln.hand == hand and not ln.fix)
    r = grid.line_rects()[i].clip(grid.rect)
    assert r.height > 0, "the hand's line is scrolled out of sight"
    return r.centerx, r.centery


# ---------------------------------------------------------------------------- the pad, as data
def test_each_games_pad_has_what_its_players_write() -> None:
    s = ScoreSheet("spades-2p", 2, names=["Ana", "Ben"])
    s.enter({"bids": [0, 5], "double_nil": [True, False], "tricks": [0, 13]})
    s.enter({"bids": [0, 5], "double_nil": [False, False], "tricks": [2, 11]})
    pad = P.pad_of(s)
    assert pad.columns == ["bid", "made", "bags", "score"] and pad.sides == ["Ana", "Ben"]
    ana = [ln.cells[0] for ln in pad.lines]
    assert ana[0][0].lines == ["Double"] and ana[0][0].mark == "made" and ana[1][0].mark == "failed"
    assert ana[1][1].lines == ["2"] and pad.lines[1].cells[1][2].lines == [str(s.hand_results[1]["bags"][1])]
    assert pad.rows()[0] == ["1", f"{s.hand_results[0]['points'][0]:+d}/{s.totals[0] - s.hand_results[1]['points'][0]}",
                             "+58/58"]
    assert P.pad_of(s, compact=True).lines[1].cells[0][0].lines == ["Nil/2"]

    t = ScoreSheet("partnership-spades", 4, names=["Ana", "Ben", "Cem", "Dee"])
    t.enter({"bids": [3, 4, 0, 3], "tricks": [4, 4, 0, 5]})
    pad = P.pad_of(t)
    assert pad.sides == ["Ana & Cem", "Ben & Dee"]
    assert pad.lines[0].cells[0][0].lines == ["3", "Nil"] and pad.lines[0].cells[0][1].lines == ["4", "0"]

    h = ScoreSheet("hearts", 4, names=["Ana", "Ben", "Cem", "Dee"])
    h.enter({"hearts": [0, 0, 13, 0], "qs": 2, "moon": "others"})
    pad = P.pad_of(h)
    assert pad.moon and [c[0].mark for c in pad.lines[0].cells] == [None, None, "moon", None]

    c = ScoreSheet("cancellation-hearts", 6, names=list("ABCDEF"))
    c.enter({"hearts": [5, 5, 4, 4, 4, 4], "qs": [2, 0, 0, 0, 0, 0]})
    pad = P.pad_of(c)
    assert pad.lines[0].cells[0][0].lines == ["5\u2665", "2 Q\u2660"]
    assert P.pad_of(c, compact=True).lines[0].cells[0][0].lines == ["5\u2665 2Q\u2660", "31"]

    w = ScoreSheet("german-whist", 2, names=["Ana", "Ben"])
    w.enter({"tricks": [9, 4]})
    w.correct(1, 2, "agreed")
    w.amend(1, {"tricks": [8, 5]}, "miscounted")
    pad = P.pad_of(w)
    assert pad.lines[0].cells[0][0].lines == ["8"] and pad.lines[0].corrected and pad.corrected == [1]
    assert pad.rows() == [["1", "+2/2", "+0/0"], ["fix", "", "+2"]]


# ---------------------------------------------------------------------------- keep-score
def kept_hearts(app: Any) -> ScoreSheet:
    dict(S.scenarios())["keep-score-sheet"](app)
    assert app.scene.name == "scorekeeper_sheet"
    return app.scene.sheet


def test_a_correction_that_changes_nothing_or_leaves_a_box_empty_stays_refused_on_screen() -> None:
    """"Continue" on a hand's figures as they are, or with a box cleared, is refused as "Enter
    hand" is (the same flow): the reason on screen, the first empty box in focus, the sheet
    unchanged."""
    app = S.make_app((800, 480))
    sheet = kept_hearts(app)
    totals = sheet.totals[:]
    press(app, "Correct")
    press(app, "hand 2")
    press(app, "Continue")
    m = app.scene.model()
    assert app.scene.name == "hand_fix" and m["refusal"] == "hand 2 already has these figures: nothing to correct"
    press(app, "Clear")
    press(app, "Continue")
    m = app.scene.model()
    assert app.scene.name == "hand_fix" and m["refusal"].startswith("still to enter: "), m["refusal"]
    assert m["refusal"] == m["reason"] and m["focus"] is not None and m["focus"][0] == "hearts"
    assert sheet.totals == totals and not sheet.amendments


@pytest.mark.parametrize("size", [(800, 480), (720, 1280)], ids=["800x480", "portrait"])
def test_anyone_corrects_a_kept_hand_and_a_restart_keeps_it(size: tuple[int, int], tmp_path: Any) -> None:
    from trickref.ui import layoutcheck as L

    app = S.make_app((800, 480))
    sheet = kept_hearts(app)
    L.resize(app, size)
    totals = sheet.totals[:]
    press(app, "Correct")
    assert app.scene.name == "pick_hand"
    press(app, "hand 2")
    assert app.scene.name == "hand_fix" and app.scene.model()["entries"]["hearts"] == [1, 2, 10, 0]
    assert app.scene.model()["reason"] == "hand 2 already has these figures: nothing to correct"
    press(app, "Cem hearts")
    press(app, "pad 9")
    press(app, "Ana hearts")
    press(app, "pad 2")
    assert app.scene.model()["entries"]["hearts"] == [2, 2, 9, 0]
    press(app, "Continue")
    assert app.scene.name == "hand_reason"
    m = app.scene.model()
    assert m["changes"][0] == "Hand 2: Ana +14 -> +15, Cem +10 -> +9" and "Apply correction" not in m["buttons"]
    press(app, "reason revoke")
    press(app, "Apply correction")
    assert app.scene.name == "scorekeeper_sheet"
    assert sheet.totals == [totals[0] + 1, totals[1], totals[2] - 1, totals[3]]
    fix = sheet.amendments[0]
    assert fix["hand"] == 2 and fix["reason"] == "revoke" and fix["at"][:2] == "20"
    assert "2*" in [r[0] for r in app.scene.model()["rows"]] or app.scene.grid.pad.corrected == [2]
    # what it said before is on the hand's own page
    finger(app, hand_row(app, 2))
    assert app.scene.name == "hand"
    lines = app.scene.model()["lines"]
    assert lines[0] == ["Ana", "2\u2665 Q\u2660: +15", "1\u2665 Q\u2660: +14"]
    press(app, "Close")
    # the journal kept it: the sheet read back after a power cut has the correction
    from trickref.device.games_store import GamesStore
    from trickref.device.scorekeep_journal import ScorekeepJournal
    from trickref.ui.scenes.scorekeeper_entry import _folders

    app.scorekeep.close()
    jdir, gdir = _folders()
    again = ScorekeepJournal.open(jdir, GamesStore(gdir))
    assert again.sheet is not None and again.sheet.summary() == sheet.summary()
    assert again.sheet.amendments[0]["reason"] == "revoke"
    assert json.loads(json.dumps(again.sheet.to_json()))["hand_corrections"][0]["hand"] == 2
    again.close()
    app.end_session()


def test_a_typed_reason_and_undo_of_a_correction(small_app: Any) -> None:
    app = small_app
    sheet = kept_hearts(app)
    before = sheet.totals[:]
    finger(app, hand_row(app, 1))
    press(app, "Correct this hand")
    press(app, "Dee hearts")
    press(app, "pad 4")
    press(app, "Ben hearts")
    press(app, "pad 6")
    press(app, "Continue")
    press(app, "reason typed")
    assert app.scene.name == "keyboard"
    for ch in "LATE":
        press(app, ch)
    press(app, "OK")
    assert app.scene.name == "hand_reason" and app.scene.model()["reason"].lower() == "late"
    press(app, "Apply correction")
    assert sheet.amendments[-1]["hand"] == 1 and sheet.totals != before
    press(app, "Undo hand")
    assert app.scene.name == "confirm" and "hand 1" in app.scene.question
    press(app, "yes")
    assert not sheet.amendments and sheet.totals == before


def test_a_kept_sheet_of_11_players_pages_its_players(small_app: Any) -> None:
    app = small_app
    dict(S.scenarios())["keep-score-sheet-cancellation-11"](app)
    from trickref.ui import layoutcheck as L

    L.resize(app, (800, 480), True)
    app.render(force=True)
    m = app.scene.model()
    assert m["pages"] > 1 and m["side_page"] == 0
    shown = set(app.scene.texts)
    press(app, "Next players")
    assert app.scene.model()["side_page"] == 1
    assert "Kim" in app.scene.texts and "Kim" not in shown
    press(app, "Previous players")
    assert app.scene.model()["side_page"] == 0


# ---------------------------------------------------------------------------- refereed
def test_a_refereed_hand_is_corrected_behind_the_admin_pin(small_app: Any) -> None:
    app = small_app
    s = S.start_game(app, "german-whist", 2, names=["Ana", "Ben"], options={"target": 100})
    S.advance(s, lambda st: st.hand_number == 2 and st.phase == "deal")
    s.summary_seen = 2
    S.show(app, scene="scoresheet")
    g = s.table.state
    played = [r["figures"]["tricks_stage2"] for r in g.hand_results]
    press(app, "Correct")
    assert app.scene.name == "pin"
    for ch in "1234":
        press(app, ch)
    press(app, "OK")
    assert app.scene.name == "pin" and app.scene.message == "wrong PIN"
    app.scene.text = ""
    for ch in "0000":
        press(app, ch)
    press(app, "OK")
    assert app.scene.name == "pick_hand"
    press(app, "hand 1")
    assert app.scene.name == "hand_fix" and app.scene.model()["entries"]["tricks"] == played[0]
    a = played[0][0]
    press(app, "Ana tricks")
    press(app, f"pad {13 - a}")
    press(app, "Ben tricks")
    press(app, f"pad {a}")
    press(app, "Continue")
    press(app, "reason miscounted")
    press(app, "Apply correction")
    assert app.scene.name == "scoresheet"
    ref = s.table.referee
    fix = ref.hand_corrections[0]
    assert fix["hand"] == 1 and fix["by"] == "admin" and fix["reason"] == "miscounted"
    assert g.hand_results[0]["entries"]["tricks"] != played[0]
    assert app.scene.grid.pad.corrected == [1]
    # the journal's replay (a power cut) rebuilds the corrected game; the record replays to it
    from trickref.engine.records import parse, replay, summary

    assert summary(replay(parse(ref.record()))) == summary(g)
    # the game goes on from the corrected totals
    press(app, "Back")
    settle(app)


def test_the_hand_page_of_a_refereed_game_shows_before_and_now(small_app: Any) -> None:
    app = small_app
    dict(S.scenarios())["hand-page-corrected"](app)
    m = app.scene.model()
    assert app.scene.name == "hand" and m["hand"] == 2
    assert all(now != before for _side, now, before in m["lines"][:1]) or any(
        now != before for _side, now, before in m["lines"])
    app.end_session()


# ---------------------------------------------------------------------------- the review
@pytest.mark.parametrize("game,players", [("hearts", 4), ("cancellation-hearts", 11), ("german-whist", 2),
                                          ("partnership-spades", 4), ("spades-2p", 2)])
def test_the_review_shows_every_card_played_and_none_still_held(game: str, players: int) -> None:
    app = S.make_app((800, 480))
    s = S.start_game(app, game, players, humans=(0,), seed=5)
    # stopped on the person's turn: the bots (off the UI thread) cannot play while the review is
    # compared with the game
    S.advance(s, lambda st: st.phase == "play" and sum(a.kind == "play" for _s, a in st.actions) >= 2 * players + 1
              and 0 in st.turn_seats())
    S.show(app, reveal=0)
    assert app.scene.name == "play"
    press(app, "Review")
    assert app.scene.name == "review"
    g = s.table.state
    plays = sorted(C.NAMES[a.value] for _s, a in g.actions if a.kind == "play")
    assert sorted(app.scene.model()["cards"]) == plays
    # on the shared screen (nobody's hand shown) every card drawn is one played or out of play
    s.conceal()
    app.render(force=True)
    shown = {f"{'10' if c[0] == 'T' else c[0]}{C.SUIT_SYMBOLS[C.SUITS.index(c[1])]}"
             for c in plays + list(s.view()["game"].get("removed") or [])}
    for text in app.scene.texts:
        for token in re.findall(r"(?:10|[2-9AJQK])[\u2660\u2665\u2666\u2663]", text):
            assert token in shown, (token, text)
    s.reveal(0)
    press(app, "Back")
    assert app.scene.name == "play"
    app.end_session()


def test_a_refereed_correction_is_journalled_and_resumed_after_leaving() -> None:
    """On the referee path (simulated dealer, the table's journal): a hand corrected, the game
    left from the menu and resumed from the journal: the same correction, the same totals."""
    from referee_helpers import pump, referee_app, start

    from trickref.ui.scenes.handfix import TableFixer

    app = referee_app()
    start(app, "german-whist", 2, (), {"target": 100})
    pump(app, lambda a: len(a.session.table.state.hand_results) >= 1 and a.session.table.referee.waiting != "turn")
    g = app.session.table.state
    played = g.hand_results[0]["figures"]["tricks_stage2"]
    TableFixer(app, None).apply(1, {"tricks": played[::-1]}, "revoke", "2025-05-02T21:14:03")
    ref = app.session.table.referee
    assert ref.hand_corrections and g.hand_results[0]["entries"]["tricks"] == played[::-1]
    totals, record = g.totals[:], ref.record()
    app.go("scoresheet")
    press(app, "Back")
    press(app, "Menu")
    press(app, "yes")  # Leave
    press(app, "Resume game")
    pump(app, lambda a: a.session is not None and a.scene.name == "confirm")
    again = app.session.table.referee
    assert again.hand_corrections == ref.hand_corrections and again.game.totals[:len(totals)] == totals
    assert again.record()["hand_corrections"] == record["hand_corrections"]
    app.end_session()
