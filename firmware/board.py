"""The Pico's hardware: the ONLY firmware module that imports ``machine``.

Pin numbers follow hardware/WIRING.md (keep the two in step). Everything the rest of the
firmware needs from the hardware is one of the small non-blocking methods below; the dealer
simulator (device/dealer_sim.py, class SimBoard) implements the same methods on a simulated
mechanism, which is how the PC runs the real firmware logic.

Two clocks: ``ticks_ms()`` times the mechanism's stages and ``link_ticks_ms()`` times the
host link (dead-man, keep-alives, loop budget). On the Pico both are ``time.ticks_ms()``; the
simulator runs the mechanism on a fast simulated clock while the host lives in real time.
Tick arithmetic: the Pico's ticks wrap after 2**30 ms (12 days); the firmware subtracts
ticks only over short spans and the board masks them, which is enough for a table session.
"""

import os
import sys
import time

import machine

PIN_READER_TRIG = 2
PIN_STBY = 3
PIN_FEED_A1, PIN_FEED_A2, PIN_FEED_PWM = 6, 7, 8
PIN_EJECT_B1, PIN_EJECT_B2, PIN_EJECT_PWM = 9, 10, 11
PIN_TT_STEP, PIN_TT_DIR = 12, 13
PIN_STEPPER_EN = 14
PIN_TT_DIAG = 15
PIN_CAR_STEP, PIN_CAR_DIR = 16, 17
PIN_TT_HOME = 18
PIN_CAR_HOME = 19
PIN_HOPPER = 20
PIN_GATE = 21
PIN_EXIT = 22
PIN_ESTOP = 26
PIN_COVER = 27
PIN_LED = 25

STEPS_PER_TURN = 200 * 16  # 1.8 degree motor, 1/16 microstepping
STEP_HZ = 4000
HOME_HZ = 2000  # slower while looking for the home opto
MOTOR_DUTY = 45000  # of 65535
JAM_EXIT_MS = 600  # a card blocking the exit opto longer than this is a jam

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


