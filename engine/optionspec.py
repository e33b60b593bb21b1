"""What one rule option is: its name, kind, default, allowed values and help (RULES.md,
'Options at a glance'). Each game's descriptor (``catalog.GameInfo.options``) lists its own;
``options`` checks a given set against them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import RecordError


@dataclass(frozen=True)
class OptionSpec:
    """One rule option. ``kind`` is 'bool', 'int', 'choice' or 'int_or_null'."""

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    presets: tuple[Any, ...] = ()  # values the kiosk offers as buttons (ints)

    def check(self, value: Any, field: str) -> Any:
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise RecordError(field, f"must be true or false, not {value!r}")
            return value
        if self.kind == "choice":
            if value not in self.choices:
                allowed = ", ".join(repr(c) for c in self.choices)
                raise RecordError(field, f"must be one of {allowed}, not {value!r}")
            return value
        if self.kind == "int_or_null" and value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise RecordError(field, f"must be a whole number, not {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise RecordError(field, f"must be at least {self.minimum}, not {value}")
        return value


def target(default: int, minimum: int, presets: tuple[int, ...]) -> OptionSpec:
    """The ``target`` option every game has: the score that ends the game."""
    return OptionSpec(
        "target", "int", default, "the game ends after a hand in which someone reaches this score",
        minimum=minimum, presets=presets,
    )


FAILED_NIL_BAGS = OptionSpec(
    "failed_nil_tricks_are_bags", "bool", False,
    "tricks taken by a failed Nil (or Double/Blind Nil) count as bags",
)
