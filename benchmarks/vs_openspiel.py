"""Our bots against OpenSpiel's ISMCTS at OpenSpiel's Hearts table: two seats each, the seats
swapped on every deal.

    .venv/bin/python benchmarks/vs_openspiel.py [--deals 200] [--sims 1000 10000]
        [--level strong | strong@pi4 | rule] [--seed 1] [--first 0] [--out FILE]
    .venv/bin/python benchmarks/vs_openspiel.py --report FILE [FILE ...]

OpenSpiel (``pip install -e ".[bench]"``: open-spiel) deals and referees every hand: its state
is the only state of the game (``hearts`` with ``pass_cards=false``, see below; its other
parameters at their defaults). Each deal is played twice: our bots in seats 0 and 2 and
OpenSpiel's ``pyspiel.ISMCTSBot`` in seats 1 and 3, then the same cards with the seats swapped,
so each side holds every hand once. ISMCTS runs with its own defaults (C++ ``ISMCTSBot``:
OpenSpiel's ``RandomRolloutEvaluator`` with one random rollout, the final policy its default
normalized visit counts, unlimited world samples, no observation strings) at ``--sims``
simulations per decision (1,000 and 10,000 by default, one table each); its exploration
constant, which has no default, is 2 as in OpenSpiel's own examples.

Our seat: at each of its decisions the benchmark maps what that seat knows (its own 13 cards,
and every card played so far with who played it) into a position of our engine's 4-player
Hearts through the public API only (``new_game``, ``start_hand``, ``apply``), asks our bot at
``--level`` for a card, and plays that card in OpenSpiel. The engine needs whole hands to
start a hand, so the three hidden hands of the position are filled at random with the cards
the seat has not seen, consistently with what the play has shown; the search bot reads
nothing but ``view(seat)`` and ``sample_world(seat)`` (tests/engine/test_bots_search.py checks
that it decides the same whatever the hidden hands are), so the filling tells it nothing.
The level's budget is CPU time of the deciding thread (engine/bots/levels.py), so the machine's
load does not change what the bot computes; ``strong@pi4`` is the Pi-4-sized row (a quarter of
the budget: what ``strong`` buys on a Raspberry Pi 4). ISMCTS's CPU time per decision is
measured too (``time.thread_time`` around its ``step``).

Reported per table: points per hand of our seats and of ISMCTS's seats, the ratio (ours /
theirs) with a 95% interval (delta method over deals, each deal's four seat-hands of each
side together), the paired difference per deal, both sides' CPU time per decision, and the
1-minute load average beside every figure. Every deal's points and times are written as they
come (``--out``), so a run stopped early keeps them; ``--first`` starts at another deal, so
several processes can share the deals; ``--report`` pools the rows of several files.

Where the rules coincide, and where not (OpenSpiel's defaults: must_break_hearts,
qs_breaks_hearts, no_pts_on_first_trick, 2C leads, no J♦ bonus, no all-tricks bonus):

- the same: 4 players, one deck, the 2♣ leads the first trick, follow suit, no trumps, no points
  on the first trick unless a player holds nothing else, hearts not led until a heart or the
  Q♠ has been played unless the leader holds only hearts, hearts 1 point and the Q♠ 13;
- no passing (``pass_cards=false``; our engine's position is its fourth hand, the one without a
  pass): the ISMCTSBot of open-spiel 2.0.2 crashes the process (a segmentation fault) at the
  second seat's first pass decision, so passes cannot be compared;
- the moon: OpenSpiel gives the shooter 0 and every other player 26; our rules let the shooter
  choose (the default -25 to self or +26 to the others), so our bot's search values a moon by
  our rules; points here are OpenSpiel's (26 minus its return);
- one hand at a time: OpenSpiel's Hearts is a single hand, ours a game to a target.
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trickref.engine import actions as A  # noqa: E402
from trickref.engine import cards as C  # noqa: E402
from trickref.engine.base import GameState  # noqa: E402
from trickref.engine.games import new_game  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "vs_openspiel.json"
NO_PASS = 0  # OpenSpiel's only pass-direction outcome with pass_cards=false
QS = C.parse("QS")
HEARTS = C.parse("2H") // 13
UCT_C = 2.0  # ISMCTS's exploration constant (no default in OpenSpiel; 2 in its examples)


def load() -> float:
    """The 1-minute load average (printed beside every figure)."""
    return round(os.getloadavg()[0], 1)


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
    def __init__(self, bot: Any, positions: Positions, rng: random.Random) -> None:
        self.bot, self.positions, self.rng = bot, positions, rng
        self.times: list[float] = []  # CPU time of each decision (the bot's choice, not the mapping)

    def step(self, state: Any, seat: int, hand: list[int], plays: list[tuple[int, int]]) -> int:
        pos = self.positions.build(seat, hand, plays, self.rng)
        t0 = time.thread_time()
        action = self.bot.choose(pos, seat, self.rng)
        self.times.append(time.thread_time() - t0)
        assert action.kind == "play", action
        return theirs(action.value)


def ismcts(pyspiel: Any, seed: int, sims: int) -> Any:
    """OpenSpiel's C++ ISMCTS with its defaults: one random rollout per leaf, final policy the
    normalized visit counts, unlimited world samples."""
    return pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), UCT_C, sims)


class TheirSeat:
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.times: list[float] = []

    def step(self, state: Any) -> int:
        t0 = time.thread_time()
        a: int = self.bot.step(state)
        self.times.append(time.thread_time() - t0)
        return a


def deal_actions(seed: int, d: int) -> list[int]:
    """The chance outcomes of deal ``d``: no pass, then the 52 cards (dealt one at a time)."""
    rng = random.Random(f"vs-openspiel/{seed}/{d}")
    return [NO_PASS] + rng.sample(range(52), 52)


def play_hand(game: Any, chance: list[int], seats: Sequence[Any]) -> tuple[list[int], int]:
    """One hand; ``seats[p]``: an OurSeat or a TheirSeat. (points per seat, illegal cards of ours)."""
    state = game.new_initial_state()
    for a in chance:
        state.apply_action(a)
    plays: list[tuple[int, int]] = []
    bad = 0
    while not state.is_terminal():
        p = state.current_player()
        bot = seats[p]
        if isinstance(bot, OurSeat):
            a = bot.step(state, p, _hand_of(p, chance, plays), plays)
            if a not in state.legal_actions():
                bad += 1
                a = state.legal_actions()[0]
        else:
            a = bot.step(state)
        plays.append((p, ours(a)))
        state.apply_action(a)
    return [26 - round(r) for r in state.returns()], bad


def _hand_of(p: int, chance: list[int], plays: list[tuple[int, int]]) -> list[int]:
    """Seat ``p``'s cards not yet played: what it was dealt (the k-th card dealt goes to player
    k mod 4) less what it played. Its own deal and its own plays only."""
    dealt = [ours(a) for k, a in enumerate(chance[1:]) if k % 4 == p]
    mine = {c for q, c in plays if q == p}
    return [c for c in dealt if c not in mine]


# ---------------------------------------------------------------- figures
def timing(xs: Sequence[float]) -> dict[str, float]:
    if not xs:
        return {}
    s = sorted(xs)
    return {"decisions": len(s), "mean_s": round(statistics.fmean(s), 4),
            "p95_s": round(s[int(0.95 * (len(s) - 1))], 4), "max_s": round(s[-1], 4)}


def mean_ci(xs: Sequence[float]) -> list[float]:
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return [round(m, 3), round(m - h, 3), round(m + h, 3)]


def ratio_ci(o: Sequence[float], t: Sequence[float]) -> list[float]:
    """mean(o) / mean(t) with a 95% delta-method interval (o and t paired per deal)."""
    mo, mt = statistics.fmean(o), statistics.fmean(t)
    r = mo / mt
    if len(o) < 2:
        return [round(r, 3), float("nan"), float("nan")]
    resid = [a - r * b for a, b in zip(o, t, strict=True)]
    se = statistics.stdev(resid) / math.sqrt(len(o)) / mt
    return [round(r, 3), round(r - 1.96 * se, 3), round(r + 1.96 * se, 3)]


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one table from its per-deal rows."""
    o = [statistics.fmean(r["ours"]) for r in rows]  # per deal: our four seat-hands
    t = [statistics.fmean(r["theirs"]) for r in rows]
    loads = [r["load"] for r in rows]
    return {
        "deals": len(rows), "hands": 2 * len(rows),
        "ours_points_per_hand": mean_ci(o), "ismcts_points_per_hand": mean_ci(t),
        "ratio_ours_to_ismcts": ratio_ci(o, t), "ours_minus_ismcts_per_deal": mean_ci([a - b for a, b in zip(o, t, strict=True)]),
        "time_ours": timing([x for r in rows for x in r["t_ours"]]),
        "time_ismcts": timing([x for r in rows for x in r["t_ismcts"]]),
        "illegal_cards_from_ours": sum(r["bad"] for r in rows),
        "load_1min": [min(loads), round(statistics.median(loads), 1), max(loads)] if loads else [],
    }


