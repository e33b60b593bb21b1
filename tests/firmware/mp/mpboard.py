# ruff: noqa: UP031 - %-formatting reads the same on MicroPython and CPython
"""A fake dealer board in the MicroPython subset, and a scripted host, for the MicroPython VM.

Runs unchanged on MicroPython (the WebAssembly port, driven by run.mjs) and on CPython (the
same checks through pytest), so one set of checks proves the firmware on both interpreters.
``FakeBoard`` implements the methods firmware/board.py gives the firmware, on the modelled
mechanism of device/dealer/sim.py's SimBoard (kept in step with it): a hopper fed from the
bottom and a play slot fed first, a gate with a debounced opto, a reader, feed moves, a belt,
a pocket per seat and tray with its mouth sensor, the return loop with its sensors E, Rv and D
dropping cards back on top of the hopper, the v1 discard and staging racks; its one clock is
a tick counter (``firmware.ticks``: time.ticks_add/diff on MicroPython) that can start just
below the 2**30 wrap.

Mechanism faults on demand: a stage that sticks (``jam_stage``), unreadable cards, a full pocket,
the e-stop button, a card that stops between the gate and the exit (``stuck_in_path``), two
cards fed together (``double_next``), a bouncing gate opto (``gate_bounce``), a host that
stops reading (``tx_room``).
"""

from firmware import protocol as P
from firmware import timing
from firmware.ticks import ticks_add, ticks_diff

try:  # run_heap.py's heap sampler: collects every few hundred loop passes, keeps the lowest
    import vmheap
except ImportError:
    vmheap = None


def vmheap_tick():
    if vmheap is not None:
        vmheap.tick()

REJECT = 0x80
LOOP = 0x85
UNKNOWN = 0xFF
POCKET = -1  # belt_cards station: a pocket; 0, 1, 2: the loop's E, Rv, D

SHINGLE_MM = 30


