"""The kiosk's table: the referee host loop (device/table.py) behind the ``ui.session.Table``
interface, so simulated mode on a laptop is the appliance minus the hardware.

What runs where:

- The referee lives in a ``device.table.Table`` host (``SimHost``: the dealer simulator on a
  pty opened through the real ``device.dealer.Dealer`` driver, on-screen ``MockPanels``;
  ``HardwareHost``: the configured dealer port and the wired panels). Every accepted event is
  journaled before the referee handles it (the host does that); a finished game's record goes
  to the games folder and the journal starts afresh.
- Entries from the screen (touches, bot choices, panel presses) are handled on the UI thread:
  the referee answers in microseconds, so the scene sees the new view at once. Dealer steps
  block for seconds, so a worker thread carries them out (and the shuffle before each deal)
  and posts ``TABLE_EVENT`` ``kind="table"`` to the pygame loop when something changed. One
  lock guards the referee; it is never held while the dealer works.
- Panel presses arrive as posted ``TABLE_EVENT`` ``kind="button"`` events from the panels'
  threads: on the Pi from gpiozero's; in simulated mode from ``MockPanels`` (the real panel
  code on gpiozero's mock pins), whose pins the bidding scene's on-screen -, +, OK drive low on
  mouse down and high on mouse up (``panel_down``/``panel_up``), so holding OK asks to undo as
  on the wired panel. The loop hands them back to ``button``.
- The next hand is dealt only when the kiosk asks (``deal``): the summary of the hand just
  played stays on screen until then.

``start_table`` begins a new game (forgetting an unfinished one in the journal);
``resume_table`` rebuilds the game the journal holds, exactly where it stopped.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from device.dealer import Dealer
from device.dealer_errors import DealerError
from device.journal import Journal, JournalError, OpenReport
from device.table import Table as Host
from device.table import shuffle_for
from device.table_dealer import DealerAdapter
from device.table_sim import SimTable
from engine import actions as A
from engine import cards as C
from engine.actions import Action
from engine.bots import bot_for
from engine.referee.commands import DealerCommand, NeedShuffle
from engine.referee.events import (
    BotAction,
    Button,
    DealerFault,
    DealerReady,
    Event,
    NewGame,
    Touch,
    UndoConfirm,
    UndoRequest,
)

from .faults import fault_kind

JOURNAL_NAME = "table.journal"
KEYS = {"-": "minus", "+": "plus", "OK": "ok", "minus": "minus", "plus": "plus", "ok": "ok", "ok_long": "ok_long"}
SIM_SPEED = 8.0  # the simulated dealer's speed-up: a deal takes a second or two, visible on screen


class TableSetupError(ValueError):
    """The table could not be opened (dealer port, panels, journal): what and why, in words."""


def journal_path(config: Any) -> Path:
    return Path(config.storage.journal_dir()) / JOURNAL_NAME


def _fault_event(kind: str, e: Exception) -> DealerFault:
    return DealerFault(kind, str(e), None)


class _Hooks:
    """What both hosts share: the lock around the referee, mirroring by-hand moves, and the
    journal's rotation once the game is over."""

    lock: threading.RLock
    journal: Any
    referee: Any
    finished_record: Any
    store: Any

    def _locked_submit(self, submit: Callable[[Event], Any], event: Event) -> Any:
        with self.lock:
            out = submit(event)
            if self.finished_record is not None and self.journal is not None and self.journal.count:
                # the record is in the games folder (the host saved it): the next start is a new game
                self.journal.rotate(None)
            return out