def line(name: str, f: dict[str, Any]) -> str:
    r, o, t, d = f["ratio_ours_to_ismcts"], f["ours_points_per_hand"], f["ismcts_points_per_hand"], f["ours_minus_ismcts_per_deal"]
    to, ti = f["time_ours"], f["time_ismcts"]
    return (f"{name}: {f['deals']} deals ({f['hands']} hands): ours {o[0]:.2f} v ISMCTS {t[0]:.2f} points per "
            f"seat-hand; ratio {r[0]:.3f} (95% {r[1]:.3f}-{r[2]:.3f}); difference {d[0]:+.2f} ({d[1]:+.2f} to "
            f"{d[2]:+.2f}); CPU s per decision ours {to.get('mean_s', 0):.3f} (p95 {to.get('p95_s', 0):.3f}, max "
            f"{to.get('max_s', 0):.3f}), ISMCTS {ti.get('mean_s', 0):.3f}; load {f['load_1min']}")


def make_ours(level: str, budget: float | None, options: dict[str, Any] | None = None) -> tuple[Any, float | None]:
    """Our bot at ``level`` (``options``: keyword arguments of the search bot, for a variant)."""
    from trickref.engine.bots import bot_for
    from trickref.engine.bots.levels import budget_of, search_bot

    b = budget if budget is not None else budget_of(level)
    if b is None:
        return bot_for("hearts"), None
    # CPU time of this thread, no wall limit: the figures do not depend on the machine's load
    return search_bot("hearts", level, budget=b, clock=time.thread_time, wall_limit=None, **(options or {})), b


