"""firmware/board.py on CPython, with a fake ``machine`` (and MicroPython's ``time`` extras).

board.py is the one module that cannot run on a PC as it is; loading it against fakes still
checks its logic: the card codes the reader returns, homing before the first move and after
every stop, the safe state of stop_all(), the e-stop input, the reset causes; the presenter
shutter, the card pushers and the racks behind the I2C expander and servo driver (fakes of the
MCP23017 and PCA9685 registers); FAULT 1 (home not found) and FAULT 2 (reader silent), also as
the mechanics report them.
"""

from __future__ import annotations

import importlib.util
import io
import sys
import types
from pathlib import Path
from typing import Any

import pytest

BOARD = Path(__file__).resolve().parents[2] / "firmware" / "board.py"


class FakePin:
    OUT, IN, OPEN_DRAIN, PULL_UP = 1, 2, 3, 4
    pins: dict[int, FakePin] = {}

    def __init__(self, n: int, mode: int | None = None, pull: int | None = None, value: int | None = None) -> None:
        self.n = n
        self.v = value if value is not None else (1 if pull == self.PULL_UP else 0)
        FakePin.pins[n] = self

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            return self.v
        self.v = v
        return None

    def toggle(self) -> None:
        self.v ^= 1


class FakePWM:
    def __init__(self, pin: FakePin) -> None:
        self.pin = pin
        self.duty = 0
        self.hz = 0

    def freq(self, hz: int) -> None:
        self.hz = hz

    def duty_u16(self, d: int) -> None:
        self.duty = d


class FakeUART:
    def __init__(self, *a: Any, **k: Any) -> None:
        self.incoming = b""
        self.sent = b""

    def write(self, data: bytes) -> int:
        self.sent += data
        return len(data)

    def any(self) -> int:
        return len(self.incoming)

    def read(self) -> bytes:
        data, self.incoming = self.incoming, b""
        return data


class Clock:
    now = 0


class FakeMem32(dict[int, int]):
    """machine.mem32: any address reads 0 until written."""

    def __missing__(self, addr: int) -> int:
        return 0


class FakeChip:
    """What survives a reboot: the reset reason and the watchdog scratch registers."""

    cause = 3
    mem32 = FakeMem32()


SHUTTER_CLOSED_BIT, DIAG_BIT = 3, 0


class FakeI2C:
    """The Pico's I2C bus with an MCP23017 (0x20) and a PCA9685 (0x40) as register files.

    ``gpiob`` is what the expander's port B inputs read: by default the shutter is closed
    (its switch pulls GPB3 low), the turntable is not stalled, every other input is high.
    """

    bus: FakeI2C | None = None
    present: tuple[int, ...] = (0x20, 0x40)

    def __init__(self, *a: Any, **k: Any) -> None:
        self.regs: dict[int, dict[int, int]] = {0x20: {}, 0x40: {}}
        self.gpiob = 0xFF & ~(1 << SHUTTER_CLOSED_BIT) & ~(1 << DIAG_BIT)
        FakeI2C.bus = self

    def writeto_mem(self, addr: int, mem: int, data: bytes) -> None:
        if addr not in FakeI2C.present:
            raise OSError(19)  # ENODEV, as MicroPython raises for a missing device
        for i, b in enumerate(data):
            self.regs[addr][mem + i] = b

    def readfrom_mem(self, addr: int, mem: int, n: int) -> bytes:
        if addr not in FakeI2C.present:
            raise OSError(19)
        if addr == 0x20 and mem == 0x13:
            return bytes((self.gpiob,))
        return bytes(self.regs[addr].get(mem + i, 0) for i in range(n))

    def set_input(self, bit: int, level: int) -> None:
        self.gpiob = (self.gpiob | (1 << bit)) if level else (self.gpiob & ~(1 << bit))

    def servo_us(self, channel: int) -> int:
        r = self.regs[0x40]
        base = 0x06 + 4 * channel
        if r.get(base + 3, 0) & 0x10:
            return 0
        return ((r.get(base + 3, 0) << 8) | r.get(base + 2, 0)) * 20000 // 4096


