"""Bots think off the kiosk's thread (device/table/bot_worker.py): the screen keeps drawing and
taking taps while a bot works out its move; Undo and Leave while it thinks are safe; a power
cut (SIGKILL of a real kiosk process) while it thinks loses nothing, and the resumed table asks
the bot again.

A "slow bot" here is the real rule bot whose answer waits for the test to let it go, so what the
kiosk does during the thinking is staged exactly; one test uses the real strong search bot in
its own process."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pygame
from kiosk_helpers import tap_button, tap_card
from referee_helpers import pump, referee_app, start

from trickref.device.journal import Journal
from trickref.device.table.bot_worker import make_bot
from trickref.engine import cards as C

GUARD_S = 60.0


class SlowBot:
    """The rule bot; each answer waits until ``release`` is set."""

    def __init__(self, game: str) -> None:
        self.rule = make_bot(game, "rule")
        self.release = threading.Event()
        self.thinking = threading.Event()
        self.asked: list[tuple[int, int]] = []

    def choose(self, state: Any, seat: int, rng: Any) -> Any:
        self.asked.append((seat, len(state.actions)))
        self.thinking.set()
        try:
            assert self.release.wait(GUARD_S), "the test never let the bot answer"
            return self.rule.choose(state, seat, rng)
        finally:
            self.thinking.clear()


def _instant_app() -> Any:
    app = referee_app()
    app.table_args = {"mode": "instant"}  # the ideal dealer; the hand shown as in simulated mode
    app.session_args["simulated"] = True
    return app


def _slow_table(app: Any, game: str = "hearts", players: int = 4) -> tuple[Any, SlowBot]:
    """A game where seat 0 is the human; the bots answer through a SlowBot, released for now."""
    bot = SlowBot(game)
    bot.release.set()
    s = start(app, game, players, humans=(0,), options={})
    s.table._on_worker(lambda: s.table.seats.use_maker(lambda *a, **k: bot))
    return s.table, bot


def _to_the_humans_card(app: Any, table: Any) -> None:
    """Play (the human by taps: passes and cards) until seat 0's card is due mid-hand."""
    from referee_helpers import act

    for _ in range(300):
        pump(app)
        g = table.state
        if g.phase == "play" and 0 in g.turn_seats() and table.referee.accepting() and g.actions and \
                app.scene.name == "play":
            return
        if app.scene.name == "handoff":
            tap_button(app, "Show my cards")
        elif app.scene.name in ("play", "bidding"):
            act(app)
        elif app.scene.name == "summary":
            tap_button(app, app.scene.next.name)
    raise AssertionError("seat 0's card never came due")


def _frames_while(app: Any, cond: Any, n: int) -> int:
    """Run the kiosk's loop body (events, tick, a frame) ``n`` times while ``cond()`` holds."""
    drawn = 0
    for _ in range(n):
        assert cond(), "the bot stopped thinking early"
        for e in pygame.event.get():
            app.dispatch(e)
        app.tick(0.02)
        drawn += bool(app.render(force=True))
    return drawn


def test_the_screen_draws_and_takes_taps_while_a_bot_thinks_and_undo_drops_its_late_answer():
    app = _instant_app()
    table, bot = _slow_table(app)
    try:
        _to_the_humans_card(app, table)
        bot.release.clear()
        hand = table.seat_view(0)["game"]["hand"]
        legal = [a.value for a in table.legal(0) if a.kind == "play"]
        card = C.NAMES[legal[0]]
        tap_card(app, card)
        assert bot.thinking.wait(GUARD_S)  # seat 1 is working out its move
        n = len(table.state.actions)
        # the kiosk keeps drawing and answering: Scores, back, Menu, Stay, Last trick
        assert _frames_while(app, bot.thinking.is_set, 10) == 10
        tap_button(app, "Scores")
        assert app.scene.name == "scoresheet"
        tap_button(app, "Back")  # its way back
        pump(app, lambda a: a.scene.name == "play")
        tap_button(app, "Menu")
        assert app.scene.name == "confirm"
        tap_button(app, "no")
        assert app.scene.name == "play" and bot.thinking.is_set()
        # Undo while it thinks: the card comes back to the hand
        tap_button(app, "Undo")
        tap_button(app, "yes")
        pump(app, lambda a: len(table.state.actions) < n)
        assert table.seat_view(0)["game"]["hand"] == hand
        bot.release.set()  # its answer, for the position that is gone
        assert table.host.wait(lambda: table.seats.stale >= 1, GUARD_S)
        table.drain()
        assert 0 in table.turn() and table.seat_view(0)["game"]["hand"] == hand  # nothing applied
        # the human plays again; the bot is asked about the new position and plays to it
        pump(app)
        tap_card(app, C.NAMES[legal[-1]])
        pump(app, lambda a: len(table.state.actions) > n)
        assert table.state.actions[n - 1][1].value == legal[-1] and table.state.actions[n][0] == 1
        assert table.messages == []
    finally:
        bot.release.set()
        app.end_session()


