"""The physical twin's random faults through the whole table (issue 20: every hand right or a
typed stop, never stuck).

    .venv/bin/python benchmarks/twin_faults.py [--games spades-2p:2,german-whist:2,...]
        [--seeds 1-10] [--hands 3] [--jobs 2] [--results NAME]

Each point is one simulated table (device/simulated/table.py, ``SimTable(twin=True,
twin_faults=True)``): the unmodified firmware on the physical twin with its random faults on
(pickup slips 1 % of pickups, 5-30 % of the rollers' travel until F1's nip; double feeds 0.2 %;
misreads; the gate IRQ delayed by a garbage collection 1 %: device/dealer/physical.toml), bots in
every seat and simulated people doing what the screen says after every stop, for ``--hands``
hands. A point is **finished** (every hand played and scored), **stuck** (the table could not
go on: the same fault three times, a person told to do what they cannot, a card never read) or
**error** (anything else raised); one still running after POINT_LIMIT_S is stuck (a hang). The
recoveries (what the screen told the people) are counted by kind. "twin s/hand" is the median
of the table's own clock a hand (the mechanism's motion, the firmware's waits, the simulated
people and players), not this machine's time, so it carries no load; the CPU seconds and the
load are printed beside it. Writes benchmarks/results/twin_faults[-NAME].json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

POINT_LIMIT_S = 600
GAMES = "spades-2p:2,german-whist:2,cancellation-hearts:8,hearts:5,partnership-spades:4"


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang()


def _kind(words: str) -> str:
    """A recovery's kind, from the screen's words (no card is ever named there)."""
    w = words.lower()
    for key, kind in (("fed together", "double feed"), ("did not check out", "deal check failed"),
                      ("of the deal could not be read", "deal: unread cards dealt alone"),
                      ("a jam is waiting", "refused: a jam between steps"), ("at the loop stage", "jam: loop"),
                      ("at the feed stage", "jam: feed"), ("at the transport stage", "jam: transport"),
                      ("at the reader stage", "jam: reader"), ("went round", "misroute"),
                      ("reported a fault", "fault"), ("jammed", "jam: other")):
        if key in w:
            return kind
    return "other"


def run_point(args: tuple[str, int, int, int]) -> dict[str, Any]:
    game, players, seed, hands = args
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(POINT_LIMIT_S)
    from trickref.device.simulated.table import SimTable, TableStuck

    cpu0 = time.process_time()
    out: dict[str, Any] = {"game": game, "players": players, "seed": seed, "hands": hands}
    table = SimTable(game, players, seed=seed, twin=True, twin_faults=True)
    try:
        with table:
            table.start()
            table.run(max_hands=hands)
            out["outcome"] = "finished"
    except _Hang:
        out["outcome"], out["detail"] = "stuck", f"still running after {POINT_LIMIT_S} s (a hang)"
    except TableStuck as e:
        out["outcome"], out["detail"] = "stuck", str(e)[:400]
    except Exception as e:  # noqa: BLE001 (every other way a point can end is counted)
        out["outcome"], out["detail"] = "error", f"{type(e).__name__}: {str(e)[:400]}"
    finally:
        signal.alarm(0)
    g = table.referee.game
    out["hands_done"] = len(g.hand_results) if g is not None else 0
    out["recoveries"] = [_kind(r) for r in table.recoveries]
    out["said"] = [r[:160] for r in table.recoveries]  # the screen's words (never a card's name)
    sim = getattr(table, "sim", None)
    figures = sim.figures() if sim is not None and hasattr(sim, "figures") else {}
    out["machine_s"] = figures.get("machine_s")
    out["cpu_s"] = round(time.process_time() - cpu0, 1)
    return out


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default=GAMES, help="game:players, comma-separated")
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--hands", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--results", default="")
    a = ap.parse_args()
    games = [(g.split(":")[0], int(g.split(":")[1])) for g in a.games.split(",")]
    points = [(g, n, s, a.hands) for s in _seeds(a.seeds) for g, n in games]
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    with mp.get_context("spawn").Pool(a.jobs, maxtasksperchild=1) as pool:
        rows = pool.map(run_point, points, chunksize=1)
    load1 = os.getloadavg()[0]
    print(f"twin faults through the whole table: {len(points)} points, {a.hands} hands each, "
          f"{started}, {time.monotonic() - t0:.0f} s wall, 1-minute load {load0:.1f} -> {load1:.1f}, "
          f"{platform.node()} ({os.cpu_count()} CPUs)")
    print(f"{'game':<24}{'points':>7}{'finished':>9}{'stuck':>6}{'error':>6}{'hands':>7}{'recoveries':>11}"
          f"{'twin s/hand':>12}{'cpu s':>7}")
    for g, n in games:
        mine = [r for r in rows if r["game"] == g and r["players"] == n]
        c = Counter(r["outcome"] for r in mine)
        hands = sum(r["hands_done"] for r in mine)
        rec = sum(len(r["recoveries"]) for r in mine)
        ms = [r["machine_s"] / max(1, r["hands_done"]) for r in mine if r.get("machine_s") and r["hands_done"]]
        per = f"{sorted(ms)[len(ms) // 2]:.0f}" if ms else "-"
        cpu = sum(r["cpu_s"] for r in mine)
        print(f"{g + ' ' + str(n):<24}{len(mine):>7}{c['finished']:>9}{c['stuck']:>6}{c['error']:>6}{hands:>7}"
              f"{rec:>11}{per:>12}{cpu:>7.0f}")
    kinds = Counter(k for r in rows for k in r["recoveries"])
    print("recoveries by kind: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    for r in rows:
        if r["outcome"] != "finished":
            print(f"  {r['outcome']}: {r['game']} {r['players']} seed {r['seed']} after {r['hands_done']} hands: "
                  f"{r.get('detail', '')}")
    name = "twin_faults" + (f"-{a.results}" if a.results else "")
    path = ROOT / "benchmarks" / "results" / f"{name}.json"
    path.write_text(json.dumps({"started": started, "load": [load0, load1], "hands": a.hands,
                                "machine": f"{platform.node()} ({os.cpu_count()} CPUs)", "points": rows},
                               indent=1) + "\n")
    print(f"written {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
