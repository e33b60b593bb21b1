"""``trickref dealer-sim``: run the simulated dealer on a pty until Ctrl-C.

Prints the pty path (and a stable symlink that survives --fault disconnect) so the referee, or
a person with a serial terminal, can open it like the real /dev/trickref-dealer.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

FAULT_HELP = (
    "fault to inject, repeatable: corrupt=RATE, drop=RATE, duplicate=RATE (per byte, both directions), "
    "delay=SECONDS, misread=N (next N cards unreadable), jam=STAGE (feed/read/turn/slot/eject/pull, or path: "
    "the next card never reaches its pocket), double-feed (the next feed takes two cards), "
    "missing=CARD, duplicate-card=CARD (cards as 0..51 or names like QS), empty-hopper, silent-after=SECONDS, "
    "disconnect-after=SECONDS, reboot-after=SECONDS"
)


TWIN_FAULTS = {"corrupt", "drop", "duplicate", "delay", "silent-after", "disconnect-after", "reboot-after"}


def add_parser(sub: Any) -> None:
    p = sub.add_parser("dealer-sim", help="run the simulated card dealer on a pseudo-terminal")
    p.add_argument("--seats", type=int, default=4, help="seats the dealer serves (1..11)")
    p.add_argument("--decks", type=int, default=1, help="decks in the hopper (2 for Cancellation Hearts)")
    p.add_argument("--deck-order-seed", type=int, default=None,
                   help="shuffle the hopper with this seed (default: new-deck order)")
    p.add_argument("--speed", type=float, default=4.0, help="simulated ms per real ms for the mechanism")
    p.add_argument("--seed", type=int, default=0, help="seed for link faults and boot ids")
    p.add_argument("--fault", action="append", default=[], metavar="NAME[=VALUE]", help=FAULT_HELP)
    p.add_argument("--twin", action="store_true",
                   help="the firmware on the physical twin (device/dealer/twin.py: motors, flaps, sensors and the "
                        "sorting hopper with the timings and tolerances of device/dealer/physical.toml) instead of "
                        "the simulated board that routes each card to the pocket aimed at; link faults and "
                        "silent-/disconnect-/reboot-after only")
    p.add_argument("--twin-faults", action="store_true",
                   help="with --twin: the twin's random pickup slips, double feeds and misreads at physical.toml's rates")
    p.set_defaults(func=run)


def _card(text: str) -> int:
    """A card given as 0..51 or by name ('QS', '10d')."""
    from trickref.engine.cards import parse

    try:
        return int(text) if text.strip().isdigit() else parse(text)
    except ValueError as e:
        raise SystemExit(f"trickref dealer-sim: {e}") from e


def _apply(sim: Any, faults: list[str]) -> list[tuple[float, str]]:
    """Apply faults now; return the timed ones as (seconds, name)."""
    rates: dict[str, float] = {}
    timed: list[tuple[float, str]] = []
    for spec in faults:
        name, _, value = spec.partition("=")
        if name in ("corrupt", "drop", "duplicate"):
            rates[name] = float(value)
        elif name == "delay":
            rates["delay_s"] = float(value)
        elif name == "misread":
            sim.misread(int(value or 1))
        elif name == "jam":
            sim.jam(value or "eject")
        elif name == "missing":
            sim.remove_card(_card(value))
        elif name == "duplicate-card":
            sim.add_duplicate(_card(value))
        elif name == "empty-hopper":
            sim.empty_hopper()
        elif name == "double-feed":
            sim.double_feed()
        elif name in ("silent-after", "disconnect-after", "reboot-after"):
            timed.append((float(value), name))
        else:
            raise SystemExit(f"trickref dealer-sim: unknown fault {spec!r} ({FAULT_HELP})")
    if rates:
        sim.set_link_faults(**rates)
    return sorted(timed)


def run(args: argparse.Namespace) -> int:
    from trickref.device.dealer.sim import DealerSimulator

    if not 1 <= args.seats <= 11:
        print("trickref dealer-sim: --seats must be 1..11", file=sys.stderr)
        return 2
    if args.twin:
        from trickref.device.dealer.twin_sim import TwinDealerSimulator

        mechanical = [f for f in args.fault if f.partition("=")[0] not in TWIN_FAULTS]
        if mechanical:
            print(f"trickref dealer-sim: --twin takes link faults only ({', '.join(sorted(TWIN_FAULTS))}); "
                  f"{', '.join(mechanical)} are the simulated board's (on the twin: --twin-faults)", file=sys.stderr)
            return 2
        sim: Any = TwinDealerSimulator(seats=args.seats, decks=args.decks, deck_order_seed=args.deck_order_seed,
                                       speed=args.speed, seed=args.seed, faults=args.twin_faults)
    else:
        sim = DealerSimulator(seats=args.seats, decks=args.decks, deck_order_seed=args.deck_order_seed,
                              speed=args.speed, seed=args.seed)
    timed = _apply(sim, args.fault)
    path = sim.start()
    print(path, flush=True)
    cards = len(sim.twin.mech.hopper) if args.twin else len(sim.board.hopper)
    board = "the physical twin" if args.twin else "the simulated board"
    print(f"stable path: {sim.stable_path}  (seats {args.seats}, {cards} cards in the hopper, {board}; Ctrl-C stops)",
          file=sys.stderr, flush=True)
    start = time.monotonic()
    try:
        while True:
            time.sleep(0.1)
            while timed and time.monotonic() - start >= timed[0][0]:
                _, name = timed.pop(0)
                if name == "silent-after":
                    sim.go_silent()
                elif name == "disconnect-after":
                    sim.disconnect(come_back_after=2.0)
                else:
                    sim.reboot()
                print(f"fault: {name}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return 0
