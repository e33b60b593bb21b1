"""Staging a kiosk position through the referee's own events, never by writing state (the
screenshot set, ui.screenshots and ui.shots, and the kiosk tests use it).

- ``start_game(app, game, players, humans, seed, options, deal, names)``: a new seeded game on
  an instant-mode table (``open_client(mode="instant")``), the session on ``app``; dealt unless
  ``deal=False``. Shuffles and bot choices follow from ``seed``, so a scene is the same on
  every run.
- ``real_game(app, game, players, humans, seed)``: a game on the referee path (the simulated
  dealer on a pty, a journal).
- ``advance(session, until)``: every seat played by the game's bot (a human seat's choice goes
  in as a touch entry, a bot seat's as a bot action), new hands shuffled and dealt by the host,
  until ``until(state)`` holds for the engine state (read only).
- ``auto_step(table)``: one such decision; ``press(table, seat, key, times)``: seat-panel
  presses ('-', '+', 'OK'; a bid being entered); ``correct(table, seat, points)``: an admin's
  score correction (the referee's ``ScoreCorrection``); ``correct_hand(table, hand)``: an
  admin's correction of an earlier hand (the referee's ``HandCorrection``).
- ``keep(app, game, players, options, hands, entries)``: a kept score (own cards) with
  ``hands`` entered and ``entries`` being typed.
- ``show(app, reveal, scene)``: route (or go to a scene) and draw one frame.

Every helper returns with the table idle (``TableClient.drain``), so what is read next is the
state the step left.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

SIZES = ((800, 480), (1024, 600), (1280, 720), (720, 1280))  # as ui.layoutcheck.LAYOUT_SIZES


def headless() -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def make_app(size: tuple[int, int], settings: Any = None) -> Any:
    """An app drawing into an off-screen surface, with instant bots and dealing."""
    headless()
    import pygame

    from .app import App, init_pygame
    from .settings import Settings

    init_pygame()
    if pygame.display.get_surface() is None:
        pygame.display.set_mode((1, 1))
    app = App(size, settings=settings or Settings(), surface=pygame.Surface(size))
    app.session_args = {"bot_delay": 0.0, "trick_hold": 0.0, "deal_delay": False}
    return app


def start_game(app: Any, game: str, players: int, humans: tuple[int, ...] = (0,), seed: int = 7,
               options: dict[str, Any] | None = None, deal: bool = True, names: list[str] | None = None) -> Any:
    """A new seeded game on an instant-mode table host (the referee with the ideal dealer, no
    journal), its session on ``app``; the first hand dealt unless ``deal`` is False."""
    from .session import Session
    from .table_client import open_client

    st = app.setup
    st.choose_game(game)
    st.players = players
    if names:
        st.names[: len(names)] = names
    bots = [s for s in range(players) if s not in humans]
    table = open_client(game, players, st.seat_names(), dict(st.game_options(), **(options or {})), bots,
                        mode="instant", seed=seed)
    app.end_session()
    app.session = Session(table, **app.session_args)
    if deal:
        app.session.start_deal()
        table.drain()
    return app.session


def real_game(app: Any, game: str, players: int, humans: tuple[int, ...] = (0,), seed: int = 7) -> Any:
    """A game on the referee path (simulated dealer, journal) with a fast simulator; not dealt
    yet (``app.session.start_deal()`` starts the deal). Needs TRICKREF_HOME set to a scratch
    folder (``render_all`` does)."""
    from .session import Session
    from .table_client import start_table

    st = app.setup
    st.choose_game(game)
    st.players = players
    bots = [s for s in range(players) if s not in humans]
    table = start_table(game, players, st.seat_names(), st.game_options(), bots, seed=seed, speed=400.0)
    app.session = Session(table, **app.session_args)
    return table


def wait(table: Any, pred: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Wait until ``pred()`` holds (the table checks it each time it changes)."""
    return bool(table.wait(pred, timeout))


def auto_step(table: Any) -> tuple[int, Any] | None:
    """One decision by the game's bot for the first seat on turn (human seats too), entered
    through the referee: a touch entry for a human seat, a bot action for a bot seat. The bot
    draws from the host's generator for that position, so a seed always stages the same game.
    Returns (seat, action), None when nobody is on turn; the table is idle afterwards."""
    table.drain()
    turn = table.turn()
    if not turn:
        return None
    s = turn[0]
    if s in table.bots:
        taken = table.step_bot()
    else:
        action = table.host.read(lambda ref: table.bot.choose(ref.game.copy(), s, table.host.bot_rng(s)))
        table.submit(s, action)
        taken = (s, action)
    table.drain()
    return taken


def advance(session: Any, until: Callable[[Any], bool], limit: int = 20000) -> None:
    """Play with bots for every seat (each new hand shuffled and dealt by the host) until
    ``until(state)`` holds for the engine state, or the game is over."""
    t = session.table
    for _ in range(limit):
        t.drain()
        st = t.state
        if until(st) or st.over:
            return
        if t.needs_deal:
            t.deal()
            continue
        if auto_step(t) is None:
            raise RuntimeError(f"the scripted game is stuck: {t.public_view()['table']['waiting_for']}")
    raise RuntimeError("the scripted game never reached the wanted point")


