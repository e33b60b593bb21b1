"""The dealer simulator: the REAL firmware on a simulated mechanism, behind a pseudo-terminal.

``DealerSimulator`` runs firmware.main.Firmware (hence firmware.protocol, .commands and
.mechanics, unchanged) on ``SimBoard``, a model of the dealer's mechanism (v2: a hopper holding
a physical deck in some order, a reader at a fixed window, feed moves, a belt, a pocket per
seat and for the reject, discard, centre and trick cards, with its mouth sensor) whose every motion takes what firmware/timing.py computes from firmware/config.py, so tests
can check where every card ended up and benchmarks can time whole deals. The firmware talks through a
pty (os.openpty, raw mode) pumped by a thread, so the host opens the slave path with pyserial
exactly as it opens /dev/trickref-dealer (the OctoPrint "virtual printer" idea).

Time: the mechanism runs on a simulated clock (``speed`` simulated ms per real ms, advanced in
bounded steps so stages still happen in order) while the link timers (dead-man, keep-alives)
use real time, because the host on the other end of the pty lives in real time.

Faults on demand: corrupted, dropped, duplicated and delayed bytes (by rate, seeded), frames
damaged past their CRC (``malform``: cut one body byte short, the CRC made good), going
silent, disconnecting (and coming back on a new pty, with a stable symlink), rebooting
mid-deal, jams, a card lost on the belt, double feeds, misreads, a missing or duplicate card
in the deck, an empty hopper, a full pocket, the e-stop button.

The firmware is MicroPython code without annotations; it is imported through importlib so the
type checker treats it as an opaque module instead of checking MicroPython code as typed
host code.
"""

from __future__ import annotations

import collections
import contextlib
import importlib
import os
import random
import select
import shutil
import tempfile
import threading
import time
import tty
from collections.abc import Iterable, Mapping
from typing import Any

from trickref.device.dealer.frames import cobs_decode, cobs_encode, crc16

_fw_main: Any = importlib.import_module("trickref.firmware.main")
_fw_config: Any = importlib.import_module("trickref.firmware.config")

_fw_timing: Any = importlib.import_module("trickref.firmware.timing")

REJECT, DISCARD, CENTRE, FACEUP, TRICK, MAGAZINE, STAGING = 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86
LOOP = 0x85
UNKNOWN = 0xFF
SHINGLE_MM = 30  # how far the second card of a shingled double feed trails the first
E, RV, D = 0, 1, 2  # the loop's sensors: end of run, switchback inner opto, drop on the hopper
POCKET = -1


class Hopper(list[int]):
    """The hopper's stack, bottom card (fed first) at index 0. ``append`` is a player putting
    a card in: it goes into the play slot (opto S), which the feed takes before the stack, so
    a played card never lands behind cards parked in the loop; the loop drops its cards onto
    the top with ``drop``."""

    def __init__(self, cards: Iterable[int] = (), slot: list[int] | None = None) -> None:
        super().__init__(cards)
        self.slot: list[int] = slot if slot is not None else []

    def append(self, card: int) -> None:
        self.slot.append(card)

    def drop(self, card: int) -> None:
        super().append(card)


def take_from_pockets(trays: Mapping[int, list[int]], card: int, targets: Iterable[int]) -> bool:
    """A person takes ``card`` out of the first of ``targets`` (pockets by target byte) that
    holds it; False if none does (the simulated board's and the twin's pockets alike)."""
    for target in targets:
        pile = trays.get(target, [])
        if card in pile:
            pile.remove(card)
            return True
    return False


