"""Search bots for all five games: determinized Monte Carlo search with rule-bot rollouts.

At a decision the bot draws worlds from what its seat knows (``state.sample_world(seat,
rng)``: every card it has not seen dealt at random among the places it may be, consistently
with the play so far; engine/worlds.py and the Hearts games' own), and in each world plays
every candidate action followed by the rest of the hand with the rule bots in every seat
(the same random numbers for every candidate: common random numbers, so the comparison is
between the actions, not between lucky and unlucky rollouts). The candidate with the best
average result is played. The search is anytime: worlds are drawn until the time budget is
spent (``budget`` seconds of CPU time of the searching thread by default, and at most
``wall_limit`` seconds of wall time: no new world when it would likely end past either; a
world still running when either is reached is dropped; when not one world fitted, the rule
bot's choice stands), or exactly ``iterations`` worlds when that is given (tests and
``trickref sim --worlds``). Candidates that keep losing by a wide margin are dropped after a
few worlds (successive halving), so the budget goes to the close calls.

What is searched: card play in every game, and (``search_bids``) the bid in the Spades games
among the rule bot's bid and its neighbours. Passing, Blind/Double Nil, the spades-2p draw and
the moon choice are the rule bot's. The Hearts games' bot (``levels.make_search_bot``) is
engine/bots/search_hearts.py's subclass: it also searches the pass, draws worlds that fit how
rule bots play, and scores a hand against the table.

A rollout is scored when the hand ends, from the seat's side:

- Spades games: the side's total minus 10 per bag in its counter, minus the same for the other
  side (a bag costs 10 points in the long run: +1 now, -100 per 10; search_spades.py);
- German Whist: the seat's points minus the opponent's, plus a tenth of the trick difference
  (its bot module's subclass);
- Hearts games: minus the seat's points for the hand (search_hearts.py: against the table);
- any other game: minus the seat's points where the lower total wins, else the seat's points
  minus the best other seat's.

The bot reads nothing but ``state.legal_actions(seat)``, ``state.view(seat)`` (through the
rule bot on its own seat, which reads its hand and the public play) and
``state.sample_world(seat, rng)``; the rollouts run in the sampled worlds only.
``tests/engine/test_bots_search.py`` checks it: states that differ only in cards hidden from
the seat get the same decision for the same random numbers.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from .. import catalog
from ..actions import BIDS, Action
from ..base import GameState
from ..cards import QS
from ..masks import BIT, mask_of
from . import bot_for


def _value(state: GameState, seat: int, lower_wins: bool) -> float:
    """The finished hand's points for ``seat`` against the others (see the module docstring;
    the game families' subclasses score otherwise)."""
    pts = state.hand_results[-1]["points"]
    if lower_wins:
        return -float(pts[seat])
    return float(pts[seat] - max(p for s, p in enumerate(pts) if s != seat))


def _omnibus(state: GameState, lo: int, hi: int) -> bool:
    """True when the omnibus card of Hearts (its own -10) is ``lo`` or ``hi``."""
    card = getattr(state, "omnibus_card", -1)
    return card >= 0 and card in (lo, hi)


