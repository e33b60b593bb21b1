"""Kiosk settings and the admin PIN, behind a small interface.

The table's configuration module (``device.config``) is the real home of these settings and
of the hashed PIN; when it is missing (or its file cannot be loaded safely) the kiosk keeps them in
``$TRICKREF_CONFIG_DIR/kiosk.json`` (default ``~/.config/trickref``). The PIN is stored only
as a salted PBKDF2 hash; the factory PIN is 0000 (as in device.config) and the settings screen can change it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_PIN = "0000"


def _hash(pin: str, salt: str) -> str:
    return hashlib.pbkdf2_hmac("sha256", pin.encode(), bytes.fromhex(salt), 100_000).hex()


@dataclass
class Settings:
    serial_port: str = "auto"
    sound: bool = True
    four_colour: bool = False
    large_text: bool = False
    pin_salt: str = ""
    pin_hash: str = ""
    pin_map: dict[str, Any] = field(default_factory=dict)
    path: str | None = None

    @property
    def default_pin(self) -> bool:
        """True while the PIN is still the factory one (the settings screen says so)."""
        return not self.pin_hash

    @property
    def locked(self) -> bool:
        """True when no PIN can open the settings (an unreadable stored PIN)."""
        return False

    def check_pin(self, pin: str) -> bool:
        if not self.pin_hash:
            return hmac.compare_digest(pin, DEFAULT_PIN)
        return hmac.compare_digest(_hash(pin, self.pin_salt), self.pin_hash)

    def set_pin(self, pin: str) -> None:
        if not (4 <= len(pin) <= 8 and pin.isdigit()):
            raise ValueError(f"a PIN is 4 to 8 digits, not {len(pin)} characters")
        self.pin_salt = secrets.token_hex(16)
        self.pin_hash = _hash(pin, self.pin_salt)

    def save(self) -> None:
        if self.path is None:
            return
        p = Path(self.path)
        p.parent.mkdir(parents=True, exist_ok=True)
        data = asdict(self)
        data.pop("path")
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, p)


def default_path() -> Path:
    base = os.environ.get("TRICKREF_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".config", "trickref")
    return Path(base) / "kiosk.json"


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """The kiosk settings: from device.config when it provides them, else from our file."""
    if path is None:
        from_device = _from_device_config()
        if from_device is not None:
            return from_device
    p = Path(path) if path is not None else default_path()
    s = Settings(path=str(p))
    try:
        data: dict[str, Any] = json.loads(p.read_text())
    except (OSError, ValueError):
        return s
    for k, v in data.items():
        if hasattr(s, k) and k != "path":
            setattr(s, k, v)
    return s


def _from_device_config() -> Settings | None:
    """Settings backed by device.config (the table's TOML file), when that module is here."""
    try:
        from device import config as dc
    except ImportError:
        return None
    try:
        loaded = dc.load()
    except ValueError:  # a config that cannot fall back safely: keep the kiosk usable
        return None
    return DeviceSettings(dc, loaded.config, loaded.path)


class DeviceSettings(Settings):
    """Settings read from and written to device.config's ``Config`` (frozen: replaced on save)."""

    def __init__(self, dc: Any, cfg: Any, path: Any) -> None:
        super().__init__(path=str(path))
        self._dc = dc
        self._cfg = cfg
        d = cfg.display
        self.sound, self.four_colour, self.large_text = d.sound, d.four_colour_suits, d.large_text
        self.serial_port = cfg.dealer.port
        self.pin_map = {}
        for i, seat in enumerate(cfg.panels.seats):
            for role, ref in seat.pins():
                self.pin_map[f"seat {i} {role}"] = str(ref)

    @property
    def default_pin(self) -> bool:
        return bool(self._cfg.admin.is_default)

    @property
    def locked(self) -> bool:
        return bool(self._cfg.admin.locked)

    def check_pin(self, pin: str) -> bool:
        return bool(self._cfg.admin.check(pin))

    def set_pin(self, pin: str) -> None:
        self._cfg = self._cfg.replace(admin=self._cfg.admin.with_pin(pin))

    def save(self) -> None:
        import dataclasses

        cfg = self._cfg
        display = dataclasses.replace(cfg.display, sound=self.sound, four_colour_suits=self.four_colour,
                                      large_text=self.large_text)
        dealer = dataclasses.replace(cfg.dealer, port=self.serial_port)
        self._cfg = cfg.replace(display=display, dealer=dealer)
        self._dc.save(self._cfg, self.path)
