"""How fast the Cancellation Hearts search draws its worlds: the worlds per CPU second that the
search bot's own draw (``HeartsSearchBot._cc_sampler``: hidden cards placed as
``sample_world`` places them, then a chearts_core position) gives at the decisions of real hands.

    .venv/bin/python benchmarks/world_draws.py [--rounds 10] [--players 6 11] [--versus-tree DIR]

Each round plays the same hands (rule bots in every seat, seeds fixed), and at every play
decision of seat 0 with a choice draws ``--worlds`` worlds for it, as one searched decision
does; the CPU time of the draws alone is summed (``time.process_time``). ``--versus-tree``: the
same in another checkout with its own installed ``.venv`` (its own copy of this script is run,
e.g. main's before a change), alternating with this tree's round by round, with the ratio per
round, its median and the distribution-free 95% interval of the median, and the 1-minute load
average beside each round. Figures printed and written to benchmarks/results/world_draws.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results" / "world_draws.json"


def draws(players: int, hands: int, worlds: int, seed: int) -> dict[str, Any]:
    """Worlds per CPU second of the search's draw at ``hands`` hands' decisions (seat 0)."""
    from trickref.engine import ENGINE_BUILD
    from trickref.engine import cards as C
    from trickref.engine.bots import bot_for
    from trickref.engine.bots.levels import make_search_bot
    from trickref.engine.games import new_game

    bot: Any = make_search_bot("cancellation-hearts", budget=1.0, wall_limit=None)
    rule = bot_for("cancellation-hearts")
    rng = random.Random(seed)
    spent = 0.0
    drawn = decisions = 0
    state = new_game("cancellation-hearts", players, {"target": 10**6})
    for _ in range(hands):
        deck = C.full_deck(2)
        rng.shuffle(deck)
        state.start_hand(deck)
        while state.turn_seats():
            seat = state.turn_seats()[0]
            if seat == 0 and state.phase == "play" and len(state.legal_actions(0)) > 1:
                wrng = random.Random(decisions)
                t = time.process_time()
                draw = bot._cc_sampler(state)
                for _ in range(worlds):
                    draw(0, wrng)
                spent += time.process_time() - t
                drawn += worlds
                decisions += 1
            state.apply(rule.choose(state, seat, rng), seat)
    return {"build": ENGINE_BUILD, "players": players, "decisions": decisions, "worlds": drawn,
            "cpu_s": round(spent, 4), "worlds_per_cpu_s": round(drawn / spent, 1)}


def worker(tree: Path | None, job: dict[str, Any]) -> dict[str, Any]:
    python, script = sys.executable, str(Path(__file__).resolve())
    if tree is not None:
        python, script = str(tree / ".venv" / "bin" / "python"), str(tree / "benchmarks" / "world_draws.py")
    r = subprocess.run([python, script, "--worker", json.dumps(job)], capture_output=True, text=True, check=True)
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def median_ci(xs: list[float]) -> tuple[float, float, float]:
    """The median and a distribution-free ~95% interval of it (order statistics)."""
    s = sorted(xs)
    n = len(s)
    k = max(0, int(n / 2 - 0.98 * n ** 0.5))
    return statistics.median(s), s[k], s[min(n - 1, n - 1 - k)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--players", type=int, nargs="+", default=[6, 11])
    ap.add_argument("--hands", type=int, default=2, help="hands per player count and round")
    ap.add_argument("--worlds", type=int, default=20, help="worlds drawn per decision")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--versus-tree", type=Path)
    ap.add_argument("--output", type=Path, default=RESULTS)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        job = json.loads(args.worker)
        print(json.dumps(draws(job["players"], job["hands"], job["worlds"], job["seed"])))
        return 0
    rows: list[dict[str, Any]] = []
    for players in args.players:
        ratios: list[float] = []
        for r in range(args.rounds):
            job = {"players": players, "hands": args.hands, "worlds": args.worlds, "seed": args.seed}
            trees: list[tuple[str, Path | None]] = [("ours", None)]
            if args.versus_tree is not None:
                trees.append(("versus", args.versus_tree))
            if r % 2:
                trees.reverse()  # alternate which runs first
            got = {name: worker(tree, job) for name, tree in trees}
            load = os.getloadavg()[0]
            row = {"players": players, "round": r + 1, "load_1min": round(load, 2), **{
                f"{name}_worlds_per_cpu_s": g["worlds_per_cpu_s"] for name, g in got.items()},
                "ours_build": got["ours"]["build"], "decisions": got["ours"]["decisions"]}
            line = f"{players} players, round {r + 1}: ours {got['ours']['worlds_per_cpu_s']:.0f} worlds/CPU s"
            if "versus" in got:
                ratio = got["ours"]["worlds_per_cpu_s"] / got["versus"]["worlds_per_cpu_s"]
                ratios.append(ratio)
                row["ratio"] = round(ratio, 3)
                line += f", versus {got['versus']['worlds_per_cpu_s']:.0f}, ratio {ratio:.2f}"
            print(line + f" (load {load:.1f})", flush=True)
            rows.append(row)
        if ratios:
            m, lo, hi = median_ci(ratios)
            loads = [x["load_1min"] for x in rows if x["players"] == players]
            print(f"{players} players: ours / versus median {m:.2f}x (95% {lo:.2f}-{hi:.2f}) over {len(ratios)} "
                  f"rounds, load {min(loads):.1f}-{max(loads):.1f}")
    out = {"command": "python benchmarks/world_draws.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "machine": f"{platform.platform()} ({platform.python_version()}, {os.cpu_count()} CPUs)",
           "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "rounds": rows}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=1) + "\n")
    print(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
