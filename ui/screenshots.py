"""``trickref screenshots DIR``: every scene at 800x480 and 1280x720 as PNG files.

Games are played by bots (the human seats too) from fixed seeds to realistic points: dealing
under way, mid-bidding, mid-trick for every game, a pass being chosen, a score sheet after
several hands, game over, a dealer fault, a game resumed from the journal. Every game runs on
the one path to a table, the table host through ui.table_client: dealing, the fault and the
resume in simulated mode (the simulated dealer on a pty, a journal in a scratch folder); the
staged positions in instant mode (the ideal dealer, no journal). Runs headless
(SDL_VIDEODRIVER=dummy).

Staging a position (this module's API; the kiosk tests use it too). A position is reached only
through the referee's own events, never by writing state:

- ``start_game(app, game, players, humans, seed, options, deal, names)``: a new seeded game on
  an instant-mode table (``open_client(mode="instant")``), the session on ``app``; dealt unless
  ``deal=False``. Shuffles and bot choices follow from ``seed``, so a scene is the same on
  every run.
- ``advance(session, until)``: every seat played by the game's bot (a human seat's choice goes
  in as a touch entry, a bot seat's as a bot action), new hands shuffled and dealt by the host,
  until ``until(state)`` holds for the engine state (read only).
- ``auto_step(table)``: one such decision; ``press(table, seat, key, times)``: seat-panel
  presses ('-', '+', 'OK'; a bid being entered); ``correct(table, seat, points)``: an admin's
  score correction (the referee's ``ScoreCorrection``); ``correct_hand(table, hand)``: an
  admin's correction of an earlier hand (the referee's ``HandCorrection``).
- ``scenarios()``: (name, setup) for every screenshot; the names are stable (other tests run
  over them).

Every helper returns with the table idle (``TableClient.drain``), so what is read next is the
state the step left.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
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


def _wait(table: Any, pred: Callable[[], bool], timeout: float = 60.0) -> bool:
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


def scenarios() -> list[tuple[str, Callable[[Any], Any]]]:
    """(file stem, setup function) for every screenshot; each gets a fresh app."""
    out: list[tuple[str, Callable[[Any], Any]]] = []

    def add(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
        def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
            out.append((name, fn))
            return fn
        return deco

    @add("home")
    def _home(app: Any) -> Any:
        return show(app, scene="home")

    @add("players")
    def _players(app: Any) -> Any:
        app.setup.choose_game("cancellation-hearts")
        app.setup.players = 8
        return show(app, scene="players")

    @add("roster")
    def _roster(app: Any) -> Any:
        _stage_roster(app)
        return show(app, scene="roster", seat=1)

    @add("roster-empty")
    def _roster_empty(app: Any) -> Any:
        return show(app, scene="roster", seat=0)

    @add("player-history")
    def _player(app: Any) -> Any:
        _stage_roster(app)
        return show(app, scene="player", player="Çağrı", seat=1)

    @add("options-partnership-spades")
    def _options(app: Any) -> Any:
        app.setup.choose_game("partnership-spades")
        return show(app, scene="options")

    @add("rules-hearts")
    def _rules(app: Any) -> Any:
        return show(app, scene="rules")

    @add("keyboard")
    def _kb(app: Any) -> Any:
        from .i18n import _
        from .keyboard import KeyboardScene

        app.go("players")
        app.push(KeyboardScene(app, title=_("Name for seat {n}").format(n=1), text="Ana"))
        app.render(force=True)
        return app.scene

    @add("pin")
    def _pin(app: Any) -> Any:
        sc = show(app, scene="pin")
        sc.text = "12"
        app.render(force=True)
        return sc

    @add("settings")
    def _settings(app: Any) -> Any:
        import tempfile

        from .settings import load_settings

        old = os.environ.get("TRICKREF_CONFIG")
        language = app.settings.language  # the defaults, in the language being shot
        with tempfile.TemporaryDirectory() as d:
            os.environ["TRICKREF_CONFIG"] = os.path.join(d, "config.toml")
            try:
                app.settings = load_settings()
            finally:
                if old is None:
                    os.environ.pop("TRICKREF_CONFIG", None)
                else:
                    os.environ["TRICKREF_CONFIG"] = old
        app.settings.language = language
        sc = show(app, scene="settings")
        sc.area.scroll(sc.area.rect.height // 2)
        app.render(force=True)
        return sc

    @add("dealing")
    def _dealing(app: Any) -> Any:
        # the real path: the simulated dealer on its pty, slowed down twenty cards in
        table = real_game(app, "hearts", 4)

        def slow(ev: Any) -> None:
            if table.public_view()["table"]["dealer"]["dealt"] >= 20:
                table.opened.sim.speed = 0.01

        table.opened.driver.add_listener(slow)
        app.session.start_deal()
        _wait(table, lambda: table.public_view()["table"]["dealer"]["dealt"] >= 20)
        sc = show(app)
        table.close()
        return sc

    @add("handoff")
    def _handoff(app: Any) -> Any:
        s = start_game(app, "hearts", 4, humans=(0, 2))
        advance(s, lambda st: st.phase == "play" and len(getattr(st, "trick", [])) == 1 and 2 in st.turn_seats())
        return show(app)

    @add("bidding-spades-2p")
    def _bid2(app: Any) -> Any:
        s = start_game(app, "spades-2p", 2, humans=(0,), names=["Ana", "Ben"])
        advance(s, lambda st: st.phase == "bid" and 0 in st.turn_seats())
        press(s.table, 0, "+", 3)  # bid 3 being entered on the panel
        return show(app, reveal=0)

    @add("bidding-partnership-spades")
    def _bid4(app: Any) -> Any:
        s = start_game(app, "partnership-spades", 4, humans=(0,))
        advance(s, lambda st: st.phase == "bid" and 0 in st.turn_seats() and sum(b >= 0 for b in st.bids) >= 2)
        press(s.table, 0, "+", 4)  # bid 4 being entered on the panel
        return show(app, reveal=0)

    @add("draw-spades-2p")
    def _draw(app: Any) -> Any:
        s = start_game(app, "spades-2p", 2, humans=(0,), names=["Ana", "Ben"])
        advance(s, lambda st: st.phase == "draw" and 0 in st.turn_seats() and st.pos >= 10)
        return show(app, reveal=0)

    @add("draw-first-spades-2p")
    def _draw_first(app: Any) -> Any:
        # the hand's first draw: Double Nil is offered beside Keep it / Discard it
        s = start_game(app, "spades-2p", 2, humans=(0,), names=["Ana", "Ben"], seed=8)
        advance(s, lambda st: st.phase == "draw" and 0 in st.turn_seats())
        return show(app, reveal=0)

    @add("moon-hearts")
    def _moon(app: Any) -> Any:
        # Ana took every heart and the Q♠: she chooses how the moon scores (seed 1, hand 5)
        s = start_game(app, "hearts", 4, humans=(0,), names=["Ana", "Ben", "Cem", "Dan"], seed=1)
        advance(s, lambda st: st.phase == "moon" and 0 in st.turn_seats())
        return show(app, reveal=0)

    @add("pass-hearts")
    def _pass(app: Any) -> Any:
        s = start_game(app, "hearts", 4)
        advance(s, lambda st: st.phase == "pass")
        sc = show(app, reveal=0)
        sc.hand.selected = [0, 3]
        app.render(force=True)
        return sc

    for game, n, humans in (("hearts", 4, (0,)), ("hearts", 3, (0,)), ("hearts", 5, (0,)),
                            ("spades-2p", 2, (0,)), ("german-whist", 2, (0,)),
                            ("partnership-spades", 4, (0,)), ("cancellation-hearts", 8, (0,)),
                            ("cancellation-hearts", 11, (0,))):
        def _mid(app: Any, game: str = game, n: int = n, humans: tuple[int, ...] = humans) -> Any:
            s = start_game(app, game, n, humans=humans, seed=11)
            advance(s, lambda st: st.phase == "play" and len(getattr(st, "trick", [])) >= min(2, n - 1)
                    and 0 in st.turn_seats() and _tricks(st) >= 3)
            return show(app, reveal=0)
        out.append((f"play-{game}-{n}", _mid))

    @add("play-table-mode-hearts")
    def _tablemode(app: Any) -> Any:
        s = start_game(app, "hearts", 4, humans=(0, 1, 2, 3))
        s.simulated = False
        advance(s, lambda st: st.phase == "play" and len(st.trick) == 2)
        return show(app)

    @add("last-trick-cancellation")
    def _cancel(app: Any) -> Any:
        s = start_game(app, "cancellation-hearts", 6, humans=(0,), seed=3)
        advance(s, lambda st: st.phase == "play" and bool(st.waiting) and not st.trick, limit=200000)
        sc = show(app, reveal=0)
        sc.toggle_review()  # a tap on "Last trick": the cancelled trick, now waiting
        app.render(force=True)
        return sc

    @add("summary-hearts")
    def _summary(app: Any) -> Any:
        s = start_game(app, "hearts", 4)
        advance(s, lambda st: st.hand_number == 3 and st.phase == "deal")
        s.summary_seen = 2
        return show(app)

    @add("summary-partnership-spades")
    def _summary_ps(app: Any) -> Any:
        s = start_game(app, "partnership-spades", 4)
        advance(s, lambda st: st.hand_number == 2 and st.phase == "deal")
        s.summary_seen = 1
        return show(app)

    @add("fair-check-cancellation")
    def _fair(app: Any) -> Any:
        # the check after a hand with its QR code: the longest code (104 cards) behind a
        # typical address of the table's own verify page
        s = start_game(app, "cancellation-hearts", 6)
        advance(s, lambda st: st.hand_number == 1 and st.phase == "deal")
        s.summary_seen = 1
        app.verify_address = "http://192.168.1.20:8088/verify"
        return show(app, scene="faircheck")

    @add("scoresheet-spades-2p")
    def _sheet(app: Any) -> Any:
        s = start_game(app, "spades-2p", 2, names=["Ana", "Ben"])
        advance(s, lambda st: st.hand_number == 6 and st.phase == "deal")
        s.summary_seen = 6
        return show(app, scene="scoresheet")

    @add("scoresheet-cancellation-10")
    def _sheet10(app: Any) -> Any:
        s = start_game(app, "cancellation-hearts", 10)
        advance(s, lambda st: st.hand_number == 4 and st.phase == "deal")
        s.summary_seen = 4
        return show(app, scene="scoresheet")

    @add("scoresheet-partnership-spades-corrected")
    def _sheet_fixed(app: Any) -> Any:
        s = start_game(app, "partnership-spades", 4, options={"target": 1000})
        advance(s, lambda st: st.hand_number == 4 and st.phase == "deal")
        s.summary_seen = 4
        correct_hand(s.table, 2, "revoke")
        return show(app, scene="scoresheet")

    @add("hand-page-corrected")
    def _hand_page(app: Any) -> Any:
        _sheet_fixed(app)
        app.scene.open_hand(2)
        app.render(force=True)
        return app.scene

    @add("scoresheet-hearts-5")
    def _sheet_hearts(app: Any) -> Any:
        s = start_game(app, "hearts", 5, options={"target": 500})
        advance(s, lambda st: st.hand_number == 5 and st.phase == "deal")
        s.summary_seen = 5
        return show(app, scene="scoresheet")

    @add("scoresheet-german-whist")
    def _sheet_whist(app: Any) -> Any:
        s = start_game(app, "german-whist", 2, options={"target": 100})
        advance(s, lambda st: st.hand_number == 4 and st.phase == "deal")
        s.summary_seen = 4
        return show(app, scene="scoresheet")

    for game, n, until in (
            ("hearts", 4, lambda st: st.phase == "play" and _tricks(st) >= 6 and len(st.trick) >= 1),
            ("cancellation-hearts", 11, lambda st: st.phase == "play" and _tricks(st) >= 5 and len(st.trick) >= 3),
            ("german-whist", 2, lambda st: st.phase == "play" and len(st.played) >= 32),
            ("partnership-spades", 4, lambda st: st.phase == "play" and _tricks(st) >= 7),
            ("spades-2p", 2, lambda st: st.phase == "play" and _tricks(st) >= 8)):
        def _review(app: Any, game: str = game, n: int = n, until: Any = until) -> Any:
            s = start_game(app, game, n, humans=(0,), seed=11)
            advance(s, until)
            show(app, reveal=0)
            app.go("review")
            app.render(force=True)
            return app.scene
        out.append((f"review-{game}-{n}", _review))

    @add("gameover-partnership-spades")
    def _over(app: Any) -> Any:
        s = start_game(app, "partnership-spades", 4, options={"target": 200})
        advance(s, lambda st: st.over, limit=100000)
        s.summary_seen = s.table.state.hand_number
        return show(app)

    def _after_the_end(app: Any, reopens: bool) -> Any:
        # a finished German Whist, its last hand corrected from the game-over screen's sheet:
        # the winner changes, or the game would reopen (refused in words)
        from .scenes.handfix import ReasonScene, TableFixer

        s = start_game(app, "german-whist", 2, options={"target": 5})
        advance(s, lambda st: st.over, limit=100000)
        s.summary_seen = s.table.state.hand_number
        show(app)
        fixer = TableFixer(app, "gameover")
        base, hand = fixer.sheet(), len(s.table.state.hand_results)
        for ana in range(14):
            trial = base.copy()
            try:
                trial.amend(hand, {"tricks": [ana, 13 - ana]})
            except ValueError:
                continue
            if (not trial.over) if reopens else (trial.over and trial.winners != base.winners):
                break
        sc = ReasonScene(app, fixer, hand, {"tricks": [ana, 13 - ana]})
        app.push(sc)
        sc.pick("miscounted")
        if reopens:
            sc.apply()  # refused: the scene says why
        app.render(force=True)
        return app.scene

    out.append(("hand-reason-after-the-end", lambda app: _after_the_end(app, False)))
    out.append(("hand-reason-after-the-end-refused", lambda app: _after_the_end(app, True)))

    @add("fault")
    def _fault(app: Any) -> Any:
        # the real path: the simulator jams twelve cards into the deal; the referee's words
        table = real_game(app, "german-whist", 2)
        table.arm_fault("jam", after_cards=12)
        app.session.start_deal()
        _wait(table, lambda: table.referee.dealer_fault is not None)
        sc = show(app)
        table.close()
        return sc

    @add("resumed")
    def _resumed(app: Any) -> Any:
        # a game in the journal, resumed when the kiosk starts again (mid-trick)
        table = real_game(app, "hearts", 4, humans=(0,))
        app.session.start_deal()
        for _ in range(2000):
            g = table.state
            if table.referee.accepting() and g.phase == "play" and len(g.trick) == 2:
                break
            if table.needs_deal:
                table.deal()
            seat = next(iter(table.turn()), None)
            if seat is not None and table.referee.accepting():
                action = table.bot.choose(g.copy(), seat, table.host.bot_rng(seat))
                table.submit(seat, action)
            else:
                table.drain()
        app.end_session()
        from .app import start_home

        start_home(app)
        app.render(force=True)
        sc = app.scene
        app.end_session()
        return sc

    @add("large-text-play-hearts")
    def _large(app: Any) -> Any:
        app.settings.large_text = True
        app.settings.four_colour = True
        app.apply_settings()
        s = start_game(app, "hearts", 4, seed=11)
        advance(s, lambda st: st.phase == "play" and len(st.trick) >= 2 and 0 in st.turn_seats() and _tricks(st) >= 3)
        return show(app, reveal=0)

    @add("large-text-home")
    def _large_home(app: Any) -> Any:
        app.settings.large_text = True
        app.apply_settings()
        return show(app, scene="home")

    @add("confirm-undo")
    def _confirm(app: Any) -> Any:
        s = start_game(app, "hearts", 4)
        advance(s, lambda st: st.phase == "play" and 0 in st.turn_seats() and len(st.trick) == 0 and _tricks(st) >= 1)
        sc = show(app, reveal=0)
        sc.ask_undo()
        app.render(force=True)
        return app.scene

    out.extend(_scorekeeper_scenarios())
    return out


def _scorekeeper_scenarios() -> list[tuple[str, Callable[[Any], Any]]]:
    """Scorekeeper mode (own cards): entry screens mid-entry, a moon, a refusal, the sheet
    with a correction, game over."""
    from .scenes.scorekeeper_entry import start_scorekeeping

    def keep(app: Any, game: str, players: int, options: dict[str, Any] | None = None,
             hands: tuple[dict[str, Any], ...] = (), entries: dict[str, Any] | None = None) -> Any:
        app.setup.choose_game(game)
        app.setup.players = players
        app.setup.options[game].update(options or {})
        sc = start_scorekeeping(app, replace=True)  # a sheet left by the scenario before is saved
        for h in hands:
            sc.sheet.enter(h)
        if hands:
            sc = start_scorekeeping_at(app, sc.sheet)
        if entries:
            sc.entries.update(entries)
            sc._changed()
        app.render(force=True)
        return sc

    def start_scorekeeping_at(app: Any, sheet: Any) -> Any:
        from .scenes.scorekeeper_entry import ScorekeeperEntryScene

        sc = ScorekeeperEntryScene(app, sheet)
        app.switch(sc)
        return sc

    def hearts(app: Any) -> Any:
        return keep(app, "hearts", 4, {"omnibus": True}, ({"hearts": [3, 5, 0, 5], "qs": 2, "omnibus": 0},),
                    {"hearts": [2, 6, 1, 3], "qs": 1, "omnibus": 3})

    def moon(app: Any) -> Any:
        return keep(app, "hearts", 5, entries={"hearts": [0, 0, 13, 0, 0], "qs": 2})

    def refused(app: Any) -> Any:
        sc = keep(app, "partnership-spades", 4, entries={"bids": [3, 4, 2, 4], "tricks": [3, 5, 2, 4]})
        sc.enter_hand()
        app.render(force=True)
        return sc

    def blind(app: Any) -> Any:
        return keep(app, "partnership-spades", 4, hands=({"bids": [4, 4, 4, 4], "tricks": [2, 4, 3, 4]},),
                    entries={"blind_nil": [True, False, False, False], "bids": [0, 4, 3, 4], "tricks": [0, 4, 4, 4]})

    def cancel11(app: Any) -> Any:
        return keep(app, "cancellation-hearts", 11, entries={
            "hearts": [4, 2, 3, 3, 2, 1, 1, 2, 3, 2, 0], "qs": [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "nobody_hearts": 3, "nobody_qs": 1})

    def whist(app: Any) -> Any:
        return keep(app, "german-whist", 2, entries={"tricks": [9, 4]})

    def spades2(app: Any) -> Any:
        return keep(app, "spades-2p", 2, entries={"bids": [0, 5], "double_nil": [True, False], "tricks": [0, 12]})

    def sheet(app: Any) -> Any:
        sc = keep(app, "hearts", 4, hands=({"hearts": [3, 5, 0, 5], "qs": 2}, {"hearts": [1, 2, 10, 0], "qs": 0},
                                           {"hearts": [0, 0, 13, 0], "qs": 2, "moon": "others"}))
        sc.sheet.correct(1, -5, "miscounted")
        sc.show_sheet()
        app.render(force=True)
        return app.scene

    def sheet11(app: Any) -> Any:
        hands = ({"hearts": [3, 2, 3, 2, 2, 3, 2, 3, 2, 2, 2], "qs": [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]},
                 {"hearts": [0, 5, 2, 2, 2, 3, 2, 3, 2, 2, 2], "qs": [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
                  "nobody_hearts": 1},
                 {"hearts": [2, 2, 3, 2, 2, 3, 2, 3, 2, 3, 2], "qs": [0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]},
                 {"hearts": [4, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3], "qs": [0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]})
        sc = keep(app, "cancellation-hearts", 11, hands=hands)
        sc.sheet.amend(2, {"hearts": [1, 4, 2, 2, 2, 3, 2, 3, 2, 2, 2], "qs": [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
                           "nobody_hearts": 1}, "miscounted", "2025-05-02T21:14:03")
        sc.show_sheet()
        app.render(force=True)
        return app.scene

    def fix_entry(app: Any) -> Any:
        from .scenes.handfix import KeptFixer, fix_hand

        sc = sheet(app)
        fix_hand(app, KeptFixer(app, sc.sheet), 2)
        app.scene.entries["hearts"] = [1, 3, 9, 0]
        app.scene._changed()
        app.render(force=True)
        return app.scene

    def fix_reason(app: Any) -> Any:
        sc = fix_entry(app)
        sc.enter_hand()
        app.scene.pick("revoke")
        app.render(force=True)
        return app.scene

    def pick(app: Any) -> Any:
        from .scenes.handfix import KeptFixer, pick_hand

        sc = sheet(app)
        pick_hand(app, KeptFixer(app, sc.sheet))
        app.render(force=True)
        return app.scene

    def over(app: Any) -> Any:
        moon_hand = {"hearts": [0, 0, 0, 13], "qs": 3, "moon": "others"}
        sc = keep(app, "hearts", 4, {"target": 50}, hands=(moon_hand,))
        sc.entries = dict(moon_hand)
        sc.enter_hand()
        app.render(force=True)
        return app.scene

    return [("keep-score-hearts", hearts), ("keep-score-moon", moon), ("keep-score-refused", refused),
            ("keep-score-blind-nil", blind), ("keep-score-cancellation-11", cancel11),
            ("keep-score-german-whist", whist), ("keep-score-spades-2p", spades2),
            ("keep-score-sheet", sheet), ("keep-score-sheet-cancellation-11", sheet11),
            ("correct-hand-which", pick), ("correct-hand-figures", fix_entry), ("correct-hand-reason", fix_reason),
            ("keep-score-gameover", over)]


def _stage_roster(app: Any) -> None:
    """A table's memory with players in the kiosk's languages' letters and some history."""
    from .memory import memory_of

    m = memory_of(app)
    names = ["Ana", "Çağrı", "Jàn-Pyè", "Œdipe", "İpek", "Maximiliana Ro", "Ben", "Zoë", "Dee"]
    for n in names:
        m.add_player(n)
    results = [("hearts", [0, 1, 6, 8], [48, 102, 77, 91], [0]), ("hearts", [1, 0, 2, 3], [35, 64, 101, 88], [0]),
               ("partnership-spades", [1, 6, 0, 8], [512, 388, 512, 388], [0, 2]),
               ("german-whist", [1, 4], [66, 41], [0]), ("cancellation-hearts", [0, 1, 2, 3, 4, 5], [12, 23, 41, 102, 55, 60], [0])]
    for i, (game, seats, totals, winners) in enumerate(results):
        m.count_game(f"{i:08x}", game, [names[s] for s in seats], totals, winners)
    st = app.setup
    st.choose_game("hearts")
    st.players = 4
    st.names[:4] = ["Ana", "Çağrı", "Ben", "Dee"]


