"""Driving the kiosk on the referee path (ui.table_client): the simulated dealer works on its
own thread and posts pygame events, so the helpers here pump the real event queue and wait on
it (pygame.event.wait) instead of ticking a pretend dealer. Every wait has a generous limit
that only guards against a hang; nothing asserts how long anything took."""

from __future__ import annotations

from typing import Any

import pygame
from kiosk_helpers import tap, tap_button, tap_card, tap_shown_button

from trickref.engine import cards as C

HANG_GUARD_S = 120.0


def referee_app(size: tuple[int, int] = (800, 480), speed: float = 400.0) -> Any:
    from trickref.ui.screenshots import make_app

    app = make_app(size)
    app.session_args = {"bot_delay": 0.0, "trick_hold": 0.0, "deal_delay": True}
    app.table_args = {"speed": speed}
    app.seed = 5
    return app


def pump(app: Any, until: Any = None, guard: float = HANG_GUARD_S) -> None:
    """Run the loop (events from the dealer worker and the panels, ticks, frames) until
    ``until(app)`` holds, or until the table is quiet when ``until`` is None.

    ``guard`` bounds a hang, not a slow machine: it counts from the last time anything moved
    (the table host took an item, the scene changed), so a deal or a run of bot plays that a
    loaded machine makes slow is never cut short, and a table that stopped moving fails here,
    saying where it stood, ``guard`` seconds later."""
    import time

    end = time.monotonic() + guard
    moved = _progress(app)
    while True:
        now, at = time.monotonic(), _progress(app)
        if at != moved:
            moved, end = at, now + guard
        if now >= end:
            break
        for e in pygame.event.get():
            app.dispatch(e)
        app.tick(0.05)
        app.render()
        if until is not None:
            if until(app):
                return _settle(app)
        elif app.session is None or not app.session.busy:
            return _settle(app)
        ev = pygame.event.wait(20)  # wakes at once when the worker posts
        if ev.type != pygame.NOEVENT:
            app.dispatch(ev)
    raise AssertionError(f"the kiosk never got there (scene {app.scene.name if app.scene else None}; "
                         f"{_table_state(app)})")


def _progress(app: Any) -> tuple[Any, ...]:
    """What moves while the table works: the items its host took, the scene on screen."""
    table = getattr(app.session, "table", None)
    host = getattr(table, "host", None)
    return getattr(host, "changes", None), app.scene.name if app.scene is not None else None


def _table_state(app: Any) -> str:
    """Where the table stands, for a failure message: the dealer's fault and the last messages."""
    table = getattr(app.session, "table", None)
    ref = getattr(table, "referee", None)
    if ref is None:
        return "no table"
    last = [m["text"] for m in ref.messages[-6:]]
    host = table.host
    return (f"waiting {ref.waiting!r}, dealer fault {ref.dealer_fault!r}, steps {[s['op'] for s in ref.steps]}, "
            f"recoveries {host.recoveries}, errors {host.errors}, last messages {last}")


def _settle(app: Any) -> None:
    """The table changed on its own thread while the frame was drawn: draw the scene again from
    the state the condition was met in (the buttons the next tap looks for are laid out there)."""
    app.render(force=True)


def start(app: Any, game: str, players: int, humans: tuple[int, ...], options: dict[str, Any]) -> Any:
    from trickref.ui.resume import start_new_game

    st = app.setup
    st.choose_game(game)
    st.players = players
    bots = [s for s in range(players) if s not in humans]
    opts = dict(st.game_options(), **options)
    assert start_new_game(app, game, players, st.seat_names(), opts, bots)
    return app.session


def human_step(app: Any) -> str:
    """One step of the human side by taps; returns the scene acted on."""
    sc = app.scene
    name = sc.name
    if name == "summary":
        tap_button(app, sc.next.name)
    elif name == "handoff":
        tap_button(app, "Show my cards")
    elif name in ("play", "bidding"):
        act(app)
    elif name == "confirm":
        tap_button(app, "yes")
    elif name == "fault":
        tap_button(app, "Resume")
    return name


def act(app: Any) -> None:
    sc = app.scene
    sc.refresh()
    seat = sc.acting_seat
    if seat is None:
        return
    table = app.session.table
    legal = table.legal(seat)
    kinds = {a.kind for a in legal}
    if not kinds:  # the screen drawn before a bot's entry moved the game on (bots think off the UI thread)
        return
    if kinds & {"bid", "blind_nil"}:
        before = table.referee.game.bids[seat] if hasattr(table.referee.game, "bids") else None
        tap_button(app, "panel +")  # the first press shows bid 1 (the on-screen panel)
        pump(app, lambda a: seat in table.pending)
        tap_button(app, "panel OK")
        pump(app, lambda a: seat not in table.pending)
        assert before is None or table.referee.game.bids[seat] is not None
        return
    if "play" in kinds:
        card = min(a.value for a in legal if a.kind == "play")
        assert sc.model()["hand"] == table.seat_view(seat)["game"]["hand"]
        tap_card(app, C.NAMES[card])
        return
    if "pass" in kinds:
        # two decks: tap_card taps a card's first copy, so pass three different cards
        first = next(a for a in legal if a.kind == "pass" and len(set(a.value)) == len(a.value))
        for c in first.value:
            tap_card(app, C.NAMES[c])
        tap_button(app, f"Pass {len(first.value)} cards")
        return
    if "draw" in kinds:
        tap_shown_button(app, "Keep it")
        return
    if "moon" in kinds:
        o = table.state.options
        tap_button(app, f"Me {o['moon_self']:+d}")
        tap_button(app, "yes")  # the choice binds the hand: asked first
        return
    raise AssertionError(f"no tap for {sorted(kinds)}")


def play_to_end(app: Any, max_steps: int = 5000) -> list[str]:
    seen: list[str] = []
    for _ in range(max_steps):
        pump(app)
        if app.scene.name == "gameover":
            app.session.table.drain()  # the last entry (a bot's, from its thinker) fully carried out
            return seen
        before = _position(app)
        seen.append(human_step(app))
        pump(app, lambda a, b=before: _position(a) != b or a.scene.name == "gameover")
    raise AssertionError("the game did not end")


def _position(app: Any) -> Any:
    s = app.session
    ref = s.table.referee
    g = ref.game
    return (app.scene.name if app.scene else None, s.revealed, s.summary_seen, ref.waiting, ref.events_handled,
            None if g is None else (g.hand_number, len(g.actions)))


__all__ = ["pump", "start", "play_to_end", "referee_app", "tap", "act"]
