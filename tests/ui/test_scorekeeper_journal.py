"""Keep-score sheets are never lost (issue 10, finding 1): every change is journalled with an
fsync before the screen moves on; a killed kiosk resumes the sheet on its next start and says
so; Menu -> Leave keeps it resumable from the home screen; a sheet abandoned for a new one is
saved as an unfinished record."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from kiosk_helpers import tap_button
from test_scorekeeper_ui import enter_hearts, start

from trickref.device.config import load
from trickref.device.games_store import GamesStore
from trickref.device.journal import Journal, JournalError
from trickref.device.scorekeep_journal import JOURNAL_NAME
from trickref.engine.scorekeeper import ScoreSheet

ROOT = Path(__file__).resolve().parents[2]


def journal_path() -> Path:
    return Path(load().config.storage.journal_dir()) / JOURNAL_NAME


def records_on_disk() -> list[Any]:
    """The journal as a fresh reader finds it (another process, after a power cut)."""
    j, records, _ = Journal.open(journal_path())
    j.close()
    return records


def new_start() -> Any:
    """A new kiosk process's start: a fresh app through ui.app.start_home."""
    from trickref.ui.app import start_home
    from trickref.ui.screenshots import make_app

    app = make_app((800, 480))
    start_home(app)
    app.render(force=True)
    return app


