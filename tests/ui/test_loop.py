"""The main loop: redraw only on change, block when idle, events from other threads."""

from __future__ import annotations

import threading

from kiosk_helpers import settle, tap_button

from trickref.ui.app import post_table_event
from trickref.ui.screenshots import advance, start_game


def test_idle_home_blocks_and_does_not_redraw(small_app):
    app = small_app
    app.go("home")
    assert app.render()
    assert not app.render()  # nothing changed: no frame
    assert app.wait_ms() == 0  # 0 means: block until an event


def test_bots_and_dealing_ask_for_ticks(small_app):
    app = small_app
    app.session_args = {"bot_delay": 0.5, "trick_hold": 0.0, "deal_delay": True}
    start_game(app, "hearts", 4, humans=(), deal=False)
    app.route()
    assert app.scene.name == "dealing"
    assert 0 < app.wait_ms() <= 50
    for _ in range(200):
        app.tick(0.1)
        if app.scene.name != "dealing":
            break
    assert app.scene.name in ("play",)
    assert app.wait_ms() > 0  # bots still to move
    # a modal confirmation pauses the bots
    app.scene.menu()
    n = len(app.session.table.state.actions)
    for _ in range(20):
        app.tick(0.5)
    assert len(app.session.table.state.actions) == n
    assert app.wait_ms() == 0


def test_panel_presses_from_another_thread(small_app):
    app = small_app
    session = start_game(app, "spades-2p", 2, humans=(0, 1))
    session.simulated = False  # table mode: the physical seat panels bid
    advance(session, lambda st: st.phase == "bid")
    app.route()
    seat = session.table.turn()[0]

    def press() -> None:
        for key in ("+", "+", "+", "-", "OK"):
            post_table_event("panel", seat=seat, key=key)

    t = threading.Thread(target=press)
    t.start()
    t.join()
    import pygame

    for e in pygame.event.get():
        app.dispatch(e)
    assert session.table.state.bids[seat] == 2
    settle(app)


def test_pending_bid_is_shown_as_it_is_entered(small_app):
    app = small_app
    session = start_game(app, "partnership-spades", 4, humans=(0, 1, 2, 3))
    session.simulated = False
    advance(session, lambda st: st.phase == "bid")
    app.route()
    seat = session.table.turn()[0]
    session.table.panel(seat, "+")
    session.table.panel(seat, "+")
    app.render(force=True)
    rows = app.scene.model()["rows"]
    name = session.table.state.names[seat]
    assert f"{name}: entering 2" in rows
    # no hand on the shared screen in table mode, and no on-screen panel
    assert app.scene.model()["hand"] is None
    assert "panel OK" not in app.scene.model()["buttons"]


def test_dealer_fault_scene_and_resume(small_app):
    app = small_app
    app.session_args = {"bot_delay": 0.0, "trick_hold": 0.0, "deal_delay": True}
    start_game(app, "hearts", 4, humans=(0,), deal=False)
    app.route()
    app.tick(0.2)
    tap_button(app, "Simulate a jam")
    assert app.scene.name == "fault"
    m = app.scene.model()
    assert "jam" in m["title"].lower() and "cover" in m["fix"]
    dealt = app.session.table.dealer["dealt"]
    app.tick(1.0)
    assert app.session.table.dealer["dealt"] == dealt  # the dealer waits
    tap_button(app, "Resume")
    assert app.scene.name == "dealing"
    settle(app)
    assert app.session.table.state.hand_number == 1


def test_kiosk_command_starts_and_draws(tmp_path):
    """`trickref kiosk` runs the real loop (headless) until killed."""
    import os
    import subprocess
    import sys

    code = ("import threading, os, pygame\n"
            "from trickref.ui import app as A\n"
            "orig = A.App.render\n"
            "def render(self, force=False):\n"
            "    drew = orig(self, force)\n"
            "    if drew: print('frame', self.scene.name, flush=True); os._exit(0)\n"
            "    return drew\n"
            "A.App.render = render\n"
            "from trickref.ui.cli import main\n"
            "main(['kiosk', '--size', '1280x720'])\n")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "frame home" in out.stdout


def test_the_real_loop_draws_once_when_nothing_happens(small_app):
    app = small_app
    app.go("home")
    app.run(max_seconds=0.3)
    assert app.frames == 1  # the first frame, then nothing: no redraw without a change