class FakeBoard:
    """The v2 mechanism (feed moves, a belt, a sensor at every pocket mouth, the return loop)
    timed by firmware/timing.py like device/dealer/sim.py."""

    HAS_LOOP = True
    COUNTS_POCKETS = True

    def __init__(self, cfg, start_ticks=0, boot=0x1234, cause=1):
        self.cfg = cfg
        self.now = start_ticks
        self.hopper = []  # bottom (fed first) at 0; the loop drops cards at the end
        self.slot = []  # the play slot: fed before the hopper
        self.loop_hits = [0, 0, 0]
        self.switch_free = start_ticks
        self.collisions = []
        self.loop_passes = 0
        self.misroute_next = False
        self.hopper_held = False
        self.loop_due = timing.loop_station_ms(cfg)
        self.switch_ms = timing.loop_switch_ms(cfg)
        self.gate = None
        self.gate_double = None
        self.aim = -1
        self.trays = {}
        self.shown = False
        self.pending = {}
        self.started = {}
        self.belt_cards = []  # [due, card, target]
        self.belt_stopped_at = None
        self.arrived = {}
        self.read_result = None
        self.rx = bytearray()
        self.tx = bytearray()
        self.tx_room = -1  # bytes the host's USB buffer still takes (-1: it always reads)
        self.write_max = 0  # the largest single write so far (a number: a list of every size grew the heap)
        self.cause = cause
        self.boot = boot
        self.wdt_feeds = 0
        self.reboot_requested = False
        self.nv = None  # the firmware's saved state (flash on the Pico): kept over reboots
        self.nv_writes = 0
        self.estop_button = False
        self.jam_stage = None
        self.unreadable = 0
        self.gate_unreadable = False
        self.full = []
        self.faults = []
        self.lose_next = False  # the next card put on the belt never reaches its pocket
        self.double_next = False  # the next feed takes two cards together (shingled)
        self.stacked_next = False  # ... or exactly stacked (the thickness sensor sees it)
        self.thick = False
        self.gate_bounce = 0  # the gate opto reads the opposite for this many polls
        self.bounce_on_feed = 0  # every feed start makes the gate flicker this many polls
        self.durations = {"feed": timing.feed_ms(cfg), "read": timing.read_ms(cfg),
                          "eject": timing.feed_ms(cfg)}

    # ---- clocks and link ------------------------------------------------------------------

    def advance(self, ms):
        self.now = ticks_add(self.now, ms)

    def ticks_ms(self):
        return self.now

    def link_ticks_ms(self):
        return self.now

    def link_read(self):
        data = bytes(self.rx)
        self.rx = bytearray()
        return data

    def link_write(self, data):
        """Non-blocking: takes what the host's buffer has room for, returns that count."""
        n = len(data)
        if self.tx_room >= 0:
            n = min(n, self.tx_room)
            self.tx_room -= n
        if len(data) > self.write_max:
            self.write_max = len(data)
        self.tx.extend(data[:n])
        return n

    def idle(self):
        pass

    # ---- motions --------------------------------------------------------------------------

    def _due(self, when):
        return ticks_diff(self.now, when) >= 0

    def _update(self):
        names = sorted(self.pending, key=lambda k: ticks_diff(self.pending[k], self.now))
        for name in names:
            if not self._due(self.pending[name]) or name == self.jam_stage:
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
            items = sorted(self.belt_cards, key=lambda it: ticks_diff(it[0], self.now))
            for item in items:
                if self._due(item[0]):
                    self.belt_cards.remove(item)
                    self._arrive(item)

    def _arrive(self, item):
        due, card, target, station = item
        if station == POCKET:
            self._put(card, target)
            self.arrived[target] = self.arrived.get(target, 0) + 1
            return
        self.loop_hits[station] += 1
        if station == 0:
            if ticks_diff(due, self.switch_free) < 0:
                self.collisions.append((card, due))
            self.switch_free = ticks_add(due, self.switch_ms)
        elif station == 2:
            self.hopper.append(card)
            self.loop_passes += 1

    def _to_window(self):
        if self.gate is not None:
            return
        if self.slot:
            self.gate = self.slot.pop(0)
            self.gate_double = None
            self.thick = False
            self.gate_unreadable = False
            return
        if not self.hopper or self.hopper_held:
            return
        self.gate = self.hopper.pop(0)
        self.gate_double = None
        self.thick = False
        if (self.double_next or self.stacked_next) and self.hopper:
            self.thick = self.stacked_next
            self.double_next = False
            self.stacked_next = False
            self.gate_double = self.hopper.pop(0)
        self.gate_unreadable = self.unreadable > 0
        if self.gate_unreadable:
            self.unreadable -= 1

    def _leave_window(self):
        card = self.gate
        self.gate = None
        self.gate_unreadable = False
        if self.lose_next:
            self.lose_next = False  # stuck between the gate and its pocket
            return
        cards = [card]
        if self.gate_double is not None:  # both went (only when the firmware let it)
            cards.append(self.gate_double)
            self.gate_double = None
        for c in cards:
            if self.aim == LOOP or self.misroute_next:
                if self.aim != LOOP:
                    self.misroute_next = False  # it passes its pocket: to E, round the loop
                for station in (0, 1, 2):
                    self.belt_cards.append([ticks_add(self.now, self.loop_due[station]), c, LOOP, station])
            else:
                due = ticks_add(self.now, timing.transit_ms(self.cfg, self.aim))
                self.belt_cards.append([due, c, self.aim, POCKET])

    def _put(self, card, target):
        if target not in self.trays:
            self.trays[target] = []
        self.trays[target].append(card)

    def _start(self, name, duration):
        self.belt(True)
        self.pending[name] = ticks_add(self.now, max(1, int(duration)))
        self.started[name] = self.now

    def feed(self, on):
        if on:
            self.gate_bounce = self.bounce_on_feed
            self._start("feed", self.durations["feed"])
        elif "feed" in self.pending:
            del self.pending["feed"]

    def hold_hopper(self, on):
        self.hopper_held = on

    def read_start(self):
        self.read_result = None
        self._start("read", self.durations["read"])

    def read_poll(self):
        self._update()
        r = self.read_result
        self.read_result = None
        return r

    def turn_start(self, target):
        self.aim = target

    def turn_done(self):
        self._update()
        return "turn" not in self.pending

    def lower(self, target):
        pass

    def eject(self, on):
        if on:
            self._start("eject", self.durations["eject"])
        elif "eject" in self.pending:
            del self.pending["eject"]

    def eject_done(self):
        self._update()
        return "eject" not in self.pending

    def confirmed(self, target):
        self._update()
        if self.arrived.get(target, 0) > 0:
            self.arrived[target] -= 1
            return True
        return False

    def loop_seen(self, station):
        self._update()
        if self.loop_hits[station] > 0:
            self.loop_hits[station] -= 1
            return True
        return False

    def gate_len_mm(self):
        if self.gate is None or "eject" not in self.pending:
            return None
        total = ticks_diff(self.pending["eject"], self.started["eject"])
        moved = self.cfg.F_MOVE_MM * ticks_diff(self.now, self.started["eject"]) // max(1, total)
        length = self.cfg.CARD_LEN_MM + (SHINGLE_MM if self.gate_double is not None else 0)
        return min(length, self.cfg.WINDOW_X_MM - self.cfg.GATE_X_MM + moved)

    def double_thick(self):
        return self.gate is not None and self.thick

    def belt(self, on):
        if on and self.belt_stopped_at is not None:
            gap = ticks_diff(self.now, self.belt_stopped_at)
            for item in self.belt_cards:
                item[0] = ticks_add(item[0], gap)
            self.switch_free = ticks_add(self.switch_free, gap)
            self.belt_stopped_at = None

    def show(self, on):
        self.shown = on

    def stop_all(self):
        self.pending = {}
        self.shown = False
        if self.belt_stopped_at is None:
            self.belt_stopped_at = self.now

    # ---- sensors ----------------------------------------------------------------------------

    def hopper_has_card(self):
        return len(self.hopper) > 0 or len(self.slot) > 0

    def slot_has_card(self):
        return len(self.slot) > 0

    def gate_has_card(self):
        self._update()
        blocked = self.gate is not None
        if self.gate_bounce > 0:
            self.gate_bounce -= 1
            return not blocked
        return blocked

    def estop_pressed(self):
        return self.estop_button

    def jam_sensor(self):
        return False

    def tray_full(self, target):
        return target in self.full

    def fault(self):
        if self.faults:
            return self.faults.pop(0)
        return None

    # ---- system ----------------------------------------------------------------------------

    def wdt_feed(self):
        self.wdt_feeds += 1

    def boot_id(self):
        return self.boot

    def reset_cause(self):
        return self.cause

    def reboot(self):
        self.reboot_requested = True

    def nv_read(self):
        return self.nv

    def nv_write(self, data):
        self.nv = bytes(data)
        self.nv_writes += 1

    # ---- for the checks ---------------------------------------------------------------------

    def seat(self, target):
        return list(self.trays.get(target, []))

    def tray(self, target):
        """A pocket's cards; the loop's: the window's card, the hopper's, those on their way."""
        if target == LOOP:
            out = [self.gate] if self.gate is not None else []
            out.extend(self.hopper)
            for item in sorted(self.belt_cards, key=lambda it: ticks_diff(it[0], self.now)):
                if item[3] == 2:
                    out.append(item[1])
            return out
        return list(self.trays.get(target, []))

    def put_back_double(self):
        back = [c for c in (self.gate, self.gate_double) if c is not None]
        self.gate = None
        self.gate_double = None
        self.hopper = back + self.hopper

    def gather(self):
        cards = []
        for t in sorted(self.trays):
            cards.extend(self.trays[t])
        for item in self.belt_cards:
            if item[3] in (POCKET, 2):
                cards.append(item[1])
        self.belt_cards = []
        self.loop_hits = [0, 0, 0]
        cards.extend(self.slot)
        self.slot = []
        if self.gate is not None:
            cards.append(self.gate)
            self.gate = None
        self.trays = {}
        return cards


