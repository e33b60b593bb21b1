"""The MCP23017 16-bit I/O expander over I2C: the seat panels' pins beyond the Pi's header.

Why our own small driver: three registers' worth of logic (direction, pull-ups, polarity,
interrupt-on-change, output latch) is all the panels need, and keeping it behind the ``I2CBus``
protocol (the two calls of ``smbus2.SMBus`` we use) lets the tests check every register write
against a fake bus. Register addresses are for IOCON.BANK = 0 (the power-on default, which this
driver never changes). Port A is the low byte of every 16-bit value, port B the high byte, so
pin ``mcpN:B3`` is bit 11.

Wiring and the register values for the default map are in hardware/PANELS.md.
"""

from __future__ import annotations

from typing import Protocol

IODIRA = 0x00  # 1 = input
IPOLA = 0x02  # 1 = GPIO/INTCAP read inverted (buttons to GND read 1 when pressed)
GPINTENA = 0x04  # 1 = interrupt on change
DEFVALA = 0x06
INTCONA = 0x08  # 0 = compare with previous value (press and release both interrupt)
IOCON = 0x0A
GPPUA = 0x0C  # 1 = 100 kOhm pull-up
INTFA = 0x0E  # which pins caused the interrupt
INTCAPA = 0x10  # port value at the interrupt (reading clears it)
GPIOA = 0x12
OLATA = 0x14

IOCON_MIRROR = 0x40  # INTA and INTB both fire for either port: one wire per chip
IOCON_ODR = 0x04  # open-drain INT: the Pi's pull-up sets the level
OUTPUT_ONLY = (1 << 7) | (1 << 15)  # GPA7/GPB7 are outputs only on current silicon (rev D)


class ExpanderError(RuntimeError):
    """The expander cannot be used: no smbus2, no I2C bus, or a chip that does not answer."""


class I2CBus(Protocol):
    """What we use of ``smbus2.SMBus``."""

    def read_byte_data(self, i2c_addr: int, register: int) -> int: ...

    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None: ...


def open_bus(number: int) -> I2CBus:
    """``smbus2.SMBus(number)``, or ExpanderError saying what to install or enable."""
    try:
        import smbus2
    except ImportError:
        raise ExpanderError(
            "the seat panels' MCP23017 expanders need the smbus2 package, which is not installed: "
            "`pip install smbus2` in the venv (a dependency of trickref), or wire the "
            "panels to Pi GPIO numbers in the configuration's [panels.seatN] tables"
        ) from None
    try:
        bus: I2CBus = smbus2.SMBus(number)
    except OSError as e:
        raise ExpanderError(
            f"cannot open I2C bus {number} (/dev/i2c-{number}): {e.strerror}. Enable I2C with "
            "dtparam=i2c_arm=on in /boot/firmware/config.txt and add the user to the i2c group"
        ) from None
    return bus


class MCP23017:
    """One chip. Not thread-safe by itself: ``device.panels`` serialises access with its lock."""

    def __init__(self, bus: I2CBus, address: int) -> None:
        if not 0x20 <= address <= 0x27:
            raise ValueError(f"an MCP23017 address is 0x20 to 0x27, not 0x{address:02x}")
        self.bus = bus
        self.address = address
        self.buttons = 0
        self.outputs = 0
        self._olat = 0

    def configure(self, buttons: int, leds: int) -> None:
        """Set the chip up for button inputs and LED outputs (16-bit masks, A = low byte).

        Buttons: inputs with pull-ups, inverted (1 = pressed), interrupt on any change.
        LEDs: outputs, off. Unused pins: GPA7/GPB7 (output-only) are outputs driven low, the
        rest inputs with pull-ups so nothing floats.
        """
        if buttons & leds:
            raise ValueError(f"pins {buttons & leds:#06x} of 0x{self.address:02x} are both button and LED")
        if buttons & OUTPUT_ONLY:
            raise ValueError(f"GPA7/GPB7 of 0x{self.address:02x} are output-only; they cannot read a button")
        unused = 0xFFFF & ~(buttons | leds)
        outputs = leds | (unused & OUTPUT_ONLY)
        inputs = 0xFFFF & ~outputs
        self.buttons, self.outputs, self._olat = buttons, outputs, 0
        try:
            self.bus.write_byte_data(self.address, IOCON, IOCON_MIRROR | IOCON_ODR)
            self._write16(OLATA, 0)  # latch first, so outputs come up off
            self._write16(IODIRA, inputs)
            self._write16(GPPUA, inputs)
            self._write16(IPOLA, buttons)
            self._write16(DEFVALA, 0)
            self._write16(INTCONA, 0)
            self._write16(GPINTENA, buttons)
            self.read_inputs()  # clears any interrupt pending from before
        except OSError as e:
            raise ExpanderError(f"MCP23017 at 0x{self.address:02x} does not answer: {e.strerror or e}") from None

    def read_inputs(self) -> int:
        """Current pin levels as 16 bits (buttons read 1 when pressed); clears the interrupt."""
        return self._read16(GPIOA)

    def read_interrupt(self) -> tuple[int, int]:
        """(pins that changed, port value captured at the change); reading clears the capture."""
        flags = self._read16(INTFA)
        captured = self._read16(INTCAPA)
        return flags, captured

    def set_output(self, bit: int, on: bool) -> None:
        """Drive one output pin; read-modify-write of our copy of OLAT, never of GPIO."""
        mask = 1 << bit
        if not self.outputs & mask:
            raise ValueError(f"pin {bit} of 0x{self.address:02x} is not an output")
        value = (self._olat | mask) if on else (self._olat & ~mask)
        if value != self._olat:
            self._olat = value
            port = bit // 8
            self.bus.write_byte_data(self.address, OLATA + port, (value >> (8 * port)) & 0xFF)

    def output(self, bit: int) -> bool:
        return bool(self._olat >> bit & 1)

    def _write16(self, register_a: int, value: int) -> None:
        self.bus.write_byte_data(self.address, register_a, value & 0xFF)
        self.bus.write_byte_data(self.address, register_a + 1, (value >> 8) & 0xFF)

    def _read16(self, register_a: int) -> int:
        low = self.bus.read_byte_data(self.address, register_a)
        high = self.bus.read_byte_data(self.address, register_a + 1)
        return (low & 0xFF) | (high & 0xFF) << 8


