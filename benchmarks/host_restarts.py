"""The table host started again on the same dealer, many times over: does it ever stick?

    .venv/bin/python benchmarks/host_restarts.py [--games german-whist,hearts] [--runs 200]
        [--shares 0.02,0.15,0.3,0.45,0.6,0.75,0.9,0.99] [--reboots no] [--jobs 2] [--results NAME]

What tests/device/test_power_cut_sweep.py does once per point, done ``--runs`` times: a hand on
the simulated table (SEED 7) loses the host's power right after the k-th dealer step ended (k at
each ``--shares`` of the hand's steps, in turn), the dealer going on with its memory (step ids,
reply cache, event log; ``--reboots kept,lost``: the dealer rebooting too, with its flash kept or
blank, in turn with the shares); a new host opens the journal on that dealer and the hand is played to
its end. Each run is **right** (the hand the same as without the cut), **stuck** (the table could
not go on: the same fault after three Resumes, or nobody can act), **wrong** (another hand) or
**error**. What changes from run to run is what a real restart changes: the new host's random
first frame sequence number and step ids, and the threads' timing. The trial is
device/simulated/restart_trials.py (tests/device/test_power_cut_sweep.py runs each point once).

Two rare ways a restart met the last host's state (traced 2026-12-05; both fixed): a new host's
fresh step id the dealer still remembered from the last host (driver.FRESH_IDS_CHECKED), and a
HELLO answered from the dealer's reply cache (firmware/commands.py). Prints the counts per game
and share with the load beside them; writes benchmarks/results/host_restarts[-NAME].json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trickref.device.simulated import restart_trials  # noqa: E402

SHARES = (0.02, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.99)


def run_once(args: tuple[str, float, str]) -> dict[str, Any]:
    """One cut after the k-th dealer step (k from the share), the host started again on the
    dealer (device/simulated/restart_trials.py): going on, or rebooting as ``reboot`` says."""
    game, share, reboot = args
    k = max(1, round(share * restart_trials.moments(game)))
    return {**restart_trials.run_point(game, k, reboot), "share": share}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="german-whist,hearts")
    ap.add_argument("--runs", type=int, default=200, help="restarts per game (the shares in turn)")
    ap.add_argument("--shares", default=",".join(str(s) for s in SHARES))
    ap.add_argument("--reboots", default="no", help="what the dealer does meanwhile: no (goes on), kept, lost")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--results", default="")
    a = ap.parse_args(argv)
    games = [g for g in a.games.split(",") if g]
    shares = [float(s) for s in a.shares.split(",") if s]
    reboots = [r for r in a.reboots.split(",") if r]
    points = [(g, shares[i % len(shares)], reboots[i // len(shares) % len(reboots)]) for g in games for i in range(a.runs)]
    loads = [round(os.getloadavg()[0], 2)]
    started = time.monotonic()
    with mp.get_context("spawn").Pool(a.jobs) as pool:
        results = []
        for i, r in enumerate(pool.imap_unordered(run_once, points), 1):
            results.append(r)
            if r["outcome"] != "right":
                print(f"  {r['game']} share {r['share']} (k {r['k']}, dealer reboot {r['reboot']}): {r['outcome']}: {r.get('detail', '')}", flush=True)
            if i % 100 == 0:
                loads.append(round(os.getloadavg()[0], 2))
                print(f"  {i}/{len(points)} done (load {loads[-1]})", flush=True)
    loads.append(round(os.getloadavg()[0], 2))
    print(f"\nhost restarts on the same dealer, {a.runs} per game, {time.monotonic() - started:.0f} s, "
          f"load {min(loads)}-{max(loads)}:")
    table: dict[str, dict[str, Any]] = {}
    for g in games:
        mine = [r for r in results if r["game"] == g]
        c = Counter(r["outcome"] for r in mine)
        by_share = {str(s): dict(Counter(r["outcome"] for r in mine if r["share"] == s)) for s in shares}
        by_reboot = {b: dict(Counter(r["outcome"] for r in mine if r["reboot"] == b)) for b in reboots}
        table[g] = {"runs": len(mine), **{k: c.get(k, 0) for k in ("right", "stuck", "wrong", "error")},
                    "by_share": by_share, "by_reboot": by_reboot}
        print(f"  {g:<14} {len(mine)} runs: right {c.get('right', 0)}, stuck {c.get('stuck', 0)}, "
              f"wrong {c.get('wrong', 0)}, error {c.get('error', 0)}")
    name = "host_restarts" + (f"-{a.results}" if a.results else "")
    path = ROOT / "benchmarks" / "results" / f"{name}.json"
    path.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": platform.platform(),
                                "cpus": os.cpu_count(), "load_1min": [min(loads), max(loads)], "runs": a.runs,
                                "shares": shares, "reboots": reboots, "games": table,
                                "not_right": [r for r in results if r["outcome"] != "right"]}, indent=1) + "\n")
    print(f"written to {path.relative_to(ROOT)}")
    return 0 if all(v["stuck"] == v["wrong"] == v["error"] == 0 for v in table.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