class Host:
    """Frames in, frames and events out, on a FakeBoard run by main.Firmware."""

    def __init__(self, fw_module, board, cfg):
        self.fw_module = fw_module
        self.board = board
        self.cfg = cfg
        self.fw = fw_module.Firmware(board, cfg)
        self.parser = P.Parser()
        self.seq = 0
        self.frames = []
        self.events = []
        self.cursor = 0
        self.reading = True
        self.keepalive = True  # a PING every second of silence, as the host's link does
        self.quiet = 0
        self.keep_frames = True  # the evening (run_heap.py) keeps none: harness memory
        self.step_id = 0x4000  # the ids this host gives its steps (protocol 3)

    def send(self, ftype, body=b"", seq=None):
        if seq is None:
            self.seq = (self.seq + 1) & 0xFF
            seq = self.seq
        self.quiet = 0
        self.board.rx.extend(P.encode_frame(ftype, seq, 0, body))
        return seq

    def step(self, ms=20):
        self.board.advance(ms)
        self.quiet += ms
        if self.keepalive and self.quiet >= 1000:
            self.send(P.PING)
        fed = self.fw.step()
        if vmheap is not None:
            vmheap.tick()
        if self.board.reboot_requested:
            self.board.reboot_requested = False
            self.board.cause = 3
            self.board.stop_all()
            self.fw = self.fw_module.Firmware(self.board, self.cfg)
        return fed

    def run(self, ms=50, step=20):
        left = ms
        while left > 0:
            self.step(min(step, left))
            left -= step
        return self.collect()

    def collect(self):
        if not self.reading:
            return []
        out = self.parser.feed_bytes(bytes(self.board.tx))
        self.board.tx = bytearray()
        for f in out:
            if f.type == P.EVENT or f.type == P.EVENTS:
                self.events.extend(P.parse_event_block(f.body))
        if self.keep_frames:
            self.frames.extend(out)
        return out

    def command(self, ftype, body=b"", ms=20, seq=None, step=None):
        """Send one command and return its reply; a step command (protocol 3) gets the next
        step id in front of ``body`` (``step``: that id instead; False: ``body`` as it is)."""
        if ftype in P.STEP_COMMANDS and step is not False:
            if step is None:
                self.step_id += 1
                step = self.step_id
            body = P.u16(step) + bytes(body)
        want = self.send(ftype, body, seq)
        replies = [f for f in self.run(ms) if f.type not in (P.EVENT, P.BUSY) and f.ack == want]
        if len(replies) != 1:
            # a firmware whose loop raised stopped answering for good (FAULT 4, the watchdog
            # then reboots it): say so, not just that the reply is missing
            why = " (the firmware stopped: its loop raised, FAULT 4)" if self.fw.failed else ""
            raise AssertionError("expected one reply to 0x%02x, got %d%s" % (ftype, len(replies), why))
        return replies[0]

    def until(self, kind, max_ms=200000):
        waited = 0
        while True:
            for n in range(self.cursor, len(self.events)):
                if self.events[n][1] == kind:
                    self.cursor = n + 1
                    return self.events[n]
            if waited >= max_ms:
                raise AssertionError("no event 0x%02x within %d ms; last %s" % (
                    kind, max_ms, self.events[-3:]))
            self.run(200)
            waited += 200

    def kinds(self):
        return [e[1] for e in self.events]


def plan_chunks(deal_id, entries, per_chunk=120, flags=1):
    """DEAL_PLAN bodies for a plan of (card, target) entries, in chunks that fit a frame
    (``flags`` 1: a fresh deal, every card gathered)."""
    total = len(entries)
    out = []
    offset = 0
    while offset < total:
        part = entries[offset:offset + per_chunk]
        body = bytearray(P.u16(deal_id))
        body.append(total)
        body.append(offset)
        body.append(flags)
        for card, target in part:
            body.append(card)
            body.append(target)
        out.append(bytes(body))
        offset += len(part)
    return out


def shuffled(seed, decks=1):
    """A deck order from a small LCG (MicroPython's random differs from CPython's)."""
    order = []
    for _ in range(decks):
        order.extend(range(52))
    x = seed * 2654435761 + 12345
    for i in range(len(order) - 1, 0, -1):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        j = x % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order
