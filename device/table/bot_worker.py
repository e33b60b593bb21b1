"""Bot seats: their thinking off the kiosk's thread and off the table host's worker.

Why: a search bot spends its whole budget (0.2 s a decision at the "strong" level, more on a Pi
whose cores are 3-4x slower) computing. Done on the kiosk's thread, the screen froze for that
long at every bot turn; done on the host's worker, every tap and dealer outcome would queue
behind it. So the host only *asks* (``BotSeats.after``, after each item its worker takes) and a
thinker answers later, by posting a job into the host's inbox: the bot's choice then enters like
any seat's entry (journalled, handed to the referee, its commands carried out).

Two thinkers:

- ``ThreadThinker``: one thread of its own. The rule bots decide in microseconds, so a thread
  costs the kiosk nothing for them.
- ``ProcessThinker``: a child process (``python -m trickref.device.table.bot_worker``) that
  keeps the search bots warm and gets each question as a pickled game copy on a pipe. A search
  in a thread holds the GIL for most of its budget and the kiosk's frames wait for it; a
  process runs on another core (a Pi 4 has four) and never takes the GIL of the kiosk
  (``benchmarks/kiosk.py`` measures both). The child runs at a lower priority (nice +5), so on
  a loaded machine the kiosk's frames come first and the search simply sees fewer worlds in its
  time budget. It ends when its pipe closes, so a kiosk killed in the middle of a search leaves
  no orphan behind.

Stale answers. Every question carries a ticket. ``BotSeats`` keeps the *key* of the position the
question was asked in (the hand's deck, its number and every action so far); whenever the key
changes (the bot's own entry, an undo, a human entry, a new hand) the ticket moves on and an
answer to an older ticket is dropped, so a decision is never applied to a changed state.

Pacing. The thinking starts at once, but the entry waits for the kiosk's go (``go``): the kiosk
paces bots so that people can follow the plays, and the search overlaps that pause. A go is
also needed for the first bot entry after a restart: a power cut while a bot thinks leaves the
question unanswered in no journal, so the resumed host simply asks again.
"""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from trickref.engine import actions as A
from trickref.engine.actions import Action
from trickref.engine.referee.commands import Refusal
from trickref.engine.referee.events import BotAction

CHILD_NICE = 5  # the search process yields to the kiosk's frames on a busy machine
RULE = "rule"


def make_bot(game: str, level: str, reproducible: bool = False) -> Any:
    """The bot of ``game`` at ``level`` (engine.bots.levels)."""
    from trickref.engine.bots import bot_for

    if level == RULE:
        return bot_for(game)
    from trickref.engine.bots.levels import search_bot

    return search_bot(game, level, reproducible=reproducible)


@dataclass(frozen=True)
class Question:
    """What a bot is asked: ``seat``'s action in ``state`` (a copy) with ``rng``."""

    ticket: int
    game: str
    level: str
    seat: int
    state: Any
    rng: random.Random
    reproducible: bool = False


Answer = Callable[[int, "Action | None", "str | None"], None]  # (ticket, action, error)


class Thinker(Protocol):
    def ask(self, q: Question, answer: Answer) -> None: ...
    def close(self) -> None: ...


def decide(q: Question, bots: dict[tuple[str, str, bool], Any], maker: Callable[..., Any] = make_bot) -> Action:
    key = (q.game, q.level, q.reproducible)
    bot = bots.get(key)
    if bot is None:
        bot = bots[key] = maker(q.game, q.level, q.reproducible)
    return bot.choose(q.state, q.seat, q.rng)


class ThreadThinker:
    """Questions answered one at a time on a thread of its own."""

    def __init__(self, maker: Callable[..., Any] = make_bot, name: str = "bot-thinker") -> None:
        self.maker = maker
        self._bots: dict[tuple[str, str, bool], Any] = {}
        self._jobs: deque[tuple[Question, Answer]] = deque()
        self._cond = threading.Condition()
        self._closing = False
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def ask(self, q: Question, answer: Answer) -> None:
        with self._cond:
            self._jobs.append((q, answer))
            self._cond.notify_all()

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                q, answer = self._jobs.popleft()
            try:
                action: Action | None = decide(q, self._bots, self.maker)
                error = None
            except Exception as e:  # noqa: BLE001 - said on screen; the rule bot decides instead
                action, error = None, f"{type(e).__name__}: {e}"
            if not self._closing:
                answer(q.ticket, action, error)

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()


