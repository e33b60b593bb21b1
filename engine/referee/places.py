"""Where every physical card is, as far as the referee knows: the table's physical model.

The rules engine knows who holds what; the table also needs to know where the cards ARE: in
the stock magazine (in order), shown to one seat, face up, in the reader gate, in the discard
tray, parked in staging, on the trick pile, in a seat's tray. The referee updates this model
only when the dealer reports a step done (and for the few moves players make by hand: a card
played on the touchscreen is put on the trick pile), so after a power cut the model says
exactly what the dealer had done, and the host can put a fresh dealer back in that state
(``restore_plan``) before re-issuing the step that was pending.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import cards as C
from .commands import (
    DealerCommand,
    DealStock,
    Fetch,
    Present,
    RouteFaceup,
    RouteFed,
    RoutePresented,
    TurnUp,
)

STORES = ("stock", "presented", "faceup", "gate", "discard", "staging", "trick", "reject", "centre")


class Places:
    def __init__(self) -> None:
        self.at: dict[str, list[int]] = {}
        self.presented_to: int | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Places):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def snapshot(self) -> dict[str, Any]:
        return {
            "at": {k: C.names(v) for k, v in sorted(self.at.items()) if v},
            "presented_to": self.presented_to,
        }

    def deal(self, plan: Iterable[tuple[str, str]]) -> None:
        """A verified deal: every card where its plan entry sent it (the stock in plan order)."""
        self.at = {}
        self.presented_to = None
        for name, target in plan:
            self.at.setdefault(target, []).append(C.parse(name))

    def _take(self, store: str, card: int | None = None) -> int | None:
        cards = self.at.get(store)
        if not cards:
            return None
        if card is None:
            return cards.pop(0)
        if card in cards:
            cards.remove(card)
            return card
        return None

    def put(self, store: str, card: int) -> None:
        self.at.setdefault(store, []).append(card)

    def move(self, card: int, src: str, dst: str) -> None:
        """Move one copy of ``card`` from ``src`` (anywhere, if it is not there) to ``dst``."""
        if self._take(src, card) is None:
            for cards in self.at.values():
                if card in cards:
                    cards.remove(card)
                    break
        self.put(dst, card)

    def from_stock(self, dst: str) -> int | None:
        card = self._take("stock")
        if card is not None:
            self.put(dst, card)
        return card

    def step_done(self, step: DealerCommand) -> None:
        """The dealer finished ``step``: move its card."""
        if isinstance(step, Present):
            if self.at.get("presented"):  # cannot happen on a healthy table; keep it findable
                self.put("stock", self.at["presented"].pop())
            self.from_stock("presented")
            self.presented_to = step.seat
        elif isinstance(step, RoutePresented):
            card = self._take("presented")
            if card is not None:
                self.put(step.target, card)
            self.presented_to = None
        elif isinstance(step, TurnUp):
            self.from_stock("faceup")
        elif isinstance(step, DealStock):
            self.from_stock(step.target)
        elif isinstance(step, RouteFaceup):
            card = self._take("faceup")
            if card is not None:
                self.put(step.target, card)
        elif isinstance(step, RouteFed):
            if step.card is not None:
                self.move(C.parse(step.card), "gate", step.target)
        elif isinstance(step, Fetch):
            self.move(C.parse(step.card), step.source, step.target)

    def restore_plan(self) -> tuple[list[tuple[int, str]], int | None, list[int]]:
        """What a fresh dealer needs to be put back in this state: a deal plan of every card
        not in the reader gate (the stock in order, the card shown to a seat on top of it),
        the seat to show the top card to again (or None), and the gate cards to feed again."""
        plan: list[tuple[int, str]] = []
        stock = list(self.at.get("presented", [])) + list(self.at.get("stock", []))
        for target, cards in sorted(self.at.items()):
            if target in ("stock", "presented", "gate"):
                continue
            plan.extend((c, target) for c in cards)
        plan.extend((c, "stock") for c in stock)
        again = self.presented_to if self.at.get("presented") else None
        return plan, again, list(self.at.get("gate", []))
