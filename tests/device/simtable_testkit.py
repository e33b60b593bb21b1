"""Shared helpers of the tests that drive a whole ``SimTable`` through its referee: the commands
the referee gives kept for the test to read, and the table brought to its first deal."""

from __future__ import annotations

from typing import Any

from trickref.device.simulated.table import SimTable


def keep_commands(table: SimTable) -> list[Any]:
    """Every command the referee gives from now on, kept in the list returned (the host's own
    handler still gets them)."""
    cmds: list[Any] = []
    on = table.host.on_commands

    def keep(out: list[Any]) -> None:
        cmds.extend(out)
        if on is not None:
            on(out)

    table.host.on_commands = keep
    return cmds


def dealt(table: SimTable) -> Any:
    """``table`` started and its first hand dealt (a passing game stops in its pass); the game."""
    table.start()
    table.run(max_hands=0)  # up to the first shuffle
    table._deal_next()
    g = table.referee.game
    assert g is not None
    return g
