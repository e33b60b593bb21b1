"""The Pico's hardware: the ONLY firmware module that imports ``machine``.

Pin numbers follow hardware/WIRING.md (keep the two in step). Everything the rest of the
firmware needs from the hardware is one of the small non-blocking methods below; the dealer
simulator (device/dealer_sim.py, class SimBoard) implements the same methods on a simulated
mechanism, which is how the PC runs the real firmware logic.

Designed, not built: nothing here has run on a Pico with the mechanism attached. The fake
``machine`` in tests/firmware/test_fw_board.py checks the logic only.

The Pico's 26 GPIOs are all taken, so the slow signals (stepper enable, the turntable's stall
flag, the two extra racks' direction and home sensors, the shutter-closed switch, the tray-full
sensors) go through an MCP23017 on the Pico's own I2C bus, and the five micro servos (presenter
shutter, four card pushers) through a PCA9685 on the same bus (hardware/WIRING.md §1).

Two clocks: ``ticks_ms()`` times the mechanism's stages and ``link_ticks_ms()`` times the
host link (dead-man, keep-alives, loop budget). On the Pico both are ``time.ticks_ms()``; the
simulator runs the mechanism on a fast simulated clock while the host lives in real time.
Tick arithmetic: the Pico's ticks wrap after 2**30 ms (12 days); the firmware subtracts
ticks only over short spans and the board masks them, which is enough for a table session.

Faults the board finds itself (``fault()``, polled by firmware/mechanics.py):
FAULT 1 (detail = axis: 0 turntable, 1 magazine, 2 discard, 3 staging) when homing ran more
steps than the axis can travel without its home sensor closing; FAULT 2 when the reader did
not answer a serial query within config.READER_PROBE_MS (probed at boot and at SELFTEST);
FAULT 4 detail 0x20/0x40 when the I/O expander / servo driver does not answer on I2C.
"""

import os
import sys
import time

import machine

from firmware import config

# ---- Pico pins (hardware/WIRING.md §1) -----------------------------------------------------
PIN_READER_TX, PIN_READER_RX = 0, 1
PIN_READER_TRIG = 2
PIN_STBY = 3
PIN_TMC_TX, PIN_TMC_RX = 4, 5
PIN_DISCARD_STEP = 6  # PWM slice 3 A
PIN_STAGING_STEP = 7  # PWM slice 3 B: shares the slice with GP6, so only one rack moves at once
PIN_FEED_PWM = 8  # TB6612 AIN1/AIN2 are wired high/low: the feed roller only runs forward
PIN_EJECT_B1, PIN_EJECT_B2, PIN_EJECT_PWM = 9, 10, 11
PIN_TT_STEP, PIN_TT_DIR = 12, 13
PIN_SDA, PIN_SCL = 14, 15  # I2C1: MCP23017 0x20, PCA9685 0x40
PIN_MAG_STEP, PIN_MAG_DIR = 16, 17
PIN_TT_HOME = 18
PIN_MAG_HOME = 19
PIN_HOPPER = 20
PIN_GATE = 21
PIN_EXIT = 22
PIN_ESTOP = 26
PIN_COVER = 27
PIN_VSENSE = 28
PIN_LED = 25

# ---- MCP23017 on the Pico's I2C (address 0x20) --------------------------------------------
MCP_ADDR = 0x20
MCP_IODIRA, MCP_IODIRB, MCP_GPPUB, MCP_GPIOB, MCP_OLATA = 0x00, 0x01, 0x0D, 0x13, 0x14
XA_STEPPER_EN = 0  # GPA0: all four TMC2209 EN, active low, 10 kOhm pull-up (off while booting)
XA_DISCARD_DIR = 1  # GPA1
XA_STAGING_DIR = 2  # GPA2
XB_TT_DIAG = 0  # GPB0: turntable StallGuard flag, high = stalled (no pull-up)
XB_DISCARD_HOME = 1  # GPB1: low at slot 0
XB_STAGING_HOME = 2  # GPB2: low at slot 0
XB_SHUTTER_CLOSED = 3  # GPB3: low = presenter shutter closed
XB_FULL_REJECT = 4  # GPB4..6: TCRT5000 DO, low = the stack reached the sensor
XB_FULL_CENTRE = 5
XB_FULL_TRICK = 6
MCP_IODIRB_VALUE = 0x7F  # B0..B6 inputs; GPB7 is output-only on current MCP23017 silicon
MCP_GPPUB_VALUE = 0x7E  # pull-ups on B1..B6, not on the driven DIAG line
MCP_OLATA_SAFE = 1 << XA_STEPPER_EN  # drivers disabled

