"""Keep-score rules of German Whist (keeping.Keeping): each player's stage-two tricks (13), or
all tricks (26) with ``score_all_tricks``, scored by german_whist.hand_points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .keeping import HAND_TRICKS, Keeping


class GermanWhistKeeping(Keeping):
    def _total(self) -> int:
        return 26 if self.sheet.options["score_all_tricks"] else HAND_TRICKS

    def schema(self) -> list[dict[str, Any]]:
        total = self._total()
        label = "Tricks (all)" if self.sheet.options["score_all_tricks"] else "Stage-two tricks"
        return [{"key": "tricks", "kind": "count", "label": label, "min": 0, "max": total, "sum": total}]

    def canonical(self, entries: Mapping[str, Any], amending: bool) -> dict[str, Any]:
        total = self._total()
        what = "tricks" if self.sheet.options["score_all_tricks"] else "stage-two tricks"
        tricks = self.counts(entries, "tricks", 0, total, what)
        self.adds_up(tricks, total, what, f"a hand has {total} {what}, each won by someone")
        return {"tricks": tricks}

    def score(self, e: Mapping[str, Any]) -> list[int]:
        from .german_whist import hand_points

        return list(hand_points(e["tricks"], self.sheet.options["score_all_tricks"]))

    def game_end(self) -> tuple[bool, list[int]]:
        from .german_whist import game_end

        return game_end(self.sheet.totals, self.sheet.options["target"])

    @staticmethod
    def from_figures(options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
        key = "tricks_taken" if options["score_all_tricks"] else "tricks_stage2"
        return {"tricks": [int(t) for t in figures[key]]}