class ProcessThinker:
    """Questions answered in a child process (started at once: its imports overlap the game's
    start), one at a time in order. A child that dies is said so for the question it had and
    started again for the next one."""

    def __init__(self, warm: tuple[str, ...] = ()) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[int, tuple[Any, Answer]] = {}  # ticket -> (the process asked, answer)
        self._proc: subprocess.Popen[bytes] | None = None
        self._closing = False
        self.starts = 0
        self._warm = warm
        self._start()

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def _start(self) -> None:
        env = dict(os.environ)
        proc = subprocess.Popen([sys.executable, "-m", "trickref.device.table.bot_worker", *self._warm],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True)
        self._proc = proc
        self.starts += 1
        threading.Thread(target=self._read, args=(proc,), name="bot-process-reader", daemon=True).start()

    def ask(self, q: Question, answer: Answer) -> None:
        data = pickle.dumps(q, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            if self._closing:
                return
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            proc = self._proc
            assert proc is not None and proc.stdin is not None
            self._waiting[q.ticket] = (proc, answer)
            try:
                proc.stdin.write(len(data).to_bytes(4, "little") + data)
                proc.stdin.flush()
            except (BrokenPipeError, OSError) as e:
                self._waiting.pop(q.ticket, None)
                err = f"the bot process stopped ({e})"
            else:
                return
        answer(q.ticket, None, err)

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        out = proc.stdout
        assert out is not None
        while True:
            try:
                ticket, action, error = pickle.load(out)
            except (EOFError, OSError, pickle.UnpicklingError, ValueError):
                break
            with self._lock:
                got = self._waiting.pop(ticket, None)
            if got is not None and not self._closing:
                got[1](ticket, action, error)
        code = proc.wait()
        with self._lock:  # the questions this process had: answered with why it stopped
            orphans = {t: a for t, (p, a) in self._waiting.items() if p is proc}
            for t in orphans:
                del self._waiting[t]
        if not self._closing:
            for ticket, answer in orphans.items():
                answer(ticket, None, f"the bot process stopped (exit status {code})")

    def close(self) -> None:
        with self._lock:
            self._closing = True
            proc = self._proc
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        if proc.poll() is None:
            proc.terminate()  # a search under way is not waited for
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@dataclass
class GoRequest:
    """The kiosk's go: the bot on turn may enter its decision. ``done`` is set when the entry
    was made (``action``) or will not be (the position changed, no bot on turn: None)."""

    done: threading.Event = field(default_factory=threading.Event)
    seat: int | None = None
    action: Action | None = None

    def resolve(self, seat: int | None = None, action: Action | None = None) -> None:
        self.seat, self.action = seat, action
        self.done.set()


class BotSeats:
    """The table host's bot seats (``TableHost.bot_seats``). Everything but the thinking runs
    on the host's worker: ``after`` (after each item), ``go`` and the answers arrive as jobs."""

    def __init__(self, host: Any, game: str, levels: dict[int, str] | None = None, *, process: bool = True,
                 maker: Callable[..., Any] = make_bot, reproducible: bool = False) -> None:
        self.host = host
        self.game = game
        self.levels: dict[int, str] = dict(levels or {})
        self.process = process  # search levels in a child process (else on a thread)
        self.maker = maker
        self.reproducible = reproducible
        self._thread: ThreadThinker | None = None
        self._proc: ProcessThinker | None = None
        self.key: tuple[Any, ...] | None = None  # the position asked about
        self.seat: int | None = None
        self.ticket = 0
        self.choice: Action | None = None
        self.waiters: list[GoRequest] = []
        self.asked = 0  # questions asked (tests, benchmarks)
        self.answered = 0
        self.stale = 0  # answers dropped: the position had changed
        self.entered = 0
        self.thinking = False  # a question is out for the current position
        self.on_ask: Callable[[int, int], None] | None = None  # (seat, ticket): tests, benchmarks
        self._closed = False
        self.warm()

    # ---------------------------------------------------------------- thinkers
    def warm(self) -> None:
        """Start the search process now when a seat plays at a search level (its imports then
        overlap the deal)."""
        if self.process and any(lv != RULE for lv in self.levels.values()) and self._proc is None:
            self._proc = ProcessThinker(warm=(self.game,))

    def set_levels(self, levels: dict[int, str], process: bool | None = None) -> None:
        """Each bot seat's level; ``process``: search levels in a child process (else a thread).
        On the host's worker: a question out for the seat on turn is asked again."""
        changed = levels != self.levels or (process is not None and process != self.process)
        self.levels = dict(levels)
        if process is not None:
            self.process = process
        self.warm()
        if changed and self.key is not None and self.seat is not None:  # asked again, at the new level
            self.ticket += 1
            self.choice = None
            self._ask(self.seat, self.levels.get(self.seat, RULE))

    def use_maker(self, maker: Callable[..., Any]) -> None:
        """Bots built by ``maker`` from now on, on a thread (tests: a bot that waits to be let
        go); on the host's worker. A question out is asked again of the new bot."""
        if self._thread is not None:
            self._thread.close()
            self._thread = None
        self.maker = maker
        if self.key is not None and self.seat is not None:
            self.ticket += 1
            self.choice = None
            self._ask(self.seat, self.levels.get(self.seat, RULE))

    def thinker(self, level: str) -> Thinker:
        if level != RULE and self.process and self.maker is make_bot:
            if self._proc is None:
                self._proc = ProcessThinker(warm=(self.game,))
            return self._proc
        if self._thread is None:
            self._thread = ThreadThinker(self.maker)
        return self._thread

    @property
    def process_pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def close(self) -> None:
        self._closed = True
        for t in (self._thread, self._proc):
            if t is not None:
                t.close()
        for w in self.waiters:
            w.resolve()
        self.waiters = []

    # ---------------------------------------------------------------- on the host's worker
    @staticmethod
    def position_key(ref: Any) -> tuple[Any, ...]:
        g = ref.game
        return (g.hand_number, tuple(g.deck), tuple(g.actions))

    def after(self) -> None:
        """After every item the host took: a new position with a bot on turn is asked about;
        any other change forgets the question (its answer will be stale)."""
        if self._closed:
            return
        ref = self.host.referee
        seats = ref.bot_turns()
        key = (*self.position_key(ref), seats[0]) if seats else None
        if key == self.key:
            return
        self.key, self.choice, self.thinking = key, None, False
        self.ticket += 1
        for w in self.waiters:
            w.resolve()
        self.waiters = []
        if key is None:
            return
        self.seat = seat = seats[0]
        level = self.levels.get(seat, RULE)
        self._ask(seat, level)

    def _ask(self, seat: int, level: str) -> None:
        ref = self.host.referee
        q = Question(self.ticket, self.game, level, seat, ref.game.copy(), self.host.bot_rng(seat), self.reproducible)
        self.thinking = True
        self.asked += 1
        if self.on_ask is not None:
            self.on_ask(seat, q.ticket)
        self.thinker(level).ask(q, self._answer)

    def _answer(self, ticket: int, action: Action | None, error: str | None) -> None:
        """From a thinker's thread: into the host's inbox, in order with everything else."""
        self.host.job(lambda: self._arrived(ticket, action, error))

    def _arrived(self, ticket: int, action: Action | None, error: str | None) -> None:
        self.answered += 1
        if ticket != self.ticket or self.key is None:
            self.stale += 1
            return
        if action is None:
            level = self.levels.get(self.seat or 0, RULE)
            self.host.errors.append(f"the {level} bot of seat {(self.seat or 0) + 1} failed ({error}); "
                                    "the rule bot decides instead")
            if level != RULE:
                self.thinker(RULE).ask(Question(ticket, self.game, RULE, self.seat or 0,
                                                self.host.referee.game.copy(), self.host.bot_rng(self.seat or 0)),
                                       self._answer)
                return
            self.thinking = False
            for w in self.waiters:
                w.resolve()
            self.waiters = []
            return
        self.thinking = False
        self.choice = action
        self._enter()

    def go(self, req: GoRequest | None = None) -> None:
        """The kiosk's go (a job): the bot on turn enters its decision as soon as it has one."""
        req = req or GoRequest()
        if self.key is None or self._closed:
            req.resolve()
            return
        self.waiters.append(req)
        self._enter()

    def hold(self) -> None:
        """No bot entry until the next go (an undo is under way): the waiting go's end."""
        for w in self.waiters:
            w.resolve()
        self.waiters = []

    @property
    def awaited(self) -> bool:
        """A go waits for a decision: the table is not idle."""
        return bool(self.waiters) and self.key is not None

    def _enter(self) -> None:
        if not self.waiters or self.choice is None or self.seat is None:
            return
        seat, action = self.seat, self.choice
        if action.kind == "exchange" and action.value[1] is None:  # the referee draws what is got
            action = Action("exchange", (tuple(action.value[0]), ()))
        rec = A.to_record(seat, action)
        rec.pop("seat")
        waiters, self.waiters = self.waiters, []
        self.choice = None
        out = self.host.handle(BotAction(seat, rec))
        refused = next((c.text for c in out if isinstance(c, Refusal)), None)
        if refused is not None:
            self.host.errors.append(f"the bot of seat {seat + 1} chose {action.describe()}, refused: {refused}")
            for w in waiters:
                w.resolve()
            return
        self.entered += 1
        for w in waiters:
            w.resolve(seat, action)


# ------------------------------------------------------------------------ the child process
def _read_exact(inp: IO[bytes], n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        chunk = inp.read(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def child_main(warm: list[str]) -> int:
    """The search process: questions on stdin (4-byte length + pickle), answers on stdout
    (pickled (ticket, action, error)). Ends when stdin closes (the kiosk stopped or died)."""
    import signal

    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not corrupt the answers
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C stops the kiosk, which closes this process
    inp = sys.stdin.buffer
    try:
        os.nice(CHILD_NICE)
    except OSError:
        pass
    bots: dict[tuple[str, str, bool], Any] = {}
    for game in warm:  # the search bots' imports, while the game starts
        try:
            make_bot(game, "strong")
        except (ValueError, KeyError, ImportError):
            pass
    while True:
        head = _read_exact(inp, 4)
        if head is None:
            return 0
        body = _read_exact(inp, int.from_bytes(head, "little"))
        if body is None:
            return 0
        q: Question = pickle.loads(body)
        try:
            reply: tuple[int, Action | None, str | None] = (q.ticket, decide(q, bots), None)
        except Exception as e:  # noqa: BLE001 - the kiosk says it and asks the rule bot
            reply = (q.ticket, None, f"{type(e).__name__}: {e}")
        try:
            pickle.dump(reply, out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
        except (BrokenPipeError, OSError):
            return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
