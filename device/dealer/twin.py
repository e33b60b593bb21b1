# ruff: noqa: UP031 - %-formatting reads the same on MicroPython and CPython
"""The dealer's physical twin: the mechanism as it moves, standing in for ``machine`` and ``rp2``.

Written in the MicroPython subset (no annotations, no dataclasses) so the SAME twin runs under
CPython (tests, the simulator) and on the MicroPython VM (tests/firmware/mp), where it stands
in for the rp2 port's ``machine`` and ``rp2`` modules: the firmware's own ``board.py`` drives it
unmodified (PIO step programs fed by DMA, the PCA9685 flaps and the TCA9555 pocket optos over
I2C, the reader over UART, the gate IRQ, the watchdog), and ``main.Firmware`` runs on top.

The physics (constants from device/dealer/physical.toml, passed in as a flat dict):

- Steppers move exactly the segment lists board.py hands the PIO (firmware/motion.py), from the
  moment the DMA is triggered; a stopped axis stops at once.
- A feed move carries the card in the read window onto the belt and picks the next card (the
  play slot's first, else the hopper's bottom one unless the lift holds the stack) from the
  throat to the window; a pickup may slip (the card lags its rollers) or take two cards.
- The belt carries cards at the band speed times ``belt.card_speed`` (slip), ramping up from rest.
- A flap takes a PWM frame (0..20 ms) to start and ``servo.swing_ms`` to swing. A card whose
  leading edge meets a flap raised past ``servo.deflect_above`` of its swing drops into that
  pocket (its mouth opto sees it go in); below ``servo.pass_below`` it passes over; in between
  it strikes the flap's edge and stops there. A flap that rises under a card crossing its mouth
  strikes the card (it stops there too). A card past every pocket reaches the end opto E, then
  the switchback R's nip: it goes round the loop only if board.py runs R (pull in, Rv, push
  out), and drops onto the top of the hopper past opto D (or, with a sorting hopper, is
  inserted where the firmware says: ``hopper.insert_at``).
- The reader decodes a card at rest in the window after a decode time drawn from a normal
  distribution (median ``reader.decode_ms``), and answers its text over UART.
- The gate IRQ's handler runs ``sensors.gate_irq_latency_us`` after the edge (sometimes after a
  garbage collection's pause), with the clock reading that later time.

Nothing decides where a card goes from what the firmware meant: only flaps, rollers and
sensors. The twin records where every card ended (``pockets``), where it was when it stopped
(``stuck``), and what struck what (``log``).
"""

import io
import math

try:
    from trickref.firmware import motion  # CPython: the installed package
except ImportError:
    from firmware import motion  # the MicroPython VM

PERIOD = 1 << 30
RANKS = "23456789TJQKA"
SUITS = "SHDC"

# board.py's pins (kept in step with firmware/board.py and hardware/WIRING.md)
PIN_READER_TRIG, PIN_LID, PIN_EN, PIN_TCA_INT = 2, 3, 12, 13
PIN_F_DIR, PIN_T_DIR, PIN_R_DIR = 7, 9, 11
PIN_HOPPER, PIN_GATE, PIN_SLOT, PIN_END, PIN_RV, PIN_DROP = 16, 17, 18, 19, 20, 21
PIN_ESCAPE, PIN_THICK, PIN_ESTOP, PIN_VBUS = 22, 26, 27, 28
HOPPER_LIFT = 15
SM_F, SM_T, SM_R = 0, 1, 2
PIO_FDEBUG = 0x50200008
# the sorting hopper's servo (board.py): the pulse with the blade level with the top card, and
# per card below it; the stroke's end, 1.00 ms, holds the blade a card above the top
SPLIT_ADDR, SPLIT_US0, SPLIT_US_PER_CARD, SPLIT_US_END = 0x41, 1010, 10, 1000
# the splitter's load cell (board.py): a NAU7802 ADC on the I2C bus
SCALE_ADDR = 0x2A

# where the twin puts what board.py does not name (mm along the path; design values)
GRIP_X = 170.0  # a card this far along is gripped by the belt bands
R_NIP_X = 600.0  # the switchback's roller nip (hardware/README.md: R at x = 600..700)
RV_X = 650.0  # the switchback's inner opto Rv
THICK_X = 40.0  # the thickness lever over F1
READ_WINDOW_MM = 5.0  # the reader finds the code on a card within this of the window position
STEP_US = 5000  # the twin moves everything on in steps of at most this (crossings are bisected)


