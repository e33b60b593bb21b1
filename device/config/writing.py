"""Writing the file: ``save`` and ``dumps`` update it in place with tomlkit, so a hand-edited
file keeps its comments, order and layout and only the changed values are rewritten."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from ..journal import write_atomically
from .reading import ConfigError, config_path, default_toml, loads
from .sections import Config, DisplayConfig


class Hex(int):
    """An int that ``save`` writes in hex (I2C addresses read as 0x20, not 32)."""


def to_dict(config: Config) -> dict[str, Any]:
    """The configuration as the TOML document ``save`` writes (``loads`` reads it back equal)."""
    p = config.panels
    panels: dict[str, Any] = {
        "debounce_ms": p.debounce_ms, "long_press_ms": p.long_press_ms,
        "repeat_delay_ms": p.repeat_delay_ms, "repeat_interval_ms": p.repeat_interval_ms,
        "blink_ms": p.blink_ms, "i2c_bus": p.i2c_bus, "reset": -1 if p.reset is None else p.reset,
        "expanders": {e.name: {"address": Hex(e.address),
                               **({} if e.interrupt is None else {"interrupt": e.interrupt})}
                      for e in p.expanders},
    }
    for s, seat in enumerate(p.seats):
        panels[f"seat{s}"] = {role: (str(pin) if pin.on_expander else pin.number) for role, pin in seat.pins()}
    doc: dict[str, Any] = {
        "mode": config.mode,
        "dealer": {"port": config.dealer.port, "baud": config.dealer.baud},
        "storage": {"home": config.storage.home, "journal": config.storage.journal,
                    "games": config.storage.games},
        "admin": {} if config.admin.pin is None else {"pin": config.admin.pin},
        "display": {f.name: getattr(config.display, f.name) for f in fields(DisplayConfig)},
        "panels": panels,
        "verify": {"port": config.verify.port, "address": config.verify.address},
    }
    return doc


def dumps(config: Config, existing: str | None = None) -> str:
    """The configuration as TOML text, written over ``existing`` (the file as it is now): only
    the settings whose value changed are rewritten, so a hand-edited file keeps its comments,
    order, layout and the settings it leaves to their defaults (tomlkit). Without a file (or
    when it is not TOML) the commented reference ``default_config.toml`` is the starting point."""
    doc: Any = None
    if existing is not None:
        try:
            doc = tomlkit.parse(existing)
            before = to_dict(loads(existing)[0])
        except (tomlkit.exceptions.TOMLKitError, ConfigError):
            doc = None
    if doc is None:
        doc = tomlkit.parse(default_toml())
        before = to_dict(Config())
    _update(doc, before, to_dict(config))
    return tomlkit.dumps(doc)


def save(config: Config, path: str | os.PathLike[str] | None = None,
         env: Mapping[str, str] | None = None) -> Path:
    """Write the configuration atomically and privately (0600; a new folder 0700), keeping the
    comments of the file already there; return the path."""
    p = Path(path) if path is not None else config_path(env)
    if not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        existing: str | None = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = None
    except (OSError, UnicodeDecodeError) as e:
        raise OSError(f"{p}: cannot read the file to update it ({e})") from None
    write_atomically(p, dumps(config, existing).encode("utf-8"))
    return p


def _update(target: Any, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    """Change the tomlkit table ``target`` (which reads as ``before``) so it reads as ``after``,
    touching only what differs."""
    for key in [k for k in before if k not in after]:
        if key in target:
            del target[key]
    for key, value in after.items():
        old = before.get(key)
        if isinstance(value, Mapping):
            if old == value and key in target:
                continue
            made = key not in target or not isinstance(target[key], Mapping)
            if made:
                if key in target:
                    del target[key]
                target[key] = tomlkit.table()
            _update(target[key], old if isinstance(old, Mapping) else {}, value)
            if made and not target[key]:
                del target[key]
        elif not _same(old, value):  # a setting left as it was keeps its spelling (or its absence)
            target[key] = tomlkit.value(f"0x{value:02x}") if isinstance(value, Hex) else value


def _same(old: Any, new: Any) -> bool:
    """Equal values of the same TOML type (true is not 1; 0x20 is 32)."""
    def plain(v: Any) -> Any:
        v = v.unwrap() if hasattr(v, "unwrap") else v
        return int(v) if isinstance(v, int) and not isinstance(v, bool) else v
    a, b = plain(old), plain(new)
    return type(a) is type(b) and a == b
