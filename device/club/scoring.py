"""Duplicate scoring: each seat (or team) against the same seat at the other tables that played
the same board. Pure functions; docs/CLUB.md works examples by hand.

A *board* is one deck order (round r, hand b) dealt at every table, so the same seat gets the
same cards everywhere and only the play differs. For each table and each *unit* (a seat, or in
partnership Spades a team: seats 0+2 and 1+3) the board score compares the unit's points with
the same unit's points at every other table that played the board:

``average`` (the default)
    ``sense * (own - mean(others))``: points better than the field's average. ``sense`` is -1 for
    the Hearts family (fewer points are better) and +1 for Spades and German Whist.
``matchpoints``
    one point for each other table the unit beat, a half for each tie; a top is
    ``tables - 1``.

A board played at one table only scores 0 for everybody (there is no field yet). Scores are
exact ``Fraction``s; a player's night score is the sum over the boards they played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from engine.games import game_class

METHODS = ("average", "matchpoints")
LOWER_IS_BETTER = ("hearts", "cancellation-hearts")


def sense(game: str) -> int:
    """+1 when more points are better, -1 when fewer are (the Hearts family)."""
    return -1 if game in LOWER_IS_BETTER else 1


def units(game: str, players: int) -> list[tuple[int, ...]]:
    """The compared units: seats, or the two partnerships of partnership Spades."""
    if game_class(game).TEAMS:
        return [(0, 2), (1, 3)]
    return [(s,) for s in range(players)]


def board_scores(game: str, results: Mapping[str, Sequence[int]],
                 method: str = "average") -> dict[str, list[Fraction]]:
    """Per table, per seat, the duplicate score of one board. ``results`` maps each table that
    played the board to its points per seat (the hand's result row). Partners share their
    team's score (a team's points are its first seat's: partners' points are equal)."""
    if method not in METHODS:
        raise ValueError(f"unknown scoring method {method!r} (one of {', '.join(METHODS)})")
    if not results:
        return {}
    n = len(next(iter(results.values())))
    for t, pts in results.items():
        if len(pts) != n:
            raise ValueError(f"table {t} has {len(pts)} seats on this board, the others {n}")
    sgn = sense(game)
    out: dict[str, list[Fraction]] = {t: [Fraction(0)] * n for t in results}
    for unit in units(game, n):
        lead = unit[0]
        for t, pts in results.items():
            own = pts[lead]
            others = [p[lead] for o, p in results.items() if o != t]
            if not others:
                score = Fraction(0)
            elif method == "average":
                score = sgn * (Fraction(own) - Fraction(sum(others), len(others)))
            else:
                score = sum((Fraction(1) if sgn * (own - o) > 0 else Fraction(1, 2) if own == o else Fraction(0)
                             for o in others), Fraction(0))
            for s in unit:
                out[t][s] = score
    return out


Board = tuple[int, int]  # (round, board)


def night_scores(game: str, boards: Mapping[Board, Mapping[str, Sequence[int]]],
                 method: str = "average") -> tuple[dict[tuple[str, int], Fraction],
                                                   dict[Board, dict[str, list[Fraction]]]]:
    """Sum of board scores per (table, seat), and every board's scores."""
    totals: dict[tuple[str, int], Fraction] = {}
    per_board: dict[Board, dict[str, list[Fraction]]] = {}
    for key in sorted(boards):
        scores = board_scores(game, boards[key], method)
        per_board[key] = scores
        for t, row in scores.items():
            for s, v in enumerate(row):
                totals[(t, s)] = totals.get((t, s), Fraction(0)) + v
    return totals, per_board
