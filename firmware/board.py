"""The Pico's hardware (dealer v2): the ONLY firmware module that imports ``machine``/``rp2``.

Pins follow hardware/WIRING.md and the v2 design (a fixed reader and a straight path into a
pocket per seat and per tray, Duplimate/Dealer4+ style; keep the two in step):

    GP0/1 reader UART0, GP2 reader trigger, GP3 lid interlock, GP4/5 TMC2209 UART1,
    GP6/7 feed F step/dir, GP8/9 belt T step/dir, GP10/11 switchback R step/dir,
    GP12 TMC2209 EN (all three, active low), GP13 TCA9555 INT, GP14/15 I2C1 (TCA9555 0x20
    pocket-mouth optos, PCA9685 0x40 deflector flaps), GP16 hopper, GP17 gate G, GP18 play
    slot S, GP19 end of run E, GP20 switchback Rv, GP21 return drop D, GP22 boot escape,
    GP26 ADC0 thickness (SS49E), GP27 e-stop sense, GP28 ADC2 motor bus, GP25 LED.

Designed, not built: nothing here has run on a Pico with the mechanism. It runs against fakes
(tests/firmware/test_fw_board.py on CPython; tests/firmware/mp/fake_machine.py and rp2.py on the
MicroPython VM), which check the logic, the PIO program's cycle count and the TMC datagrams.

Motion. Each stepper has a PIO state machine running ``_stepper``: it pulls a segment (count-1,
half-period delay) and emits exactly ``count`` step pulses of ``2*delay+7`` PIO cycles, at
motion.PIO_HZ. A move is the segment list of firmware/motion.py (trapezoid ramp, exact step
count), handed to the state machine's TX FIFO by a DMA channel paced by the FIFO's DREQ, so the
pulse train never depends on the Python loop keeping up. The TMC2209s are set up over their
UART at boot (1/8 microstep from CHOPCONF.MRES, currents, StealthChop); one that does not
answer is FAULT 3 (detail = its address) and nothing moves. Stall detection is NOT claimed:
the DIAG pins are not wired and StallGuard is not configured; every card instead has a window
to reach its next sensor (a missed window is a JAM).

Sensing. The gate's blocked length is measured in feed steps (the edge's time in the known
segment schedule: motion.steps_at): longer than a card + tolerance is a double feed (the
firmware stops); the thickness sensor catches two exactly stacked cards. Every pocket has a
mouth opto on the TCA9555: a card is confirmed in its pocket when its opto saw it pass.
"""

import os
import sys
import time

import machine
import rp2

from . import config, motion, timing
from .ticks import ticks_add, ticks_diff

# ---- Pico pins -------------------------------------------------------------------------------
PIN_READER_TX, PIN_READER_RX = 0, 1
PIN_READER_TRIG = 2
PIN_LID = 3  # NO contact to GND closed by the shut lid, pull-up: high = lid open or wire cut (no motion)
PIN_TMC_TX, PIN_TMC_RX = 4, 5
PIN_F_STEP, PIN_F_DIR = 6, 7
PIN_T_STEP, PIN_T_DIR = 8, 9
PIN_R_STEP, PIN_R_DIR = 10, 11
PIN_EN = 12  # all three TMC2209 EN, active low, 10k pull-up (drivers off while booting)
PIN_TCA_INT = 13
PIN_SDA, PIN_SCL = 14, 15
PIN_HOPPER = 16  # low = cards in the hopper
PIN_GATE = 17  # low = blocked
PIN_SLOT = 18
PIN_END = 19
PIN_RV = 20
PIN_DROP = 21
PIN_ESCAPE = 22  # jumper to GND: main() is skipped at boot (firmware/main.py)
PIN_THICK = 26  # ADC0
PIN_ESTOP = 27  # 2nd NC contact to GND: high = pressed, or the wire is cut
PIN_VBUS = 28  # ADC2
PIN_LED = 25

TMC_F, TMC_T, TMC_R = 0, 1, 2  # UART node addresses (MS1/MS2)
TMC_RUN = {TMC_F: 13, TMC_T: 16, TMC_R: 13}  # IRUN of 31 (~0.8 / 1.0 A rms with 0.11 ohm)
TMC_HOLD = 6
TMC_IFCNT = 0x02

TCA_ADDR = 0x20  # TCA9555: P00..P07, P10..P16 = pocket 0..14 mouth optos, low = card
PCA_ADDR = 0x40
PCA_MODE1, PCA_PRESCALE, PCA_LED0 = 0x00, 0xFE, 0x06
PCA_PRESCALE_50HZ = 121  # round(25 MHz / (4096 * 50 Hz)) - 1
FLAP_DOWN_US, FLAP_UP_US = 1000, 1500  # set on the build
# The sorting hopper (hardware/README.md, "Sorting hopper"): a second PCA9685 at 0x41, its
# channel 0 driving the splitter's linear servo (Actuonix L12-R): the blade's depth below the
# top of the stack, in cards. Absent (no answer at 0x41): the loop is first in, first out.
SPLIT_ADDR = 0x41
SPLIT_US0, SPLIT_US_PER_CARD = 1010, 10  # pulse for depth 0, and per card of depth (set on the build)
# A card whose place is the top of the stack (depth 0) lands with the blade parked a card above
# the top card (the stroke's end, 1.00 ms), not level with it: the blade's one-card error (the
# L12's 0.1 mm repeatability, a bowed card) then still lands it on the top. Level with the top,
# one card low slid it in under the top card: on the twin, a stock's first loop card under the
# deck's last card to deal, and every later loop card counted it above itself (two-player
# Spades hand 1023: 35 cards read again in the deal, 33.1 s of fetching; parked, 19.1 s)
SPLIT_PARK = -1  # the blade's depth for a card that lands on the top
SPLIT_MAX = 99  # the blade's travel in cards below the top card (L12-R-30: 30 mm stroke, 0.3 mm
# cards, one of them above the top); a two-player Spades loop holds 51 cards, so a card may
# have to drop in 50 under the top
# The blade moves once the card before has landed: two loop cards leave the window at least
# this far apart so it reaches the next depth first. 23 mm/s (datasheet) is 13 ms a card; the
# allowance takes the speed 30 % low (19 ms a card) plus a PWM frame (20 ms) and a margin.
SPLIT_MS_PER_CARD, SPLIT_SETTLE_MS = 19, 30
# The splitter's load cell (hardware/README.md, "Sorting hopper": the counted lift): a 100 g bar
# cell in the blade's arm, read by a NAU7802 24-bit ADC at 0x2A on the same I2C bus. Before a
# loop card drops in, the cell weighs the cards the blade holds up; a count one off (the blade
# went in a card high or low) sends the blade out a card and in again, so the error never
# lands. It matters most where the stack is short: an error there grows into a run of cards
# under a card drawn before them (benchmarks/stack_tail.py). Absent (no answer at 0x2A): no
# checks, the blade's errors land as before.
SCALE_ADDR = 0x2A
NAU_PU_CTRL, NAU_CTRL1, NAU_CTRL2, NAU_ADCO, NAU_ADC, NAU_PGA_PWR = 0x00, 0x01, 0x02, 0x12, 0x15, 0x1C
# counts a held card adds at gain 128: half its weight rests on the blade (the cards' front edges
# lie on the stack), 2.6 g / 2 at about 10.7 counts a mg (1 mV/V cell, 3.3 V): set on the build
# (device/dealer/physical.toml sorter.scale_per_card)
SCALE_PER_CARD = 13900
# the deepest landing weighed: deeper, the rub of the held cards on the hopper's walls (about 2 %
# of their weight, an estimate: sorter.scale_friction) blurs one card in the count
SCALE_CHECK_MAX = 10
# times the blade goes out and in again for one landing: the room between two loop cards holds
# one (a second ran into the card's fall on the twin, and it landed with the blade out a card)
SCALE_TRIES = 1
SCALE_SETTLE_MS = 10  # the held cards at rest on the blade before they are weighed (3 conversions at 320/s)
# the room a weighing and one going out and in again take between two landings (and a margin
# for a card that rode the belt fast: it lands sooner after the one before than it left)
SCALE_GAP_MS = SCALE_TRIES * (2 * (SPLIT_SETTLE_MS + SPLIT_MS_PER_CARD) + SCALE_SETTLE_MS) + SCALE_SETTLE_MS + 20
R_MORE_MAX = 6  # pulls of a quarter of R_IN_MM after a pull ended short of Rv (then JAM 5)
POCKETS = 15
HOPPER_LIFT = 15  # PCA9685 channel of the hopper lift servo (hold_hopper)