def make_fakes() -> tuple[types.ModuleType, types.ModuleType, types.ModuleType]:
    machine = types.ModuleType("machine")
    machine.Pin = FakePin  # type: ignore[attr-defined]
    machine.PWM = FakePWM  # type: ignore[attr-defined]
    machine.UART = FakeUART  # type: ignore[attr-defined]
    machine.I2C = FakeI2C  # type: ignore[attr-defined]
    machine.WDT = lambda timeout: types.SimpleNamespace(feed=lambda: None)  # type: ignore[attr-defined]
    # as on the rp2 port: PWRON_RESET and WDT_RESET only (no SOFT_RESET), and machine.reset()
    # is a watchdog reboot: the next reset_cause() reads WDT_RESET, memory keeps SCRATCH0.
    machine.WDT_RESET, machine.PWRON_RESET = 3, 1  # type: ignore[attr-defined]
    machine.reset_cause = lambda: FakeChip.cause  # type: ignore[attr-defined]
    machine.mem32 = FakeChip.mem32  # type: ignore[attr-defined]

    def reset() -> None:
        FakeChip.cause = 3

    machine.reset = reset  # type: ignore[attr-defined]
    fake_time = types.ModuleType("time")
    fake_time.ticks_ms = lambda: Clock.now  # type: ignore[attr-defined]
    fake_time.ticks_add = lambda a, b: a + b  # type: ignore[attr-defined]
    fake_time.ticks_diff = lambda a, b: a - b  # type: ignore[attr-defined]
    fake_time.sleep_ms = lambda ms: None  # type: ignore[attr-defined]
    fake_time.sleep_us = lambda us: None  # type: ignore[attr-defined]
    fake_select = types.ModuleType("select")
    fake_select.POLLIN, fake_select.POLLOUT = 1, 4  # type: ignore[attr-defined]
    fake_select.poll = lambda: types.SimpleNamespace(register=lambda *a: None, poll=lambda t: [])  # type: ignore[attr-defined]
    return machine, fake_time, fake_select


@pytest.fixture
def board(monkeypatch: pytest.MonkeyPatch) -> Any:
    machine, fake_time, fake_select = make_fakes()
    FakePin.pins = {}
    FakeI2C.present = (0x20, 0x40)
    Clock.now = 0
    FakeChip.cause = 3
    FakeChip.mem32.clear()
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "time", fake_time)
    monkeypatch.setitem(sys.modules, "select", fake_select)
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO()))
    monkeypatch.setattr(sys, "stdout", types.SimpleNamespace(buffer=io.BytesIO()))
    spec = importlib.util.spec_from_file_location("fw_board_under_test", BOARD)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    b = mod.Board()
    b.mod = mod
    return b


def test_card_codes_from_the_reader(board: Any) -> None:
    f = board.mod._card_from_text
    assert (f("2S"), f("AS"), f("2H"), f("QD"), f("AC")) == (0, 12, 13, 36, 51)
    assert f("10d") == f("TD") == 34
    assert f("XX") == f("") == f("QSS") == 0xFF
    board.read_start()
    assert board.read_poll() is None
    board.reader.incoming = b"QD\r\n"
    assert board.read_poll() == (36, 100)
    board.read_start()
    board.reader.incoming = b"garbage\r"
    assert board.read_poll() == (0xFF, 0)


def test_first_move_homes_then_turns(board: Any) -> None:
    home = FakePin.pins[board.mod.PIN_TT_HOME]
    board.turn_start(1800)  # half a turn
    assert board.stby.value() == 1 and board.en.value() == 0  # powered (EN is on the expander)
    assert FakeI2C.bus is not None and FakeI2C.bus.regs[0x20][0x14] & 1 == 0  # OLATA bit 0 low
    assert not board.turn_done() and not board.turntable.homing  # the boot-time servo swing settles
    Clock.now = 400
    assert not board.turn_done() and board.turntable.homing  # now it looks for home
    Clock.now = 3000
    assert not board.turn_done()  # still looking for home, within one turn
    assert board.fault() == (2, 0)  # the reader probe went unanswered; homing is no fault yet
    assert board.fault() is None
    home.value(0)  # the flag reaches the opto
    assert not board.turn_done()  # homed; now the move itself runs
    Clock.now += 1000
    assert board.turn_done()
    assert board.turntable.position == 3200  # 1800 tenths of 3600 = half of 6400 steps
    board.turn_start(1800)
    assert board.turn_done()  # already there: no homing, no move


