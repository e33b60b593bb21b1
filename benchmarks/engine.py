"""Engine speed: uniformly random legal games through the public API, in hands per second.

    .venv/bin/python benchmarks/engine.py [--seconds 1] [--repeat 3] [--seed 1] [--games hearts,...]
    .venv/bin/python benchmarks/engine.py --only-openspiel [--rounds 3] [--compare-seconds 2] [--old-driving]
    .venv/bin/python benchmarks/engine.py --breakdown hearts:4     # where a hand's time goes

For every game and player count: ``new_game``, then hand after hand ``start_random_hand`` (the
engine deals from a deck its generator shuffles), ``legal_actions``, a uniformly random choice, ``apply``, until the hand is
scored (dealing, passing, bidding, draws, exchanges, the moon choice and scoring included;
a Double Nil exchange draws its ``get`` at random from the discard pile, as the referee
does); a finished game (or one still running after 30 hands) is replaced by a new one. A
hand counts when it has been scored.

If ``pyspiel`` imports (the ``bench`` extra, open-spiel), OpenSpiel's "hearts" and "spades"
are played in the same process, in rounds that alternate with ours (``--rounds``, each run
``--compare-seconds`` of CPU time), driven two ways:

- ``plain``: a Python loop, ``state.apply_action(rng.choice(state.legal_actions()))`` at every
  node from the initial state to the end, chance nodes included. Both games' chance nodes (the
  deal, and hearts' pass direction) are uniform, so this samples exactly their distribution.
  This is the like-for-like figure: ours is a Python loop over a Python engine, theirs a Python
  loop over a C++ engine.
- ``cpp``: OpenSpiel's own C++ loop, ``pyspiel.evaluate_bots`` with
  ``pyspiel.make_uniform_random_bot`` in every seat (one call per hand).
- ``chance_outcomes`` (``--old-driving``): the old baseline of this script, chance nodes drawn
  from ``state.chance_outcomes()`` with two list comprehensions and ``random.choices`` at each
  of them. It made OpenSpiel look 2.5-3.4x slower than it is; kept only as a labelled figure.

A fourth contestant, ``loop_floor``, runs our side's loop over a stub engine that does
nothing (56 decisions a hand, the deck still shuffled as the engine's deal does): the rate an engine costing nothing
would show, i.e. the ceiling of the ratio.

Both of their games are one hand per episode, so the figures compare hands per second:

- our hearts, 4 players, v their hearts (default parameters: pass_cards, no points on the
  first trick, Q♠ breaks hearts, must break hearts, no J♦ bonus). Their hand starts with a
  chance node for the pass direction (left, right, across, none: uniform) and passes card by
  card (12 decisions); ours rotates the direction per hand (left, right, across, none) over
  whole games and passes three cards as one action, so passing happens in 3 hands of 4 in
  both. Their moon is scored automatically; ours is a decision of the shooter (rare in random
  play). Ours also keeps game totals across hands (a game ends at 100).
- our partnership-spades with options trump=spades, must_beat=false, first_lead=left v their
  spades: deal, four bids, 13 tricks, scoring. Ours also offers Blind Nil when a team trails
  by more than 100, which random play then takes sometimes (plus the two-card exchange).

Our side is the same in both: a uniformly random player through the public API
(``turn_seats`` once a hand, then per decision ``legal_actions``, ``rng.choice`` and ``apply``,
which returns the seats on turn next), each hand dealt by the engine (``start_random_hand``:
a deck shuffled by the engine's own generator, engine/rand.py), from the deal to the end of the
hand, as OpenSpiel's engine deals its hand itself at its chance nodes. When one seat is on
turn the verbs are not told it (``legal_actions()``, ``apply(action)``: they take the seat on
turn, as OpenSpiel's take its current player); a seat is named only while several are on turn
(the Hearts passes), and only spades-2p, the one game with a Double Nil exchange, has each
action tested for one (the referee draws its ``get`` from the discards).

The loops before are timed in every round of the comparison beside it (``OLD_LOOPS``): "seat
named", the seat named at every call and every action tested for an exchange (the loop of
2026-12-06, a tenth slower); "shuffled deck", that and the deck shuffled with
``random.shuffle`` (8.6 us of Python a hand) and given to ``start_hand`` (the loop until
2026-12-06). (Until 2026-12-02 the loop called ``turn_seats`` at every decision as well;
``--versus-tree`` runs the other tree's own copy of this script, so an older engine is driven
as its API then allowed.)

Rates are per second of this process's CPU time (``time.process_time``): in the table of every
game the fastest of ``--repeat`` runs; in the comparison the ratio of ours to theirs round by
round, the median quoted. Figures are printed and written to benchmarks/results/engine.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trickref.engine import ENGINE_BUILD, ENGINE_BUILD_NOTE  # noqa: E402
from trickref.engine import cards as C  # noqa: E402
from trickref.engine.actions import Action  # noqa: E402
from trickref.engine.games import GAME_IDS, game_class, new_game  # noqa: E402
from trickref.engine.rand import Rand  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "engine.json"
# CPU time of this process, not wall time: the figures then hold on a busy machine (other
# processes take turns on the cores but not out of our seconds). pyspiel runs in-process.
_clock = time.process_time
# Random bidding in the spades games drifts below zero for ever; a game still running after
# this many hands is replaced by a new one, so undo snapshots and records stay game-sized.
MAX_HANDS_PER_GAME = 30
SPADES_LIKE_OPENSPIEL = {"trump": "spades", "must_beat": False, "first_lead": "left"}


# Our engine's two builds (engine/build.py): "compiled" (mypyc, what the install builds) and
# "python" (the pure-Python sources, TRICKREF_PURE_PYTHON=1). A process runs one of them, so
# each run of ours is made in a fresh worker process of this script (``--worker``) with the
# build chosen by its environment; the CPU time is measured inside the worker, from the first
# timed hand (imports and a warm-up hand excluded).
BUILDS = ("compiled", "python")


def our_run(build: str, game: str, players: int, options: dict[str, Any], seconds: float, seed: int,
            tree: Path | None = None, deal: str = "engine", driving: str = "turn") -> dict[str, Any] | None:
    """``our_hands`` in a worker process running ``build``; None when that build is not
    installed (the worker then runs another, and says so). ``tree``: another checkout with its
    own installed ``.venv`` (``--versus-tree``, e.g. main's): its engine, driven by its own copy
    of this script's worker, for a before/after ratio measured in the same run."""
    env = dict(os.environ)
    env.pop("TRICKREF_PURE_PYTHON", None)
    if build == "python":
        env["TRICKREF_PURE_PYTHON"] = "1"
    job = json.dumps({"game": game, "players": players, "options": options, "seconds": seconds, "seed": seed,
                      **({"deal": deal} if deal != "engine" else {}),
                      **({"driving": driving} if driving != "turn" else {})})
    python, script = sys.executable, str(Path(__file__).resolve())
    if tree is not None:
        python, script = str(tree / ".venv" / "bin" / "python"), str(tree / "benchmarks" / "engine.py")
    r = subprocess.run([python, script, "--worker", job], env=env,
                       capture_output=True, text=True, check=True)
    out: dict[str, Any] = json.loads(r.stdout)
    if out["build"] != build:
        return None
    return out


def our_hands(game: str, players: int, options: dict[str, Any], seconds: float, seed: int,
              deal: str = "engine", driving: str = "turn") -> dict[str, Any]:
    """Play random hands for ``seconds``; return hands, actions and the rate. ``deal``: "engine",
    each hand dealt by the engine from a deck its generator shuffles (``start_random_hand``), as
    OpenSpiel's engine deals its own hand at its chance nodes; "shuffle", the deck shuffled by
    ``random.shuffle`` in this loop and given to ``start_hand`` (this loop until 2026-12-06).
    ``driving``: "turn", the verbs called without a seat when one seat is on turn (they then
    take the seat on turn, as OpenSpiel's take its current player) and a seat named only when
    several are (the Hearts passes), the Double Nil exchange's draw tested for only in the game
    that has one; "seat", the seat named at every call and every action tested for an exchange
    (this loop until 2026-12-07)."""
    if deal not in ("engine", "shuffle"):
        raise ValueError(f"deal {deal!r}: engine or shuffle")
    if driving not in ("turn", "seat"):
        raise ValueError(f"driving {driving!r}: turn or seat")
    rng = random.Random(seed)
    rand = Rand(rng.getrandbits(32))
    choice = rng.choice
    cls = game_class(game)
    decks = cls.DECKS
    # the referee draws an exchange's ``get`` at random from the discards (spades-2p's Double
    # Nil): only a game with that rule offers one
    exchanges = cls.DOUBLE_NIL_EXCHANGE or driving == "seat"
    deck = C.full_deck(decks)
    warm = new_game(game, players, options)  # a hand untimed: tables built on first use
    rng.shuffle(deck)
    warm.start_hand(deck)
    while warm.turn_seats() and warm.phase != "play":
        seat = warm.turn_seats()[0]
        warm.apply(warm.legal_actions(seat)[0], seat)
    by_seat = driving == "seat"
    hands = actions = games = 0
    start = _clock()
    deadline = start + seconds
    state = new_game(game, players, options)
    while True:
        if state.over or state.hand_number >= MAX_HANDS_PER_GAME:
            games += state.over
            state = new_game(game, players, options)
        if deal == "engine":
            state.start_random_hand(rand)
        else:
            rng.shuffle(deck)
            state.start_hand(deck)
        seats = state.turn_seats()
        while seats:  # () once the hand is scored
            if len(seats) == 1 and not by_seat:  # one seat on turn: the verbs take it
                action = choice(state.legal_actions())
                seat = None
            else:  # several at once (the passes): one of them at random
                seat = seats[0] if len(seats) == 1 else choice(seats)
                action = choice(state.legal_actions(seat))
            if exchanges and action.kind == "exchange":
                give = action.value[0]
                pile = getattr(state, "discards")  # noqa: B009
                action = Action("exchange", (give, tuple(sorted(rng.sample(pile, len(give))))))
            seats = state.apply(action, seat)  # the seats on turn after it (turn_seats())
            actions += 1
        hands += 1
        if _clock() >= deadline:
            break
    elapsed = _clock() - start
    return {"deal": deal, "driving": driving, "hands": hands, "actions": actions, "games_finished": games,
            "seconds": round(elapsed, 3), "hands_per_second": round(hands / elapsed, 1),
            "actions_per_second": round(actions / elapsed)}


class _Stub:
    """A game that costs nothing: ``decisions`` turns of one seat, each offering the same
    shared tuple of ``width`` actions (for ``loop_floor``)."""

    def __init__(self, decisions: int, legal: tuple[Action, ...]) -> None:
        self.left = decisions
        self.legal = legal
        self.deck: list[int] = []

    def turn_seats(self) -> tuple[int, ...]:
        return (0,) if self.left else ()

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        return self.legal

    def apply(self, action: Action, seat: int | None = None) -> tuple[int, ...]:
        self.left -= 1
        return (0,) if self.left else ()


def loop_floor(seconds: float, seed: int, decisions: int = 56, width: int = 5) -> dict[str, Any]:
    """The benchmark's own loop with an engine that does nothing: a deck shuffled per hand (by
    the engine's generator, and kept, as ``start_random_hand`` does),
    then ``decisions`` times ``legal_actions``, ``rng.choice`` and ``apply`` as ``our_hands``
    drives a game without an exchange (one seat on turn, the verbs not told it; ``apply``
    returns the seats on turn next, as the games' does) on a stub (``_Stub``). The rate any engine driven by ``our_hands``
    could at best reach (a hand of Hearts or partnership Spades is about 56 decisions)."""
    rng = random.Random(seed)
    rand = Rand(rng.getrandbits(32))
    choice = rng.choice
    deck = C.full_deck()
    legal = tuple(Action("play", c) for c in range(width))
    hands = 0
    start = _clock()
    deadline = start + seconds
    while True:
        rand.shuffle(deck)  # (the engine's deal shuffles with its generator so, and copies the deck)
        state = _Stub(decisions, legal)
        state.deck = deck[:]
        seats = state.turn_seats()
        while seats:
            if len(seats) == 1:
                action = choice(state.legal_actions())
                seat = None
            else:
                raise AssertionError("the stub has one seat on turn")
            seats = state.apply(action, seat)
        hands += 1
        if _clock() >= deadline:
            break
    elapsed = _clock() - start
    return {"driver": "loop_floor", "decisions_per_hand": decisions, "hands": hands,
            "seconds": round(elapsed, 3), "hands_per_second": round(hands / elapsed, 1)}


def breakdown(game: str, players: int, options: dict[str, Any], hands: int, seed: int,
              warm: int = 200) -> dict[str, tuple[float, int]]:
    """Where a hand's time goes: microseconds per hand in ``new_game``, ``start_random_hand`` and in
    ``legal_actions``, the random choice and ``apply`` of each phase, timed with
    ``time.perf_counter`` (wall clock, cheap to read) with the timer's own cost subtracted.
    Wall clock counts the moments another process has the CPU: on a busy machine the figures
    are inflated, the shares much less so. Returns ``{key: (seconds, calls)}``. ``warm`` hands are played first, untimed, as the
    comparison's warm-up hand is: the tables an engine builds on first use (the pass table, about
    40 ms) would otherwise be charged to the timed calls (until 2026-12-04 they were: "pass
    legal_actions" showed about 11 us a call instead of about 1)."""
    clock = time.perf_counter
    rng = random.Random(seed)
    rand = Rand(rng.getrandbits(32))
    spent: dict[str, float] = {}
    calls: dict[str, int] = {}
    t = clock()
    for _ in range(100_000):
        clock()
    cost = (clock() - t) / 100_000  # one timer read

    def add(key: str, dt: float) -> None:
        spent[key] = spent.get(key, 0.0) + dt - cost
        calls[key] = calls.get(key, 0) + 1

    state = new_game(game, players, options)
    for i in range(warm + hands):
        if i == warm:  # the untimed hands have built the tables made on first use (e.g. the pass table)
            spent.clear()
            calls.clear()
        if state.over or state.hand_number >= MAX_HANDS_PER_GAME:
            t = clock()
            state = new_game(game, players, options)
            add("new_game", clock() - t)
        t = clock()
        state.start_random_hand(rand)  # (the deal, the deck's shuffle included)
        add("start_random_hand", clock() - t)
        while seats := state.turn_seats():
            seat = seats[0] if len(seats) == 1 else rng.choice(seats)
            phase = state.phase
            t0 = clock()
            legal = state.legal_actions(seat)
            t1 = clock()
            action = rng.choice(legal)
            if action.kind == "exchange":
                pile = getattr(state, "discards")  # noqa: B009
                action = Action("exchange", (action.value[0], tuple(sorted(rng.sample(pile, len(action.value[0]))))))
            t2 = clock()
            state.apply(action, seat)
            t3 = clock()
            add(f"{phase} legal_actions", t1 - t0)
            add(f"{phase} choice", t2 - t1)
            add(f"{phase} apply", t3 - t2)
    total = sum(spent.values())
    engine = sum(v for k, v in spent.items() if not k.endswith(" choice"))
    print(f"{game}, {players} players {json.dumps(options)}: {total / hands * 1e6:.1f} us per hand timed, "
          f"{engine / hands * 1e6:.1f} us of it in the engine (timer read {cost * 1e9:.0f} ns, subtracted)")
    for key in sorted(spent, key=lambda k: -spent[k]):
        print(f"  {key:<26}{spent[key] / hands * 1e6:9.1f} us/hand {calls[key] / hands:7.1f} calls/hand "
              f"{spent[key] / calls[key] * 1e6:8.2f} us/call {100 * spent[key] / total:6.1f}%")
    return {key: (spent[key], calls[key]) for key in spent}  # seconds and calls over the timed hands


def sample_world_cost(game: str, players: int, seconds: float, seed: int) -> dict[str, Any]:
    """CPU time of ``state.sample_world(seat, rng)`` for seat 0 at three moments of random
    hands: the first trick, the middle of the hand and two tricks before its end (hidden
    cards, shown voids and passes all vary); each moment timed for ``seconds`` / 3."""
    rng = random.Random(seed)
    out: dict[str, Any] = {"game": game, "players": players}
    state = new_game(game, players, {"target": 10**6})
    deck = C.full_deck(state.DECKS)
    each = len(deck) // players
    for label, tricks in (("first trick", 0), ("mid-hand", each // 2), ("two tricks left", each - 2)):
        while True:  # a hand that has reached the moment with seat 0 holding cards
            if not state.needs_deck:
                state = new_game(game, players, {"target": 10**6})
            rng.shuffle(deck)
            state.start_hand(deck)
            while state.turn_seats() and (state.phase != "play" or getattr(state, "tricks_played") < tricks):  # noqa: B009
                seat = rng.choice(state.turn_seats())
                state.apply(rng.choice(state.legal_actions(seat)), seat)
            if state.turn_seats():
                break
            state = new_game(game, players, {"target": 10**6})
        sample = getattr(state, "sample_world")  # noqa: B009 - the Hearts games have it
        calls = 0
        start = _clock()
        while _clock() - start < seconds / 3:
            sample(0, rng)
            calls += 1
        out[label] = round((_clock() - start) / calls * 1e3, 3)
    return out


# How OpenSpiel is driven. Both of its games' chance nodes are uniform (the deal, and hearts'
# pass direction), so a uniformly random legal action samples them exactly.
OPENSPIEL_DRIVERS: dict[str, str] = {
    "plain": "python loop: state.apply_action(rng.choice(state.legal_actions())) at every node, chance nodes included",
    "cpp": "C++ loop: pyspiel.evaluate_bots with pyspiel.make_uniform_random_bot in every seat",
    "chance_outcomes": "python loop, chance nodes drawn with chance_outcomes() and random.choices "
                       "(the old, handicapped baseline)",
}


def openspiel_hands(name: str, seconds: float, seed: int, driver: str = "plain") -> dict[str, Any] | None:
    """OpenSpiel's ``name`` played from the initial state to the end of the hand for
    ``seconds`` of CPU time, driven as ``OPENSPIEL_DRIVERS[driver]`` says."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    rng = random.Random(seed)
    choice, choices = rng.choice, rng.choices
    game = pyspiel.load_game(name)
    hands = actions = 0
    counted = driver != "cpp"
    start = _clock()
    deadline = start + seconds
    if driver == "plain":
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
                actions += 1
            hands += 1
            if _clock() >= deadline:
                break
    elif driver == "cpp":
        players = game.num_players()
        bots = [pyspiel.make_uniform_random_bot(p, seed * 100 + p) for p in range(players)]
        evaluate = pyspiel.evaluate_bots
        new_state = game.new_initial_state
        i = 0
        while True:
            evaluate(new_state(), bots, seed * 1_000_003 + i)
            i += 1
            hands += 1
            if _clock() >= deadline:
                break
    elif driver == "chance_outcomes":
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    a = choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
                else:
                    a = choice(state.legal_actions())
                state.apply_action(a)
                actions += 1
            hands += 1
            if _clock() >= deadline:
                break
    else:
        raise ValueError(f"unknown OpenSpiel driver {driver!r}")
    elapsed = _clock() - start
    out: dict[str, Any] = {"driver": driver, "hands": hands, "seconds": round(elapsed, 3),
                           "hands_per_second": round(hands / elapsed, 1)}
    if counted:  # nodes applied, chance nodes included (the C++ loop does not tell)
        out["nodes"] = actions
        out["nodes_per_second"] = round(actions / elapsed)
    out["openspiel_version"] = getattr(pyspiel, "__version__", None) or _dist_version("open_spiel")
    return out


def _dist_version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


PAIRS: tuple[tuple[str, int, dict[str, Any], str], ...] = (
    ("hearts", 4, {}, "hearts"),
    ("partnership-spades", 4, SPADES_LIKE_OPENSPIEL, "spades"),
)


def core_hands(game: str, seconds: float, seed: int) -> dict[str, Any]:
    """The search's cores (engine/hearts_core.py, engine/spades_core.py): whole hands from a
    deck shuffled by the core's own generator, dealt straight into the core's masks and played
    to the end with a uniformly random legal card at every turn. What a
    search plays out per world, not the public API: no pass, no bids (every bid 3), no scoring,
    no record; the throughput that feeds the search."""
    from trickref.engine import hearts_core, spades_core

    rnd = Rand(seed + 1)
    deck = list(range(52))
    hands = 0
    start = _clock()
    deadline = start + seconds
    while True:
        rnd.shuffle(deck)
        if game == "hearts":
            hearts_core.deal_core(deck, 4, 39).random_play(rnd)  # the 2 of clubs leads
        else:
            spades_core.deal_score(deck, 0, hands % 4).random_play(rnd)  # spades trump
        hands += 1
        if _clock() >= deadline:
            break
    elapsed = _clock() - start
    return {"driver": "core", "hands": hands, "seconds": round(elapsed, 3),
            "hands_per_second": round(hands / elapsed, 1)}


def load() -> float:
    """The 1-minute load average (printed beside every figure)."""
    return round(os.getloadavg()[0], 1)


def median_ci(xs: list[float]) -> tuple[float, float]:
    """A distribution-free 95% interval of the median: the order statistics whose ranks the
    binomial(n, 1/2) puts 2.5% outside on each side (n >= 6; the extremes below that)."""
    s = sorted(xs)
    n = len(s)
    from math import comb

    cdf = 0.0
    k = 0
    while k < n:  # the largest k with P(B <= k - 1) <= 2.5%
        p = comb(n, k) / 2 ** n
        if cdf + p > 0.025:
            break
        cdf += p
        k += 1
    k = max(k, 1)
    return s[k - 1], s[n - k]


# The compiled engine driven by the loops this benchmark used before, timed in every round of the
# comparison beside today's, so each change of the loop shows as a ratio of the same rounds:
# name -> (deal, driving, how).
OLD_LOOPS: dict[str, tuple[str, str, str]] = {
    "seat named": ("engine", "seat",
                   "the seat named at every call, every action tested for an exchange: the loop of 2026-12-06"),
    "shuffled deck": ("shuffle", "seat",
                      "the deck shuffled by random.shuffle in the loop and given to start_hand, the seat named: "
                      "the loop until 2026-12-06"),
}


def _against_drivers(label: str, key: str, mine_runs: list[dict[str, Any]], runs: dict[str, list[dict[str, Any]]],
                     drivers: list[str], note: str = "") -> dict[str, Any]:
    """One contestant's runs against each OpenSpiel driver's of the same rounds: its rates
    printed, then per driver the ratios round by round, their median and its 95 % interval, and
    the load over both; returned as the entries ``{key}_ratio_v_{driver}`` of the results."""
    mine = [x["hands_per_second"] for x in mine_runs]
    print(f"  {label:<22}" + "".join(f"{v:>10.0f}" for v in mine))
    out: dict[str, Any] = {}
    for d in drivers:
        theirs = [x["hands_per_second"] for x in runs[d]]
        ratios = [m / t for m, t in zip(mine, theirs, strict=True)]
        lo, hi = median_ci(ratios)
        loads = [x["load"] for x in mine_runs + runs[d]]
        out[f"{key}_ratio_v_{d}"] = {"per_round": [round(x, 3) for x in ratios],
                                     "median": round(statistics.median(ratios), 3),
                                     "median_ci95": [round(lo, 3), round(hi, 3)],
                                     "load_1min": [min(loads), max(loads)],
                                     "best_v_best": round(max(mine) / max(theirs), 3)}
        print(f"    {label} / openspiel {d}: per round " + ", ".join(f"{x:.2f}" for x in ratios)
              + f"; median {statistics.median(ratios):.2f}x (95% {lo:.2f}-{hi:.2f}), load {min(loads)}-"
              f"{max(loads)}" + (note if d == "plain" else ""))
    return out


def compare(seconds: float, rounds: int, seed: int, old_driving: bool,
            builds: tuple[str, ...] = BUILDS, versus: Path | None = None) -> list[dict[str, Any]]:
    """Ours (both builds) against OpenSpiel, like for like, in rounds: every round runs each
    contestant once (the order rotating from round to round), so a ratio compares runs made
    minutes apart at most on the same machine load. Ratios are per round; the median is quoted."""
    drivers = ["plain", "cpp"] + (["chance_outcomes"] if old_driving else [])
    comparisons: list[dict[str, Any]] = []
    for ours_name, n, options, theirs_name in PAIRS:
        # the compiled engine driven by the loops before (OLD_LOOPS), in the same rounds
        olds = list(OLD_LOOPS) if "compiled" in builds else []
        contestants = ([f"ours {b}" for b in builds] + olds + (["versus"] if versus else []) + drivers
                       + ["loop_floor", "core"])
        runs: dict[str, list[dict[str, Any]]] = {c: [] for c in contestants}
        missing: set[str] = set()
        for r in range(rounds):
            order = contestants[r % len(contestants):] + contestants[:r % len(contestants)]
            for c in order:
                if c.startswith("ours "):
                    if c in missing:
                        continue
                    got_ours = our_run(c[5:], ours_name, n, options, seconds, seed + r)
                    if got_ours is None:
                        missing.add(c)
                        print(f"  ({c}: that build is not installed here)")
                        continue
                    runs[c].append({**got_ours, "load": load()})
                elif c in OLD_LOOPS:
                    deal, driving, _ = OLD_LOOPS[c]
                    got_s = our_run("compiled", ours_name, n, options, seconds, seed + r, deal=deal, driving=driving)
                    if got_s is None:
                        missing.add(c)
                        continue
                    runs[c].append({**got_s, "load": load()})
                elif c == "versus":
                    assert versus is not None
                    got_v = our_run("compiled", ours_name, n, options, seconds, seed + r, versus)
                    if got_v is None:
                        raise SystemExit(f"--versus-tree {versus}: its engine is not compiled")
                    runs[c].append({**got_v, "load": load()})
                elif c == "loop_floor":
                    runs[c].append({**loop_floor(seconds, seed + r), "load": load()})
                elif c == "core":
                    runs[c].append({**core_hands(ours_name, seconds, seed + r), "load": load()})
                else:
                    got = openspiel_hands(theirs_name, seconds, seed + r, c)
                    if got is None:
                        print("pyspiel does not import: no OpenSpiel comparison (install the bench extra)")
                        return comparisons
                    runs[c].append({**got, "load": load()})
            print(f"  round {r + 1}/{rounds} done (load {load()}): hands per CPU second "
                  + ", ".join(f"{c} {runs[c][-1]['hands_per_second']:.0f}" for c in contestants if c not in missing),
                  flush=True)
        label = json.dumps(options) if options else "defaults"
        print(f"\nour {ours_name} ({n} players, {label}) v OpenSpiel {theirs_name}, {rounds} rounds of "
              f"{seconds:g} CPU-s each, hands per CPU second:")
        entry: dict[str, Any] = {
            "ours": {"game": ours_name, "players": n, "options": options},
            "openspiel": {"game": theirs_name, "players": 4},
        }
        for build in builds:
            if f"ours {build}" in missing:
                continue
            entry["ours"][build] = {"runs": runs[f"ours {build}"]}
            entry.update(_against_drivers(f"ours, {build}", build, runs[f"ours {build}"], runs, drivers,
                                          "  (target 2x)"))
        for c in olds:
            if c in missing:
                continue
            how = OLD_LOOPS[c][2]
            key = f"compiled_{c.replace(' ', '_')}"
            entry["ours"][key] = {"how": how, "runs": runs[c]}
            print(f"  ({c}: the compiled engine, {how})")
            entry.update(_against_drivers(f"ours, {c}", key, runs[c], runs, drivers))
        if len(builds) == 2 and not missing:
            sp = [a["hands_per_second"] / b["hands_per_second"]
                  for a, b in zip(runs["ours compiled"], runs["ours python"], strict=True)]
            entry["compiled_v_python"] = {"per_round": [round(x, 3) for x in sp], "median": round(statistics.median(sp), 3)}
            print("    ours compiled / ours python: per round " + ", ".join(f"{x:.2f}" for x in sp)
                  + f"; median {statistics.median(sp):.2f}x")
        if versus is not None and "ours compiled" in runs and "ours compiled" not in missing:
            vs = [x["hands_per_second"] for x in runs["versus"]]
            mine = [x["hands_per_second"] for x in runs["ours compiled"]]
            vr = [m / v for m, v in zip(mine, vs, strict=True)]
            lo, hi = median_ci(vr)
            loads = [x["load"] for x in runs["ours compiled"] + runs["versus"]]
            entry["versus_tree"] = {"tree": str(versus), "runs": runs["versus"],
                                    "ratio_ours_compiled_v_tree": {"per_round": [round(x, 3) for x in vr],
                                                                   "median": round(statistics.median(vr), 3),
                                                                   "median_ci95": [round(lo, 3), round(hi, 3)],
                                                                   "load_1min": [min(loads), max(loads)]}}
            print(f"  {'versus ' + versus.name:<22}" + "".join(f"{v:>10.0f}" for v in vs)
                  + f"   (the compiled engine of {versus}, its own worker)")
            print("    ours compiled / versus: per round " + ", ".join(f"{x:.2f}" for x in vr)
                  + f"; median {statistics.median(vr):.2f}x (95% {lo:.2f}-{hi:.2f}), load {min(loads)}-{max(loads)}")
        for d in drivers:
            theirs = [x["hands_per_second"] for x in runs[d]]
            entry["openspiel"][d] = {"how": OPENSPIEL_DRIVERS[d], "runs": runs[d]}
            print(f"  {'openspiel ' + d:<22}" + "".join(f"{v:>10.0f}" for v in theirs))
        floor = [x["hands_per_second"] for x in runs["loop_floor"]]
        plain = [x["hands_per_second"] for x in runs["plain"]]
        floor_ratios = [f / t for f, t in zip(floor, plain, strict=True)]
        entry["loop_floor"] = {"how": loop_floor.__doc__, "runs": runs["loop_floor"],
                               "ratio_v_plain": {"per_round": [round(x, 3) for x in floor_ratios],
                                                 "median": round(statistics.median(floor_ratios), 3)}}
        print(f"  {'loop floor':<22}" + "".join(f"{v:>10.0f}" for v in floor)
              + "   (the same loop over a stub engine that does nothing, 56 decisions a hand)")
        print("    loop floor / openspiel plain: per round " + ", ".join(f"{x:.2f}" for x in floor_ratios)
              + f"; median {statistics.median(floor_ratios):.2f}x (the best any engine could show here)")
        core = [x["hands_per_second"] for x in runs["core"]]
        entry["core"] = {"how": core_hands.__doc__, "runs": runs["core"]}
        print(f"  {'search core':<22}" + "".join(f"{v:>10.0f}" for v in core)
              + "   (a world's hand on the search's core: random legal plays, no pass, bids or scoring)")
        for d in drivers:
            theirs = [x["hands_per_second"] for x in runs[d]]
            ratios = [m / t for m, t in zip(core, theirs, strict=True)]
            lo, hi = median_ci(ratios)
            loads = [x["load"] for x in runs["core"] + runs[d]]
            entry["core"][f"ratio_v_{d}"] = {"per_round": [round(x, 3) for x in ratios],
                                             "median": round(statistics.median(ratios), 3),
                                             "median_ci95": [round(lo, 3), round(hi, 3)], "load_1min": [min(loads), max(loads)]}
            print(f"    search core / openspiel {d}: per round " + ", ".join(f"{x:.2f}" for x in ratios)
                  + f"; median {statistics.median(ratios):.2f}x (95% {lo:.2f}-{hi:.2f}), load {min(loads)}-{max(loads)}")
        comparisons.append(entry)
    return comparisons


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per run (default 1)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1; repeat i uses seed + i)")
    p.add_argument("--repeat", type=int, default=3, help="runs per measurement, the fastest is kept (default 3)")
    p.add_argument("--games", default=",".join(GAME_IDS), help="comma-separated game ids (default: all)")
    p.add_argument("--no-openspiel", action="store_true", help="skip the OpenSpiel comparison")
    p.add_argument("--only-openspiel", action="store_true", help="only the OpenSpiel comparison")
    p.add_argument("--compare-seconds", type=float, default=2.0,
                   help="CPU seconds per run in the OpenSpiel comparison (default 2)")
    p.add_argument("--rounds", type=int, default=10,
                   help="rounds of the OpenSpiel comparison, every contestant once a round (default 10)")
    p.add_argument("--builds", nargs="+", choices=BUILDS, default=list(BUILDS),
                   help="our builds in the OpenSpiel comparison (default both)")
    p.add_argument("--old-driving", action="store_true",
                   help="also time OpenSpiel driven the old way (chance_outcomes + random.choices)")
    p.add_argument("--versus-tree", metavar="DIR", type=Path,
                   help="also run the compiled engine of another installed checkout (its .venv and its own "
                        "benchmarks/engine.py worker) in every round of the comparison, e.g. /work/main: "
                        "the ratio ours / that tree, before v after in one run")
    p.add_argument("--output", default=str(RESULTS), help=f"results file (default {RESULTS.relative_to(ROOT)})")
    p.add_argument("--sample-world", action="store_true",
                   help="instead of the benchmark, time sample_world of the Hearts games (updates the "
                        "sample_world key of the results file)")
    p.add_argument("--worker", metavar="JSON", help=argparse.SUPPRESS)  # one run of ours (our_run)
    p.add_argument("--breakdown", metavar="GAME[:PLAYERS]",
                   help="instead of the benchmark, show where a hand's time goes for one game")
    args = p.parse_args(argv)
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(line_buffering=True)  # progress shows when the output goes to a file
    if args.worker:
        job = json.loads(args.worker)
        got = our_hands(job["game"], job["players"], job["options"], job["seconds"], job["seed"],
                        job.get("deal", "engine"), job.get("driving", "turn"))
        print(json.dumps({"build": ENGINE_BUILD, **got}))
        return 0
    if args.sample_world:
        rows_sw = [sample_world_cost(g, n, args.seconds * 3, args.seed)
                   for g, n in (("hearts", 4), ("hearts", 7), ("cancellation-hearts", 6), ("cancellation-hearts", 11))]
        print("sample_world(0, rng), CPU ms per call:")
        for r in rows_sw:
            print(f"  {r['game']:<22}{r['players']:>3} players: first trick {r['first trick']:.2f}, "
                  f"mid-hand {r['mid-hand']:.2f}, two tricks left {r['two tricks left']:.2f}")
        path = Path(args.output)
        old = json.loads(path.read_text()) if path.exists() else {}
        old["sample_world"] = {"command": "python benchmarks/engine.py " + " ".join(sys.argv[1:] if argv is None else argv),
                               "unit": "CPU milliseconds per call, seat 0", "results": rows_sw}
        path.write_text(json.dumps(old, indent=1) + "\n")
        print(f"written to {path} (key sample_world)")
        return 0
    if args.breakdown:
        game, _, count = args.breakdown.partition(":")
        opts = SPADES_LIKE_OPENSPIEL if game == "partnership-spades" else {}
        breakdown(game, int(count or game_class(game).PLAYER_COUNTS[0]), opts, 2000, args.seed)
        return 0

    rows: list[dict[str, Any]] = []
    print(f"this process: engine {ENGINE_BUILD} ({ENGINE_BUILD_NOTE}); ours runs in worker processes, one per build")
    wanted = [g for g in args.games.split(",") if g] if not args.only_openspiel else []
    if wanted:
        print(f"{'game':<22}{'players':>8}{'compiled h/s':>14}{'python h/s':>12}{'compiled/python':>17}  "
              f"(best of {args.repeat} runs of {args.seconds:g} CPU-s each, builds alternating)")
    for game in wanted:
        for n in game_class(game).PLAYER_COUNTS:
            runs: dict[str, list[dict[str, Any]]] = {b: [] for b in BUILDS}
            for i in range(args.repeat):  # alternating, the order swapped every repeat
                for build in (BUILDS if i % 2 == 0 else BUILDS[::-1]):
                    got = our_run(build, game, n, {}, args.seconds, args.seed + i)
                    if got is not None:
                        runs[build].append(got)
            row: dict[str, Any] = {"game": game, "players": n, "options": {}}
            for build in BUILDS:
                if runs[build]:
                    row[build] = max(runs[build], key=lambda r: r["hands_per_second"])
            rate = {b: row[b]["hands_per_second"] if b in row else None for b in BUILDS}
            if rate["compiled"] and rate["python"]:
                row["compiled_v_python"] = round(rate["compiled"] / rate["python"], 2)
            rows.append(row)
            shown = [f"{rate[b]:.0f}" if rate[b] else "n/a" for b in BUILDS]
            print(f"{game:<22}{n:>8}{shown[0]:>14}{shown[1]:>12}"
                  f"{(str(row['compiled_v_python']) + 'x') if 'compiled_v_python' in row else 'n/a':>17}")

    comparisons: list[dict[str, Any]] = []
    if not args.no_openspiel:
        comparisons = compare(args.compare_seconds, args.rounds, args.seed, args.old_driving, tuple(args.builds),
                              args.versus_tree)

    out = {
        "benchmark": "engine: uniformly random legal hands through the public API",
        "command": "python benchmarks/engine.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "cpu_seconds_per_run": args.seconds,
        "clock": "time.process_time (CPU time of the process)",
        "seed": args.seed,
        "repeat": args.repeat,
        "python": platform.python_version(),
        "builds": "ours in two builds: compiled (mypyc, what the install builds) and python "
                  "(the pure-Python sources, TRICKREF_PURE_PYTHON=1), each run in a worker process",
        "load_average_at_end": os.getloadavg(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "results": rows,
        "openspiel_drivers": OPENSPIEL_DRIVERS,
        "compare_seconds_per_run": args.compare_seconds,
        "rounds": args.rounds,
        "openspiel": comparisons,
    }
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():  # keep the figures of --sample-world
        kept = json.loads(path.read_text()).get("sample_world")
        if kept is not None:
            out["sample_world"] = kept
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
