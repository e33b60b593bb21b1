"""Actions a seat can take, and their form in game records.

An ``Action`` is a small immutable pair ``(kind, value)``; the seat that takes it is passed
alongside (``state.apply(action, seat)``) because passes are simultaneous. Values:

=============  =====================================================  ==========================
kind           value                                                  record form
=============  =====================================================  ==========================
``draw``       ``"keep"`` or ``"discard"``                            ``{"draw": "keep"}``
``double_nil`` ``True``                                               ``{"double_nil": true}``
``exchange``   ``(give, get)``: two sorted tuples of cards            ``{"exchange": {...}}``
``blind_nil``  ``True``                                               ``{"blind_nil": true}``
``bid``        0..13 (0 is Nil)                                       ``{"bid": 4}``
``pass``       a sorted tuple of cards                                ``{"pass": ["QS", ...]}``
``play``       one card                                               ``{"play": "2C"}``
``moon``       ``"self"`` or ``"others"``                             ``{"moon": "others"}``
=============  =====================================================  ==========================

Plays are by far the most common action, so ``PLAY[card]`` holds one shared object per card.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from . import cards as C
from .errors import RecordError

KINDS = ("draw", "double_nil", "exchange", "blind_nil", "bid", "pass", "play", "moon")


class Action(NamedTuple):
    kind: str
    value: Any

    def describe(self) -> str:
        """Words for messages: 'play KH', 'bid 4', 'pass QS AH KH'. A malformed value (an
        action built by hand, e.g. ``Action("play", "XX")``) is shown as it is, so that the
        IllegalAction refusing it can still be raised."""
        try:
            return self._describe()
        except (TypeError, ValueError, IndexError, KeyError):
            return f"{self.kind} {self.value!r}"

    def _describe(self) -> str:
        k, v = self.kind, self.value
        if k == "play":
            return f"play {C.NAMES[v]}"
        if k == "bid":
            return "bid Nil" if v == 0 else f"bid {v}"
        if k == "pass":
            return "pass " + " ".join(C.names(v))
        if k == "draw":
            return "keep the card" if v == "keep" else "discard the card"
        if k == "double_nil":
            return "declare Double Nil"
        if k == "blind_nil":
            return "declare Blind Nil"
        if k == "exchange":
            give, get = v
            return f"exchange {' '.join(C.names(give)) or 'nothing'} for {' '.join(C.names(get)) or 'nothing'}"
        if k == "moon":
            return f"choose the moon for {'themself' if v == 'self' else 'the others'}"
        return f"{k} {v!r}"

    def __str__(self) -> str:
        return self.describe()


PLAY: tuple[Action, ...] = tuple(Action("play", c) for c in range(52))
BIDS: tuple[Action, ...] = tuple(Action("bid", n) for n in range(14))
KEEP = Action("draw", "keep")
DISCARD = Action("draw", "discard")
DOUBLE_NIL = Action("double_nil", True)
BLIND_NIL = Action("blind_nil", True)
MOON_SELF = Action("moon", "self")
MOON_OTHERS = Action("moon", "others")


def play(card: C.Card | str) -> Action:
    return PLAY[C.to_card(card)]


def bid(n: int) -> Action:
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 13:
        raise ValueError(f"a bid is a whole number from 0 to 13, not {n!r}")
    return BIDS[n]


def pass_cards(cards: Iterable[C.Card | str]) -> Action:
    return Action("pass", tuple(sorted(C.to_card(c) for c in cards)))


def exchange(give: Iterable[C.Card | str], get: Iterable[C.Card | str]) -> Action:
    return Action(
        "exchange",
        (tuple(sorted(C.to_card(c) for c in give)), tuple(sorted(C.to_card(c) for c in get))),
    )


def to_record(seat: int, action: Action) -> dict[str, Any]:
    """The JSON object of RECORDS.md for one action, canonical card names."""
    k, v = action
    if k in ("play",):
        val: Any = C.NAMES[v]
    elif k == "pass":
        val = C.names(v)
    elif k == "exchange":
        val = {"give": C.names(v[0]), "get": C.names(v[1])}
    else:
        val = v
    return {"seat": seat, k: val}


def from_record(obj: object, where: str = "action") -> tuple[int, Action]:
    """Parse one record action; raises RecordError naming ``where`` and what is wrong."""
    if not isinstance(obj, dict):
        raise RecordError(where, f"an action must be an object, not {type(obj).__name__}")
    seat = obj.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise RecordError(f"{where}.seat", f"must be a whole number, not {seat!r}")
    keys = [k for k in obj if k != "seat"]
    known = [k for k in keys if k in KINDS]
    if len(known) != 1 or len(keys) != 1:
        if not keys:
            raise RecordError(where, "has no action (one of " + ", ".join(KINDS) + ")")
        unknown = [k for k in keys if k not in KINDS]
        if unknown:
            raise RecordError(where, f"unknown action {unknown[0]!r} (one of {', '.join(KINDS)})")
        raise RecordError(where, f"must hold exactly one action, not {', '.join(keys)}")
    kind = known[0]
    v = obj[kind]
    field = f"{where}.{kind}"
    try:
        if kind == "play":
            return seat, PLAY[C.parse(v)]
        if kind == "bid":
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 13:
                raise RecordError(field, f"a bid is a whole number from 0 to 13, not {v!r}")
            return seat, BIDS[v]
        if kind == "pass":
            if not isinstance(v, list):
                raise RecordError(field, f"must be a list of cards, not {v!r}")
            return seat, pass_cards(C.parse_all(v))
        if kind == "draw":
            if v not in ("keep", "discard"):
                raise RecordError(field, f"must be \"keep\" or \"discard\", not {v!r}")
            return seat, KEEP if v == "keep" else DISCARD
        if kind in ("double_nil", "blind_nil"):
            if v is not True:
                raise RecordError(field, f"must be true, not {v!r}")
            return seat, DOUBLE_NIL if kind == "double_nil" else BLIND_NIL
        if kind == "moon":
            if v not in ("self", "others"):
                raise RecordError(field, f"must be \"self\" or \"others\", not {v!r}")
            return seat, MOON_SELF if v == "self" else MOON_OTHERS
        # exchange
        if not isinstance(v, dict) or set(v) != {"give", "get"}:
            raise RecordError(field, "must be an object with \"give\" and \"get\" lists of cards")
        give, get = v["give"], v["get"]
        if not isinstance(give, list) or not isinstance(get, list):
            raise RecordError(field, "\"give\" and \"get\" must be lists of cards")
        return seat, exchange(C.parse_all(give), C.parse_all(get))
    except RecordError:
        raise
    except ValueError as e:
        raise RecordError(field, str(e)) from None