class SimBoard:
    """The dealer's mechanism in memory; implements the methods firmware/board.py provides.

    The v2 mechanism (hardware/README.md): a hopper fed from the bottom (``hopper``, index 0 the
    next card), a play slot beside it fed first (``slot``), a feed move that carries the card
    at the read window onto the belt and brings the next card to the window, the belt to each
    pocket (whose mouth sensor reports the card, ``confirmed``) or past them all to the end of
    run E, the switchback (its inner opto Rv) and the return loop that drops the card on top
    of the hopper (D): ``loop_seen`` reports each card at each of the three. Every motion
    takes the time firmware/timing.py computes from firmware/config.py (the constants board.py
    drives the motors with), never less; the switchback takes one card at a time (a card at E
    while it is busy is recorded in ``collisions``: the firmware must space loop cards).
    """

    HAS_LOOP = True
    COUNTS_POCKETS = True  # pockets have no full sensor: the firmware counts (POCKET_CAP)

    def __init__(self, cfg: Any, seed: int = 0) -> None:
        self.cfg = cfg
        self.now = 0  # the simulated mechanism clock, ms
        self.slot: list[int] = []
        self._hopper = Hopper((), self.slot)
        self._gate: int | None = None
        self.gate_double: int | None = None  # the second card of a double feed, under the first
        self.aim = -1  # the target whose flap is up
        self.trays: dict[int, list[int]] = {}
        self.shown = False
        self.pending: dict[str, int] = {}
        self.started: dict[str, int] = {}
        # cards on the belt or in the loop: (due ms, card, target, station: POCKET or E/RV/D)
        self.belt_cards: list[tuple[int, int, int, int]] = []
        self.belt_stopped_at: int | None = None
        self.arrived: dict[int, int] = {}  # cards each pocket's sensor saw, not yet confirmed
        self.loop_hits = [0, 0, 0]  # cards E, Rv, D saw, not yet taken by loop_seen
        self.switch_free = 0  # when the switchback can take the next card
        self.collisions: list[tuple[int, int]] = []  # (card, ms): reached E with R busy
        self.loop_passes = 0  # cards dropped back on the hopper
        self.loop_sent = 0  # cards sent from the read window round the loop
        self.read_result: tuple[int, int] | None = None
        self.rx = bytearray()
        self.tx = bytearray()
        self.cause = 1
        self.boot = random.Random(seed).randrange(1, 0x10000)
        self.wdt_feeds = 0
        self.reboot_requested = False
        self.estop_button = False
        self.jam_stage: str | None = None  # a stage that will not complete until clear_jam()
        self.unreadable = 0  # the next n cards cannot be read
        self.unreadable_in = 0  # counting down the cards into the window: the one at 1 cannot be read
        self.gate_unreadable = False
        self.double_next = False  # the next feed takes two cards at once (shingled)
        self.lose_next = False  # the next card put on the belt never reaches its pocket
        self.misroute_next = False  # the next card for a pocket passes it: to E, round the loop
        self.hopper_held = False  # the pickup is held: a feed move takes only a play-slot card
        self.full: set[int] = set()
        self.moves: list[tuple[str, int]] = []  # (motion, sim time) for inspection
        self.durations = {
            "feed": _fw_timing.feed_ms(cfg), "read": _fw_timing.read_ms(cfg),
            "eject": _fw_timing.feed_ms(cfg),
        }
        self.loop_due = _fw_timing.loop_station_ms(cfg)  # E, Rv, D after the feed move
        self.switch_ms = _fw_timing.loop_switch_ms(cfg)
        self.zero_time = False  # benchmarks: every motion takes 1 ms (protocol cost alone)
        self._t0 = time.monotonic()
        self.link_skew = 0  # tests add to it to make the host's silence last longer
        self.nv: bytes | None = None  # the firmware's saved state (flash on the Pico): kept over reboots
        self.nv_writes = 0

    @property
    def hopper(self) -> Hopper:
        return self._hopper

    @hopper.setter
    def hopper(self, cards: Iterable[int]) -> None:
        self._hopper = Hopper(cards, self.slot)

    @property
    def gate(self) -> int | None:
        """The card in the read window."""
        return self._gate

    @gate.setter
    def gate(self, card: int | None) -> None:
        """A card put in the read window by hand (a restored table) pushes out the one waiting
        there (the loop's first card, after a deal with a stock): it goes under the stack, so
        it is still the next card the hopper gives."""
        if card is not None and self._gate is not None and card != self._gate:
            self._hopper.insert(0, self._gate)
        self._gate = card

    # ---- clocks and link -----------------------------------------------------------------------

    def ticks_ms(self) -> int:
        return self.now % (1 << 30)

    def link_ticks_ms(self) -> int:
        return (int((time.monotonic() - self._t0) * 1000) + self.link_skew) % (1 << 30)

    def link_read(self) -> bytes:
        data = bytes(self.rx)
        self.rx.clear()
        return data

    def link_write(self, data: bytes) -> int:
        """Takes everything (the pty thread buffers what the host has not read yet)."""
        self.tx.extend(data)
        return len(data)

    def idle(self) -> None:
        pass

    # ---- motions -------------------------------------------------------------------------------

    def _update(self) -> None:
        """Complete every motion whose time has come, in time order."""
        for name, due in sorted(self.pending.items(), key=lambda kv: kv[1]):
            if due > self.now or name == self.jam_stage:
                continue
            del self.pending[name]
            if name == "feed" and self.gate is None:
                self._to_window()
            elif name == "read":
                if self.gate is None or self.gate_unreadable or self.gate_double is not None:
                    self.read_result = (UNKNOWN, 0)
                else:
                    self.read_result = (self.gate, 97)
            elif name == "eject" and self.gate is not None:
                self._leave_window()
                self._to_window()
        if self.belt_stopped_at is None:
            for item in sorted(self.belt_cards):
                if item[0] <= self.now:
                    self.belt_cards.remove(item)
                    self._arrive(item)

    def _arrive(self, item: tuple[int, int, int, int]) -> None:
        due, card, target, station = item
        if station == POCKET:
            self._put(card, target)
            self.arrived[target] = self.arrived.get(target, 0) + 1
            return
        self.loop_hits[station] += 1
        if station == E:
            if due < self.switch_free:
                self.collisions.append((card, due))
            self.switch_free = due + (1 if self.zero_time else self.switch_ms)
        elif station == D:
            self._hopper.drop(card)
            self.loop_passes += 1
            self.moves.append((f"card {card} -> loop -> hopper", self.now))

    def _to_window(self) -> None:
        """A feed move brought the next card to the window: the play slot's first (a card a
        player dropped in), else the hopper's bottom card (or two, stuck together)."""
        if self.gate is not None:
            return
        if self.slot:
            self.gate = self.slot.pop(0)
            self.gate_double = None
        elif self._hopper and not self.hopper_held:
            self.gate = self._hopper.pop(0)
            self.gate_double = None
            if self.double_next and self._hopper:
                self.double_next = False
                self.gate_double = self._hopper.pop(0)
        else:
            return
        if self.unreadable_in > 0:
            self.unreadable_in -= 1
            if self.unreadable_in == 0:
                self.unreadable += 1
        self.gate_unreadable = self.unreadable > 0
        if self.gate_unreadable:
            self.unreadable -= 1

    def _leave_window(self) -> None:
        card, self.gate = self.gate, None
        assert card is not None
        self.gate_unreadable = False
        if self.lose_next:
            self.lose_next = False
            self.moves.append((f"card {card} lost on the belt", self.now))
            return
        cards = [card] + ([self.gate_double] if self.gate_double is not None else [])
        self.gate_double = None  # both went (only when the firmware let it)
        for c in cards:
            if self.aim == LOOP:
                self.loop_sent += 1
            if self.aim == LOOP or (self.misroute_next and self.aim != LOOP):
                if self.aim != LOOP:
                    self.misroute_next = False
                    self.moves.append((f"card {c} missed its pocket 0x{self.aim:02x}", self.now))
                for station in (E, RV, D):
                    due = self.now + (1 + station if self.zero_time else self.loop_due[station])
                    self.belt_cards.append((due, c, LOOP, station))
            else:
                due = self.now + (1 if self.zero_time else _fw_timing.transit_ms(self.cfg, self.aim))
                self.belt_cards.append((due, c, self.aim, POCKET))

    def _put(self, card: int, target: int) -> None:
        self.trays.setdefault(target, []).append(card)
        self.moves.append((f"card {card} -> 0x{target:02x}", self.now))

    def _start(self, name: str, duration: float) -> None:
        self.belt(True)
        self.pending[name] = self.now + (1 if self.zero_time else max(1, int(duration)))
        self.started[name] = self.now
        self.moves.append((name, self.now))

    def feed(self, on: bool) -> None:
        if on:
            self._start("feed", self.durations["feed"])
        else:
            self.pending.pop("feed", None)

    def hold_hopper(self, on: bool) -> None:
        """Hold the hopper's pickup: the next feed moves take only a card in the play slot
        (the stack stays; its bottom card is still the next one)."""
        self.hopper_held = on

    def read_start(self) -> None:
        self.read_result = None
        self._start("read", self.durations["read"])

    def read_poll(self) -> tuple[int, int] | None:
        self._update()
        r = self.read_result
        self.read_result = None
        return r

    def turn_start(self, target: int) -> None:
        """Raise the target's deflector: done at once, as on board.py (the flap swings during
        the feed move that follows, which is longer: timing.flap_in_time)."""
        self.aim = target

    def turn_done(self) -> bool:
        self._update()
        return "turn" not in self.pending

    def lower(self, target: int) -> None:
        pass  # the flap of a confirmed card drops; the next aim raises another

    def eject(self, on: bool) -> None:
        if on:
            self._start("eject", self.durations["eject"])
        else:
            self.pending.pop("eject", None)

    def eject_done(self) -> bool:
        self._update()
        return "eject" not in self.pending

    def confirmed(self, target: int) -> bool:
        self._update()
        if self.arrived.get(target, 0) > 0:
            self.arrived[target] -= 1
            return True
        return False

    def loop_seen(self, station: int) -> bool:
        """True once per card the loop sensor ``station`` (E 0, Rv 1, D 2) saw."""
        self._update()
        if self.loop_hits[station] > 0:
            self.loop_hits[station] -= 1
            return True
        return False

    def gate_len_mm(self) -> int | None:
        """The blocked length at the gate of the card(s) leaving during a feed move, so far."""
        if self.gate is None or "eject" not in self.pending:
            return None
        total = self.pending["eject"] - self.started["eject"]
        moved = self.cfg.F_MOVE_MM * (self.now - self.started["eject"]) // max(1, total)
        length = self.cfg.CARD_LEN_MM + (SHINGLE_MM if self.gate_double is not None else 0)
        return min(length, self.cfg.WINDOW_X_MM - self.cfg.GATE_X_MM + moved)

    def belt(self, on: bool) -> None:
        if on and self.belt_stopped_at is not None:
            gap = self.now - self.belt_stopped_at
            self.belt_cards = [(due + gap, c, t, s) for due, c, t, s in self.belt_cards]
            self.switch_free += gap
            self.belt_stopped_at = None

    def show(self, on: bool) -> None:
        self.shown = on

    def stop_all(self) -> None:
        self.pending.clear()
        self.shown = False
        if self.belt_stopped_at is None:
            self.belt_stopped_at = self.now
        self.moves.append(("stop", self.now))

    # ---- sensors -------------------------------------------------------------------------------

    def hopper_has_card(self) -> bool:
        return bool(self._hopper) or bool(self.slot)

    def slot_has_card(self) -> bool:
        return bool(self.slot)

    def gate_has_card(self) -> bool:
        self._update()
        return self.gate is not None

    def estop_pressed(self) -> bool:
        return self.estop_button

    def jam_sensor(self) -> bool:
        return False

    def tray_full(self, target: int) -> bool:
        return target in self.full

    # ---- system -------------------------------------------------------------------------------

    def wdt_feed(self) -> None:
        self.wdt_feeds += 1

    def boot_id(self) -> int:
        return self.boot

    def reset_cause(self) -> int:
        return self.cause

    def reboot(self) -> None:
        self.reboot_requested = True

    def nv_read(self) -> bytes | None:
        return self.nv

    def nv_write(self, data: bytes) -> None:
        self.nv = bytes(data)
        self.nv_writes += 1

    # ---- what the tests look at -------------------------------------------------------------------

    def seat(self, seat: int) -> list[int]:
        return list(self.trays.get(seat, []))

    def tray(self, target: int) -> list[int]:
        """The cards a pocket received, in order; for the loop, the card in the read window,
        the hopper's (bottom first), those on their way back."""
        if target == LOOP:  # the window's card first (the loop's head, when one waits there)
            window = [self.gate] if self.gate is not None else []
            return window + list(self._hopper) + [c for _, c, _, s in sorted(self.belt_cards) if s == D]
        return list(self.trays.get(target, []))

    def take_off_belt(self, card: int) -> bool:
        """A person lifts ``card`` off the belt or the loop (one copy: every station entry of
        the copy due first); False if it is not there."""
        first = next((item for item in sorted(self.belt_cards) if item[1] == card), None)
        if first is None:
            return False
        self.belt_cards.remove(first)
        if first[2] == LOOP:  # a loop card is due at E, then Rv, then D: its later stations go too
            for station in range(first[3] + 1, D + 1):
                later = next((item for item in sorted(self.belt_cards)
                              if item[1] == card and item[2] == LOOP and item[3] == station), None)
                if later is not None:
                    self.belt_cards.remove(later)
        return True

    def take_path(self) -> list[int]:
        """A person lifts every card off the belt and the loop (first due first). Returns them."""
        taken = [c for _, c, _, _ in sorted(self.belt_cards)]
        self.belt_cards.clear()
        self.loop_hits = [0, 0, 0]
        return taken

    def take_from_pockets(self, card: int, targets: Iterable[int]) -> bool:
        return take_from_pockets(self.trays, card, targets)

    def gather(self) -> list[int]:
        """Every card out of the pockets, play slot and path, as the players gather them
        for the next deal (the hopper's own cards stay where they are)."""
        cards: list[int] = []
        for t in sorted(self.trays):
            cards.extend(self.trays[t])
        for _, c, _, station in sorted(self.belt_cards):
            if station in (POCKET, D):
                cards.append(c)
        self.belt_cards.clear()
        self.loop_hits = [0, 0, 0]
        cards.extend(self.slot)
        self.slot.clear()
        if self.gate is not None:
            cards.append(self.gate)
            self.gate = None
        if self.gate_double is not None:
            cards.append(self.gate_double)
            self.gate_double = None
        self.trays.clear()
        return cards


