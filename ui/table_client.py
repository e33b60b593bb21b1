"""The kiosk's side of the table: a thin client of the table host (``device.table.host``).

The kiosk posts what people tap (entries, on-screen panel keys, undo, "deal", "fixed, continue")
and reads the snapshot the host's worker publishes after every change (ui.table_snapshot), never
the live referee and without its lock; it knows no threads, ports or simulators (those
are ``device.table.open.open_table``'s and, simulated, ``device.simulated.world``'s). A tap waits for the referee's answer; a refused entry
comes back as the referee's ``Refusal`` command and is raised as ValueError with its words. The
wired panels and the card reader post to the host directly, never through the kiosk: a physical
press or a fed card reaches the referee and the dealer while the pygame loop is busy, or without
one.

``start_table`` begins a new game (forgetting an unfinished one in the journal);
``resume_table`` rebuilds the game the journal holds, exactly where it stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from trickref.device.journal import Journal, JournalError, OpenReport
from trickref.device.simulated.world import SIM_SPEED, open_any
from trickref.device.table.bot_worker import BotSeats, GoRequest
from trickref.device.table.open import OpenTable, TableSetupError
from trickref.device.table.storage import size
from trickref.engine import actions as A
from trickref.engine.actions import Action
from trickref.engine.bots import bot_for
from trickref.engine.referee.commands import Command, Refusal
from trickref.engine.referee.events import Button, Event, Touch, UndoConfirm, UndoRequest

from .faults import fault_kind
from .i18n import N_, _
from .letters import Letter, Letterbox
from .table_snapshot import TableSnapshot, freeze

JOURNAL_NAME = "table.journal"
KEYS = {"-": "minus", "+": "plus", "OK": "ok", "minus": "minus", "plus": "plus", "ok": "ok", "ok_long": "ok_long"}
# the dealer's status words (translated where the dealing screen shows them)
_STEP_WORDS = {"fetch": N_("fetching a card"), "stage": N_("getting the next stock card ready"),
               "feed_back": N_("waiting for the drawn card"), "release": N_("handing the passed cards over"),
               "route_fed": N_("routing a card"), "abort": N_("stopping"), "v1": N_("stopped on an old dealer step")}
_STATUS_WORDS = (N_("dealing"), N_("stopped"), N_("waiting for the shuffle"), N_("ready"), N_("busy"))

__all__ = ["JOURNAL_NAME", "SIM_SPEED", "TableClient", "TableSetupError", "journal_game", "journal_path",
           "load_config", "resume_table", "start_table"]


def journal_path(config: Any) -> Path:
    return Path(config.storage.journal_dir()) / JOURNAL_NAME


def refusal_of(out: list[Command]) -> str | None:
    """The referee's words if it refused the entry these commands answer."""
    return next((c.text for c in out if isinstance(c, Refusal)), None)


