"""The kiosk on a full disk: the journal's write is refused mid-deal, the fault screen names the
journal, the disk and what to do (in the kiosk's language), nothing moves on while the disk is
full, and Resume after making room saves the waiting entries and the game goes on.

``full_disk`` (tests/conftest.py) is a real 1 MiB tmpfs under TRICKREF_HOME where the test may
mount (root), else ENOSPC injected at the journal's write."""

from __future__ import annotations

from kiosk_helpers import tap_button
from referee_helpers import _position, _table_state, human_step, pump, referee_app, start

from trickref.device.journal import peek
from trickref.ui.i18n import set_language


def play_until(app, done, max_steps: int = 3000) -> None:
    """The human seat taps on (bots and dealer on their own) until ``done(app)``."""
    for _ in range(max_steps):
        pump(app, lambda a: done(a) or not a.session.busy)
        if done(app):
            return
        before = _position(app)
        human_step(app)
        pump(app, lambda a, b=before: _position(a) != b or done(a) or a.scene.name == "gameover")
    raise AssertionError(f"never got there: {_table_state(app)}")


def test_a_full_disk_is_named_on_screen_nothing_moves_and_resume_goes_on(full_disk, monkeypatch) -> None:
    monkeypatch.setenv("TRICKREF_HOME", str(full_disk.path))
    app = referee_app(speed=3.0)  # a slow deal: the disk fills while it is under way
    session = start(app, "hearts", 4, humans=(0,), options={"target": 50})
    table = session.table
    pump(app, lambda a: a.scene.name == "dealing" and table.public_view()["table"]["dealer"]["dealt"] >= 1)
    journal = table.host.journal.path
    full_disk.fill()
    table.opened.world.sim.speed = 400.0
    # a real disk refuses the first write that needs a new block: within a few entries
    play_until(app, lambda a: a.scene.name == "fault")
    saved = len(peek(journal))
    m = app.scene.model()
    assert m["title"] == "The table cannot save the game"
    assert f"journal {journal} failed" in m["what"] and "No space left on device" in m["what"]
    if full_disk.real:
        assert f"The disk at {full_disk.path} has 0 bytes free of 1.0 MiB" in m["what"], m["what"]
    assert "Make room on that disk" in m["fix"] and "Resume" in m["fix"]
    held = list(table.host._held)
    position = _position(app)
    # Resume with the disk still full: the same screen again, nothing lost, nothing taken
    tap_button(app, "Resume")
    table.drain()
    pump(app, lambda a: a.scene.name == "fault")
    assert table.host._held == held and len(peek(journal)) == saved and _position(app)[3:] == position[3:]
    # in another language, the same facts
    set_language("fr")
    try:
        fr = app.scene.model()
        assert fr["title"] != m["title"] and str(journal) in fr["what"] and str(full_disk.path) in fr["what"]
    finally:
        set_language("en")
    full_disk.free()
    tap_button(app, "Resume")
    table.drain()
    pump(app, lambda a: a.scene.name != "fault")
    assert table.host.storage is None and not table.host._held, _table_state(app)
    # the held entries are in the journal now, in order, right after the last one saved
    assert peek(journal)[saved:saved + len(held)] == [e.to_json() for e in held]
    hand = table.referee.game.hand_number
    play_until(app, lambda a: a.session.table.referee.game.hand_number > hand or a.scene.name == "summary")
    assert len(peek(journal)) > saved + len(held)