class SimHost(_Hooks, SimTable):
    """``trickref sim``'s table (simulator on a pty, the real Dealer driver, SimulatedPanels,
    the journal) with the kiosk's lock; panel presses go to ``panel_sink``."""

    def __init__(self, *args: Any, lock: threading.RLock, panel_sink: Callable[[int, str], None],
                 panel_timing: Any = None, **kw: Any) -> None:
        from device.panels import MockPanels

        self.lock = lock
        self.panel_sink = panel_sink
        super().__init__(*args, **kw)
        # the kiosk's on-screen panels are the real Panels code on gpiozero's mock pins (debounce,
        # long OK), not SimTable's SimulatedPanels; the LEDs the referee sets go to them
        try:
            self.panels: Any = MockPanels(self.players, self._on_panel, timing=panel_timing)
        except BaseException:
            super().close()
            raise
        self.leds = self.panels

    def _on_panel(self, event: Any) -> None:
        self.panel_sink(event.seat, event.button)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.panels.close()

    def submit(self, event: Event) -> Any:
        moved = isinstance(event, (Touch, BotAction))
        before = self.referee.places.snapshot()["at"] if moved else None
        out = self._locked_submit(super().submit, event)
        if before is not None:
            self._mirror(before, self.referee.places.snapshot()["at"])
        return out

    def _mirror(self, before: dict[str, list[str]], after: dict[str, list[str]]) -> None:
        """Cards players moved by hand (a card played on the screen goes on the trick pile,
        passed cards to their receiver): move them in the simulator too, so its trays match."""
        from device.dealer_sim import SLOTTED
        from device.table_dealer import target_byte

        gone: list[tuple[str, int]] = []
        came: list[tuple[str, int]] = []
        for store in set(before) | set(after):
            b, a = list(before.get(store, [])), list(after.get(store, []))
            for c in list(b):
                if c in a:
                    a.remove(c)
                    b.remove(c)
            gone += [(store, C.parse(c)) for c in b]
            came += [(store, C.parse(c)) for c in a]
        with self.sim.lock:
            trays = self.sim.board.trays
            for store, card in came:
                try:
                    dst = target_byte(store)
                except ValueError:
                    continue
                if dst in SLOTTED:
                    continue
                src = next((s for s, c in gone if c == card), None)
                try:
                    src_b = target_byte(src) if src is not None else None
                except ValueError:
                    src_b = None
                if src_b is not None and card in trays.get(src_b, []):
                    trays[src_b].remove(card)
                    trays.setdefault(dst, []).append(card)


class HardwareHost(_Hooks, Host):
    """The appliance: the configured dealer port and the wired seat panels."""

    def __init__(self, config: Any, players: int, *, lock: threading.RLock,
                 panel_sink: Callable[[int, str], None], journal: Journal | None, store: Any,
                 seed: int | None = None, pin_factory: Any = None) -> None:
        from device.panels import open_panels

        self.lock = lock
        self.config = config
        self.driver = Dealer(config.dealer.port, baudrate=config.dealer.baud)
        try:
            self.driver.open()
        except (DealerError, OSError, ValueError) as e:
            raise TableSetupError(f"cannot open the dealer on {config.dealer.port}: {e}") from None
        try:
            self.panels = open_panels(config, lambda ev: panel_sink(ev.seat, ev.button), "hardware", seats=players,
                                      pin_factory=pin_factory)
        except (ValueError, OSError) as e:
            self.driver.close()
            raise TableSetupError(f"cannot open the seat panels: {e}") from None
        self.adapter = DealerAdapter(self.driver)
        super().__init__(self.adapter, journal=journal, store=store, leds=self.panels, seed=seed)
        self._journal = journal
        self.decks = 1

    def submit(self, event: Event) -> Any:
        return self._locked_submit(super().submit, event)

    def recover(self) -> None:
        """After "fixed, continue": the dealer answers again, the referee decides what follows."""
        try:
            self.driver.status()
        except (DealerError, ValueError, OSError) as e:
            self.submit(_fault_event("link_down", e))
            return
        self.submit(DealerReady(False))

    def close(self) -> None:
        try:
            self.driver.close()
        finally:
            self.panels.close()
            if self._journal is not None:
                self._journal.close()