class SearchBot:
    """``choose(state, seat, rng)`` like the rule bots, by determinized search.

    ``budget``: seconds of ``clock`` per searched decision (CPU time of the searching thread by
    default, see levels.py); ``wall_limit``: seconds of wall time a decision may take at most,
    whatever the clock says (None: no limit); ``iterations``: exactly that many worlds instead
    of a budget (reproducible on any machine)."""

    def __init__(self, game: str, budget: float = 0.2, iterations: int | None = None,
                 min_worlds: int = 1, search_bids: bool = True,
                 clock: Callable[[], float] = time.thread_time, wall_limit: float | None = None,
                 keep_bias: float = 6.0, wall_clock: Callable[[], float] = time.perf_counter,
                 settle_z: float | None = 2.5) -> None:
        self.game = game
        self.info = catalog.info(game)
        self.rule = bot_for(game)
        self.budget = budget
        self.iterations = iterations
        self.min_worlds = min_worlds
        self.search_bids = search_bids
        self.keep_bias = keep_bias
        self.settle_z = settle_z  # stop early when the best leads every other by this many standard errors (None: never)
        self.clock = clock
        self.wall_limit = wall_limit
        self.wall_clock = wall_clock
        self.last_worlds = 0  # worlds searched at the last decision (for benchmarks)
        self.last_cut = False  # the last decision stopped at its budget or wall limit (for benchmarks)
        self.halving: tuple[int, ...] = (4, 8, 16)  # worlds after which the worse half of the candidates is dropped

    def _value(self, state: GameState, seat: int) -> float:
        """A finished rollout's result for ``seat`` (game modules' subclasses may score otherwise)."""
        return _value(state, seat, self.info.lower_total_wins)

    # ------------------------------------------------------------------ candidates
    def _play_out(self, world: GameState, seat: int, actions: Sequence[Action], seed: int,
                  value: Callable[[GameState, int], float], late: Callable[[], bool]) -> list[float]:
        """Each of ``actions`` played by ``seat`` in a copy of ``world`` and the rest of the hand
        by the rule bots in every seat, with the same random numbers for every action (common
        random numbers); the hands' values, fewer when ``late()`` says to stop."""
        got: list[float] = []
        for a in actions:
            w = world.copy()
            w.apply(a, seat)
            r = random.Random(seed)
            while w.phase not in ("deal", "over"):
                for p in w.turn_seats():
                    w.apply(self.rule.choose(w, p, r), p)
                    if w.phase in ("deal", "over"):
                        break
            got.append(value(w, seat))
            if late():
                break
        return got

    def _candidates(self, state: GameState, seat: int, legal: Sequence[Action],
                    rng: random.Random) -> list[Action] | None:
        phase = state.phase
        if phase == "play":
            # in card order: the engine's order of a hand is not part of what the seat knows
            return self._distinct(state, seat, sorted(dict.fromkeys(legal), key=lambda a: a.value))
        if phase == "bid" and self.search_bids:
            rule = self.rule.choose(state, seat, rng)
            if rule.kind != "bid":
                return None
            bids = {a.value for a in legal if a.kind == "bid"}
            want = [b for b in (rule.value, rule.value - 1, rule.value + 1) if b in bids]
            if rule.value > 0 and rule.value - 1 == 0:
                want = [b for b in want if b != 0]  # Nil is the rule bot's call only
            return [BIDS[b] for b in dict.fromkeys(want)]
        return None

    def _distinct(self, state: GameState, seat: int, plays: list[Action]) -> list[Action]:
        """One play per run of equivalent cards: cards of one suit with nothing between them
        but cards already played or held by the seat win and lose the same tricks (the lowest
        stands for the run). Not in Cancellation Hearts (identical cards cancel), and cards
        with their own points (the Q♠, the omnibus card) stand alone."""
        if self.info.cancels or len(plays) < 2:
            return plays
        known = mask_of(state.hand_of(seat))
        for _, a in state.actions:
            if a.kind == "play":
                known |= BIT[a.value]
        special = QS if self.info.point_cards else -1
        out = [plays[0]]
        for prev, a in zip(plays, plays[1:], strict=False):
            lo, hi = prev.value, a.value
            if lo // 13 == hi // 13 and lo != special and hi != special and not _omnibus(state, lo, hi):
                between = ((1 << hi) - 1) & ~((1 << (lo + 1)) - 1)
                if between & known == between:
                    continue
            out.append(a)
        return out

    # ------------------------------------------------------------------ the search
    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        legal = state.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has nothing to do now (phase {state.phase})")
        if len(legal) == 1:
            self.last_worlds = 0
            return legal[0]
        cands = self._candidates(state, seat, legal, rng)
        if cands is None:
            self.last_worlds = 0
            return self.rule.choose(state, seat, rng)
        if len(cands) == 1:
            self.last_worlds = 0
            return cands[0]
        return self._search(state, seat, cands, rng)

    def _sampler(self, state: GameState) -> Callable[[int, random.Random], GameState]:
        """The worlds to search: ``sample_world`` (the Spades bot draws spades-2p's with the
        prior that the opponent kept good cards)."""
        sample: Callable[[int, random.Random], GameState] = getattr(state, "sample_world")  # noqa: B009
        return sample

    def _weight(self, world: GameState, seat: int) -> float:
        """How likely ``world`` is against the others' public actions (importance weight; 1 here,
        game subclasses weigh by what they can read from bids)."""
        return 1.0

    def _run(self, state: GameState, seat: int, cands: list[Action], rng: random.Random,
             value: Callable[[GameState, int], float]) -> tuple[list[list[float]], list[float], list[int], int]:
        """The anytime search loop: worlds drawn one after another, every alive candidate
        rolled out in each (common random numbers), until ``iterations`` worlds, or the budget
        (no new world when it would likely end past it; a world still running when the budget
        or the wall limit is reached is dropped), or the answer has settled. Returns the values
        per candidate and world, the worlds' weights, the alive candidates and the worlds done."""
        sample = self._sampler(state)
        clock = self.clock
        start = clock()
        deadline = start + self.budget
        wall = self.wall_clock
        wall_start = wall()
        wall_end = wall_start + self.wall_limit if self.wall_limit is not None else None
        k = len(cands)
        vals: list[list[float]] = [[] for _ in range(k)]  # per candidate, per world
        wts: list[float] = []
        alive = list(range(k))
        worlds = 0
        timed = self.iterations is None
        self.last_cut = False

        def late() -> bool:
            if not timed:
                return False
            return clock() > deadline or (wall_end is not None and wall() > wall_end)

        while True:
            if not timed:
                if worlds >= self.iterations:  # type: ignore[operator]
                    break
            elif worlds >= self.min_worlds:
                now = clock()
                # stop when the next world would likely end past the budget (or the wall limit)
                if now + (now - start) / worlds > deadline:
                    self.last_cut = True
                    break
                if wall_end is not None:
                    w = wall()
                    if w + (w - wall_start) / worlds > wall_end:
                        self.last_cut = True
                        break
            world = sample(seat, rng)
            wt = self._weight(world, seat)
            seed = rng.randrange(1 << 30)
            got = self._play_out(world, seat, [cands[i] for i in alive], seed, value, late)
            if len(got) < len(alive):
                self.last_cut = True
                break
            for i, v in zip(alive, got, strict=True):
                vals[i].append(v)
            wts.append(wt)
            worlds += 1
            if len(alive) > 2 and worlds in self.halving:
                # successive halving: keep the better half for the rest of the budget
                alive.sort(key=lambda i: -_wmean(vals[i][-worlds:], wts))
                alive = alive[: max(2, (len(alive) + 1) // 2)]
            if timed and self.settle_z is not None and worlds >= 8 and _wsettled(vals, wts, alive, worlds,
                                                                                  self.settle_z):
                break
        self.last_worlds = worlds
        return vals, wts, alive, worlds

    def _search(self, state: GameState, seat: int, cands: list[Action], rng: random.Random) -> Action:
        vals, wts, alive, worlds = self._run(state, seat, cands, rng, self._value)
        if not worlds:  # not one world fitted in the time: the rule bot's choice
            return self.rule.choose(state, seat, rng)
        best = max(alive, key=lambda i: (_wmean(vals[i][-worlds:], wts), -i))
        return cands[best]


def _clearly_better(a: list[float], b: list[float], ws: list[float], z: float) -> bool:
    """True when ``a`` beats ``b`` by more than ``z`` standard errors of the weighted paired
    difference."""
    sw = sum(ws)
    if sw <= 0.0 or len(a) < 2:
        return False
    d = [x - y for x, y in zip(a, b, strict=True)]
    m = sum(x * w for x, w in zip(d, ws, strict=True)) / sw
    var = sum(w * (x - m) ** 2 for x, w in zip(d, ws, strict=True)) / sw
    n_eff = sw * sw / sum(w * w for w in ws)
    return m > z * (var / n_eff) ** 0.5 if var > 0.0 else m > 0.0


def _wmean(xs: list[float], ws: list[float]) -> float:
    """The weighted mean of the last len(xs) worlds (a candidate dropped early saw fewer)."""
    ws = ws[-len(xs):] if xs else ws
    tot = sum(ws)
    if tot <= 0.0:
        return sum(xs) / len(xs)
    return sum(x * w for x, w in zip(xs, ws, strict=True)) / tot


def _wsettled(vals: list[list[float]], wts: list[float], alive: list[int], worlds: int, z: float = 2.5) -> bool:
    """True when the best leads every other by 2.5 standard errors of
    the weighted paired difference (effective sample size (sum w)^2 / sum w^2), or all
    results have been identical for 12 worlds."""
    ws = wts[-worlds:]
    sw = sum(ws)
    if sw <= 0.0:
        return False
    n_eff = sw * sw / sum(w * w for w in ws)
    means = {i: _wmean(vals[i][-worlds:], ws) for i in alive}
    best = max(alive, key=lambda i: means[i])
    for j in alive:
        if j == best:
            continue
        d = [a - b for a, b in zip(vals[best][-worlds:], vals[j][-worlds:], strict=True)]
        m = sum(x * w for x, w in zip(d, ws, strict=True)) / sw
        var = sum(w * (x - m) ** 2 for x, w in zip(d, ws, strict=True)) / sw
        if var == 0.0:
            if m == 0.0 and worlds < 12:
                return False
            continue
        if n_eff < 4 or m < z * (var / n_eff) ** 0.5:
            return False
    return True
