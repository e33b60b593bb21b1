"""Our search bot at OpenSpiel's Hearts table, against OpenSpiel's own ISMCTS bot.

    .venv/bin/python benchmarks/vs_openspiel.py [--deals 16] [--level strong] [--clock cpu|wall]
        [--opponents ismcts random] [--seed 1] [--sims N]

OpenSpiel (``pip install -e ".[bench]"``: open-spiel) deals and referees every hand: its state
is the only state of the game. One seat is ours: at each of its decisions the benchmark maps
what that seat knows (its own 13 cards, and every card played so far with who played it) into a
position of our engine's 4-player Hearts through the public API only (``new_game``,
``start_hand``, ``apply``), asks our search bot (engine/bots/search.py at ``--level``, ``strong``
by default) for a card, and plays that card in OpenSpiel. The engine needs whole hands to start a
hand, so the three hidden hands of the position are filled at random with the cards the seat
has not seen, consistently with what the play has shown (suits a player failed to follow, a
heart led before hearts were broken, a point card thrown on the first trick); the search bot
reads nothing but ``view(seat)`` and ``sample_world(seat)`` (tests/engine/test_bots_search.py
checks that it decides the same whatever the hidden hands are), so the filling tells it
nothing. The other three seats are OpenSpiel's ``pyspiel.ISMCTSBot`` (C++, random rollouts,
UCT c = 2, the most-visited action) with a number of simulations calibrated so that its CPU time
per decision matches our bot's budget (``--sims`` to fix it), or OpenSpiel's uniform random
bot.

Each deal (OpenSpiel's chance outcomes from a seeded generator) is played four times, our bot in
each seat in turn, and once more with OpenSpiel's bot in all four seats (the baseline: what it
scores in the same seat on the same deal). Reported per opponent kind: points per hand of our
seat, of the opponents' seats at the same table, and of the baseline seat, with 95% normal
intervals of the means and of the paired differences (ours minus the baseline, per deal and
seat; ours minus the table's others, per hand); and the CPU time per decision of each bot.

Where the rules coincide, and where not (OpenSpiel's defaults: must_break_hearts,
qs_breaks_hearts, no_pts_on_first_trick, 2C leads, no J♦ bonus, no all-tricks bonus):

- the same: 4 players, one deck, the 2♣ leads the first trick, follow suit, no trumps, no points
  on the first trick unless a player holds nothing else, hearts not led until a heart or the
  Q♠ has been played unless the leader holds only hearts, hearts 1 point and the Q♠ 13;
- no passing: every hand is a "no pass" hand (OpenSpiel's chance node for the pass direction is
  set to it; our engine's position is its fourth hand, the one without a pass). The ISMCTSBot of
  open-spiel 2.0.2 (the installed package) crashes the process (a segmentation fault) at the
  second seat's first pass decision, with or without ``allow_inconsistent_action_sets``, so
  passes cannot be compared; our hearts-4 passes in three hands of four;
- the moon: OpenSpiel gives the shooter 0 and every other player 26; our rules let the shooter
  choose (the default -25 to self or +26 to the others), so our bot's search values a moon by
  our rules; points here are OpenSpiel's (26 minus its return);
- one hand at a time: OpenSpiel's Hearts is a single hand, ours a game to a target.

Prints and writes benchmarks/results/vs_openspiel.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trickref.engine import actions as A  # noqa: E402
from trickref.engine import cards as C  # noqa: E402
from trickref.engine.base import GameState  # noqa: E402
from trickref.engine.games import new_game  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "vs_openspiel.json"
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
NO_PASS = 0  # OpenSpiel's pass-direction outcome "No Pass"
QS = C.parse("QS")
HEARTS = C.parse("2H") // 13


# ---------------------------------------------------------------- cards
def ours(a: int) -> int:
    """OpenSpiel's card action (rank * 4 + suit, suits C D H S) -> our card (suit * 13 + rank,
    suits S H D C)."""
    return (3 - a % 4) * 13 + a // 4


def theirs(c: int) -> int:
    return (c % 13) * 4 + (3 - c // 13)


def suit(c: int) -> int:
    return c // 13


# ---------------------------------------------------------------- the seat's knowledge -> our position
class Positions:
    """Our engine's 4-player Hearts positions for one seat's decisions (public API only)."""

    def __init__(self) -> None:
        g = new_game("hearts", 4, {"target": 100000})
        rng = random.Random(0)
        while g.hand_number < 3:  # the fourth hand of the cycle is the one without a pass
            g.start_hand(rng.sample(range(52), 52))
            while g.phase not in ("deal", "over"):
                seat = g.turn_seats()[0]
                g.apply(rng.choice(list(g.legal_actions(seat))), seat)
        assert g.phase == "deal" and not g.over
        self.template = g
        probe = g.copy()
        probe.start_hand(list(range(52)))
        assert probe.phase == "play", "the template's next hand must have no pass"
        self.first = next(s for s in range(4) if 0 in probe.hand_of(s))  # who gets the deck's first card

    def deck(self, hands: Sequence[Sequence[int]]) -> list[int]:
        """The deck order that deals ``hands[s]`` to each seat (one card at a time)."""
        order: list[int] = []
        for k in range(13):
            for i in range(4):
                order.append(hands[(self.first + i) % 4][k])
        return order

    def build(self, seat: int, hand: Sequence[int], plays: Sequence[tuple[int, int]],
              rng: random.Random, tries: int = 200) -> GameState:
        """The position after ``plays`` ((player, card), in order) where ``seat`` holds ``hand``
        (its cards not yet played); the hidden hands filled consistently with the play."""
        played: list[list[int]] = [[] for _ in range(4)]
        allowed: list[set[int]] = [set(range(52)) for _ in range(4)]
        broken = False
        for i, (p, c) in enumerate(plays):
            played[p].append(c)
            trick_at, led = i - i % 4, plays[i - i % 4][1]
            if i % 4 == 0 and suit(c) == HEARTS and not broken:
                allowed[p] &= set(range(HEARTS * 13, HEARTS * 13 + 13))  # led a heart unbroken: only hearts
            if i % 4 and suit(c) != suit(led):
                allowed[p] -= set(range(suit(led) * 13, suit(led) * 13 + 13))  # showed out
                if trick_at == 0 and (suit(c) == HEARTS or c == QS):  # points on the first trick
                    allowed[p] &= set(range(HEARTS * 13, HEARTS * 13 + 13)) | {QS}
            if suit(c) == HEARTS or c == QS:
                broken = True
        mine = list(hand) + played[seat]
        hidden = sorted(set(range(52)) - set(mine) - {c for p in range(4) for c in played[p]})
        others = [p for p in range(4) if p != seat]
        room = {p: 13 - len(played[p]) for p in others}
        assert sum(room.values()) == len(hidden), (room, len(hidden))
        for _ in range(tries):
            fill: dict[int, list[int]] = {p: [] for p in others}
            cards = hidden[:]
            rng.shuffle(cards)
            cards.sort(key=lambda c: sum(c in allowed[p] for p in others))  # the most constrained first
            ok = True
            for c in cards:
                can = [p for p in others if c in allowed[p] and len(fill[p]) < room[p]]
                if not can:
                    ok = False
                    break
                fill[rng.choice(can)].append(c)
            if not ok:
                continue
            hands = [mine if p == seat else played[p] + fill[p] for p in range(4)]
            g = self.template.copy()
            g.start_hand(self.deck(hands))
            try:
                for p, c in plays:
                    g.apply(A.PLAY[c], p)
            except Exception:  # noqa: BLE001 - an inconsistent filling: try another
                continue
            if g.phase == "play" and g.to_move == seat:
                return g
        raise RuntimeError(f"no position of our engine matches seat {seat}'s view after {len(plays)} plays")


# ---------------------------------------------------------------- bots at OpenSpiel's table
class OurSeat:
    def __init__(self, bot: Any, positions: Positions, clock: Callable[[], float], seed: int) -> None:
        self.bot, self.positions, self.clock = bot, positions, clock
        self.rng = random.Random(seed)
        self.times: list[float] = []

    def step(self, state: Any, seat: int, hand: list[int], plays: list[tuple[int, int]]) -> int:
        t0 = time.process_time()
        pos = self.positions.build(seat, hand, plays, self.rng)
        action = self.bot.choose(pos, seat, self.rng)
        self.times.append(time.process_time() - t0)
        assert action.kind == "play", action
        return theirs(action.value)


def ismcts(pyspiel: Any, seed: int, sims: int) -> Any:
    return pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, sims, -1,
                             pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)


def deal_actions(seed: int) -> list[int]:
    """The chance outcomes of one deal: no pass, then the 52 cards (dealt one at a time)."""
    rng = random.Random(f"vs-openspiel/{seed}")
    return [NO_PASS] + rng.sample(range(52), 52)


def play_hand(pyspiel: Any, game: Any, chance: list[int], seats: dict[int, Any], times: dict[int, list[float]]) -> tuple[list[int], int]:
    """One hand; ``seats[p]``: an OurSeat or an OpenSpiel bot. (points per seat, mismatches)."""
    state = game.new_initial_state()
    for a in chance:
        state.apply_action(a)
    plays: list[tuple[int, int]] = []
    bad = 0
    while not state.is_terminal():
        p = state.current_player()
        bot = seats[p]
        if isinstance(bot, OurSeat):
            hand = _hand_of(state, p, chance, plays)
            a = bot.step(state, p, hand, plays)
            if a not in state.legal_actions():
                bad += 1
                a = state.legal_actions()[0]
        else:
            t0 = time.process_time()
            a = bot.step(state)
            times.setdefault(p, []).append(time.process_time() - t0)
        plays.append((p, ours(a)))
        state.apply_action(a)
    return [26 - round(r) for r in state.returns()], bad


def _hand_of(state: Any, p: int, chance: list[int], plays: list[tuple[int, int]]) -> list[int]:
    """Seat ``p``'s cards not yet played: what it was dealt (the k-th card dealt goes to player
    k mod 4) less what it played. Its own deal and its own plays only."""
    dealt = [ours(a) for k, a in enumerate(chance[1:]) if k % 4 == p]
    mine = {c for q, c in plays if q == p}
    return [c for c in dealt if c not in mine]


def ci95(xs: Sequence[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return round(m, 3), round(m - h, 3), round(m + h, 3)


def timing(xs: Sequence[float]) -> dict[str, float]:
    s = sorted(xs)
    return {"decisions": len(s), "mean_s": round(statistics.fmean(s), 4),
            "p95_s": round(s[int(0.95 * (len(s) - 1))], 4), "max_s": round(s[-1], 4)}


def calibrate(pyspiel: Any, game: Any, target: float, seed: int) -> tuple[int, float]:
    """ISMCTS simulations per decision for ``target`` CPU seconds per decision (mean over two
    hands at a trial count, scaled)."""
    trial = 2000
    times: list[float] = []
    for k in range(2):
        seats = {p: ismcts(pyspiel, seed + 100 + p, trial) for p in range(4)}
        per: dict[int, list[float]] = {}
        play_hand(pyspiel, game, deal_actions(10_000 + seed + k), seats, per)
        times += [t for ts in per.values() for t in ts]
    mean = statistics.fmean(times)
    return max(50, int(trial * target / mean)), mean / trial


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=16)
    ap.add_argument("--level", default="strong")
    ap.add_argument("--clock", default="cpu", choices=sorted(CLOCKS))
    ap.add_argument("--opponents", nargs="+", default=["ismcts", "random"], choices=["ismcts", "random"])
    ap.add_argument("--sims", type=int, default=None, help="ISMCTS simulations per decision (default: calibrated)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    try:
        import pyspiel
    except ImportError:
        sys.exit("OpenSpiel is not installed: pip install -e '.[bench]' (the open-spiel package)")
    from trickref.engine.bots.levels import LEVELS, search_bot

    budget = LEVELS.get(args.level)
    if budget is None:
        sys.exit(f"--level must be a search level ({', '.join(k for k, v in LEVELS.items() if v)}), not {args.level!r}")
    game = pyspiel.load_game("hearts")
    positions = Positions()
    bot = search_bot("hearts", args.level, clock=CLOCKS[args.clock])
    sims, per_sim = (args.sims, None) if args.sims else calibrate(pyspiel, game, budget, args.seed)
    print(f"our bot: {args.level} ({budget} s per decision, {args.clock} clock); ISMCTS: {sims} simulations per "
          f"decision" + (f" (calibrated: {per_sim * 1e6:.1f} us CPU per simulation)" if per_sim else ""), flush=True)
    out: dict[str, Any] = {
        "command": " ".join(["benchmarks/vs_openspiel.py", *sys.argv[1:]]),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "pyspiel": getattr(pyspiel, "__version__", "?")},
        "level": args.level, "budget_s": budget, "clock": args.clock, "ismcts_simulations": sims,
        "openspiel_game": "hearts " + json.dumps(game.get_parameters(), sort_keys=True),
        "deals": args.deals, "seed": args.seed,
    }
    t_start = time.time()
    for kind in args.opponents:
        def opponent(p: int, salt: int, kind: str = kind) -> Any:
            if kind == "ismcts":
                return ismcts(pyspiel, args.seed * 1000 + salt * 10 + p, sims)
            return pyspiel.make_uniform_random_bot(p, args.seed * 1000 + salt * 10 + p)

        me = OurSeat(bot, positions, CLOCKS[args.clock], args.seed)
        opp_times: dict[int, list[float]] = {}
        base_times: dict[int, list[float]] = {}
        mine: list[int] = []
        others_mean: list[float] = []
        diff_table: list[float] = []
        diff_base: list[float] = []
        base_seat: list[int] = []
        bad = 0
        for d in range(args.deals):
            chance = deal_actions(args.seed * 100_000 + d)
            base, _ = play_hand(pyspiel, game, chance, {p: opponent(p, 2 * d) for p in range(4)}, base_times)
            for seat in range(4):
                seats: dict[int, Any] = {p: opponent(p, 2 * d + 1) for p in range(4)}
                seats[seat] = me
                pts, b = play_hand(pyspiel, game, chance, seats, opp_times)
                bad += b
                rest = [pts[p] for p in range(4) if p != seat]
                mine.append(pts[seat])
                others_mean.append(statistics.fmean(rest))
                diff_table.append(pts[seat] - statistics.fmean(rest))
                diff_base.append(pts[seat] - base[seat])
                base_seat.append(base[seat])
            print(f"  {kind} deal {d + 1}/{args.deals}: ours {statistics.fmean(mine):.2f}, others "
                  f"{statistics.fmean(others_mean):.2f}, {kind} in our seat {statistics.fmean(base_seat):.2f} "
                  f"points per hand ({time.time() - t_start:.0f} s)", flush=True)
        opp_name = "ismcts" if kind == "ismcts" else "uniform random"
        res = {
            "hands": len(mine),
            "ours_points_per_hand": ci95(mine),
            "others_points_per_hand": ci95(others_mean),
            f"{kind}_in_the_same_seat_points_per_hand": ci95(base_seat),
            "ours_minus_others_same_table": ci95(diff_table),
            f"ours_minus_{kind}_same_deal_and_seat": ci95(diff_base),
            "illegal_cards_from_ours": bad,
            "time_ours": timing(me.times),
            f"time_{kind}": timing([t for ts in opp_times.values() for t in ts] + [t for ts in base_times.values() for t in ts]),
            "opponent": opp_name,
        }
        out[f"vs_{kind}"] = res
        print(json.dumps({f"vs_{kind}": res}, indent=1), flush=True)
    out["elapsed_s"] = round(time.time() - t_start, 1)
    out["load_average_at_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(out, indent=1) + "\n")
    tmp.replace(args.out)
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