def test_a_dealer_fault_come_and_gone_between_two_frames_while_a_bot_thinks_still_lets_it_play():
    """The dealer stops answering and answers again while a bot thinks, both between two of the
    kiosk's frames (a loaded machine): the table forgets the kiosk's go with its question (it took
    no entry meanwhile) and asks the bot again at the same position. The kiosk must say go for
    the new question, or the bot on turn never plays (a referee-path Cancellation Hearts game
    stopped so at load 38: "waiting for Dee to play", the dealer back, nothing in flight)."""
    from trickref.device.table.host import LinkBack
    from trickref.engine.referee.events import DealerFault

    app = _instant_app()
    table, bot = _slow_table(app)
    try:
        _to_the_humans_card(app, table)
        bot.release.clear()
        legal = [a.value for a in table.legal(0) if a.kind == "play"]
        tap_card(app, C.NAMES[legal[0]])
        assert bot.thinking.wait(GUARD_S)  # seat 1 is working out its move
        n = len(table.state.actions)
        _frames_while(app, bot.thinking.is_set, 3)  # the kiosk says go: the bot enters once it has answered
        host, seats = table.host, table.seats
        assert host.wait(lambda: seats.awaited, GUARD_S)
        asked = seats.ticket
        host.post(DealerFault("timeout", "the dealer did not answer STATUS after 2 tries", None))
        host.post(LinkBack())  # the table goes on by itself: all before the kiosk's next frame
        assert host.wait(lambda: table.referee.dealer_fault is None and seats.key is not None and seats.ticket > asked,
                         GUARD_S)
        table.drain()
        assert 1 in table.turn() and not seats.awaited  # the go went with the old question
        bot.release.set()
        pump(app, lambda a: len(table.state.actions) > n, guard=GUARD_S)
        assert table.state.actions[n][0] == 1 and seats.stale >= 1
    finally:
        bot.release.set()
        app.end_session()


def test_leaving_while_a_bot_thinks_stops_the_table_and_keeps_the_game():
    app = _instant_app()
    table, bot = _slow_table(app)
    try:
        _to_the_humans_card(app, table)
        bot.release.clear()
        tap_card(app, C.NAMES[next(a.value for a in table.legal(0) if a.kind == "play")])
        assert bot.thinking.wait(GUARD_S)
        n = len(table.state.actions)
        tap_button(app, "Menu")
        tap_button(app, "yes")  # Leave
        assert app.scene.name == "home" and app.session is None
        bot.release.set()  # the answer of a table that is closed goes nowhere
        from trickref.ui.resume import unfinished_game

        left = unfinished_game(app)
        assert left is not None and len(left.referee.game.actions) == n  # kept, as left
    finally:
        bot.release.set()
        app.end_session()


def test_a_strong_bot_in_its_process_leaves_the_kiosk_drawing():
    """The real strong search bot (its own process) on every bot seat: frames are drawn by the
    kiosk's loop while each decision is worked out (on the kiosk's thread none could be)."""
    app = _instant_app()
    app.setup.bot_levels = {1: "strong", 2: "strong", 3: "strong"}
    s = start(app, "hearts", 4, humans=(0,), options={})
    table = s.table
    try:
        pid = table.seats.process_pid
        assert pid is not None and pid != os.getpid()
        thinking_frames = 0
        # six bot entries, however long a loaded machine takes over them: a hang is a table
        # that has not changed for GUARD_S (each decision takes at most the search's wall
        # limit, the first also the search process's start), not a count of frames
        changes, still = table.host.changes, time.monotonic() + GUARD_S
        while True:
            if table.host.changes != changes:
                changes, still = table.host.changes, time.monotonic() + GUARD_S
            assert time.monotonic() < still, f"the table stood still for {GUARD_S:g} s: {table.messages}"
            for e in pygame.event.get():
                app.dispatch(e)
            app.tick(0.02)
            app.render(force=True)
            if table.bot_thinking is not None:
                thinking_frames += 1
            if table.seats.entered >= 6 or app.scene.name in ("handoff",):
                break
            if 0 in table.turn() and app.scene.name in ("play", "bidding"):
                from referee_helpers import act

                act(app)
            time.sleep(0.005)
        assert table.seats.entered >= 3, table.messages
        assert thinking_frames >= 3 * 2  # frames went on during the decisions
        assert table.messages == []
    finally:
        app.end_session()


