"""The typed, frozen configuration: ``Config`` and its sections (dealer, storage, admin,
display, panels, verify)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .admin import LOCKED, AdminConfig
from .pins import DEFAULT_EXPANDERS, Expander, SeatPins, default_seats

MODES = ("auto", "simulated", "hardware")
LANGUAGES = ("en", "fr", "ht", "tr")  # English, French, Haitian Creole, Turkish (ui/locale)


STABLE_PORT = "/dev/trickref-dealer"  # the udev rule's name (hardware/99-trickref-dealer.rules)
PICO_USB = (0x2E8A, 0x0005)  # MicroPython's USB id on a Raspberry Pi Pico (the same rule)


def usb_serial_ports() -> list[tuple[str, int | None, int | None]]:
    """(device, USB vendor id, product id) of every serial port this machine has (pyserial)."""
    from serial.tools import list_ports

    return [(p.device, p.vid, p.pid) for p in list_ports.comports()]


@dataclass(frozen=True)
class DealerConfig:
    port: str = STABLE_PORT  # a device, a pyserial URL, "sim", or "auto" (resolved_port)
    baud: int = 115200

    def resolved_port(self, exists: Callable[[str], bool] = os.path.exists,
                      ports: Callable[[], list[tuple[str, int | None, int | None]]] = usb_serial_ports) -> str:
        """The port to open. "auto" (what the kiosk's Settings save for an emptied field): the
        udev rule's /dev/trickref-dealer when it exists, else the first serial port whose USB id
        is MicroPython's on a Pico (a Pi without the rule installed), else /dev/trickref-dealer
        (so a message names the port the setup guide makes). Anything else is itself."""
        if self.port != "auto":
            return self.port
        if exists(STABLE_PORT):
            return STABLE_PORT
        try:
            found = [dev for dev, vid, pid in ports() if (vid, pid) == PICO_USB]
        except (ImportError, OSError):
            found = []
        return sorted(found)[0] if found else STABLE_PORT


@dataclass(frozen=True)
class StorageConfig:
    """Folders; empty strings mean the defaults, resolved when asked (so $TRICKREF_HOME works)."""

    home: str = ""
    journal: str = ""
    games: str = ""

    def home_dir(self, env: Mapping[str, str] | None = None) -> Path:
        env = os.environ if env is None else env
        if self.home:
            return Path(self.home).expanduser()
        if env.get("TRICKREF_HOME"):
            return Path(env["TRICKREF_HOME"]).expanduser()
        data = env.get("XDG_DATA_HOME") or str(Path("~/.local/share").expanduser())
        return Path(data) / "trickref"

    def journal_dir(self, env: Mapping[str, str] | None = None) -> Path:
        return self._under_home(self.journal, "journal", env)

    def games_dir(self, env: Mapping[str, str] | None = None) -> Path:
        return self._under_home(self.games, "games", env)

    def _under_home(self, value: str, default: str, env: Mapping[str, str] | None) -> Path:
        home = self.home_dir(env)
        return home / default if not value else home / Path(value).expanduser()



@dataclass(frozen=True)
class DisplayConfig:
    sound: bool = True
    four_colour_suits: bool = False
    large_text: bool = False
    language: str = "en"  # one of LANGUAGES: the kiosk's words and "How to play" pages
    width: int = 800
    height: int = 480


@dataclass(frozen=True)
class VerifyConfig:
    """The verify page the QR code after a hand opens (device/verify_web)."""

    port: int = 8088  # the table serves the page on this port of its network; 0: it does not
    address: str = ""  # the page's address to put in the QR code instead (e.g. the club hub's /verify)


@dataclass(frozen=True)
class PanelsConfig:
    seats: tuple[SeatPins, ...] = field(default_factory=default_seats)
    expanders: tuple[Expander, ...] = DEFAULT_EXPANDERS
    i2c_bus: int = 1
    reset: int | None = 23  # GPIO that resets the expanders (active low)
    debounce_ms: int = 20
    long_press_ms: int = 1500
    repeat_delay_ms: int = 500
    repeat_interval_ms: int = 150  # 0: no auto-repeat
    blink_ms: int = 250

    def expander(self, name: str) -> Expander:
        for e in self.expanders:
            if e.name == name:
                return e
        raise KeyError(name)


@dataclass(frozen=True)
class Config:
    mode: str = "auto"
    dealer: DealerConfig = DealerConfig()
    storage: StorageConfig = StorageConfig()
    admin: AdminConfig = AdminConfig()
    display: DisplayConfig = DisplayConfig()
    panels: PanelsConfig = PanelsConfig()
    verify: VerifyConfig = VerifyConfig()

    def resolved_mode(self, exists: Callable[[str], bool] = os.path.exists) -> str:
        """"simulated" or "hardware": auto means hardware when the dealer port and GPIO exist."""
        if self.mode != "auto":
            return self.mode
        port = self.dealer.resolved_port(exists)
        if port != "sim" and exists(port) and exists("/dev/gpiochip0"):
            return "hardware"
        return "simulated"

    def replace(self, **changes: Any) -> Config:
        return replace(self, **changes)


_UNREADABLE = Config(admin=AdminConfig(LOCKED))  # a file we cannot read: defaults, settings locked