def test_stop_all_is_the_safe_state_and_forgets_the_position(board: Any) -> None:
    bus = FakeI2C.bus
    assert bus is not None
    FakePin.pins[board.mod.PIN_TT_HOME].value(0)
    Clock.now = 1000
    board.turn_start(900)
    board.turn_done()
    assert board.turntable.homed
    board.feed(True)
    board.eject(True)
    board.show(True)
    board.stop_all()
    assert board.feed_pwm.duty == 0 and board.ej_pwm.duty == 0 and board.turntable.pwm.duty == 0
    assert all(r.pwm.duty == 0 for r in board.racks.values())
    assert board.stby.value() == 0 and board.en.value() == 1
    assert bus.regs[0x20][0x14] & 1 == 1  # EN high on the expander: drivers off
    assert not board.turntable.homed  # the next move homes again
    assert bus.servo_us(board.mod.SERVO_SHUTTER) == pytest.approx(board.mod.SHUTTER_CLOSED_US, abs=10)


def test_estop_input_and_reset_cause(board: Any) -> None:
    pin = FakePin.pins[board.mod.PIN_ESTOP]
    pin.value(0)
    assert not board.estop_pressed()
    pin.value(1)  # pressed, or the wire is cut
    assert board.estop_pressed()
    assert board.reset_cause() == 2  # the fake says WDT_RESET, no RESET marker: a hang
    assert 0 <= board.boot_id() <= 0xFFFF


def test_a_reset_command_reboot_is_told_from_a_hang_and_a_power_on(board: Any) -> None:
    mod = board.mod
    assert not hasattr(sys.modules["machine"], "SOFT_RESET")  # as on the rp2 port
    board.reboot()  # RESET body 1
    assert FakeChip.mem32[mod.WATCHDOG_SCRATCH0["RP2040"]] == mod.RESET_MAGIC
    after = mod.Board()  # the watchdog reboot: cause WDT_RESET, SCRATCH0 kept
    assert after.reset_cause() == 3
    assert FakeChip.mem32[mod.WATCHDOG_SCRATCH0["RP2040"]] == 0  # cleared at boot
    assert mod.Board().reset_cause() == 2  # the next watchdog reboot (a hang) is a hang again
    FakeChip.cause = 1
    FakeChip.mem32.clear()  # a power-on clears the watchdog block
    assert mod.Board().reset_cause() == 1


# ---- the mechanisms added with the expander and the servo driver ----------------------------


def homed_turntable(board: Any, angle: int = 0) -> None:
    FakePin.pins[board.mod.PIN_TT_HOME].value(0)
    Clock.now += 1000
    board.turn_start(angle)
    Clock.now += 2000
    assert board.turn_done()


def test_expander_and_servo_driver_are_set_up_safe(board: Any) -> None:
    bus = FakeI2C.bus
    assert bus is not None
    mcp = bus.regs[0x20]
    assert mcp[0x14] == 0x01 and mcp[0x00] == 0x00  # EN latched high before port A became outputs
    assert mcp[0x01] == 0x7F and mcp[0x0D] == 0x7E  # GPB0..6 inputs, pull-ups except on DIAG
    assert bus.regs[0x40][0xFE] == 121  # 50 Hz
    for ch in (0, 1, 2, 3, 4):
        assert bus.servo_us(ch) == pytest.approx(1000, abs=10)  # shutter closed, pushers home
    assert board.fault() is None  # both chips answered (the reader probe is still within time)


def test_the_turntable_never_moves_with_the_shutter_open(board: Any) -> None:
    bus = FakeI2C.bus
    assert bus is not None
    homed_turntable(board, 0)
    board.show(True)
    bus.set_input(SHUTTER_CLOSED_BIT, 1)  # the flap has left its switch
    assert bus.servo_us(board.mod.SERVO_SHUTTER) == pytest.approx(board.mod.SHUTTER_OPEN_US, abs=10)
    board.turn_start(1800)
    Clock.now += 5000
    assert not board.turn_done() and board.turntable.position == 0  # waits: presented card stays put
    board.show(False)
    Clock.now += 1000
    assert not board.turn_done()  # commanded closed, but the switch still says open (stuck flap)
    bus.set_input(SHUTTER_CLOSED_BIT, 0)
    assert not board.turn_done()  # now it moves
    Clock.now += 1000
    assert board.turn_done() and board.turntable.position == 3200