VBUS_LIVE_U16 = 10000  # motor bus over ~3 V (100k/22k divider): still powered
BUS_DROP_MS = 200  # the relay must have dropped the bus this long after an e-stop (FAULT 5)
THICK_DOUBLE_U16 = 36000  # SS49E reading over this: the lever is lifted by two cards (calibrate)
JAM_EXIT_MS = 600  # a card blocking E this long is stuck at the end of the run

PIO0_BASE = 0x50200000
PIO_FDEBUG = PIO0_BASE + 0x008
PIO_TXF0 = PIO0_BASE + 0x010
SM_F, SM_T, SM_R = 0, 1, 2  # PIO0 state machines; their TX DREQs are 0, 1, 2

READER_PROBE = b"\x7e\x00\x07\x01\x00\x00\x01\xab\xcd"

# RESET command reboot marker: see reset_cause(). SCRATCH0 of the watchdog block.
WATCHDOG_SCRATCH0 = {"RP2040": 0x4005800C, "RP2350": 0x400D800C}
RESET_MAGIC = 0x52534554  # "RSET", below 2**31 so mem32 reads it back as the same int

RANKS = "23456789TJQKA"
SUITS = "SHDC"

NV_FILE = "/dealer_state.bin"  # the steps, the ledger and the loop model (firmware/steps.py)


def scratch_address():
    """SCRATCH0 of the chip MicroPython runs on (sys.implementation._machine names it)."""
    name = getattr(sys.implementation, "_machine", "")
    return WATCHDOG_SCRATCH0["RP2350"] if "RP2350" in name else WATCHDOG_SCRATCH0["RP2040"]


def _card_from_text(text):
    """The card printed in a code ('QS', '10D', 'td'), or 0xFF if the text is no card."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        return 0xFF
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


@rp2.asm_pio(set_init=rp2.PIO.OUT_LOW)
def _stepper():
    # per segment: count-1 and the half-period delay, from the TX FIFO (fed by DMA)
    wrap_target()  # type: ignore  # noqa: F821 - PIO assembler names, defined by rp2.asm_pio
    pull(block)  # type: ignore  # noqa: F821
    mov(x, osr)  # type: ignore  # noqa: F821
    pull(block)  # type: ignore  # noqa: F821
    mov(isr, osr)  # type: ignore  # noqa: F821
    label("step")  # type: ignore  # noqa: F821
    set(pins, 1)  # type: ignore  # noqa: F821
    mov(y, isr)  # type: ignore  # noqa: F821
    label("high")  # type: ignore  # noqa: F821
    jmp(y_dec, "high")  # type: ignore  # noqa: F821
    set(pins, 0)  # type: ignore  # noqa: F821
    mov(y, isr)  # type: ignore  # noqa: F821
    label("low")  # type: ignore  # noqa: F821
    jmp(y_dec, "low")  # type: ignore  # noqa: F821
    jmp(x_dec, "step")  # type: ignore  # noqa: F821
    wrap()  # type: ignore  # noqa: F821


class _Axis:
    """One stepper: a PIO state machine fed by a DMA channel; exact step counts."""

    def __init__(self, sm_id, step_pin, dir_pin):
        self.sm_id = sm_id
        self.step_pin = step_pin
        self.dir = machine.Pin(dir_pin, machine.Pin.OUT, value=0)
        self.sm = rp2.StateMachine(sm_id, _stepper, freq=motion.PIO_HZ,
                                   set_base=machine.Pin(step_pin))
        self.dma = rp2.DMA()
        self.buf = None
        self.segs = []
        self.started_us = 0
        self.position = 0  # steps, signed, of finished moves
        self.moving = False

    def move(self, segs, forward=True):
        """Start a move; it runs in hardware. ``segs`` from motion.segments (exact count)."""
        import array

        self.stop()
        self.dir.value(1 if forward else 0)
        self.forward = forward
        self.segs = segs
        self.buf = array.array("I", motion.words(segs))
        machine.mem32[PIO_FDEBUG] = 1 << (24 + self.sm_id)  # clear TXSTALL (write 1)
        self.sm.restart()
        self.sm.active(1)
        ctrl = self.dma.pack_ctrl(size=2, inc_read=True, inc_write=False, treq_sel=self.sm_id)
        self.started_us = time.ticks_us()
        self.dma.config(read=self.buf, write=PIO_TXF0 + 4 * self.sm_id, count=len(self.buf),
                        ctrl=ctrl, trigger=True)
        self.moving = True

    def steps_done(self, at_us=None):
        """Steps of the current move emitted by now (or at a past time from ticks_us)."""
        if not self.moving:
            return 0
        t = time.ticks_us() if at_us is None else at_us
        return motion.steps_at(self.segs, ticks_diff(t, self.started_us))

    def steps_left(self):
        """Steps of the current move not emitted yet (0 when none runs)."""
        if not self.moving:
            return 0
        total = 0
        for count, _ in self.segs:
            total += count
        return max(0, total - self.steps_done())

    def done(self):
        """True once the DMA has handed over every word and the state machine is waiting for
        more (TXSTALL), i.e. the last step pulse is out."""
        if not self.moving:
            return True
        if self.dma.active() or self.sm.tx_fifo():
            return False
        if not machine.mem32[PIO_FDEBUG] & (1 << (24 + self.sm_id)):
            return False
        total = 0
        for count, _ in self.segs:
            total += count
        self.position += total if self.forward else -total
        self.moving = False
        return True

    def stop(self):
        """Stop now; the steps the move had emitted count in ``position``."""
        if self.moving:
            done = self.steps_done()
            self.position += done if self.forward else -done
        self.dma.active(0)
        self.sm.active(0)
        machine.Pin(self.step_pin, machine.Pin.OUT, value=0)
        self.moving = False


class _Flaps:
    """The PCA9685: deflector flap k on channel k, the hopper lift on channel 15 (50 Hz pulses).

    Staggered start. A servo that gets power runs to its commanded position at its stall
    current, and the servo rail comes up all at once when the motor relay closes (the start
    button, at power-on and after every e-stop): with every channel already pulsing, all of them
    would start together (15 x ~700 mA on a 2.5 A rail). So a channel pulses only once the rail
    is up (the motor bus sense, GP28), one more channel every ``stagger_ms`` (a swing and a PWM
    frame, config.SERVO_STAGGER_MS), in channel order; when the rail drops every channel is
    switched fully off (the servo goes limp), so the next power-up is staggered again. A channel
    the firmware commands while it waits starts at once: that move is the firmware's own.
    """

    def __init__(self, i2c, rail_up, stagger_ms):
        self.i2c = i2c
        self.rail_up = rail_up  # () -> True while the servo rail is powered
        self.stagger_ms = stagger_ms
        self.ok = True
        self.up = []
        self.want = {}  # channel -> pulse width (us) it is to have
        self.live = []  # channels pulsing since the rail came up
        self.rail = False
        self.next_at = 0
        try:
            i2c.writeto_mem(PCA_ADDR, PCA_MODE1, b"\x10")  # sleep: the prescaler can be set
            i2c.writeto_mem(PCA_ADDR, PCA_PRESCALE, bytes((PCA_PRESCALE_50HZ,)))
            i2c.writeto_mem(PCA_ADDR, PCA_MODE1, b"\x20")  # wake, auto-increment
            time.sleep_us(500)
            i2c.writeto_mem(PCA_ADDR, PCA_MODE1, b"\xa0")
        except OSError:
            self.ok = False
        for k in range(POCKETS):
            self.want[k] = FLAP_DOWN_US  # each starts in its turn once the rail is up (service)

    def set(self, k, up):
        if up and k not in self.up:
            self.up.append(k)
        elif not up and k in self.up:
            self.up.remove(k)
        self.want[k] = FLAP_UP_US if up else FLAP_DOWN_US
        if k in self.live:
            self._write(k, self.want[k])
        elif self.rail_up():
            self._start(k, time.ticks_ms())

    def service(self, now):
        """Follow the servo rail: all off when it drops, one more channel on per stagger_ms."""
        if not self.rail_up():
            for k in self.live:
                self._write(k, 0)
            self.live = []
            self.rail = False
            return
        if not self.rail:
            self.rail = True
            self.next_at = now
        if ticks_diff(now, self.next_at) < 0:
            return
        for k in sorted(self.want):
            if k not in self.live:
                self._start(k, now)
                return

    def _start(self, k, now):
        self.live.append(k)
        self._write(k, self.want[k])
        self.next_at = ticks_add(now, self.stagger_ms)

    def _write(self, k, us):
        """Channel k's pulse width in us; 0 = fully off (the LEDn_OFF_H full-off bit)."""
        if not self.ok:
            return
        off = us * 4096 // 20000
        data = bytes((0, 0, 0, 0x10)) if us == 0 else bytes((0, 0, off & 0xFF, off >> 8))
        try:
            self.i2c.writeto_mem(PCA_ADDR, PCA_LED0 + 4 * k, data)
        except OSError:
            self.ok = False


