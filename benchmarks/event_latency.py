"""How long the host waits for a single-card step's end at a real table: the dealer's event
batching alone ("before": firmware EVENT_SEND_AT_END off, the default until the tenth session)
and with what waits sent once the mechanism's job has ended ("after": on, the default since; see
benchmarks/RESULTS.md).

    .venv/bin/python benchmarks/event_latency.py [--hands 10] [--first 0] [--seed 1]
        [--cases german-whist,spades-2p-double-nil,hearts] [--kiosk-rounds 10] [--results NAME]

The real Referee plays the hands of benchmarks/twin_referee.py on the physical twin with the
unmodified firmware (German Whist: the deal and stage one, every play through the reader, the
stock fetched and staged; two-player Spades: the deal, the draw and a Double Nil exchange;
four-player Hearts, a game with no stock, as a control: a whole hand, the passes parked in the
loop and released, every play through the reader to the trick pocket), and each FETCH, RouteFed and FeedBack ends when the host hears its card's CARD_ROUTED, as
device/dealer/driver.py ends it. Per step: the twin's ms from the command to the card landing in
its pocket, and to the event heard; ``late`` is the difference (the host waiting on a card that
is already where it goes). Both firmware settings play the same hands (the same deck, bots,
choices), alternating which goes first hand by hand, in one process. The twin's clock is
simulated, so the figures do not depend on this machine's load (printed beside them anyway).
Prints per case and setting the hand's sums, median and ~90 % interval over the hands; writes
benchmarks/results/event_latency[-NAME].json. ``--kiosk-rounds N``: also the wall time of a whole
German Whist hand on the simulated table at the kiosk's dealer speed (what a laptop's simulated
mode shows), both settings alternating for N rounds (``--cases ""`` for that alone).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import twin_referee as TR  # noqa: E402  (the Referee's steps on the twin)

SETTINGS = {"before": {"EVENT_SEND_AT_END": False}, "after": {"EVENT_SEND_AT_END": True}}


def one_hand(case: str, hand: int, setting: str) -> dict[str, Any]:
    t = TR.CASES[case](hand, True, None, heard=True, cfg=SETTINGS[setting])
    problems = t.agree()
    steps = t.heard_steps
    late = [heard - landed for _, landed, heard in steps if landed >= 0]
    return {"hand": hand, "steps": len(steps), "wait_s": sum(h for _, _, h in steps) / 1000,
            "late_s": sum(late) / 1000, "late_steps": sum(1 for x in late if x > 50),
            "late_max_ms": max(late, default=0), "agree": not problems,
            "kinds": sorted({k for k, _, _ in steps})}


def kiosk_hand(seed: int, at_end: bool) -> float:
    """Wall seconds of one German Whist hand (both stages) on the simulated table at the
    kiosk's dealer speed (device/simulated/world.py SIM_SPEED: a laptop's simulated mode), the
    firmware's setting ``at_end`` (the simulated board runs the firmware in this process)."""
    from trickref.device.simulated.table import SimTable
    from trickref.device.simulated.world import SIM_SPEED
    from trickref.firmware import config

    saved = config.EVENT_SEND_AT_END
    config.EVENT_SEND_AT_END = at_end
    try:
        start = time.monotonic()
        with SimTable("german-whist", 2, {}, seed=seed, speed=SIM_SPEED) as t:
            t.start()
            t.run(max_hands=1)
        return time.monotonic() - start
    finally:
        config.EVENT_SEND_AT_END = saved


