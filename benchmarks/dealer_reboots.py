"""The dealer that reboots by itself, at every moment of a hand (issue 20's reboot row).

    .venv/bin/python benchmarks/dealer_reboots.py [--games german-whist,spades-2p,hearts]
        [--whens landing,unheard,between] [--flashes kept,lost] [--every 1] [--jobs 2]
        [--results NAME]

For each game (SEED 7, as tests/device/test_dealer_reboots_by_itself.py), each kind of moment
(``landing``: as the k-th card after the deal lands in a pocket; ``unheard``: the same with the
answers of that firmware pass lost; ``between``: after the k-th dealer step, before the next)
and each flash (``kept``: the firmware's saved loop model and step memory survive; ``lost``: the
flash is blank as the firmware boots again), the dealer reboots at every moment k (every
``--every``-th) of the hand, the host running on, and the hand is played to its end on the
simulated table (device/simulated/reboot_trials.py). Each point is **right** (the same hand as
without the reboot, every seat's pocket as the referee says, no fault left), **stuck** (the
table could not go on: the same fault after three Resumes, or nobody can act), **wrong** (the
hand or a pocket came out otherwise) or **error**; a point that runs over 240 s is stopped and
counted **stuck** (a hang). Points run in ``--jobs`` processes. Prints the table, the load beside
it, and every point not right; writes benchmarks/results/dealer_reboots[-NAME].json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trickref.device.simulated import reboot_trials as trials  # noqa: E402

POINT_LIMIT_S = 240


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang()


def _point(args: tuple[str, str, int, str]) -> dict[str, Any]:
    game, when, k, flash = args
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(POINT_LIMIT_S)
    try:
        out = trials.run_point(game, when, k, flash)
    except _Hang:
        out = {"game": game, "when": when, "k": k, "flash": flash, "outcome": "stuck",
               "detail": f"still running after {POINT_LIMIT_S} s (a hang)", "seconds": POINT_LIMIT_S}
    finally:
        signal.alarm(0)
    out["load"] = round(os.getloadavg()[0], 2)
    return out


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


POINT_COLUMNS = ("game", "when", "k", "flash", "outcome", "boots", "seconds", "load")


def results_text(head: dict[str, Any], points: list[dict[str, Any]]) -> str:
    """The results file: ``head`` (the run, its summary and every point not right in full),
    then every point as one row of POINT_COLUMNS a line (1546 points: about 90 KB, not 250)."""
    rows = ",\n".join("  " + json.dumps([p.get(c) for c in POINT_COLUMNS]) for p in points)
    text = json.dumps({**head, "point_columns": list(POINT_COLUMNS)}, indent=1)
    return text[:-2] + ',\n "points": [\n' + rows + "\n ]\n}\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(trials.PLAYERS))
    ap.add_argument("--whens", default=",".join(trials.WHENS))
    ap.add_argument("--flashes", default=",".join(trials.FLASHES))
    ap.add_argument("--every", type=int, default=1, help="every n-th moment of each kind")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--results", default="", help="name of this run (its own results file)")
    a = ap.parse_args()
    games = [g for g in a.games.split(",") if g]
    whens = [w for w in a.whens.split(",") if w]
    flashes = [f for f in a.flashes.split(",") if f]
    for g in games:
        if g not in trials.PLAYERS:
            ap.error(f"unknown game {g!r}: one of {', '.join(trials.PLAYERS)}")
    for w in whens:
        if w not in trials.WHENS:
            ap.error(f"unknown moment {w!r}: one of {', '.join(trials.WHENS)}")
    points = []
    for g in games:
        for w in whens:
            n = trials.moments(g, w)
            for flash in flashes:
                points += [(g, w, k, flash) for k in range(1, n + 1, max(1, a.every))]
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    load0 = os.getloadavg()[0]
    print(f"{len(points)} points, {a.jobs} processes, commit {_commit()}, load {load0:.2f}", flush=True)
    results: list[dict[str, Any]] = []
    t0 = time.monotonic()
    with mp.get_context("fork").Pool(a.jobs, maxtasksperchild=20) as pool:
        for i, r in enumerate(pool.imap_unordered(_point, points), 1):
            results.append(r)
            if r["outcome"] != "right":
                print(f"  {r['game']} {r['when']} k={r['k']} {r['flash']}: {r['outcome']}: "
                      f"{r.get('detail', '')[:200]}", flush=True)
            if i % 100 == 0:
                print(f"  ... {i} of {len(points)} ({time.monotonic() - t0:.0f} s, load "
                      f"{os.getloadavg()[0]:.2f})", flush=True)
    results.sort(key=lambda r: (r["game"], r["when"], r["flash"], r["k"]))
    loads = [r["load"] for r in results]
    table: dict[str, dict[str, int]] = {}
    for r in results:
        row = f"{r['game']} {r['when']} {r['flash']}"
        table.setdefault(row, Counter())[r["outcome"]] += 1
    print()
    print("| game, moment, flash | points | right | stuck | wrong | error |")
    print("|---|---|---|---|---|---|")
    for row, c in table.items():
        print(f"| {row} | {sum(c.values())} | {c['right']} | {c['stuck']} | {c['wrong']} | {c['error']} |")
    total = Counter(r["outcome"] for r in results)
    print(f"\nall: {len(results)} points, {dict(total)}; {time.monotonic() - t0:.0f} s; "
          f"load {min(loads, default=load0):.2f}-{max(loads, default=load0):.2f}")
    out = {
        "started": started, "commit": _commit(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "python": platform.python_version(), "jobs": a.jobs, "every": a.every,
        "load": {"start": round(load0, 2), "min": min(loads, default=load0), "max": max(loads, default=load0)},
        "seconds": round(time.monotonic() - t0, 1),
        "summary": {row: dict(c) for row, c in table.items()},
        "not_right": [r for r in results if r["outcome"] != "right"],
    }
    name = "dealer_reboots" + (f"-{a.results}" if a.results else "") + ".json"
    path = ROOT / "benchmarks" / "results" / name
    path.write_text(results_text(out, results))
    print(f"written {path.relative_to(ROOT)}")
    return 0 if total["right"] == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
