"""Kiosk settings and the admin PIN, behind a small interface.

The table's configuration module (``device.config``) is the real home of these settings and
of the hashed PIN; until it exists (or when it fails to load) the kiosk keeps them itself in
``$TRICKREF_CONFIG_DIR/kiosk.json`` (default ``~/.config/trickref``). The PIN is stored only
as a salted PBKDF2 hash; the factory PIN is 1234 and the settings screen can change it.
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

DEFAULT_PIN = "1234"
DEFAULT_PIN_MAP: dict[str, int] = {}


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
    pin_map: dict[str, int] = field(default_factory=dict)
    path: str | None = None

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
    from_device = _from_device_config()
    if from_device is not None and path is None:
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
    """Settings adapted from device.config, if it has landed and offers a loader."""
    try:
        import importlib

        cfg_mod = importlib.import_module("device.config")
    except ImportError:
        return None
    loader = getattr(cfg_mod, "load", None) or getattr(cfg_mod, "load_config", None)
    if loader is None:
        return None
    try:
        cfg = loader()
    except Exception:  # a broken config file must not stop the kiosk
        return None
    s = DeviceSettings(cfg)
    return s


class DeviceSettings(Settings):
    """Settings backed by a device.config object: reads and writes go through to it."""

    def __init__(self, cfg: Any) -> None:
        super().__init__()
        self._cfg = cfg
        for name in ("serial_port", "sound", "four_colour", "large_text"):
            if hasattr(cfg, name):
                setattr(self, name, getattr(cfg, name))
        pins = getattr(cfg, "pin_map", None) or getattr(cfg, "pins", None)
        if isinstance(pins, dict):
            self.pin_map = dict(pins)

    def check_pin(self, pin: str) -> bool:
        check = getattr(self._cfg, "check_pin", None)
        if callable(check):
            return bool(check(pin))
        return super().check_pin(pin)

    def set_pin(self, pin: str) -> None:
        setter = getattr(self._cfg, "set_pin", None)
        if callable(setter):
            setter(pin)
        else:
            super().set_pin(pin)

    def save(self) -> None:
        for name in ("serial_port", "sound", "four_colour", "large_text"):
            if hasattr(self._cfg, name):
                try:
                    setattr(self._cfg, name, getattr(self, name))
                except AttributeError:
                    pass
        saver = getattr(self._cfg, "save", None)
        if callable(saver):
            saver()
