"""Strength, speed and memory of the search bots (engine/bots/search.py) against the rule bots.

    .venv/bin/python benchmarks/bots.py [--games 20] [--hands 12] [--level strong]
        [--clock cpu|wall] [--only GAME ...] [--seed 1]

Targets (issue 11), each with fixed seeds:

- partnership-spades and spades-2p: whole games to 500, the search bot's side against the
  rule bot's side; german-whist: whole games to 15. Games come in pairs with the same deck
  orders, the sides swapped in the second (so each side gets the same cards): the search
  side's share of games won, with a 95% Wilson interval; target >= 65%.
- hearts (3 to 7 players) and cancellation-hearts (6 to 11): one search bot among rule bots,
  consecutive hands of one game per player count (every pass direction), the search bot's
  seat moving one place left each hand: its points per hand against the rule bots' average
  at the same table; target: at least 25% fewer. The interval is a 95% normal interval of the
  mean per-hand difference, divided by the rule bots' mean. Each hand is also played a second
  time from the same position and cards with a rule bot in the search bot's seat (the
  duplicate, as duplicate bridge scores): the search bot's points against what the rule bot
  took in its place, the same statistics; most of the luck of the deal cancels in it.
- time per searched decision (wall and process CPU; mean, p95, max) at the level, and memory:
  the tracemalloc peak of single searched decisions (a first lead, the costliest) and the
  process's ru_maxrss at the end; targets 0.25 s and 100 MB.

The level's budget is a time per decision. On a machine shared with other work a wall-clock
budget measures the other work too, so by default (``--clock cpu``) the bots' budget runs on
this process's CPU time; ``--clock wall`` is what the kiosk does. Only decisions with more
than one choice are searched (and timed). Figures are printed and written to
benchmarks/results/bots.json (each game's section replaced; others kept, so games can run in
separate processes).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trickref.engine import cards as C  # noqa: E402
from trickref.engine.actions import Action  # noqa: E402
from trickref.engine.base import GameState  # noqa: E402
from trickref.engine.bots import bot_for  # noqa: E402
from trickref.engine.bots.levels import LEVELS, bot_options, budget_of, make_search_bot  # noqa: E402
from trickref.engine.bots.search import SearchBot  # noqa: E402
from trickref.engine.games import new_game  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "bots.json"
WHOLE = {"partnership-spades": 4, "spades-2p": 2, "german-whist": 2}
TABLES = {"hearts": (3, 4, 5, 6, 7), "cancellation-hearts": (6, 7, 8, 9, 10, 11)}
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}


class Timed:
    """A search bot that records the wall and CPU time and worlds of its searched decisions."""

    def __init__(self, bot: SearchBot) -> None:
        self.bot = bot
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.worlds: list[int] = []

    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        t, c = time.perf_counter(), time.process_time()
        a = self.bot.choose(state, seat, rng)
        if self.bot.last_worlds:
            self.wall.append(time.perf_counter() - t)
            self.cpu.append(time.process_time() - c)
            self.worlds.append(self.bot.last_worlds)
        return a


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, mid - half), min(1.0, mid + half))


def run_hand(st: GameState, players: list[Any], rng: random.Random, ref: random.Random) -> None:
    """Play the hand in progress to its end; a Double Nil exchange's replacements are drawn at
    random from the discard pile, as the referee does."""
    while st.turn_seats():
        for seat in st.turn_seats():
            a = players[seat].choose(st, seat, rng)
            if a.kind == "exchange":
                give = a.value[0]
                pile = getattr(st, "discards")  # noqa: B009 - spades-2p
                a = Action("exchange", (give, tuple(sorted(ref.sample(pile, len(give))))))
            st.apply(a, seat)
            if not st.turn_seats():
                break


def whole_games(game: str, pairs: int, search: Timed, seed: int, target: int | None,
                progress: Any = None) -> dict[str, Any]:
    """The whole games of ``game``; ``progress(section)`` (if given) gets the figures so far
    after each pair, so a run stopped early still leaves them (marked ``partial``)."""
    n = WHOLE[game]
    rule = bot_for(game)
    won = 0
    games = 0
    hands = 0
    diffs: list[float] = []  # per hand: search side's points minus the other side's
    for i in range(pairs):
        for swap in (0, 1):
            sides = {s for s in range(n) if s % 2 == swap}  # 0+2 / 1+3, or seat 0 / seat 1
            players = [search if s in sides else rule for s in range(n)]
            st = new_game(game, n, {"target": target} if target else None)
            decks = random.Random(seed * 1000 + i)
            rng = random.Random(seed * 1000 + i + 500)
            ref = random.Random(seed * 1000 + i + 900)
            while not st.over and st.hand_number < 200:
                deck = C.full_deck()
                decks.shuffle(deck)
                st.start_hand(deck)
                run_hand(st, players, rng, ref)
                pts = st.hand_results[-1]["points"]
                me = min(sides)
                diffs.append(pts[me] - pts[(me + 1) % n])
                hands += 1
            games += 1
            won += bool(set(st.winners) & sides)
            print(f"  {game} pair {i} {'swapped' if swap else 'first'}: "
                  f"{'search' if set(st.winners) & sides else 'rule'} side won {st.totals} after {st.hand_number} hands",
                  flush=True)
        if progress is not None and i < pairs - 1:
            part = _games_section(won, games, hands, diffs)
            part.update(partial=True, pairs_done=i + 1, timing=timing(search))
            progress(part)
    return _games_section(won, games, hands, diffs)


def _games_section(won: int, games: int, hands: int, diffs: list[float]) -> dict[str, Any]:
    lo, hi = wilson(won, games)
    return {
        "games": games, "search_won": won, "share": won / games, "ci95": [lo, hi],
        "hands": hands, "mean_hand_points_diff": statistics.mean(diffs),
        "hand_points_diff_ci95": _mean_ci(diffs), "target": 0.65,
        "met": won / games >= 0.65, "met_with_confidence": lo >= 0.65,
    }


def _mean_ci(xs: list[float]) -> list[float]:
    m = statistics.mean(xs)
    if len(xs) < 2:
        return [m, m]
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return [m - h, m + h]


def table_hands(game: str, hands: int, search: Timed, seed: int, counts: list[int] | None = None,
                progress: Any = None) -> dict[str, Any]:
    """One search bot among rule bots at each player count; ``progress(section)`` (if given)
    gets the figures so far after each hand, so a run stopped early still leaves them (marked
    ``partial``)."""
    rule = bot_for(game)
    decks_n = 2 if game == "cancellation-hearts" else 1
    per_n: dict[str, Any] = {}
    all_s: list[float] = []
    all_r: list[float] = []
    all_d: list[float] = []
    for n in TABLES[game]:
        if counts and n not in counts:
            continue
        st = new_game(game, n, {"target": 10**9})
        decks = random.Random(seed * 100 + n)
        rng = random.Random(seed * 100 + n + 50)
        s_pts: list[float] = []
        r_pts: list[float] = []
        d_pts: list[float] = []
        for h in range(hands):
            me = h % n
            players = [search if s == me else rule for s in range(n)]
            deck = C.full_deck(decks_n)
            decks.shuffle(deck)
            twin = st.copy()  # the duplicate: the same hand with a rule bot in the search bot's seat
            twin_rng = random.Random()
            twin_rng.setstate(rng.getstate())
            st.start_hand(deck)
            run_hand(st, players, rng, rng)
            pts = st.hand_results[-1]["points"]
            s_pts.append(pts[me])
            r_pts.append(sum(pts[s] for s in range(n) if s != me) / (n - 1))
            twin.start_hand(deck)
            run_hand(twin, [rule] * n, twin_rng, twin_rng)
            d_pts.append(twin.hand_results[-1]["points"][me])
            if progress is not None:
                part = _tables_section(all_s + s_pts, all_r + r_pts, {**per_n, str(n): _per_n(s_pts, r_pts, d_pts)},
                                       all_d + d_pts)
                part.update(partial=True, timing=timing(search))
                progress(part)
        all_s += s_pts
        all_r += r_pts
        all_d += d_pts
        per_n[str(n)] = _per_n(s_pts, r_pts, d_pts)
        print(f"  {game} {n} players: { {k: v for k, v in per_n[str(n)].items() if k != 'per_hand'} }", flush=True)
    return _tables_section(all_s, all_r, per_n, all_d)


def _per_n(s_pts: list[float], r_pts: list[float], d_pts: list[float]) -> dict[str, Any]:
    out = _reduction(s_pts, r_pts)
    out["duplicate"] = _reduction(s_pts, d_pts)
    out["per_hand"] = [[a, round(b, 3), d] for a, b, d in zip(s_pts, r_pts, d_pts, strict=True)]
    return out


def _tables_section(all_s: list[float], all_r: list[float], per_n: dict[str, Any],
                    all_d: list[float]) -> dict[str, Any]:
    out = _reduction(all_s, all_r)
    out["duplicate"] = _reduction(all_s, all_d)
    out["per_player_count"] = per_n
    out["target"] = 0.25
    out["met"] = out["reduction"] >= 0.25
    out["met_with_confidence"] = out["reduction_ci95"][0] >= 0.25
    return out


def _reduction(s: list[float], r: list[float]) -> dict[str, Any]:
    ms, mr = statistics.mean(s), statistics.mean(r)
    d = [a - b for a, b in zip(s, r, strict=True)]
    lo, hi = _mean_ci(d)
    red = (1 - ms / mr) if mr else 0.0
    ci = [-hi / mr, -lo / mr] if mr else [0.0, 0.0]
    return {"hands": len(s), "search_points_per_hand": round(ms, 3), "rule_points_per_hand": round(mr, 3),
            "reduction": round(red, 4), "reduction_ci95": [round(ci[0], 4), round(ci[1], 4)]}


def memory_peak(game: str, level: str, clock: str, seed: int) -> dict[str, Any]:
    """tracemalloc peak of one searched first lead of a hand (every card a candidate)."""
    n = WHOLE.get(game) or 4
    st = new_game(game, n if game != "cancellation-hearts" else 8)
    rng = random.Random(seed)
    deck = C.full_deck(2 if game == "cancellation-hearts" else 1)
    rng.shuffle(deck)
    st.start_hand(deck)
    rule = bot_for(game)
    # to the first searched decision of play
    while st.phase != "play" or len(st.legal_actions(st.turn_seats()[0])) < 2:
        for seat in st.turn_seats():
            a = rule.choose(st, seat, rng)
            if a.kind == "exchange":
                a = Action("exchange", (a.value[0], tuple(sorted(rng.sample(getattr(st, "discards"), len(a.value[0]))))))  # noqa: B009
            st.apply(a, seat)
    budget = budget_of(level)
    assert budget is not None
    bot = make_search_bot(game, budget=budget, clock=CLOCKS[clock])
    tracemalloc.start()
    bot.choose(st, st.turn_seats()[0], rng)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"tracemalloc_peak_mb": round(peak / 2**20, 2), "worlds": bot.last_worlds}


def timing(t: Timed) -> dict[str, Any]:
    if not t.wall:
        return {}
    w = sorted(t.wall)
    c = sorted(t.cpu)

    def p95(xs: list[float]) -> float:
        return xs[min(len(xs) - 1, int(0.95 * len(xs)))]

    return {
        "decisions": len(w), "wall_mean_s": round(statistics.mean(w), 4), "wall_p95_s": round(p95(w), 4),
        "wall_max_s": round(w[-1], 4), "cpu_mean_s": round(statistics.mean(c), 4), "cpu_p95_s": round(p95(c), 4),
        "cpu_max_s": round(c[-1], 4), "worlds_mean": round(statistics.mean(t.worlds), 1),
        "worlds_min": min(t.worlds),
    }


HEARTS_PARTS = ("infer", "search_pass", "relative")


def hearts_kw(game: str, args: argparse.Namespace) -> dict[str, Any]:
    """The Hearts search bot's parts switched off by ``--hearts-off``."""
    if game not in TABLES:
        return {}
    return {part: False for part in args.hearts_off}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10, help="pairs of whole games per Spades/German Whist game")
    ap.add_argument("--hands", type=int, default=12, help="hands per Hearts player count")
    ap.add_argument("--level", default="strong", choices=[k + pi for k, v in LEVELS.items() if v is not None
                                                          for pi in ("", "@pi4")],
                    help="a search level; LEVEL@pi4: the budget that buys here what LEVEL buys on a Pi 4 (a quarter)")
    ap.add_argument("--clock", default="cpu", choices=sorted(CLOCKS))
    ap.add_argument("--only", action="append", choices=[*WHOLE, *TABLES])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--target", type=int, help="smoke runs only: another game target than the rules' default")
    ap.add_argument("--hearts-off", action="append", default=[], choices=HEARTS_PARTS,
                    help="Hearts games: switch off a part of their search bot (to measure what it brings)")
    ap.add_argument("--players", type=int, action="append", help="Hearts games: only these player counts")
    ap.add_argument("--bot-option", "--bot-kw", dest="bot_kw", action="append", default=[], metavar="KEY=VALUE",
                    help="development: a keyword argument of the search bot, the value a Python literal "
                         "(e.g. solve_at=3, infer=soft, settle_z=None); checked against each game's bot first")
    ap.add_argument("--report", type=Path, nargs="+", help="only print the figures of these result files, pooled")
    args = ap.parse_args()
    if args.report:
        report(args.report)
        return
    budget = budget_of(args.level)
    assert budget is not None
    games = args.only or [*WHOLE, *TABLES]
    try:  # every game's options checked before the first game is played
        options = {game: bot_options(game, args.bot_kw) for game in games}
    except ValueError as e:
        raise SystemExit(str(e)) from None
    started = time.time()
    sections: dict[str, Any] = {}
    for game in games:
        t0, c0 = time.perf_counter(), time.process_time()
        search = Timed(make_search_bot(game, budget=budget, clock=CLOCKS[args.clock], **hearts_kw(game, args),
                                       **options[game]))
        print(f"{game}: level {args.level} ({budget} s per decision, {args.clock} clock)", flush=True)
        def progress(part: dict[str, Any], game: str = game) -> None:
            part["run"] = _meta(args, budget, started)
            _write(args.out, {game: part})

        if game in WHOLE:
            res = whole_games(game, args.games, search, args.seed, args.target, progress)
        else:
            res = table_hands(game, args.hands, search, args.seed, args.players, progress)
        res["timing"] = timing(search)
        res["memory"] = memory_peak(game, args.level, args.clock, args.seed)
        res["run_wall_s"] = round(time.perf_counter() - t0, 1)
        res["run_cpu_s"] = round(time.process_time() - c0, 1)
        print(json.dumps({game: res}, indent=1), flush=True)
        sections[game] = res
    meta = _meta(args, budget, started)
    for res in sections.values():
        res["run"] = meta
    print(f"process ru_maxrss {meta['ru_maxrss_mb']:.1f} MB")
    _write(args.out, sections)
    print(f"written to {args.out}")


