"""Search bots for all five games: determinized Monte Carlo search with rule-bot rollouts.

At a decision the bot draws worlds from what its seat knows (``state.sample_world(seat,
rng)``: every card it has not seen dealt at random among the places it may be, consistently
with the play so far; engine/worlds.py and the Hearts games' own), and in each world plays
every candidate action followed by the rest of the hand with the rule bots in every seat
(the same random numbers for every candidate: common random numbers, so the comparison is
between the actions, not between lucky and unlucky rollouts). The candidate with the best
average result is played. Worlds are drawn until the time budget is spent (``budget``
seconds; at least ``min_worlds``), or exactly ``iterations`` worlds when that is given (tests
and reproducible benchmarks). Candidates that keep losing by a wide margin are dropped after a
few worlds (successive halving), so the budget goes to the close calls.

What is searched: card play in every game, and (``search_bids``) the bid in the Spades games
among the rule bot's bid and its neighbours. Passing, Blind/Double Nil, the spades-2p draw and
the moon choice are the rule bot's.

A rollout is scored when the hand ends, from the seat's side:

- Spades games: the side's total minus 10 per bag in its counter, minus the same for the other
  side (a bag costs 10 points in the long run: +1 now, -100 per 10);
- German Whist: the seat's points minus the opponent's, plus a tenth of the trick difference;
- Hearts games: minus the seat's points for the hand.

The bot reads nothing but ``state.legal_actions(seat)``, ``state.view(seat)`` (through the
rule bot on its own seat, which reads its hand and the public play) and
``state.sample_world(seat, rng)``; the rollouts run in the sampled worlds only.
``tests/engine/test_bots_search.py`` checks it: states that differ only in cards hidden from
the seat get the same decision for the same random numbers.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from ..actions import BIDS, Action
from ..base import GameState
from . import bot_for

# the levels the kiosk and ``trickref sim --bot-level`` offer: name -> search budget per
# decision in seconds (None: the rule bot)
LEVELS: dict[str, float | None] = {"rule": None, "search": 0.1, "strong": 0.2}
LEVEL_NAMES: tuple[str, ...] = tuple(LEVELS)


def _value(state: GameState, seat: int) -> float:
    """The finished hand's result for ``seat``'s side (see the module docstring)."""
    g = state.GAME_ID
    row = state.hand_results[-1]
    pts = row["points"]
    if g in ("spades-2p", "partnership-spades"):
        tot = row["totals"]
        bags = row["bags"]
        opp = (seat + 1) % state.n
        return float((tot[seat] - 10 * bags[seat]) - (tot[opp] - 10 * bags[opp]))
    if g == "german-whist":
        t2 = getattr(state, "tricks2")  # noqa: B009 - per-hand counters, still set after the hand
        return float(pts[seat] - pts[1 - seat]) + 0.1 * (t2[seat] - t2[1 - seat])
    return -float(pts[seat])


class SearchBot:
    """``choose(state, seat, rng)`` like the rule bots, by determinized search."""

    def __init__(self, game: str, budget: float = 0.2, iterations: int | None = None,
                 min_worlds: int = 1, search_bids: bool = True) -> None:
        self.game = game
        self.rule = bot_for(game)
        self.budget = budget
        self.iterations = iterations
        self.min_worlds = min_worlds
        self.search_bids = search_bids
        self.last_worlds = 0  # worlds searched at the last decision (for benchmarks)

    # ------------------------------------------------------------------ candidates
    def _candidates(self, state: GameState, seat: int, legal: Sequence[Action],
                    rng: random.Random) -> list[Action] | None:
        phase = state.phase
        if phase == "play":
            # in card order: the engine's order of a hand is not part of what the seat knows
            return sorted(dict.fromkeys(legal), key=lambda a: a.value)
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

    def _search(self, state: GameState, seat: int, cands: list[Action], rng: random.Random) -> Action:
        sample = getattr(state, "sample_world")  # noqa: B009 - every game has it
        start = time.perf_counter()
        deadline = start + self.budget
        k = len(cands)
        sums = [0.0] * k
        counts = [0] * k
        alive = list(range(k))
        worlds = 0
        rule = self.rule
        timed = self.iterations is None
        hard = start + 1.25 * self.budget  # a world still running then is dropped
        while True:
            if not timed:
                if worlds >= self.iterations:  # type: ignore[operator]
                    break
            elif worlds >= self.min_worlds:
                now = time.perf_counter()
                # stop when the next world would likely end past the budget
                if now + (now - start) / worlds > deadline:
                    break
            world = sample(seat, rng)
            seed = rng.randrange(1 << 30)
            got: list[float] = []
            for i in alive:
                w = world.copy()
                w.apply(cands[i], seat)
                r = random.Random(seed)
                while w.phase not in ("deal", "over"):
                    for p in w.turn_seats():
                        w.apply(rule.choose(w, p, r), p)
                        if w.phase in ("deal", "over"):
                            break
                got.append(_value(w, seat))
                if timed and worlds and time.perf_counter() > hard:
                    break
            if len(got) < len(alive):
                break
            for i, v in zip(alive, got, strict=True):
                sums[i] += v
                counts[i] += 1
            worlds += 1
            if len(alive) > 2 and worlds in (4, 8, 16):
                # successive halving: keep the better half for the rest of the budget
                alive.sort(key=lambda i: -sums[i] / counts[i])
                alive = alive[: max(2, (len(alive) + 1) // 2)]
        self.last_worlds = worlds
        best = max(alive, key=lambda i: (sums[i] / counts[i], -i))
        return cands[best]


def search_bot(game: str, level: str = "strong", **kw: Any) -> Any:
    """The bot of ``game`` at ``level`` (one of ``LEVELS``): the rule bot, or a SearchBot."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (one of {', '.join(LEVEL_NAMES)})")
    budget = LEVELS[level]
    if budget is None:
        return bot_for(game)
    return SearchBot(game, budget=budget, **kw)
