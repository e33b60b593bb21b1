"""The dealer-link fault campaign's trials: one simulated hand on the real path with one fault.

A trial is one hand of a game played by bots on ``SimTable`` (the real firmware behind a pty,
the real driver, the table host and referee), with one fault struck at a chosen moment: the
cable pulled (the pty closed, a new one after an outage), the dealer going silent, or line noise
(dropped or corrupted bytes in both directions) for the whole hand. Before every play the
simulator's pockets are compared with the referee's hands (every seat's pocket must hold exactly
the cards the referee says that seat holds); at the end the hand's record is compared with an
uninterrupted run of the same seed. The simulated person does only what the screen says (press
Resume when the table asks; put a card where a message tells them to).

``benchmarks/faults.py`` runs hundreds of trials per row in parallel processes and writes the
table; a short seeded slice runs in the tests.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from trickref.device.dealer import messages as m
from trickref.device.dealer.frames import Frame
from trickref.device.simulated.table import SimTable, TableStuck
from trickref.engine import cards as C
from trickref.engine import catalog
from trickref.engine.referee.commands import DealPlan, FeedBack, Fetch, Release, RouteFed


def _campaign_order(g: catalog.GameInfo) -> tuple[bool, int, int]:
    """The campaign's order of games (its seeds pick by it): the Hearts games first (every hand
    begins with a pass), one deck before two; then a turned-up stock, a drawn one, none."""
    return (not g.point_cards, g.decks, ("turn-up", "draw", "").index(g.stock))


def _trial(g: catalog.GameInfo) -> tuple[str, int, dict[str, Any]]:
    """A game's trial table: four players where it can have them, else its fewest (at least 4)."""
    return g.id, min((n for n in g.player_counts if n >= 4), default=g.player_counts[0]), {}


_BUILT_IN = sorted(catalog.games()[: len(catalog.BUILTIN)], key=_campaign_order)  # plug-ins stay out
GAMES: tuple[tuple[str, int, dict[str, Any]], ...] = tuple(_trial(g) for g in _BUILT_IN)
PASSING: tuple[tuple[str, int, dict[str, Any]], ...] = tuple(_trial(g) for g in _BUILT_IN if g.point_cards)
STOCK: tuple[tuple[str, int, dict[str, Any]], ...] = tuple(  # fetches after every trick
    _trial(g) for g in _BUILT_IN if g.stock == "turn-up")
DRAWING: tuple[tuple[str, int, dict[str, Any]], ...] = tuple(  # cards fed back (a drawn stock)
    _trial(g) for g in _BUILT_IN if g.stock == "draw")

ROWS = (
    "none",
    "unplug_deal",
    "unplug_release",
    "unplug_routed",
    "unplug_fetch",
    "drop_1",
    "corrupt_2",
    "corrupt_5",
)
# not campaign rows: moments the tests strike at exactly (issue 18's reproductions)
EXTRA_ROWS = ("silent_read", "estop_read", "estop_fetch", "estop_deal", "silent_feed_back", "mute_feed_back_route", "refused_play_read",
              "malformed_twin_read", "malform_25")
