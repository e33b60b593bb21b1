"""Strength and speed of the spades-2p and partnership-spades bots.

    .venv/bin/python benchmarks/spades_bots.py [--games 100] [--seed 1]

For each game, whole games (target 500) with fixed-seed random deck orders:

- bot v uniformly random legal players (seats alternate between games): games won, and the
  average points per hand of each side;
- bot self-play: how often contracts are made, Nil / Double Nil / Blind Nil success, bags per
  hand, hands per game;
- bot decision time (microseconds per ``choose`` call, all phases).

Double Nil replacement cards are drawn at random from the discard pile, as the referee does.
Figures are printed and written to benchmarks/results/spades_bots.json.
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

from trickref.engine.actions import Action  # noqa: E402
from trickref.engine.bots import bot_for  # noqa: E402
from trickref.engine.games import new_game  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "spades_bots.json"
GAMES = (("spades-2p", 2), ("partnership-spades", 4))


def play_game(game: str, n: int, players: list[Any], rng: random.Random, clock: list[float]) -> Any:
    """One whole game; ``players[s]`` is a bot or None (uniformly random legal play)."""
    st = new_game(game, n)
    while not st.over and st.hand_number < 200:
        deck = list(range(52))
        rng.shuffle(deck)
        st.start_hand(deck)
        while st.turn_seats():
            seat = st.turn_seats()[0]
            bot = players[seat]
            if bot is None:
                a = rng.choice(st.legal_actions(seat))
            else:
                t = time.perf_counter()
                a = bot.choose(st, seat, rng)
                clock[0] += time.perf_counter() - t
                clock[1] += 1
            if a.kind == "exchange":
                give = a.value[0]
                a = Action("exchange", (give, tuple(sorted(rng.sample(st.discards, len(give))))))
            st.apply(a, seat)
    return st


def versus_random(game: str, n: int, games: int, seed: int) -> dict[str, Any]:
    bot = bot_for(game)
    wins = 0
    bot_pts = rnd_pts = hands = 0
    clock = [0.0, 0]
    for g in range(games):
        rng = random.Random(seed * 1000 + g)
        bot_side = g % 2
        players = [bot if s % 2 == bot_side else None for s in range(n)]
        st = play_game(game, n, players, rng, clock)
        wins += bool(st.over and st.winners[0] % 2 == bot_side)
        for r in st.hand_results:
            bot_pts += r["points"][bot_side]
            rnd_pts += r["points"][1 - bot_side]
            hands += 1
    return {"games": games, "bot_wins": wins, "hands": hands,
            "bot_points_per_hand": round(bot_pts / hands, 1), "random_points_per_hand": round(rnd_pts / hands, 1),
            "us_per_decision": round(clock[0] / max(1, clock[1]) * 1e6, 1)}


def self_play(game: str, n: int, games: int, seed: int) -> dict[str, Any]:
    bot = bot_for(game)
    made = contracts = 0
    nil = {"nil": [0, 0], "double_nil": [0, 0], "blind_nil": [0, 0]}
    bags = hands = finished = 0
    clock = [0.0, 0]
    for g in range(games):
        rng = random.Random(seed * 7919 + g)
        st = new_game(game, n)
        while not st.over and st.hand_number < 200:
            before = st.bags[:] if st.bags else [0] * n
            deck = list(range(52))
            rng.shuffle(deck)
            st.start_hand(deck)
            while st.turn_seats():
                seat = st.turn_seats()[0]
                t = time.perf_counter()
                a = bot.choose(st, seat, rng)
                clock[0] += time.perf_counter() - t
                clock[1] += 1
                if a.kind == "exchange":
                    give = a.value[0]
                    a = Action("exchange", (give, tuple(sorted(rng.sample(st.discards, len(give))))))
                st.apply(a, seat)
            hands += 1
            bids, taken = st.bids, st.tricks_taken
            special = getattr(st, "double", None) or getattr(st, "blind", None)
            kind = "double_nil" if n == 2 else "blind_nil"
            for s in range(n):
                if bids[s] == 0:
                    k = kind if special[s] else "nil"
                    nil[k][0] += 1
                    nil[k][1] += taken[s] == 0
            sides = range(2)
            for side in sides:
                if n == 2:
                    c, got = (bids[side], taken[side]) if bids[side] > 0 else (0, 0)
                else:
                    c = st.team_contract(side)
                    got = sum(taken[s] for s in (side, side + 2) if bids[s] > 0)
                if c:
                    contracts += 1
                    made += got >= c
                after = st.bags[side] if st.bags else 0
                bags += (after - before[side]) % 10  # new bags this hand (mod the penalty)
        finished += st.over
    return {"games": games, "finished": finished, "hands": hands, "hands_per_game": round(hands / games, 1),
            "contracts_made_pct": round(100 * made / contracts, 1),
            "bags_per_side_per_hand": round(bags / (2 * hands), 2),
            **{f"{k}_declared": v[0] for k, v in nil.items() if v[0] or k == "nil"},
            **{f"{k}_success_pct": round(100 * v[1] / v[0], 1) for k, v in nil.items() if v[0]},
            "us_per_decision": round(clock[0] / max(1, clock[1]) * 1e6, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--output", default=str(RESULTS))
    args = ap.parse_args()
    out: dict[str, Any] = {
        "benchmark": "spades bots: v random play, self-play statistics, decision time",
        "command": "python benchmarks/spades_bots.py " + " ".join(sys.argv[1:]),
        "python": platform.python_version(), "machine": platform.machine(), "results": {},
    }
    for game, n in GAMES:
        vr = versus_random(game, n, args.games, args.seed)
        sp = self_play(game, n, args.games, args.seed)
        out["results"][game] = {"v_random": vr, "self_play": sp}
        print(f"{game}: v random {vr}")
        print(f"{game}: self-play {sp}")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(out, indent=1) + "\n")
    print("written to", args.output)


if __name__ == "__main__":
    main()