class _Axis:
    """A stepper driven by a PWM step train: moving for steps/STEP_HZ seconds, then stopped.

    Its position is only known after homing (turning slowly until the home opto closes), so
    the first move after boot, and after any stop_all() (an e-stop cuts the motor power, a jam
    may have slipped it), homes first. The mechanics' stage timeout covers the homing too: a
    home sensor that never closes becomes a JAM of the turn stage.
    """

    def __init__(self, step_pin, dir_pin, home_pin):
        self.pwm = machine.PWM(machine.Pin(step_pin))
        self.pwm.duty_u16(0)
        self.dir = machine.Pin(dir_pin, machine.Pin.OUT)
        self.home = machine.Pin(home_pin, machine.Pin.IN, machine.Pin.PULL_UP)
        self.position = 0
        self.target = 0
        self.until = 0
        self.running = False
        self.homed = False
        self.homing = False

    def move_to(self, steps):
        self.target = steps
        if not self.homed:
            self.homing = True
            self.running = True
            self.dir.value(0)
            self.pwm.freq(HOME_HZ)
            self.pwm.duty_u16(32768)
            return
        delta = steps - self.position
        if delta == 0:
            self.running = False
            return
        self.dir.value(1 if delta > 0 else 0)
        self.pwm.freq(STEP_HZ)
        self.pwm.duty_u16(32768)
        self.until = time.ticks_add(time.ticks_ms(), abs(delta) * 1000 // STEP_HZ)
        self.position = steps
        self.running = True

    def done(self):
        if self.homing:
            if self.home.value() != 0:
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
        self.en = Pin(PIN_STEPPER_EN, Pin.OUT, value=1)
        self.feed_a1 = Pin(PIN_FEED_A1, Pin.OUT, value=0)
        self.feed_a2 = Pin(PIN_FEED_A2, Pin.OUT, value=0)
        self.feed_pwm = machine.PWM(Pin(PIN_FEED_PWM))
        self.feed_pwm.freq(20000)
        self.feed_pwm.duty_u16(0)
        self.ej_b1 = Pin(PIN_EJECT_B1, Pin.OUT, value=0)
        self.ej_b2 = Pin(PIN_EJECT_B2, Pin.OUT, value=0)
        self.ej_pwm = machine.PWM(Pin(PIN_EJECT_PWM))
        self.ej_pwm.freq(20000)
        self.ej_pwm.duty_u16(0)
        self.trig = Pin(PIN_READER_TRIG, Pin.OPEN_DRAIN, value=1)
        self.turntable = _Axis(PIN_TT_STEP, PIN_TT_DIR, PIN_TT_HOME)
        self.carousel = _Axis(PIN_CAR_STEP, PIN_CAR_DIR, PIN_CAR_HOME)
        self.diag = Pin(PIN_TT_DIAG, Pin.IN)
        self.hopper = Pin(PIN_HOPPER, Pin.IN)
        self.gate = Pin(PIN_GATE, Pin.IN, Pin.PULL_UP)
        self.exit = Pin(PIN_EXIT, Pin.IN, Pin.PULL_UP)
        self.estop_pin = Pin(PIN_ESTOP, Pin.IN, Pin.PULL_UP)
        self.cover = Pin(PIN_COVER, Pin.IN, Pin.PULL_UP)
        self.led = Pin(PIN_LED, Pin.OUT)
        self.reader = machine.UART(0, baudrate=9600, tx=Pin(0), rx=Pin(1), timeout=0)
        self.read_buf = b""
        self.read_attempt = 0
        self.exit_since = None
        self.cause = machine.reset_cause()
        self.wdt = machine.WDT(timeout=2000)
        self.usb_in = sys.stdin.buffer
        self.usb_out = sys.stdout.buffer
        try:
            import select

            self.poller = select.poll()
            self.poller.register(sys.stdin, select.POLLIN)
        except ImportError:
            self.poller = None

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
        self.usb_out.write(data)

    def idle(self):
        self.led.toggle()
        time.sleep_ms(1)

    # ---- motors ---------------------------------------------------------------------------

    def _power(self):
        self.stby.value(1)
        self.en.value(0)

    def feed(self, on):
        if on:
            self._power()
            self.feed_a1.value(1)
            self.feed_a2.value(0)
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
        self._ejector(-1 if on else 0)

    def turn_start(self, angle):
        self._power()
        self.turntable.move_to(angle * STEPS_PER_TURN // 3600)

    def turn_done(self):
        return self.turntable.done()

    def slot_start(self, store, slot):
        if store == 0x85:
            self._power()
            self.carousel.move_to(slot * STEPS_PER_TURN // 52)

    def slot_done(self):
        return self.carousel.done()

    def show(self, on):
        pass  # the presenter window faces the seat the turntable points at; no shutter motor yet

    def stop_all(self):
        self.feed_pwm.duty_u16(0)
        self.ej_pwm.duty_u16(0)
        self.turntable.stop()
        self.carousel.stop()
        self.stby.value(0)
        self.en.value(1)

    # ---- sensors --------------------------------------------------------------------------

    def hopper_has_card(self):
        return self.hopper.value() == 0

    def gate_has_card(self):
        return self.gate.value() == 0

    def estop_pressed(self):
        return self.estop_pin.value() == 1

    def jam_sensor(self):
        blocked = self.exit.value() == 0 or self.diag.value() == 1
        now = time.ticks_ms()
        if not blocked:
            self.exit_since = None
            return False
        if self.exit_since is None:
            self.exit_since = now
        return time.ticks_diff(now, self.exit_since) > JAM_EXIT_MS

    def tray_full(self, target):
        return False  # no tray-full sensors on this build (hardware/WIRING.md)

    # ---- reader -----------------------------------------------------------------------------

    def read_start(self):
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
                card = _card_from_text(line.decode())
                return (card, 100 if card != 0xFF else 0)
        return None

    # ---- system -----------------------------------------------------------------------------

    def wdt_feed(self):
        self.wdt.feed()

    def boot_id(self):
        return int.from_bytes(os.urandom(2), "big")

    def reset_cause(self):
        if self.cause == machine.WDT_RESET:
            return 2
        if self.cause == machine.SOFT_RESET:
            return 3
        return 1

    def reboot(self):
        machine.reset()
