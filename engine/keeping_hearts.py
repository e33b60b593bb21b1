"""Keep-score rules of the two Hearts games (keeping.Keeping): hearts and the Q♠ taken per
player, the moon choice, Hearts' omnibus card and what nobody took in Cancellation Hearts,
scored by the games' own functions (hearts_common.moon_points, hearts.omnibus_points)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import cards as C
from .hearts_common import POINTS, moon_points
from .keeping import EntryError, Keeping, is_int

_QS_POINTS = POINTS[C.QS]
_HEART_POINTS = POINTS[C.HEARTS * 13]


class _HeartsFamily(Keeping):
    def moon_choice(self, e: Mapping[str, Any], taken: list[int]) -> str | None:
        moon = e.get("moon")
        if self.MOON_TOTAL in taken:
            shooter = taken.index(self.MOON_TOTAL)
            if moon not in ("self", "others"):
                raise EntryError(f"{self.names[shooter]} shot the moon: choose \"self\" "
                                 f"({self.options['moon_self']:+d} for {self.names[shooter]}) or \"others\" "
                                 f"({self.options['moon_others']:+d} for everyone else)")
            return str(moon)
        if moon is not None:
            raise EntryError("nobody shot the moon (all hearts and the Q\u2660), so there is no moon choice")
        return None

    def score(self, e: Mapping[str, Any]) -> list[int]:
        sheet, o = self.sheet, self.sheet.options
        taken = self.points_taken(e)
        assert taken is not None
        if self.MOON_TOTAL in taken:
            return moon_points(taken.index(self.MOON_TOTAL), sheet.n, e["moon"], o["moon_self"], o["moon_others"])
        return taken

    def _hearts_of(self, e: Mapping[str, Any]) -> list[int] | None:
        hearts = e.get("hearts")
        if not isinstance(hearts, list) or len(hearts) != self.sheet.n or not all(is_int(x) for x in hearts):
            return None
        return hearts


class HeartsKeeping(_HeartsFamily):
    """Hearts: hearts per player (13), who took the Q♠, who took the omnibus card (with the
    omnibus option), the moon choice."""

    EXTRA_KEYS = frozenset({"omnibus", "moon"})  # omnibus may be given as null while the option is off
    MOON_TOTAL = 26

    def schema(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [
            {"key": "hearts", "kind": "count", "label": "Hearts", "min": 0, "max": 13, "sum": 13},
            {"key": "qs", "kind": "holder", "label": "Q\u2660"},
        ]
        if self.sheet.options["omnibus"]:
            out.append({"key": "omnibus", "kind": "holder", "label": self.holder_label("omnibus")})
        return out

    def holder_label(self, key: str) -> str:
        if key != "omnibus":
            return "Q\u2660" if key == "qs" else key
        card = self.sheet.options["omnibus_card"]
        return f"{card[0].replace('T', '10')}{C.SUIT_SYMBOLS[C.SUITS.index(card[1])]}"

    def canonical(self, entries: Mapping[str, Any], amending: bool) -> dict[str, Any]:
        hearts = self.counts(entries, "hearts", 0, 13, "hearts")
        self.adds_up(hearts, 13, "hearts", "one deck has 13 hearts and no heart is ever set aside")
        qs = self.holder(entries, "qs", "Q\u2660")
        omnibus: int | None = None
        if self.sheet.options["omnibus"]:
            omnibus = self.holder(entries, "omnibus", self.holder_label("omnibus"))
        elif entries.get("omnibus") is not None:
            raise EntryError("the omnibus option is off: nobody scores for the omnibus card")
        taken = [h * _HEART_POINTS + (_QS_POINTS if s == qs else 0) for s, h in enumerate(hearts)]
        moon = self.moon_choice(entries, taken)
        return {"hearts": hearts, "qs": qs, "omnibus": omnibus, "moon": moon}

    def points_taken(self, e: Mapping[str, Any]) -> list[int] | None:
        hearts = self._hearts_of(e)
        qs = e.get("qs")
        if hearts is None or not is_int(qs):
            return None
        return [h * _HEART_POINTS + (_QS_POINTS if s == qs else 0) for s, h in enumerate(hearts)]

    def score(self, e: Mapping[str, Any]) -> list[int]:
        from .hearts import omnibus_points

        pts = super().score(e)
        o = self.sheet.options
        taker = e.get("omnibus")
        extra = omnibus_points(self.sheet.n, -1 if taker is None else taker, o["omnibus"])
        return [p + x for p, x in zip(pts, extra, strict=True)]

    @staticmethod
    def from_figures(options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
        hearts = [int(x) for x in figures["hearts"]]
        queens = [int(x) for x in figures["queens"]]
        omnibus = figures.get("omnibus") if options.get("omnibus") else None
        return {"hearts": hearts, "qs": queens.index(1) if 1 in queens else None, "omnibus": omnibus,
                "moon": figures.get("moon")}


class CancellationKeeping(_HeartsFamily):
    """Cancellation Hearts (two decks): hearts (26) and Q♠ (2) per player, with what nobody
    took (only under ``last_trick_cancelled = "nobody"``), the moon choice."""

    EXTRA_KEYS = frozenset({"nobody_hearts", "nobody_qs", "moon"})
    MOON_TOTAL = 52

    def schema(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [
            {"key": "hearts", "kind": "count", "label": "Hearts", "min": 0, "max": 26, "sum": 26},
            {"key": "qs", "kind": "count", "label": "Q\u2660", "min": 0, "max": 2, "sum": 2},
        ]
        if self.sheet.options["last_trick_cancelled"] == "nobody":
            out.append({"key": "nobody_hearts", "kind": "number", "label": "Hearts nobody took", "min": 0, "max": 26})
            out.append({"key": "nobody_qs", "kind": "number", "label": "Q\u2660 nobody took", "min": 0, "max": 2})
        return out

    def nobody(self, key: str, entries: Mapping[str, Any]) -> int:
        extra = entries.get(f"nobody_{key}") or 0 if key in ("hearts", "qs") else 0
        return extra if is_int(extra) else 0

    def canonical(self, entries: Mapping[str, Any], amending: bool) -> dict[str, Any]:
        hearts = self.counts(entries, "hearts", 0, 26, "hearts")
        qs = self.counts(entries, "qs", 0, 2, "Q\u2660")
        nh, nq = entries.get("nobody_hearts", 0) or 0, entries.get("nobody_qs", 0) or 0
        if not is_int(nh) or not is_int(nq) or nh < 0 or nq < 0:
            raise EntryError("what nobody took is a whole number of hearts and of Q\u2660 (0 or more)")
        if nh or nq:
            if self.sheet.options["last_trick_cancelled"] != "nobody":
                raise EntryError("with last_trick_cancelled = \"leader\" the leader takes a cancelled last trick: "
                                 "nobody's share must be 0")
            if nq > 2:
                raise EntryError(f"there are only two Q\u2660, not {nq}")
        self.adds_up([*hearts, nh], 26, "hearts", "two decks have 26 hearts; what nobody took is included")
        self.adds_up([*qs, nq], 2, "Q\u2660", "two decks have two; what nobody took is included")
        taken = [h * _HEART_POINTS + q * _QS_POINTS for h, q in zip(hearts, qs, strict=True)]
        moon = self.moon_choice(entries, taken)
        return {"hearts": hearts, "qs": qs, "nobody_hearts": nh, "nobody_qs": nq, "moon": moon}

    def points_taken(self, e: Mapping[str, Any]) -> list[int] | None:
        hearts = self._hearts_of(e)
        qs = e.get("qs")
        if hearts is None or not isinstance(qs, list) or len(qs) != self.sheet.n or not all(is_int(x) for x in qs):
            return None
        return [h * _HEART_POINTS + q * _QS_POINTS for h, q in zip(hearts, qs, strict=True)]

    @staticmethod
    def from_figures(options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
        hearts = [int(x) for x in figures["hearts"]]
        queens = [int(x) for x in figures["queens"]]
        return {"hearts": hearts, "qs": queens, "nobody_hearts": 26 - sum(hearts), "nobody_qs": 2 - sum(queens),
                "moon": figures.get("moon")}