def test_pull_pushes_the_slot_card_out_and_runs_the_ejector_backwards(board: Any) -> None:
    bus = FakeI2C.bus
    assert bus is not None
    FakePin.pins[board.mod.PIN_MAG_HOME].value(0)
    Clock.now = 1000
    board.slot_start(0x85, 10)
    Clock.now += 2000
    assert board.slot_done()
    assert board.carousel.position == 10 * 40 * 32  # 40 full steps a slot, driver address 1: 1/32
    board.pull(True)
    ch = board.mod.SERVO_PUSHER[0x85]
    assert bus.servo_us(ch) == pytest.approx(board.mod.PUSHER_OUT_US, abs=10)
    assert (board.ej_b1.value(), board.ej_b2.value()) == (0, 1) and board.ej_pwm.duty > 0
    board.pull(False)
    assert board.ej_pwm.duty == 0
    assert bus.servo_us(ch) == pytest.approx(board.mod.PUSHER_HOME_US, abs=10)
    board.slot_start(0x85, 11)
    assert not board.slot_done() and board.carousel.position == 10 * 40 * 32  # pusher still retracting
    Clock.now += board.mod.SERVO_MS
    board.slot_done()
    assert board.carousel.position == 11 * 40 * 32


def test_face_up_cradle_has_one_slot_and_its_own_pusher(board: Any) -> None:
    bus = FakeI2C.bus
    assert bus is not None
    Clock.now = 1000
    board.slot_start(0x83, 0)
    assert board.slot_done()  # nothing to move
    board.pull(True)
    assert bus.servo_us(board.mod.SERVO_PUSHER[0x83]) == pytest.approx(board.mod.PUSHER_OUT_US, abs=10)


def test_racks_behind_the_expander_home_and_step_in_their_own_microsteps(board: Any) -> None:
    bus = FakeI2C.bus
    assert bus is not None
    Clock.now = 1000
    board.slot_start(0x81, 3)  # discard: DIR and home on the expander
    assert not board.slot_done() and board.racks[0x81].homing
    assert bus.regs[0x20][0x14] & 0b10 == 0  # DIR low: homing goes down
    bus.set_input(1, 0)  # discard home opto closes
    board.slot_done()
    assert board.racks[0x81].position == 3 * 40 * 64  # address 2: 1/64
    assert bus.regs[0x20][0x14] & 0b10 == 0b10  # DIR high: up to slot 3
    Clock.now += 2000
    assert board.slot_done()


def test_fault_1_when_the_turntable_home_never_closes(board: Any) -> None:
    Clock.now = 1000
    board.turn_start(900)
    board.turn_done()
    mod = board.mod
    limit_ms = mod.TT_HOME_MAX * 1000 // mod.HOME_HZ
    Clock.now += limit_ms - 10
    assert not board.turn_done() and board.turntable.homing
    faults = [board.fault(), board.fault()]
    assert (1, 0) not in faults
    Clock.now += 20
    assert not board.turn_done()
    assert not board.turntable.homing and board.turntable.pwm.duty == 0  # stopped
    found = [board.fault() for _ in range(3)]
    assert (1, 0) in found and found.count((1, 0)) == 1  # reported once
    board.turn_start(900)  # a retry (RESUME) homes again
    assert board.turntable.homing and not board.turntable.failed


def test_fault_1_names_the_rack(board: Any) -> None:
    mod = board.mod
    Clock.now = 1000
    board.slot_start(0x86, 5)
    board.slot_done()
    Clock.now += mod.RACK_HOME_MAX_FULLSTEPS * 1000 // mod.RACK_FULLSTEP_HZ + 10
    assert not board.slot_done()
    found = [board.fault() for _ in range(3)]
    assert (1, 3) in found  # detail 3: the staging rack


def test_fault_2_when_the_reader_does_not_answer_its_probe(board: Any) -> None:
    mod = board.mod
    assert board.reader.sent == mod.READER_PROBE  # sent at boot
    Clock.now = mod.config.READER_PROBE_MS - 1
    assert board.fault() is None
    Clock.now += 1
    assert board.fault() == (2, 0)
    assert board.fault() is None  # once
    board.reader_probe()  # SELFTEST probes again
    board.reader.incoming = b"\x02\x00\x00\x01\x00\x33\x31"  # any answer
    Clock.now += 10_000
    assert board.fault() is None and board.probe_until is None