class _Scale:
    """The splitter's load cell through a NAU7802 (optional: nothing answers at SCALE_ADDR, no
    weighing). Preallocated buffers: a read allocates nothing."""

    def __init__(self, i2c):
        self.i2c = i2c
        self.ok = True
        self.b1 = bytearray(1)
        self.b3 = bytearray(3)
        try:
            i2c.writeto_mem(SCALE_ADDR, NAU_PU_CTRL, b"\x01")  # register reset
            i2c.writeto_mem(SCALE_ADDR, NAU_PU_CTRL, b"\x02")  # digital power up
            time.sleep_ms(1)
            i2c.readfrom_mem_into(SCALE_ADDR, NAU_PU_CTRL, self.b1)
            if not self.b1[0] & 0x08:  # PUR: the chip never said it is up
                self.ok = False
                return
            i2c.writeto_mem(SCALE_ADDR, NAU_CTRL1, b"\x27")  # LDO 3.3 V, gain 128
            i2c.writeto_mem(SCALE_ADDR, NAU_CTRL2, b"\x70")  # 320 conversions a second
            i2c.writeto_mem(SCALE_ADDR, NAU_ADC, b"\x30")  # chopper clock off (the datasheet's setting)
            i2c.writeto_mem(SCALE_ADDR, NAU_PGA_PWR, b"\x80")  # the PGA output's capacitor
            i2c.writeto_mem(SCALE_ADDR, NAU_PU_CTRL, b"\x96")  # AVDD from the LDO, analog up, cycle start
        except OSError:
            self.ok = False

    def read(self):
        """The latest conversion (signed, 24 bits), or None if none is ready or the chip is gone."""
        try:
            self.i2c.readfrom_mem_into(SCALE_ADDR, NAU_PU_CTRL, self.b1)
            if not self.b1[0] & 0x20:  # CR: no conversion ready
                return None
            self.i2c.readfrom_mem_into(SCALE_ADDR, NAU_ADCO, self.b3)
        except OSError:
            self.ok = False
            return None
        b = self.b3
        v = (b[0] << 16) | (b[1] << 8) | b[2]
        return v - 0x1000000 if v & 0x800000 else v


