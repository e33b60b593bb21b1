"""firmware/board.py on CPython, with a fake ``machine`` (and MicroPython's ``time`` extras).

board.py is the one module that cannot run on a PC as it is; loading it against fakes still
checks its logic: the card codes the reader returns, homing before the first move and after
every stop, the safe state of stop_all(), the e-stop input, the reset causes.
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

    def any(self) -> int:
        return len(self.incoming)

    def read(self) -> bytes:
        data, self.incoming = self.incoming, b""
        return data


class Clock:
    now = 0


def make_fakes() -> tuple[types.ModuleType, types.ModuleType, types.ModuleType]:
    machine = types.ModuleType("machine")
    machine.Pin = FakePin  # type: ignore[attr-defined]
    machine.PWM = FakePWM  # type: ignore[attr-defined]
    machine.UART = FakeUART  # type: ignore[attr-defined]
    machine.WDT = lambda timeout: types.SimpleNamespace(feed=lambda: None)  # type: ignore[attr-defined]
    machine.WDT_RESET, machine.SOFT_RESET, machine.PWRON_RESET = 3, 5, 1  # type: ignore[attr-defined]
    machine.reset_cause = lambda: 3  # type: ignore[attr-defined]
    machine.reset = lambda: None  # type: ignore[attr-defined]
    fake_time = types.ModuleType("time")
    fake_time.ticks_ms = lambda: Clock.now  # type: ignore[attr-defined]
    fake_time.ticks_add = lambda a, b: a + b  # type: ignore[attr-defined]
    fake_time.ticks_diff = lambda a, b: a - b  # type: ignore[attr-defined]
    fake_time.sleep_ms = lambda ms: None  # type: ignore[attr-defined]
    fake_time.sleep_us = lambda us: None  # type: ignore[attr-defined]
    fake_select = types.ModuleType("select")
    fake_select.POLLIN = 1  # type: ignore[attr-defined]
    fake_select.poll = lambda: types.SimpleNamespace(register=lambda *a: None, poll=lambda t: [])  # type: ignore[attr-defined]
    return machine, fake_time, fake_select


@pytest.fixture
def board(monkeypatch: pytest.MonkeyPatch) -> Any:
    machine, fake_time, fake_select = make_fakes()
    FakePin.pins = {}
    Clock.now = 0
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
    assert board.stby.value() == 1 and board.en.value() == 0  # powered
    Clock.now = 5000
    assert not board.turn_done()  # still looking for home, however long it takes
    home.value(0)  # the flag reaches the opto
    assert not board.turn_done()  # homed; now the move itself runs
    Clock.now += 1000
    assert board.turn_done()
    assert board.turntable.position == 1600  # 1800 tenths of 3600 = half of 3200 steps
    board.turn_start(1800)
    assert board.turn_done()  # already there: no homing, no move


def test_stop_all_is_the_safe_state_and_forgets_the_position(board: Any) -> None:
    FakePin.pins[board.mod.PIN_TT_HOME].value(0)
    board.turn_start(900)
    board.turn_done()
    assert board.turntable.homed
    board.feed(True)
    board.eject(True)
    board.stop_all()
    assert board.feed_pwm.duty == 0 and board.ej_pwm.duty == 0 and board.turntable.pwm.duty == 0
    assert board.stby.value() == 0 and board.en.value() == 1
    assert not board.turntable.homed  # the next move homes again


def test_estop_input_and_reset_cause(board: Any) -> None:
    pin = FakePin.pins[board.mod.PIN_ESTOP]
    pin.value(0)
    assert not board.estop_pressed()
    pin.value(1)  # pressed, or the wire is cut
    assert board.estop_pressed()
    assert board.reset_cause() == 2  # the fake says WDT_RESET
    assert 0 <= board.boot_id() <= 0xFFFF
