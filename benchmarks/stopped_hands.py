"""Two-deck hands on a loaded machine, their processes stopped and continued at random (issue 18).

    nice -n 10 .venv/bin/python benchmarks/stopped_hands.py [--hands 200] [--jobs 8]
        [--stopped 4] [--hogs 1] [--game cancellation-hearts] [--players 6-11] [--seed 9000]
        [--until HH:MM]

The campaign's stuck Cancellation Hearts hands came only under real multi-process load, never
with the interpreter starved in one process: a late answer from the dealer (its simulator is a
thread of the same process) made the table stop for a moment, and what the host and the simulated
person did in that moment was wrong (a pass's OK refused and its cards fed anyway; a read given
up and aborted while the dealer still read the player's card). Here ``--jobs`` processes each play
one ``SimTable`` hand after another (bots in every seat, the real firmware behind a pty, the real
driver and host; every pocket compared with the referee's hand before each play), ``--stopped``
of them SIGSTOPped for 0.5-3 s every 0.2-2 s (seeded), beside ``--hogs`` busy loops. Link timeout
and everything else as in ``trickref sim``. A hand is **right** (it ended, every pocket matched)
or **stuck** (it raised: the person could not do what the screen said, or the table hung); a
stuck hand leaves its report and journal (``SimTable.keep``) in
benchmarks/results/stopped_hands-stuck/, named in the results. Figures (hands, right, stuck,
seconds a hand, the load while they ran) go to benchmarks/results/stopped_hands.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS_JSON = ROOT / "benchmarks" / "results" / "stopped_hands.json"
STUCK_DIR = ROOT / "benchmarks" / "results" / "stopped_hands-stuck"

# one process: hands one after another, one line of JSON each
WORKER = r'''
import json, os, sys, time
sys.path.insert(0, {root!r})
from trickref.device.simulated.fault_trials import _Table
game, jobs, keep = {args!r}
for line in sys.stdin:
    players, seed = (int(x) for x in line.split())
    journal = os.path.join(keep, f"hand-{{seed}}-{{os.getpid()}}.journal")
    t0 = time.monotonic()
    out = {{"seed": seed, "players": players, "outcome": "right", "detail": "", "kept": ""}}
    t = _Table(game, players, {{}}, seed=seed, journal_path=journal)
    t.mismatches = []
    try:
        t.start()
        t.run(max_hands=1)
        if t.mismatches:
            out["outcome"], out["detail"] = "mismatch", t.mismatches[0]
    except Exception as e:
        out["outcome"], out["detail"] = "stuck", f"{{type(e).__name__}}: {{e}}"
    if out["outcome"] != "right":
        out["kept"] = str(t.keep(os.path.join(keep, f"{{game}}-{{players}}p-{{seed}}.txt")))
    out["resumes"] = len(t.recoveries)
    out["seconds"] = round(time.monotonic() - t0, 2)
    out["load"] = os.getloadavg()[0]
    t.close()
    if os.path.exists(journal):
        os.unlink(journal)
    print(json.dumps(out), flush=True)
'''


def _players(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--stopped", type=int, default=4, help="how many of the jobs are SIGSTOPped at random")
    ap.add_argument("--hogs", type=int, default=1, help="busy loops beside the jobs")
    ap.add_argument("--game", default="cancellation-hearts")
    ap.add_argument("--players", default="6-11")
    ap.add_argument("--seed", type=int, default=9000, help="the first hand's seed (then +1 each)")
    ap.add_argument("--until", help="HH:MM UTC: start no hand after it")
    a = ap.parse_args()
    deadline = None
    if a.until:
        h, mi = (int(x) for x in a.until.split(":"))
        now = time.gmtime()
        deadline = time.time() + ((h * 60 + mi) - (now.tm_hour * 60 + now.tm_min)) * 60 - now.tm_sec
    STUCK_DIR.mkdir(parents=True, exist_ok=True)
    players = _players(a.players)
    rng = random.Random(f"stopped-hands/{a.seed}")
    hands = [(players[i % len(players)], a.seed + i) for i in range(a.hands)]
    code = WORKER.format(root=str(ROOT), args=(a.game, a.jobs, str(STUCK_DIR)))
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.hogs)]
    procs = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=dict(os.environ, PYTHONUNBUFFERED="1"))
             for _ in range(a.jobs)]
    bufs = [b"" for _ in procs]
    busy: dict[int, tuple[int, int]] = {}
    stopped_until: dict[int, float] = {}
    next_stop = {i: time.monotonic() + rng.uniform(0.2, 2.0) for i in range(min(a.stopped, a.jobs))}
    results: list[dict[str, Any]] = []
    started = time.time()
    try:
        pending = list(hands)
        fds = {p.stdout.fileno(): i for i, p in enumerate(procs) if p.stdout is not None}
        while pending or busy:
            for i, p in enumerate(procs):
                if i not in busy and pending and (deadline is None or time.time() < deadline):
                    busy[i] = pending.pop(0)
                    assert p.stdin is not None
                    p.stdin.write(f"{busy[i][0]} {busy[i][1]}\n".encode())
                    p.stdin.flush()
            ready, _, _ = select.select(list(fds), [], [], 0.05)
            for fd in ready:
                i = fds[fd]
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise RuntimeError(f"job {i} ended (seed {busy.get(i)})")
                bufs[i] += chunk
                while b"\n" in bufs[i]:
                    line, bufs[i] = bufs[i].split(b"\n", 1)
                    r = json.loads(line)
                    results.append(r)
                    busy.pop(i, None)
                    print(f"{r['outcome']:8s} seed {r['seed']} {r['players']:2d} players {r['seconds']:6.1f} s "
                          f"resumes {r['resumes']} load {r['load']:.1f} {r['detail'][:90]}"
                          + (f" (kept: {r['kept']})" if r["kept"] else ""), flush=True)
            if deadline is not None and time.time() >= deadline and not busy:
                break
            now = time.monotonic()
            for i in list(next_stop):  # the stopped jobs: SIGSTOP for 0.5-3 s every 0.2-2 s
                if i in stopped_until:
                    if now >= stopped_until[i]:
                        del stopped_until[i]
                        os.kill(procs[i].pid, signal.SIGCONT)
                        next_stop[i] = now + rng.uniform(0.2, 2.0)
                elif now >= next_stop[i] and i in busy:
                    os.kill(procs[i].pid, signal.SIGSTOP)
                    stopped_until[i] = now + rng.uniform(0.5, 3.0)
    finally:
        for p in procs:
            try:
                os.kill(p.pid, signal.SIGCONT)
            except OSError:
                pass
            if p.stdin is not None:
                p.stdin.close()
            p.terminate()
        for h in hogs:
            h.terminate()
        for p in [*procs, *hogs]:
            p.wait(timeout=30)
    loads = sorted(r["load"] for r in results) or [0.0]
    secs = sorted(r["seconds"] for r in results) or [0.0]
    q = statistics.quantiles(loads, n=4) if len(loads) > 3 else [loads[0], loads[-1]]
    qs = statistics.quantiles(secs, n=4) if len(secs) > 3 else [secs[0], secs[-1]]
    summary = {
        "game": a.game, "players": players, "jobs": a.jobs, "stopped": a.stopped, "hogs": a.hogs,
        "hands": len(results), "right": sum(r["outcome"] == "right" for r in results),
        "stuck": sum(r["outcome"] == "stuck" for r in results),
        "mismatch": sum(r["outcome"] == "mismatch" for r in results),
        "resumes": sum(r["resumes"] for r in results),
        "seconds_median": statistics.median(secs), "seconds_iqr": [qs[0], qs[-1]],
        "load_median": round(statistics.median(loads), 1), "load_iqr": [round(q[0], 1), round(q[-1], 1)],
        "load_min": loads[0], "load_max": loads[-1],
        "minutes": round((time.time() - started) / 60, 1),
        "not_right": [r for r in results if r["outcome"] != "right"],
    }
    RESULTS_JSON.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"{summary['hands']} hands: {summary['right']} right, {summary['stuck']} stuck, {summary['mismatch']} "
          f"pocket != referee; {summary['resumes']} stops for the dealer, gone on by themselves or resumed; "
          f"a hand {summary['seconds_median']:.1f} s (IQR {qs[0]:.1f}-{qs[-1]:.1f}); load median "
          f"{summary['load_median']} (IQR {summary['load_iqr'][0]}-{summary['load_iqr'][1]}, "
          f"{loads[0]:.1f}-{loads[-1]:.1f})")
    return 0 if summary["right"] == summary["hands"] else 1


if __name__ == "__main__":
    sys.exit(main())