ROW_WORDS = {
    "none": "no fault (control)",
    "unplug_deal": "unplug mid-deal (card 1-40, back after 0.5-4 s)",
    "unplug_release": "unplug or silence mid-Release (back after 0.5-4 s)",
    "unplug_routed": "unplug right after a fed card was routed (back after 1-5 s)",
    "unplug_fetch": "unplug mid-Fetch, German Whist (back after 0.5-3 s)",
    "drop_1": "1 % dropped bytes",
    "corrupt_2": "2 % corrupted bytes",
    "corrupt_5": "5 % corrupted bytes",
    "silent_read": "the dealer silent right after it read a fed card (back after 3-5 s)",
    "estop_read": "the e-stop pressed right after the dealer read a fed card",
    "estop_fetch": "German Whist: the e-stop pressed 0-2.5 s (the dealer's time) after a FETCH began (its "
                   "card on the way, or cards it sent round still on the loop)",
    "estop_deal": "the e-stop pressed 0-16 s (the dealer's time) after the dealer took the hand's deal (cards "
                  "in the hopper's pickup, at the gate, on the belt, dropping into pockets)",
    "silent_feed_back": "two-player Spades: the dealer silent right after it read a drawn card fed back "
                        "(back after 3-5 s)",
    "refused_play_read": "the dealer refuses the read of a card a player put in the play slot as malformed "
                         "(a frame damaged past its CRC), once: the link sends it again",
    "malformed_twin_read": "two decks: the dealer's answer to EVENTS_SINCE that brings the read of a card played, "
                           "whose twin a lower seat holds, comes damaged past its CRC (cut short), once",
    "malform_25": "a quarter of the dealer's frames damaged past their CRC (cut one byte short, the CRC good)",
    "mute_feed_back_route": "two-player Spades: the dealer routes a drawn card fed back and falls silent at once, "
                            "its answer lost (back after 3-5 s)",
}


@dataclass
class TrialResult:
    row: str
    seed: int
    game: str
    outcome: str  # "right", "stopped" (a clear stop, not resumed), "stuck", "mismatch", "changed"
    detail: str = ""
    seconds: float = 0.0
    struck: bool = False  # the fault struck (a moment that never came leaves the trial a control)
    deals: int = 0  # deals the dealer completed and the host checked ("Hand n dealt and checked")
    mismatches: list[str] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    pressed: int = 0  # times the simulated person pressed Resume (a link fault goes on by itself)
    kept: str = ""  # a stuck trial's report (SimTable.keep), when the trial was given a folder for it

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class _Table(SimTable):
    """A SimTable that checks every pocket against the referee's hands before each play."""

    mismatches: list[str]
    back_at = 0.0  # when the cable is back (the person presses Resume only then)
    pressed = 0

    def recover(self) -> None:
        wait = self.back_at - time.monotonic()
        if wait > 0:
            time.sleep(wait + 0.2)
        self.pressed += 1
        super().recover()

    def feed(self, card: int, seat: int) -> None:
        self.check_pockets(f"before {C.NAMES[card]} from seat {seat}")
        super().feed(card, seat)

    def where(self, card: int) -> str:
        """Where the simulator has ``card`` (for a mismatch's report)."""
        sim = self.sim
        assert sim is not None
        with sim.lock:
            b = sim.board
            out = [f"pocket {m.target_name(t)}" for t, cards in b.trays.items() if card in cards]
            if card in b.slot:
                out.append("play slot")
            if b.gate == card:
                out.append("read window")
            if card in list(b.hopper):
                out.append("hopper")
            if any(c == card for _, c, _, _ in b.belt_cards):
                out.append("belt/loop")
        return ", ".join(out) or "nowhere"

    def check_pockets(self, when: str) -> None:
        ref = self.referee
        g = ref.game
        sim = self.sim
        if g is None or sim is None or g.phase != "play":
            return
        with sim.lock:
            pockets = {s: sorted(sim.board.trays.get(s, [])) for s in range(self.players)}
            twin = getattr(sim, "twin", None)
            if twin is not None:
                # on the physical twin a card the pocket's opto saw go in is still sliding down
                # into it for a few tens of ms (mode "drop"): the firmware has confirmed it, the
                # host may take the next play meanwhile, and the card is in the pocket's mouth
                trays: Any = sim.board.trays  # (the twin's TwinPockets: by pocket index too)
                for c in twin.mech.cards:
                    if c.mode == "drop":
                        s = trays.target(c.pocket)
                        if s in pockets:
                            pockets[s] = sorted(pockets[s] + [int(c.card)])
        for s in range(self.players):
            want = sorted(g.hand_of(s))
            if pockets[s] != want:
                extra = [c for c in pockets[s] if c not in want]
                gone = [c for c in want if c not in pockets[s]]
                self.mismatches.append(f"{when}: seat {s}'s pocket has {C.names(extra)} too many, "
                                       f"lacks {C.names(gone)} ({'; '.join(self.where(c) for c in gone)})")