class RefereeTable:
    """``ui.session.Table`` on the referee host. Build with ``start_table`` / ``resume_table``."""

    def __init__(self, game: str, players: int, *, mode: str = "simulated", config: Any = None,
                 journal_file: str | os.PathLike[str] | None = None, games_dir: str | os.PathLike[str] | None = None,
                 seed: int | None = None, speed: float = SIM_SPEED,
                 post: Callable[..., None] | None = None, fresh: bool = False, pin_factory: Any = None) -> None:
        from device.games_store import GamesStore

        self.game = game
        self.players = players
        self.mode = mode
        self.post = post
        self.lock = threading.RLock()
        self.messages: list[str] = []
        self.notice: str | None = None  # said once on screen (resumed game, journal repaired)
        self.report: OpenReport | None = None
        self.bots: set[int] = set()
        self.changes = 0
        self._seen_changes = 0
        self._deal_allowed = False
        self._jobs: deque[Callable[[], None]] = deque()
        self._cond = threading.Condition()
        self._closing = False
        self._dealt = 0
        self._unplugged = False
        self.bot = bot_for(game)
        store = GamesStore(games_dir) if games_dir is not None else None
        if journal_file is not None and fresh:
            p = Path(journal_file)
            if p.exists():
                p.unlink()
        if mode == "simulated":
            from device.panels import timing_of

            self.host: Any = SimHost(game, players, seed=seed, speed=speed, store=store,
                                     journal_path=None if journal_file is None else str(journal_file),
                                     lock=self.lock, panel_sink=self._panel_event, link_timeout=1.0,
                                     panel_timing=None if config is None else timing_of(config.panels))
            self.records: list[Any] = list(self.host.journal_records)
        else:
            journal = None
            self.records = []
            if journal_file is not None:
                journal, self.records, self.report = Journal.open(journal_file)
            self.host = HardwareHost(config, players, lock=self.lock, panel_sink=self._panel_event,
                                     journal=journal, store=store, seed=seed, pin_factory=pin_factory)
        self.host.driver.add_listener(self._dealer_event)
        self._worker = threading.Thread(target=self._work, name="kiosk-dealer", daemon=True)

    # ------------------------------------------------------------------ lifecycle
    def begin(self, names: Sequence[str], options: dict[str, Any], bots: Iterable[int], first_dealer: int = 0) -> None:
        """A new game (the journal must be empty)."""
        self.bots = set(bots)
        self.host.submit(NewGame(self.game, tuple(names), dict(options), first_dealer, tuple(sorted(self.bots))))
        self._worker.start()
        self._wake()

    def resume(self) -> None:
        """Replay the journal, put the dealer back where the cards are, redo the pending step."""
        h = self.host  # no worker yet: nothing else touches the referee (and the restore
        h.resume(self.records)  # deal must not wait for the lock the dealer's events take)
        self.bots = set(h.referee.bots)
        if isinstance(h, SimHost):
            h.restore()
        h.resync()
        self._worker.start()
        self._wake()

    def close(self) -> None:
        """Stop the worker (a dealer step in flight ends when the port closes) and the host."""
        with self._cond:
            if self._closing:
                return
            self._closing = True
            self._cond.notify_all()
        if self._worker.is_alive() and self._worker is not threading.current_thread():
            self._worker.join(timeout=0.5)
        try:
            self.host.close()
        except (OSError, DealerError, JournalError):
            pass
        if self._worker.is_alive() and self._worker is not threading.current_thread():
            self._worker.join(timeout=10)

    # ------------------------------------------------------------------ views
    @property
    def referee(self) -> Any:
        return self.host.referee

    @property
    def state(self) -> Any:
        """The engine game state (read only: tests and scripts)."""
        return self.host.referee.game

    def _extras(self, v: dict[str, Any]) -> dict[str, Any]:
        t = v["table"]
        t["mode"] = self.mode
        t["humans"] = [s for s in range(self.players) if s not in self.bots]
        t["can_undo"] = self.can_undo()
        d = t["dealer"]
        d["kind"] = fault_kind(d.get("fault"))
        if d.get("op") == "deal":
            d["message"] = "dealing" if d["status"] == "busy" else "stopped"
        elif d["status"] == "busy":
            d["message"] = {"present": "showing a card", "route_presented": "routing a card", "turn_up": "turning up",
                            "deal_stock": "dealing from the stock", "fetch": "fetching a card"}.get(d.get("op") or "", "busy")
        else:
            d["message"] = "waiting for the shuffle" if t.get("waiting") == "shuffle" else "ready"
        return v

    def public_view(self) -> dict[str, Any]:
        with self.lock:
            return self._extras(self.host.referee.public_view())

    def seat_view(self, seat: int) -> dict[str, Any]:
        with self.lock:
            return self._extras(self.host.referee.seat_view(seat))

    def turn(self) -> tuple[int, ...]:
        with self.lock:
            ref = self.host.referee
            if ref.game is None or not ref.accepting():
                return ()
            return tuple(ref.game.turn_seats())

    def legal(self, seat: int) -> list[Action]:
        with self.lock:
            ref = self.host.referee
            if ref.game is None or not ref.accepting():
                return []
            return list(ref.game.legal_actions(seat))

    def check(self, seat: int, action: Action) -> str | None:
        with self.lock:
            ref = self.host.referee
            if ref.game is None:
                return "no game"
            if not ref.accepting():
                return ref.waiting_text()
            if action.kind == "exchange":
                return None
            return ref.game.check(action, seat)

    @property
    def pending(self) -> dict[int, int]:
        """Per seat, the panel choice on screen (an index into its choices)."""
        return dict(self.host.referee.pending)

    def led(self, seat: int) -> str:
        leds = self.host.referee.leds
        return leds[seat] if seat < len(leds) else "off"

    # ------------------------------------------------------------------ entries (UI thread)
    def _entry(self, event: Event, seat: int) -> None:
        with self.lock:
            ref = self.host.referee
            n = len(ref.game.actions) if ref.game is not None else 0
            hand = ref.game.hand_number if ref.game is not None else 0
            kept = len(ref.messages)
            self.host.submit(event)
            g = ref.game
            took = g is not None and (g.hand_number != hand or len(g.actions) != n)
            refusal = [m["text"] for m in ref.messages[kept:] if m["level"] in ("warn", "error")] if not took else []
        self._touched()
        if refusal:
            raise ValueError(refusal[-1])

    def submit(self, seat: int, action: Action) -> None:
        """A touch entry; ValueError with the referee's words if it was refused."""
        rec = A.to_record(seat, _with_get(action))
        rec.pop("seat")
        self._entry(Touch(seat, rec), seat)

    def _key(self, key: str) -> str:
        button = KEYS.get(key)
        if button is None or button == "ok_long":
            raise ValueError(f"a seat panel has the keys -, + and OK, not {key!r}")
        return button

    def panel(self, seat: int, key: str) -> None:
        """A click on an on-screen panel key ('-', '+', 'OK'): in simulated mode a press of the
        mock-pin panel (its event comes back from the panel's timer through the loop, after the
        debounce window), else straight to the referee."""
        button = self._key(key)
        if isinstance(self.host, SimHost):
            self.host.panels.press(seat, button)
        else:
            self.button(seat, button)

    @property
    def holds_keys(self) -> bool:
        """Whether the on-screen keys are held and released (simulated mode's mock pins)."""
        return isinstance(self.host, SimHost)

    def panel_down(self, seat: int, key: str) -> None:
        """An on-screen key goes down (mouse down): its mock pin is driven low. Held OK for the
        long-press time gives "ok_long" (undo that seat's last entry), as on the wired panel."""
        button = self._key(key)
        if isinstance(self.host, SimHost):
            self.host.panels.hold(seat, button)

    def panel_up(self, seat: int, key: str) -> None:
        """An on-screen key comes up (mouse up, wherever the finger is): the pin goes high."""
        button = self._key(key)
        if isinstance(self.host, SimHost):
            self.host.panels.release(seat, button)
        else:
            self.button(seat, button)

    def button(self, seat: int, button: str) -> None:
        """A panel press delivered by the loop (or directly without one)."""
        self.host.submit(Button(seat, button))
        self._touched()

    def _panel_event(self, seat: int, button: str) -> None:
        """A panel press, on the panels' thread: posted to the loop, or (no loop) handed to the
        worker, never submitted here (the panels' lock is held, and the referee's LED commands
        take it while the table's lock is held)."""
        if self.post is not None:
            self.post("button", seat=seat, button=button)
        else:
            self._job(lambda: self.button(seat, button))

    def bot_on_turn(self) -> int | None:
        with self.lock:
            seats = self.host.referee.bot_turns()
            return seats[0] if seats else None

    def step_bot(self) -> tuple[int, Action] | None:
        with self.lock:
            ref = self.host.referee
            seats = ref.bot_turns()
            if not seats:
                return None
            s = seats[0]
            action = self.bot.choose(ref.game.copy(), s, self.host.bot_rng(s))
            rec = A.to_record(s, _with_get(action))
            rec.pop("seat")
            self.host.submit(BotAction(s, rec))
        self._touched()
        return s, action

    def can_undo(self) -> bool:
        with self.lock:
            ref = self.host.referee
            g = ref.game
            if g is None or not ref.accepting() or not g.actions:
                return False
            if ref.blocked and ref.blocked[-1] is not None:
                return False
            return any(s not in self.bots for s, _ in g.actions)

    def undo(self) -> list[Action]:
        """Take back entries up to and including this hand's last human one (as far as the
        referee allows: routed cards cannot be taken back)."""
        taken: list[Action] = []
        with self.lock:
            ref = self.host.referee
            g = ref.game
            while g is not None and g.actions and self.can_undo():
                seat, last = g.actions[-1]
                self.host.submit(UndoRequest(None))
                if ref.undo_pending is None:
                    break
                self.host.submit(UndoConfirm())
                taken.append(last)
                if seat not in self.bots:
                    break
        self._touched()
        return taken

    # ------------------------------------------------------------------ dealing and faults
    @property
    def needs_deal(self) -> bool:
        with self.lock:
            ref = self.host.referee
            return ref.game is not None and ref.waiting == "shuffle" and not self._deal_allowed

    def deal(self, instant: bool = False) -> None:
        """Let the worker shuffle and deal the next hand (it waits for this after each hand)."""
        self._deal_allowed = True
        self._wake()

    def tick(self, dt: float) -> bool:
        """True when the worker changed something since the last tick."""
        n = self.changes
        changed = n != self._seen_changes
        self._seen_changes = n
        return changed

    def fault(self, kind: str) -> None:
        """Simulated mode only: make the simulator jam at its next motion, or pull its cable."""
        if not isinstance(self.host, SimHost):
            raise ValueError("faults can be injected into the simulated dealer only")
        sim = self.host.sim
        if kind == "jam":
            sim.jam("eject")
        elif kind in ("unplug", "link"):
            self._unplugged = True
            sim.go_silent(True)
        else:
            raise ValueError(f"the simulator can jam or be unplugged, not {kind!r}")
        self.messages.append(f"simulated dealer: {kind}")

    def arm_fault(self, kind: str, after_cards: int = 10) -> None:
        """Simulated mode: the fault strikes ``after_cards`` cards into the next deal."""
        count = [0]

        def listener(ev: Any) -> None:
            from device import dealer_messages as m

            if getattr(ev, "kind", None) == m.EV_CARD_DEALT:
                count[0] += 1
                if count[0] == after_cards:
                    self.host.driver.remove_listener(listener)
                    self.fault(kind)

        self.host.driver.add_listener(listener)

    def clear_fault(self) -> None:
        """"Fixed, continue": the worker checks the dealer and tells the referee it is back."""
        def recover() -> None:
            if self.host.referee.dealer_fault is None:
                return
            if isinstance(self.host, SimHost):
                if self._unplugged:
                    self._unplugged = False
                    self.host.sim.go_silent(False)
                try:
                    self.host.recover()
                except (DealerError, ValueError, OSError) as e:
                    self.messages.append(f"the dealer is still not answering: {e}")
            else:
                self.host.recover()
        self._job(recover)

    # ------------------------------------------------------------------ the worker
    def _dealer_event(self, ev: Any) -> None:
        from device import dealer_messages as m

        if getattr(ev, "kind", None) == m.EV_CARD_DEALT:  # the link's reader thread: no lock
            self._dealt += 1
            self.host.referee.note_dealt(self._dealt)
            self.changes += 1

    def _job(self, fn: Callable[[], None]) -> None:
        with self._cond:
            self._jobs.append(fn)
            self._cond.notify_all()

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def _touched(self) -> None:
        self.changes += 1
        self._wake()

    def _runnable(self) -> bool:
        todo = self.host.todo
        if self._jobs:
            return True
        if not todo:
            return False
        return not (isinstance(todo[0], NeedShuffle) and not self._deal_allowed)

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._closing and not self._runnable():
                    self._cond.wait()
                if self._closing:
                    return
                job = self._jobs.popleft() if self._jobs else None
            try:
                if job is not None:
                    job()
                else:
                    self._pump()
            except Exception as e:  # noqa: BLE001 - the kiosk must show it, not die with the thread
                if self._closing:
                    return
                self.messages.append(f"table error: {type(e).__name__}: {e}")
                try:
                    with self.lock:
                        if self.host.referee.dealer_fault is None and self.host.referee.steps:
                            self.host.submit(DealerFault("fault", f"{type(e).__name__}: {e}", None))
                except Exception:  # noqa: BLE001 - the journal itself failed: the message says so
                    pass
            self.changes += 1
            if self.post is not None:
                self.post("table")

    def _pump(self) -> None:
        h = self.host
        with self.lock:
            if not h.todo:
                return
            cmd = h.todo[0]
            ref = h.referee
            if isinstance(cmd, NeedShuffle):
                if not self._deal_allowed:
                    return
                h.todo.popleft()
                if ref.waiting == "shuffle":
                    self._deal_allowed = False
                    self._dealt = 0
                    h.before_shuffle()
                    h.submit(shuffle_for(h.seed, len(ref.fair), cmd.decks))
                return
            h.todo.popleft()
            assert isinstance(cmd, DealerCommand)
            if not (ref.steps and ref.steps[0]["step"] == cmd.step) or ref.dealer_fault is not None:
                return
            if cmd.op == "deal" and getattr(h.adapter, "interrupted_deal", None) != cmd.args["deal_id"]:
                self._dealt = 0
                ref.note_dealt(0)
        outcome = h.dealer.run(cmd)  # blocks: the lock is free meanwhile
        h.submit(outcome)


