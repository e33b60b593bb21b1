"""Keep-score rules of the two Spades games (keeping.Keeping): bids, the special Nil and tricks
per player, scored by the games' own ``score_hand`` (spades_2p.py, partnership_spades.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .keeping import HAND_TRICKS, EntryError, Keeping
from .spades_common import higher_total_wins


class _SpadesKeeping(Keeping):
    NIL_KEY: ClassVar[str] = ""
    NIL_LABEL: ClassVar[str] = ""

    def schema(self) -> list[dict[str, Any]]:
        return [
            {"key": "bids", "kind": "count", "label": "Bid", "min": 0, "max": 13},
            {"key": self.NIL_KEY, "kind": "toggle", "label": self.NIL_LABEL, "needs_bid_zero": True},
            {"key": "tricks", "kind": "count", "label": "Tricks", "min": 0, "max": 13, "sum": HAND_TRICKS},
        ]

    def check_bids(self, e: Mapping[str, Any]) -> tuple[list[int], list[bool], list[int]]:
        names = self.sheet.names
        bids = self.counts(e, "bids", 0, 13, "bid")
        tricks = self.counts(e, "tricks", 0, 13, "tricks")
        flags = self.flags(e, self.NIL_KEY)
        label = self.NIL_LABEL
        for s in range(self.sheet.n):
            if flags[s] and bids[s] != 0:
                raise EntryError(f"{names[s]} declared {label}, so the bid is 0 (Nil), not {bids[s]}")
        return bids, flags, tricks

    def done(self, bids: list[int], flags: list[bool], tricks: list[int]) -> dict[str, Any]:
        self.adds_up(tricks, HAND_TRICKS, "tricks", "a hand has 13 tricks, each won by someone")
        return {"bids": bids, self.NIL_KEY: flags, "tricks": tricks}

    @classmethod
    def _figures(cls, figures: Mapping[str, Any]) -> dict[str, Any]:
        return {"bids": [0 if b is None else int(b) for b in figures["bids"]],
                cls.NIL_KEY: [bool(x) for x in figures[cls.NIL_KEY]],
                "tricks": [int(t) for t in figures["tricks_taken"]]}


class Spades2PKeeping(_SpadesKeeping):
    """Two-player Spades: Double Nil may always be declared (with a bid of 0)."""

    NIL_KEY = "double_nil"
    NIL_LABEL = "Double Nil"

    def nil_allowed(self, seat: int) -> bool:
        return True

    def canonical(self, entries: Mapping[str, Any], amending: bool) -> dict[str, Any]:
        return self.done(*self.check_bids(entries))

    def score(self, e: Mapping[str, Any]) -> list[int]:
        from .spades_2p import score_hand

        sheet = self.sheet
        assert sheet.bags is not None
        pts, sheet.bags = score_hand(e["bids"], e["double_nil"], e["tricks"], sheet.bags,
                                     sheet.options["failed_nil_tricks_are_bags"])
        return list(pts)

    def game_end(self) -> tuple[bool, list[int]]:
        return higher_total_wins(self.sheet.totals, self.sheet.options["target"])

    @staticmethod
    def from_figures(options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
        return Spades2PKeeping._figures(figures)


class PartnershipKeeping(_SpadesKeeping):
    """Partnership Spades: Blind Nil needs bid 0, at most one per team, and the team trailing
    by more than ``blind_nil_margin`` (not checked when correcting a hand already played)."""

    NIL_KEY = "blind_nil"
    NIL_LABEL = "Blind Nil"

    def nil_allowed(self, seat: int) -> bool:
        sheet = self.sheet
        if sheet.amending:
            return True  # a hand already played: its Blind Nil margin was the table's to judge then
        from .partnership_spades import trails_enough

        return trails_enough(sheet.totals, seat, sheet.options["blind_nil_margin"])

    def canonical(self, entries: Mapping[str, Any], amending: bool) -> dict[str, Any]:
        sheet, names = self.sheet, self.sheet.names
        bids, flags, tricks = self.check_bids(entries)
        for team in (0, 1):
            a, b = team, team + 2
            if flags[a] and flags[b]:
                raise EntryError(f"at most one Blind Nil per team: {names[a]} and {names[b]} both declared it")
        for s in range(sheet.n):
            if not amending and flags[s] and not self.nil_allowed(s):
                us, them = sheet.totals[s], sheet.totals[(s + 1) % 4]
                margin = sheet.options["blind_nil_margin"]
                raise EntryError(
                    f"{names[s]} may not declare Blind Nil: the team must trail by more than {margin} "
                    f"points ({us} to {them} is {'a lead' if us >= them else f'{them - us} behind'})")
        if sheet.options["cap_team_bid_at_13"]:
            for team in (0, 1):
                if bids[team] + bids[team + 2] > 13:
                    raise EntryError(f"{names[team]} and {names[team + 2]} bid {bids[team] + bids[team + 2]} "
                                     "together; a team's bids may not add up to more than 13")
        return self.done(bids, flags, tricks)

    def score(self, e: Mapping[str, Any]) -> list[int]:
        from .partnership_spades import score_hand

        sheet = self.sheet
        assert sheet.bags is not None
        pts, sheet.bags = score_hand(e["bids"], e["blind_nil"], e["tricks"], sheet.bags, sheet.options)
        return list(pts)

    def game_end(self) -> tuple[bool, list[int]]:
        from .partnership_spades import game_end

        return game_end(self.sheet.totals, self.sheet.options)

    @staticmethod
    def from_figures(options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
        return PartnershipKeeping._figures(figures)
