"""Bot seats think off the host's worker and off the kiosk (device/table/bot_worker.py).

A real table host (instant mode: the ideal dealer, a real journal file with fsync), with its
bot seats' questions answered by a thread or by the search process. A slow bot here is a real
bot whose choice waits for the test to let it go (a ``threading.Event``), so that what happens
while it thinks (an undo, a second entry, a go) is staged exactly, without sleeping.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from trickref.device.journal import Journal
from trickref.device.table.bot_worker import BotSeats, GoRequest, ProcessThinker, Question, make_bot
from trickref.device.table.open import open_table
from trickref.engine import actions as A
from trickref.engine.referee.events import Touch, UndoConfirm, UndoRequest

GUARD_S = 60.0


class SlowBot:
    """The rule bot, holding its answer until ``release`` is set; says when it starts."""

    def __init__(self, game: str) -> None:
        self.rule = make_bot(game, "rule")
        self.release = threading.Event()
        self.started = threading.Event()
        self.asked: list[tuple[int, int]] = []  # (seat, actions in the hand) of each question

    def choose(self, state: Any, seat: int, rng: Any) -> Any:
        self.asked.append((seat, len(state.actions)))
        self.started.set()
        assert self.release.wait(GUARD_S), "the test never let the bot answer"
        return self.rule.choose(state, seat, rng)


def _table(tmp_path: Any, game: str = "hearts", players: int = 4, bots: tuple[int, ...] = (1, 2, 3),
           levels: dict[int, str] | None = None, maker: Any = None, **kw: Any) -> Any:
    opened = open_table(None, "instant", game=game, players=players, journal_file=tmp_path / "table.journal",
                        games_dir=tmp_path / "games", seed=3, fresh=True)
    seats = BotSeats(opened.host, game, levels, **({"maker": maker} if maker else {}), **kw)
    opened.host.bot_seats = seats
    opened.begin(game, [f"P{i}" for i in range(players)], {}, bots)
    opened.host.drain(GUARD_S)
    return opened, seats


def _go(host: Any, seats: BotSeats) -> GoRequest:
    req = GoRequest()
    host.job(lambda: seats.go(req))
    return req


def _journal_types(path: Any) -> list[str]:
    j, records, _ = Journal.open(path)
    j.close()
    return [r["type"] for r in records]


def _to_human_play(host: Any, seats: BotSeats, human: int = 0) -> None:
    """Bots and the human (its rule-bot choice, as a touch) play until the human's card is due."""
    for _ in range(400):
        host.drain(GUARD_S)
        ref = host.referee
        g = ref.game
        if g.phase == "play" and g.turn_seats() == (human,) and ref.accepting():
            return
        if ref.bot_turns():
            req = _go(host, seats)
            assert req.done.wait(GUARD_S)
            continue
        seat = g.turn_seats()[0]
        action = make_bot(g.GAME_ID, "rule").choose(g.copy(), seat, host.bot_rng(seat))
        rec = A.to_record(seat, action)
        rec.pop("seat")
        host.call(Touch(seat, rec))
    raise AssertionError("the human's card never came due")


def test_a_strong_bot_decides_in_a_child_process_and_enters_through_the_host(tmp_path):
    opened, seats = _table(tmp_path, levels={1: "strong", 2: "strong", 3: "strong"})
    host = opened.host
    try:
        assert seats.process_pid is not None and seats.process_pid != os.getpid()
        req = _go(host, seats)  # the bots on turn pass (the Hearts search bot searches the pass too)
        assert req.done.wait(GUARD_S) and req.action is not None and req.action.kind == "pass"
        host.drain(GUARD_S)
        assert seats.entered == 1 and seats.stale == 0
        assert "bot_action" in _journal_types(tmp_path / "table.journal")  # journalled like any entry
        assert host.errors == []
    finally:
        opened.close()
    assert seats._proc is not None and seats._proc._proc is not None and seats._proc._proc.poll() is not None


