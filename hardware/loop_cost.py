"""How many loop passes the stock costs when cards come out in deck order from a FIFO hopper.

    python hardware/loop_cost.py [--hands 2000] [--seed 1]

The dealer's return loop makes the hopper a FIFO queue: the bottom card is fed and read; a
card that is not wanted goes round the loop onto the top of the stack. Fetching a card by
identity therefore "passes" every card in front of it. The physical order is whatever order
the players gathered the cards in; the referee's deck order is an independent random order, so
the cost per hand is a random variable. This script estimates its mean by simulation (a fixed
seed, so the printed figures are reproducible) for the three cases the games need:

- German Whist: 26 stock cards, fetched in deck order (two per stage-one trick).
- spades-2p: 52 cards fetched in deck order; every second card of a turn is a discard that
  goes to the discard pocket (out of the loop).
- spades-2p with a Double Nil possible: the discards go back into the loop (so replacements can
  be fetched from them later) and are passed over like any other card.

A pass costs one feed + read + trip round the loop; its time comes from the firmware's motion
constants (benchmarks/dealer.py), not from here.
"""

from __future__ import annotations

import argparse
import random
from collections import deque


def passes(n_stock: int, discards_back: bool, rng: random.Random) -> int:
    """Cards passed over while fetching cards 0..n-1 in order from a shuffled FIFO queue."""
    order = list(range(n_stock))
    rng.shuffle(order)
    queue = deque(order)
    count = 0
    for want in range(n_stock):
        while queue[0] != want:
            queue.rotate(-1)
            count += 1
        queue.popleft()
        if discards_back and want % 2 == 1:
            queue.append(n_stock + want)  # the turn's discard re-enters at the tail (dead card)
    return count


def mean_passes(n_stock: int, discards_back: bool, hands: int, seed: int) -> float:
    rng = random.Random(seed)
    return sum(passes(n_stock, discards_back, rng) for _ in range(hands)) / hands


CASES = (
    ("german-whist stock (26 cards)", 26, False),
    ("spades-2p draw, discards to the pocket (52 cards)", 52, False),
    ("spades-2p draw, discards kept in the loop (Double Nil possible)", 52, True),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2000, help="simulated hands per case (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = ap.parse_args(argv)
    if args.hands < 1:
        ap.error(f"--hands must be at least 1, not {args.hands}")
    print(f"mean loop passes per hand ({args.hands} simulated hands, seed {args.seed})")
    for name, n, back in CASES:
        print(f"  {name:<66} {mean_passes(n, back, args.hands, args.seed):7.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
