"""Correcting an earlier hand of a refereed game after the game is over, from the game-over
screen's score sheet with the admin PIN, tapped like a finger: the corrected record replaces
the saved one in the games folder (the correction in it with when, why and by whom), the
players' history counts the corrected result instead of the old one, the journal of the next
game stays empty, and all of it is there after a restart. A correction that would reopen the
finished game is refused in words and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from finger import tap_target
from referee_helpers import play_to_end, referee_app, start

from trickref.ui import memory as M
from trickref.ui import wake


def _finished_game() -> tuple[Any, Path]:
    """A one-hand German Whist (target 5) played to its end: Ana by taps, Ben a rule bot."""
    from trickref.device.table.bot_worker import make_bot
    from trickref.ui.table_client import load_config

    app = referee_app()
    app.table_args = {"mode": "instant"}
    app.session_args["simulated"] = True
    app.setup.choose_game("german-whist")
    app.setup.names[:2] = ["Ana", "Ben"]
    start(app, "german-whist", 2, humans=(0,), options={"target": 5})
    M.add_player(app, "Ana")
    t = app.session.table
    t._on_worker(lambda: t.seats.use_maker(lambda game, level, r=False: make_bot(game, "rule")))
    play_to_end(app)
    assert app.scene.name == "gameover"
    return app, Path(load_config().storage.home_dir())


def _records(home: Path) -> list[Path]:
    return sorted(p for p in home.rglob("*.json") if "german-whist" in p.name)


def _to_the_reason(app: Any, ana: int) -> None:
    """Score sheet -> Correct -> the admin PIN -> hand 1 -> Ana's tricks ``ana`` -> Continue."""
    tap_target(app, "Score sheet")
    assert app.scene.name == "scoresheet"
    tap_target(app, "Correct")
    assert app.scene.name == "pin"
    for ch in "0000":
        tap_target(app, ch)
    tap_target(app, "OK")
    assert app.scene.name == "pick_hand"
    tap_target(app, "hand 1")
    assert app.scene.name == "hand_fix"
    tap_target(app, "Ana tricks")
    tap_target(app, f"pad {ana}")
    tap_target(app, "Ben tricks")
    tap_target(app, f"pad {13 - ana}")
    tap_target(app, "Continue")


def _other_end(t: Any) -> int:
    """A count of stage-two tricks for Ana that still ends the game (a margin of 9 or more)
    but not as played: 11, or 2 when she took 11 or more."""
    played = t.state.hand_results[0]["figures"]["tricks_stage2"]
    return 11 if played[0] < 11 else 2


def test_a_finished_refereed_game_is_corrected_from_its_score_sheet_and_it_lasts():
    app, home = _finished_game()
    t = app.session.table
    g = t.state
    before = _records(home)
    assert len(before) == 1 and g.over
    ana_now = _other_end(t)
    old_winners = list(g.winners)
    old_history = M.history(app, "Ana")["german-whist"]
    assert old_history.played == 1
    _to_the_reason(app, ana_now)
    tap_target(app, "reason revoke")
    app.render(force=True)
    words = " ".join(app.scene.changes())
    assert "Hand 1:" in words and "Totals:" in words
    tap_target(app, "Apply correction")
    assert app.scene.name == "scoresheet", getattr(app.scene, "error", "")
    assert g.over and g.hand_results[0]["entries"]["tricks"] == [ana_now, 13 - ana_now]
    fix = t.referee.hand_corrections[-1]
    assert fix["hand"] == 1 and fix["reason"] == "revoke" and fix["by"] == "admin" and fix["at"]
    # the games folder holds the game once: the corrected record in place of the first
    after = _records(home)
    assert len(after) == 1 and after != before
    record = json.loads(after[0].read_text())
    assert record["hand_corrections"][-1]["reason"] == "revoke" and record["hand_corrections"][-1]["at"] == fix["at"]
    from trickref.engine.records import parse, replay

    again = replay(parse(record))
    assert again.totals == g.totals and again.winners == g.winners
    # the history counts the corrected game once, with its new result
    now = M.history(app, "Ana")["german-whist"]
    assert now.played == 1 and now.won == (0 in g.winners) and now.best == g.totals[0]
    assert (0 in g.winners) != (0 in old_winners) or now.best != old_history.best
    # the next game's journal has nothing of it (a restart offers no game to resume)
    assert t.host.journal is not None and t.host.journal.count == 0
    tap_target(app, "Back")
    assert app.scene.name == "gameover"
    assert app.scene.model()["winners"] == list(g.winners)
    app.end_session()

    from trickref.ui.app import start_home
    from trickref.ui.resume import unfinished_game
    from trickref.ui.screenshots import make_app

    restarted = make_app((800, 480))
    start_home(restarted)
    restarted.render(force=True)
    assert restarted.scene.name == "home" and unfinished_game(restarted) is None
    assert M.history(restarted, "Ana")["german-whist"] == now
    assert _records(home) == after


def test_a_correction_that_would_reopen_the_finished_game_is_refused_in_words():
    app, home = _finished_game()
    t = app.session.table
    g = t.state
    saved = _records(home)
    totals = list(g.totals)
    # 7 and 6 tricks: a margin of 1 -- nobody reaches 5 any more
    _to_the_reason(app, 7 if g.hand_results[0]["figures"]["tricks_stage2"][0] != 7 else 6)
    tap_target(app, "reason miscounted")
    tap_target(app, "Apply correction")
    assert app.scene.name == "hand_reason"
    assert "would reopen it" in app.scene.error
    assert not app.scene.button("Apply correction").enabled  # the same correction is not offered again
    assert g.over and g.totals == totals and not t.referee.hand_corrections
    assert _records(home) == saved and M.history(app, "Ana")["german-whist"].played == 1
    app.end_session()


def test_a_table_change_while_the_score_sheet_shows_leaves_the_player_on_it():
    """The table publishes after the game is over (its record saved, a bot's thinker done: on a
    loaded Pi that comes a moment later): the score sheet a player opened from the game-over
    screen stays, and the tap on Correct lands on it (the loaded suite saw the kiosk jump back to
    the game-over screen under the finger)."""
    app, _home = _finished_game()
    tap_target(app, "Score sheet")
    assert app.scene.name == "scoresheet"
    tap_target(app, "Correct", while_held=wake.post)
    assert app.scene.name == "pin"