def test_a_decision_for_a_position_that_changed_is_never_applied(tmp_path):
    """The human plays, the bot after them starts thinking, the human takes the card back (undo)
    while it thinks, then plays another card: the late answer is dropped; the bot is asked again
    for the new position and plays to it."""
    bot = SlowBot("hearts")

    def maker(game: str, level: str, reproducible: bool = False) -> Any:
        return bot

    opened, seats = _table(tmp_path, bots=(1, 2, 3), maker=maker)
    host = opened.host
    try:
        bot.release.set()
        _to_human_play(host, seats)
        bot.release.clear()
        bot.started.clear()
        g = host.referee.game
        legal = [a for a in g.legal_actions(0) if a.kind == "play"]
        first = legal[0]
        host.call(Touch(0, {"play": A.to_record(0, first)["play"]}))
        assert bot.started.wait(GUARD_S)  # seat 1 is thinking about the position after `first`
        req = _go(host, seats)  # the kiosk's go: the entry waits for the answer
        host.call(UndoRequest(None))
        host.call(UndoConfirm())
        assert host.referee.game.turn_seats() == (0,)
        assert req.done.is_set() and req.action is None  # the go was for a position that is gone
        bot.release.set()  # the answer for the old position arrives now
        assert host.wait(lambda: seats.stale >= 1, GUARD_S)
        host.drain(GUARD_S)
        g = host.referee.game
        assert g.turn_seats() == (0,) and all(a != first or s != 0 for s, a in g.actions[-1:])
        assert _journal_types(tmp_path / "table.journal").count("bot_action") == seats.entered
        # the human plays another card: the bot is asked afresh and plays legally to it
        second = next(a for a in g.legal_actions(0) if a.kind == "play" and a != first) if len(legal) > 1 else first
        n = len(g.actions)
        host.call(Touch(0, {"play": A.to_record(0, second)["play"]}))
        req = _go(host, seats)
        assert req.done.wait(GUARD_S) and req.seat == 1
        g = host.referee.game
        assert g.actions[n] == (0, second) and g.actions[n + 1][0] == 1
        assert (1, n + 1) in bot.asked  # asked about the position after the second card
        assert host.errors == []
    finally:
        bot.release.set()
        opened.close()


def test_a_go_waits_for_the_thinking_and_the_table_is_busy_meanwhile(tmp_path):
    bot = SlowBot("hearts")

    def maker(game: str, level: str, reproducible: bool = False) -> Any:
        return bot

    opened, seats = _table(tmp_path, maker=maker)
    host = opened.host
    try:
        assert bot.started.wait(GUARD_S)  # asked as soon as the bots' turn came, before any go
        assert seats.thinking and not seats.awaited
        host.drain(GUARD_S)  # thinking with no go keeps nobody waiting
        req = _go(host, seats)
        assert host.wait(lambda: seats.awaited, GUARD_S)
        try:
            host.drain(0.2)
            raise AssertionError("drain returned while a bot's entry was due")
        except TimeoutError:
            pass
        bot.release.set()
        assert req.done.wait(GUARD_S) and req.action is not None
        host.drain(GUARD_S)
    finally:
        bot.release.set()
        opened.close()


def test_a_bot_that_fails_is_said_and_the_rule_bot_decides(tmp_path):
    class Broken:
        def choose(self, state: Any, seat: int, rng: Any) -> Any:
            raise RuntimeError("out of worlds")

    def maker(game: str, level: str, reproducible: bool = False) -> Any:
        return Broken() if level != "rule" else make_bot(game, "rule")

    opened, seats = _table(tmp_path, levels={1: "strong"}, maker=maker)
    host = opened.host
    try:
        _to_human_play(host, seats)  # seat 1's strong bot failed at each of its turns
        assert any("strong bot of seat 2 failed (RuntimeError: out of worlds)" in e for e in host.errors)
        assert seats.entered >= 3
    finally:
        opened.close()


def test_a_search_process_that_dies_is_said_and_started_again(tmp_path):
    """The search process is stopped (SIGSTOP) before the first question, so the question is
    surely waiting in it when it is killed: the rule bot answers, the screen is told, and the
    next question starts a new process."""
    import signal

    opened = open_table(None, "instant", game="hearts", players=4, journal_file=tmp_path / "table.journal",
                        games_dir=tmp_path / "games", seed=3, fresh=True)
    host = opened.host
    seats = BotSeats(host, "hearts", {1: "search", 2: "search", 3: "search"})
    host.bot_seats = seats
    proc = seats._proc
    assert proc is not None and proc.pid is not None
    first_pid = proc.pid
    os.kill(first_pid, signal.SIGSTOP)
    try:
        opened.begin("hearts", ["A", "B", "C", "D"], {}, (1, 2, 3))
        assert host.wait(lambda: seats.thinking, GUARD_S)
        req = _go(host, seats)
        os.kill(first_pid, signal.SIGKILL)
        assert req.done.wait(GUARD_S) and req.action is not None  # the rule bot answered instead
        assert any("the search bot of seat 2 failed (the bot process stopped" in e for e in host.errors), host.errors
        req = _go(host, seats)  # the next bot's question starts the process again
        assert req.done.wait(GUARD_S) and req.action is not None
        assert proc.starts == 2 and proc.pid != first_pid
    finally:
        opened.close()


def test_the_search_process_answers_a_question_directly():
    from trickref.engine.games import new_game

    g = new_game("german-whist", 2)
    g.start_hand(list(range(52)))
    thinker = ProcessThinker()
    got: list[Any] = []
    done = threading.Event()
    try:
        import random

        q = Question(7, "german-whist", "search", g.turn_seats()[0], g.copy(), random.Random(1), reproducible=True)
        thinker.ask(q, lambda t, a, e: (got.append((t, a, e)), done.set()))
        assert done.wait(GUARD_S)
        ticket, action, error = got[0]
        assert ticket == 7 and error is None and action in g.legal_actions(q.seat)
    finally:
        thinker.close()