# ---- PCA9685 servo driver (address 0x40), 50 Hz -------------------------------------------
PCA_ADDR = 0x40
PCA_MODE1, PCA_PRESCALE, PCA_LED0 = 0x00, 0xFE, 0x06
PCA_PRESCALE_50HZ = 121  # round(25 MHz / (4096 * 50 Hz)) - 1
SERVO_SHUTTER = 0
SERVO_PUSHER = {0x85: 1, 0x81: 2, 0x86: 3, 0x83: 4}  # store -> channel
SHUTTER_CLOSED_US, SHUTTER_OPEN_US = 1000, 2000  # calibrate on the build
PUSHER_HOME_US, PUSHER_OUT_US = 1000, 1900
SERVO_MS = 300  # a micro servo's 60..90 degree swing, with margin

# ---- motion ------------------------------------------------------------------------------
# The TMC2209's MS1/MS2 pins set its UART address, and with it its default microstepping
# (MS2 MS1 = 00: 1/8, 01: 1/32, 10: 1/64, 11: 1/16). The firmware does not (yet) rewrite the
# microstep register over UART, so each axis counts in its own driver's default.
TT_MICRO = 8  # address 0
TT_REDUCTION = 4  # GT2 20T motor pulley -> 80T turntable pulley
STEPS_PER_TURN = 200 * TT_MICRO * TT_REDUCTION  # 6400 microsteps per turntable revolution
STEP_HZ = 4000
HOME_HZ = 2000  # slower while looking for the home opto
TT_HOME_MAX = STEPS_PER_TURN  # the turntable spans 0..340 degrees: a full turn without home is a fault

RACK_FULLSTEPS_PER_SLOT = 40  # T8 lead screw, 8 mm per turn; shelves 1.6 mm apart = 0.2 turn
RACK_SLOTS = 52
RACK_FULLSTEP_HZ = 1250  # 6.25 turns/s: 51 slots of travel in 1.6 s
RACK_MICRO = {0x85: 32, 0x81: 64, 0x86: 16}  # addresses 1, 2, 3
RACK_HOME_MAX_FULLSTEPS = RACK_FULLSTEPS_PER_SLOT * RACK_SLOTS + 40  # whole travel plus one slot

MOTOR_DUTY = 45000  # of 65535
JAM_EXIT_MS = 600  # a card blocking the exit opto longer than this is a jam

# Reader probe: the GM65/GM861 serial-command "read one byte of setting zone 0x0000", with the
# documented 0xAB 0xCD in place of a CRC. Any answer at all counts: the probe asks only "is a
# reader there and talking", not what it says.
READER_PROBE = b"\x7e\x00\x07\x01\x00\x00\x01\xab\xcd"

# RESET command reboot marker. On rp2, machine.reset() IS a watchdog reboot (pico-sdk
# watchdog_reboot(0, SRAM_END, 0)) and the port has no SOFT_RESET: reset_cause() alone reads
# WDT_RESET for both a hang and a commanded reset. The watchdog's SCRATCH0 register tells them
# apart: it keeps its value through a watchdog reboot and is cleared by a power-on, the SDK
# reboot leaves scratch 0..3 alone (the bootrom uses 4..7), and writing it costs no flash wear
# (a flag file would be a flash write per RESET and could outlive a power cut). Offset 0x0C of
# the watchdog block: 0x40058000 on the RP2040, 0x400D8000 on the RP2350.
WATCHDOG_SCRATCH0 = {"RP2040": 0x4005800C, "RP2350": 0x400D800C}
RESET_MAGIC = 0x52534554  # "RSET", below 2**31 so mem32 reads it back as the same int


def scratch_address():
    """SCRATCH0 of the chip MicroPython runs on (sys.implementation._machine names it)."""
    name = getattr(sys.implementation, "_machine", "")
    return WATCHDOG_SCRATCH0["RP2350"] if "RP2350" in name else WATCHDOG_SCRATCH0["RP2040"]


