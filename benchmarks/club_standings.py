"""One standings pass of the club hub at 200 tables: incremental against a full recompute.

A synthetic night of hearts (200 tables, 5 rounds of 3 boards, two seats moving, 4 rounds
ended and the 5th being played): ``--passes`` times one new result of the 5th round arrives
and the standings are made from a snapshot of the night twice, alternating: by the hub's
``standings.Incremental`` (kept from pass to pass) and by ``standings.compute`` (every board
of the night), the two documents compared. Prints the figures (median, its interval, the
load) and writes ``benchmarks/results/club-standings.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from club import median_ci  # noqa: E402

from trickref.device.club import standings  # noqa: E402
from trickref.device.club.hub import Night  # noqa: E402
from trickref.device.club.state import HandResult, NightState, RoundState  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--passes", type=int, default=20)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rounds, boards = 5, 3
    tables = [f"t{i}" for i in range(1, args.tables + 1)]
    night = Night("bench", "hearts", 4, tables, rounds=rounds, boards=boards, moving_seats=[1, 3])
    state = NightState(night, {})
    rng = random.Random(1)
    late = tables[-args.passes:]  # the tables whose 5th-round first board arrives in the passes

    def result(t: str, r: int, b: int) -> HandResult:
        pts = [rng.randint(0, 13) for _ in range(3)]
        return HandResult(t, r, b, [*pts, 26 - sum(pts)], "x", None, 0.0)

    for r in range(rounds):
        state.rounds[r] = RoundState(0.0, 1.0 if r < rounds - 1 else None)
        for t in tables:
            for b in range(boards):
                if r < rounds - 1 or t not in late or b > 0:
                    state.results[(t, r, b)] = result(t, r, b)
    inc = standings.Incremental()
    inc.update(state.snapshot())
    load0 = os.getloadavg()[0]
    t_inc: list[float] = []
    t_full: list[float] = []
    equal = True
    for i, t in enumerate(late):
        state.results[(t, rounds - 1, 0)] = result(t, rounds - 1, 0)
        snap = state.snapshot()
        first_inc = i % 2 == 0  # alternate which goes first
        for which in ("inc", "full") if first_inc else ("full", "inc"):
            a = time.perf_counter()
            doc = inc.update(snap, i) if which == "inc" else standings.compute(snap, i)
            (t_inc if which == "inc" else t_full).append((time.perf_counter() - a) * 1000)
            if which == "inc":
                got = json.dumps(doc, sort_keys=True)
            else:
                want = json.dumps(doc, sort_keys=True)
        equal = equal and got == want
    load1 = os.getloadavg()[0]
    res = {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
           "tables": args.tables, "results": len(state.results), "passes": args.passes,
           "incremental_ms": median_ci(t_inc), "full_ms": median_ci(t_full),
           "ratio_of_medians": round(median_ci(t_full)["median"] / median_ci(t_inc)["median"], 1),
           "documents_equal": equal, "load_1min": [round(load0, 2), round(load1, 2)]}
    print(json.dumps(res, indent=2))
    if not args.no_write:
        (ROOT / "benchmarks" / "results" / "club-standings.json").write_text(json.dumps(res, indent=2) + "\n")
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