def test_every_entry_is_on_disk_with_an_fsync_before_the_screen_moves_on(small_app: Any, monkeypatch: Any) -> None:
    import trickref.device.journal as dj

    app = small_app
    start(app, "hearts", 4)
    assert [r["kind"] for r in records_on_disk()] == ["start"]
    synced: list[int] = []
    real = dj.os.fsync
    monkeypatch.setattr(dj.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    enter_hearts(app, [3, 5, 0, 5], 2)
    assert not synced, "nothing is written while the hand is being entered"
    tap_button(app, "Enter hand")
    assert len(synced) == 1
    recs = records_on_disk()
    assert recs[-1] == {"kind": "hand", "entries": app.scene.sheet.entries[0]}
    tap_button(app, "Undo hand")
    tap_button(app, "yes")
    assert len(synced) == 2 and records_on_disk()[-1] == {"kind": "undo"}


def test_a_killed_kiosk_resumes_the_sheet_and_says_so(tmp_path: Path) -> None:
    """Two hands entered by taps in a kiosk process that is then killed (SIGKILL: no clean
    exit, nothing flushed at exit); the next start opens the sheet where it stopped."""
    script = textwrap.dedent("""
        import os, signal, sys
        sys.path[:0] = [%r, %r]
        from kiosk_helpers import tap_button
        from test_scorekeeper_ui import enter_hearts, start
        from trickref.ui.screenshots import make_app
        app = make_app((800, 480))
        start(app, "hearts", 4)
        enter_hearts(app, [3, 5, 0, 5], 2)
        tap_button(app, "Enter hand")
        enter_hearts(app, [1, 2, 10, 0], 0)
        tap_button(app, "Enter hand")
        print("entered", app.scene.sheet.totals, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """) % (str(ROOT / "tests" / "ui"), str(ROOT))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy"))
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert "entered [17, 7, 23, 5]" in proc.stdout
    app = new_start()
    assert [s.name for s in app.scenes.stack] == ["scorekeeper_entry", "confirm"]
    msg = app.scene.model()["question"]
    assert msg == "Score sheet resumed"
    assert "Hearts, 4 players, 2 hands entered: Ana 17, Ben 7, Cem 23, Dee 5." in app.scene.detail
    tap_button(app, "yes")
    m = app.scene.model()
    assert m["scene"] == "scorekeeper_entry" and m["hand"] == 2 and m["totals"] == [17, 7, 23, 5]
    # and it goes on: the third hand joins the same journal
    enter_hearts(app, [0, 0, 13, 0], 2)
    tap_button(app, "Enter hand")
    assert [r["kind"] for r in records_on_disk()] == ["start", "hand", "hand", "hand"]


def test_a_torn_last_entry_is_dropped_and_said(small_app: Any) -> None:
    app = small_app
    start(app, "hearts", 4)
    enter_hearts(app, [3, 5, 0, 5], 2)
    tap_button(app, "Enter hand")
    with open(journal_path(), "ab") as f:
        f.write(b"TRJ1\x40\x00\x00\x00garbage")  # the power went while the next entry was written
    app2 = new_start()
    assert app2.scene.model()["question"] == "Score sheet resumed"
    assert "cut short by the power going was dropped" in app2.scene.detail
    assert app2.scenes.stack[0].sheet.totals == [3, 5, 13, 5]


def test_leave_keeps_the_sheet_and_home_resumes_it(small_app: Any) -> None:
    app = small_app
    start(app, "hearts", 4)
    enter_hearts(app, [3, 5, 0, 5], 2)
    tap_button(app, "Enter hand")
    tap_button(app, "Menu")
    tap_button(app, "yes")  # Leave
    assert app.scene.name == "home" and app.scene.model()["pending_sheet"] == "Hearts"
    tap_button(app, "Resume score sheet")
    assert app.scene.name == "confirm" and app.scene.model()["question"] == "An unfinished score sheet"
    tap_button(app, "yes")  # Resume it
    m = app.scene.model()
    assert m["scene"] == "scorekeeper_entry" and m["totals"] == [3, 5, 13, 5]
    # a restart after leaving resumes it too
    tap_button(app, "Menu")
    tap_button(app, "yes")
    assert new_start().scene.model()["question"] == "Score sheet resumed"


def test_a_new_sheet_saves_the_abandoned_one_as_an_unfinished_record(small_app: Any) -> None:
    app = small_app
    start(app, "hearts", 4)
    enter_hearts(app, [3, 5, 0, 5], 2)
    tap_button(app, "Enter hand")
    old = app.scene.sheet.to_json()
    tap_button(app, "Menu")
    tap_button(app, "yes")
    tap_button(app, f"game {'german-whist'}")
    tap_button(app, "Resume score sheet")
    tap_button(app, "New sheet")
    assert app.scene.name == "scorekeeper_entry" and app.scene.sheet.GAME_ID == "german-whist"
    store = GamesStore(load().config.storage.games_dir())
    saved = store.list_games()
    assert len(saved) == 1
    back = store.read(saved[0])
    assert isinstance(back, ScoreSheet) and back.to_json() == old and not back.over
    assert [r["kind"] for r in records_on_disk()] == ["start"]
    assert records_on_disk()[0]["record"]["game"] == "german-whist"


def test_a_finished_sheet_is_saved_and_not_resumed(small_app: Any) -> None:
    app = small_app
    start(app, "hearts", 4, target=50)
    for _ in range(2):
        enter_hearts(app, [0, 13, 0, 0], 1)  # a moon: everyone else +26
        tap_button(app, "Enter hand")
    assert app.scene.name == "scorekeeper_over" and app.scene.model()["saved"]
    # killed at game over: the next start saves it (the same file) and resumes nothing
    app2 = new_start()
    assert [s.name for s in app2.scenes.stack] == ["home"]
    assert records_on_disk() == []
    assert len(GamesStore(load().config.storage.games_dir()).list_games()) == 1


def test_an_entry_the_journal_cannot_write_is_not_taken(small_app: Any, monkeypatch: Any) -> None:
    app = small_app
    start(app, "hearts", 4)
    enter_hearts(app, [3, 5, 0, 5], 2)

    def full(self: Any, obj: Any) -> None:
        raise JournalError(f"{self.path}: cannot append: No space left on device")

    monkeypatch.setattr(Journal, "append", full)
    tap_button(app, "Enter hand")
    m = app.scene.model()
    assert m["scene"] == "scorekeeper_entry" and m["hand"] == 0 and m["totals"] == [0, 0, 0, 0]
    assert "No space left on device" in m["refusal"]
    monkeypatch.undo()
    tap_button(app, "Enter hand")
    assert app.scene.model()["totals"] == [3, 5, 13, 5]


@pytest.mark.parametrize("kind", ["first_dealer", "correction"])
def test_corrections_and_the_first_dealer_are_journalled(small_app: Any, kind: str) -> None:
    app = small_app
    start(app, "hearts", 4)
    if kind == "first_dealer":
        tap_button(app, "First dealer")
    else:
        enter_hearts(app, [3, 5, 0, 5], 2)
        tap_button(app, "Enter hand")
        app.scene.sheet.correct(1, -5, "revoke")
    sheet = app.scene.sheet
    app2 = new_start()
    again = app2.scenes.stack[0].sheet
    assert again.to_json() == sheet.to_json() and again.totals == sheet.totals


def test_every_kind_of_change_replays_and_a_failed_write_is_taken_back(tmp_path: Path, monkeypatch: Any) -> None:
    """The journal module on its own: start, first dealer, hands, corrections and undos (of a
    hand and of a correction) replay to the same sheet; a change whose record cannot be written
    leaves the sheet as it was."""
    from trickref.device.scorekeep_journal import ScorekeepJournal

    names = ["Ana", "Ben", "Cem", "Dee"]
    j = ScorekeepJournal.open(tmp_path)
    assert j.sheet is None and j.report.created
    sheet = j.start("partnership-spades", 4, {"target": 300}, 0, names)
    sheet.set_first_dealer(1)
    sheet.enter({"bids": [4, 4, 4, 4], "tricks": [2, 4, 3, 4]})
    sheet.correct(2, 10, "miscounted")
    sheet.undo()  # the correction
    sheet.correct(1, -10, "revoke")
    sheet.enter({"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]})
    sheet.undo()  # the hand
    want = sheet.to_json()
    j.close()
    again = ScorekeepJournal.open(tmp_path)
    assert again.sheet is not None and again.sheet.to_json() == want and again.sheet.totals == sheet.totals
    assert again.report.records == 8
    with pytest.raises(JournalError, match="finish it first"):
        again.start("hearts", 4, None, 0, names)

    def full(self: Any, obj: Any) -> None:
        raise JournalError("disk full")

    s = again.sheet
    monkeypatch.setattr(Journal, "append", full)
    for change in (lambda: s.enter({"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]}), lambda: s.correct(0, 5),
                   s.undo):
        with pytest.raises(JournalError, match="disk full"):
            change()
        assert s.to_json() == want
    monkeypatch.undo()
    # finishing saves the sheet (unfinished: 1 hand of a game to 300) and empties the journal
    store = GamesStore(tmp_path / "games")
    again.journal._games = store
    saved = again.finish()
    assert saved is not None and store.read(saved).to_json() == want
    again.close()
    assert ScorekeepJournal.open(tmp_path).sheet is None


def test_a_journal_damaged_in_the_middle_is_explained_and_moved_aside(small_app: Any) -> None:
    app = small_app
    start(app, "hearts", 4)
    enter_hearts(app, [3, 5, 0, 5], 2)
    tap_button(app, "Enter hand")
    enter_hearts(app, [1, 2, 10, 0], 0)
    tap_button(app, "Enter hand")
    path = journal_path()
    data = bytearray(path.read_bytes())
    data[20] ^= 0xFF  # inside the first record: confirmed entries follow it
    path.write_bytes(bytes(data))
    app2 = new_start()
    m = app2.scene.model()
    assert m["question"] == "The score sheet could not be read" and "damaged in the middle" in app2.scene.detail
    tap_button(app2, "yes")  # Move aside
    assert not path.exists() and list(path.parent.glob(f"{JOURNAL_NAME}.damaged-*"))
    assert app2.scene.model()["question"] == "Damaged journal moved aside"


def test_keep_score_on_a_damaged_journal_offers_to_move_it_aside(small_app: Any) -> None:
    app = small_app
    start(app, "hearts", 4)
    enter_hearts(app, [3, 5, 0, 5], 2)
    tap_button(app, "Enter hand")
    enter_hearts(app, [1, 2, 10, 0], 0)
    tap_button(app, "Enter hand")
    path = journal_path()
    data = bytearray(path.read_bytes())
    data[20] ^= 0xFF
    path.write_bytes(bytes(data))
    from trickref.ui.screenshots import make_app

    app2 = make_app((800, 480))
    app2.go("home")
    tap_button(app2, "Keep score (own cards)")
    assert app2.scene.model()["question"] == "The score sheet could not be read"
    tap_button(app2, "yes")
    tap_button(app2, "yes")  # OK on "moved aside"
    tap_button(app2, "Keep score (own cards)")
    assert app2.scene.name == "scorekeeper_entry" and app2.scene.sheet.hand_number == 0
