"""The physical twin (device/dealer/twin.py) on CPython: firmware/board.py loaded against it,
main.Firmware on top, and a scripted host that speaks the wire protocol to it.

``new_twin()`` builds a dealer whose ``machine``, ``rp2``, ``time``, ``sys``, ``select`` and
``os`` are the twin's, from the constants of device/dealer/physical.toml (optionally scaled: a
tolerance sweep). ``TwinHost`` sends frames, runs the firmware a loop pass at a time (1 ms of
mechanism time a pass by default, as on the Pico) and collects the events, so a test can deal
a plan and compare every pocket with it.

The firmware and the twin are MicroPython code without annotations; they are imported through
importlib so the type checker treats them as opaque modules.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import random
import types
from collections.abc import Iterable
from typing import Any

from . import physical

twin: Any = importlib.import_module("trickref.device.dealer.twin")
fw_main: Any = importlib.import_module("trickref.firmware.main")
P: Any = importlib.import_module("trickref.firmware.protocol")

LOOP = 0x85


def load_board(tw: Any) -> Any:
    """A fresh copy of firmware/board.py whose hardware modules are the twin's (one copy per
    twin, so several dealers can run side by side in one process)."""
    spec = importlib.util.find_spec("trickref.firmware.board")
    assert spec is not None and spec.origin is not None and spec.loader is not None
    source = spec.loader.get_source("trickref.firmware.board")  # type: ignore[attr-defined]
    fakes = {"machine": tw.machine, "rp2": tw.rp2, "time": tw.time, "sys": tw.sys,
             "select": tw.select, "os": tw.os}
    real_import = builtins.__import__

    def imp(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 0 and name in fakes:
            return fakes[name]
        return real_import(name, globals, locals, fromlist, level)

    mod = types.ModuleType("trickref.firmware.board")
    mod.__package__ = "trickref.firmware"
    mod.__file__ = spec.origin
    b = dict(vars(builtins))
    b["__import__"] = imp
    b["open"] = tw.os.open  # the Pico's flash, in the twin's memory
    mod.__dict__["__builtins__"] = b
    exec(compile(source, spec.origin, "exec"), mod.__dict__)
    return mod


def new_twin(seats: int = 4, seed: int = 0, scale: dict[str, float] | None = None,
             faults: bool = False, on_boot: Any = None, **cfg: Any) -> Any:
    """A dealer on the twin. ``faults`` False: no random pickup slips, double feeds or
    misreads (inject them by hand); timing spreads (decode time, PWM frame phase) stay.
    ``on_boot(board)`` is called on each boot's firmware/board.py Board before the firmware
    starts on it (the pty simulator puts the link timers on real time there)."""
    values = physical.values(scale=scale)
    tw = twin.Twin(values, load_board, fw_main, seed=seed, seats=seats, cfg_overrides=cfg,
                   on_boot=on_boot)
    tw.mech.random_faults = faults
    return tw


# the events that end a deal: DEAL_DONE, or a stop the people must clear
DEAL_STOPS = (P.EV_DEAL_DONE, P.EV_JAM, P.EV_DOUBLE_FEED, P.EV_POCKET_FULL, P.EV_FAULT, P.EV_ESTOP)


class TwinHost:
    """Frames in, frames and events out, on a twin dealer run one loop pass at a time."""

    def __init__(self, tw: Any, pass_ms: int = 1) -> None:
        self.tw = tw
        self.pass_ms = pass_ms
        self.parser = P.Parser()
        self.seq = 0
        self.events: list[tuple[int, int, bytes]] = []
        self.replies: list[Any] = []
        self.quiet = 0

    @property
    def mech(self) -> Any:
        return self.tw.mech

    def send(self, ftype: int, body: bytes = b"") -> int:
        self.seq = (self.seq + 1) & 0xFF
        self.quiet = 0
        self.tw.link.rx.extend(P.encode_frame(ftype, self.seq, 0, body))
        return self.seq

    def run(self, ms: int) -> None:
        left = ms
        while left > 0:
            self.tw.step(self.pass_ms)
            left -= self.pass_ms
            self.quiet += self.pass_ms
            if self.quiet >= 1000:
                self.send(P.PING)
            self._collect()

    def _collect(self) -> None:
        link = self.tw.link
        if not link.tx:
            return
        for f in self.parser.feed_bytes(bytes(link.tx)):
            if f.type in (P.EVENT, P.EVENTS):
                self.events.extend(P.parse_event_block(f.body))
            elif f.type != P.BUSY:
                self.replies.append(f)
        link.tx.clear()

    def command(self, ftype: int, body: bytes = b"") -> Any:
        want = self.send(ftype, body)
        for _ in range(200):
            self.run(self.pass_ms)
            for r in self.replies:
                if r.ack == want:
                    self.replies.remove(r)
                    return r
        raise AssertionError(f"no reply to command 0x{ftype:02x}")

    def hello(self) -> None:
        r = self.command(P.HELLO, bytes((P.PROTOCOL,)) + P.u16(3000))
        assert r.type == P.IDENTIFY, r

    def until(self, kinds: Iterable[int], max_ms: int = 600_000, start: int = 0) -> tuple[int, int, bytes]:
        """Run until one of ``kinds`` is among the events from index ``start``; that event."""
        want = set(kinds)
        waited = 0
        while True:
            for e in self.events[start:]:
                if e[1] in want:
                    return e
            if waited >= max_ms:
                raise AssertionError(f"none of {sorted(want)} within {max_ms} ms; last {self.events[-3:]}")
            self.run(20)
            waited += 20

    def send_plan(self, deal_id: int, entries: list[tuple[int, int]]) -> int:
        """Send a fresh plan (DEAL_PLAN, in parts of 120 entries); the index in ``events`` from
        which the deal's events come."""
        start = len(self.events)
        for off in range(0, len(entries), 120):
            part = entries[off:off + 120]
            body = P.u16(deal_id) + bytes((len(entries), off, P.PLAN_FRESH)) + bytes(b for e in part for b in e)
            r = self.command(P.DEAL_PLAN, body)
            assert r.type == P.OK, r
        return start

    def deal(self, deal_id: int, entries: list[tuple[int, int]]) -> tuple[int, int, bytes]:
        """Send a plan and run until DEAL_DONE or a stop (JAM, DOUBLE_FEED, POCKET_FULL,
        FAULT, ESTOP): the event that ended it."""
        start = self.send_plan(deal_id, entries)
        return self.until(DEAL_STOPS, start=start)

    def pockets(self) -> dict[int, list[int]]:
        """Cards in each pocket (by pocket index), in the order they went in."""
        return {k: list(v) for k, v in self.mech.pockets.items()}


