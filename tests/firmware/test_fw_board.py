"""firmware/board.py (dealer v2) on CPython, with the rp2 fakes of tests/firmware/mp.

board.py is the one module that cannot run on a PC as it is; loading it against fakes of
``machine`` (mirroring the rp2 port: no SOFT_RESET, machine.reset() a watchdog reboot) and
``rp2`` (a PIO assembler that records the program, DMA, state machines) checks its logic: the
TMC2209 setup over UART and FAULT 3, the PIO step program's exact step count and timing, the
gate length measured in feed steps, pocket confirmation from the TCA9555, the deflector flaps,
the e-stop and lid, the reader and its probe (FAULT 2), missing I2C chips (FAULT 4), reset
causes, non-blocking USB writes. The same board runs on the MicroPython VM (check rp2_board).
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOARD = ROOT / "firmware" / "board.py"
MP = ROOT / "tests" / "firmware" / "mp"


class Clock:
    us = 0


def fake_time() -> types.ModuleType:
    period = 1 << 30
    t = types.ModuleType("time")
    t.ticks_ms = lambda: (Clock.us // 1000) % period  # type: ignore[attr-defined]
    t.ticks_us = lambda: Clock.us % period  # type: ignore[attr-defined]
    t.ticks_add = lambda a, b: (a + b) % period  # type: ignore[attr-defined]
    t.ticks_diff = lambda a, b: ((a - b + period // 2) % period) - period // 2  # type: ignore[attr-defined]
    t.sleep_ms = lambda ms: None  # type: ignore[attr-defined]
    t.sleep_us = lambda us: None  # type: ignore[attr-defined]
    return t


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(MP))
    machine = importlib.reload(importlib.import_module("fake_machine"))
    rp2 = importlib.reload(importlib.import_module("rp2"))
    Clock.us = 0
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "rp2", rp2)
    monkeypatch.setitem(sys.modules, "time", fake_time())
    fake_select = types.ModuleType("select")
    fake_select.POLLIN, fake_select.POLLOUT = 1, 4  # type: ignore[attr-defined]
    fake_select.poll = lambda: types.SimpleNamespace(register=lambda *a: None, poll=lambda t: Poller.ready)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "select", fake_select)
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO()))
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", types.SimpleNamespace(buffer=out))
    return types.SimpleNamespace(machine=machine, rp2=rp2, out=out)


class Poller:
    ready: list[int] = []


def load_board(fakes: Any) -> Any:
    spec = importlib.util.spec_from_file_location("trickref.firmware.fw_board_under_test", BOARD)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def board(fakes: Any) -> Any:
    mod = load_board(fakes)
    b = mod.Board()
    b.mod = mod
    b.fakes = fakes
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


def test_drivers_are_set_up_over_uart_and_a_silent_one_is_fault_3(board: Any, fakes: Any) -> None:
    from trickref.firmware import motion

    bus = fakes.machine.tmc_bus
    assert board.drivers_ok and board.fault() is None
    for node in (0, 1, 2):
        assert bus.ifcnt[node] == 6  # every setup write counted by the driver
        gconf = bus.regs[(node, motion.TMC_GCONF)]
        assert gconf & (1 << 7) and gconf & (1 << 6)  # microsteps from MRES; UART owns PDN
        assert (bus.regs[(node, motion.TMC_CHOPCONF)] >> 24) & 0xF == motion.mres_bits(8)
    bus.present = [0, 1]
    b = board.mod.Board()
    assert (3, 2) in [b.fault(), b.fault()]
    b.feed(True)
    assert fakes.machine.Pin.pins[board.mod.PIN_EN].value() == 1  # nothing is powered


def test_a_feed_move_is_exact_steps_through_dma_and_pio(board: Any, fakes: Any) -> None:
    from trickref.firmware import config, motion, timing

    rp2 = fakes.rp2
    sm = rp2.StateMachine.machines[board.mod.SM_F]
    board.feed(True)
    cfg = config.Settings()
    segs = timing.feed_segments(cfg)
    assert sm.received == motion.words(segs)
    steps, cycles = rp2.run_program(board.mod._stepper, sm.received)
    assert steps == timing.feed_steps(cfg) == sum(c for c, _ in segs) == 1698  # 100 mm at 1/8
    assert -(-cycles * 10**6 // motion.PIO_HZ) == motion.segments_us(segs)
    assert fakes.machine.Pin.pins[board.mod.PIN_EN].value() == 0
    assert board.belt_on  # the belt runs while cards move
    t_words = rp2.StateMachine.machines[board.mod.SM_T].received
    assert t_words[-2] == 0x7FFFFFFE  # after its ramp the belt cruises until stopped
    assert board.eject_done() and board.f.position == 1698


def test_the_gate_length_is_counted_in_feed_steps(board: Any, fakes: Any) -> None:
    from trickref.firmware import config, motion, timing

    cfg = config.Settings()
    pins = fakes.machine.Pin.pins
    gate = pins[board.mod.PIN_GATE]
    gate.v = 0  # a card waits at the read window, 40 mm past the gate
    board.eject(True)
    segs = timing.feed_segments(cfg)
    per_mm = timing.feed_steps(cfg) / cfg.F_MOVE_MM

    def at_step(n: int) -> int:
        us = 0
        while motion.steps_at(segs, us) < n:
            us += 20
        return us

    Clock.us = board.f.started_us + at_step(int(48 * per_mm))  # its tail passes the gate
    assert 85 <= board.gate_len_mm() <= 89  # still blocked: 40 + 48 mm so far
    gate.v = 1
    board._gate_edge(gate)
    assert 86 <= board.gate_len_mm() <= 89  # one card: 88 mm
    # a shingled double: blocked 30 mm longer
    Clock.us = 10**7
    board.f.moving = False
    gate.v = 0
    board.eject(True)
    Clock.us = board.f.started_us + at_step(int(78 * per_mm))
    assert board.gate_len_mm() > cfg.CARD_LEN_MM + cfg.CARD_TOL_MM


def test_pockets_confirm_cards_and_flaps_follow_the_aim(board: Any, fakes: Any) -> None:
    bus = fakes.machine.I2C.bus
    board.turn_start(3)
    assert board.flaps.up == [3]
    assert bus.servo_us(3) == pytest.approx(board.mod.FLAP_UP_US, abs=10)
    assert not board.confirmed(3)
    fakes.machine.Pin.pins[board.mod.PIN_TCA_INT].v = 0
    bus.set_pocket(3, True)  # the card goes into the mouth
    assert not board.confirmed(3)
    bus.set_pocket(3, False)  # and down past the opto
    assert board.confirmed(3) and not board.confirmed(3)  # once per card
    board.lower(3)
    assert board.flaps.up == [] and bus.servo_us(3) == pytest.approx(board.mod.FLAP_DOWN_US, abs=10)
    board.turn_start(0x84)  # trick pocket: 14, the last
    assert board.flaps.up == [14]
    bus.set_pocket(14, True)
    board.confirmed(0x84)
    bus.set_pocket(14, False)
    assert board.confirmed(0x84)


def test_stop_all_is_the_safe_state(board: Any, fakes: Any) -> None:
    board.feed(True)
    board.stop_all()
    assert fakes.machine.Pin.pins[board.mod.PIN_EN].value() == 1
    assert not board.belt_on and not board.f.moving
    assert not fakes.rp2.StateMachine.machines[board.mod.SM_F].active()


def test_estop_lid_and_reset_causes(board: Any, fakes: Any) -> None:
    m = fakes.machine
    pins = m.Pin.pins
    pins[board.mod.PIN_ESTOP].v = 0
    pins[board.mod.PIN_LID].v = 0
    assert not board.estop_pressed()
    pins[board.mod.PIN_ESTOP].v = 1  # pressed, or the wire is cut
    assert board.estop_pressed()
    pins[board.mod.PIN_ESTOP].v = 0
    pins[board.mod.PIN_LID].v = 1  # lid open: no motion either
    assert board.estop_pressed()
    assert board.reset_cause() == 1
    assert not hasattr(m, "SOFT_RESET")  # as on the rp2 port
    board.reboot()  # RESET body 1
    assert m.mem32.words[board.mod.WATCHDOG_SCRATCH0["RP2040"]] == board.mod.RESET_MAGIC
    assert board.mod.Board().reset_cause() == 3  # watchdog reboot with the marker
    assert m.mem32.words[board.mod.WATCHDOG_SCRATCH0["RP2040"]] == 0  # cleared at boot
    assert board.mod.Board().reset_cause() == 2  # another watchdog reboot: a hang
    m.power_cycle()
    assert board.mod.Board().reset_cause() == 1


def test_usb_writes_never_wait(board: Any, fakes: Any) -> None:
    Poller.ready = []
    assert board.link_write(b"abc") == 0 and fakes.out.getvalue() == b""
    Poller.ready = [1]
    assert board.link_write(b"abc") == 3 and fakes.out.getvalue() == b"abc"


def test_faults_2_and_4(fakes: Any) -> None:
    fakes.machine.I2C.present = [0x40]
    mod = load_board(fakes)
    b = mod.Board()
    Clock.us = 1000 * 1000
    found = [b.fault(), b.fault(), b.fault()]
    assert (4, 0x20) in found and (2, 0) in found  # no pocket optos; the reader never answered
    fakes.machine.I2C.present = [0x20, 0x40]


def test_mechanics_report_a_board_fault_and_stop_like_a_jam(board: Any, fakes: Any) -> None:
    from trickref.firmware import config
    from trickref.firmware import mechanics as M
    from trickref.firmware import protocol as P

    pins = fakes.machine.Pin.pins
    pins[board.mod.PIN_ESTOP].v = 0
    pins[board.mod.PIN_LID].v = 0
    events: list[tuple[int, bytes]] = []
    mech = M.Mechanics(board, config.Settings(), lambda k, p: events.append((k, p)))
    mech.step()
    assert events == []
    Clock.us = (config.READER_PROBE_MS + 1) * 1000
    mech.step()
    assert events == [(P.EV_FAULT, bytes((2, 0)))] and mech.state == M.JAMMED
    assert mech.reset() and mech.state == M.IDLE


def test_fault_5_when_the_motor_bus_stays_live_after_the_estop(board: Any, fakes: Any) -> None:
    pins = fakes.machine.Pin.pins
    board.reader.incoming = b"\x02"  # the reader answered its probe
    board.fault()
    pins[board.mod.PIN_ESTOP].v = 1  # pressed
    board.vbus.level = 40000  # about 11 V still on the bus
    board.stop_all()
    Clock.us += (board.mod.BUS_DROP_MS - 10) * 1000
    assert board.fault() is None
    Clock.us += 20 * 1000
    assert board.fault() == (5, 0)
    board.vbus.level = 500  # a relay that drops: no fault
    board.stop_all()
    Clock.us += 1000 * 1000
    assert board.fault() is None


def test_a_card_in_the_play_slot_counts_as_a_card_to_feed(board: Any, fakes: Any) -> None:
    pins = fakes.machine.Pin.pins
    pins[board.mod.PIN_HOPPER].v = 1
    pins[board.mod.PIN_SLOT].v = 1
    assert not board.hopper_has_card()
    pins[board.mod.PIN_SLOT].v = 0  # a player dropped a card into the slot
    assert board.hopper_has_card()


def test_servos_start_one_at_a_time_when_the_servo_rail_comes_up(board: Any, fakes: Any) -> None:
    """Issue 20: the 15 flaps (and the hopper lift) must not all start at once on a 2.5 A rail,
    at power-on or when the motor relay closes again after an e-stop."""
    bus = fakes.machine.I2C.bus
    mod = board.mod
    stagger = board.cfg.SERVO_STAGGER_MS

    def pulsing() -> list[int]:  # a pulse width set, and not the PCA9685's full-OFF bit (LEDn_OFF_H bit 4)
        return [k for k in range(16) if bus.servo_us(k) > 0 and not bus.regs[0x40].get(0x06 + 4 * k + 3, 0) & 0x10]

    assert pulsing() == []  # at boot nothing pulses before the loop runs
    for step in range(mod.POCKETS + 3):
        board.idle()
        assert len(pulsing()) == min(step + 1, mod.POCKETS)  # one more channel per stagger
        Clock.us += stagger * 1000
    assert pulsing() == list(range(mod.POCKETS))  # the lift (15) was never commanded: limp
    assert all(bus.servo_us(k) == pytest.approx(mod.FLAP_DOWN_US, abs=10) for k in range(mod.POCKETS))
    # the e-stop drops the relay: every channel goes fully off (limp), so the next start staggers
    board.vbus.level = 500
    board.idle()
    assert pulsing() == [] and bus.regs[0x40][0x06 + 3] == 0x10
    board.hold_hopper(True)  # wanted while the rail is down: waits for its turn
    board.vbus.level = 40000  # the start button: the relay closes again
    board.idle()
    assert len(pulsing()) == 1
    Clock.us += (stagger - 1) * 1000
    board.idle()
    assert len(pulsing()) == 1  # not before its time
    # a flap the firmware commands meanwhile starts at once (its own move)
    board.turn_start(5)
    assert 5 in pulsing() and bus.servo_us(5) == pytest.approx(mod.FLAP_UP_US, abs=10)
    for _ in range(20):
        Clock.us += stagger * 1000
        board.idle()
    assert pulsing() == list(range(16)) and bus.servo_us(mod.HOPPER_LIFT) == pytest.approx(mod.FLAP_UP_US, abs=10)


def test_the_splitter_blade_stops_within_a_quarter_card_of_every_depth(fakes: Any) -> None:
    """The sorting hopper's blade servo gets the PCA9685's nearest step to each depth's pulse
    (4.88 us a step, 10 us a card): at most a quarter of a card off. Floored, it was up to half
    a card short (depth 47 at 46.90), one card off with the L12's 0.1 mm repeatability. Depth 0
    (a card for the top) parks the blade a card above the top card, at the stroke's end."""
    fakes.machine.I2C.present = [0x20, 0x40, 0x41]
    try:
        mod = load_board(fakes)
        b = mod.Board()
        bus = fakes.machine.I2C.bus
        assert b.splitter is not None and b.splitter.ok
        worst = 0.0
        for depth in range(mod.SPLIT_MAX + 1):
            b.splitter.count = 0
            b.splitter.push(depth)
            off = bus.regs[0x41][mod.PCA_LED0 + 2] | (bus.regs[0x41][mod.PCA_LED0 + 3] << 8)
            at = (off * 20000 / 4096 - mod.SPLIT_US0) / mod.SPLIT_US_PER_CARD
            # a card for the top waits with the blade parked a card above it, not level with it
            want = depth if depth else mod.SPLIT_PARK
            worst = max(worst, abs(at - want))
            # within the L12-R's 1.0-2.0 ms over the stroke
            assert 1000 - 2.5 <= off * 20000 / 4096 <= 2000 + 2.5, depth
        assert worst <= 0.25, worst
        assert mod.SPLIT_PARK == -1
        b.splitter.count = 0
        b.splitter.landed()  # nothing on its way: parked
        off = bus.regs[0x41][mod.PCA_LED0 + 2] | (bus.regs[0x41][mod.PCA_LED0 + 3] << 8)
        assert abs((off * 20000 / 4096 - mod.SPLIT_US0) / mod.SPLIT_US_PER_CARD - mod.SPLIT_PARK) <= 0.25
    finally:
        fakes.machine.I2C.present = [0x20, 0x40]


def test_the_saved_state_is_replaced_whole(board: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """Protocol 3's saved state (steps, ledger, loop model): written beside the file and renamed
    over it, so a power cut leaves the old file or the new one, never half of one."""
    monkeypatch.setattr(board.mod, "NV_FILE", str(tmp_path / "dealer_state.bin"))
    assert board.nv_read() is None
    board.nv_write(b"\xa3first")
    board.nv_write(b"\xa3second")
    assert board.nv_read() == b"\xa3second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dealer_state.bin"]