def slow_host(table: SimTable, factor: float) -> None:
    """Run ``table``'s host as if on a CPU ``factor`` times slower than the line and the dealer
    (a Pi is 3-4x slower a core than this machine; the emulated Pi ~10x): every timer of the
    driver and the link (reply and retransmit timeouts, the link timeout, STATUS polls, the
    stall check) is ``factor`` times shorter while the host's own work takes what it takes, so
    answers come "too late" as on the slow host, steps are sent again, and each must get its
    first outcome."""
    d = table.driver
    assert d is not None
    link = d.link
    d.stall_timeout /= factor
    d.poll_interval /= factor
    link.reply_timeout /= factor
    link.link_timeout /= factor
    link._rto = link.reply_timeout  # noqa: SLF001 - the learnt timeout starts again from the new base
    link._max_rto = max(link.reply_timeout, link._max_rto / factor)  # noqa: SLF001


class Starved:
    """The whole process starved of CPU, as a table restarting on a loaded machine (or a Pi
    restarting after a power cut) is: a thread that only computes holds the interpreter
    ``pause`` seconds at a time (``sys.setswitchinterval``), so the host, the driver's reader and
    the dealer simulator's pump each wait up to that long, over and over, while the link's
    real-time timers run. A 3 s pause made a restart take ~33 s here and its relearning plan
    time out unwritten ("DEAL_PLAN not delivered"). It costs a core while it runs: for the
    campaign's restarts (``benchmarks/faults.py --slow-restarts``), not for the test suite."""

    def __init__(self, pause: float) -> None:
        self.pause = pause
        self._stop = threading.Event()
        self._old = 0.0
        self._thread = threading.Thread(target=self._hog, name="starved", daemon=True)

    def _hog(self) -> None:
        x = 0
        while not self._stop.is_set():
            for i in range(100000):
                x += i

    def start(self) -> Starved:
        import sys

        self._old = sys.getswitchinterval()
        sys.setswitchinterval(self.pause)
        self._thread.start()
        return self

    def stop(self) -> None:
        import sys

        self._stop.set()
        sys.setswitchinterval(self._old)
        if self._thread is not threading.current_thread():
            self._thread.join()

    def __enter__(self) -> Starved:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def lose_relearn(table: SimTable) -> list[list[int]]:
    """A slow restart's lost relearning (tests/device/test_slow_restart.py): the first time the
    table deals the cards parked in the loop back to the rebooted dealer (at the resume, or in
    the first step when a card waits in the read window), the dealer hears nothing (a starved
    host's write timed out: "DEAL_PLAN not delivered"); it answers again straight after. Returns
    the cards of every relearning plan sent (the read window's card first, if any)."""
    adapter = _adapter(table)
    sent: list[list[int]] = []

    def plan(gate: tuple[int, int] | None = None) -> None:
        sent.append(([gate[0]] if gate is not None else []) + list(adapter.relearn or []))

    _deaf_once(table, "_relearn", plan)  # every relearning goes through it
    return sent


def lose_gate_read(table: SimTable) -> list[int | None]:
    """A slow restart's lost read of the card left in the read window (no cards parked: the
    first step reads it where it is, FEED with HOLD, then routes it): the dealer hears nothing
    of that first read, and answers again straight after. Returns the card the table believed
    in the window at each read of it."""
    adapter = _adapter(table)
    seen: list[int | None] = []
    _deaf_once(table, "_read_as", lambda *_a: seen.append(adapter.in_gate))
    return seen


def _adapter(table: SimTable) -> Any:
    port = table.host.dealer
    assert hasattr(port, "adapter")
    return port.adapter


