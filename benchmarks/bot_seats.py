"""What bot seats cost at a physical table: a hand of 4-player Hearts with 0-3 bot seats whose
cards are inside the dealer's return loop (hardware/README.md, "Bot seats").

    .venv/bin/python benchmarks/bot_seats.py [--hands 6] [--seed 1]

The real firmware on the simulator's board in simulated time (benchmarks/dealer.py's bench:
every motion takes what firmware/timing.py computes from the firmware's constants), driven the
way the referee drives it (engine/referee/flows.py, taking.py):

1. the deal: the people's hands to their pockets, each bot's hand into the loop;
2. the pass (to the left, hand 1): each person feeds 3 cards into the loop through the play
   slot; then one release plan over every card in the loop: the passed cards to their receivers'
   pockets (a bot receiver's stay in the loop), every other loop card (the bots' hands) read once
   and sent round again;
3. 13 tricks: a person's card is fed through the play slot to the trick pocket; a bot's card is
   FETCHed from the loop to the trick pocket (the loop cycles until it comes round). Which card
   a player plays is drawn at random from its hand (the cost depends only on where the card is
   in the loop's queue, which the deal order and the earlier fetches set).

Reported per number of bot seats: the deal, the pass (feeds and the release), the loop passes
and seconds per bot play, and the dealer's seconds per trick and per hand (the machine's time
only: people's thinking and feeding are not counted). Prints and writes
benchmarks/results/bot_seats.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import dealer as D  # noqa: E402 - benchmarks/dealer.py: the firmware bench

RESULTS = ROOT / "benchmarks" / "results" / "bot_seats.json"
P = D.fw_protocol


def _plan(bench: Any, deal_id: int, entries: list[tuple[int, int]]) -> int:
    bench.events.clear()
    body = P.u16(deal_id) + bytes((len(entries), 0, P.PLAN_FRESH)) + bytes(b for e in entries for b in e)
    bench.command(P.DEAL_PLAN, body)
    return int(bench.until(lambda: bench.event(P.EV_DEAL_DONE)))


def hand(bots: tuple[int, ...], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)  # the referee's deck order
    hopper = list(deck)
    rng.shuffle(hopper)  # the order the players gathered the cards in
    bench = D._Bench(4, hopper, step_ms=2)
    b = bench.board
    hands = {s: [c for i, c in enumerate(deck) if i % 4 == s] for s in range(4)}
    deal_ms = _plan(bench, 1, [(c, D.LOOP if i % 4 in bots else i % 4) for i, c in enumerate(deck)])
    # the pass to the left: people feed theirs into the loop, then one release
    feed_ms = 0
    passed = {s: rng.sample(hands[s], 3) for s in range(4)}
    for s in range(4):
        if s not in bots:
            for c in passed[s]:
                _p, ms = D._feed_back(bench, c, s, D.LOOP)
                feed_ms += ms
    loop = list(bench.sim.firmware.dealer.loop)
    moving = {c: (s + 1) % 4 for s in range(4) for c in passed[s]}
    release = [(c, D.LOOP if moving.get(c, -1) in bots or c not in moving else moving[c]) for c in loop]
    release_ms = _plan(bench, 2, release) if release else 0
    for s in range(4):
        hands[s] = [c for c in hands[s] if c not in passed[s]] + passed[(s - 1) % 4]
    for s in range(4):
        if s not in bots:
            assert sorted(b.trays.get(s, [])) == sorted(hands[s]), (s, b.trays.get(s), hands[s])
    fetch_passes: list[int] = []
    fetch_ms: list[int] = []
    trick_ms: list[int] = []
    leader = rng.randrange(4)
    for _ in range(13):
        t = 0
        for k in range(4):
            s = (leader + k) % 4
            c = hands[s].pop(rng.randrange(len(hands[s])))
            if s in bots:
                p, ms = D._fetch(bench, c, D.TRICK)
                fetch_passes.append(p)
                fetch_ms.append(ms)
            else:
                _p, ms = D._feed_back(bench, c, s, D.TRICK)
            t += ms
        trick_ms.append(t)
        leader = rng.randrange(4)
    assert not bench.sim.firmware.dealer.loop and b.collisions == []
    assert len(b.trays.get(D.TRICK, [])) == 52
    return {"deal_s": deal_ms / 1000, "pass_feed_s": feed_ms / 1000, "release_s": release_ms / 1000,
            "release_cards": len(release), "fetch_passes": fetch_passes, "fetch_s": [x / 1000 for x in fetch_ms],
            "trick_s": [x / 1000 for x in trick_ms]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    cfg = D.fw_config.Settings()
    out: dict[str, Any] = {"command": " ".join(["benchmarks/bot_seats.py", *sys.argv[1:]]),
                           "python": platform.python_version(), "hands": args.hands,
                           "pass_ms": D.fw_timing.loop_pass_ms(cfg), "switchback_ms": D.fw_timing.loop_switch_ms(cfg),
                           "tables": {}}
    for bots in ((), (1,), (1, 3), (1, 2, 3)):
        runs = [hand(bots, args.seed * 7919 + i) for i in range(args.hands)]
        fp = [p for r in runs for p in r["fetch_passes"]]
        fs = [x for r in runs for x in r["fetch_s"]]
        ts = [x for r in runs for x in r["trick_s"]]
        row = {
            "bot_seats": len(bots),
            "loop_cards_after_deal": 13 * len(bots),
            "deal_s": round(statistics.mean(r["deal_s"] for r in runs), 1),
            "pass_feed_s": round(statistics.mean(r["pass_feed_s"] for r in runs), 1),
            "release_s": round(statistics.mean(r["release_s"] for r in runs), 1),
            "release_cards": round(statistics.mean(r["release_cards"] for r in runs), 1),
            "fetch_passes_per_bot_play": round(statistics.mean(fp), 1) if fp else 0,
            "fetch_passes_max": max(fp) if fp else 0,
            "fetch_s_per_bot_play": round(statistics.mean(fs), 2) if fs else 0,
            "fetch_s_max": round(max(fs), 2) if fs else 0,
            "dealer_s_per_trick": round(statistics.mean(ts), 2),
            "dealer_s_per_hand": round(statistics.mean(r["deal_s"] + r["pass_feed_s"] + r["release_s"]
                                                       + sum(r["trick_s"]) for r in runs), 1),
        }
        out["tables"][str(len(bots))] = row
        print(json.dumps(row), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