def report(files: list[Path]) -> None:
    """The figures of several results files (one per seed, say) pooled per game and level:
    whole games won summed (Wilson interval), the Hearts games' hands pooled (the interval of
    the mean per-hand difference); each file's own figures and the load at its last write
    beside them."""
    pooled: dict[tuple[str, str], list[tuple[Path, dict[str, Any]]]] = {}
    for f in files:
        for game, sec in json.loads(f.read_text()).items():
            pooled.setdefault((game, sec.get("run", {}).get("level", "?")), []).append((f, sec))
    for (game, level), secs in sorted(pooled.items()):
        loads = [round(sec["run"]["load_average_at_end"][0], 1) for _, sec in secs if "run" in sec]
        seeds = sorted(sec["run"]["seed"] for _, sec in secs if "run" in sec)
        partial = sum(bool(sec.get("partial")) for _, sec in secs)
        dec = [sec.get("timing", {}) for _, sec in secs]
        worlds = [t["worlds_mean"] for t in dec if t]
        cpu = [t["cpu_mean_s"] for t in dec if t]
        if game in WHOLE:
            won = sum(sec["search_won"] for _, sec in secs)
            n = sum(sec["games"] for _, sec in secs)
            lo, hi = wilson(won, n)
            per = ", ".join(f"seed {sec['run']['seed']}: {sec['search_won']}/{sec['games']}" for _, sec in secs)
            head = (f"{game} {level}: search side won {won}/{n} games ({won / n:.0%}, 95% {lo:.0%}-{hi:.0%}; "
                    f"target >= 65%: {'lower end meets it' if lo >= 0.65 else 'lower end MISSES it'})")
        else:
            s_pts: list[float] = []
            r_pts: list[float] = []
            by_n: dict[str, tuple[list[float], list[float]]] = {}
            dup_s: list[float] = []  # hands with a duplicate (files written since 2026-12-03)
            dup_d: list[float] = []
            dup_n: dict[str, tuple[list[float], list[float]]] = {}
            for _, sec in secs:
                for k, v in sec["per_player_count"].items():
                    got = by_n.setdefault(k, ([], []))
                    for row in v["per_hand"]:
                        a, b = row[0], row[1]
                        got[0].append(a)
                        got[1].append(b)
                        s_pts.append(a)
                        r_pts.append(b)
                        if len(row) > 2:
                            dup_s.append(a)
                            dup_d.append(row[2])
                            dn = dup_n.setdefault(k, ([], []))
                            dn[0].append(a)
                            dn[1].append(row[2])
            r = _reduction(s_pts, r_pts)
            lo = r["reduction_ci95"][0]
            per = ", ".join(f"seed {sec['run']['seed']}: {sec['reduction']:.0%} over {sec['hands']} hands"
                            for _, sec in secs)
            per += "; by players: " + ", ".join(
                f"{k}: {_reduction(*v)['reduction']:.0%} ({_reduction(*v)['reduction_ci95'][0]:.0%} to "
                f"{_reduction(*v)['reduction_ci95'][1]:.0%}, {len(v[0])} hands)" for k, v in sorted(by_n.items(), key=lambda x: int(x[0])))
            head = (f"{game} {level}: {r['hands']} hands, search {r['search_points_per_hand']} v rule "
                    f"{r['rule_points_per_hand']} points a hand: {r['reduction']:.0%} fewer (95% {lo:.0%} to "
                    f"{r['reduction_ci95'][1]:.0%}; target >= 25%: {'lower end meets it' if lo >= 0.25 else 'lower end MISSES it'})")
        print(head)
        print(f"    seeds {seeds} ({partial} of {len(secs)} runs stopped early); {per}")
        if game not in WHOLE and dup_s:
            d = _reduction(dup_s, dup_d)
            dlo = d["reduction_ci95"][0]
            print(f"    duplicate (a rule bot in the search bot's seat, same cards and table): {d['hands']} hands, "
                  f"search {d['search_points_per_hand']} v rule {d['rule_points_per_hand']}: {d['reduction']:.0%} "
                  f"fewer (95% {dlo:.0%} to {d['reduction_ci95'][1]:.0%}; target >= 25%: "
                  f"{'lower end meets it' if dlo >= 0.25 else 'lower end MISSES it'}); by players: " + ", ".join(
                      f"{k}: {_reduction(*v)['reduction']:.0%} ({_reduction(*v)['reduction_ci95'][0]:.0%} to "
                      f"{_reduction(*v)['reduction_ci95'][1]:.0%}, {len(v[0])} hands)"
                      for k, v in sorted(dup_n.items(), key=lambda x: int(x[0]))))
        if cpu:
            print(f"    CPU s per searched decision (mean per run) {min(cpu)}-{max(cpu)}, worlds per decision "
                  f"{min(worlds)}-{max(worlds)}; load at the runs' last writes {min(loads)}-{max(loads)}")


def _meta(args: argparse.Namespace, budget: float, started: float) -> dict[str, Any]:
    maxrss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "machine": f"{platform.platform()} (Python {platform.python_version()}, {os.cpu_count()} CPUs)",
        "load_average_at_end": os.getloadavg(), "level": args.level, "budget_s": budget, "clock": args.clock,
        "seed": args.seed, "target_override": args.target, "pairs_of_games": args.games, "hands_per_table": args.hands,
        "ru_maxrss_mb": round(maxrss_mb, 1), "hearts_off": args.hearts_off, "bot_kw": args.bot_kw,
        "players": args.players, "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
    }


def _write(out: Path, sections: dict[str, Any]) -> None:
    """Replace these games' sections of the results file (others kept)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    old: dict[str, Any] = {}
    if out.exists():
        old = json.loads(out.read_text())
    old.update(sections)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(old, indent=1) + "\n")
    tmp.replace(out)


if __name__ == "__main__":
    main()
