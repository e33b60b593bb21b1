"""The MCP23017 driver against a fake bus: register set-up, inputs, interrupts, the LED latch."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

from trickref.device import mcp23017 as M
from trickref.device.mcp23017 import MCP23017, ExpanderError, FakeBus

BUTTONS = 0x7777  # default seat map: bits 0-2 of each nibble
LEDS = 0x8888


def test_configure_writes_the_documented_registers() -> None:
    bus = FakeBus(0x20)
    chip = MCP23017(bus, 0x20)
    chip.configure(BUTTONS, LEDS)
    written = {reg: val for addr, reg, val in bus.writes}
    assert written[M.IOCON] == 0b0100_0100  # MIRROR, ODR
    assert (written[M.IODIRA], written[M.IODIRA + 1]) == (0x77, 0x77)
    assert (written[M.GPPUA], written[M.GPPUA + 1]) == (0x77, 0x77)
    assert (written[M.IPOLA], written[M.IPOLA + 1]) == (0x77, 0x77)
    assert (written[M.GPINTENA], written[M.GPINTENA + 1]) == (0x77, 0x77)
    assert (written[M.INTCONA], written[M.INTCONA + 1]) == (0, 0)
    olat_first = [i for i, (_, reg, _) in enumerate(bus.writes) if reg == M.OLATA][0]
    iodir_first = [i for i, (_, reg, _) in enumerate(bus.writes) if reg == M.IODIRA][0]
    assert olat_first < iodir_first, "outputs must come up off"


def test_third_expander_of_eleven_seats_keeps_spare_pins_safe() -> None:
    """0x22 carries seats 8-10: B4-B7 are spare; B7 is output-only so it is driven, B4-6 pulled up."""
    bus = FakeBus(0x22)
    chip = MCP23017(bus, 0x22)
    chip.configure(0x0777, 0x0888)
    written = {reg: val for _, reg, val in bus.writes}
    assert written[M.IODIRA + 1] == 0x77  # B3 LED and B7 spare are outputs
    assert written[M.GPPUA + 1] == 0x77
    assert written[M.GPINTENA + 1] == 0x07, "no interrupts from spare pins"


def test_inputs_read_one_when_pressed() -> None:
    bus = FakeBus(0x21)
    chip = MCP23017(bus, 0x21)
    chip.configure(BUTTONS, LEDS)
    assert chip.read_inputs() & BUTTONS == 0
    bus.press(0x21, 9)  # B1
    assert chip.read_inputs() & BUTTONS == 1 << 9
    bus.press(0x21, 9, down=False)
    assert chip.read_inputs() & BUTTONS == 0


def test_interrupt_captures_the_change_and_clears_on_read() -> None:
    bus = FakeBus(0x20)
    chip = MCP23017(bus, 0x20)
    chip.configure(BUTTONS, LEDS)
    bus.press(0x20, 2)
    assert bus.interrupt_pending(0x20)
    flags, captured = chip.read_interrupt()
    assert flags == 1 << 2 and captured & BUTTONS == 1 << 2
    assert not bus.interrupt_pending(0x20)


def test_led_outputs_use_the_latch_and_touch_only_their_port() -> None:
    bus = FakeBus(0x20)
    chip = MCP23017(bus, 0x20)
    chip.configure(BUTTONS, LEDS)
    bus.writes.clear()
    chip.set_output(11, True)  # B3
    assert bus.writes == [(0x20, M.OLATA + 1, 0x08)]
    chip.set_output(3, True)
    chip.set_output(11, True)  # unchanged: no bus traffic
    assert bus.writes[-1] == (0x20, M.OLATA, 0x08) and len(bus.writes) == 2
    assert bus.led(0x20, 11) and bus.led(0x20, 3) and chip.output(3)
    chip.set_output(3, False)
    assert not bus.led(0x20, 3) and bus.led(0x20, 11)
    with pytest.raises(ValueError, match="not an output"):
        chip.set_output(0, True)


def test_bad_configurations_are_refused() -> None:
    chip = MCP23017(FakeBus(0x20), 0x20)
    with pytest.raises(ValueError, match="both button and LED"):
        chip.configure(0x0001, 0x0001)
    with pytest.raises(ValueError, match="output-only"):
        chip.configure(0x0080, 0)
    with pytest.raises(ValueError, match="0x20 to 0x27"):
        MCP23017(FakeBus(0x20), 0x40)


def test_missing_chip_is_a_clear_error() -> None:
    chip = MCP23017(FakeBus(0x20), 0x23)
    with pytest.raises(ExpanderError, match="0x23 does not answer"):
        chip.configure(BUTTONS, LEDS)


def test_no_smbus2_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_smbus2(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "smbus2":
            raise ImportError("No module named 'smbus2'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_smbus2)
    with pytest.raises(ExpanderError, match="need the smbus2 package.*pip install smbus2"):
        M.open_bus(1)
