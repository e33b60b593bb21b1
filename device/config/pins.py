"""The seat panels' pin map: GPIO and MCP23017 expander pins, a seat's buttons and LED,
the expanders on the I2C bus, and the factory pin map."""

from __future__ import annotations

import re
from dataclasses import dataclass

BUTTONS = ("minus", "plus", "ok")
ROLES = (*BUTTONS, "led")
MAX_SEATS = 11
GPIO_COUNT = 28  # BCM GPIO 0..27 on the 40-pin header
_RESERVED_GPIO = {0: "the HAT ID EEPROM (ID_SD)", 1: "the HAT ID EEPROM (ID_SC)"}
_I2C_GPIO = {2: "I2C SDA", 3: "I2C SCL"}
_EXPANDER_NAME = re.compile(r"^mcp(\d+)\Z")
_EXPANDER_PIN = re.compile(r"^(mcp\d+):([AB])([0-7])\Z", re.IGNORECASE)
_GPIO_TEXT = re.compile(r"^(?:GPIO|BCM)?(\d+)\Z", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class PinRef:
    """One pin of the pin map: a Pi GPIO (``chip`` None, BCM number) or an expander pin.

    Expander pins are numbered 0..15: GPA0..GPA7 are 0..7, GPB0..GPB7 are 8..15 (the bit in the
    16-bit port value, A in the low byte).
    """

    chip: str | None
    number: int

    @property
    def on_expander(self) -> bool:
        return self.chip is not None

    def __str__(self) -> str:
        if self.chip is None:
            return f"GPIO{self.number}"
        return f"{self.chip}:{'AB'[self.number // 8]}{self.number % 8}"

    @classmethod
    def parse(cls, value: object) -> PinRef:
        """17, "GPIO17", "BCM17" or "mcp0:A3"; ValueError saying what is wrong."""
        if isinstance(value, bool):
            raise ValueError(f"a pin is a GPIO number or \"mcpN:A0\"..\"mcpN:B7\", not {value!r}")
        if isinstance(value, int):
            number = value
        elif isinstance(value, str):
            text = value.strip()
            m = _EXPANDER_PIN.match(text)
            if m:
                return cls(m[1].lower(), (8 if m[2].upper() == "B" else 0) + int(m[3]))
            g = _GPIO_TEXT.match(text)
            if not g:
                raise ValueError(
                    f"{value!r} is not a pin: write a GPIO number (17 or \"GPIO17\") or an "
                    f"expander pin \"mcpN:A0\"..\"mcpN:B7\""
                )
            number = int(g[1])
        else:
            raise ValueError(f"a pin is a GPIO number or \"mcpN:A0\"..\"mcpN:B7\", not {value!r}")
        if not 0 <= number < GPIO_COUNT:
            raise ValueError(f"GPIO {number} does not exist (the Pi's header has GPIO 0 to {GPIO_COUNT - 1})")
        return cls(None, number)


@dataclass(frozen=True)
class SeatPins:
    """A seat panel's wiring: three buttons to GND and the "your turn" LED."""

    minus: PinRef
    plus: PinRef
    ok: PinRef
    led: PinRef

    def pins(self) -> tuple[tuple[str, PinRef], ...]:
        return (("minus", self.minus), ("plus", self.plus), ("ok", self.ok), ("led", self.led))


@dataclass(frozen=True)
class Expander:
    """One MCP23017 on the I2C bus: its name in the pin map, address and interrupt GPIO."""

    name: str
    address: int
    interrupt: int | None = None


def default_seats() -> tuple[SeatPins, ...]:
    """hardware/PANELS.md: seat s on expander s // 4, nibble s % 4 as -, +, OK, LED."""
    seats = []
    for s in range(MAX_SEATS):
        chip, base = f"mcp{s // 4}", (s % 4) * 4
        seats.append(SeatPins(*(PinRef(chip, base + i) for i in range(4))))
    return tuple(seats)


DEFAULT_EXPANDERS = (Expander("mcp0", 0x20, 17), Expander("mcp1", 0x21, 27), Expander("mcp2", 0x22, 22))

