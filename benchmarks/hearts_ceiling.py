"""How fast can a pure-Python Hearts go through this API? A yardstick for benchmarks/engine.py.

    .venv/bin/python benchmarks/hearts_ceiling.py [--rounds 10] [--seconds 2] [--seed 1] [--native]

``BareHearts`` below is 4-player Hearts cut to the bone, in the engine's own representation
(one 52-bit mask per hand, the shared ``PLAY`` actions and suit tables of masks.py, the lazy
pass lists of hearts_common), driven by exactly the loop of ``benchmarks/engine.py``
(``turn_seats``, ``legal_actions``, ``rng.choice``, ``apply``). It keeps the rules and their
checks (follow suit, the 2♣ lead, no points on the first trick, hearts broken, passes of three
held cards left/right/across/none, every ``apply`` checked) and the list of actions, and
nothing else: no snapshots for undo, no game record, no views, no options, no errors in words
(an illegal action raises a bare ValueError), the moon scored as 26 to the others without
asking. Before timing, it plays ``--check`` hands next to our engine from the same decks
with the same choices and asserts the same seats on turn and the same legal actions at every
step, so it is the same game.

Then, in rounds that alternate like engine.py's: BareHearts, ``BareHeartsDict`` (the same,
its ``__dict__`` read once a hand: what that costs on CPython 3.11), our engine (``hearts``, 4
players), OpenSpiel's hearts driven the plain way (if pyspiel imports) and the loop floor (the
loop over an engine that does nothing). Ratios round by round, the median and its
distribution-free 95% interval quoted, the 1-minute load beside each round. Figures printed
and written to benchmarks/results/hearts_ceiling.json.

``--native`` adds ``bare_native``: BareHearts written for mypyc with native fields
(benchmarks/hearts_ceiling_native.py), compiled by mypyc into a temporary folder at the start
(about a minute; mypyc comes with the test extra) and checked against our engine like
BareHearts. It is the ceiling of a compiled-Python engine through this API: compare it with
our compiled engine.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from trickref.engine import cards as C  # noqa: E402
from trickref.engine.actions import PLAY, Action  # noqa: E402
from trickref.engine.games import new_game  # noqa: E402
from trickref.engine.hearts_common import ONE, POINTS, distinct_pass_choices  # noqa: E402
from trickref.engine.masks import ALL_CARDS, BIT, SUIT_CARDS, SUIT_MASK, SUIT_PLAYS, plays_of  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "hearts_ceiling.json"


def _engine_benchmark() -> Any:
    """benchmarks/engine.py as a module (the name ``engine`` is the engine package's)."""
    spec = importlib.util.spec_from_file_location("engine_benchmark", Path(__file__).with_name("engine.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


B = _engine_benchmark()
NOT_HEARTS = ALL_CARDS & ~SUIT_MASK[C.HEARTS]
NO_POINTS = NOT_HEARTS & ~BIT[C.QS]
SUIT_OF = tuple(c // 13 for c in range(52))
FULL = list(range(52))
NEXT = (ONE[1], ONE[2], ONE[3], ONE[0])
ALL4 = (0, 1, 2, 3)
TWO_CLUBS = C.TWO_CLUBS
FIRST = (PLAY[TWO_CLUBS],)
_C0, _C1, _C2, _C3 = SUIT_CARDS


class BareHearts:
    """4-player Hearts, rules and checks only (see the module's docstring)."""

    def __init__(self) -> None:
        self.hand_number = 0
        self.over = False
        self.totals = [0, 0, 0, 0]
        self.dealer = 0

    def start_hand(self, deck: list[int]) -> None:
        if type(deck) is not list or len(deck) != 52 or set(map(type, deck)) != {int} or sorted(deck) != FULL:
            raise ValueError("not a deck")
        self.deck = deck[:]
        self.hand_number += 1
        bit = BIT.__getitem__
        masks = [sum(map(bit, deck[k::4])) for k in range(4)]
        first = (self.dealer + 1) % 4  # the k-th card to seat first + k, as ours
        self.masks = masks[4 - first:] + masks[:4 - first] if first else masks
        self.actions: list[tuple[int, Action]] = []
        self.trick: list[int] = []
        self.led = -1
        self.broken = False
        self.tricks_played = 0
        self.points = [0, 0, 0, 0]
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []
        self.off = (1, 3, 2, 0)[(self.hand_number - 1) % 4]
        self.passes: list[tuple[int, ...]] = [(), (), (), ()]
        if self.off:
            self.phase = "pass"
            self.turn: tuple[int, ...] = ALL4
        else:
            self._begin()

    def _begin(self) -> None:
        h = 0
        for m in self.masks:
            if m >> TWO_CLUBS & 1:
                break
            h += 1
        self.phase = "play"
        self.turn = ONE[h]
        self.leader = h

    def turn_seats(self) -> tuple[int, ...]:
        return self.turn

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if self.phase == "play" and seat == self.turn[0]:
            m = self.masks[seat]
            led = self.led
            if led >= 0:
                bits = m >> (13 * led) & 0x1FFF
                if bits:
                    return SUIT_PLAYS[led][bits]
                if not self.tricks_played and m & NO_POINTS:
                    return plays_of(m & NO_POINTS)
                return plays_of(m)
            if not self.tricks_played:
                return FIRST
            if self.broken or not m & NOT_HEARTS:
                return plays_of(m)
            return plays_of(m & NOT_HEARTS)
        if self.phase == "pass" and seat in self.turn:
            m = self.masks[seat]
            return cast(Sequence[Action], distinct_pass_choices((*_C0[m & 0x1FFF], *_C1[m >> 13 & 0x1FFF], *_C2[m >> 26 & 0x1FFF], *_C3[m >> 39])))
        return ()

    def apply(self, action: Action, seat: int) -> None:
        if self.phase == "play" and type(action) is Action and action[0] == "play":
            on = self.turn[0]
            c = action[1]
            if seat == on and type(c) is int and 0 <= c < 52:
                m = self.masks[on]
                if m >> c & 1:
                    led = self.led
                    s = SUIT_OF[c]
                    if led >= 0:
                        ok = s == led or not m & SUIT_MASK[led] and (
                            self.tricks_played or not POINTS[c] or not m & NO_POINTS)
                    elif self.tricks_played:
                        ok = s != C.HEARTS or self.broken or not m & NOT_HEARTS
                    else:
                        ok = c == TWO_CLUBS
                    if ok:
                        self.masks[on] = m ^ BIT[c]
                        self.actions.append((on, action))
                        trick = self.trick
                        trick.append(c)
                        if led < 0:
                            self.led = s
                            self.ws = on
                            self.wc = c
                        elif s == led and c > self.wc:
                            self.ws = on
                            self.wc = c
                        if POINTS[c]:
                            self.broken = True
                        if len(trick) < 4:
                            self.turn = NEXT[on]
                            return
                        w = self.ws
                        self.points[w] += sum(map(POINTS.__getitem__, trick))
                        self.tricks.append((self.leader, tuple(trick), w))
                        self.trick = []
                        self.led = -1
                        self.leader = w
                        self.tricks_played += 1
                        if self.tricks_played < 13:
                            self.turn = ONE[w]
                            return
                        self.turn = ()
                        self.phase = "deal"
                        pts = self.points
                        if 26 in pts:  # the moon: 26 to the others
                            pts = [0 if p else 26 for p in pts]
                        for i in range(4):
                            self.totals[i] += pts[i]
                        self.dealer = (self.dealer + 1) % 4
                        self.over = max(self.totals) >= 100
                        return
            raise ValueError("illegal play")
        if self.phase == "pass" and type(action) is Action and action[0] == "pass" and seat in self.turn:
            v = action[1]
            if type(v) is tuple and len(v) == 3:
                a, b, c = v
                m = self.masks[seat]
                if type(a) is int and type(b) is int and type(c) is int and 0 <= a < b < c < 52 and (
                        m >> a & 1 and m >> b & 1 and m >> c & 1):
                    self.actions.append((seat, action))
                    self.masks[seat] = m & ~(BIT[a] | BIT[b] | BIT[c])
                    self.passes[seat] = v
                    t = self.turn
                    i = t.index(seat)
                    self.turn = t[:i] + t[i + 1:]
                    if not self.turn:
                        for s in range(4):
                            p = self.passes[s]
                            self.masks[(s + self.off) % 4] |= BIT[p[0]] | BIT[p[1]] | BIT[p[2]]
                        self._begin()
                    return
        raise ValueError("illegal action")


class BareHeartsDict(BareHearts):
    """BareHearts whose ``start_hand`` reads ``self.__dict__`` once (as our engine's undo
    snapshot used to): on CPython 3.11 that moves the instance's fields out of its inline
    values into a dict for good, and every attribute access after that is slower."""

    def start_hand(self, deck: list[int]) -> None:
        super().start_hand(deck)
        if not self.__dict__:  # the read is the point; the test only keeps it from looking idle
            raise AssertionError("no fields")


def native_hearts() -> Callable[[], Any]:
    """benchmarks/hearts_ceiling_native.py compiled by mypyc in a temporary folder; returns its
    ``NativeHearts`` class. Raises SystemExit with mypyc's output if the build fails."""
    src = Path(__file__).with_name("hearts_ceiling_native.py")
    work = Path(tempfile.mkdtemp(prefix="hearts-native-"))
    shutil.copy(src, work / src.name)
    env = dict(os.environ, MYPYPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "mypyc", src.name], cwd=work, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"mypyc could not build {src.name}:\n{r.stdout}{r.stderr}")
    (work / src.name).unlink()  # import the extension module, not the source beside it
    sys.path.insert(0, str(work))
    module = importlib.import_module(src.stem)
    if not module.__file__ or not module.__file__.endswith(importlib.machinery.EXTENSION_SUFFIXES[0]):
        raise SystemExit(f"{src.stem} did not load compiled ({module.__file__})")
    return cast(Callable[[], Any], module.NativeHearts)


def same_game(hands: int, seed: int, factory: Callable[[], Any] = BareHearts) -> int:
    """Play ``hands`` hands of BareHearts (or ``factory``'s game) and our hearts side by side
    (same decks, same random choices): the same seats on turn and the same legal actions at
    every step. Returns the number of decisions compared."""
    rng = random.Random(seed)
    bare = factory()
    ours = new_game("hearts", 4, {"target": 10**6})
    deck = C.full_deck()
    steps = 0
    for _ in range(hands):
        rng.shuffle(deck)
        bare.start_hand(deck)
        ours.start_hand(deck)
        while True:
            if ours.phase == "moon":  # ours asks the shooter; the bare engine scored it itself
                ours.apply(Action("moon", "others"), ours.turn_seats()[0])
                continue
            seats = ours.turn_seats()
            assert bare.turn_seats() == seats, (bare.turn_seats(), seats)
            if not seats:
                break
            seat = rng.choice(seats)
            legal = list(ours.legal_actions(seat))
            assert list(bare.legal_actions(seat)) == legal
            action = rng.choice(legal)
            bare.apply(action, seat)
            ours.apply(action, seat)
            steps += 1
        assert bare.totals == ours.totals, (bare.totals, ours.totals)
    return steps


def run(factory: Callable[[], Any], seconds: float, seed: int) -> dict[str, Any]:
    """benchmarks/engine.py's loop (``our_hands``) over ``factory()`` games."""
    rng = random.Random(seed)
    choice = rng.choice
    deck = C.full_deck()
    hands = 0
    clock = time.process_time
    start = clock()
    deadline = start + seconds
    state = factory()
    while True:
        if state.over or state.hand_number >= B.MAX_HANDS_PER_GAME:
            state = factory()
        rng.shuffle(deck)
        state.start_hand(deck)
        while True:
            seats = state.turn_seats()
            if not seats:
                break
            seat = seats[0] if len(seats) == 1 else choice(seats)
            action = choice(state.legal_actions(seat))
            if action.kind == "exchange":
                raise AssertionError("no exchange in hearts")
            state.apply(action, seat)
        hands += 1
        if clock() >= deadline:
            break
    elapsed = clock() - start
    return {"hands": hands, "seconds": round(elapsed, 3), "hands_per_second": round(hands / elapsed, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=10, help="alternating rounds (default 10)")
    p.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per run (default 2)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--check", type=int, default=300, help="hands played side by side first (default 300)")
    p.add_argument("--native", action="store_true",
                   help="also time BareHearts compiled by mypyc with native fields (hearts_ceiling_native.py)")
    p.add_argument("--output", default=str(RESULTS))
    args = p.parse_args(argv)
    steps = same_game(args.check, args.seed)
    print(f"BareHearts and our hearts agreed on {args.check} hands ({steps} decisions): same turns, same legal actions")
    contestants: dict[str, Callable[[int], dict[str, Any] | None]] = {}
    if args.native:
        native = native_hearts()
        nsteps = same_game(args.check, args.seed, native)
        print(f"NativeHearts (compiled) and our hearts agreed on {args.check} hands ({nsteps} decisions)")
        contestants["bare_native"] = lambda seed: run(native, args.seconds, seed)
    contestants |= {
        "bare": lambda seed: run(BareHearts, args.seconds, seed),
        "bare_dict": lambda seed: run(BareHeartsDict, args.seconds, seed),
        "ours": lambda seed: B.our_hands("hearts", 4, {}, args.seconds, seed),
        "openspiel_plain": lambda seed: B.openspiel_hands("hearts", args.seconds, seed, "plain"),
        "loop_floor": lambda seed: B.loop_floor(args.seconds, seed),
    }
    names = list(contestants)
    runs: dict[str, list[float]] = {c: [] for c in names}
    loads: list[float] = []
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for c in order:
            got = contestants[c](args.seed + r)
            if got is None:
                print("pyspiel does not import: no OpenSpiel figure (install the bench extra)")
                names.remove(c)
                runs.pop(c)
                continue
            runs[c].append(got["hands_per_second"])
        loads.append(B.load())
        print(f"  round {r + 1}/{args.rounds} (load {loads[-1]}): "
              + ", ".join(f"{c} {runs[c][-1]:.0f}" for c in names if len(runs[c]) > r), flush=True)
    print(f"hands per CPU second, {args.rounds} rounds of {args.seconds:g} s, load {min(loads)}-{max(loads)}:")
    for c in names:
        print(f"  {c:<16}" + "".join(f"{v:>10.0f}" for v in runs[c]))
    ratios: dict[str, Any] = {}

    def ratio(key: str, top: str, bottom: str) -> None:
        rs = [a / b for a, b in zip(runs[top], runs[bottom], strict=True)]
        lo, hi = B.median_ci(rs)
        ratios[key] = {"per_round": [round(x, 3) for x in rs], "median": round(statistics.median(rs), 3),
                       "median_ci95": [round(lo, 3), round(hi, 3)], "load_1min": [min(loads), max(loads)]}
        print(f"    {top} / {bottom}: " + ", ".join(f"{x:.2f}" for x in rs)
              + f"; median {statistics.median(rs):.2f}x (95% {lo:.2f}-{hi:.2f}), load {min(loads)}-{max(loads)}")

    if "openspiel_plain" in runs:
        for c in ("bare_native", "bare", "bare_dict", "ours", "loop_floor"):
            if c in runs:
                ratio(f"{c}_v_openspiel_plain", c, "openspiel_plain")
    ratio("ours_v_bare", "ours", "bare")
    if "bare_native" in runs:
        ratio("bare_native_v_ours", "bare_native", "ours")
    out = {"benchmark": "hearts ceiling: a bare 4-player Hearts (pure Python, and compiled with --native) through engine.py's loop",
           "engine_build": B.ENGINE_BUILD, "load_1min_per_round": loads,
           "command": "python benchmarks/hearts_ceiling.py " + " ".join(sys.argv[1:] if argv is None else argv),
           "python": platform.python_version(), "machine": platform.machine(),
           "checked_hands": args.check, "checked_decisions": steps,
           "seconds_per_run": args.seconds, "rounds": args.rounds, "hands_per_second": runs, "ratios": ratios}
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
