"""How the sorting hopper's one-card error grows while a stock is built (issue 20 point 4): a model.

    .venv/bin/python benchmarks/stack_tail.py [--hands 20000] [--cards 51] [--seed 1]

The deal builds the stock by insertion: each card read drops in under the splitter's blade at the
depth its place is counted at in the firmware's model of the stack (the cards over it in the
model), and the blade puts it one card higher or lower with a chance p (the twin's
``sorter.error_chance``; its estimate is 3 %). The depth stays a true count, but the model no
longer says which card lies where: every later card whose place falls between the misplaced card
and the one it passed goes in between those two, so the error grows into a run of cards lying
under a card drawn before them. Each is a loop pass no FETCH can avoid (``twin_stock.stack_bound``);
on the twin a hand's fetching is about 20.45 s + 0.362 s a pass (benchmarks/RESULTS.md, the
sixth session's fit), so 27 such passes put a hand over the 30 s bar whatever the FETCH does.

For each error rate the script draws ``--hands`` deals of ``--cards`` stock cards (two-player
Spades sends 51 round the loop), in a random order to random places, and prints the unavoidable
passes' median, 90th and 99th percentiles and maximum, and the share of hands at 27 or more with
its 95 % interval (Wilson). It also tries, at 3 %, deals that put off the cards whose place lies
in a wide gap of the stack so far (a wide gap is where an error grows most) until the end of the
deal, when the stack is full and its gaps narrow (read again then: one pass each in the deal).
Last, the counted lift (firmware/board.py _Splitter.poll, hardware/README.md item 9): a load
cell weighs the cards the blade holds before each landing down to a depth (5, 10 or 15 cards),
and a count one off sends the blade in again, at 3 % and at twice that.
Figures in ``benchmarks/results/stack_tail.json``. A model of the deal's insertions only: no
timings, the deal's other rules (the bottom card kept over the stock, cards re-read from under
the cards still to deal) left out; the twin's own bounds are the measure (RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bots import wilson  # noqa: E402
from twin_stock import stack_bound  # noqa: E402

OVER_BAR = 27  # unavoidable passes that put a hand over 30 s at 20.45 s + 0.362 s a pass
RATES = (0.005, 0.01, 0.02, 0.03)
PUT_OFF = (25, 10, 5)  # gap widths (places, the card's included) over which a card waits
WEIGHED = (5, 10, 15)  # the counted lift: the deepest landing whose held cards are weighed
TRIES = 1  # (firmware/board.py SCALE_TRIES: times the blade goes in again for one landing)


def build(cards: int, p: float, rng: random.Random, put_off: int | None = None,
          weighed: int = 0) -> tuple[list[int], int]:
    """One deal: the stack from its top (each card's place: 0 is drawn first) and the cards put
    off to the deal's end (``put_off``: those whose gap in the stack so far is wider than that,
    weighed by the share of the deal still to come). ``weighed``: the counted lift (a load cell
    weighs the cards the blade holds, firmware/board.py _Splitter.poll) down to that depth: an
    error there is seen and the blade goes in again, up to TRIES times (each try errs again with
    the same chance); the count itself is taken as exact (its spread is the twin's)."""
    arrivals = list(range(cards))
    rng.shuffle(arrivals)
    real: list[int] = []
    model: list[int] = []
    later: list[int] = []

    def drop(place: int) -> None:
        depth = sum(1 for x in model if x > place)  # the cards over it in the model
        lands = depth
        for _ in range(1 + (TRIES if 0 < depth <= weighed else 0)):
            lands = depth
            if depth > 0 and rng.random() < p:  # (a parked blade lands on the top exactly)
                lands += 1 if rng.random() < 0.5 else -1
            if lands == depth:
                break
        real.insert(max(0, min(lands, len(real))), place)
        model.insert(depth, place)

    for k, place in enumerate(arrivals):
        if put_off is not None and model:
            over = min((x for x in model if x > place), default=cards)
            under = max((x for x in model if x < place), default=-1)
            if (over - under - 1) * (cards - k) / cards > put_off:
                later.append(place)
                continue
        drop(place)
    for place in later:
        drop(place)
    return real, len(later)


def row(cards: int, p: float, hands: int, seed: int, put_off: int | None = None,
        weighed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    bounds: list[int] = []
    deferred: list[int] = []
    for _ in range(hands):
        real, later = build(cards, p, rng, put_off, weighed)
        bounds.append(stack_bound(list(reversed(real))))  # (stack_bound takes it from its bottom)
        deferred.append(later)
    bounds.sort()
    over = sum(b >= OVER_BAR for b in bounds)
    lo, hi = wilson(over, hands)
    return {"error": p, "put_off": put_off, "weighed": weighed, "hands": hands, "median": statistics.median(bounds),
            "p90": bounds[int(0.9 * (hands - 1))], "p99": bounds[int(0.99 * (hands - 1))], "max": bounds[-1],
            "over_bar": over, "over_bar_share": over / hands, "over_bar_interval": [lo, hi],
            "put_off_mean": statistics.mean(deferred)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--cards", type=int, default=51)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "stack_tail.json"))
    args = ap.parse_args()
    rows = [row(args.cards, p, args.hands, args.seed) for p in RATES]
    rows += [row(args.cards, 0.03, args.hands, args.seed, w) for w in PUT_OFF]
    rows += [row(args.cards, p, args.hands, args.seed, weighed=k) for p in (0.03, 0.06) for k in WEIGHED]
    print(f"{args.cards} stock cards, {args.hands} deals a row (seed {args.seed}); unavoidable passes "
          f"(twin_stock.stack_bound); over the bar: {OVER_BAR} or more")
    print(f"{'blade error':>11} {'put off over':>12} {'weighed to':>10} {'median':>6} {'p90':>4} {'p99':>4} {'max':>4} "
          f"{'over the bar (95 % interval)':>30} {'cards put off':>13}")
    for r in rows:
        lo, hi = r["over_bar_interval"]
        print(f"{r['error'] * 100:10.1f}% {r['put_off'] if r['put_off'] is not None else '-':>12} "
              f"{r['weighed'] or '-':>10} {r['median']:6.0f} "
              f"{r['p90']:4d} {r['p99']:4d} {r['max']:4d} "
              f"{r['over_bar_share'] * 100:9.2f}% ({lo * 100:5.2f}-{hi * 100:5.2f}%) {r['put_off_mean']:13.1f}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"cards": args.cards, "hands": args.hands, "seed": args.seed,
                                          "over_bar_passes": OVER_BAR, "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