def _with_get(action: Action) -> Action:
    """A Double Nil exchange from the screen names only the cards given; the referee draws the
    replacements (from the hand's salt), so any placeholder ``get`` is ignored."""
    if action.kind == "exchange" and (action.value[1] is None):
        return Action("exchange", (tuple(action.value[0]), ()))
    return action


def load_config() -> Any:
    from device.config import load

    return load().config


def _post_fn() -> Callable[..., None] | None:
    from . import app as U

    return U.post_table_event if U.TABLE_EVENT is not None else None


def start_table(game: str, players: int, names: Sequence[str], options: dict[str, Any], bots: Iterable[int], *,
                config: Any = None, seed: int | None = None, speed: float = SIM_SPEED,
                post: Callable[..., None] | None = None, mode: str | None = None,
                pin_factory: Any = None) -> RefereeTable:
    """A new game on the referee path (an unfinished game left in the journal is dropped)."""
    config = config or load_config()
    mode = mode or config.resolved_mode()
    table = RefereeTable(game, players, mode=mode, config=config, journal_file=journal_path(config),
                         games_dir=config.storage.games_dir(), seed=seed, speed=speed,
                         post=post if post is not None else _post_fn(), fresh=True, pin_factory=pin_factory)
    table.begin(names, options, bots)
    return table


