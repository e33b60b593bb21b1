"""Every rule option of every game, with its allowed values and default (RULES.md, 'Options at a
glance'). The kiosk builds its options screen from these specs, records store only the options
that differ from the defaults, and ``resolve`` checks a given set and fills in the rest."""

from __future__ import annotations

from collections.abc import Mapping
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


def _target(default: int, minimum: int, presets: tuple[int, ...]) -> OptionSpec:
    return OptionSpec(
        "target", "int", default, "the game ends after a hand in which someone reaches this score",
        minimum=minimum, presets=presets,
    )


_FAILED_NIL_BAGS = OptionSpec(
    "failed_nil_tricks_are_bags", "bool", False,
    "tricks taken by a failed Nil (or Double/Blind Nil) count as bags",
)

SPECS: dict[str, tuple[OptionSpec, ...]] = {
    "spades-2p": (
        _target(500, 1, (200, 300, 500)),
        OptionSpec("first_bidder", "choice", "second", "who bids first: the second player (the dealer, as the seed says) or the first player",
                   choices=("second", "first")),
        _FAILED_NIL_BAGS,
    ),
    "cancellation-hearts": (
        _target(150, 100, (100, 150, 200)),
        OptionSpec("passing", "choice", "left-right", "pass 3 cards left then right alternately, always right, or not at all",
                   choices=("left-right", "right", "none")),
        OptionSpec("no_points_on_first_trick", "bool", False,
                   "a player void in the led suit may not play a heart or QS to the first trick unless holding nothing else"),
        OptionSpec("last_trick_cancelled", "choice", "nobody",
                   "who takes the cards when the last trick of a hand is fully cancelled",
                   choices=("nobody", "leader")),
        OptionSpec("moon_self", "int", -28, "the shooter's score for the hand on choosing 'self'"),
        OptionSpec("moon_others", "int", 26, "every other player's score on the shooter choosing 'others'"),
    ),
    "german-whist": (
        _target(15, 1, (7, 15, 21)),
        OptionSpec("score_all_tricks", "bool", False,
                   "score tricks over 13 across all 26 tricks instead of tricks over 6 in stage two"),
    ),
    "partnership-spades": (
        _target(500, 1, (100, 200, 300, 500)),
        OptionSpec("trump", "choice", "clubs", "the fixed trump suit (the seed names clubs)", choices=("clubs", "spades")),
        OptionSpec("must_beat", "bool", True,
                   "the seed's duty to beat: head the trick in the led suit if possible, else trump (over-trump) if possible"),
        OptionSpec("first_lead", "choice", "dealer", "who leads the first trick: the dealer (seed) or the player on the dealer's left",
                   choices=("dealer", "left")),
        OptionSpec("blind_nil_margin", "int", 100, "Blind Nil is allowed when the team trails by more than this", minimum=0),
        OptionSpec("cap_team_bid_at_13", "bool", False, "a team's two bids may not add up to more than 13"),
        OptionSpec("nil_tricks_count_for_partner", "bool", False, "a Nil bidder's tricks count toward the partner's contract"),
        _FAILED_NIL_BAGS,
        OptionSpec("loss_floor", "int_or_null", None, "a team at or below this score loses at once (off when null)",
                   presets=(None, -200, -500)),
    ),
    "hearts": (
        _target(100, 50, (50, 100, 150)),
        OptionSpec("moon_self", "int", -25, "the shooter's score for the hand on choosing 'self'"),
        OptionSpec("moon_others", "int", 26, "every other player's score on the shooter choosing 'others'"),
        OptionSpec("omnibus", "bool", False, "the omnibus card counts -10 for whoever takes it"),
        OptionSpec("omnibus_card", "choice", "TD", "the omnibus card", choices=("TD", "JD")),
    ),
}


def defaults(game: str) -> dict[str, Any]:
    return {s.name: s.default for s in SPECS[game]}


def resolve(game: str, given: Mapping[str, Any] | None, field: str = "options") -> dict[str, Any]:
    """All options of ``game``: the defaults overridden by ``given``, each checked."""
    specs = {s.name: s for s in SPECS[game]}
    out = defaults(game)
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