def test_a_probe_answer_eaten_by_a_card_read_still_counts(board: Any) -> None:
    board.reader.incoming = b"\x02\x00\x00"
    board.read_start()
    Clock.now = 10_000
    assert board.fault() is None


def test_tray_full_sensors_on_the_expander(board: Any) -> None:
    bus = FakeI2C.bus
    assert bus is not None
    assert not any(board.tray_full(t) for t in (0, 5, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86))
    bus.set_input(4, 0)
    assert board.tray_full(0x80) and not board.tray_full(0x82)
    bus.set_input(6, 0)
    assert board.tray_full(0x84)


def test_turntable_stall_flag_via_the_expander_is_a_jam(board: Any) -> None:
    bus = FakeI2C.bus
    assert bus is not None
    assert not board.jam_sensor()
    bus.set_input(DIAG_BIT, 1)
    Clock.now = 100
    assert not board.jam_sensor()
    Clock.now += board.mod.JAM_EXIT_MS + 1
    assert board.jam_sensor()


def test_missing_expander_is_fault_4_and_nothing_moves(monkeypatch: pytest.MonkeyPatch, board: Any) -> None:
    FakeI2C.present = ()
    b = board.mod.Board()
    found = [b.fault(), b.fault()]
    assert (4, 0x20) in found and (4, 0x40) in found
    b.turn_start(900)
    Clock.now += 10_000
    assert not b.turn_done()  # the shutter switch cannot be read: no turn
    assert not b.tray_full(0x81)


def test_mechanics_report_board_faults_and_stop_like_a_jam(board: Any) -> None:
    from firmware import config
    from firmware import mechanics as M
    from firmware import protocol as P

    FakePin.pins[board.mod.PIN_ESTOP].value(0)  # released (closed to GND)
    events: list[tuple[int, bytes]] = []
    mech = M.Mechanics(board, config.Settings(), lambda k, p: events.append((k, p)))
    mech.step()
    assert events == []
    Clock.now = config.READER_PROBE_MS + 1
    mech.step()
    assert events == [(P.EV_FAULT, bytes((2, 0)))]
    assert mech.state == M.JAMMED
    assert mech.reset() and mech.state == M.IDLE


def test_a_rack_that_never_finds_home_is_fault_1_before_the_stage_times_out(board: Any) -> None:
    from firmware import config
    from firmware import mechanics as M
    from firmware import protocol as P

    FakePin.pins[board.mod.PIN_ESTOP].value(0)
    FakePin.pins[board.mod.PIN_TT_HOME].value(0)  # the arm homes at once; the magazine never does
    board.reader.incoming = b"\x02\x00\x00"  # the boot probe is answered
    board.fault()
    events: list[tuple[int, bytes]] = []
    cfg = config.Settings()
    mech = M.Mechanics(board, cfg, lambda k, p: events.append((k, p)))
    mech.run_op(M.Op("store", lambda c, conf: (P.REJECT, -1), lambda c, t, conf: None, store=0x85, slot=7))
    for _ in range(1000):
        Clock.now += 10
        mech.step()
        if events:
            break
    assert events == [(P.EV_FAULT, bytes((1, 1)))]  # magazine rack; no JAM first
    assert mech.state == M.JAMMED and board.carousel.pwm.duty == 0


def test_a_fault_found_during_an_estop_is_reported_after_reset(board: Any) -> None:
    from firmware import config
    from firmware import mechanics as M
    from firmware import protocol as P

    estop = FakePin.pins[board.mod.PIN_ESTOP]
    events: list[tuple[int, bytes]] = []
    mech = M.Mechanics(board, config.Settings(), lambda k, p: events.append((k, p)))
    mech.step()  # pressed at boot (the pull-up reads high)
    assert mech.state == M.ESTOPPED
    Clock.now = 10_000  # the reader probe has long timed out
    mech.step()
    assert [k for k, _ in events] == [P.EV_ESTOP]
    estop.value(0)
    assert mech.reset()
    mech.step()
    assert events[-1] == (P.EV_FAULT, bytes((2, 0)))