def journal_game(config: Any = None) -> tuple[list[Any], OpenReport | None, str | None]:
    """What the journal holds: its records, the open report, or an error in words."""
    config = config or load_config()
    path = journal_path(config)
    if not path.exists():
        return [], None, None
    try:
        j, records, report = Journal.open(path)
    except JournalError as e:
        return [], None, str(e)
    j.close()
    return records, report, None


def resume_table(config: Any = None, *, seed: int | None = None, speed: float = SIM_SPEED,
                 post: Callable[..., None] | None = None, mode: str | None = None) -> RefereeTable | None:
    """The game in the journal, resumed where it stopped; None when there is none.
    Raises JournalError (JournalCorrupt) for a journal damaged in the middle."""
    config = config or load_config()
    path = journal_path(config)
    if not path.exists() or path.stat().st_size == 0:
        return None
    j, records, report = Journal.open(path)  # JournalCorrupt: the caller says so on screen
    j.close()
    first = records[0] if records else None
    if not isinstance(first, dict) or first.get("type") != "new_game":
        return None
    mode = mode or config.resolved_mode()
    players = len(first.get("names") or [])
    table = RefereeTable(str(first.get("game")), players, mode=mode, config=config, journal_file=path,
                         games_dir=config.storage.games_dir(), seed=seed, speed=speed,
                         post=post if post is not None else _post_fn())
    table.report = report
    table.resume()
    g = table.state
    if g is None:
        table.close()
        return None
    if table.referee.waiting == "over":
        # the power went between the game's end and the journal's rotation: save the record
        # (the store finds an earlier save of the same record) and start the journal afresh
        from device.games_store import GamesStore

        GamesStore(config.storage.games_dir()).save(table.referee.record())
        if table.host._journal is not None:
            table.host._journal.rotate(None)
    where = f"hand {g.hand_number}" + (f", {len(g.actions)} entries in" if g.actions else "")
    table.notice = f"Resumed the game in progress where it stopped ({where}; {len(records)} events replayed)."
    if not report.clean:
        table.notice += (" The journal's last entry was cut off (a power cut while it was being written) and "
                         "was dropped; it had not been confirmed, so nothing confirmed is lost.")
    return table


def wait_until(pred: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Poll ``pred`` (scripts and benchmarks without a pygame loop)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.005)
    return pred()
