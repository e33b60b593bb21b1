"""The kiosk's settings: a view of the table's configuration file (``device.config``), the one
settings system.

What the settings screen changes (sound, four-colour suits, large text, the language, the
dealer's port, the admin PIN; the language also from the home screen) is written back to that file by ``device.config.save``. There is no second store and
no fallback: a configuration the kiosk cannot use (a broken pin map, a PIN that is not a hash,
a file that is not TOML or cannot be read) locks the settings screen, and ``lock_reason`` names
the file and the problem. The kiosk then runs on the default display settings, and opening
settings takes fixing (or deleting) the file.

Wrong PINs are limited by ``device.config.PinGuard`` (a growing lock-out), counted in
``<storage home>/pin-tries.json`` so that a restart does not reset them. The bot level chosen
for each seat (rule bot, search bot, strong bot) is remembered in
``<storage home>/bot-levels.json``.
"""

from __future__ import annotations

import json
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
                 guard_state: str | os.PathLike[str] | None = None,
                 levels_state: str | os.PathLike[str] | None = None, **changes: Any) -> None:
        self.config = config if config is not None else dc.Config()
        self.levels_path = Path(levels_state) if levels_state is not None else None
        self._levels: dict[int, str] = self._read_levels()
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

    # ------------------------------------------------------------------ bot levels
    @property
    def bot_levels(self) -> dict[int, str]:
        """The remembered bot level of each seat (seats numbered from 0)."""
        return dict(self._levels)

    def set_bot_level(self, seat: int, level: str) -> bool:
        """Remember ``seat``'s bot level; False when the file could not be written (the level
        then holds until the kiosk stops)."""
        from .setup import BOT_LEVELS

        if level not in BOT_LEVELS:
            raise ValueError(f"unknown bot level {level!r}: one of {', '.join(BOT_LEVELS)}")
        self._levels[seat] = level
        if self.levels_path is None:
            return True
        try:
            self.levels_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.levels_path.with_name(self.levels_path.name + ".tmp")
            tmp.write_text(json.dumps({str(k): v for k, v in sorted(self._levels.items())}) + "\n")
            tmp.replace(self.levels_path)
        except OSError:
            return False
        return True

    def _read_levels(self) -> dict[int, str]:
        """The remembered levels; a missing or unreadable file (or an unknown level in it) is
        forgotten: the seats play at the rule bot's level."""
        from .setup import BOT_LEVELS

        if self.levels_path is None:
            return {}
        try:
            raw = json.loads(self.levels_path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(raw, dict):
            return {}
        return {int(k): v for k, v in raw.items() if str(k).isdigit() and v in BOT_LEVELS}

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
BOT_LEVELS_FILE = "bot-levels.json"  # in the storage home: each seat's bot level


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
    home = loaded.config.storage.home_dir()
    return Settings(loaded.config, where, lock_reason=reason, clock=clock, guard_state=home / PIN_TRIES_FILE,
                    levels_state=home / BOT_LEVELS_FILE)
