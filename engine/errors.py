"""Errors of the rules engine. Both subclass ValueError and carry what was wrong in words."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules do not allow now. ``reason`` names the rule, e.g. 'must follow clubs'.

    ``str(err)`` reads like 'seat 3 cannot play KH: must follow clubs'.
    """

    def __init__(self, seat: int | None, action: object, reason: str) -> None:
        self.seat = seat
        self.action = action
        self.reason = reason
        who = f"seat {seat}" if seat is not None else "nobody"
        super().__init__(f"{who} cannot {_describe(action)}: {reason}")


def _describe(action: object) -> str:
    describe = getattr(action, "describe", None)
    if callable(describe):
        return str(describe())
    return repr(action)


class RecordError(ValueError):
    """A game record (or option set) that is not valid. ``field`` names where, e.g. 'hands[2].deck'."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")