def _deaf_once(table: SimTable, method: str, note: Callable[..., None]) -> None:
    """The adapter's ``method``: ``note`` its arguments at every call; the first call goes
    unheard (the simulator silent while it runs)."""
    adapter = _adapter(table)
    sim = table.sim
    assert sim is not None
    real = getattr(adapter, method)
    calls = [0]

    def deaf(*args: Any) -> Any:
        note(*args)
        calls[0] += 1
        if calls[0] > 1:
            return real(*args)
        sim.go_silent(True)
        try:
            return real(*args)
        finally:
            sim.go_silent(False)

    setattr(adapter, method, deaf)


def pick_game(row: str, seed: int) -> tuple[str, int, dict[str, Any]]:
    """The trial's game: every game in turn by seed (the Release row: the games that pass; the
    Fetch row: German Whist)."""
    pool = PASSING if row == "unplug_release" else STOCK if row in ("unplug_fetch", "estop_fetch") else \
        DRAWING if row in ("silent_feed_back", "mute_feed_back_route") else GAMES
    return pool[seed % len(pool)]


def _record(table: SimTable) -> Any:
    g = table.referee.game
    return None if g is None else [dict(r) for r in g.hand_results]


def clean_run(game: str, players: int, options: dict[str, Any], seed: int) -> Any:
    with SimTable(game, players, options, seed=seed) as t:
        t.start()
        t.run(max_hands=1)
        return _record(t)


