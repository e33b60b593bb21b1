"""The hub's incremental standings (``standings.Incremental``) against a full recompute
(``standings.compute``): after any sequence of results, changed and dropped results, the
director's corrections and their withdrawal, rounds started and ended, tables starting and
finishing, a rebuilt state (a restart's replay) and an incremental pass skipped (a burst), the
document is the same, for the page (Bridgemate's rule) and the director."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trickref.device.club.hub import Night
from trickref.device.club.standings import Incremental, compute
from trickref.device.club.state import HandResult, NightState, Refused, TableRound

TABLES = ["t1", "t2", "t3"]
ROUNDS, BOARDS = 3, 2


def points() -> st.SearchStrategy[list[int]]:
    # small numbers: ties (matchpoints' halves) and equal rows are common
    return st.lists(st.integers(0, 4), min_size=4, max_size=4)


def op() -> st.SearchStrategy[tuple[Any, ...]]:
    where = st.tuples(st.sampled_from(TABLES), st.integers(0, ROUNDS - 1), st.integers(0, BOARDS - 1))
    return st.one_of(
        st.tuples(st.just("result"), where, points()),
        st.tuples(st.just("result"), where, points()),
        st.tuples(st.just("drop"), where),
        st.tuples(st.just("correct"), st.sampled_from(["points", "remove", "adjusted", "note"]), where, points(),
                  st.lists(st.one_of(st.just("avg"), st.integers(-3, 3)), min_size=1, max_size=1)),
        st.tuples(st.just("withdraw"), st.integers(1, 8)),
        st.tuples(st.just("start"), st.integers(0, ROUNDS - 1)),
        st.tuples(st.just("end"), st.integers(0, ROUNDS - 1)),
        st.tuples(st.just("table"), where, st.booleans()),
        st.tuples(st.just("restart")),
        st.tuples(st.just("skip")),
    )


def apply(s: NightState, o: tuple[Any, ...], n: int) -> NightState:
    kind = o[0]
    try:
        if kind == "result":
            (t, r, b), pts = o[1], o[2]
            if r in s.rounds and t in s.dealt(r):
                s.results[(t, r, b)] = HandResult(t, r, b, list(pts), f"d{n}", None, float(n))
        elif kind == "drop":
            s.results.pop(o[1], None)
        elif kind == "correct":
            (t, r, b) = o[2]
            s.correct(o[1], t, r, b, float(n), reason=f"ruling {n}", points=list(o[3]), scores=list(o[4]))
        elif kind == "withdraw":
            s.withdraw(o[1], float(n))
        elif kind == "start":
            s.start_round(o[1], float(n))
        elif kind == "end":
            s.end_round(o[1], float(n), forced="the director's test")
        elif kind == "table":
            (t, r, _b), over = o[1], o[2]
            if r in s.rounds and t in s.dealt(r):
                tr = s.tables.setdefault((t, r), TableRound(players=[f"{t} {x}" for x in "nesw"], started=float(n)))
                if over:
                    tr.over = float(n)
        elif kind == "restart":  # a state rebuilt from the journal: the same night, new objects
            fresh = s.snapshot()
            fresh.results = {k: HandResult(**v.__dict__) for k, v in s.results.items()}
            return fresh
    except Refused:
        pass
    return s


def same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=60, deadline=None)
@given(ops=st.lists(op(), max_size=40), method=st.sampled_from(["average", "matchpoints"]),
       roster=st.sampled_from([0, 8, 14]), style=st.sampled_from(["mitchell", "howell"]))
def test_incremental_standings_equal_a_full_recompute(ops: list[tuple[Any, ...]], method: str, roster: int,
                                                      style: str) -> None:
    night = Night("n1", "hearts", 4, list(TABLES), rounds=ROUNDS, boards=BOARDS, method=method,
                  moving_seats=[] if roster else [1, 3])
    s = NightState(night, {})
    if roster:  # 14 players at 3 tables of 4: two sit out each round
        s.set_roster([f"Player {i}" for i in range(roster)], style)
    s.start_round(0, 0.0)
    page, director = Incremental(), Incremental(full=True)
    for n, o in enumerate(ops, 1):
        s = apply(s, o, n)
        if o[0] == "skip":  # the standings thread was busy: the next pass takes two changes at once
            continue
        snap = s.snapshot()
        same(page.update(snap, n, {"t1/0/0": 1.0}), compute(snap, n, {"t1/0/0": 1.0}))
        same(director.update(snap, n), compute(snap, n, full=True))


def test_a_new_result_rescores_only_its_board() -> None:
    """What makes it incremental: the other boards' rows are the same objects as before."""
    night = Night("n1", "hearts", 4, list(TABLES), rounds=ROUNDS, boards=BOARDS)
    s = NightState(night, {})
    s.start_round(0, 0.0)
    for t in TABLES:
        for b in range(BOARDS):
            s.results[(t, 0, b)] = HandResult(t, 0, b, [b, 1, 2, 23 - b], "d", None, 0.0)
    inc = Incremental()
    before = {(row["round"], row["board"]): row for row in inc.update(s.snapshot())["board_results"]}
    s.results[("t2", 0, 1)] = HandResult("t2", 0, 1, [9, 9, 8, 0], "d2", None, 1.0)
    doc = inc.update(s.snapshot())
    after = {(row["round"], row["board"]): row for row in doc["board_results"]}
    assert after[(0, 0)] is before[(0, 0)]
    assert after[(0, 1)] is not before[(0, 1)]
    assert after[(0, 1)]["tables"]["t2"]["points"] == [9, 9, 8, 0]
    same(doc, compute(s.snapshot()))