def _tricks(st: Any) -> int:
    v = st.public_view()
    if "tricks_played" in v:
        return int(v["tricks_played"])
    return sum(v.get("tricks_taken") or [0])


def render_all(out_dir: str | os.PathLike[str], sizes: tuple[tuple[int, int], ...] | None = None,
               only: str | None = None, languages: tuple[str, ...] = ("en",),
               problems: list[str] | None = None) -> list[Path]:
    """Every scenario at every size (default: ``layoutcheck.LAYOUT_SIZES``), in each of
    ``languages`` (files of a language other than English end in ``-<code>``, e.g.
    ``home-800x480-fr.png``). Each scenario is staged once per language, in a scratch folder of
    its own, then drawn at each size (``layoutcheck.resize``); every frame written is checked
    by ``layoutcheck.check`` and what it finds is appended to ``problems`` (file: problem)."""
    headless()
    import tempfile

    import pygame

    from . import layoutcheck as L
    from .i18n import set_language
    from .settings import Settings

    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written = []
    old = os.environ.get("TRICKREF_HOME")
    with tempfile.TemporaryDirectory() as scratch:  # the real-path games' journal and games folder
        try:
            for name, fn in scenarios():
                if only and only not in name:
                    continue
                for lang in languages:
                    home = Path(scratch) / f"{name}-{lang}"
                    home.mkdir()
                    os.environ["TRICKREF_HOME"] = str(home)
                    app = make_app((800, 480), Settings(language=lang))
                    try:
                        fn(app)
                        for size in sizes or L.LAYOUT_SIZES:
                            L.resize(app, size)
                            with L.recording() as log:
                                app.render(force=True)
                            tail = "" if lang == "en" else f"-{lang}"
                            p = d / f"{name}-{size[0]}x{size[1]}{tail}.png"
                            pygame.image.save(app.screen, str(p))
                            written.append(p)
                            if problems is not None:
                                found = L.check(log, size, bool(app.theme.large_text),
                                                physical=size not in L.GEOMETRY_ONLY)
                                problems.extend(f"{p.name}: {x}" for x in found)
                    finally:
                        app.end_session()  # its table's worker and ports stop
                        set_language("en")
        finally:
            if old is None:
                os.environ.pop("TRICKREF_HOME", None)
            else:
                os.environ["TRICKREF_HOME"] = old
    return written