class LinkFaults:
    """Byte-level faults applied to one direction of the link, seeded for repeatable runs."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed * 7919 + 1)  # reboots' boot ids; differs from the board's first
        self.corrupt = 0.0
        self.drop = 0.0
        self.duplicate = 0.0
        self.delay_s = 0.0
        self.malform = 0.0  # frames cut one body byte short with a good CRC (damage past the CRC)
        self._frame_rng = random.Random(seed * 7919 + 3)  # its own: the byte faults' draws stay as they were
        self._partial = bytearray()  # a frame not yet ended by its delimiter (malform only)
        self.held: list[tuple[float, bytes]] = []
        self.counts = {"corrupted": 0, "dropped": 0, "duplicated": 0, "malformed": 0}

    def apply(self, data: bytes) -> bytes:
        data = self._malformed(data)
        if not (self.corrupt or self.drop or self.duplicate):
            return data
        out = bytearray()
        for b in data:
            r = self.rng.random()
            if r < self.drop:
                self.counts["dropped"] += 1
                continue
            if r < self.drop + self.corrupt:
                self.counts["corrupted"] += 1
                out.append(b ^ (1 << self.rng.randrange(8)))
                continue
            out.append(b)
            if r < self.drop + self.corrupt + self.duplicate:
                self.counts["duplicated"] += 1
                out.append(b)
        return bytes(out)

    def _malformed(self, data: bytes) -> bytes:
        """With rate ``malform``, a whole frame cut one byte short, its CRC-16 made good again:
        what a line gives one damaged frame in 65,536 (a byte turned into the delimiter, the CRC
        matching by chance), which only the body's layout can tell. Frames are whole only at
        their delimiter, so bytes wait here for it while the fault is on."""
        if not self.malform and not self._partial:
            return data
        self._partial += data
        out = bytearray()
        while True:
            end = self._partial.find(0)
            if end < 0:
                break
            chunk = bytes(self._partial[:end])
            del self._partial[:end + 1]
            if chunk and self.malform and self._frame_rng.random() < self.malform:
                chunk = self._cut_short(chunk)
            out += chunk + b"\x00"
        if not self.malform:
            out += self._partial
            self._partial.clear()
        return bytes(out)

    def _cut_short(self, chunk: bytes) -> bytes:
        try:
            raw = cobs_decode(chunk)
        except ValueError:
            return chunk
        if len(raw) < 7:  # header, CRC and no body: nothing to cut
            return chunk
        head = raw[:-3]  # the last body byte and the CRC gone
        self.counts["malformed"] += 1
        return cobs_encode(head + crc16(head).to_bytes(2, "big"))

    def delayed(self, data: bytes, now: float) -> bytes:
        """Bytes whose delay has passed (``data`` joins the queue first)."""
        if data:
            self.held.append((now + self.delay_s, data))
        out = bytearray()
        while self.held and self.held[0][0] <= now:
            out.extend(self.held.pop(0)[1])
        return bytes(out)


def deck_order(deck: Iterable[int] | None, decks: int, deck_order_seed: int | None) -> list[int]:
    """The hopper's cards, the next to feed first: ``deck`` as given, else ``decks`` new decks,
    shuffled with ``deck_order_seed`` (None: new-deck order)."""
    if deck is not None:
        return list(deck)
    order = [c for _ in range(decks) for c in range(52)]
    if deck_order_seed is not None:
        random.Random(deck_order_seed).shuffle(order)
    return order


class DealerSimulator:
    """The simulated dealer: start() gives the pty path to open with pyserial; stop() ends it."""

    def __init__(self, seats: int = 4, deck: Iterable[int] | None = None, deck_order_seed: int | None = None,
                 decks: int = 1, speed: float = 50.0, seed: int = 0, max_step_ms: int = 20) -> None:
        self.cfg = _fw_config.Settings(SEAT_COUNT=seats, READER_KIND=2)
        self.board = SimBoard(self.cfg, seed)
        self.speed = speed
        self.max_step_ms = max_step_ms
        self._link_init(seed)
        self.firmware: Any = _fw_main.Firmware(self.board, self.cfg)
        self.boots = 1
        self.load_deck(deck_order(deck, decks, deck_order_seed))

    def _link_init(self, seed: int) -> None:
        """The pty, the pump and the link faults' state (before start())."""
        self.rng = random.Random(seed * 7919 + 1)  # reboots' boot ids; differs from the board's first
        self.to_dealer = LinkFaults(seed * 2 + 1)
        self.to_host = LinkFaults(seed * 2 + 2)
        self.silent = False
        self.lock = threading.RLock()
        self.master: int | None = None
        self.slave: int | None = None
        self.path: str | None = None
        self._tmp: str | None = None  # made by start(): holds the stable symlink
        self._thread: threading.Thread | None = None
        self._running = False
        self._come_back_at: float | None = None
        self._out = bytearray()  # bytes for the host not yet accepted by the pty
        self.connections = 0  # ptys opened so far (a new one after each disconnect/come back)

    # ---- lifecycle -----------------------------------------------------------------------------------

    @property
    def stable_path(self) -> str:
        """A symlink to the live pty, like /dev/trickref-dealer: it disappears while the dealer
        is disconnected (as udev removes it) and comes back with the new pty."""
        if self._tmp is None:
            raise RuntimeError("the dealer simulator has no stable path before start()")
        return os.path.join(self._tmp, "dealer")

    def start(self) -> str:
        """Open the pty, start the pump thread; returns the slave path for serial.Serial()."""
        if self._tmp is None:
            self._tmp = tempfile.mkdtemp(prefix="trickref-dealer-sim-")
        path = self._open_pty()
        self._running = True
        self._thread = threading.Thread(target=self._pump, name="dealer-sim", daemon=True)
        self._thread.start()
        return path

    def stop(self) -> None:
        self._running = False
        with self.lock:
            self._come_back_at = None
            self._close_pty()  # under the lock: the pump never touches a closed (or reused) fd
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> DealerSimulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _open_pty(self) -> str:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        self._out.clear()
        self.path = os.ttyname(slave)
        tmp_link = self.stable_path + ".new"
        if os.path.lexists(tmp_link):
            os.unlink(tmp_link)
        os.symlink(self.path, tmp_link)
        os.replace(tmp_link, self.stable_path)
        self.connections += 1  # last: the stable path is ready when a watcher sees the count
        return self.path

    def _close_pty(self) -> None:
        for fd in (self.master, self.slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None

    # ---- the pump ---------------------------------------------------------------------------------------

    def _pump(self) -> None:
        last = time.monotonic()
        while self._running:
            master = self.master
            if master is None:
                if self._come_back_at is not None and time.monotonic() >= self._come_back_at:
                    with self.lock:
                        if self._running and self._come_back_at is not None:
                            self._come_back_at = None
                            self._open_pty()
                else:
                    time.sleep(0.005)
                last = time.monotonic()
                continue
            # Only a wait (the fd is used under the lock): 1 ms ticks while anything moves or
            # bytes are on their way, a longer wait while the dealer idles, so a simulated table
            # costs next to no CPU (a byte from the host still wakes the select at once).
            try:
                select.select([master], [], [], 0.001 if self._active() else 0.05)
            except (OSError, ValueError):
                pass
            now = time.monotonic()
            with self.lock:
                if self.master is None or self.master != master:
                    continue
                try:
                    data = os.read(master, 4096)
                except (BlockingIOError, OSError):
                    data = b""
                data = self.to_dealer.delayed(self.to_dealer.apply(data), now)
                if data and not self.silent:
                    self.board.rx.extend(data)
                self._run_firmware(now - last)
                out = bytes(self.board.tx)
                self.board.tx.clear()
                if self.silent:
                    out = b""
                self._out.extend(self.to_host.delayed(self.to_host.apply(out), now))
                if self._out:
                    try:
                        written = os.write(master, bytes(self._out))
                    except BlockingIOError:
                        written = 0  # the host is not reading: keep the bytes for later
                    except OSError:
                        written = len(self._out)  # the pty is gone: the bytes are lost, as on a cable
                    del self._out[:written]
            last = now

    def _active(self) -> bool:
        """True while the simulated dealer has something to do before the next host byte."""
        mech = self.firmware.dealer.mech
        return bool(mech.busy() or mech.flights or self.board.rx or self.board.tx or self._out
                    or self.to_dealer.held or self.to_host.held or self.firmware.dealer.pending)

    def _run_firmware(self, real_elapsed: float) -> None:
        """Advance the simulated clock in bounded steps, running one loop pass per step."""
        budget = max(1, int(real_elapsed * 1000 * self.speed))
        steps = 0
        while budget > 0 and steps < 200:
            dt = min(budget, self.max_step_ms)
            self.board.now += dt
            budget -= dt
            self.firmware.step()
            steps += 1
            if self.board.reboot_requested:
                self._reboot(cause=3)
            mech = self.firmware.dealer.mech
            if not self.board.tx and not mech.busy() and not mech.flights and not self.board.rx:
                break

    def step(self, sim_ms: int = 20) -> None:
        """Run the firmware for ``sim_ms`` of simulated time without the pty (for direct tests)."""
        with self.lock:
            end = self.board.now + sim_ms
            while self.board.now < end:
                self.board.now += min(self.max_step_ms, end - self.board.now)
                self.firmware.step()
                if self.board.reboot_requested:
                    self._reboot(cause=3)

    # ---- the deck and mechanism faults ------------------------------------------------------------------

    def load_deck(self, cards: Iterable[int]) -> None:
        """Put these cards in the hopper, first card fed first."""
        with self.lock:
            self.board.hopper = [int(c) for c in cards]

    def gather_to_hopper(self, order_seed: int | None = None) -> None:
        """Players collect every card from the pockets into the hopper (shuffled if seeded)."""
        with self.lock:
            cards = self.board.gather() + self.board.hopper
            if order_seed is not None:
                random.Random(order_seed).shuffle(cards)
            self.board.hopper = cards

    def rejects_to_hopper(self) -> list[int]:
        """A person takes every card out of the reject pocket and puts them on the hopper (a
        deal's cards the reader could not read, with any the plan set aside there, to be dealt
        alone). Returns them."""
        with self.lock:
            cards = list(self.board.trays.pop(REJECT, []))
            self.board.hopper = list(self.board.hopper) + cards
            return cards

    def play(self, card: int) -> None:
        """A player drops ``card`` into the play slot (fed before the hopper's cards)."""
        with self.lock:
            self.board.slot.append(int(card))

    def misroute(self) -> None:
        """The next card sent to a pocket passes it: it reaches the end of run and goes round
        the loop back onto the hopper (the firmware reports JAM 4, misroute)."""
        with self.lock:
            self.board.misroute_next = True

    def remove_card(self, card: int) -> None:
        """A card goes missing from the deck in the hopper."""
        with self.lock:
            self.board.hopper.remove(card)

    def add_duplicate(self, card: int, position: int | None = None) -> None:
        """An extra copy of ``card`` turns up in the hopper."""
        with self.lock:
            pos = len(self.board.hopper) if position is None else position
            self.board.hopper.insert(pos, card)

    def empty_hopper(self) -> list[int]:
        with self.lock:
            cards, self.board.hopper = self.board.hopper, []
            return cards

    def jam(self, stage: str = "eject") -> None:
        """The next ``stage`` motion (feed, turn, slot, eject, pull, read) sticks until
        clear_jam(); ``path``: the next card put on the belt never reaches its pocket."""
        with self.lock:
            if stage == "path":
                self.board.lose_next = True
            else:
                self.board.jam_stage = stage

    def double_feed(self) -> None:
        """The next feed move pulls two cards out of the hopper together (shingled)."""
        with self.lock:
            self.board.double_next = True

    def put_back_double(self) -> None:
        """The operator takes the two cards of a double feed out of the path and puts them back
        in the hopper under the stack, the one further along at the bottom: next to be fed, in
        the order they came (before RESUME)."""
        with self.lock:
            b = self.board
            back = [c for c in (b.gate, b.gate_double) if c is not None]
            b.gate = b.gate_double = None
            b.hopper[:0] = back

    def strays_to_slot(self, cards: Iterable[int] = (), pockets: Iterable[int | None] | None = None,
                       only_named: bool = False, leave: Iterable[int] = ()) -> list[int]:
        """The person at the table after a stop in a hand-over: every card in the reject pocket,
        on the belt and in the read window, and ``cards`` wherever they lie (a pocket; with
        ``pockets``, each card in its own first: the screen asks each receiver to look in their
        pocket, and a two-deck card's twin in another pocket is somebody else's), into the play
        slot (the dealer reads them there before the hopper's cards). Returns them.
        ``only_named``: only ``cards`` (loop cards the dealer lost track of), looked for on the
        belt, in the read window, in the reject pocket, then in the pocket named. ``leave``: cards
        the screen says stay in the reject pocket (set aside for the whole hand), a copy each."""
        if only_named:
            return self._named_to_slot(list(cards), list(pockets) if pockets is not None else None)
        with self.lock:
            b = self.board
            kept = collections.Counter(leave)
            taken = []
            for c in b.trays.pop(REJECT, []):
                if kept[c] > 0:
                    kept[c] -= 1
                    b.trays.setdefault(REJECT, []).append(c)
                else:
                    taken.append(c)
            taken += b.take_path()
            for attr in ("gate", "gate_double"):
                if getattr(b, attr) is not None:
                    taken.append(getattr(b, attr))
                    setattr(b, attr, None)
            named = list(cards)
            where = list(pockets) if pockets is not None else [None] * len(named)
            there = collections.Counter(taken + list(b.slot))  # (two decks: a copy each)
            for c, pocket in zip(named, where, strict=True):
                if there[c] > 0:
                    there[c] -= 1
                    continue
                # only the pocket the screen names (a person looks where they are told: a twin
                # in another seat's pocket is that seat's card, or that seat is told of it itself);
                # a card no seat's screen names is looked for in no pocket
                if b.take_from_pockets(c, [pocket] if pocket is not None else []):
                    taken.append(c)
            b.slot.extend(taken)
            return taken

    def _named_to_slot(self, cards: list[int], pockets: list[int | None] | None) -> list[int]:
        with self.lock:
            b = self.board
            where = pockets if pockets is not None else [None] * len(cards)
            taken: list[int] = []
            for c, pocket in zip(cards, where, strict=True):
                if b.take_off_belt(c):
                    taken.append(c)
                elif b.gate == c:
                    b.gate = None
                    taken.append(c)
                elif b.take_from_pockets(c, [REJECT] + ([pocket] if pocket is not None else [])):
                    taken.append(c)
            b.slot.extend(taken)
            return taken

    def clear_jam(self) -> None:
        with self.lock:
            self.board.jam_stage = None

    def misread(self, count: int = 1) -> None:
        """The next ``count`` cards cannot be read (they go to the reject pocket)."""
        with self.lock:
            self.board.unreadable += count

    def misread_after(self, cards: int) -> None:
        """The card read after the next ``cards`` cannot be read (it goes to the reject pocket):
        counted here, as the cards come into the read window, not by a host that hears of them
        later."""
        with self.lock:
            self.board.unreadable_in = cards + 1

    def tray_full(self, target: int, full: bool = True) -> None:
        with self.lock:
            if full:
                self.board.full.add(target)
            else:
                self.board.full.discard(target)

    def press_estop(self, pressed: bool = True) -> None:
        with self.lock:
            self.board.estop_button = pressed

    # ---- link faults -------------------------------------------------------------------------------------

    def set_link_faults(self, corrupt: float = 0.0, drop: float = 0.0, duplicate: float = 0.0,
                        delay_s: float = 0.0, direction: str = "both", malform: float = 0.0) -> None:
        """Byte fault rates (per byte) and a fixed delay, for 'to_dealer', 'to_host' or 'both';
        ``malform``: the rate of whole frames cut one body byte short with a good CRC."""
        with self.lock:
            for name, faults in (("to_dealer", self.to_dealer), ("to_host", self.to_host)):
                if direction in (name, "both"):
                    faults.corrupt, faults.drop, faults.duplicate, faults.delay_s = corrupt, drop, duplicate, delay_s
                    faults.malform = malform

    def go_silent(self, silent: bool = True) -> None:
        """Stop answering (bytes in are ignored, nothing goes out) without closing the port."""
        with self.lock:
            self.silent = silent

    def disconnect(self, come_back_after: float | None = None) -> None:
        """Close the pty like a pulled cable; optionally a new pty appears after a delay
        (``path`` changes, ``stable_path`` keeps pointing at the live one)."""
        with self.lock:
            self._close_pty()
            # the stable name stops leading to a pty: left pointing at the closed one, it could
            # lead a host to that recycled pty number, owned by another simulator by then. It
            # now points at a path that never exists (opening it fails like a missing udev
            # name; the link itself stays so it can still be removed or replaced).
            if self._tmp is not None and os.path.lexists(self.stable_path):
                gone = os.path.join(self._tmp, "unplugged")
                tmp_link = self.stable_path + ".new"
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp_link)
                os.symlink(gone, tmp_link)
                os.replace(tmp_link, self.stable_path)
            self._come_back_at = None if come_back_after is None else time.monotonic() + come_back_after

    def reboot(self) -> None:
        """Power-cycle the dealer: the firmware restarts (new boot id), the cards stay put."""
        with self.lock:
            self._reboot(cause=1)

    def _reboot(self, cause: int) -> None:
        self.board.stop_all()
        self.board.reboot_requested = False
        self.board.cause = cause
        self.board.boot = self.rng.randrange(1, 0x10000)
        self.board.rx.clear()
        # The sensors' counts of edges the firmware has not taken yet live in the Pico's RAM
        # (firmware/board.py Board.__init__ starts them at zero): they go with the boot. The
        # cards stay where they are; one still on its way meets its next sensor after the boot.
        self.board.loop_hits = [0, 0, 0]
        self.board.arrived = {}
        self.firmware = _fw_main.Firmware(self.board, self.cfg)
        self.boots += 1