RANKS = "23456789TJQKA"
SUITS = "SHDC"


def _card_from_text(text):
    """The card printed in a code ('QS', '10D', 'td'), or 0xFF if the text is no card."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        return 0xFF
    return SUITS.index(t[1]) * 13 + RANKS.index(t[0])


class _Expander:
    """The MCP23017: port A outputs (cached latch), port B inputs read as one byte.

    If the chip does not answer, ``ok`` is False, outputs are dropped (the EN pull-up keeps the
    steppers off) and inputs read as all ones (nothing at home, no tray full, shutter not
    closed), so nothing moves; Board.fault() reports it.
    """

    def __init__(self, i2c):
        self.i2c = i2c
        self.olat = MCP_OLATA_SAFE
        self.ok = True
        try:
            i2c.writeto_mem(MCP_ADDR, MCP_OLATA, bytes((self.olat,)))  # latch before direction
            i2c.writeto_mem(MCP_ADDR, MCP_IODIRA, b"\x00")
            i2c.writeto_mem(MCP_ADDR, MCP_IODIRB, bytes((MCP_IODIRB_VALUE,)))
            i2c.writeto_mem(MCP_ADDR, MCP_GPPUB, bytes((MCP_GPPUB_VALUE,)))
        except OSError:
            self.ok = False

    def set_a(self, bit, v):
        new = (self.olat | (1 << bit)) if v else (self.olat & ~(1 << bit))
        if new == self.olat or not self.ok:
            self.olat = new
            return
        self.olat = new
        try:
            self.i2c.writeto_mem(MCP_ADDR, MCP_OLATA, bytes((new,)))
        except OSError:
            self.ok = False

    def read_b(self):
        if not self.ok:
            return 0xFF
        try:
            return self.i2c.readfrom_mem(MCP_ADDR, MCP_GPIOB, 1)[0]
        except OSError:
            self.ok = False
            return 0xFF


class _XPin:
    """One expander bit with machine.Pin's value() interface, so _Axis takes either."""

    def __init__(self, exp, port, bit):
        self.exp = exp
        self.port = port
        self.bit = bit

    def value(self, v=None):
        if v is None:
            if self.port == "A":
                return (self.exp.olat >> self.bit) & 1  # an output reads back its latch
            return (self.exp.read_b() >> self.bit) & 1
        self.exp.set_a(self.bit, v)
        return None


class _Servos:
    """The PCA9685: one 50 Hz pulse width per channel; ok False if it does not answer."""

    def __init__(self, i2c):
        self.i2c = i2c
        self.ok = True
        try:
            i2c.writeto_mem(PCA_ADDR, PCA_MODE1, b"\x10")  # sleep: the prescaler can be set
            i2c.writeto_mem(PCA_ADDR, PCA_PRESCALE, bytes((PCA_PRESCALE_50HZ,)))
            i2c.writeto_mem(PCA_ADDR, PCA_MODE1, b"\x20")  # wake, register auto-increment
            time.sleep_us(500)
            i2c.writeto_mem(PCA_ADDR, PCA_MODE1, b"\xa0")  # restart the PWM channels
        except OSError:
            self.ok = False

    def pulse(self, channel, us):
        """Pulse width in microseconds (0: no pulses, the servo goes limp)."""
        if not self.ok:
            return
        if us <= 0:
            data = b"\x00\x00\x00\x10"  # full off
        else:
            off = us * 4096 // 20000
            data = bytes((0, 0, off & 0xFF, off >> 8))
        try:
            self.i2c.writeto_mem(PCA_ADDR, PCA_LED0 + 4 * channel, data)
        except OSError:
            self.ok = False


