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
from typing import Any

from trickref.engine import catalog

METHODS = ("average", "matchpoints")


def sense(game: str) -> int:
    """+1 when more points are better, -1 when fewer are (the games whose lower total wins)."""
    return -1 if catalog.info(game).lower_total_wins else 1


def units(game: str, players: int) -> list[tuple[int, ...]]:
    """The compared units: seats, or the two partnerships of partnership Spades."""
    if catalog.info(game).teams:
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
    k = len(results)
    for unit in units(game, n):
        lead = unit[0]
        column = [pts[lead] for pts in results.values()]
        total = sum(column)
        for t, own in zip(results, column, strict=True):
            if k == 1:
                score = Fraction(0)
            elif method == "average":
                # own against the mean of the other k-1 tables, in whole numbers until the end
                score = Fraction(sgn * (own * (k - 1) - (total - own)), k - 1)
            else:
                beaten = sum(1 for o in column if sgn * (own - o) > 0)
                ties = column.count(own) - 1
                score = Fraction(2 * beaten + ties, 2)
            for s in unit:
                out[t][s] = score
    return out


Board = tuple[int, int]  # (round, board)


def night_scores(game: str, boards: Mapping[Board, Mapping[str, Sequence[int]]],
                 method: str = "average", cache: dict[Board, Any] | None = None,
                 ) -> tuple[dict[tuple[str, int], Fraction], dict[Board, dict[str, list[Fraction]]]]:
    """Sum of board scores per (table, seat), and every board's scores. ``cache`` (a dict the
    caller keeps) holds each board's scores with the results they came from, so a new result
    recomputes only its own board."""
    totals: dict[tuple[str, int], Fraction] = {}
    per_board: dict[Board, dict[str, list[Fraction]]] = {}
    for key in sorted(boards):
        snap = tuple(sorted((t, tuple(p)) for t, p in boards[key].items()))
        hit = cache.get(key) if cache is not None else None
        if hit is not None and hit[0] == snap:
            scores = hit[1]
        else:
            scores = board_scores(game, boards[key], method)
            if cache is not None:
                cache[key] = (snap, scores)
        per_board[key] = scores
        for t, row in scores.items():
            for s, v in enumerate(row):
                totals[(t, s)] = totals.get((t, s), Fraction(0)) + v
    return totals, per_board