class Striker:
    """Strikes the row's fault at its moment, on the simulator's thread or the host's."""

    def __init__(self, table: _Table, row: str, rng: random.Random, at: int | None = None,
                 outage: float | None = None) -> None:
        self.table = table
        self.row = row
        self.rng = rng
        self.struck = threading.Event()
        self.outage = 0.0
        self.at = at  # the moment's number (the n-th card...), else drawn
        self.fixed_outage = outage

    def arm(self) -> None:
        sim = self.table.sim
        assert sim is not None
        row, rng = self.row, self.rng
        if row == "drop_1":
            sim.set_link_faults(drop=0.01)
            self.struck.set()
        elif row == "corrupt_2":
            sim.set_link_faults(corrupt=0.02)
            self.struck.set()
        elif row == "corrupt_5":
            sim.set_link_faults(corrupt=0.05)
            self.struck.set()
        elif row == "malform_25":
            sim.set_link_faults(malform=0.25, direction="to_host")
            self.struck.set()
        elif row == "unplug_deal":
            self.outage = self._outage(0.5, 4.0)
            self._at_card(self._at(1, 40), lambda head: isinstance(head, DealPlan), "unplug")
        elif row == "unplug_release":
            self.outage = self._outage(0.5, 4.0)
            how = rng.choice(("unplug", "silence"))
            self._at_card(self._at(1, 6), lambda head: isinstance(head, Release), how)
        elif row == "unplug_routed":
            self.outage = self._outage(1.0, 5.0)
            self._at_routed(self._at(1, 12))
        elif row == "unplug_fetch":
            self.outage = self._outage(0.5, 3.0)
            self._at_fetch(self._at(1, 6))
        elif row == "estop_fetch":
            self._estop_after(self._at(1, 6), self.rng.randint(0, 2500), m.FETCH, lambda head: isinstance(head, Fetch))
        elif row == "estop_deal":
            self._estop_after(1, self.rng.randint(0, 16000), m.DEAL_PLAN, lambda head: isinstance(head, DealPlan))
        elif row == "silent_read":
            self.outage = self._outage(3.0, 5.0)
            self._at_presented(self._at(1, 12))
        elif row == "estop_read":
            self._at_presented(self._at(1, 12), "estop")
        elif row == "silent_feed_back":
            self.outage = self._outage(3.0, 5.0)
            self._at_presented(self._at(1, 8), which=lambda head: isinstance(head, FeedBack))
        elif row == "refused_play_read":
            self._refuse_read(self._at(1, 12))
        elif row == "malformed_twin_read":
            self._malformed_twin_read(self._at(1, 12))
        elif row == "mute_feed_back_route":
            self.outage = self._outage(3.0, 5.0)
            self._after_command(self._at(1, 8), m.ROUTE_PRESENTED, lambda head: isinstance(head, FeedBack))

    def _at(self, lo: int, hi: int) -> int:
        n = self.rng.randint(lo, hi)
        return self.at if self.at is not None else n

    def _outage(self, lo: float, hi: float) -> float:
        t = self.rng.uniform(lo, hi)
        return self.fixed_outage if self.fixed_outage is not None else t

    def _strike(self, how: str) -> None:
        """On the simulator's thread (it holds its lock): the cable out, or the dealer silent."""
        sim = self.table.sim
        assert sim is not None
        self.struck.set()
        self.table.back_at = time.monotonic() + self.outage
        if how == "silence":
            sim.go_silent(True)
            t = threading.Timer(self.outage, sim.go_silent, (False,))
        else:
            sim.disconnect(come_back_after=self.outage)
            t = None
        if t is not None:
            t.daemon = True
            t.start()

    def _wrap_landed(self, hook: Callable[[int, int, int], None]) -> None:
        sim = self.table.sim
        assert sim is not None
        fw = sim.firmware.dealer
        landed = fw.landed

        def wrapper(card: int, target: int, conf: int, kind: int) -> None:
            landed(card, target, conf, kind)
            if not self.struck.is_set():
                hook(card, target, kind)

        fw.landed = wrapper

    def _head(self) -> Any:
        steps = self.table.referee.steps
        return steps[0] if steps else None

    def _at_card(self, n: int, which: Callable[[Any], bool], how: str) -> None:
        count = [0]

        def hook(card: int, target: int, kind: int) -> None:
            if kind == m.EV_CARD_DEALT and which(self._head()):
                count[0] += 1
                if count[0] == n:
                    self._strike(how)

        self._wrap_landed(hook)

    def _at_routed(self, n: int) -> None:
        count = [0]

        def hook(card: int, target: int, kind: int) -> None:
            if kind == m.EV_CARD_ROUTED and isinstance(self._head(), RouteFed):
                count[0] += 1
                if count[0] == n:
                    self._strike("unplug")

        self._wrap_landed(hook)

    def _at_presented(self, n: int, how: str = "silence", which: Callable[[Any], bool] | None = None) -> None:
        """The dealer falls silent (or the e-stop is pressed) right after it read the n-th fed
        card and holds it (``which``: counting only the reads for a step in progress it takes)."""
        sim = self.table.sim
        assert sim is not None
        fw = sim.firmware.dealer
        count = [0]
        emit = fw.emit

        def wrapper(kind: int, payload: bytes) -> None:
            emit(kind, payload)
            if kind == m.EV_PRESENTED and not self.struck.is_set() and (which is None or which(self._head())):
                count[0] += 1
                if count[0] == n:
                    if how == "estop":
                        self.struck.set()
                        sim.board.estop_button = True  # twisted out by the person's Resume
                    else:
                        self._strike("silence")

        fw.emit = wrapper

    def _after_command(self, n: int, ftype: int, which: Callable[[Any], bool]) -> None:
        """The dealer carries out the n-th ``ftype`` command (while ``which`` holds for the
        referee's step) and falls silent at once: its answer is lost, the step is done."""
        sim = self.table.sim
        assert sim is not None
        fw = sim.firmware.dealer
        count = [0]
        dispatch = fw.dispatch

        def wrapper(ft: int, body: bytes, resumed: bool = False) -> Any:
            out = dispatch(ft, body, resumed)
            if ft == ftype and not self.struck.is_set() and which(self._head()):
                count[0] += 1
                if count[0] == n:
                    self._strike("silence")
            return out

        fw.dispatch = wrapper

    def _refuse_read(self, n: int) -> None:
        """The n-th FEED sent while a player's card lies in the play slot is refused as
        malformed (what a frame damaged past its CRC gets): the card stays in the slot."""
        from importlib import import_module

        sim = self.table.sim
        assert sim is not None
        fw = sim.firmware.dealer
        commands = import_module("trickref.firmware.commands")
        count = [0]
        dispatch = fw.dispatch

        def wrapper(ft: int, body: bytes, resumed: bool = False) -> Any:
            if ft == m.FEED and not self.struck.is_set() and sim.board.slot:
                count[0] += 1
                if count[0] == n:
                    self.struck.set()
                    raise commands.Refused(m.NAK_BAD_BODY)
            return dispatch(ft, body, resumed)

        fw.dispatch = wrapper

    def _malformed_twin_read(self, n: int) -> None:
        """The read of the n-th card fed to play by the seat on turn whose twin (two decks) a
        lower seat also holds is lost on the line (its EVENT frame), and the dealer's answer to
        the EVENTS_SINCE that asks for it again comes damaged past its CRC, one byte short
        ("event 0x02 runs past the end of the block"). The campaign's corrupt_5 trial 308081
        met it by chance: the table stops, the dealer clears the card to the reject pocket, and
        the person must put it back into the hand it came from. Struck on the host's side of
        the line, as the frames arrive."""
        driver = self.table.driver
        assert driver is not None
        link = driver.link
        count = [0]
        lost: list[int] = []  # the card whose read was lost, waiting for its EVENTS answer
        dispatch = link._dispatch  # noqa: SLF001 - the line's end, where frames arrive

        def twin_read(frame: Frame) -> int | None:
            g = self.table.referee.game
            seat = None if g is None or g.phase != "play" else g.to_move
            if g is None or seat is None or len(frame.body) < 2:
                return None
            try:
                events = m.decode_events(frame.body[2:], int.from_bytes(frame.body[:2], "big"))
            except m.BodyError:
                return None
            return next((int(e["card"]) for e in events if e["kind"] == m.EV_PRESENTED
                         and e["card"] in g.hand_of(seat) and any(e["card"] in g.hand_of(s) for s in range(seat))),
                        None)

        def wrapper(frame: Frame) -> None:
            if not self.struck.is_set():
                if frame.type == m.EVENT and not lost:
                    card = twin_read(frame)
                    if card is not None:
                        count[0] += 1
                        if count[0] == n:
                            lost.append(card)
                            return  # lost on the line
                elif frame.type == m.EVENTS and lost and twin_read(frame) == lost[0]:
                    self.struck.set()
                    frame = dataclasses.replace(frame, body=bytes(frame.body)[:-1])
            dispatch(frame)

        link._dispatch = wrapper  # type: ignore[method-assign]  # noqa: SLF001

    def _at_fetch(self, n: int) -> None:
        """While the n-th Fetch cycles the loop: the cable goes after its first card read."""
        sim = self.table.sim
        assert sim is not None
        fw = sim.firmware.dealer
        count = [0]
        seen: set[int] = set()
        emit = fw.emit

        def wrapper(kind: int, payload: bytes) -> None:
            emit(kind, payload)
            head = self._head()
            if self.struck.is_set() or not isinstance(head, Fetch) or head.step in seen:
                return
            seen.add(head.step)
            count[0] += 1
            if count[0] == n:
                self._strike("unplug")

        # the Fetch's FETCH command is accepted: strike at its first event (a card routed, or
        # one sent round the loop and read) - mid-fetch either way
        fw.emit = wrapper


    def _estop_after(self, n: int, delay_ms: int, ft_wanted: int, which: Callable[[Any], bool]) -> None:
        """The e-stop pressed ``delay_ms`` of the dealer's time after it took the command
        ``ft_wanted`` of the n-th referee step ``which`` accepts: a Fetch's FETCH (mid-fetch, or
        with the cards it sent round still on the loop), the deal's DEAL_PLAN (mid-deal)."""
        sim = self.table.sim
        assert sim is not None
        twin = getattr(sim, "twin", None)  # the physical twin (TwinDealerSimulator), else SimBoard
        fw = twin.fw.dealer if twin is not None else sim.firmware.dealer
        count = [0]
        seen: set[int] = set()
        when: list[int] = []
        dispatch, mech_step = fw.dispatch, fw.mech.step

        def on_command(ft: int, body: bytes, resumed: bool = False) -> Any:
            out = dispatch(ft, body, resumed)
            head = self._head()
            if ft == ft_wanted and which(head) and head.step not in seen and not when:
                seen.add(head.step)
                count[0] += 1
                if count[0] == n:
                    when.append(fw.board.ticks_ms() + delay_ms)
            return out

        def step() -> None:
            if when and not self.struck.is_set() and fw.board.ticks_ms() - when[0] >= 0:
                self.struck.set()
                # (on the simulator's thread, its lock held) twisted out by the person's Resume
                if twin is not None:
                    twin.mech.estop = True
                else:
                    sim.board.estop_button = True
            mech_step()

        fw.dispatch = on_command
        fw.mech.step = step

