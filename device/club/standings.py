"""The standings: every player's night score from the hands the hub scored itself, every
board's results, each table's progress.

Two views of the same night. The director's (``full=True``) holds everything. The public one
(the standings page, phones and the wall screen) follows Bridgemate's rule: a board's results,
and the scores that come from them, are shown once everybody who plays that board has played
it (every table of its round has a result for it, or the round has ended): a player at a table
that has not played board 3 yet sees nothing of board 3.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from . import scoring
from .state import NightState


def board_results(state: NightState) -> dict[scoring.Board, dict[str, list[int]]]:
    """(round, board) -> table -> points, from the hands the hub accepted."""
    out: dict[scoring.Board, dict[str, list[int]]] = {}
    for (t, r, b), res in state.results.items():
        out.setdefault((r, b), {})[t] = list(res.points)
    return out


def visible(state: NightState, r: int, b: int) -> bool:
    """Bridgemate's rule: board ``b`` of round ``r`` is public once its round has ended or every
    table of the round has played it."""
    rs = state.rounds.get(r)
    if rs is not None and rs.ended is not None:
        return True
    return all((t, r, b) in state.results for t in state.dealt(r))


def player_totals(night: Any, per_board: Mapping[scoring.Board, Mapping[str, list[Fraction]]]
                  ) -> dict[tuple[str, int], Fraction]:
    """Each player's night score (players named by their first-round table and seat): the sum
    of the board scores of wherever they sat in each round."""
    out: dict[tuple[str, int], Fraction] = {}
    for (r, _b), scores in per_board.items():
        for t, row in scores.items():
            for s, v in enumerate(row):
                who = night.home(r, t, s)
                out[who] = out.get(who, Fraction(0)) + v
    return out


def progress(state: NightState) -> dict[str, dict[str, Any]]:
    """Per table: the latest round it is in (None before its first), hands in, done."""
    night = state.night
    out: dict[str, dict[str, Any]] = {t: {"round": None, "hands": 0, "over": False} for t in night.tables}
    for r in sorted(state.rounds):
        for t in state.dealt(r):
            if t not in out:
                continue
            hands = sum(1 for b in range(night.boards) if (t, r, b) in state.results)
            tr = state.tables.get((t, r))
            if hands or tr is not None:
                out[t] = {"round": r, "hands": hands, "over": state.table_done(t, r)}
    return out


def names(state: NightState) -> dict[tuple[str, int], str]:
    night = state.night
    out: dict[tuple[str, int], str] = {}
    for (t, r), tr in sorted(state.tables.items(), key=lambda kv: kv[0][1]):
        for s, nm in enumerate(tr.players or []):
            if nm and s < night.players:
                out.setdefault(night.home(r, t, s), nm)
    return out


def compute(state: NightState, seq: int = 0, new: Mapping[str, float | None] | None = None,
            cache: dict[Any, Any] | None = None, full: bool = False) -> dict[str, Any]:
    """The standings document (the page's, or with ``full`` the director's)."""
    night = state.night
    boards = board_results(state)
    if not full:
        boards = {k: v for k, v in boards.items() if visible(state, *k)}
    _, per_board = scoring.night_scores(night.game, boards, night.method, cache)
    totals = player_totals(night, per_board)
    played: dict[tuple[str, int], int] = {}
    for (r, _b), res in boards.items():
        for t, pts in res.items():
            for s in range(len(pts)):
                who = night.home(r, t, s)
                played[who] = played.get(who, 0) + 1
    known = names(state)
    everyone = set(totals) | set(known)
    players: list[dict[str, Any]] = [
        {"table": t, "seat": s, "name": known.get((t, s)) or f"{t} seat {s + 1}",
         "score": round(float(totals.get((t, s), 0)), 4), "boards": played.get((t, s), 0)}
        for (t, s) in everyone]
    players.sort(key=lambda p: (-p["score"], p["table"], p["seat"]))
    board_rows = [{"round": r, "board": b,
                   "tables": {t: {"points": boards[(r, b)][t], "scores": [round(float(x), 4) for x in sc]}
                              for t, sc in sorted(per_board[(r, b)].items())}}
                  for (r, b) in sorted(per_board)]
    rounds = {str(r): {"open": rs.ended is None, "waiting": len(state.waiting(r)) if rs.ended is None else 0}
              for r, rs in sorted(state.rounds.items())}
    return {"night": night.name, "game": night.game, "method": night.method, "rounds": night.rounds,
            "boards": night.boards, "tables": night.tables, "seq": seq, "players": players,
            "board_results": board_rows, "progress": progress(state), "new_hands": dict(new or {}),
            "hands_received": len(state.results), "round_state": rounds,
            "rehearsal": bool(getattr(night, "rehearsal", False)),
            "hidden_boards": 0 if full else len(board_results(state)) - len(boards)}