def shuffled(seed: int | random.Random) -> tuple[list[int], list[int]]:
    """A hand's two orders from ``seed`` (or a generator, which goes on from there): the
    referee's deck (the plan's order, committed before the deal) and the order the people
    gathered the cards into the hopper (bottom first), each shuffled apart."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    hopper = list(deck)
    rng.shuffle(hopper)
    return deck, hopper


def random_deal(seats: int, seed: int) -> tuple[list[int], list[tuple[int, int]]]:
    """(hopper order, plan entries): a shuffled deck dealt round robin in another order."""
    order, hopper = shuffled(seed)
    per = 52 // seats
    entries = [(c, i % seats if i < per * seats else 0x82) for i, c in enumerate(order)]
    return hopper, entries


def deal_shortfall(end: tuple[int, int, bytes]) -> str | None:
    """What a DEAL_DONE event (from ``TwinHost.deal``) says went wrong, in words naming the
    cards: cards of the plan not dealt ("missing"), cards read more often than the plan holds
    them ("duplicate"); None for a whole deal. Any other event is a stop, named as such."""
    if end[1] != P.EV_DEAL_DONE:
        return f"the deal stopped: event 0x{end[1]:02x} {end[2].hex()}"
    return deal_done_words(end[2])


def deal_done_words(body: bytes) -> str | None:
    """DEAL_DONE's payload (deal id, dealt, rejected, missing, duplicates) in words naming the
    cards missing or read too often; None for a whole deal."""
    n_missing = body[4]
    missing = body[5:5 + n_missing]
    n_dup = body[5 + n_missing]
    dups = body[6 + n_missing:6 + n_missing + n_dup]
    words = []
    if n_missing:
        words.append(f"{n_missing} card{'s' if n_missing > 1 else ''} of the plan not dealt (missing: "
                     + " ".join(P.card_name(c) for c in missing) + ")")
    if n_dup:
        words.append("read more often than the plan holds them: " + " ".join(P.card_name(c) for c in dups))
    return "; ".join(words) or None


def misplaced(tw: Any, entries: list[tuple[int, int]]) -> list[str]:
    """Cards not where the plan put them: ``card: planned -> found`` lines (empty: all right)."""
    cfg = tw.board.cfg
    where: dict[int, Any] = {}
    for k, cards in tw.mech.pockets.items():
        for c in cards:
            where[c] = ("pocket", k)
    out = []
    for card, target in entries:
        k = target if 0 <= target < cfg.SEAT_COUNT else cfg.POCKET.get(target)
        got = where.get(card)
        if k is None:
            continue
        if got != ("pocket", k):
            out.append(f"{P.card_name(card)}: planned pocket {k}, found {got or 'not in a pocket'}")
    return out