def press(table: Any, seat: int, key: str, times: int = 1) -> None:
    """``times`` presses of a seat panel's key ('-', '+' or 'OK'), as the panel sends them."""
    for _ in range(times):
        table.panel(seat, key)
    table.drain()


def correct(table: Any, seat: int, points: int, reason: str = "") -> None:
    """An admin's score correction of ``seat``'s total (the referee's ScoreCorrection)."""
    from trickref.engine.referee.events import ScoreCorrection

    table.host.call(ScoreCorrection(seat, points, reason))
    table.drain()


def correct_hand(table: Any, hand: int, reason: str = "miscounted") -> dict[str, Any]:
    """An admin's correction of an earlier hand (the referee's HandCorrection): one trick (or
    heart) of that hand moved from the seat that took the most to the next seat. Returns the
    corrected figures."""
    from trickref.engine.referee.events import HandCorrection
    from trickref.engine.scorekeeper import ScoreSheet, entries_from_figures

    g = table.state
    e = entries_from_figures(g.GAME_ID, g.options, g.hand_results[hand - 1]["figures"])
    key = "tricks" if "tricks" in e else "hearts"
    counts = list(e[key])
    a = counts.index(max(counts))
    counts[a] -= 1
    counts[(a + 1) % len(counts)] += 1
    e[key] = counts
    if "moon" in e:
        e["moon"] = "others" if ScoreSheet(g.GAME_ID, g.n, g.options).moon_shooter(e) is not None else None
    table.host.call(HandCorrection(hand, e, reason, "admin", "2025-05-02T21:14:03"))
    table.drain()
    return e


def show(app: Any, reveal: int | None = None, scene: str | None = None, **kw: Any) -> Any:
    """Route (or go to ``scene``), reveal a seat's hand, draw one frame; returns the scene."""
    s = app.session
    if s is not None:
        s.summary_seen = s.table.state.hand_number if scene is None and s.table.state.phase not in ("deal", "over") else s.summary_seen
        if reveal is not None:
            s.reveal(reveal)
    if scene is not None:
        app.go(scene, **kw)
    else:
        app.route()
    app.render(force=True)
    return app.scene


def tricks(st: Any) -> int:
    """Tricks played so far in the hand of engine state ``st``."""
    v = st.public_view()
    if "tricks_played" in v:
        return int(v["tricks_played"])
    return sum(v.get("tricks_taken") or [0])


def keep(app: Any, game: str, players: int, options: dict[str, Any] | None = None,
         hands: tuple[dict[str, Any], ...] = (), entries: dict[str, Any] | None = None) -> Any:
    """Scorekeeper mode (own cards) for ``game``: ``hands`` entered on its sheet, ``entries``
    being typed on the entry screen; returns that screen."""
    from .scenes.scorekeeper_entry import start_scorekeeping

    app.setup.choose_game(game)
    app.setup.players = players
    app.setup.options[game].update(options or {})
    sc = start_scorekeeping(app, replace=True)  # a sheet left by the scenario before is saved
    for h in hands:
        sc.sheet.enter(h)
    if hands:
        sc = keep_at(app, sc.sheet)
    if entries:
        sc.entries.update(entries)
        sc._changed()
    app.render(force=True)
    return sc


def keep_at(app: Any, sheet: Any) -> Any:
    """The entry screen of a kept score's ``sheet``."""
    from .scenes.scorekeeper_entry import ScorekeeperEntryScene

    sc = ScorekeeperEntryScene(app, sheet)
    app.switch(sc)
    return sc


# ---------------------------------------------------------------- the shapes of a game's shots
def mid_trick(game: str, n: int) -> Any:
    """Mid-trick with seat 0 on turn, a few tricks in (seed 11)."""
    def stage(app: Any) -> Any:
        s = start_game(app, game, n, humans=(0,), seed=11)
        advance(s, lambda st: st.phase == "play" and len(getattr(st, "trick", [])) >= min(2, n - 1)
                and 0 in st.turn_seats() and tricks(st) >= 3)
        return show(app, reveal=0)
    return stage


def review(game: str, n: int, until: Any) -> Any:
    """The review of the hand so far, once ``until(state)`` holds (seed 11)."""
    def stage(app: Any) -> Any:
        s = start_game(app, game, n, humans=(0,), seed=11)
        advance(s, until)
        show(app, reveal=0)
        app.go("review")
        app.render(force=True)
        return app.scene
    return stage


def score_sheet(game: str, n: int, hands: int, options: dict[str, Any] | None = None,
                names: list[str] | None = None) -> Any:
    """The score sheet after ``hands`` hands played by bots."""
    def stage(app: Any) -> Any:
        s = start_game(app, game, n, options=options, names=names)
        advance(s, lambda st: st.hand_number == hands and st.phase == "deal")
        s.summary_seen = hands
        return show(app, scene="scoresheet")
    return stage
