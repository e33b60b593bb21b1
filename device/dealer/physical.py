"""The dealer's physical constants (device/dealer/physical.toml): one table, with sources.

``load()`` reads the table (geometry, speeds, servo and reader timings, each entry with its
value, unit, source and optional tolerance); ``values()`` flattens it to ``{"servo.swing_ms":
42, ...}``, the plain dict the physical twin (device/dealer/twin.py) takes, on CPython and, as
JSON, on the MicroPython VM; ``firmware_names()`` maps the entries that firmware/config.py must
hold to their config names (tests/device/test_physical.py checks they agree).
"""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

SOURCES = ("datasheet", "design", "estimate", "measured")


def load() -> dict[str, Any]:
    """The whole table as TOML gives it (sections of entries)."""
    text = resources.files("trickref.device.dealer").joinpath("physical.toml").read_text()
    return tomllib.loads(text)


def entries(table: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Every entry as ``"section.name" -> {value, unit, source, ...}`` (sections nest: cad.*)."""
    out: dict[str, dict[str, Any]] = {}

    def walk(prefix: str, node: dict[str, Any]) -> None:
        for key, v in node.items():
            if not isinstance(v, dict):
                continue
            name = f"{prefix}.{key}" if prefix else key
            if "value" in v:
                out[name] = v
            else:
                walk(name, v)

    walk("", load() if table is None else table)
    return out


def values(table: dict[str, Any] | None = None, scale: dict[str, float] | None = None) -> dict[str, Any]:
    """``"section.name" -> value``; ``scale`` multiplies chosen entries (a tolerance sweep)."""
    out = {name: e["value"] for name, e in entries(table).items()}
    for name, factor in (scale or {}).items():
        if name not in out:
            raise KeyError(f"no physical constant {name!r} to scale")
        out[name] = out[name] * factor
    return out


def tolerances(table: dict[str, Any] | None = None) -> dict[str, float]:
    """The entries with a tolerance: ``"section.name" -> relative tolerance``."""
    return {name: float(e["tol"]) for name, e in entries(table).items() if "tol" in e}


def firmware_names(table: dict[str, Any] | None = None) -> dict[str, str]:
    """``"section.name" -> firmware/config.py name`` for the entries the firmware holds too."""
    return {name: e["firmware"] for name, e in entries(table).items() if "firmware" in e}