# every card's name, made once at import: on the MicroPython VM a name made afresh each time
# interns its one-character pieces, and a new piece of the string table mid-deal wants a block
# of the heap in one piece just when the twin's own churn has cut it up
CARD_TEXT = [RANKS[c % 13] + SUITS[c // 13] for c in range(52)]


def card_text(card):
    if 0 <= card < 52:
        return CARD_TEXT[card]
    return RANKS[card % 13] + SUITS[card // 13]


class Rng:
    """A small seeded generator (xorshift32): the same draws on MicroPython and CPython."""

    def __init__(self, seed):
        self.x = (seed * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF or 1

    def next32(self):
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return x

    def random(self):
        return self.next32() / 4294967296.0

    def gauss(self, mu, sd):
        u = max(1e-9, self.random())
        v = self.random()
        return mu + sd * math.sqrt(-2.0 * math.log(u)) * math.cos(2 * math.pi * v)


class Axis:
    """A stepper driven by its PIO state machine: position in steps, a move's segment list."""

    def __init__(self, mm_per_step):
        self.mm_per_step = mm_per_step
        self.base = 0  # steps of finished moves (signed)
        self.segs = None
        self.t0 = 0
        self.end = 0
        self.total = 0
        self.sign = 1
        self.endless = False

    def moving(self, t):
        return self.segs is not None and (self.endless or t < self.end)

    def start(self, segs, forward, t):
        self.stop(t)
        self.segs = segs
        self.t0 = t
        total = 0
        for c, _ in segs:
            total += c
        self.total = total
        self.endless = total > 10000000
        self.end = t + motion.segments_us(segs) if not self.endless else t
        self.sign = 1 if forward else -1

    def steps(self, t):
        """Signed position in steps at time t."""
        if self.segs is None:
            return self.base
        if not self.endless and t >= self.end:
            return self.base + self.sign * self.total
        return self.base + self.sign * motion.steps_at(self.segs, max(0, t - self.t0))

    def mm(self, t):
        return self.steps(t) * self.mm_per_step

    def settle(self, t):
        """Fold a finished move into the base position."""
        if self.segs is not None and not self.endless and t >= self.end:
            self.base += self.sign * self.total
            self.segs = None

    def stop(self, t):
        if self.segs is not None:
            self.base = self.steps(t)
            self.segs = None


class Flap:
    """A deflector flap on an MG90S: the commanded pulse takes effect at the next PWM frame,
    then the horn swings at its speed. ``f`` is the fraction of the swing (0 down, 1 up)."""

    def __init__(self, swing_us, frame_us, phase_us):
        self.swing = max(1, swing_us)
        self.frame = frame_us
        self.phase = phase_us
        self.f0 = 0.0
        self.t0 = 0
        self.target = 0.0

    def command(self, up, t):
        goal = 1.0 if up else 0.0
        if goal == self.target:
            return
        now_f = self.at(t)
        start = t
        if self.frame > 0:
            start = t + (self.frame - (t - self.phase) % self.frame) % self.frame
        # until the frame the horn goes on where it was going
        self.f0 = self.at(start) if start > t else now_f
        self.t0 = start
        self.target = goal

    def at(self, t):
        if t <= self.t0:
            # before the new command's frame: the previous motion (kept as f0 at t0)
            return self.f0
        d = (t - self.t0) / self.swing
        if self.target > self.f0:
            return min(self.target, self.f0 + d)
        return max(self.target, self.f0 - d)


class Linear:
    """The splitter's linear servo: the commanded position (in cards of depth) takes effect at
    the next PWM frame, then the rod moves at its speed."""

    def __init__(self, speed_per_s, frame_us, phase_us):
        self.speed = max(1e-6, speed_per_s) / 1e6  # cards per us
        self.frame = frame_us
        self.phase = phase_us
        self.p0 = 0.0
        self.t0 = 0
        self.target = 0.0

    def command(self, pos, t):
        if pos == self.target:
            return
        start = t
        if self.frame > 0:
            start = t + (self.frame - (t - self.phase) % self.frame) % self.frame
        self.p0 = self.at(start)
        self.t0 = start
        self.target = pos

    def at(self, t):
        if t <= self.t0:
            return self.p0
        d = (t - self.t0) * self.speed
        if self.target > self.p0:
            return min(self.target, self.p0 + d)
        return max(self.target, self.p0 - d)


class Card:
    def __init__(self, card):
        self.card = card
        self.mode = "f"  # f: driven by F; belt; drop (into a pocket); r (switchback); loop; stuck
        self.x = 0.0  # leading edge, mm
        self.x_ref = 0.0
        self.s_ref = 0  # F or R steps (mode f / r), belt band mm (belt, loop)
        self.slip = 0.0
        self.partner = None  # the second card of a double feed travels with it
        self.pocket = -1
        self.until = 0  # drop/loop: when the stage ends
        self.loop_left = 0.0


class Mechanism:
    """Cards, rollers, belt, flaps, sensors and the reader, in time (microseconds)."""

    def __init__(self, values, seed=0, start_us=0, seats=11):
        v = values
        self.v = v
        self.rng = Rng(seed)
        self.now = start_us
        self.seats = seats
        full = v["feed.full_steps_per_rev"] * v["feed.microsteps"]
        self.F = Axis(v["feed.mm_per_rev"] / full)
        self.T = Axis(v["belt.mm_per_rev"] / full)
        self.R = Axis(v["switchback.mm_per_rev"] / full)
        self.card_speed = v["belt.card_speed"]
        self.L = v["geometry.card_length"]
        self.gate_x = v["geometry.gate_x"]
        self.window_x = v["geometry.window_x"]
        self.f1_x = v["geometry.f1_x"]
        self.belt_x = v["geometry.belt_x"]
        self.grip_x = v.get("geometry.grip_x", GRIP_X)
        self.f2_x = v.get("geometry.f2_x", 95.0)
        self.move_mm = v["feed.move"]
        n_pockets = int(v["geometry.pockets"])
        self.mouths = [v["geometry.pocket_x0"] + v["geometry.pocket_pitch"] * k for k in range(n_pockets)]
        self.end_x = v["geometry.end_x"]
        self.loop_mm = v["geometry.loop_length"]
        frame = int(v["servo.pwm_frame_ms"] * 1000)
        swing = int(v["servo.swing_ms"] * 1000)
        phase = int(self.rng.random() * frame) if frame else 0
        self.flaps = [Flap(swing, frame, phase) for _ in range(16)]
        self.deflect_above = v["servo.deflect_above"]
        self.pass_below = v["servo.pass_below"]
        self.hopper = []  # bottom card (fed next) first
        self.slot = []
        self.cards = []  # Card objects in the path or the loop
        self.pockets = {}  # pocket index -> cards in it, in order
        self.full = []  # pockets full to the mouth: a card turned into one stops there
        self.stuck = []  # (card, x, why)
        self.log = []
        self.drivers_on = False
        self.estop = False
        self.lid_open = False
        self.lift = False  # the hopper lift as commanded (board.hold_hopper)
        # the lift's servo (HS-311): the new pulse at the next PWM frame, then the swing
        # (servo.lift_swing_ms, an estimate); the stack rests on P while the plate is below
        # P's protrusion (cad.feed.pickup_protrude of its cad.hopper.lift_travel)
        # (``lift_swings`` True, the default: a feed move that starts before the stack has come
        # down takes the bottom card only when it lands, lagging the move; the firmware waits
        # config.LIFT_SETTLE_MS after lowering the lift before such a move, mechanics.lift_settled.
        # False: the lift moves at once, as the twin did before 2026-12-04. The lift going up is
        # still instant here.)
        self.lift_swings = True
        self.lift_servo = Flap(int(v.get("servo.lift_swing_ms", 0) * 1000), frame, phase)
        self.lift_clear = v.get("cad.feed.pickup_protrude", 0.5) / v.get("cad.hopper.lift_travel", 2.0)
        self.pick_due = None  # a feed move began before the stack came down onto P: when it lands
        # the sorting hopper (hardware/README.md): a splitter blade on a linear servo holds the
        # top cards of the stack off it so a loop card drops in under them; ``sorting`` False:
        # no splitter fitted (nothing answers at its I2C address), the loop drops on the top
        self.sorting = bool(v.get("sorter.fitted", 0))
        self.splitter = Linear(v.get("sorter.speed", 23.0) / v["geometry.card_thickness"], frame, phase)
        # the blade goes in under the top cards a card high or low now and then
        # (sorter.error_chance): drawn once for each time it goes in (a move, or the card before
        # landing), so a load cell under it (``weighs``: sorter.scale_fitted, a NAU7802 at
        # SCALE_ADDR) weighs the cards it really holds, as the card will find them
        self.weighs = self.sorting and bool(v.get("sorter.scale_fitted", 0))
        self.entry_key = None
        self.entry_err = 0
        self.entry_rub = 0.0  # this entry's rub of the held cards on the walls (share of their weight)
        self.landings = 0
        self.blade_errors = 0  # entries that went in a card off (what the cell may catch)
        self.landing_errors = 0  # cards that landed a card off their depth
        self.landing_error_depths = []  # ... the depth the blade was sent to for each of them
        self.irq = None  # (pin object, handler)
        self.irq_queue = []  # [time, pin] handler calls due
        self.gate_dark = False
        self.reader_out = b""
        self.reader_due = None  # (time, bytes)
        self.tca_seen = 0x7FFF
        self.passes = 0  # cards dropped back on the hopper (loop passes)
        self.fault_slip = 0  # the next n pickups slip (a card lags: lands short of the window)
        self.slip_range = (0.05, 0.30)  # a slipping pickup's share of the rollers' travel lost
        self.fault_double = 0
        self.fault_unreadable = 0
        self.fault_lose = 0  # the next n cards leaving the window catch on the path and stop
        self.pickup_stuck = False  # the pickup roller slips on the stack: a feed move takes no card
        self.window_stuck = False  # the card in the read window catches: F's rollers slip on it
        self.reader_dead = False  # the scanner decodes nothing (unplugged, lens covered)
        self.flap_stuck = 0  # the next n flap raises do nothing (a stalled servo)
        self.random_faults = True
        # the random faults drawn so far (with random_faults): what the table met
        self.drawn = {"pickup_slip": 0, "double_feed": 0, "misread": 0, "late_gate_irq": 0}
        self.belt_on_at = None
        self.belt_base = 0.0  # band mm at belt_on_at
        self.belt_v = 0.0
        self.drop_us = int(v.get("loop.drop_ms", 60) * 1000)

    # ---- the belt ---------------------------------------------------------------------------

    def band(self, t):
        """How far the bands have run (mm) at time t: ramping from V_START at T_ACCEL."""
        if self.belt_on_at is None:
            return self.belt_base
        v = self.v
        v0, vmax, a = v["feed.v_start"], v["belt.v"], v["belt.accel"]
        dt = (t - self.belt_on_at) / 1e6
        t_ramp = (vmax - v0) / a
        if dt <= t_ramp:
            d = v0 * dt + 0.5 * a * dt * dt
        else:
            d = v0 * t_ramp + 0.5 * a * t_ramp * t_ramp + vmax * (dt - t_ramp)
        return self.belt_base + d

    def belt_set(self, on, t):
        """The transport T (and, by its timing belt, the loop's diagonal and top run)."""
        if on and self.belt_on_at is None:
            self.belt_on_at = t
            for c in self.cards:
                if c.mode == "loop" and c.until < 0:
                    c.until = t - c.until  # the rest of its way round
        elif not on and self.belt_on_at is not None:
            self.belt_base = self.band(t)
            self.belt_on_at = None
            for c in self.cards:
                # (a card already falling past D onto the stack lands: the belt no longer has it)
                if c.mode == "loop" and c.until - self.drop_us > t:
                    c.until = -max(1, c.until - t)

    # ---- where a card is ---------------------------------------------------------------------

    def pos(self, c, t):
        if c.mode == "f" and getattr(c, "held", False):
            return c.x_ref
        if c.mode == "f":
            return self._fed(c, (self.F.steps(t) - c.s_ref) * self.F.mm_per_step)
        if c.mode == "fb":
            xf = self._fed(c, (self.F.steps(t) - c.s_ref) * self.F.mm_per_step)
            xb = c.loop_left + (self.band(t) - c.until) * self.card_speed
            return xf if xf > xb else xb
        if c.mode == "belt":
            return c.x_ref + (self.band(t) - c.s_ref) * self.card_speed
        if c.mode == "r":
            return c.x_ref + (self.R.steps(t) - c.s_ref) * self.R.mm_per_step
        return c.x

    def _fed(self, c, turned):
        """Where a card in the feed section is after F's rollers turned ``turned`` mm since its
        reference point: it lags them by its slip (the pickup roller P slipping on it against
        the separator pad) until its leading edge is in F1's sprung nip, which then drives it
        with the rollers (geometry.f1_x; a card lags by about f1_x * slip / (1 - slip) in all)."""
        if c.slip <= 0.0 or c.x_ref >= self.f1_x:
            return c.x_ref + turned
        to_nip = (self.f1_x - c.x_ref) / (1.0 - c.slip)  # roller travel until the nip takes it
        if turned <= to_nip:
            return c.x_ref + turned * (1.0 - c.slip)
        return self.f1_x + (turned - to_nip)

    # ---- time -------------------------------------------------------------------------------

    def advance(self, t):
        """Move everything on to time t (us), in small steps so that every crossing is seen."""
        while self.now < t:
            step = STEP_US
            nxt = self.now + step if self.now + step < t else t
            for item in self.irq_queue:
                if item[0] < nxt:
                    nxt = max(self.now + 1, item[0])
            due = self.pick_due
            if due is not None and self.now < due < nxt:
                nxt = due
            self._move(self.now, nxt)
            self.now = nxt
            if due is not None and due <= nxt:
                self._late_pick(nxt)
            self._run_irqs()
        self.F.settle(self.now)
        self.R.settle(self.now)

    def _run_irqs(self):
        while self.irq_queue and self.irq_queue[0][0] <= self.now:
            self.irq_queue.pop(0)
            if self.irq is not None:
                self.irq[1](self.irq[0])

    def _crossed(self, c, t0, t1, x, lo, hi):
        """The time in (t0, t1] when card c's leading edge reached x (it was lo, is hi)."""
        if hi <= lo:
            return t1
        a, b = t0, t1
        for _ in range(12):
            m = (a + b) // 2
            if m <= a:
                break
            if self.pos(c, m) >= x:
                b = m
            else:
                a = m
        return b

    def _move(self, t0, t1):
        v = self.v
        for c in list(self.cards):
            mode = c.mode
            if mode in ("stuck",):
                continue
            if mode == "drop":
                if t1 >= c.until:
                    self.cards.remove(c)
                    self.pockets.setdefault(c.pocket, []).append(c.card)
                    if c.partner is not None:
                        self.pockets[c.pocket].append(c.partner)
                continue
            if mode == "loop":
                if 0 <= c.until <= t1:
                    self.cards.remove(c)
                    self._drop_on_hopper(c)
                continue
            x0 = c.x
            x1 = self.pos(c, t1)
            if mode == "f":
                if x1 >= self.grip_x and self.belt_on_at is not None:
                    tg = self._crossed(c, t0, t1, self.grip_x, x0, x1)
                    c.x_ref = self.pos(c, tg)
                    c.s_ref = self.F.steps(tg)
                    c.mode = "fb"
                    c.loop_left = c.x_ref
                    c.until = self.band(tg)
                    x1 = self.pos(c, t1)
            elif mode == "fb":
                if not self.F.moving(t1) or x1 - self.L > self.f2_x:
                    c.x_ref = x1
                    c.s_ref = self.band(t1)
                    c.mode = "belt"
                    if getattr(c, "lose", False):  # it catches on the path and stays there
                        self._stick(c, x1, "caught on the path")
                        continue
            if x1 <= x0:
                c.x = x1
                continue
            # flaps rising under a card that spans a mouth strike it
            for k in range(len(self.mouths)):
                m = self.mouths[k]
                if x1 - self.L < m <= x1 and mode in ("belt", "fb"):
                    if x0 >= m and self.flaps[k].at(t1) > self.pass_below:
                        # it was already past the mouth's edge when the flap came up under it
                        self._stick(c, x1, "flap %d rose under it" % k)
                        break
            if c.mode == "stuck":
                continue
            # the leading edge meets each mouth in turn
            for k in range(len(self.mouths)):
                m = self.mouths[k]
                if x0 < m <= x1:
                    tm = self._crossed(c, t0, t1, m, x0, x1)
                    f = self.flaps[k].at(tm)
                    if f >= self.deflect_above and k in self.full:
                        self._stick(c, m, "pocket %d is full: stopped in its mouth" % k)
                        c.pocket = k
                        break
                    if f >= self.deflect_above:
                        speed = max(1.0, v["belt.v"] * self.card_speed)
                        c.mode = "drop"
                        c.pocket = k
                        c.x = m
                        c.until = tm + int(self.L / speed * 1e6)
                        self.log.append((tm, "card %s into pocket %d" % (card_text(c.card), k)))
                        break
                    if f > self.pass_below:
                        self._stick(c, m, "struck flap %d at %.2f of its swing" % (k, f))
                        break
            if c.mode in ("drop", "stuck"):
                continue
            # the switchback's nip
            if x0 < R_NIP_X <= x1 and c.mode in ("belt", "fb"):
                if self.R.moving(t1) and self.R.sign > 0:
                    tn = self._crossed(c, t0, t1, R_NIP_X, x0, x1)
                    c.mode = "r"
                    c.x_ref = R_NIP_X
                    c.s_ref = self.R.steps(tn)
                    x1 = self.pos(c, t1)
                else:
                    self._stick(c, R_NIP_X, "reached the switchback's nip with R at rest")
                    c.x = R_NIP_X
                    continue
            c.x = x1
        # switchback: a card pulled in and pushed back out goes up the diagonal
        for c in list(self.cards):
            if c.mode == "r":
                x = self.pos(c, t1)
                if self.R.sign < 0 and not self.R.moving(t1):
                    c.mode = "loop"
                    rest = self.loop_mm - (R_NIP_X - self.end_x) - 10
                    speed = max(1.0, v["belt.v"] * self.card_speed)
                    c.until = t1 + int(rest / speed * 1e6) + self.drop_us
                    if self.belt_on_at is None:  # pushed out onto a diagonal that stands still
                        c.until = -max(1, c.until - t1)
                    c.x = x
                elif not self.R.moving(t1) and self.R.sign > 0 and x < RV_X:
                    pass  # pulled in too short: waits there
                c.x = x
        self._gate_edges(t0, t1)

    def _stick(self, c, x, why):
        c.mode = "stuck"
        c.x = x
        self.stuck.append((c.card, x, why))
        self.log.append((self.now, "card %s stuck at %.0f mm: %s" % (card_text(c.card), x, why)))

    def _drop_on_hopper(self, c):
        self.passes += 1
        cards = [c.card] + ([c.partner] if c.partner is not None else [])
        depth = 0
        if self.sorting:
            # the splitter's blade holds the top cards off the stack: the card drops in under
            # them, at the depth the blade is at now (it may still be moving), give or take one
            # (the blade's repeatability against a card's 0.3 mm). A blade above the top card
            # (depth below 0: parked) holds nothing, and the card lands on the top.
            depth = math.floor(self.splitter.at(self.now) + 0.5)
            err = self._blade_err()
            meant = max(0, min(depth, len(self.hopper)))
            if max(0, min(depth + err, len(self.hopper))) != meant:
                self.landing_errors += 1
                self.landing_error_depths.append(meant)
            depth += err
            self.landings += 1
        for card in cards:
            d = max(0, min(depth, len(self.hopper)))
            self.hopper.insert(len(self.hopper) - d, card)
        self.log.append((self.now, "card %s dropped %d under the top" % (card_text(c.card), max(0, depth))))

    def _blade_err(self):
        """The blade's error (cards, -1, 0 or +1) as it is in now: drawn when first asked for
        after it moved or a card landed (the same draws, in the same order, as one a landing when
        nothing weighs it)."""
        sp = self.splitter
        key = (sp.t0, sp.target, self.landings)
        if key != self.entry_key:
            self.entry_key = key
            e = 0
            if self.rng.random() < self.v.get("sorter.error_chance", 0):
                e = 1 if self.rng.random() < 0.5 else -1
            self.entry_err = e
            if e:
                self.blade_errors += 1
            self.entry_rub = 0.0
            if self.weighs:
                self.entry_rub = self.rng.gauss(0.0, self.v.get("sorter.scale_friction", 0.0))
        return self.entry_err

    def scale_raw(self):
        """The load cell's reading now (NAU7802 counts): its tare, and the cards the blade holds
        up (none when it is parked above the top) each adding ``sorter.scale_per_card``, give or
        take this entry's rub and the converter's noise."""
        v = self.v
        held = 0
        pos = self.splitter.at(self.now)
        if pos > -0.5:
            held = max(0, min(len(self.hopper), math.floor(pos + 0.5) + self._blade_err()))
        raw = v.get("sorter.scale_tare", 0) + held * v.get("sorter.scale_per_card", 0) * (1.0 + self.entry_rub)
        raw += self.rng.gauss(0.0, v.get("sorter.scale_noise", 0))
        return int(raw)

    def _gate_covered(self, t=None):
        for c in self.cards:
            x = c.x if t is None else self.pos(c, t)
            if x - self.L < self.gate_x <= x or (c.partner is not None and x - self.L - c.slip_back < self.gate_x <= x):
                return True
        return False

    def _gate_edges(self, t0, t1):
        dark = self._gate_covered()
        if dark != self.gate_dark:
            # when did it change? bisect on the cards' positions
            a, b = t0, t1
            for _ in range(12):
                m = (a + b) // 2
                if m <= a:
                    break
                if self._gate_covered(m) == dark:
                    b = m
                else:
                    a = m
            self.gate_dark = dark
            lat = self.v["sensors.gate_irq_latency_us"]
            if self.rng.random() < self.v.get("sensors.gate_irq_gc_chance", 0) and self.random_faults:
                lat += self.v.get("sensors.gate_irq_gc_us", 0)
                self.drawn["late_gate_irq"] += 1
            due = b + int(self.v["sensors.opto_response_us"] + lat)
            self.irq_queue.append([due, None])
            self.irq_queue.sort(key=lambda it: it[0])

    # ---- actuators ----------------------------------------------------------------------------

    def axis(self, sm):
        return (self.F, self.T, self.R)[sm]

    def axis_start(self, sm, segs, forward):
        t = self.now
        if sm == SM_T:
            self.belt_set(True, t)
            self.T.start(segs, forward, t)
            return
        if not self.drivers_on or self.estop:
            return
        ax = self.axis(sm)
        if sm == SM_F:
            self._freeze_f(t)
            ax.start(segs, forward, t)
            self._pick(t)
            for c in self.cards:
                if c.mode == "f":
                    c.s_ref = self.F.steps(t)
                    c.x_ref = c.x
                    # a card caught in the feed section stays there while F's rollers turn
                    c.held = self.window_stuck
        else:
            ax.start(segs, forward, t)
            for c in self.cards:
                if c.mode == "r":
                    c.x_ref = c.x
                    c.s_ref = ax.steps(t)

    def _freeze_f(self, t):
        for c in self.cards:
            if c.mode in ("f", "fb"):
                c.x = self.pos(c, t)
                if c.mode == "fb":
                    c.mode = "belt"
                    c.x_ref = c.x
                    c.s_ref = self.band(t)

    def axis_stop(self, sm):
        t = self.now
        if sm == SM_T:
            for c in self.cards:
                if c.mode in ("belt", "fb"):
                    c.x = self.pos(c, t)
            self.belt_set(False, t)
            for c in self.cards:
                if c.mode in ("belt", "fb"):
                    c.mode = "belt"
                    c.x_ref = c.x
                    c.s_ref = self.belt_base
            self.T.stop(t)
            return
        if sm == SM_F:
            self._freeze_f(t)
            self.F.stop(t)
            for c in self.cards:
                if c.mode == "f":
                    c.x_ref = c.x
                    c.s_ref = self.F.steps(t)
            return
        for c in self.cards:
            if c.mode == "r":
                c.x = self.pos(c, t)
        self.R.stop(t)
        for c in self.cards:
            if c.mode == "r":
                c.x_ref = c.x
                c.s_ref = self.R.steps(t)

    def axis_moving(self, sm):
        return self.axis(sm).moving(self.now)

    def _pick(self, t):
        """A feed move starts: the pickup takes the next card into the throat if the feed
        section has room (no card between the throat and the window)."""
        for c in self.cards:
            if c.mode == "f" and c.x < self.gate_x:
                return  # a card is still in the throat: the pickup has nothing to take
        if self.pickup_stuck or self.window_stuck:
            return
        if self.slot:
            card = self.slot.pop(0)
        elif self.hopper and not self.lift and self.stack_on_pickup(t):
            card = self.hopper.pop(0)
        elif self.hopper and not self.lift:
            # the lift is still coming down: P turns under a stack not yet on it; the bottom
            # card is taken when the stack lands, if P still turns then (it lags the move)
            self.pick_due = self.lift_lands()
            return
        else:
            return
        c = Card(card)
        c.x = 0.0
        c.x_ref = 0.0
        c.s_ref = self.F.steps(t)
        rf = self.random_faults
        v = self.v
        if self.fault_slip or (rf and self.rng.random() < v.get("feed.slip_chance", 0)):
            if not self.fault_slip:
                self.drawn["pickup_slip"] += 1
            self.fault_slip = max(0, self.fault_slip - 1)
            lo, hi = self.slip_range
            c.slip = lo + (hi - lo) * self.rng.random()
        elif rf:
            c.slip = v.get("feed.slip", 0) * self.rng.random()
        c.slip_back = 0.0
        # a second card comes off the stack under P only: never with the lift holding it off
        on_p = bool(self.hopper) and not self.lift and self.stack_on_pickup(t)
        if (self.fault_double or (rf and self.rng.random() < v.get("feed.double_chance", 0))) and on_p:
            if not self.fault_double:
                self.drawn["double_feed"] += 1
            self.fault_double = max(0, self.fault_double - 1)
            c.partner = self.hopper.pop(0)
            c.slip_back = 5 + 35 * self.rng.random()  # shingled: the second trails the first
        c.unreadable = False
        if self.fault_unreadable or (rf and self.rng.random() < v.get("reader.misread_chance", 0)):
            if not self.fault_unreadable:
                self.drawn["misread"] += 1
            self.fault_unreadable = max(0, self.fault_unreadable - 1)
            c.unreadable = True
        if self.fault_lose:
            self.fault_lose -= 1
            c.lose = True
        self.cards.append(c)

    def busy(self):
        """Something moves: a feed or switchback move, or a card on the belt or the loop."""
        t = self.now
        if self.F.moving(t) or self.R.moving(t):
            return True
        for c in self.cards:
            if c.mode in ("fb", "belt", "r", "loop", "drop"):
                return True
        return False

    def place_in_window(self, card):
        """A card put into the read window by hand (at rest, its leading edge at the window)."""
        c = Card(card)
        c.x = c.x_ref = self.window_x
        c.s_ref = self.F.steps(self.now)
        c.slip_back = 0.0
        c.unreadable = False
        self.cards.append(c)
        return c

    def stack_on_pickup(self, t):
        """The stack rests on the pickup roller P at time t (the lift's plate under P's top;
        with ``lift_swings`` False, whenever the lift is not commanded up)."""
        if not self.lift_swings:
            return not self.lift
        return self.lift_servo.at(t) < self.lift_clear

    def lift_lands(self):
        """When the lift coming down puts the stack on P (its frame, then the swing)."""
        s = self.lift_servo
        return s.t0 + int(max(0.0, s.f0 - self.lift_clear) * s.swing) + 1

    def _late_pick(self, t):
        """The stack landed on P during a feed move: P takes the bottom card now."""
        self.pick_due = None
        if self.lift or not self.F.moving(t):
            return
        n = len(self.cards)
        self._pick(t)
        if len(self.cards) > n:
            self.log.append((t, "late pick %d" % self.cards[-1].card))

    def set_full(self, k, full):
        """Pocket k full to its mouth: a card deflected into it stops in the mouth."""
        if full:
            self.full.append(k)
        elif k in self.full:
            self.full.remove(k)

    def flap(self, k, up):
        if k == HOPPER_LIFT:
            self.lift = up
            self.lift_servo.command(up, self.now)
            if up:
                self.pick_due = None
            return
        if 0 <= k < len(self.flaps):
            if up and self.flap_stuck and self.flaps[k].target < 0.5:
                self.flap_stuck -= 1  # the servo stalls: this raise does nothing
                self.log.append((self.now, "flap %d stalled" % k))
                return
            self.flaps[k].command(up, self.now)

    # ---- sensors ---------------------------------------------------------------------------

    def window_card(self):
        for c in self.cards:
            if c.mode == "f" and abs(c.x - self.window_x) <= READ_WINDOW_MM and not self.F.moving(self.now):
                return c
        return None

    def mouth_bits(self):
        bits = 0x7FFF
        for c in self.cards:
            if c.mode in ("drop", "stuck") and 0 <= c.pocket < 15:
                bits &= ~(1 << c.pocket)
        return bits

    def _dark_at(self, x):
        for c in self.cards:
            if c.mode == "r" and self.R.sign < 0:
                continue  # pushed out tail first: the one-way flap turns it up the diagonal
            if c.mode in ("belt", "fb", "r", "stuck", "f") and c.x - self.L < x <= c.x:
                return True
        return False

    def pin(self, n):
        """The level of an input pin (1 high = clear / released, 0 low = blocked / present)."""
        if n == PIN_GATE:
            return 0 if self.gate_dark else 1
        if n == PIN_HOPPER:
            return 0 if self.hopper else 1
        if n == PIN_SLOT:
            return 0 if self.slot else 1
        if n == PIN_END:
            return 0 if self._dark_at(self.end_x) else 1
        if n == PIN_RV:
            return 0 if self._dark_at(RV_X) else 1
        if n == PIN_DROP:
            for c in self.cards:
                if c.mode == "loop" and 0 <= c.until - self.drop_us <= self.now:
                    return 0
            return 1
        if n == PIN_ESTOP:
            return 1 if self.estop else 0
        if n == PIN_LID:
            return 1 if self.lid_open else 0
        if n == PIN_TCA_INT:
            return 0 if self.mouth_bits() != self.tca_seen else 1
        if n == PIN_ESCAPE:
            return 1
        return 1

    def adc(self, n):
        if n == PIN_THICK:
            for c in self.cards:
                if c.partner is not None and c.slip_back < 3 and c.x - self.L < THICK_X <= c.x:
                    return 42000
            return 20000
        if n == PIN_VBUS:
            return 0 if self.estop else 30000
        return 0

    # ---- the reader ------------------------------------------------------------------------------

    def reader_trigger(self):
        c = self.window_card()
        if c is None or getattr(c, "unreadable", False) or self.reader_dead:
            self.reader_due = None  # nothing decodes: the scanner stays silent
            return
        v = self.v
        med = v["reader.decode_ms"]
        ms = self.rng.gauss(med, v.get("reader.decode_sd_ms", 0))
        ms = max(0.5 * med, min(1.6 * med, ms))
        ms += v.get("reader.trigger_ms", 0) + 4  # the trigger, then 4 bytes at 9600 baud
        self.reader_due = (self.now + int(ms * 1000), (card_text(c.card) + "\r\n").encode(), c)

    def reader_poll(self):
        if self.reader_due is not None and self.now >= self.reader_due[0]:
            c = self.reader_due[2]
            if c in self.cards and c.mode == "f" and abs(c.x - self.window_x) <= READ_WINDOW_MM:
                self.reader_out += self.reader_due[1]
            self.reader_due = None
        return self.reader_out

    def reader_probe(self):
        self.reader_out += b"\x02\x00\x00\x01\x00\x33\x31"

    # ---- for tests ---------------------------------------------------------------------------------

    def where(self):
        """Every card: pocket index -> cards, plus 'hopper', 'slot', 'path', 'stuck'."""
        out = {}
        for k in self.pockets:
            out[k] = list(self.pockets[k])
        out["hopper"] = list(self.hopper)
        out["slot"] = list(self.slot)
        out["path"] = [c.card for c in self.cards if c.mode != "stuck"]
        out["stuck"] = [s[0] for s in self.stuck]
        return out


# ---- the rp2 port's modules, backed by a Mechanism ---------------------------------------------------


class HalTime:
    """``time`` for board.py: the twin's clock."""

    def __init__(self, mech):
        self.mech = mech

    def ticks_ms(self):
        return (self.mech.now // 1000) % PERIOD

    def ticks_us(self):
        return self.mech.now % PERIOD

    def ticks_add(self, a, b):
        return (a + b) % PERIOD

    def ticks_diff(self, a, b):
        return ((a - b + PERIOD // 2) % PERIOD) - PERIOD // 2

    def sleep_ms(self, ms):
        self.mech.advance(self.mech.now + ms * 1000)

    def sleep_us(self, us):
        self.mech.advance(self.mech.now + us)


class _Link:
    """USB CDC: bytes from the host in ``rx``, to the host in ``tx``."""

    def __init__(self):
        self.rx = bytearray()
        self.tx = bytearray()
        self.buffer = self

    def read(self, n=-1):
        if not self.rx:
            return b""
        if n < 0:
            n = len(self.rx)
        data = bytes(self.rx[:n])
        self.rx = self.rx[n:]
        return data

    def write(self, data):
        self.tx.extend(data)
        return len(data)


class HalSys:
    def __init__(self, link):
        self.stdin = link
        self.stdout = link
        self.implementation = _Impl()


class _Impl:
    name = "micropython"
    _machine = "Raspberry Pi Pico with RP2040 (twin)"


class _Poll:
    def __init__(self, link):
        self.link = link
        self.events = 0

    def register(self, obj, events=1):
        self.events = events

    def poll(self, timeout=0):
        if self.events & 1:
            return [(self.link, 1)] if self.link.rx else []
        return [(self.link, 4)]


class HalSelect:
    POLLIN = 1
    POLLOUT = 4

    def __init__(self, link):
        self.link = link

    def poll(self):
        return _Poll(self.link)


class HalOs:
    """``os`` for board.py, with the Pico's flash filesystem in memory (``files``: the dealer's
    saved state, firmware/steps.py, survives the twin's reboots; ``open`` is handed to board.py
    as its builtin)."""

    def __init__(self, rng):
        self.rng = rng
        self.files = {}

    def urandom(self, n):
        return bytes([self.rng.next32() & 0xFF for _ in range(n)])

    def rename(self, old, new):
        if old not in self.files:
            raise OSError(2, "no such file")
        self.files[new] = self.files.pop(old)

    def open(self, path, mode="r"):
        if "w" in mode:
            return _FlashFile(self.files, path)
        if path not in self.files:
            raise OSError(2, "no such file")
        return io.BytesIO(self.files[path])


class _FlashFile:
    """A file being written to the twin's flash: it is there, whole, once closed. (A plain
    class: MicroPython's io.BytesIO, subclassed, has no ``closed`` and its ``with`` never
    calls an overridden close: on the VM nothing was ever saved.)"""

    def __init__(self, files, path):
        self._files = files
        self._path = path
        self._parts = []
        self._open = True

    def write(self, data):
        self._parts.append(bytes(data))
        return len(data)

    def close(self):
        if self._open:
            self._open = False
            self._files[self._path] = b"".join(self._parts)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _tmc_crc(data):
    crc = 0
    for byte in data:
        for _ in range(8):
            if ((crc >> 7) ^ (byte & 1)) & 1:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
            byte >>= 1
    return crc


class HalMachine:
    """``machine`` for board.py: pins, ADC, I2C (TCA9555, PCA9685), UART (reader, TMC2209s),
    WDT, mem32, reset. One per twin, so several dealers run side by side."""

    PWRON_RESET = 1
    WDT_RESET = 3

    def __init__(self, mech):
        hal = self
        self.mech = mech
        self.cause = 1
        self.words = {}
        self.outputs = {}
        self.wdt_feeds = 0
        self.resets = 0
        self.tmc_regs = {}
        self.tmc_ifcnt = {}
        self.dma_busy = {}

        class Pin:
            IN, OUT, OPEN_DRAIN, PULL_UP, PULL_DOWN = 0, 1, 2, 1, 2
            IRQ_FALLING, IRQ_RISING = 4, 8

            def __init__(self, n, mode=-1, pull=-1, value=None):
                self.n = n
                self.mode = mode
                if value is not None:
                    hal._out(n, value)

            def value(self, v=None):
                if v is None:
                    if self.mode in (Pin.OUT, Pin.OPEN_DRAIN):
                        return hal.outputs.get(self.n, 0)
                    return hal.mech.pin(self.n)
                hal._out(self.n, 1 if v else 0)
                return None

            def toggle(self):
                hal._out(self.n, 1 - hal.outputs.get(self.n, 0))

            def irq(self, handler=None, trigger=0, hard=False):
                hal.mech.irq = (self, handler)

        class ADC:
            def __init__(self, pin):
                self.pin = pin

            def read_u16(self):
                return hal.mech.adc(self.pin)

        class I2C:
            def __init__(self, n, sda=None, scl=None, freq=400000):
                self.regs = {}

            def writeto_mem(self, addr, mem, data):
                if addr == 0x40 and mem >= 0x06:
                    for i in range(len(data)):
                        self.regs[mem + i] = data[i]
                    ch = (mem - 0x06) // 4
                    base = 0x06 + 4 * ch
                    off = self.regs.get(base + 2, 0) | (self.regs.get(base + 3, 0) << 8)
                    us = off * 20000 // 4096
                    hal.mech.flap(ch, us >= 1250)
                elif addr == SPLIT_ADDR and hal.mech.sorting:
                    for i in range(len(data)):
                        self.regs[(addr, mem + i)] = data[i]
                    if mem == 0x06:  # channel 0: the splitter's servo
                        off = self.regs.get((addr, 0x08), 0) | (self.regs.get((addr, 0x09), 0) << 8)
                        us = off * 20000 / 4096  # (the pulse as the PCA9685 makes it: not whole us)
                        us = max(SPLIT_US_END, us)  # (the rod stops at the stroke's end)
                        hal.mech.splitter.command((us - SPLIT_US0) / SPLIT_US_PER_CARD, hal.mech.now)
                elif addr == SCALE_ADDR and hal.mech.weighs:
                    for i in range(len(data)):
                        self.regs[(addr, mem + i)] = data[i]
                elif addr not in (0x20, 0x40):
                    raise OSError(19)

            def readfrom_mem_into(self, addr, mem, buf):
                data = self.readfrom_mem(addr, mem, len(buf))
                for i in range(len(buf)):
                    buf[i] = data[i]

            def readfrom_mem(self, addr, mem, n):
                if addr == SCALE_ADDR and hal.mech.weighs:
                    if mem == 0x00:  # PU_CTRL: ready once powered up (PUR), a conversion ready (CR) once cycling
                        pu = self.regs.get((addr, 0), 0)
                        pu |= (0x08 if pu & 0x02 else 0) | (0x20 if pu & 0x10 else 0)
                        return bytes((pu,) + (0,) * (n - 1))
                    if mem == 0x12:  # ADCO: the latest conversion, 24 bits
                        raw = hal.mech.scale_raw() & 0xFFFFFF
                        return bytes(((raw >> 16) & 0xFF, (raw >> 8) & 0xFF, raw & 0xFF) + (0,) * (n - 3))
                    return bytes(n)
                if addr != 0x20:
                    raise OSError(19)
                bits = hal.mech.mouth_bits()
                hal.mech.tca_seen = bits
                return bytes((bits & 0xFF, (bits >> 8) | 0x80))

        class UART:
            def __init__(self, n, baudrate=9600, tx=None, rx=None, timeout=0):
                self.n = n
                self.incoming = b""

            def write(self, data):
                if self.n == 1:
                    self.incoming += hal._tmc(bytes(data))
                else:
                    hal.mech.reader_probe()
                return len(data)

            def any(self):
                if self.n == 0:
                    return len(hal.mech.reader_poll())
                return len(self.incoming)

            def read(self, n=-1):
                if self.n == 0:
                    data = hal.mech.reader_poll()
                    hal.mech.reader_out = b""
                    return data or None
                data = self.incoming
                self.incoming = b""
                return data

        class WDT:
            def __init__(self, id=0, timeout=5000):
                self.timeout = timeout

            def feed(self):
                hal.wdt_feeds += 1

        class Mem32:
            def __getitem__(self, addr):
                if addr == PIO_FDEBUG:
                    stalled = 0
                    for sm in (SM_F, SM_T, SM_R):
                        if not hal.mech.axis_moving(sm):
                            stalled |= 1 << (24 + sm)
                    return stalled
                return hal.words.get(addr, 0)

            def __setitem__(self, addr, value):
                if addr != PIO_FDEBUG:
                    hal.words[addr] = value & 0xFFFFFFFF

        self.Pin = Pin
        self.ADC = ADC
        self.I2C = I2C
        self.UART = UART
        self.WDT = WDT
        self.mem32 = Mem32()

    def _out(self, n, v):
        old = self.outputs.get(n)
        self.outputs[n] = v
        m = self.mech
        if n == PIN_EN:
            m.drivers_on = v == 0
            if v:
                m.axis_stop(SM_F)
                m.axis_stop(SM_R)
        elif n == PIN_READER_TRIG and v == 0 and old != 0:
            m.reader_trigger()

    def _tmc(self, data):
        out = bytes(data)
        if len(data) == 8 and data[0] == 0x05 and data[2] & 0x80 and _tmc_crc(data[:7]) == data[7]:
            node = data[1]
            self.tmc_regs[(node, data[2] & 0x7F)] = (data[3] << 24) | (data[4] << 16) | (data[5] << 8) | data[6]
            self.tmc_ifcnt[node] = (self.tmc_ifcnt.get(node, 0) + 1) & 0xFF
        elif len(data) == 4 and data[0] == 0x05 and _tmc_crc(data[:3]) == data[3] and data[1] <= 2:
            node, reg = data[1], data[2]
            value = self.tmc_ifcnt.get(node, 0) if reg == 0x02 else self.tmc_regs.get((node, reg), 0)
            reply = bytearray((0x05, 0xFF, reg, (value >> 24) & 0xFF, (value >> 16) & 0xFF,
                               (value >> 8) & 0xFF, value & 0xFF))
            reply.append(_tmc_crc(reply))
            out += bytes(reply)
        return out

    def reset_cause(self):
        return self.cause

    def reset(self):
        self.cause = self.WDT_RESET
        self.resets += 1


class HalRp2:
    """``rp2`` for board.py: the PIO program is only a name; a DMA transfer to a state
    machine's TX FIFO starts that axis on the exact segment list it carries."""

    class PIO:
        OUT_LOW = 0
        OUT_HIGH = 1

    def __init__(self, mech, machine):
        hal = self
        self.mech = mech

        def asm_pio(**kw):
            def dec(f):
                return ("pio", f)
            return dec

        class StateMachine:
            def __init__(self, sm_id, program, freq=0, set_base=None, **kw):
                self.id = sm_id

            def active(self, on=None):
                if on is None:
                    return hal.mech.axis_moving(self.id)
                if not on:
                    hal.mech.axis_stop(self.id)
                return None

            def restart(self):
                pass

            def tx_fifo(self):
                return 0

        class DMA:
            def __init__(self):
                self.sm = -1

            def pack_ctrl(self, **kw):
                return kw

            def config(self, read=None, write=None, count=0, ctrl=None, trigger=False):
                sm = ctrl.get("treq_sel", -1)
                self.sm = sm
                segs = []
                for i in range(0, count, 2):
                    segs.append((read[i] + 1, read[i + 1]))
                dir_pin = (PIN_F_DIR, PIN_T_DIR, PIN_R_DIR)[sm]
                forward = machine.outputs.get(dir_pin, 1) == 1
                hal.mech.axis_start(sm, segs, forward)

            def active(self, on=None):
                if on is None:
                    return self.sm >= 0 and hal.mech.axis_moving(self.sm) and self.sm != SM_T
                return None

        self.asm_pio = asm_pio
        self.StateMachine = StateMachine
        self.DMA = DMA


class Twin:
    """A dealer: the mechanism, its rp2 modules, firmware/board.py on them and main.Firmware.

    ``board_module`` is firmware/board.py loaded so that its ``machine``, ``rp2``, ``time``,
    ``sys``, ``select`` and ``os`` are this twin's (``load_board``); ``fw_main`` is
    firmware/main.py. ``step(ms)`` runs one loop pass after ``ms`` of mechanism time.
    """

    def __init__(self, values, board_loader, fw_main, seed=0, seats=4, start_us=0, cfg_overrides=None,
                 on_boot=None):
        self.mech = Mechanism(values, seed, start_us, seats)
        self.on_boot = on_boot
        self.boots = 0
        self.link = _Link()
        self.machine = HalMachine(self.mech)
        self.rp2 = HalRp2(self.mech, self.machine)
        self.time = HalTime(self.mech)
        self.sys = HalSys(self.link)
        self.select = HalSelect(self.link)
        self.os = HalOs(self.mech.rng)
        self.board_module = board_loader(self)
        self.fw_main = fw_main
        self.seats = seats
        self.cfg_overrides = cfg_overrides or {}
        self.boot()

    def boot(self):
        bm = self.board_module
        self.board = bm.Board()
        cfg = self.board.cfg
        cfg.SEAT_COUNT = self.seats
        cfg.READER_KIND = 1
        for k in self.cfg_overrides:
            setattr(cfg, k, self.cfg_overrides[k])
        if self.on_boot is not None:
            self.on_boot(self.board)
        self.fw = self.fw_main.Firmware(self.board, cfg)
        self.boots += 1

    def power_cycle(self):
        """Power off and on: every motor stops where it is (the cards stay put), the servos
        hold, the watchdog's scratch register is cleared, the firmware boots again."""
        m = self.mech
        for sm in (SM_F, SM_T, SM_R):
            m.axis_stop(sm)
        m.drivers_on = False
        self.machine.words = {}
        self.machine.cause = self.machine.PWRON_RESET
        self.link.rx = bytearray()
        self.boot()

    def step(self, ms=1):
        self.mech.advance(self.mech.now + ms * 1000)
        fed = self.fw.step()
        if self.machine.resets:
            self.machine.resets = 0
            self.boot()
        return fed