def _cmd(args: argparse.Namespace) -> int:
    from .i18n import LANGUAGES

    languages = tuple(LANGUAGES) if args.language == "all" else (args.language,)
    problems: list[str] = []
    files = render_all(args.dir, only=args.only, languages=languages, problems=None if args.no_check else problems)
    for f in files:
        print(f)
    print(f"{len(files)} screenshots in {args.dir}")
    if args.no_check:
        return 0
    for x in problems:
        print(x)
    bad = len({x.split(": ")[0] for x in problems})
    print(f"layout check: {len(files) - bad} of {len(files)} frames pass" + (f"; {len(problems)} problems in {bad}" if bad else ""))
    return 1 if problems else 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("screenshots", help="render every kiosk scene at 800x480, 1024x600, 1280x720 and 720x1280 to "
                                          "PNG files, each checked by the layout rules (exit status 1 if one fails)")
    p.add_argument("dir", help="folder for the PNG files (created)")
    p.add_argument("--only", help="only scenarios whose name contains this")
    p.add_argument("--language", default="all", choices=["en", "fr", "ht", "tr", "all"],
                   help="the kiosk's language (en, fr, ht, tr), or all four (default: all)")
    p.add_argument("--no-check", action="store_true", help="write the files without checking their layout")
    p.set_defaults(func=_cmd)