class TableClient:
    """``ui.session.Table`` over a table host. Build with ``start_table`` / ``resume_table``."""

    def __init__(self, table: OpenTable, game: str) -> None:
        self.opened = table
        self.host = table.host
        self.game = game
        self.players = table.players
        self.mode = table.mode
        self.bots: set[int] = set()
        self.notice: str | None = None  # said once on screen (resumed game, journal repaired)
        self.report: OpenReport | None = table.report
        self.bot = bot_for(game)
        self.levels: dict[int, str] = {}  # seat -> bot level (engine.bots.search); missing: the rule bot
        self._searchers: dict[str, Any] = {}
        self._seen_changes = 0
        # the bot seats think on a thinker of their own (search levels: a child process) and
        # enter through the host; the kiosk only says when they may (``bot_go``)
        self.letterbox = Letterbox()  # the referee's words to one seat (ui.letters), picked up on the worker
        self.seats = BotSeats(self.host, game)
        self.host.bot_seats = self.seats
        self.host.publisher = self._snapshot  # (it reads the bot seats' question)
        self.host.publish()  # the table as it is now (a worker already running publishes the next)

    # ---------------------------------------------------------------- lifecycle
    def close(self) -> None:
        self.opened.close()

    @property
    def messages(self) -> list[str]:
        """Errors of the table itself (a journal that cannot be written...), for the screen."""
        return self.host.errors

    @property
    def referee(self) -> Any:
        return self.host.referee

    @property
    def state(self) -> Any:
        """The engine game state (read only: tests and scripts)."""
        return self.host.referee.game

    def drain(self, timeout: float = 60.0) -> None:
        """Wait until the table has nothing left to do (tests, scripts)."""
        self.host.drain(timeout)

    def wait(self, pred: Callable[[], bool], timeout: float = 60.0) -> bool:
        """Wait until ``pred()`` holds (checked each time the table changes)."""
        return self.host.wait(pred, timeout)

    # ---------------------------------------------------------------- views
    def _extras(self, v: dict[str, Any], ref: Any) -> dict[str, Any]:
        t = v["table"]
        # the seats on turn that the table takes an entry from now: the referee's view names the
        # game's turn also while a dealer step gates the table (the stock card fetched after a
        # draw or a trick), and a screen that said "your turn" then offered what it would refuse
        t["turn"] = list(ref.game.turn_seats()) if ref.game is not None and ref.accepting() else []
        t["mode"] = self.mode
        t["humans"] = [s for s in range(self.players) if s not in self.bots]
        t["can_undo"] = self._can_undo(ref)
        t["refusal"] = self.host.refusal_shown()  # why the last entry was refused, until one is taken
        t["notice"] = self.host.notice_shown()  # the referee's last warning to the table, likewise
        storage = self.host.storage  # the journal cannot be written: the fault screen says where and why
        t["storage"] = None if storage is None else {
            "path": storage.path, "reason": storage.reason, "mount": storage.mount, "kind": storage.kind,
            "free": size(storage.free), "total": size(storage.total), "full": storage.full}
        d = t["dealer"]
        d["kind"] = fault_kind(d.get("fault"))
        if d.get("op") == "deal":
            d["message"] = "dealing" if d["status"] == "busy" else "stopped"
        elif d["status"] == "busy":
            d["message"] = _STEP_WORDS.get(d.get("op") or "", "busy")
        else:
            d["message"] = "waiting for the shuffle" if t.get("waiting") == "shuffle" else "ready"
        club = self.host.club
        if club is not None and club.words:  # a club night: which board, or what it waits for
            from .scenes.club import club_words

            t["club"] = club_words(club.said)
            if t.get("waiting") == "shuffle":
                d["message"] = t["club"]
        return v

    def _snapshot(self, ref: Any) -> TableSnapshot:
        """The table as the kiosk reads it (the host's publisher: on its worker, after every
        item, under the lock)."""
        g = ref.game
        accepting = g is not None and bool(ref.accepting())
        turn = tuple(g.turn_seats()) if accepting else ()
        bots = ref.bot_turns() if g is not None else ()
        bot = None
        if bots:
            bot = (int(bots[0]), self.host.bot_rng(bots[0]).getstate())
        last = g.actions[-1] if g is not None and g.actions else None
        return TableSnapshot(
            public=freeze(self._extras(ref.public_view(), ref)),
            seats=freeze({s: freeze(self._extras(ref.seat_view(s), ref)) for s in range(self.players)}
                         if g is not None else {}),
            turn=turn,
            legal=freeze({s: tuple(g.legal_actions(s)) for s in turn}),
            accepting=accepting,
            waiting_text=str(ref.waiting_text()) if g is not None and not accepting else "",
            pending=freeze(dict(ref.pending)),
            leds=tuple(str(x) for x in ref.leds),
            can_undo=self._can_undo(ref),
            shuffle_wait=g is not None and ref.waiting == "shuffle",
            last_action=(last[0], last[1]) if last is not None else None,
            undo_pending=ref.undo_pending,
            bot=bot,
            game=g.copy() if g is not None else None,
            bot_question=self.seats.ticket,
            letters=self.letterbox.collect(ref),
        )

    @property
    def snapshot(self) -> TableSnapshot:
        """The last one the host published (no lock)."""
        snap: TableSnapshot = self.host.published
        return snap

    def public_view(self) -> dict[str, Any]:
        return self._club_now(self.snapshot.public_view())

    def public_read(self) -> Mapping[str, Any]:
        """The public view as published (shared, not copied, without the club's words of now):
        for code that only reads it, often (the session's routing). Never change what it gives."""
        return self.snapshot.public

    def letters(self) -> tuple[Letter, ...]:
        """What the referee told one seat only and still holds (ui.letters), oldest first."""
        return self.snapshot.letters

    def seat_view(self, seat: int) -> dict[str, Any]:
        """The seat's own view (a bot seat's too: the simulated kiosk reveals any seat), from
        the snapshot like every read; ValueError for a seat the table has not."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} at this table (seats 0-{self.players - 1})")
        snap = self.snapshot
        v = snap.seat_view(seat)
        if v is None:  # no game yet: every seat sees the table as everyone does
            v = snap.public_view()
        return self._club_now(v)

    def _club_now(self, v: dict[str, Any]) -> dict[str, Any]:
        """A club night's words as the club says them now, in the kiosk's language now (the
        club's own thread changes them, and the language may have changed since the snapshot)."""
        club = self.host.club
        if club is not None and club.words:
            from .scenes.club import club_words

            t = v["table"]
            t["club"] = club_words(club.said)
            if t.get("waiting") == "shuffle":
                t["dealer"]["message"] = t["club"]
        return v

    def turn(self) -> tuple[int, ...]:
        return self.snapshot.turn

    def legal(self, seat: int) -> list[Action]:
        return list(self.snapshot.legal.get(seat, ()))

    def check(self, seat: int, action: Action) -> str | None:
        return self.snapshot.check(seat, action)

    @property
    def pending(self) -> dict[int, int]:
        """Per seat, the panel choice on screen (an index into its choices)."""
        return dict(self.snapshot.pending)

    def led(self, seat: int) -> str:
        leds = self.snapshot.leds
        return leds[seat] if seat < len(leds) else "off"

    # ---------------------------------------------------------------- entries
    def _entry(self, event: Event) -> None:
        words = refusal_of(self.host.call(event))
        if words is not None:
            raise ValueError(words)

    def submit(self, seat: int, action: Action) -> None:
        """A touch entry; ValueError with the referee's words if it was refused."""
        rec = A.to_record(seat, _with_get(action))
        rec.pop("seat")
        self._entry(Touch(seat, rec))

    def _key(self, key: str) -> str:
        button = KEYS.get(key)
        if button is None or button == "ok_long":
            raise ValueError(f"a seat panel has the keys -, + and OK, not {key!r}")
        return button

    def panel(self, seat: int, key: str) -> None:
        """A tap on an on-screen panel key ('-', '+', 'OK'): a press of the seat's panel (its
        mock pins when the table has panels; else the press as an event, answered before this
        returns, like every other tap)."""
        if self.opened.panels is None:
            self.button(seat, self._key(key))
        else:
            self.opened.press(seat, self._key(key))

    @property
    def holds_keys(self) -> bool:
        """Whether the on-screen keys are held and released (the mock pins of simulated mode)."""
        return self.mode == "simulated"

    def panel_down(self, seat: int, key: str) -> None:
        """An on-screen key goes down: its mock pin is driven low (held OK asks to undo)."""
        button = self._key(key)
        if self.holds_keys:
            self.opened.panels.hold(seat, button)

    def panel_up(self, seat: int, key: str) -> None:
        """An on-screen key comes up (wherever the finger is): the pin goes high."""
        button = self._key(key)
        if self.holds_keys:
            self.opened.panels.release(seat, button)
        else:
            self.button(seat, button)

    def button(self, seat: int, button: str) -> None:
        """A panel press as an event (a table without panels)."""
        self.host.call(Button(seat, button))

    def bot_on_turn(self) -> int | None:
        bot = self.snapshot.bot
        return None if bot is None else bot[0]

    def bot_turn(self) -> tuple[int, int, int, int] | None:
        """(seat, hand, entries taken, the table's question) of the bot turn now, None when no
        bot is on turn. The question changes when the table asks the bot again at the same
        position (its go forgotten: a dealer fault came and went): the kiosk says go again."""
        snap = self.snapshot  # read without the referee's lock
        if snap.bot is None or snap.game is None:
            return None
        return int(snap.bot[0]), snap.game.hand_number, len(snap.game.actions), snap.bot_question

    def set_bot_levels(self, levels: dict[int, str], process: bool | None = None) -> None:
        """Each bot seat's level ("rule", "search", "strong"); seats not named: the rule bot.
        ``process``: the search levels think in a child process (the default) or on a thread.
        A question already out for the seat on turn is asked again at its new level."""
        self.levels = dict(levels)
        self._on_worker(lambda: self.seats.set_levels(self.levels, process))

    def _on_worker(self, fn: Callable[[], None], timeout: float = 30.0) -> None:
        """Run ``fn`` on the host's worker, in order with the events, and wait for it (here, when
        the worker no longer takes anything: a table without power, or closed)."""
        if self.host.dead or not self.host._worker.is_alive():
            fn()
            return
        done = threading.Event()

        def job() -> None:
            try:
                fn()
            finally:
                done.set()
        self.host.job(job)
        if not done.wait(timeout):
            raise TimeoutError(f"the table did not answer within {timeout:g} s")

    def bot_of(self, seat: int) -> Any:
        """The bot that plays ``seat`` (as the thinker builds it; for descriptions and tests)."""
        level = self.levels.get(seat, "rule")
        if level == "rule":
            return self.bot
        if level not in self._searchers:
            from trickref.engine.bots.levels import search_bot

            self._searchers[level] = search_bot(self.game, level)
        return self._searchers[level]

    def bot_go(self) -> None:
        """The bot on turn may enter its decision (returns at once). The bot has been thinking
        since its turn came (on its thinker, never on this thread); its choice enters through
        the host as soon as it is ready, unless the position changed meanwhile."""
        self.host.job(self.seats.go)

    def bot_hold(self) -> None:
        """The bot on turn may not enter after all (the game paused); returns at once."""
        self.host.job(self.seats.hold)

    @property
    def bot_thinking(self) -> int | None:
        """The bot seat whose decision is still being worked out, if any."""
        s = self.seats
        return s.seat if s.thinking and s.key is not None else None

    def step_bot(self, timeout: float = 120.0) -> tuple[int, Action] | None:
        """The bot on turn's decision, entered; waits for it (tests, scripts: the kiosk says
        ``bot_go`` and keeps drawing). None when no bot is on turn."""
        if self.host.dead:
            raise RuntimeError("the table has lost power")
        if not self.host._worker.is_alive():
            return None
        req = GoRequest()
        self.host.job(lambda: self.seats.go(req))
        if not req.done.wait(timeout):
            raise TimeoutError(f"no bot decision within {timeout:g} s")
        if req.seat is None or req.action is None:
            return None
        return req.seat, req.action

    @staticmethod
    def _can_undo(ref: Any) -> bool:
        g = ref.game
        if g is None or not ref.accepting() or not g.actions:
            return False
        if ref.blocked and ref.blocked[-1] is not None:
            return False
        return any(s not in ref.bots for s, _ in g.actions)

    def can_undo(self) -> bool:
        return self.snapshot.can_undo

    def undo(self) -> list[Action]:
        """Take back entries up to and including this hand's last human one (as far as the
        referee allows: routed cards cannot be taken back)."""
        taken: list[Action] = []
        self._on_worker(self.seats.hold)  # no bot entry slips in while entries are taken back
        while self.can_undo():
            seat, last = self.snapshot.last_action or (None, None)
            self.host.call(UndoRequest(None))
            if self.snapshot.undo_pending is None:
                break
            self.host.call(UndoConfirm())
            taken.append(last)
            if seat not in self.bots:
                break
        return taken

    # ---------------------------------------------------------------- dealing and faults
    @property
    def needs_deal(self) -> bool:
        return self.snapshot.shuffle_wait and not self.host.deal_allowed

    def deal(self, instant: bool = False) -> None:
        """The next hand may be shuffled and dealt (the host waits for this after each hand)."""
        self.host.allow_deal()

    def tick(self, dt: float) -> bool:
        """True when the table changed since the last tick."""
        n = self.host.changes
        changed = n != self._seen_changes
        self._seen_changes = n
        return changed

    def fault(self, kind: str) -> None:
        """Simulated mode only: the simulator jams, misreads or loses its cable."""
        if kind not in ("jam", "unplug", "link", "misread"):
            raise ValueError(f"the simulator can jam, misread or be unplugged, not {kind!r}")
        self.opened.fault(kind)

    def arm_fault(self, kind: str, after_cards: int = 10) -> None:
        self.opened.arm_fault(kind, after_cards)

    def clear_fault(self) -> None:
        """"Fixed, continue": the journal written again (after a full disk), or the dealer
        checked and the referee told it is back."""
        if self.host.storage is not None:
            self.host.retry_storage()
            return
        self.host.recover()


def _with_get(action: Action) -> Action:
    """A Double Nil exchange from the screen names only the cards given; the referee draws the
    replacements (from the hand's salt), so any placeholder ``get`` is ignored."""
    if action.kind == "exchange" and (action.value[1] is None):
        return Action("exchange", (tuple(action.value[0]), ()))
    return action


def load_config() -> Any:
    from trickref.device.config import load

    return load().config


def _post_fn() -> Callable[[], None] | None:
    from . import wake

    return wake.poster()


def open_client(game: str, players: int, names: Sequence[str] | None = None, options: dict[str, Any] | None = None,
                bots: Iterable[int] = (), *, mode: str = "instant", config: Any = None, seed: int | None = None,
                journal_file: Any = None, games_dir: Any = None, auto_deal: bool = False,
                on_change: Callable[[], None] | None = None, **kw: Any) -> TableClient:
    """A new game on a table of ``mode`` (default: the ideal dealer, no journal: tests)."""
    opened = open_any(config, mode, game=game, players=players, journal_file=journal_file, games_dir=games_dir,
                        seed=seed, fresh=True, auto_deal=auto_deal, on_change=on_change, **kw)
    client = TableClient(opened, game)
    client.bots = set(bots)
    names = list(names) if names is not None else [f"Seat {i + 1}" for i in range(players)]
    try:
        opened.begin(game, names, dict(options or {}), sorted(client.bots))
    except BaseException:
        opened.close()
        raise
    return client


def start_table(game: str, players: int, names: Sequence[str], options: dict[str, Any], bots: Iterable[int], *,
                config: Any = None, seed: int | None = None, speed: float = SIM_SPEED,
                post: Callable[[], None] | None = None, mode: str | None = None, pin_factory: Any = None,
                auto_deal: bool = False, link_timeout: float | None = None, **table_kw: Any) -> TableClient:
    """A new game with the configuration's journal and games folder (an unfinished game left in
    the journal is dropped)."""
    config = config or load_config()
    return open_client(game, players, names, options, bots, mode=mode or config.resolved_mode(), config=config,
                       seed=seed, journal_file=journal_path(config), games_dir=config.storage.games_dir(),
                       auto_deal=auto_deal, on_change=post if post is not None else _post_fn(), speed=speed,
                       pin_factory=pin_factory, link_timeout=link_timeout, **table_kw)


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
                 post: Callable[[], None] | None = None, mode: str | None = None, pin_factory: Any = None,
                 auto_deal: bool = False, link_timeout: float | None = None, **table_kw: Any) -> TableClient | None:
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
    game = str(first.get("game"))
    opened = open_any(config, mode, game=game, players=players, journal_file=path,
                      games_dir=config.storage.games_dir(), seed=seed, speed=speed, auto_deal=auto_deal,
                      pin_factory=pin_factory, link_timeout=link_timeout,
                      on_change=post if post is not None else _post_fn(), **table_kw)
    client = TableClient(opened, game)
    try:
        opened.resume()
    except BaseException:
        opened.close()
        raise
    client.bots = set(client.referee.bots)
    g = client.state
    if g is None:
        client.close()
        return None
    if client.referee.waiting == "over":
        # the power went between the game's end and the journal's rotation: save the record
        # (the store finds an earlier save of the same record) and start the journal afresh
        from trickref.device.games_store import GamesStore

        def rotate() -> None:
            GamesStore(config.storage.games_dir()).save(client.referee.record())
            if client.host.journal is not None:
                client.host.journal.rotate(None)
        client.host.job(rotate)
        client.drain()
    # in the players' words: where the game is, and that nothing they did is lost
    client.notice = _("The game is back where it stopped, in hand {n}: every bid and every card played so far is as "
                      "it was.").format(n=g.hand_number)
    if not report.clean:
        client.notice += " " + _("The very last entry before the power went had not finished saving and is left "
                                 "out: if a bid or a card is missing, enter it again.")
    return client
