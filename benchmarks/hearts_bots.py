"""Strength and speed of the Hearts and Cancellation Hearts bots.

    .venv/bin/python benchmarks/hearts_bots.py [--hands 300] [--seed 1]

For each game and player count, three tables of fixed-seed random deals (a hand's points are
what the rules score, moons included; lower is better):

- one bot (seat 0) among uniformly random legal players: the bot's points per hand v theirs;
- one random player (seat 0) among bots;
- Cancellation Hearts only: one cancellation-aware bot (seat 0) among bots that ignore the
  cancellation rule when working out who wins a trick (the same player otherwise).

Also the bot's decision time (microseconds per ``choose`` call, all phases). Figures are
printed and written to benchmarks/results/hearts_bots.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trickref.engine import cards as C  # noqa: E402
from trickref.engine.bots import bot_for  # noqa: E402
from trickref.engine.bots._hearts_play import HeartsBot  # noqa: E402
from trickref.engine.games import new_game  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "hearts_bots.json"


def table(game: str, n: int, players: list[Any], hands: int, seed: int) -> tuple[list[float], float, int]:
    """Average points per hand per seat; microseconds per bot decision; decisions made.
    ``players[s]`` is a bot, or None for a uniformly random legal player."""
    rng = random.Random(seed)
    st = new_game(game, n, {"target": 10**9})
    totals = [0] * n
    spent = 0.0
    decisions = 0
    for _ in range(hands):
        deck = C.full_deck(st.DECKS)
        rng.shuffle(deck)
        st.start_hand(deck)
        while st.turn_seats():
            s = st.turn_seats()[0]
            bot = players[s]
            if bot is None:
                a = rng.choice(st.legal_actions(s))
            else:
                t = time.perf_counter()
                a = bot.choose(st, s, rng)
                spent += time.perf_counter() - t
                decisions += 1
            st.apply(a, s)
        for i, p in enumerate(st.hand_results[-1]["points"]):
            totals[i] += p
    return [round(t / hands, 2) for t in totals], (spent / decisions * 1e6 if decisions else 0.0), decisions


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hands", type=int, default=300, help="hands per table (default 300)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--output", default=str(RESULTS))
    args = p.parse_args(argv)
    rows: list[dict[str, Any]] = []
    print(f"{'game':<21}{'n':>3}  {'bot v random':>22}  {'random v bots':>22}  {'aware v blind':>22}  {'us/choice':>9}")
    for game, counts in (("hearts", (3, 4, 5, 6, 7)), ("cancellation-hearts", (6, 7, 8, 9, 10, 11))):
        bot = bot_for(game)
        for n in counts:
            one_bot, us1, d1 = table(game, n, [bot] + [None] * (n - 1), args.hands, args.seed)
            one_random, us2, d2 = table(game, n, [None] + [bot] * (n - 1), args.hands, args.seed)
            row: dict[str, Any] = {
                "game": game, "players": n, "hands": args.hands,
                "bot_among_random": {"bot": one_bot[0], "others_mean": round(sum(one_bot[1:]) / (n - 1), 2)},
                "random_among_bots": {"random": one_random[0], "bots_mean": round(sum(one_random[1:]) / (n - 1), 2)},
                "us_per_decision": round((us1 * d1 + us2 * d2) / (d1 + d2), 1),
            }
            aware = "-"
            if game == "cancellation-hearts":
                blind = HeartsBot(cancellation=False)
                mixed, _, _ = table(game, n, [bot] + [blind] * (n - 1), args.hands, args.seed)
                row["aware_among_blind"] = {"aware": mixed[0], "blind_mean": round(sum(mixed[1:]) / (n - 1), 2)}
                aware = f"{mixed[0]:.2f} v {row['aware_among_blind']['blind_mean']:.2f}"
            rows.append(row)
            b, r = row["bot_among_random"], row["random_among_bots"]
            print(f"{game:<21}{n:>3}  {b['bot']:>9.2f} v {b['others_mean']:<10.2f}  {r['random']:>9.2f} v {r['bots_mean']:<10.2f}"
                  f"  {aware:>22}  {row['us_per_decision']:>9.1f}")
    out = {
        "benchmark": "hearts bots: points per hand (lower is better) at fixed-seed tables, and decision time",
        "command": "python benchmarks/hearts_bots.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "results": rows,
    }
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