class _Axis:
    """A stepper driven by a PWM step train: moving for steps/hz seconds, then stopped.

    Its position is only known after homing (moving slowly until the home sensor closes), so
    the first move after boot, and after any stop() (an e-stop cuts the motor power, a jam may
    have slipped it), homes first. Homing that runs more than ``home_max`` steps without the
    sensor closing stops the axis and sets ``failed``: Board.fault() reports it as FAULT 1.
    """

    def __init__(self, ident, pwm, dir_pin, home_pin, hz, home_hz, home_max):
        self.ident = ident
        self.pwm = pwm
        self.pwm.duty_u16(0)
        self.dir = dir_pin
        self.home = home_pin
        self.hz = hz
        self.home_hz = home_hz
        self.home_max = home_max
        self.position = 0
        self.target = 0
        self.until = 0
        self.home_start = 0
        self.running = False
        self.homed = False
        self.homing = False
        self.failed = False

    def move_to(self, steps):
        self.target = steps
        self.failed = False
        if not self.homed:
            self.homing = True
            self.running = True
            self.home_start = time.ticks_ms()
            self.dir.value(0)
            self.pwm.freq(self.home_hz)
            self.pwm.duty_u16(32768)
            return
        delta = steps - self.position
        if delta == 0:
            self.running = False
            return
        self.dir.value(1 if delta > 0 else 0)
        self.pwm.freq(self.hz)
        self.pwm.duty_u16(32768)
        self.until = time.ticks_add(time.ticks_ms(), abs(delta) * 1000 // self.hz)
        self.position = steps
        self.running = True

    def done(self):
        if self.homing:
            if self.home.value() != 0:
                spent = time.ticks_diff(time.ticks_ms(), self.home_start) * self.home_hz // 1000
                if spent > self.home_max:
                    self.stop()
                    self.failed = True
                return False
            self.pwm.duty_u16(0)
            self.homing = False
            self.homed = True
            self.position = 0
            self.move_to(self.target)
        if self.running and time.ticks_diff(time.ticks_ms(), self.until) >= 0:
            self.pwm.duty_u16(0)
            self.running = False
        return not self.running

    def stop(self):
        self.pwm.duty_u16(0)
        self.running = False
        self.homing = False
        self.homed = False


class Board:
    def __init__(self):
        Pin = machine.Pin
        self.stby = Pin(PIN_STBY, Pin.OUT, value=0)
        self.feed_pwm = machine.PWM(Pin(PIN_FEED_PWM))
        self.feed_pwm.freq(20000)
        self.feed_pwm.duty_u16(0)
        self.ej_b1 = Pin(PIN_EJECT_B1, Pin.OUT, value=0)
        self.ej_b2 = Pin(PIN_EJECT_B2, Pin.OUT, value=0)
        self.ej_pwm = machine.PWM(Pin(PIN_EJECT_PWM))
        self.ej_pwm.freq(20000)
        self.ej_pwm.duty_u16(0)
        self.trig = Pin(PIN_READER_TRIG, Pin.OPEN_DRAIN, value=1)
        self.i2c = machine.I2C(1, sda=Pin(PIN_SDA), scl=Pin(PIN_SCL), freq=400000)
        self.exp = _Expander(self.i2c)
        self.servos = _Servos(self.i2c)
        self.en = _XPin(self.exp, "A", XA_STEPPER_EN)
        self.turntable = _Axis(0, machine.PWM(Pin(PIN_TT_STEP)), Pin(PIN_TT_DIR, Pin.OUT, value=0),
                               Pin(PIN_TT_HOME, Pin.IN, Pin.PULL_UP), STEP_HZ, HOME_HZ, TT_HOME_MAX)
        self.racks = {}
        for store, ident, step, dir_pin, home in (
                (0x85, 1, PIN_MAG_STEP, Pin(PIN_MAG_DIR, Pin.OUT, value=0),
                 Pin(PIN_MAG_HOME, Pin.IN, Pin.PULL_UP)),
                (0x81, 2, PIN_DISCARD_STEP, _XPin(self.exp, "A", XA_DISCARD_DIR),
                 _XPin(self.exp, "B", XB_DISCARD_HOME)),
                (0x86, 3, PIN_STAGING_STEP, _XPin(self.exp, "A", XA_STAGING_DIR),
                 _XPin(self.exp, "B", XB_STAGING_HOME))):
            micro = RACK_MICRO[store]
            self.racks[store] = _Axis(ident, machine.PWM(Pin(step)), dir_pin, home,
                                      RACK_FULLSTEP_HZ * micro, RACK_FULLSTEP_HZ * micro,
                                      RACK_HOME_MAX_FULLSTEPS * micro)
        self.carousel = self.racks[0x85]  # the stock magazine (the name of earlier firmware)
        self.selected = None  # the slotted store the last slot_start() chose
        self.pending_turn = None  # a turn waiting for the shutter to close / pushers to retract
        self.pending_slot = None
        self.shutter_open = False
        self.pusher_out = None
        self.servo_quiet_at = 0  # when the last servo swing is over
        self.hopper = Pin(PIN_HOPPER, Pin.IN)
        self.gate = Pin(PIN_GATE, Pin.IN, Pin.PULL_UP)
        self.exit = Pin(PIN_EXIT, Pin.IN, Pin.PULL_UP)
        self.estop_pin = Pin(PIN_ESTOP, Pin.IN, Pin.PULL_UP)
        self.cover = Pin(PIN_COVER, Pin.IN, Pin.PULL_UP)
        self.led = Pin(PIN_LED, Pin.OUT)
        self.reader = machine.UART(0, baudrate=9600, tx=Pin(PIN_READER_TX), rx=Pin(PIN_READER_RX),
                                   timeout=0)
        self.read_buf = b""
        self.read_attempt = 0
        self.exit_since = None
        self.probe_until = None
        self.faults = []
        if not self.exp.ok:
            self.faults.append((4, MCP_ADDR))
        if not self.servos.ok:
            self.faults.append((4, PCA_ADDR))
        self._servo(SERVO_SHUTTER, SHUTTER_CLOSED_US)
        for store in SERVO_PUSHER:
            self._servo(SERVO_PUSHER[store], PUSHER_HOME_US)
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

    # ---- clocks and link ------------------------------------------------------------------

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
        self.led.toggle()
        time.sleep_ms(1)

    # ---- servos and interlocks ------------------------------------------------------------

    def _servo(self, channel, us):
        self.servos.pulse(channel, us)
        self.servo_quiet_at = time.ticks_add(time.ticks_ms(), SERVO_MS)

    def shutter_closed(self):
        """The shutter's own switch, not what the firmware last asked for."""
        return ((self.exp.read_b() >> XB_SHUTTER_CLOSED) & 1) == 0

    def _clear_to_move(self):
        """No axis moves while the shutter is open or a pusher is (still) out: a presented card
        must never be carried past another seat, and a rack must not shear a half-pushed card."""
        if self.shutter_open or self.pusher_out is not None:
            return False
        if time.ticks_diff(time.ticks_ms(), self.servo_quiet_at) < 0:
            return False
        return self.shutter_closed()

    # ---- motors ---------------------------------------------------------------------------

    def _power(self):
        self.stby.value(1)
        self.en.value(0)

    def feed(self, on):
        if on:
            self._power()
            self.feed_pwm.duty_u16(MOTOR_DUTY)
        else:
            self.feed_pwm.duty_u16(0)

    def _ejector(self, direction):
        if direction == 0:
            self.ej_pwm.duty_u16(0)
            return
        self._power()
        self.ej_b1.value(1 if direction > 0 else 0)
        self.ej_b2.value(0 if direction > 0 else 1)
        self.ej_pwm.duty_u16(MOTOR_DUTY)

    def eject(self, on):
        self._ejector(1 if on else 0)

    def pull(self, on):
        """Take the card in the selected slot back into the chute: the store's pusher pushes it
        out into the ejector's nip, the ejector runs backwards until the gate opto sees it.
        Off: ejector stops, pusher retracts (the next move waits SERVO_MS for it)."""
        channel = SERVO_PUSHER.get(self.selected)
        if on:
            if channel is not None:
                self.pusher_out = channel
                self._servo(channel, PUSHER_OUT_US)
            self._ejector(-1)
        else:
            self._ejector(0)
            if self.pusher_out is not None:
                self._servo(self.pusher_out, PUSHER_HOME_US)
                self.pusher_out = None

    def turn_start(self, angle):
        self._power()
        self.pending_turn = angle * STEPS_PER_TURN // 3600
        self.turn_done()

    def turn_done(self):
        if self.pending_turn is not None:
            if not self._clear_to_move():
                return False  # the turn stage's timeout makes a stuck shutter a JAM
            self.turntable.move_to(self.pending_turn)
            self.pending_turn = None
        return self.turntable.done()

    def slot_start(self, store, slot):
        self.selected = store
        rack = self.racks.get(store)
        if rack is None:
            self.pending_slot = None  # face-up cradle: a single slot, nothing to move
            return
        for other in self.racks.values():
            if other is not rack and other.running:
                other.stop()  # GP6/GP7 share a PWM slice: one rack at a time
        self._power()
        self.pending_slot = (rack, slot * RACK_FULLSTEPS_PER_SLOT * RACK_MICRO[store])
        self.slot_done()

    def slot_done(self):
        if self.pending_slot is not None:
            if not self._clear_to_move():
                return False
            rack, steps = self.pending_slot
            rack.move_to(steps)
            self.pending_slot = None
        rack = self.racks.get(self.selected)
        return rack is None or rack.done()

    def show(self, on):
        """Open or close the presenter shutter facing the seat the turntable points at."""
        self.shutter_open = bool(on)
        self._servo(SERVO_SHUTTER, SHUTTER_OPEN_US if on else SHUTTER_CLOSED_US)

    def stop_all(self):
        self.feed_pwm.duty_u16(0)
        self.ej_pwm.duty_u16(0)
        self.turntable.stop()
        for rack in self.racks.values():
            rack.stop()
        self.pending_turn = None
        self.pending_slot = None
        self.stby.value(0)
        self.en.value(1)
        if self.shutter_open:
            self.show(False)  # the servos run from their own 5 V: privacy survives an e-stop
        if self.pusher_out is not None:
            self._servo(self.pusher_out, PUSHER_HOME_US)
            self.pusher_out = None

    # ---- sensors --------------------------------------------------------------------------

    def hopper_has_card(self):
        return self.hopper.value() == 0

    def gate_has_card(self):
        return self.gate.value() == 0

    def estop_pressed(self):
        return self.estop_pin.value() == 1

    def cover_open(self):
        return self.cover.value() == 1

    def jam_sensor(self):
        diag = (self.exp.read_b() >> XB_TT_DIAG) & 1 if self.exp.ok else 0
        blocked = self.exit.value() == 0 or diag == 1
        now = time.ticks_ms()
        if not blocked:
            self.exit_since = None
            return False
        if self.exit_since is None:
            self.exit_since = now
        return time.ticks_diff(now, self.exit_since) > JAM_EXIT_MS

    def tray_full(self, target):
        bit = {0x80: XB_FULL_REJECT, 0x82: XB_FULL_CENTRE, 0x84: XB_FULL_TRICK}.get(target)
        if bit is None:
            return False  # seats have no sensor; slotted stores are counted by the firmware
        return ((self.exp.read_b() >> bit) & 1) == 0

    # ---- reader -----------------------------------------------------------------------------

    def reader_probe(self):
        """Ask the reader a serial query; fault() reports FAULT 2 if nothing comes back."""
        if config.READER_PROBE_MS <= 0:
            return
        while self.reader.any():
            self.reader.read()
        self.reader.write(READER_PROBE)
        self.probe_until = time.ticks_add(time.ticks_ms(), config.READER_PROBE_MS)

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
        self.read_attempt += 1
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

    # ---- faults -------------------------------------------------------------------------------

    def fault(self):
        """The next fault the board found, as (code, detail), or None. Each is reported once."""
        if self.probe_until is not None:
            self._probe_answered()
            if self.probe_until is not None and time.ticks_diff(time.ticks_ms(), self.probe_until) >= 0:
                self.probe_until = None
                self.faults.append((2, 0))
        for axis in [self.turntable] + list(self.racks.values()):
            if axis.failed:
                axis.failed = False
                self.faults.append((1, axis.ident))
        if self.faults:
            return self.faults.pop(0)
        return None

    # ---- system -----------------------------------------------------------------------------

    def wdt_feed(self):
        self.wdt.feed()

    def boot_id(self):
        return int.from_bytes(os.urandom(2), "big")

    def reset_cause(self):
        """BOOT reason: 3 RESET command, 2 watchdog (a hang), 1 power-on."""
        if self.reset_by_command:
            return 3
        if self.cause == machine.WDT_RESET:
            return 2
        return 1

    def reboot(self):
        """The RESET command: mark SCRATCH0 so the next boot reports reason 3, then reboot."""
        machine.mem32[self.scratch] = RESET_MAGIC
        machine.reset()