def report(files: list[Path]) -> None:
    tables: dict[str, list[dict[str, Any]]] = {}
    meta: dict[str, Any] = {}
    for f in files:
        obj = json.loads(f.read_text())
        meta.setdefault("runs", []).append({k: v for k, v in obj.items() if k != "tables"})
        for name, tab in obj.get("tables", {}).items():
            tables.setdefault(name, []).extend(tab["rows"])
    for name, rows in tables.items():
        seen: dict[int, dict[str, Any]] = {}
        for r in rows:
            seen.setdefault(r["deal"], r)
        print(line(name, summarize(sorted(seen.values(), key=lambda r: r["deal"]))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--first", type=int, default=0, help="the first deal's index (to share deals among processes)")
    ap.add_argument("--sims", type=int, nargs="+", default=[1000, 10000], help="ISMCTS simulations per decision: one table each")
    ap.add_argument("--level", default="strong", help="our bots' level (engine/bots/levels.py: rule, search, strong, LEVEL@pi4)")
    ap.add_argument("--budget", type=float, default=None, help="CPU seconds per decision instead of the level's")
    ap.add_argument("--bot-option", action="append", default=[], metavar="KEY=VALUE",
                    help="a keyword argument of our search bot (a variant to compare), e.g. solve_at=6")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--report", type=Path, nargs="+", help="only print the figures of these result files, pooled")
    args = ap.parse_args()
    if args.report:
        report(args.report)
        return
    try:
        import pyspiel
    except ImportError:
        sys.exit("OpenSpiel is not installed: pip install -e '.[bench]' (the open-spiel package)")
    game = pyspiel.load_game("hearts", {"pass_cards": False})
    positions = Positions()
    from trickref.engine.bots.levels import bot_options

    try:
        options = bot_options("hearts", args.bot_option)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    bot, budget = make_ours(args.level, args.budget, options)
    from trickref.engine import ENGINE_BUILD

    out: dict[str, Any] = {
        "command": " ".join(["benchmarks/vs_openspiel.py", *sys.argv[1:]]),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "pyspiel": getattr(pyspiel, "__version__", "?"),
                    "engine": str(ENGINE_BUILD)},
        "level": args.level, "budget_cpu_s": budget, "bot_options": options, "seed": args.seed,
        "openspiel_game": "hearts " + json.dumps(game.get_parameters(), sort_keys=True),
        "ismcts": f"pyspiel.ISMCTSBot(seed, RandomRolloutEvaluator(1, seed), uct_c={UCT_C}, sims) with its other defaults",
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_at_start": os.getloadavg(),
        "tables": {},
    }
    print(f"ours: {args.level} ({budget} s CPU per decision); ISMCTS {args.sims} simulations; deals "
          f"{args.first}..{args.first + args.deals - 1}; load {load()}", flush=True)
    t_start = time.time()
    for sims in args.sims:
        name = f"ismcts-{sims}"
        rows: list[dict[str, Any]] = []
        out["tables"][name] = {"sims": sims, "rows": rows}
        for d in range(args.first, args.first + args.deals):
            chance = deal_actions(args.seed, d)
            row: dict[str, Any] = {"deal": d, "ours": [], "theirs": [], "t_ours": [], "t_ismcts": [], "bad": 0}
            for mine in ((0, 2), (1, 3)):
                me = OurSeat(bot, positions, random.Random(f"{args.seed}/{d}/{mine}"))
                seats: list[Any] = [me if p in mine else TheirSeat(ismcts(pyspiel, args.seed * 1_000_003 + d * 10 + p, sims))
                                    for p in range(4)]
                pts, bad = play_hand(game, chance, seats)
                row["ours"] += [pts[p] for p in mine]
                row["theirs"] += [pts[p] for p in range(4) if p not in mine]
                row["t_ours"] += [round(x, 5) for x in me.times]
                row["t_ismcts"] += [round(x, 5) for p in range(4) if p not in mine for x in seats[p].times]
                row["bad"] += bad
            row["load"] = load()
            rows.append(row)
            f = summarize(rows)
            out["tables"][name]["figures"] = f
            out["elapsed_s"] = round(time.time() - t_start, 1)
            _write(args.out, out)
            print(f"  deal {d} ({time.time() - t_start:.0f} s) " + line(name, f), flush=True)
    for name, tab in out["tables"].items():
        print(line(name, tab["figures"]))
    print(f"written {args.out}")


def _write(path: Path, obj: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(obj) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    main()
