"""A game's keep-score rules: what the players enter after a hand and how it scores.

``scorekeeper.ScoreSheet`` is the same for every game: entries per hand, corrections, undo,
records. What differs per game lives in its ``Keeping`` subclass, which the game's descriptor
names (``catalog.GameInfo.keeping``): the fields of one hand's entry (``schema``), their checks
(``canonical``), the points (``score``), the game's end (``game_end``) and the entries a hand
played through the engine amounts to (``from_figures``). The built-in games' are in
keeping_spades.py, keeping_hearts.py and keeping_whist.py; this module also has the checks they
share (``counts``, ``flags``, ``holder``, ``adds_up``).

A keeping reads its sheet's ``n``, ``names``, ``options``, ``totals``, ``bags`` (which
``score`` updates in the games with bags) and ``amending``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeGuard

from . import catalog
from .base import lowest_total_wins
from .spades_common import higher_total_wins

HAND_TRICKS = 13


class EntryError(ValueError):
    """An entry that cannot be right. ``reason`` says why in words; ``hand`` is the hand's
    index (from 0) when replaying a record, else None."""

    def __init__(self, reason: str, hand: int | None = None) -> None:
        self.reason = reason
        self.hand = hand
        super().__init__(reason if hand is None else f"hand {hand}: {reason}")


def is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


class Keeping:
    """The keep-score rules of one game on one sheet (``sheet``: a scorekeeper.ScoreSheet)."""

    EXTRA_KEYS: ClassVar[frozenset[str]] = frozenset()  # entry keys accepted beyond the schema's
    MOON_TOTAL: ClassVar[int] = 0  # the points of a moon shot (0: the game has none)

    def __init__(self, sheet: Any) -> None:
        self.sheet = sheet

    @property
    def n(self) -> int:
        return int(self.sheet.n)

    @property
    def names(self) -> list[str]:
        return list(self.sheet.names)

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.sheet.options)

    # ------------------------------------------------------------------ the game's own
    def schema(self) -> list[dict[str, Any]]:
        """The fields of one hand's entry (see ``ScoreSheet.schema``)."""
        raise NotImplementedError

    def canonical(self, entries: Mapping[str, Any], amending: bool) -> dict[str, Any]:
        """The entries checked (known keys already) and in canonical form."""
        raise NotImplementedError

    def score(self, e: Mapping[str, Any]) -> list[int]:
        """The points of canonical entries ``e`` (updating ``sheet.bags`` where the game has bags)."""
        raise NotImplementedError

    @staticmethod
    def from_figures(options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
        """A played hand's entries from the engine's figures of it (``GameState._hand_figures``)."""
        raise NotImplementedError

    def game_end(self) -> tuple[bool, list[int]]:
        """(over, winners) by the sheet's totals; default: the target reached, the lowest total
        wins where the game's does, else the highest (ties play on)."""
        t, target = self.sheet.totals, self.sheet.options["target"]
        lower = catalog.info(self.sheet.GAME_ID).lower_total_wins
        return lowest_total_wins(t, target) if lower else higher_total_wins(t, target)

    def nil_allowed(self, seat: int) -> bool:
        """Whether ``seat`` may declare the game's special Nil this hand."""
        return False

    def nobody(self, key: str, entries: Mapping[str, Any]) -> int:
        """What nobody took of count ``key`` (added in the running tally)."""
        return 0

    def points_taken(self, e: Mapping[str, Any]) -> list[int] | None:
        """Each seat's card points (moon games), or None when they cannot be read."""
        return None

    def holder_label(self, key: str) -> str:
        """The label of holder field ``key`` (its card, in words)."""
        return key

    # ------------------------------------------------------------------ shared checks
    def counts(self, e: Mapping[str, Any], key: str, lo: int, hi: int, what: str) -> list[int]:
        v = e.get(key)
        if not isinstance(v, list) or len(v) != self.n:
            raise EntryError(f"{what}: one whole number per player ({self.n}) is needed")
        for s, x in enumerate(v):
            if not is_int(x):
                raise EntryError(f"{what} of {self.names[s]}: a whole number is needed, not {x!r}")
            if not lo <= x <= hi:
                raise EntryError(f"{what} of {self.names[s]}: {x} is not possible (from {lo} to {hi})")
        return list(v)

    def flags(self, e: Mapping[str, Any], key: str) -> list[bool]:
        v = e.get(key, [False] * self.n)
        if v is None:
            v = [False] * self.n
        if not isinstance(v, list) or len(v) != self.n or not all(isinstance(x, bool) for x in v):
            raise EntryError(f"{key.replace('_', ' ')}: one true or false per player is needed")
        return list(v)

    def holder(self, e: Mapping[str, Any], key: str, what: str) -> int:
        v = e.get(key)
        if v is None:
            raise EntryError(f"who took the {what}? Tap that player's name")
        if isinstance(v, list):
            holders = [s for s, x in enumerate(v) if x]
            if len(holders) > 1:
                raise EntryError(f"only one player can take the {what} (one deck): "
                                 + " and ".join(self.names[s] for s in holders) + " are both marked")
            if not holders:
                raise EntryError(f"who took the {what}? Tap that player's name")
            return holders[0]
        if not is_int(v) or not 0 <= v < self.n:
            raise EntryError(f"the {what} holder must be a seat from 0 to {self.n - 1}, not {v!r}")
        return int(v)

    @staticmethod
    def adds_up(counts: Sequence[int], want: int, what: str, why: str) -> None:
        got = sum(counts)
        if got != want:
            raise EntryError(f"the {what} add up to {got}, not {want} ({why})")


class TricksKeeping(Keeping):
    """Plain trick games: each player's tricks this hand (adding up to ``tricks_per_hand``),
    a point per trick. A game with other scoring overrides ``score`` (and ``tricks_per_hand``,
    ``FIELD`` and ``LABEL`` for the field's range, name and words)."""

    FIELD: ClassVar[str] = "tricks"
    LABEL: ClassVar[str] = "Tricks"

    def tricks_per_hand(self) -> int:
        return HAND_TRICKS

    def schema(self) -> list[dict[str, Any]]:
        total = self.tricks_per_hand()
        return [{"key": self.FIELD, "kind": "count", "label": self.LABEL, "min": 0, "max": total, "sum": total}]

    def canonical(self, entries: Mapping[str, Any], amending: bool) -> dict[str, Any]:
        total = self.tricks_per_hand()
        what = self.LABEL.lower()
        tricks = self.counts(entries, self.FIELD, 0, total, what)
        self.adds_up(tricks, total, what, f"a hand has {total} {what}, each won by someone")
        return {self.FIELD: tricks}

    def score(self, e: Mapping[str, Any]) -> list[int]:
        return [int(t) for t in e[self.FIELD]]

    @staticmethod
    def from_figures(options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
        return {"tricks": [int(t) for t in figures["tricks_taken"]]}
