"""Where every physical card is, as far as the referee knows: the table's physical model.

The rules engine knows who holds what; the table also needs to know where the cards ARE on the
v2 dealer (hardware/PROTOCOL.md section 11): in a seat's pocket, in the trick, discard, centre or
reject pocket, parked in the return loop (the hopper's queue: German Whist's and spades-2p's
stock, passes waiting for everyone, spades-2p discards that may still be drawn), or in the reader
gate (read, not yet routed). The referee updates this model only when the dealer reports a step
done (and for the few moves players make by hand: a card played on the touchscreen is put on the
trick pile), so after a power cut the model says exactly what the dealer had done, and the host
can put a fresh dealer back in that state (``restore``) before re-issuing the step that was
pending.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import cards as C
from .commands import DealerCommand, FeedBack, Fetch, Release, RouteFed

STORES = ("loop", "gate", "discard", "trick", "reject", "centre")  # and "seat:<k>", the pockets


class Places:
    def __init__(self) -> None:
        self.at: dict[str, list[int]] = {}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Places):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def snapshot(self) -> dict[str, Any]:
        return {"at": {k: C.names(v) for k, v in sorted(self.at.items()) if v}}

    def deal(self, plan: Iterable[tuple[str, str]]) -> None:
        """A verified deal: every card where its plan entry sent it (the loop in read order)."""
        self.at = {}
        for name, target in plan:
            self.at.setdefault(target, []).append(C.parse(name))

    def _take(self, store: str, card: int) -> int | None:
        cards = self.at.get(store)
        if cards and card in cards:
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

    def step_done(self, step: DealerCommand, card: int | None = None) -> None:
        """The dealer finished ``step`` (``card``: the card it read, for a FeedBack)."""
        if isinstance(step, RouteFed):
            if step.card is not None:
                self.move(C.parse(step.card), "gate", step.target)
        elif isinstance(step, Fetch):
            self.move(C.parse(step.card), "loop", step.target)
        elif isinstance(step, Release):
            for name, target in step.plan:
                # from the loop; a passed card the dealer rejected came back through the play
                # slot from the reject pocket (never a twin out of somebody's pocket)
                card = C.parse(name)
                src = "loop" if card in self.at.get("loop", []) else "reject"
                self.move(card, src, target)
        elif isinstance(step, FeedBack):
            due = C.parse(step.card)
            if card == due:
                self.move(due, f"seat:{step.seat}", step.target)
            elif card is not None:  # another card was fed: it waits in the gate
                self.move(card, f"seat:{step.seat}", "gate")

    def restore(self) -> tuple[dict[str, list[int]], list[int], list[int]]:
        """What a fresh dealer needs to be put back in this state: the cards in each pocket
        (by target word), the cards parked in the loop (the hopper), and the card(s) in the
        reader gate."""
        pockets = {t: list(cs) for t, cs in sorted(self.at.items()) if t not in ("loop", "gate") and cs}
        return pockets, list(self.at.get("loop", [])), list(self.at.get("gate", []))
