"""The standings: every player's night score from the hands the hub scored itself and the
director's corrections, every board's results, each table's progress.

Two views of the same night. The director's (``full=True``) holds everything. The public one
(the standings page, phones and the wall screen) follows Bridgemate's rule: a board's results,
and the scores that come from them, are shown once everybody who plays that board has played
it (every table of its round has a result for it, or an adjusted score, or the round has
ended): a player at a table that has not played board 3 yet sees nothing of board 3.

Corrections (``state.Correction``): ``points`` replaces a table's points on a board,
``remove`` takes a table's result out, ``adjusted`` takes the table out of the board's
comparison and gives its seats the director's scores ("avg" is the field's average: 0 against
the average, half a top in matchpoints), ``note`` is a ruling shown with the board. A player
who sits a round out (a movement with more players than seats) scores the field's average on
that round's boards.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from . import scoring
from .state import NightState


def board_results(state: NightState) -> dict[scoring.Board, dict[str, list[int]]]:
    """(round, board) -> table -> points, from the hands the hub accepted, as corrected."""
    out: dict[scoring.Board, dict[str, list[int]]] = {}
    for (t, r, b), res in state.results.items():
        out.setdefault((r, b), {})[t] = list(res.points)
    for c in state.active_corrections():
        row = out.get((c.round, c.board), {})
        if c.kind == "points" and c.table in row and c.points is not None:
            row[c.table] = list(c.points)
        elif c.kind in ("remove", "adjusted"):
            row.pop(c.table, None)
    return {k: v for k, v in out.items() if v}


def adjusted(state: NightState) -> dict[scoring.Board, dict[str, list[str | float]]]:
    out: dict[scoring.Board, dict[str, list[str | float]]] = {}
    for c in state.active_corrections():
        if c.kind == "adjusted" and c.scores is not None:
            out.setdefault((c.round, c.board), {})[c.table] = list(c.scores)
    return out


def visible(state: NightState, r: int, b: int) -> bool:
    """Bridgemate's rule: board ``b`` of round ``r`` is public once its round has ended or every
    table of the round has played it (or has an adjusted score for it)."""
    rs = state.rounds.get(r)
    if rs is not None and rs.ended is not None:
        return True
    adj = {c.table for c in state.active_corrections() if c.kind == "adjusted" and (c.round, c.board) == (r, b)}
    return all((t, r, b) in state.results or t in adj for t in state.dealt(r))


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


def scores(state: NightState, full: bool, cache: dict[Any, Any] | None = None,
           every: set[scoring.Board] | None = None
           ) -> tuple[dict[scoring.Board, dict[str, list[int]]], dict[scoring.Board, dict[str, list[Fraction]]],
                      dict[scoring.Board, dict[str, list[str | float]]]]:
    """(points, board scores, adjusted) of the boards this view shows; ``every`` gets every
    board with a result, shown or not."""
    night = state.night
    boards = board_results(state)
    adj = adjusted(state)
    keys = set(boards) | set(adj)
    if every is not None:
        every |= keys
    if not full:
        keys = {k for k in keys if visible(state, *k)}
    boards = {k: v for k, v in boards.items() if k in keys}
    per_board: dict[scoring.Board, dict[str, list[Fraction]]] = {}
    for key in sorted(boards):  # each board's scores, from the cache when its results are the same
        snap = tuple(sorted((t, tuple(p)) for t, p in boards[key].items()))
        hit = cache.get(key) if cache is not None else None
        if hit is not None and hit[0] == snap:
            per_board[key] = dict(hit[1])
            continue
        sc = scoring.board_scores(night.game, boards[key], night.method)
        if cache is not None:
            cache[key] = (snap, sc, {t: [round(float(x), 4) for x in v] for t, v in sc.items()})
        per_board[key] = dict(sc)
    for k in keys:
        if k not in adj:
            continue
        played = len(boards.get(k, {})) + len(adj[k])
        avg = Fraction(0) if night.method == "average" else Fraction(played - 1, 2)
        row = per_board.setdefault(k, {})
        for t, vals in adj[k].items():
            row[t] = [avg if v == "avg" else Fraction(str(v)) for v in vals]
    return boards, per_board, {k: v for k, v in adj.items() if k in keys}


def first_seat(pid: str, firsts: Mapping[str, tuple[str, int]]) -> tuple[str, int]:
    """Where a player sat first (table, seat): how the page names a player without a name."""
    if "/" in pid:
        t, s = pid.rsplit("/", 1)
        return t, int(s) - 1
    return firsts.get(pid, ("", 0))


def compute(state: NightState, seq: int = 0, new: Mapping[str, float | None] | None = None,
            cache: dict[Any, Any] | None = None, full: bool = False) -> dict[str, Any]:
    """The standings document (the page's, or with ``full`` the director's)."""
    night = state.night
    all_boards: set[scoring.Board] = set()
    boards, per_board, adj = scores(state, full, cache, all_boards)
    seat_cache: dict[tuple[int, str], list[str]] = {}

    def seats(r: int, t: str) -> list[str]:
        got = seat_cache.get((r, t))
        if got is None:
            got = seat_cache[(r, t)] = [state.who(r, t, s) for s in range(night.players)]
        return got

    # exact sums, quickly: per player, the numerators summed per denominator (whole numbers),
    # made one fraction at the end (Fraction additions are what made this slow)
    sums: dict[str, dict[int, int]] = {}
    played: dict[str, int] = {}
    for (r, _b), by_table in per_board.items():
        for t, vals in by_table.items():
            who_row = seats(r, t)
            for s, v in enumerate(vals):
                who = who_row[s]
                d = sums.setdefault(who, {})
                d[v.denominator] = d.get(v.denominator, 0) + v.numerator
                played[who] = played.get(who, 0) + 1
    totals: dict[str, Fraction] = {who: sum((Fraction(n, den) for den, n in d.items()), Fraction(0))
                                   for who, d in sums.items()}
    if state.movement is not None and night.method == "matchpoints":
        # a player who sits a round out scores the field's average on its boards (in matchpoints
        # half a top; against the average it is 0 already), so sitting out costs nothing
        for (r, _b), by_table in per_board.items():
            for pid in state.movement.sit_outs(r) if r < len(state.movement.sitting_out) else []:
                totals[pid] = totals.get(pid, Fraction(0)) + Fraction(len(by_table) - 1, 2)
    everyone: set[str] = set(totals)
    if state.roster:
        everyone |= {f"p{i + 1}" for i in range(len(state.roster))}
    else:
        for (t, r), tr in state.tables.items():
            if tr.players:
                everyone |= set(seats(r, t))
    players: list[dict[str, Any]] = []
    firsts = state.movement.first_seats() if state.movement is not None else {}
    for pid in everyone:
        t, s = first_seat(pid, firsts)
        name = state.name_of(pid)
        if not name and "/" in pid:
            first = state.tables.get((t, 0))
            name = first.players[s] if first is not None and first.players and s < len(first.players) else ""
        players.append({"id": pid, "table": t, "seat": s, "name": name or f"{t} seat {s + 1}",
                        "score": round(float(totals.get(pid, 0)), 4), "boards": played.get(pid, 0)})
    players.sort(key=lambda p: (-p["score"], p["table"], p["seat"], p["id"]))
    notes: dict[scoring.Board, list[str]] = {}
    for c in state.active_corrections():
        if full or (c.round, c.board) in per_board:
            notes.setdefault((c.round, c.board), []).append(c.words())
    board_rows = []
    for (r, b) in sorted(per_board):
        cells: dict[str, Any] = {}
        hit = cache.get((r, b)) if cache is not None else None
        shown = hit[2] if hit is not None and len(hit) > 2 else {}
        for t, sc in sorted(per_board[(r, b)].items()):
            floats = shown.get(t) if t not in adj.get((r, b), {}) else None
            cell: dict[str, Any] = {"points": boards.get((r, b), {}).get(t),
                                    "scores": floats if floats is not None else [round(float(x), 4) for x in sc],
                                    "players": seats(r, t)}
            if t in adj.get((r, b), {}):
                cell["adjusted"] = True
                res = state.results.get((t, r, b))
                cell["points"] = list(res.points) if res is not None else None
            cells[t] = cell
        board_rows.append({"round": r, "board": b, "tables": cells, "notes": notes.get((r, b), [])})
    rounds = {str(r): {"open": rs.ended is None, "waiting": len(state.waiting(r)) if rs.ended is None else 0}
              for r, rs in sorted(state.rounds.items())}
    seating = {}
    nxt = next((r for r in range(night.rounds) if r not in state.rounds or state.rounds[r].ended is None), None)
    if state.movement is not None and nxt is not None:
        seating = {"round": nxt, "tables": state.seating(nxt),
                   "sitting_out": [{"id": p, "name": state.name_of(p)} for p in state.movement.sit_outs(nxt)]}
    return {"night": night.name, "game": night.game, "method": night.method, "rounds": night.rounds,
            "boards": night.boards, "tables": night.tables, "seq": seq, "players": players,
            "board_results": board_rows, "progress": progress(state), "new_hands": dict(new or {}),
            "hands_received": len(state.results), "round_state": rounds, "seating": seating,
            "final": state.ended is not None,
            "rehearsal": bool(getattr(night, "rehearsal", False)),
            "hidden_boards": 0 if full else len(all_boards) - len(per_board)}


class Incremental:
    """The standings kept from one pass to the next, so that a pass costs what changed, not
    the night: each pass compares the night with the one it saw last (the accepted results by
    identity, the director's corrections and the rounds by value) and rescores only the boards
    a new, changed or removed result, a correction or a round's end touched; each player's total
    is kept as exact sums (numerators per denominator) that a rescored board's old scores leave
    and its new ones join. A new movement or roster starts over. The document is the one
    ``compute`` gives for the same night (tests/club/test_standings_incremental.py compares
    them after random sequences of results, corrections and removals)."""

    def __init__(self, full: bool = False) -> None:
        self.full = full
        self._reset()

    def _reset(self) -> None:
        self._night: Any = None
        self._movement: Any = None
        self._roster: list[str] = []
        self._results: dict[tuple[str, int, int], Any] = {}
        self._by_board: dict[scoring.Board, dict[str, Any]] = {}
        self._corr: dict[scoring.Board, tuple[Any, ...]] = {}
        self._ended: dict[int, bool] = {}
        self._tables: dict[tuple[str, int], tuple[Any, ...]] = {}
        self._seats: dict[tuple[int, str], list[str]] = {}
        self._dealt: dict[int, set[str]] = {}
        # per board: what it adds to the players' totals (player, numerator, denominator, played)
        self._contrib: dict[scoring.Board, list[tuple[str, int, int, bool]]] = {}
        self._sums: dict[str, dict[int, int]] = {}
        self._refs: dict[str, int] = {}  # contributions per player: in the totals while > 0
        self._played: dict[str, int] = {}
        self._totals: dict[str, float] = {}
        self._dirty: set[str] = set()
        self._rows: dict[scoring.Board, dict[str, Any]] = {}  # the shown boards' rows
        self._hidden: set[scoring.Board] = set()
        self._done: dict[tuple[str, int], bool] = {}
        self._progress: dict[str, dict[str, Any]] = {}
        self._everyone_tables: set[str] = set()
        self._seating: dict[int, Any] = {}

    def _seat_row(self, state: NightState, r: int, t: str) -> list[str]:
        got = self._seats.get((r, t))
        if got is None:
            got = self._seats[(r, t)] = [state.who(r, t, s) for s in range(state.night.players)]
        return got

    def _dealt_set(self, state: NightState, r: int) -> set[str]:
        got = self._dealt.get(r)
        if got is None:
            got = self._dealt[r] = set(state.dealt(r))
        return got

    def update(self, state: NightState, seq: int = 0, new: Mapping[str, float | None] | None = None
               ) -> dict[str, Any]:
        """The standings document of ``state`` (as ``compute`` gives it)."""
        try:
            return self._update(state, seq, new)
        except Exception:
            self._reset()  # half an update is no base for the next: start over
            raise

    def _update(self, state: NightState, seq: int, new: Mapping[str, float | None] | None) -> dict[str, Any]:
        night = state.night
        if self._night is not night or self._movement is not state.movement or self._roster != state.roster:
            self._reset()
            self._night, self._movement, self._roster = night, state.movement, list(state.roster)
        touched: set[scoring.Board] = set()
        pairs: set[tuple[str, int]] = set()  # (table, round) whose hands or state changed
        old = self._results
        for k, v in state.results.items():
            if old.get(k) is not v:
                touched.add((k[1], k[2]))
                pairs.add((k[0], k[1]))
                self._by_board.setdefault((k[1], k[2]), {})[k[0]] = v
        for k in old.keys() - state.results.keys():  # (the hub never drops one; a test may)
            touched.add((k[1], k[2]))
            pairs.add((k[0], k[1]))
            self._by_board.get((k[1], k[2]), {}).pop(k[0], None)
        self._results = dict(state.results)
        corr: dict[scoring.Board, list[Any]] = {}
        for c in state.active_corrections():
            corr.setdefault((c.round, c.board), []).append(c)
        sigs = {k: tuple((c.id, c.kind, c.table, None if c.points is None else tuple(c.points),
                          None if c.scores is None else tuple(c.scores), c.reason) for c in cs)
                for k, cs in corr.items()}
        for bk in sigs.keys() | self._corr.keys():
            if sigs.get(bk) != self._corr.get(bk):
                touched.add(bk)
        self._corr = sigs
        ended = {r: rs.ended is not None for r, rs in state.rounds.items()}
        rounds_changed = ended.keys() != self._ended.keys()
        for r in ended.keys() | self._ended.keys():
            if ended.get(r) != self._ended.get(r):
                touched |= {(r, b) for b in range(night.boards)}
        self._ended = ended
        tables = {k: (None if v.players is None else tuple(v.players), v.started, v.over, v.hands_in_over)
                  for k, v in state.tables.items()}
        tables_changed = False
        for tk in tables.keys() | self._tables.keys():
            if tables.get(tk) != self._tables.get(tk):
                pairs.add(tk)
                tables_changed = True
        self._tables = tables
        if tables_changed:
            self._seating = {}
            self._everyone_tables = set()
        for key in touched:
            self._rescore(state, key, corr.get(key, []))
        self._track_progress(state, pairs, rounds_changed)
        return self._document(state, seq, new, corr)

    def _rescore(self, state: NightState, key: scoring.Board, cs: list[Any]) -> None:
        night = state.night
        r, b = key
        for who, num, den, counted in self._contrib.pop(key, []):
            d = self._sums[who]
            left = d.get(den, 0) - num
            if left:
                d[den] = left
            else:
                d.pop(den, None)
            self._refs[who] -= 1
            if not self._refs[who]:
                del self._refs[who], self._sums[who]
            if counted:
                self._played[who] -= 1
            self._dirty.add(who)
        self._rows.pop(key, None)
        self._hidden.discard(key)
        raw = self._by_board.get(key, {})
        row: dict[str, list[int]] = {t: list(res.points) for t, res in raw.items()}
        adj: dict[str, list[str | float]] = {}
        adj_tables: set[str] = set()
        for c in cs:
            if c.kind == "points" and c.table in row and c.points is not None:
                row[c.table] = list(c.points)
            elif c.kind in ("remove", "adjusted"):
                row.pop(c.table, None)
            if c.kind == "adjusted":
                adj_tables.add(c.table)
                if c.scores is not None:
                    adj[c.table] = list(c.scores)
        if not row and not adj:
            return
        rs = state.rounds.get(r)
        shown = (self.full or (rs is not None and rs.ended is not None)
                 or all(t in raw or t in adj_tables for t in self._dealt_set(state, r)))
        if not shown:
            self._hidden.add(key)
            return
        per: dict[str, list[Fraction]] = dict(scoring.board_scores(night.game, row, night.method)) if row else {}
        if adj:
            played = len(row) + len(adj)
            avg = Fraction(0) if night.method == "average" else Fraction(played - 1, 2)
            for t, given in adj.items():
                per[t] = [avg if v == "avg" else Fraction(str(v)) for v in given]
        contrib: list[tuple[str, int, int, bool]] = []
        for t, vals in per.items():
            who_row = self._seat_row(state, r, t)
            for s, v in enumerate(vals):
                contrib.append((who_row[s], v.numerator, v.denominator, True))
        mv = state.movement
        if mv is not None and night.method == "matchpoints" and r < len(mv.sitting_out):
            half = Fraction(len(per) - 1, 2)
            for pid in mv.sit_outs(r):
                contrib.append((pid, half.numerator, half.denominator, False))
        for who, num, den, counted in contrib:
            d = self._sums.setdefault(who, {})
            got = d.get(den, 0) + num
            if got:
                d[den] = got
            else:
                d.pop(den, None)
            self._refs[who] = self._refs.get(who, 0) + 1
            if counted:
                self._played[who] = self._played.get(who, 0) + 1
            self._dirty.add(who)
        self._contrib[key] = contrib
        cells: dict[str, Any] = {}
        for t, sc in sorted(per.items()):
            cell: dict[str, Any] = {"points": row.get(t), "scores": [round(float(x), 4) for x in sc],
                                    "players": self._seat_row(state, r, t)}
            if t in adj:
                cell["adjusted"] = True
                res = raw.get(t)
                cell["points"] = list(res.points) if res is not None else None
            cells[t] = cell
        self._rows[key] = {"round": r, "board": b, "tables": cells, "notes": [c.words() for c in cs]}

    def _track_progress(self, state: NightState, pairs: set[tuple[str, int]], rounds_changed: bool) -> None:
        night = state.night
        if rounds_changed or not self._progress:
            self._done = {}
            for r in state.rounds:
                for t in self._dealt_set(state, r):
                    self._done[(t, r)] = state.table_done(t, r)
            self._progress = progress(state)
            return
        for t, r in pairs:
            if r in state.rounds and t in self._dealt_set(state, r):
                self._done[(t, r)] = state.table_done(t, r)
        for t in {t for t, _r in pairs}:
            if t not in self._progress:
                continue
            got: dict[str, Any] = {"round": None, "hands": 0, "over": False}
            for r in sorted(state.rounds):
                if t not in self._dealt_set(state, r):
                    continue
                hands = sum(1 for b in range(night.boards) if (t, r, b) in state.results)
                if hands or state.tables.get((t, r)) is not None:
                    got = {"round": r, "hands": hands, "over": state.table_done(t, r)}
            self._progress[t] = got

    def _document(self, state: NightState, seq: int, new: Mapping[str, float | None] | None,
                  corr: Mapping[scoring.Board, list[Any]]) -> dict[str, Any]:
        night = state.night
        for who in self._dirty:
            d = self._sums.get(who)
            if d is None:
                self._totals.pop(who, None)
            else:
                self._totals[who] = round(float(sum((Fraction(n, den) for den, n in d.items()), Fraction(0))), 4)
        self._dirty = set()
        everyone: set[str] = set(self._refs)
        if state.roster:
            everyone |= {f"p{i + 1}" for i in range(len(state.roster))}
        else:
            if not self._everyone_tables:
                for (t, r), tr in state.tables.items():
                    if tr.players:
                        self._everyone_tables.update(self._seat_row(state, r, t))
            everyone |= self._everyone_tables
        players: list[dict[str, Any]] = []
        firsts = state.movement.first_seats() if state.movement is not None else {}
        for pid in everyone:
            t, s = first_seat(pid, firsts)
            name = state.name_of(pid)
            if not name and "/" in pid:
                first = state.tables.get((t, 0))
                name = first.players[s] if first is not None and first.players and s < len(first.players) else ""
            players.append({"id": pid, "table": t, "seat": s, "name": name or f"{t} seat {s + 1}",
                            "score": self._totals.get(pid, 0.0), "boards": self._played.get(pid, 0)})
        players.sort(key=lambda p: (-p["score"], p["table"], p["seat"], p["id"]))
        board_rows = [self._rows[k] for k in sorted(self._rows)]
        rounds = {str(r): {"open": rs.ended is None,
                           "waiting": sum(1 for t in self._dealt_set(state, r) if not self._done.get((t, r), False))
                           if rs.ended is None else 0}
                  for r, rs in sorted(state.rounds.items())}
        seating: dict[str, Any] = {}
        nxt = next((r for r in range(night.rounds) if r not in state.rounds or state.rounds[r].ended is None), None)
        if state.movement is not None and nxt is not None:
            got = self._seating.get(nxt)
            if got is None:
                got = self._seating[nxt] = state.seating(nxt)
            seating = {"round": nxt, "tables": got,
                       "sitting_out": [{"id": p, "name": state.name_of(p)} for p in state.movement.sit_outs(nxt)]}
        return {"night": night.name, "game": night.game, "method": night.method, "rounds": night.rounds,
                "boards": night.boards, "tables": night.tables, "seq": seq, "players": players,
                "board_results": board_rows, "progress": {t: dict(v) for t, v in self._progress.items()},
                "new_hands": dict(new or {}),
                "hands_received": len(state.results), "round_state": rounds, "seating": seating,
                "final": state.ended is not None,
                "rehearsal": bool(getattr(night, "rehearsal", False)),
                "hidden_boards": len(self._hidden)}
