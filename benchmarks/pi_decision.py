"""A strong bot's decision, timed where this runs: one round of scripts/pi-emulated.sh's bot stage.

    python benchmarks/pi_decision.py --where host|emulated-aarch64 [--positions 3]
    python benchmarks/pi_decision.py --summarize FILE.jsonl

One round times the strong search bot (engine/bots/levels.py, ``strong``) on the costliest
decisions there are: the first lead of a Hearts hand at 4 players, every card a candidate
(``--positions`` deals, seeded; a lead the bot decides without searching is skipped). Each
decision is made twice:

- with the fixed number of worlds ``trickref sim`` uses (``LEVEL_WORLDS["strong"]``, 12): the
  time that number of worlds takes here (wall and process CPU time);
- with the kiosk's own budget (``LEVELS["strong"]``, 0.2 s of CPU time here, so other work on a
  shared machine does not eat it): how many worlds fit, which is what a slower CPU costs the
  kiosk's bot (its decisions stay 0.2 s long, it just searches fewer worlds).

It prints one JSON line (the round's figures, the engine build, the machine, the load). The
pi-emulated.sh script runs rounds alternately on this machine and inside the emulated arm64
root, then ``--summarize`` prints the medians with their 95% intervals (order statistics)
and the ratio of the medians. Under qemu-user emulation every aarch64 instruction is
translated on this machine's CPU: the figures say how the program does on the Pi's OS and
instruction set, not how fast a Pi is.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from typing import Any


def first_lead(seed: int) -> tuple[Any, int]:
    """A 4-player Hearts hand after the pass, at its first lead (the 2C holder's decision)."""
    from trickref.engine import cards as C
    from trickref.engine.actions import Action
    from trickref.engine.bots import bot_for
    from trickref.engine.games import new_game

    st = new_game("hearts", 4)
    rng = random.Random(seed)
    deck = C.full_deck(1)
    rng.shuffle(deck)
    st.start_hand(deck)
    rule = bot_for("hearts")
    while st.phase != "play" or len(st.legal_actions(st.turn_seats()[0])) < 2:
        for seat in st.turn_seats():
            a = rule.choose(st, seat, rng)
            assert isinstance(a, Action)
            st.apply(a, seat)
    return st, st.turn_seats()[0]


def one_round(where: str, positions: int) -> dict[str, Any]:
    from trickref.engine import ENGINE_BUILD
    from trickref.engine.bots.levels import LEVEL_WORLDS, LEVELS, make_search_bot

    budget = LEVELS["strong"]
    assert budget is not None
    fixed: list[dict[str, float]] = []
    budgeted: list[int] = []
    seed = 0
    while len(fixed) < positions:
        seed += 1
        st, seat = first_lead(seed)
        bot = make_search_bot("hearts", budget=budget, iterations=LEVEL_WORLDS["strong"])
        t, c = time.perf_counter(), time.process_time()
        bot.choose(st.copy(), seat, random.Random(seed))
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        if not bot.last_worlds:  # decided without a search (one card worth playing): not this one
            continue
        fixed.append({"seed": seed, "wall": wall, "cpu": cpu, "worlds": bot.last_worlds})
        kiosk = make_search_bot("hearts", budget=budget, clock=time.process_time)
        kiosk.choose(st.copy(), seat, random.Random(seed))
        budgeted.append(kiosk.last_worlds)
    return {"where": where, "machine": platform.machine(), "python": platform.python_version(),
            "engine": ENGINE_BUILD, "worlds": LEVEL_WORLDS["strong"], "budget_s": budget,
            "fixed": fixed, "worlds_in_budget": budgeted, "load": list(os.getloadavg())}


def median_ci(xs: list[float]) -> tuple[float, float, float]:
    """The median and a 95% interval from order statistics (binomial, n >= 6)."""
    s = sorted(xs)
    n = len(s)
    if n < 6:
        return statistics.median(s), s[0], s[-1]
    # ranks k and n-1-k with P(X < k) <= 2.5% for X ~ Binomial(n, 1/2)
    from math import comb

    k, acc = 0, 0.0
    while True:
        acc += comb(n, k) / 2 ** n
        if acc > 0.025:
            break
        k += 1
    k = max(0, k - 1) if k else 0
    return statistics.median(s), s[k], s[n - 1 - k]


def summarize(path: str) -> str:
    rounds = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    out = []
    medians: dict[str, float] = {}
    for where in sorted({r["where"] for r in rounds}):
        rs = [r for r in rounds if r["where"] == where]
        # one figure per round: the median decision of that round (positions differ in cost)
        wall = [statistics.median(d["wall"] for d in r["fixed"]) for r in rs]
        cpu = [statistics.median(d["cpu"] for d in r["fixed"]) for r in rs]
        worlds = [statistics.median(r["worlds_in_budget"]) for r in rs]
        loads = [r["load"][0] for r in rs]
        mw, lw, hw = median_ci(wall)
        mc, lc, hc = median_ci(cpu)
        mb, lb, hb = median_ci(worlds)
        medians[where] = mc
        out.append(f"{where} ({rs[0]['machine']}, Python {rs[0]['python']}, engine {rs[0]['engine']}): "
                   f"{len(rs)} rounds, a {rs[0]['worlds']}-world strong decision (Hearts first lead) "
                   f"{mw:.2f} s wall (95% {lw:.2f}-{hw:.2f}), {mc:.2f} s CPU ({lc:.2f}-{hc:.2f}); "
                   f"worlds in the kiosk's {rs[0]['budget_s']} s: {mb:.0f} ({lb:.0f}-{hb:.0f}); "
                   f"1-min load {min(loads):.1f}-{max(loads):.1f}")
    if "host" in medians and len(medians) == 2:
        other = next(w for w in medians if w != "host")
        out.append(f"CPU time ratio {other}/host: {medians[other] / medians['host']:.1f}x (medians)")
    return "; ".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--where", default="host", help="a label for this machine in the output")
    p.add_argument("--positions", type=int, default=3, help="deals (first leads) per round")
    p.add_argument("--summarize", metavar="FILE", help="summarize the JSON lines of earlier rounds")
    args = p.parse_args()
    if args.summarize:
        print(summarize(args.summarize))
        return
    sys.setrecursionlimit(10000)
    print(json.dumps(one_round(args.where, args.positions)))


if __name__ == "__main__":
    main()