KIOSK = r"""
import sys, time
from trickref.engine.bots import levels
from trickref.ui.table_client import start_table
levels.LEVELS["strong"] = 120.0  # a search that outlasts the test: the cut surely comes while it thinks
t = start_table("hearts", 4, ["Ana", "Ben", "Cem", "Dee"], {}, [1, 2, 3], mode="instant", seed=4)
t.set_bot_levels({1: "strong", 2: "strong", 3: "strong"}, process=sys.argv[1] == "process")
if sys.argv[1] == "thread":
    t.set_bot_levels({1: "rule", 2: "rule", 3: "rule"}, process=False)
    # the passes and plays up to the human's card, by the rule bots; then seat 1 is strong
    for _ in range(200):
        t.drain()
        g = t.state
        if g.phase == "play" and g.turn_seats() == (0,) and t.referee.accepting() and g.actions:
            break
        if t.needs_deal:
            t.deal()
        elif t.bot_on_turn() is not None:
            t.step_bot()
        else:
            seat = g.turn_seats()[0]
            t.submit(seat, t.bot.choose(g.copy(), seat, t.host.bot_rng(seat)))
    t.set_bot_levels({1: "strong", 2: "rule", 3: "rule"}, process=False)
    g = t.state
    t.submit(0, t.bot.choose(g.copy(), 0, t.host.bot_rng(0)))
    t.seats.on_ask = lambda seat, ticket: print("asked", seat, flush=True)
    t.drain()
    t.bot_go()  # the kiosk's go: the entry would follow the thinking
    g = t.state
    print("thinking", g.hand_number, len(g.actions), t.bot_on_turn(), flush=True)
else:
    print("process", t.seats.process_pid, flush=True)
time.sleep(600)
"""


def _run_kiosk(mode: str, home: Path) -> tuple[subprocess.Popen[str], list[str]]:
    p = subprocess.Popen([sys.executable, "-c", KIOSK, mode], stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, TRICKREF_HOME=str(home)))
    assert p.stdout is not None
    line = p.stdout.readline().split()
    assert line, "the kiosk process said nothing"
    return p, line


def test_a_power_cut_while_a_bot_thinks_loses_nothing_and_the_bot_is_asked_again(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("TRICKREF_HOME", str(home))
    p, line = _run_kiosk("thread", home)
    try:
        assert line[0] == "thinking", line
        hand, n, seat = int(line[1]), int(line[2]), int(line[3])
        assert seat == 1
        p.kill()  # SIGKILL: the power goes while seat 1 thinks (its go already given)
        p.wait()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    from trickref.ui.table_client import journal_path, load_config, resume_table

    path = journal_path(load_config())
    j, records, report = Journal.open(path)
    j.close()
    assert report.clean and records[-1]["type"] != "bot_action"
    table = resume_table(mode="instant")
    assert table is not None
    try:
        table.drain()
        g = table.state
        assert (g.hand_number, len(g.actions)) == (hand, n) and table.bot_on_turn() == 1
        assert table.seats.asked >= 1 and table.seats.seat == 1  # asked again on resume
        taken = table.step_bot()
        assert taken is not None and taken[0] == 1
        g = table.state
        assert len(g.actions) == n + 1 and g.actions[n][0] == 1
        j, records, _ = Journal.open(path)
        j.close()
        assert [r["type"] for r in records].count("bot_action") == sum(
            1 for s, _a in g.actions if s in (1, 2, 3)) + sum(
            1 for _d, acts in g.finished_hands for s, _a in acts if s in (1, 2, 3))
    finally:
        table.close()


def _gone(pid: int) -> bool:
    """The process has ended (gone, or a zombie nobody has reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_a_killed_kiosk_leaves_no_search_process_behind(tmp_path):
    p, line = _run_kiosk("process", tmp_path / "home")
    try:
        assert line[0] == "process"
        child = int(line[1])
        assert not _gone(child)
        p.kill()
        p.wait()
        end = time.monotonic() + GUARD_S
        while not _gone(child) and time.monotonic() < end:
            time.sleep(0.05)
        assert _gone(child), "the search process outlived the kiosk"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
