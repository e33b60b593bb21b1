"""Every rule option of every game, with its allowed values and default (RULES.md, 'Options at a
glance'). Each game declares its own in its descriptor (``catalog.GameInfo.options``); the
kiosk builds its options screen from them, records store only the options that differ from
the defaults, and ``resolve`` checks a given set and fills in the rest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import catalog
from .errors import RecordError
from .optionspec import OptionSpec

__all__ = ["SPECS", "OptionSpec", "defaults", "non_defaults", "resolve"]

SPECS: Mapping[str, tuple[OptionSpec, ...]] = catalog.Specs()  # game id -> its options


def defaults(game: str) -> dict[str, Any]:
    return catalog.info(game).defaults()


def resolve(game: str, given: Mapping[str, Any] | None, field: str = "options") -> dict[str, Any]:
    """All options of ``game``: the defaults overridden by ``given``, each checked."""
    info = catalog.info(game)
    specs = {s.name: s for s in info.options}
    out = info.defaults()
    if given is None:
        return out
    if not isinstance(given, Mapping):
        raise RecordError(field, f"must be an object of option names and values, not {given!r}")
    for key, value in given.items():
        spec = specs.get(key)
        if spec is None:
            raise RecordError(f"{field}.{key}", f"unknown option for {game} (known: {', '.join(specs)})")
        out[key] = spec.check(value, f"{field}.{key}")
    return out


def non_defaults(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Only the options that differ from the defaults, as a record stores them."""
    d = defaults(game)
    return {k: v for k, v in options.items() if d.get(k) != v}