def kiosk_rounds(rounds: int, seed: int) -> dict[str, Any]:
    """``rounds`` alternating rounds of ``kiosk_hand`` (the order swapped each round)."""
    times: dict[str, list[float]] = {s: [] for s in SETTINGS}
    loads: list[float] = []
    for n in range(rounds):
        for setting in (list(SETTINGS) if n % 2 == 0 else list(SETTINGS)[::-1]):
            times[setting].append(kiosk_hand(seed * 1000 + n, SETTINGS[setting]["EVENT_SEND_AT_END"]))
            loads.append(round(os.getloadavg()[0], 1))
            print(f"kiosk speed, round {n + 1}, {setting:<6}: {times[setting][-1]:.2f} s, load {loads[-1]}", flush=True)
    out: dict[str, Any] = {"rounds": rounds, "load_1min": [min(loads), max(loads)], "seconds": times}
    for setting, xs in times.items():
        med, lo, hi = TR.median_ci(xs)
        out[setting] = {"median": round(med, 2), "lo": round(lo, 2), "hi": round(hi, 2)}
    med, lo, hi = TR.median_ci([b - a for b, a in zip(times["before"], times["after"], strict=True)])
    out["saved_s"] = {"median": round(med, 2), "lo": round(lo, 2), "hi": round(hi, 2)}
    print(f"\nGerman Whist hand on the simulated table at the kiosk's speed, {rounds} rounds, load "
          f"{min(loads)}-{max(loads)}: before {out['before']['median']:.2f} s ({out['before']['lo']:.2f}-"
          f"{out['before']['hi']:.2f}), after {out['after']['median']:.2f} s ({out['after']['lo']:.2f}-"
          f"{out['after']['hi']:.2f}), saved (paired) {med:.2f} s ({lo:.2f}-{hi:.2f})\n", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=10)
    ap.add_argument("--first", type=int, default=0, help="the first hand's number (seed*1000+n)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", default="german-whist,spades-2p-double-nil,hearts")
    ap.add_argument("--kiosk-rounds", type=int, default=0,
                    help="also time a German Whist hand on the simulated table at the kiosk's dealer speed, "
                         "both settings alternating, this many rounds (wall time: the load matters)")
    ap.add_argument("--results", default="")
    a = ap.parse_args(argv)
    started = time.time()
    out: dict[str, Any] = {"hands": a.hands, "first": a.first, "seed": a.seed, "python": platform.python_version(),
                           "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started))}
    for case in [c for c in a.cases.split(",") if c]:
        rows: dict[str, list[dict[str, Any]]] = {s: [] for s in SETTINGS}
        loads: list[float] = []
        for n, i in enumerate(range(a.first, a.first + a.hands)):
            order = list(SETTINGS) if n % 2 == 0 else list(SETTINGS)[::-1]
            for setting in order:
                r = one_hand(case, a.seed * 1000 + i, setting)
                rows[setting].append(r)
                loads.append(round(os.getloadavg()[0], 1))
                print(f"{case} {setting:<6} hand {r['hand']}: {r['steps']} steps, host waited {r['wait_s']:.2f} s, "
                      f"late {r['late_s']:.2f} s ({r['late_steps']} steps over 50 ms, max {r['late_max_ms']} ms), "
                      f"pockets {'agree' if r['agree'] else 'DIFFER'}, load {loads[-1]}", flush=True)
        out[case] = {"load_1min": [min(loads), max(loads)]}
        for setting, rs in rows.items():
            summary: dict[str, Any] = {"hands_run": rs, "all_agree": all(r["agree"] for r in rs)}
            for key in ("wait_s", "late_s", "late_steps"):
                med, lo, hi = TR.median_ci([float(r[key]) for r in rs])
                summary[key] = {"median": round(med, 2), "lo": round(lo, 2), "hi": round(hi, 2)}
            out[case][setting] = summary
        b, f = out[case]["before"], out[case]["after"]
        saved = [x["wait_s"] - y["wait_s"] for x, y in zip(rows["before"], rows["after"], strict=True)]
        med, lo, hi = TR.median_ci(saved)
        out[case]["saved_s"] = {"median": round(med, 2), "lo": round(lo, 2), "hi": round(hi, 2)}
        print(f"\n{case}, {a.hands} hands, load {min(loads)}-{max(loads)} (the twin's clock: load-free):")
        for name, s in (("before", b), ("after", f)):
            print(f"  {name:<6} host waiting a hand {s['wait_s']['median']:.2f} s ({s['wait_s']['lo']:.2f}-"
                  f"{s['wait_s']['hi']:.2f}); of it late {s['late_s']['median']:.2f} s ({s['late_s']['lo']:.2f}-"
                  f"{s['late_s']['hi']:.2f}), {s['late_steps']['median']:.0f} steps over 50 ms; "
                  f"pockets agree in every hand: {s['all_agree']}")
        print(f"  saved a hand (paired): {med:.2f} s ({lo:.2f}-{hi:.2f})\n", flush=True)
    if a.kiosk_rounds:
        out["kiosk"] = kiosk_rounds(a.kiosk_rounds, a.seed)
    out["seconds"] = round(time.time() - started, 1)
    name = "event_latency" + (f"-{a.results}" if a.results else "") + ".json"
    path = ROOT / "benchmarks" / "results" / name
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"written {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