class FakeBus:
    """An I2C bus with MCP23017s on it, modelled closely enough to test the driver and panels.

    Buttons are pressed with ``press(address, bit, down)`` (the pin goes to GND); reads apply
    IPOL, interrupts latch INTF/INTCAP on a change of an enabled pin and clear on a read of
    INTCAP or GPIO, as the datasheet says. Also useful for the simulated table.
    """

    def __init__(self, *addresses: int) -> None:
        self.regs: dict[int, list[int]] = {a: self._power_on() for a in addresses}
        self.pins: dict[int, int] = {a: 0xFFFF for a in addresses}  # electrical levels, 1 = high
        self.writes: list[tuple[int, int, int]] = []

    @staticmethod
    def _power_on() -> list[int]:
        regs = [0] * 0x16
        regs[IODIRA] = regs[IODIRA + 1] = 0xFF
        return regs

    def _chip(self, addr: int) -> list[int]:
        if addr not in self.regs:
            raise OSError(121, "Remote I/O error")
        return self.regs[addr]

    def _get16(self, addr: int, reg: int) -> int:
        r = self._chip(addr)
        return r[reg] | r[reg + 1] << 8

    def _port_value(self, addr: int) -> int:
        """What GPIO reads: inputs from the pins (IPOL applied), outputs from OLAT."""
        iodir = self._get16(addr, IODIRA)
        ipol = self._get16(addr, IPOLA)
        olat = self._get16(addr, OLATA)
        inputs = (self.pins[addr] ^ ipol) & iodir
        return inputs | (olat & ~iodir & 0xFFFF)

    def interrupt_pending(self, addr: int) -> bool:
        return self._get16(addr, INTFA) != 0

    def press(self, addr: int, bit: int, down: bool = True) -> None:
        before = self._port_value(addr)
        if down:
            self.pins[addr] &= ~(1 << bit)
        else:
            self.pins[addr] |= 1 << bit
        after = self._port_value(addr)
        changed = (before ^ after) & self._get16(addr, GPINTENA) & self._get16(addr, IODIRA)
        r = self._chip(addr)
        if changed and not self.interrupt_pending(addr):
            r[INTFA], r[INTFA + 1] = changed & 0xFF, changed >> 8
            r[INTCAPA], r[INTCAPA + 1] = after & 0xFF, after >> 8

    def led(self, addr: int, bit: int) -> bool:
        r = self._chip(addr)
        iodir = r[IODIRA + bit // 8] >> (bit % 8) & 1
        return iodir == 0 and bool(r[OLATA + bit // 8] >> (bit % 8) & 1)

    def read_byte_data(self, i2c_addr: int, register: int) -> int:
        r = self._chip(i2c_addr)
        if register in (GPIOA, GPIOA + 1):
            value = self._port_value(i2c_addr) >> (8 * (register - GPIOA)) & 0xFF
            r[INTFA] = r[INTFA + 1] = 0
            return value
        if register in (INTCAPA, INTCAPA + 1):
            value = r[register]
            if register == INTCAPA + 1:
                r[INTFA] = r[INTFA + 1] = 0
            return value
        return r[register]

    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None:
        r = self._chip(i2c_addr)
        if not 0 <= value <= 0xFF:
            raise ValueError(f"byte out of range: {value}")
        self.writes.append((i2c_addr, register, value))
        if register in (GPIOA, GPIOA + 1):
            register += OLATA - GPIOA
        r[register] = value
