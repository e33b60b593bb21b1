"""The main loop: redraw only on change, block when idle, events from other threads."""

from __future__ import annotations

import threading

from kiosk_helpers import settle

from trickref.ui import wake
from trickref.ui.screenshots import advance, press, real_game, start_game


def test_idle_home_blocks_and_does_not_redraw(small_app):
    app = small_app
    app.go("home")
    assert app.render()
    assert not app.render()  # nothing changed: no frame
    assert app.wait_ms() == 0  # 0 means: block until an event


def test_bots_and_dealing_ask_for_ticks(small_app):
    app = small_app
    app.session_args = {"bot_delay": 0.5, "trick_hold": 0.0, "deal_delay": True}
    table = real_game(app, "hearts", 4, humans=())  # the simulated dealer takes its time
    sim = table.opened.world.sim
    sim.speed = 0.01  # slowed right down: the deal stays under way while the frames are checked
    app.route()
    assert app.scene.name == "dealing"  # entering it asks for the deal
    assert table.wait(lambda: table.public_view()["table"]["dealer"]["dealt"] >= 1)
    app.tick(0.05)
    assert app.scene.name == "dealing"
    assert 0 < app.wait_ms() <= 50  # a progress bar to move
    sim.speed = 400.0
    assert table.wait(lambda: table.public_view()["table"]["dealer"]["status"] != "busy" and bool(table.turn()))
    app.tick(0.05)
    assert app.scene.name == "play"
    assert app.wait_ms() > 0  # bots still to move
    # a modal confirmation pauses the bots
    app.scene.menu()
    table.drain()  # a bot entry the last tick let go lands (its thinker answers on its own thread)
    n = len(table.state.actions)
    for _ in range(20):
        app.tick(0.5)
    table.drain()
    assert len(table.state.actions) == n
    assert app.wait_ms() == 0


def test_panel_presses_from_another_thread(small_app):
    """A seat panel's thread (gpiozero's) hands its presses to the table host, not to the
    loop; the host's worker only wakes the loop, with an event that carries nothing."""
    import pygame

    from trickref.ui.session import Session
    from trickref.ui.table_client import open_client

    app = small_app
    table = open_client("spades-2p", 2, ["Ana", "Ben"], {}, (), mode="instant", seed=7, on_change=wake.poster())
    app.session = session = Session(table, **app.session_args)
    session.start_deal()
    table.drain()
    session.simulated = False  # table mode: the physical seat panels bid
    advance(session, lambda st: st.phase == "bid")
    app.route()
    assert app.scene.name == "bidding"
    seat = session.table.turn()[0]
    pygame.event.clear()

    def press() -> None:
        for key in ("+", "+", "+", "-", "OK"):
            session.table.panel(seat, key)

    t = threading.Thread(target=press)
    t.start()
    t.join()
    session.table.drain()
    assert session.table.state.bids[seat] == 2  # taken by the host, whatever the loop does
    woken = [e for e in pygame.event.get() if e.type == wake.TABLE_EVENT]
    assert woken and all(e.dict == {"kind": "table"} for e in woken)
    for e in woken:
        app.dispatch(e)
    assert app.scene.name == "bidding" and session.view()["game"]["bids"][seat] == 2
    settle(app)


def test_pending_bid_is_shown_as_it_is_entered(small_app):
    app = small_app
    session = start_game(app, "partnership-spades", 4, humans=(0, 1, 2, 3))
    session.simulated = False
    advance(session, lambda st: st.phase == "bid")
    app.route()
    seat = session.table.turn()[0]
    press(session.table, seat, "+", 2)
    app.render(force=True)
    rows = app.scene.model()["rows"]
    name = session.table.state.names[seat]
    assert f"{name}: entering 2" in rows
    # no hand on the shared screen in table mode, and no on-screen panel
    assert app.scene.model()["hand"] is None
    assert "panel OK" not in app.scene.model()["buttons"]


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