def run_trial(row: str, seed: int, *, compare: bool = True, guard_s: float = 240.0, at: int | None = None,
              outage: float | None = None, keep: str | None = None, twin: bool = False) -> TrialResult:
    """One trial of ``row`` with ``seed`` (see the module docstring); ``at`` and ``outage`` fix
    the moment and the outage's length (else drawn from the seed). ``keep``: a folder where a
    stuck trial leaves its report (``SimTable.explain``), named in ``kept``. ``twin``: the
    dealer is the physical twin (the estop_fetch row; the other rows strike on SimBoard's
    attributes); the uninterrupted run compared with stays on the simulated board."""
    game, players, options = pick_game(row, seed)
    rng = random.Random(f"faults/{row}/{seed}")
    start = time.monotonic()
    result = TrialResult(row, seed, game, "right")
    table = _Table(game, players, options, seed=seed, twin=twin)
    table.mismatches = []
    striker = Striker(table, row, rng, at, outage)
    done = threading.Event()
    error: list[BaseException] = []

    def play() -> None:
        try:
            table.start()
            striker.arm()
            table.run(max_hands=1)
        except BaseException as e:  # noqa: BLE001 - reported as the trial's outcome
            error.append(e)
        finally:
            done.set()

    worker = threading.Thread(target=play, name="fault-trial", daemon=True)
    try:
        worker.start()
        if not done.wait(guard_s):
            result.outcome, result.detail = "stuck", f"no end after {guard_s:g} s: {table.referee.waiting_text()}"
            result.faults.append(f"diagnosis: {table.diagnosis()}")
        elif error:
            e = error[0]
            result.outcome = "stuck"
            result.detail = f"{type(e).__name__}: {e}"
            if isinstance(e, TableStuck) and table.referee.dealer_fault is not None:
                result.outcome = "stopped"
            else:
                result.faults.append(f"diagnosis: {table.diagnosis()}")
        result.faults = result.faults + list(table.recoveries)
        result.pressed = table.pressed
        if result.outcome != "right" or table.mismatches:
            result.faults += [f"msg: {msg.text}" for msg in table.messages[-8:]]
        result.deals = sum(1 for msg in table.messages if msg.text.endswith("dealt and checked"))
        result.mismatches = list(table.mismatches)
        result.struck = striker.struck.is_set()
        if result.outcome == "right" and result.mismatches:
            result.outcome = "mismatch"
        if keep is not None and result.outcome in ("stuck", "stopped", "mismatch"):
            try:
                result.kept = str(table.keep(f"{keep}/{row}-{seed}.txt", error[0] if error else None))
            except OSError as e:
                result.kept = f"(not kept: {e})"
        if result.outcome == "right" and compare:
            got = _record(table)
            want = clean_run(game, players, options, seed)
            if got != want:
                result.outcome, result.detail = "changed", "the hand's result differs from the uninterrupted run"
    finally:
        try:
            table.close()
        except Exception:  # noqa: BLE001
            pass
    result.seconds = time.monotonic() - start
    return result
