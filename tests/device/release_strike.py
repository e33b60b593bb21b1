"""Strike a fault at a chosen card of the first Release (the hand-over of passed cards) in a
SimTable: the firmware's own report of a delivered card is wrapped, so the fault strikes on the
simulator's thread at the same card whatever the machine's load."""

from __future__ import annotations

from collections.abc import Callable

from trickref.device.dealer import messages as m
from trickref.device.simulated.table import SimTable
from trickref.engine.referee.commands import Release


def at_release_card(table: SimTable, after: int, strike: Callable[[], None]) -> list[int]:
    """Call ``strike()`` when the dealer puts the ``after``-th card of the first Release in its
    pocket; returns a list that gets the Release's step number when it struck."""
    hit: list[int] = []
    sim = table.sim
    assert sim is not None
    fw = sim.firmware.dealer
    landed = fw.landed
    count = [0]

    def wrapper(card: int, target: int, conf: int, kind_: int) -> None:
        landed(card, target, conf, kind_)
        steps = table.referee.steps
        head = steps[0] if steps else None
        if hit or kind_ != m.EV_CARD_DEALT or not isinstance(head, Release):
            return
        count[0] += 1
        if count[0] == after:
            hit.append(head.step)
            strike()

    fw.landed = wrapper
    return hit
