"""The kiosk's settings: a view of the table's configuration file (``device.config``), the one
settings system.

What the settings screen changes (sound, four-colour suits, large text, the language, the
dealer's port, the admin PIN; the language also from the home screen) is written back to that file by ``device.config.save``. There is no second store and
no fallback: a configuration the kiosk cannot use (a broken pin map, a PIN that is not a hash,
a file that is not TOML or cannot be read) locks the settings screen, and ``lock_reason`` names
the file and the problem. The kiosk then runs on the default display settings, and opening
settings takes fixing (or deleting) the file.

Wrong PINs are limited by ``device.config.PinGuard`` (a growing lock-out), counted in
``<storage home>/pin-tries.json`` so that a restart does not reset them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from trickref.device import config as dc

from . import i18n


class Settings:
    """The settings the kiosk reads and the settings screen changes, over a ``dc.Config``.

    ``path`` None keeps them in memory (screenshots, tests); ``lock_reason`` set means the
    settings screen stays shut and nothing is saved."""

    def __init__(self, config: dc.Config | None = None, path: str | os.PathLike[str] | None = None, *,
                 lock_reason: str | None = None, clock: Callable[[], float] = time.time,
                 guard_state: str | os.PathLike[str] | None = None, **changes: Any) -> None:
        self.config = config if config is not None else dc.Config()
        self.path = Path(path) if path is not None else None
        self._lock_reason = lock_reason
        self.guard = dc.PinGuard(clock, guard_state)
        for name, value in changes.items():
            if name not in ("sound", "four_colour", "large_text", "serial_port", "language"):
                raise TypeError(f"Settings has no setting {name!r}")
            setattr(self, name, value)
        i18n.set_language(self.language)  # the kiosk speaks the configured language

    # ------------------------------------------------------------------ display and dealer
    def _display(self, **kw: Any) -> None:
        self.config = self.config.replace(display=replace(self.config.display, **kw))

    @property
    def sound(self) -> bool:
        return self.config.display.sound

    @sound.setter
    def sound(self, value: bool) -> None:
        self._display(sound=bool(value))

    @property
    def four_colour(self) -> bool:
        return self.config.display.four_colour_suits

    @four_colour.setter
    def four_colour(self, value: bool) -> None:
        self._display(four_colour_suits=bool(value))

    @property
    def large_text(self) -> bool:
        return self.config.display.large_text

    @large_text.setter
    def large_text(self, value: bool) -> None:
        self._display(large_text=bool(value))

    @property
    def language(self) -> str:
        """The kiosk's language (``ui.i18n.LANGUAGES``): setting it switches the screens at once."""
        return self.config.display.language

    @language.setter
    def language(self, value: str) -> None:
        if value not in i18n.LANGUAGES:
            raise ValueError(f"unknown language {value!r}: one of {', '.join(i18n.LANGUAGES)}")
        i18n.set_language(value)
        self._display(language=value)

    def next_language(self) -> str:
        """Switch to the next language of the chooser's cycle and return it."""
        codes = list(i18n.LANGUAGES)
        self.language = codes[(codes.index(self.language) + 1) % len(codes)]
        return self.language

    @property
    def serial_port(self) -> str:
        return self.config.dealer.port

    @serial_port.setter
    def serial_port(self, value: str) -> None:
        if not value.strip():
            raise ValueError("the dealer port cannot be empty (auto, sim, /dev/ttyACM0, socket://host:port)")
        self.config = self.config.replace(dealer=replace(self.config.dealer, port=value.strip()))

    @property
    def pin_map(self) -> dict[str, str]:
        """The seat panels' pins, ``"seat 0 minus": "mcp0:A0"`` (seats numbered from 0)."""
        return {f"seat {i} {role}": str(ref)
                for i, seat in enumerate(self.config.panels.seats) for role, ref in seat.pins()}

    # ------------------------------------------------------------------ the admin PIN
    @property
    def default_pin(self) -> bool:
        """True while the PIN is still the factory one (the settings screen says so)."""
        return self.config.admin.is_default and not self.locked

    @property
    def locked(self) -> bool:
        """True when no PIN opens the settings (a configuration the kiosk cannot use)."""
        return self._lock_reason is not None or self.config.admin.locked

    @property
    def lock_reason(self) -> str | None:
        if self._lock_reason is not None:
            return self._lock_reason
        if self.config.admin.locked:
            return f"settings locked: {self.path or 'the configuration'}: the stored admin PIN is unreadable"
        return None

    def try_pin(self, pin: str) -> tuple[bool, str]:
        """(right, what to say): locked settings refuse every PIN; wrong tries are limited."""
        reason = self.lock_reason
        if reason is not None:
            return False, reason
        return self.guard.attempt(self.config.admin.check, pin)

    def check_pin(self, pin: str) -> bool:
        return self.try_pin(pin)[0]

    def set_pin(self, pin: str) -> None:
        """A new PIN (4 to 8 digits), saved with the other settings; ValueError otherwise."""
        self.config = self.config.replace(admin=self.config.admin.with_pin(pin))

    def save(self) -> None:
        """Write the settings into the configuration file (its comments kept)."""
        if self.locked:
            raise ValueError(self.lock_reason)
        if self.path is not None:
            dc.save(self.config, self.path)


PIN_TRIES_FILE = "pin-tries.json"  # in the storage home: wrong PINs survive a restart


def load_settings(path: str | os.PathLike[str] | None = None, *,
                  clock: Callable[[], float] = time.time) -> Settings:
    """The kiosk's settings from the configuration file (``device.config.config_path()`` when
    no path). Never raises for a bad file: the settings come back locked, saying why."""
    where = Path(path) if path is not None else dc.config_path()
    try:
        loaded = dc.load(where)
    except dc.ConfigError as e:
        why = "; ".join(str(p) for p in e.problems) or "unusable"
        return Settings(dc.Config(), where, clock=clock,
                        lock_reason=f"settings locked: {where}: {why}; fix or delete the file")
    reason = None
    if loaded.config.admin.locked:
        why = next((p for p in loaded.problems if p.field in ("", "admin", "admin.pin")), None)
        reason = f"settings locked: {where}: {why or 'the stored admin PIN is unreadable'}"
    state = loaded.config.storage.home_dir() / PIN_TRIES_FILE
    return Settings(loaded.config, where, lock_reason=reason, clock=clock, guard_state=state)