class _Splitter:
    """The sorting hopper's splitter: the loop cards on their way to the stack, first in first
    out, each with the depth (cards below the top of the stack) it was given when it left for
    the loop, and the servo that holds the blade at the first one's. The depth the blade goes
    to is worked out again when it moves for a card (the card before it has landed) by
    ``depth_of`` (the dealer's loop model, counting only the cards then in the stack), when the
    dealer sets it. Preallocated rings: no allocation per card."""

    def __init__(self, i2c):
        self.i2c = i2c
        self.ok = True
        self.ring = bytearray(128)
        self.cards = bytearray(128)  # the card each depth is for
        self.head = 0
        self.count = 0
        self.last = SPLIT_PARK  # the depth given last (the blade goes there from the one before)
        self.gap = 0  # ms the last two loop cards must be apart for the blade to move between
        self.depth_of = None  # card -> its depth now (commands.Dealer.loop_depth_now)
        # the counted lift: the depth the blade was sent to (SPLIT_PARK: parked), when to weigh
        # what it holds (None: nothing to weigh), whether it is out a card on its way in again,
        # the tries for this landing, the parked blade's reading (holding nothing), and counts
        self.aim = SPLIT_PARK
        self.fresh = True
        self.weigh_at = None
        self.out = False
        self.tries = 0
        self.tare = None
        self.weighed = 0
        self.caught = 0
        self.gave_up = 0
        try:
            i2c.writeto_mem(SPLIT_ADDR, PCA_MODE1, b"\x10")
            i2c.writeto_mem(SPLIT_ADDR, PCA_PRESCALE, bytes((PCA_PRESCALE_50HZ,)))
            i2c.writeto_mem(SPLIT_ADDR, PCA_MODE1, b"\x20")
            time.sleep_us(500)
            i2c.writeto_mem(SPLIT_ADDR, PCA_MODE1, b"\xa0")
        except OSError:
            self.ok = False
        self.scale = _Scale(i2c)
        if not self.ok:
            self.scale.ok = False
        self._drive()

    def push(self, depth, card=0):
        if self.count < len(self.ring):
            depth = min(SPLIT_MAX, depth)
            k = (self.head + self.count) % len(self.ring)
            self.ring[k] = depth
            self.cards[k] = card & 0xFF
            self.count += 1
            at = depth or SPLIT_PARK  # (depth 0: parked above the top)
            self.gap = SPLIT_SETTLE_MS + SPLIT_MS_PER_CARD * abs(at - self.last)
            if self.scale.ok and 0 < depth <= SCALE_CHECK_MAX:
                self.gap += SCALE_GAP_MS  # weighed, and maybe out and in again, before it lands
            self.last = at
            if self.count == 1:
                self._drive()

    def flying(self, card):
        """``card`` is on its way to the stack behind the one the blade is set for."""
        n = len(self.cards)
        for i in range(1, self.count):
            if self.cards[(self.head + i) % n] == card:
                return True
        return False

    def on_way(self, card):
        """``card`` is on its way to the stack (the blade may be set for it already)."""
        n = len(self.cards)
        for i in range(self.count):
            if self.cards[(self.head + i) % n] == card:
                return True
        return False

    def drop(self, card):
        """A loop card given up on the way (caught on the path, never seen at the loop's
        sensors): its depth leaves the queue, so the blade is not set for it at every landing
        after (each landing took the depth of the card before it: one card off for the rest)."""
        n = len(self.cards)
        card &= 0xFF
        for i in range(self.count):
            if self.cards[(self.head + i) % n] == card:
                for j in range(i, self.count - 1):
                    a = (self.head + j) % n
                    b = (self.head + j + 1) % n
                    self.cards[a] = self.cards[b]
                    self.ring[a] = self.ring[b]
                self.count -= 1
                if i == 0:
                    self._drive()
                return True
        return False

    def forget_last(self):
        if self.count:
            self.count -= 1
            if self.count == 0:
                self._drive()

    def landed(self):
        """A loop card dropped onto the hopper: the blade goes to the next card's depth."""
        if self.count:
            self.head = (self.head + 1) % len(self.ring)
            self.count -= 1
        self.fresh = True  # (in again under the stack the card changed: weighed again)
        self._drive()

    def _drive(self):
        if not self.ok:
            return
        depth = 0
        if self.count:
            depth = self.ring[self.head]
            if self.depth_of is not None:
                depth = min(SPLIT_MAX, self.depth_of(self.cards[self.head]))
        at = depth or SPLIT_PARK
        if at != self.aim or self.fresh:
            # weigh what the blade holds once it is there: the cards over the next card's place
            # (down to SCALE_CHECK_MAX), or nothing (parked: the reading every count is from)
            self.weigh_at = None
            self.out = False
            self.tries = 0
            if self.scale.ok and (at == SPLIT_PARK or (depth <= SCALE_CHECK_MAX and self.tare is not None)):
                self.weigh_at = ticks_add(time.ticks_ms(), SPLIT_SETTLE_MS + SPLIT_MS_PER_CARD * abs(at - self.aim)
                                          + SCALE_SETTLE_MS)
            self.aim = at
            self.fresh = False
        self._pulse(at)

    def _pulse(self, at):
        # the PCA9685's nearest step (4.88 us, half a card), not the one below: floored, the
        # blade stopped up to half a card short (depth 47 at 46.9), which with the L12's
        # 0.1 mm repeatability (a third of a card) is one card off; rounded, a quarter at most
        off = ((SPLIT_US0 + SPLIT_US_PER_CARD * at) * 4096 + 10000) // 20000
        try:
            self.i2c.writeto_mem(SPLIT_ADDR, PCA_LED0, bytes((0, 0, off & 0xFF, off >> 8)))
        except OSError:
            self.ok = False

    def poll(self, falling=False):
        """The counted lift, from the firmware's polls: once the blade has had time to get to
        its depth, weigh the cards it holds; one off, it goes out a card and in again (at most
        SCALE_TRIES times for one landing), and is weighed again. Parked, the reading is the tare.
        While a card falls onto the stack (``falling``) nothing is weighed, but a blade out a card
        goes in again (out, it would take the card a card high)."""
        if self.weigh_at is None:
            return
        now = time.ticks_ms()
        if not self.out and (falling or ticks_diff(now, self.weigh_at) < 0):
            return
        if self.out:  # out a card: in again to the depth
            if not falling and ticks_diff(now, self.weigh_at) < 0:
                return
            self.out = False
            self._pulse(self.aim)
            self.weigh_at = ticks_add(now, SPLIT_SETTLE_MS + SPLIT_MS_PER_CARD + SCALE_SETTLE_MS)
            return
        raw = self.scale.read()
        if raw is None:
            if not self.scale.ok:
                self.weigh_at = None
            return
        if self.aim == SPLIT_PARK:
            self.tare = raw
            self.weigh_at = None
            return
        self.weighed += 1
        held = (raw - self.tare + SCALE_PER_CARD // 2) // SCALE_PER_CARD
        if held == self.aim or self.tries >= SCALE_TRIES:
            if held != self.aim:
                self.gave_up += 1  # tried enough: the card lands as the blade lies
            self.weigh_at = None
            return
        self.caught += 1
        self.tries += 1
        self.out = True
        self._pulse(self.aim - 1)
        self.weigh_at = ticks_add(now, SPLIT_SETTLE_MS + SPLIT_MS_PER_CARD)


class Board:
    HAS_LOOP = True  # the return loop lane (target 0x85)
    COUNTS_POCKETS = True  # tray pockets have no full sensor: the firmware counts (POCKET_CAP)

    def __init__(self):
        Pin = machine.Pin
        self.cfg = config.Settings()
        self.en = Pin(PIN_EN, Pin.OUT, value=1)
        self.trig = Pin(PIN_READER_TRIG, Pin.OPEN_DRAIN, value=1)
        self.lid = Pin(PIN_LID, Pin.IN, Pin.PULL_UP)
        self.hopper = Pin(PIN_HOPPER, Pin.IN, Pin.PULL_UP)
        self.gate = Pin(PIN_GATE, Pin.IN, Pin.PULL_UP)
        self.slot_in = Pin(PIN_SLOT, Pin.IN, Pin.PULL_UP)
        self.end = Pin(PIN_END, Pin.IN, Pin.PULL_UP)
        self.rv = Pin(PIN_RV, Pin.IN, Pin.PULL_UP)
        self.drop = Pin(PIN_DROP, Pin.IN, Pin.PULL_UP)
        self.estop_pin = Pin(PIN_ESTOP, Pin.IN, Pin.PULL_UP)
        self.tca_int = Pin(PIN_TCA_INT, Pin.IN, Pin.PULL_UP)
        self.led = Pin(PIN_LED, Pin.OUT)
        self.thick = machine.ADC(PIN_THICK)
        self.vbus = machine.ADC(PIN_VBUS)
        self.i2c = machine.I2C(1, sda=Pin(PIN_SDA), scl=Pin(PIN_SCL), freq=400000)
        self.faults = []
        self.tca_ok = True
        self.mouth = 0x7FFF  # last read of the pocket optos (1 = clear)
        self.seen = 0  # pockets whose opto went dark and has not cleared yet
        self.forgot = 0  # ... whose card in the mouth a stop forgot: not counted when it clears
        self.arrived = {}  # pocket -> cards confirmed in, not yet taken by confirmed()
        self.loop_arrived = 0
        self.loop_hits = [0, 0, 0]  # cards E, Rv, D saw arrive, not yet taken by loop_seen()
        self.loop_dark = [False, False, False]
        try:
            self.i2c.writeto_mem(TCA_ADDR, 0x06, b"\xff\xff")  # all inputs
        except OSError:
            self.tca_ok = False
            self.faults.append((4, TCA_ADDR))
        self.flaps = _Flaps(self.i2c, self.servo_rail_up, self.cfg.SERVO_STAGGER_MS)
        if not self.flaps.ok:
            self.faults.append((4, PCA_ADDR))
        self.splitter = _Splitter(self.i2c)  # optional: none on a first-in first-out hopper
        self.tmc = machine.UART(1, baudrate=115200, tx=Pin(PIN_TMC_TX), rx=Pin(PIN_TMC_RX), timeout=0)
        for addr in (TMC_F, TMC_T, TMC_R):
            if not self._tmc_setup(addr):
                self.faults.append((3, addr))
        self.drivers_ok = not any(f[0] == 3 for f in self.faults)
        self.f = _Axis(SM_F, PIN_F_STEP, PIN_F_DIR)
        self.t = _Axis(SM_T, PIN_T_STEP, PIN_T_DIR)
        self.r = _Axis(SM_R, PIN_R_STEP, PIN_R_DIR)
        self.feed_segs = timing.feed_segments(self.cfg)
        self.belt_on = False
        self.aim = -1
        self.gate_block_step = None  # F position (steps) where the gate went dark
        # F position where the window card's leading edge darkened the gate during a feed move
        # that ended (None: unknown, e.g. a card put in by hand or a move a stop cut short)
        self.lead_step = None
        # steps of a feed move a stop cut short (the card coming in lies that far short of the
        # window, the window's card that far past it): the next feed move runs only those
        self.f_rest = 0
        # ... and that cut move had brought its card's leading edge past the gate (the gate saw
        # it come in): the card lies between the gate and the window, f_rest short of it
        self.cut_lead = False
        self.finishing = False  # F runs such a move's rest (finish_cut)
        # steps of the feed move the last stop cut short, whatever it carried (0: none was cut):
        # the card it was ejecting lies that far short of where the move leaves a card on the
        # belt (Mechanics.estop: a card past the window the belt has not taken)
        self.f_cut = 0
        self.block_moving = False  # gate_block_step was noted with F moving (not a hand's card)
        self.moving_on = False  # F's move is a move_on, not a feed move
        self.picking = False  # F's feed move took a card into the throat (_feed_move)
        self.gate_len = None
        self.end_since = None
        self.loop_phase = 0  # 0 idle, 1 pulling a card into the switchback, 2 pushing it out
        # steps of a push out of the switchback a stop cut short: run when motion starts again
        # (the belt), before the phase goes on; r_more: pulls on after a pull ended short of Rv
        self.r_rest = 0
        self.r_again = False  # a pull into the switchback a stop cut short: pulled again then
        self.r_left = 0  # ... the steps that pull had left (a card already over Rv: only those)
        self.r_more = 0
        self.bus_check_at = None  # when to check that the e-stop relay dropped the motor bus
        self.reader = machine.UART(0, baudrate=9600, tx=Pin(PIN_READER_TX), rx=Pin(PIN_READER_RX),
                                   timeout=0)
        self.read_buf = b""
        self.probe_until = None
        self.gate.irq(handler=self._gate_edge, trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING)
        self.cause = machine.reset_cause()
        self.scratch = scratch_address()
        self.reset_by_command = machine.mem32[self.scratch] == RESET_MAGIC
        machine.mem32[self.scratch] = 0  # a later hang or power-on must not read as RESET
        self.wdt = machine.WDT(timeout=2000)
        self.usb_in = sys.stdin.buffer
        self.usb_out = sys.stdout.buffer
        try:
            import select

            self.poller = select.poll()
            self.poller.register(sys.stdin, select.POLLIN)
            self.out_poller = select.poll()
            self.out_poller.register(sys.stdout, select.POLLOUT)
        except ImportError:
            self.poller = None
            self.out_poller = None
        self.reader_probe()

    # ---- TMC2209 over UART --------------------------------------------------------------------

    def _tmc_read(self, addr, reg):
        """A register of driver ``addr``, or None if it did not answer (single-wire UART: the
        request comes back as an echo first, then the 8-byte reply)."""
        while self.tmc.any():
            self.tmc.read()
        self.tmc.write(motion.tmc_read_request(addr, reg))
        time.sleep_ms(3)  # at boot, before the watchdog starts: 12 bytes at 115200 take ~1 ms
        data = self.tmc.read() or b""
        reply = data[4:12]
        if len(reply) != 8 or reply[0] != 0x05 or reply[1] != 0xFF or reply[2] != reg:
            return None
        if motion.tmc_crc(reply[:7]) != reply[7]:
            return None
        return (reply[3] << 24) | (reply[4] << 16) | (reply[5] << 8) | reply[6]

    def _tmc_setup(self, addr):
        """Write the setup; True only if the driver's write counter (IFCNT) saw every write."""
        before = self._tmc_read(addr, TMC_IFCNT)
        if before is None:
            return False
        writes = motion.tmc_setup(addr, self.cfg.MICROSTEPS, TMC_RUN[addr], TMC_HOLD, 0, 0)
        for d in writes:
            self.tmc.write(d)
            time.sleep_ms(1)
        after = self._tmc_read(addr, TMC_IFCNT)
        return after is not None and (after - before) & 0xFF == len(writes)

    # ---- clocks and link ------------------------------------------------------------------------

    def ticks_ms(self):
        return time.ticks_ms()

    def link_ticks_ms(self):
        return time.ticks_ms()

    def link_read(self):
        out = bytearray()
        while self.poller is not None and self.poller.poll(0) and len(out) < 256:
            b = self.usb_in.read(1)
            if not b:
                break
            out.extend(b)
        return bytes(out)

    def link_write(self, data):
        """Write what the USB CDC buffer has room for, never waiting; returns the count.

        MicroPython's CDC write waits up to 500 ms when asked for more than the TX FIFO holds
        (shared/tinyusb/mp_usbd_cdc.c), but stdout polls writable only while the FIFO has a free
        byte: one byte per write, each after a POLLOUT poll, can therefore never wait. The
        firmware offers at most config.LINK_TX_BUDGET bytes a loop pass.
        """
        if self.out_poller is None:
            return self.usb_out.write(data) or 0
        n = 0
        mv = memoryview(data)
        while n < len(data) and self.out_poller.poll(0):
            if not self.usb_out.write(mv[n:n + 1]):
                break
            n += 1
        return n

    def idle(self):
        self.flaps.service(time.ticks_ms())
        self.led.toggle()
        time.sleep_ms(1)

    def servo_rail_up(self):
        """The motor bus (after the relay) is live, so the 5 V servo buck on it is too."""
        return self.vbus.read_u16() > VBUS_LIVE_U16

    # ---- motion ---------------------------------------------------------------------------------

    def _power(self):
        if self.drivers_ok:
            self.en.value(0)
        return self.drivers_ok

    def _feed_move(self):
        if self._power():
            self.gate_len = None
            rest = self.f_rest
            self.f_rest = 0
            self.cut_lead = False
            # does this move take a card into the throat (the play slot's, or the hopper's
            # with the stack on P)? Only then does a stop that cuts it short leave a card there
            self.picking = self.slot_in.value() == 0 or (
                self.hopper.value() == 0 and HOPPER_LIFT not in self.flaps.up)
            if self.gate.value() == 0:  # the card at the window: its blocked length so far
                if self.lead_step is not None:  # from its edge, seen by the gate on its way in
                    self.gate_block_step = self.lead_step
                elif not (rest and self.block_moving and self.gate_block_step is not None):
                    # (put in by hand: where a card at rest is, moved on by a cut move's steps)
                    self.gate_block_step = self.f.position - timing.feed_steps(self.cfg) * (
                        self.cfg.WINDOW_X_MM - self.cfg.GATE_X_MM) // self.cfg.F_MOVE_MM - (
                        timing.feed_steps(self.cfg) - rest if rest else 0)
                self.block_moving = True
            self.lead_step = None
            self.moving_on = False
            self.f.move(timing.feed_segments(self.cfg, steps=rest) if rest else self.feed_segs)
            self.belt(True)

    def feed(self, on):
        """A feed move: brings the next hopper card to the read window."""
        if on:
            self._feed_move()

    def eject(self, on):
        """A feed move: the card at the window goes onto the belt (the next one comes in)."""
        if on:
            self._feed_move()
        else:
            pass  # a feed move is never cut short except by stop_all()

    def window_lag_mm(self):
        """How far short of the read window the card the last feed move brought lies (mm): its
        leading edge reached the gate that much later than the move's steps say (the pickup
        slipped on it before F1's nip took it). 0 when not known or while F moves."""
        if self.lead_step is None or self.f.moving:
            return 0
        num, den = config.steps_per_mm(self.cfg.F_MM_PER_REV)
        travelled = (self.f.position - self.lead_step) * den // num
        return self.cfg.WINDOW_X_MM - self.cfg.GATE_X_MM - travelled

    def finish_cut(self, steps=0):
        """Run the rest of a feed move a stop cut short after its card passed the gate
        (``cut_lead``): that card comes on to the read window. The caller holds the hopper off
        the pickup roller and sees the play slot empty, so no card is taken. ``steps``: the
        rest of an eject whose card the stop left past the window (``f_cut``), where no card
        was taken (``f_rest`` 0)."""
        steps = self.f_rest or steps
        if steps and self._power():
            self.finishing = True
            self.f.move(timing.feed_segments(self.cfg, steps=steps))

    def forget_cut(self):
        """The players gathered every card, the feed path's too (DEAL_PLAN flag FRESH): no card
        lies short of the window for a cut move's rest to bring on; the next feed move is a
        whole one, from the pickup."""
        self.f_rest = 0
        self.cut_lead = False
        self.f_cut = 0
        self.lead_step = None

    def cut_done(self):
        """finish_cut's move ended: the card is in the window, nothing is left to run."""
        self.finishing = False
        self.cut_lead = False
        self.f_rest = 0

    def move_on(self, mm):
        """Move the card in the read window on by ``mm`` (F's rollers only; the caller holds the
        hopper off the pickup roller so that no card is taken)."""
        if mm > 0 and self._power():
            self.moving_on = True
            self.f.move(timing.feed_segments(self.cfg, mm))

    def eject_done(self):
        self._service()
        return self.f.done()

    def _r_move(self, mm, forward):
        cfg = self.cfg
        self._r_steps(config.mm_to_steps(mm, cfg.R_MM_PER_REV), forward)

    def _r_steps(self, steps, forward):
        cfg = self.cfg
        self.r.move(motion.segments(steps, timing._hz(cfg, cfg.R_V, cfg.R_MM_PER_REV),
                                    timing._hz(cfg, cfg.R_ACCEL, cfg.R_MM_PER_REV),
                                    timing._hz(cfg, cfg.V_START, cfg.R_MM_PER_REV)), forward=forward)

    def belt(self, on):
        if on and self.r_again and self._power():
            # motion starts again: the card a stop caught being pulled into the switchback is
            # pulled in again, as from E (it was at the nip or short of it, and rides the belt
            # there again from rest); one already over Rv is in R's nip: only the rest of its
            # pull (a whole pull took it past Rv, R pulled on after it, and the next loop card
            # met it in the switchback: found on the twin after a double feed in a stock deal)
            self.r_again = False
            self.r_more = 0
            if self.rv.value() != 0:
                self._r_move(self.cfg.R_IN_MM, True)
            elif self.r_left:
                self._r_steps(self.r_left, True)
            self.r_left = 0
        if on and self.r_rest and self._power():
            # motion starts again: the card a stop left on its way out of the switchback goes on
            self._r_steps(self.r_rest, False)
            self.r_rest = 0
        if on and not self.belt_on and self._power():
            hz = timing.belt_hz(self.cfg)
            v0 = config.mm_to_steps(self.cfg.V_START, self.cfg.T_MM_PER_REV)
            acc = config.mm_to_steps(self.cfg.T_ACCEL, self.cfg.T_MM_PER_REV)
            ramp = motion.segments(2 * motion.ramp_steps(v0, hz, acc), hz, acc, v0)
            up = ramp[:(len(ramp) + 1) // 2]
            self.t.move(up + [(0x7FFFFFFF, motion.delay_for(hz))])  # then runs until stopped
            self.belt_on = True
        elif not on and self.belt_on:
            self.t.stop()
            self.belt_on = False

    def turn_start(self, target):
        """Aim at a target: raise its pocket's flap (the loop: every flap down)."""
        k = config.pocket_of(self.cfg, target)
        self.aim = target
        if k is None:
            for j in list(self.flaps.up):
                if j != HOPPER_LIFT:
                    self.flaps.set(j, False)
        else:
            self.flaps.set(k, True)

    def turn_done(self):
        # the flap swings (config.DEFLECT_MS) during the feed move that follows, which takes
        # longer (timing.feed_ms) before the card reaches the first mouth
        return True

    def lower(self, target):
        k = config.pocket_of(self.cfg, target)
        if k is not None:
            self.flaps.set(k, False)

    def forget_arrivals(self):
        """A stop forgot every card on its way to a pocket (ABORT, RESET): what the pocket optos
        counted and have not confirmed goes, and a card in a mouth now is not counted when it
        clears it. Found through the whole table on the physical twin (estop_fetch, seed 11004):
        the e-stop came while a played card dropped into the trick pocket; the card fell in and
        its count stayed, the next card sent there was confirmed by it as it left the window,
        its flap came down under it, and it ran on round the loop: JAM at every Resume."""
        self._service()
        for k in self.arrived:
            self.arrived[k] = 0
        self.forgot = self.seen

    def confirmed(self, target):
        """True once per card the station of ``target`` saw go in (pocket opto, or the drop D
        for the loop)."""
        self._service()
        if target == self.cfg.LOOP:
            if self.loop_arrived:
                self.loop_arrived -= 1
                return True
            return False
        k = config.pocket_of(self.cfg, target)
        if k is not None and self.arrived.get(k, 0) > 0:
            self.arrived[k] -= 1
            return True
        return False

    def loop_seen(self, station):
        """True once per card the loop sensor ``station`` (0 E, 1 Rv, 2 D) saw arrive."""
        self._service()
        if self.loop_hits[station] > 0:
            self.loop_hits[station] -= 1
            return True
        return False

    def _service(self):
        """Poll the pocket optos and the loop's sensors, run the switchback; called from the
        firmware's polls."""
        for i, pin in ((0, self.end), (1, self.rv), (2, self.drop)):
            dark = pin.value() == 0
            if dark and not self.loop_dark[i]:
                self.loop_hits[i] += 1  # a card's leading edge
                if i == 2:
                    self.loop_arrived += 1  # back on the hopper
            elif i == 2 and self.loop_dark[i] and not dark:
                self.splitter.landed()  # it is in the stack: the blade sets up for the next
            self.loop_dark[i] = dark
        if self.tca_ok and (self.tca_int.value() == 0 or self.seen):
            try:
                data = self.i2c.readfrom_mem(TCA_ADDR, 0x00, 2)
                self.mouth = data[0] | ((data[1] & 0x7F) << 8)
            except OSError:
                self.tca_ok = False
                self.faults.append((4, TCA_ADDR))
        for k in range(POCKETS):
            dark = not (self.mouth >> k) & 1
            bit = 1 << k
            if dark:
                self.seen |= bit
            elif self.seen & bit:
                self.seen &= ~bit
                if self.forgot & bit:
                    self.forgot &= ~bit
                else:
                    self.arrived[k] = self.arrived.get(k, 0) + 1
        # return loop: a card reaching the switchback's inner opto is reversed out. The drivers
        # are switched on first: after a reboot the first card at E (one the reboot left in the
        # switchback) comes before any other move, and R's steps went nowhere with EN high
        # (found on the physical twin: the card stayed at E and the dealer stopped, JAM 5)
        if self.r_rest or self.r_again:
            return  # a card a stop left in the switchback: its move goes on with the belt
        if self.loop_phase == 0 and self.end.value() == 0 and self._power():
            self.loop_phase = 1
            self.r_more = 0
            self._r_move(self.cfg.R_IN_MM, True)
        elif self.loop_phase == 1 and self.r.done():
            if self.rv.value() == 0:
                self.loop_phase = 2
                self._r_move(self.cfg.R_OUT_MM, False)
            elif self.belt_on and self._power():
                # the pull ended short of Rv: a stop cut it short, or the card came to the nip
                # late (found on the physical twin after a JAM mid-deal: the card stayed short
                # of Rv and the next loop card met R at rest). R pulls on a quarter at a time;
                # after R_MORE_MAX tries the card is given up to the loop's windows (JAM 5)
                if self.r_more < R_MORE_MAX:
                    self.r_more += 1
                    self._r_move(self.cfg.R_IN_MM // 4, True)
                else:
                    self.loop_phase = 0
        elif self.loop_phase == 2 and self.r.done():
            # pushed out onto the diagonal: R is free for the next card at once (it used to
            # wait for this one's drop at D, 1.2 s later, and the next loop card, spaced by
            # the switchback's cycle only, met R at rest: found on the physical twin)
            self.loop_phase = 0

    def _gate_edge(self, pin):
        """IRQ on the gate opto: note where (in feed steps) the card's edges passed."""
        now = time.ticks_us()
        pos = self.f.position + self.f.steps_done(now)
        if pin.value() == 0:
            self.gate_block_step = pos
            self.gate_len = None
            self.lead_step = pos if self.f.moving else None
            self.block_moving = self.f.moving
        elif self.gate_block_step is not None:
            self.gate_len = pos - self.gate_block_step
            self.gate_block_step = None

    def gate_len_mm(self):
        """The blocked length at the gate (mm) of the card leaving it: so far while still
        blocked, its whole length once it cleared; None when nothing was measured."""
        num, den = config.steps_per_mm(self.cfg.F_MM_PER_REV)
        if self.gate_block_step is not None and self.f.moving:
            return (self.f.position + self.f.steps_done() - self.gate_block_step) * den // num
        if self.gate_len is not None:
            return self.gate_len * den // num
        return None

    def double_thick(self):
        return self.gate.value() == 0 and self.thick.read_u16() > THICK_DOUBLE_U16

    def show(self, on):
        pass  # no presenter in v2

    def stop_all(self):
        self.f_cut = 0
        if self.f.moving and not self.f.done() and not self.moving_on and not self.finishing:
            self.f_cut = self.f.steps_left()
        if self.finishing:
            # finish_cut's move cut short in turn: what is left of it is the rest (cut_lead stays)
            self.finishing = False
            if self.f.moving and not self.f.done():
                self.f_rest = self.f.steps_left()
            else:
                self.f_rest = 0
                self.cut_lead = False
        elif self.f.moving and not self.f.done() and not self.moving_on and self.picking:
            # a feed move cut short that took a card into the throat: the next one runs its
            # rest (that card comes to the window, not past it: found on the twin after a
            # double feed). (A move_on cut short: the card's lag is what is left of it,
            # window_lag_mm says so.) With no card taken, the next feed move is a whole one
            # (a card the person puts back in the hopper comes from the pickup)
            self.f_rest = self.f.steps_left()
            # the card this move brought in passed the gate already (its edge was seen)
            self.cut_lead = self.lead_step is not None and self.f_rest > 0
            self.lead_step = None
        self.f.stop()
        if self.loop_phase == 1 and self.r.moving:
            self.r_again = True
            self.r_left = self.r.steps_left()
        if self.loop_phase == 2 and self.r.moving and not self.r_rest:
            # a card on its way out of the switchback: the rest of the push goes on when motion
            # starts again (belt()); a card being pulled in stays in phase 1, pulled on then
            self.r_rest = self.r.steps_left()
        self.r.stop()
        self.belt(False)
        self.en.value(1)
        # a card a stop left across E (being pulled into the switchback) is not stuck there: it
        # gets JAM_EXIT_MS again once motion starts (found through the whole table on the twin:
        # after Resume the jam sensor fired at once, three times, and the table gave up)
        self.end_since = None
        if self.loop_phase == 2 and not self.r_rest:
            self.loop_phase = 0
        if self.estop_pin.value() == 1 and self.bus_check_at is None:
            self.bus_check_at = ticks_add(time.ticks_ms(), BUS_DROP_MS)

    def sorts(self):
        """A sorting hopper is fitted (its splitter answered at boot)."""
        return self.splitter.ok

    def loop_depth(self, depth, card=0):
        """The card now leaving for the loop, ``card``, drops in ``depth`` cards under the top
        as the loop model stands now (loop_depth_source gives its depth again when the blade
        moves for it)."""
        self.splitter.push(depth, card)

    def loop_depth_source(self, depth_of):
        """``depth_of(card)``: a loop card's depth when the blade moves for it, counting the
        cards then in the stack (commands.Dealer.loop_depth_now); set once at boot."""
        self.splitter.depth_of = depth_of

    def loop_flying(self, card):
        """``card`` is on its way to the stack, not in it, and not the next to land."""
        return self.splitter.flying(card)

    def loop_on_way(self, card):
        """``card`` left for the loop and has not landed on the stack yet."""
        return self.splitter.on_way(card)

    def loop_gap_ms(self):
        """How long after the loop card before it the card now leaving for the loop may go:
        the splitter's blade must get from the one's depth to the other's between landings."""
        return self.splitter.gap if self.splitter.ok else 0

    def loop_dropping(self):
        """A loop card is falling onto the stack (opto D dark): it is not in it yet. Polls the
        loop's sensors (with no card on the belt nothing else does: D's trailing edge also
        sets the splitter up for the next card)."""
        self._service()
        return self.loop_dark[2]

    def loop_falling(self):
        """The loop card falling onto the stack now (opto D dark): the first of those on their
        way (the loop keeps their order); -1 if none is falling. Asked right after
        loop_dropping(), which polled the sensors: it does not poll them again."""
        sp = self.splitter
        if not self.loop_dark[2] or not sp.count:
            return -1
        return sp.cards[sp.head]

    def loop_depth_again(self):
        """The loop model changed for cards on their way to the stack: the blade goes to the
        depth of the card it is set for, worked out again (not while a card is falling)."""
        self._service()
        if not self.loop_dark[2]:
            self.splitter._drive()

    def loop_depth_drop(self, card):
        """A loop card on its way to the stack was given up (a jam): the blade forgets it."""
        self.splitter.drop(card)

    def loop_depth_clear(self):
        """Every card on its way to the stack was gathered (a fresh deal): the blade parks."""
        sp = self.splitter
        sp.count = 0
        sp.last = SPLIT_PARK
        sp._drive()

    def loop_depth_forget(self):
        """The last card given a depth did not go round after all (a double feed)."""
        self.splitter.forget_last()

    # ---- sensors --------------------------------------------------------------------------------

    def hopper_has_card(self):
        """A card to feed: in the hopper, or dropped into the play slot S (F1 takes a slot card
        first; players feed plays and passes there one at a time)."""
        return self.hopper.value() == 0 or self.slot_in.value() == 0

    def hold_hopper(self, on):
        """Hold the hopper's pickup: the next feed moves take only a play-slot card, the stack
        stays (its bottom card, a staged one say, is still the next). PCA9685 channel 15: a
        servo (Hitec HS-311) lifting the stack off the pickup roller P (the design's "hopper
        feeding pauses while S sees a card"; in BOM.md, designed, not built)."""
        self.flaps.set(HOPPER_LIFT, on)

    def slot_has_card(self):
        """A card in the play slot (opto S): the next feed move takes it, not the hopper's."""
        return self.slot_in.value() == 0

    def gate_has_card(self):
        return self.gate.value() == 0

    def estop_pressed(self):
        """The e-stop's second contact (high: pressed or the wire cut), or the lid open."""
        return self.estop_pin.value() == 1 or self.lid.value() == 1

    def jam_sensor(self):
        """A card blocking the end-of-run opto too long: stuck at the end of the path."""
        if self.end.value() != 0:
            self.end_since = None
            return False
        now = time.ticks_ms()
        if self.end_since is None:
            self.end_since = now
        return ticks_diff(now, self.end_since) > JAM_EXIT_MS

    def tray_full(self, target):
        return False  # pockets are counted by the firmware (a full store is refused)

    # ---- reader ---------------------------------------------------------------------------------

    def reader_probe(self):
        """Ask the reader a serial query; fault() reports FAULT 2 if nothing comes back."""
        if config.READER_PROBE_MS <= 0:
            return
        while self.reader.any():
            self.reader.read()
        self.reader.write(READER_PROBE)
        self.probe_until = ticks_add(time.ticks_ms(), config.READER_PROBE_MS)

    def _probe_answered(self):
        if self.probe_until is not None and self.reader.any():
            self.probe_until = None
            while self.reader.any():
                self.reader.read()

    def read_start(self):
        self._probe_answered()
        while self.reader.any():
            self.reader.read()
        self.read_buf = b""
        self.trig.value(0)
        time.sleep_us(50)
        self.trig.value(1)

    def read_poll(self):
        if self.reader.any():
            self.read_buf += self.reader.read()
        for sep in (b"\r", b"\n"):
            if sep in self.read_buf:
                line = self.read_buf.split(sep)[0]
                self.read_buf = b""
                try:
                    card = _card_from_text(line.decode())
                except UnicodeError:
                    card = 0xFF
                return (card, 100 if card != 0xFF else 0)
        return None

    # ---- faults and system ----------------------------------------------------------------------

    def fault(self):
        """The next fault the board found, as (code, detail), or None. Each is reported once.
        Asked every pass but in an e-stop, so the board's own timed work runs here too: the
        splitter's weighing (not while a card falls onto the stack)."""
        self.splitter.poll(self.loop_dark[2])
        if self.probe_until is not None:
            self._probe_answered()
            if self.probe_until is not None and ticks_diff(time.ticks_ms(), self.probe_until) >= 0:
                self.probe_until = None
                self.faults.append((2, 0))
        if self.bus_check_at is not None and ticks_diff(time.ticks_ms(), self.bus_check_at) >= 0:
            self.bus_check_at = None
            if self.estop_pin.value() == 1 and self.vbus.read_u16() > VBUS_LIVE_U16:
                self.faults.append((5, 0))  # the relay did not drop: a welded contact
        if self.faults:
            return self.faults.pop(0)
        return None

    def wdt_feed(self):
        self.wdt.feed()

    def boot_id(self):
        return int.from_bytes(os.urandom(2), "big")

    def reset_cause(self):
        """BOOT reason: 3 RESET command, 2 watchdog (a hang), 1 power-on.

        The rp2 port has no SOFT_RESET and machine.reset() IS a watchdog reboot (pico-sdk
        watchdog_reboot(0, SRAM_END, 0)), so reset_cause() alone reads WDT_RESET for both a hang
        and a commanded reset. reboot() marks the watchdog's SCRATCH0 first: it survives a
        watchdog reboot, a power-on clears it, the SDK reboot leaves scratch 0..3 alone (the
        bootrom uses 4..7), and it costs no flash write (a flag file would).
        """
        if self.reset_by_command:
            return 3
        if self.cause == machine.WDT_RESET:
            return 2
        return 1

    def reboot(self):
        machine.mem32[self.scratch] = RESET_MAGIC
        machine.reset()

    def nv_read(self):
        """The state the firmware saved before it last stopped (commands.Dealer.save), or None."""
        try:
            with open(NV_FILE, "rb") as f:
                return f.read()
        except OSError:
            return None

    def nv_write(self, data):
        """Save ``data`` so that a power cut leaves either the old file or the new one, whole:
        written beside it, then renamed over it (littlefs renames atomically). A few hundred
        bytes a step on the Pico's flash, which littlefs wear-levels."""
        tmp = NV_FILE + ".new"
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.rename(tmp, NV_FILE)
        except OSError:
            pass  # a full or failing flash: the dealer goes on, only a reboot forgets more


def escape_jumper():
    """True when the boot-escape jumper (GP22 to GND) is fitted: main() must not run."""
    return machine.Pin(PIN_ESCAPE, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0
