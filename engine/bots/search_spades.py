"""The search bot of the two Spades games: ``SearchBot`` with what these games need more.

On top of engine/bots/search.py (determinized search with rule-bot rollouts, common random
numbers, successive halving), for ``partnership-spades`` and ``spades-2p``:

- **Worlds weighted by the bidding** (importance sampling). A world is drawn as before
  (``sample_world``; in spades-2p with the prior that the opponent kept good cards), then
  weighted by how well each other seat's bid fits the hand the world gives it: the tricks
  that hand is worth (``estimate_tricks``, the rule bots' count) against the bid, a normal
  likelihood with ``bid_sigma`` tricks of spread, a Nil bid by whether the hand is a Nil
  hand; every weight has a floor (``bid_floor``), so a bidder who counts differently (a
  person) does not make the worlds wrong, only less sharp. Worlds keep every consistent
  holding possible; the weights only say which are likelier. Each candidate's result is the
  weighted mean over the worlds, and the early stop compares weighted paired differences.
- **The score state counts**: a rollout is valued by the side's chance of winning the whole
  game after the hand (a normal race model to the target: the lead, bags at 10 points each,
  against the spread of the hands still to come, about one per ``_GAIN`` points to the
  target), so near the target the search plays to win the game, not to pile up points; a
  hand that ends the game is a win (1) or a loss (0).
- **Bids**: the rule bot's bid and ``bid_spread`` either side, and Nil (when the hand could
  make it and the partner has not bid Nil), each rolled out to the end of the hand. In
  partnership-spades ``bid_spread`` is 0 by default (the rule bot's bid or Nil): searching the
  bids around it raised them by a trick in about a third of the bids, the side was set about
  twice as often as the rule bots' side, and it measured worse than not searching them (benchmarks/RESULTS.md, "Partnership Spades: the bid search");
  spades-2p keeps 2.
- **spades-2p worlds from the draw**: whether the opponent kept or discarded the card it was
  shown is public, so its kept-on-sight cards are drawn from the cards worth keeping and its
  discarded-on-sight cards from the others (``sample_2p_by_turns``), instead of one prior
  over its whole hand.
- **The rule bot's choice stands unless clearly beaten** (``trust_rule`` standard errors of
  the weighted paired difference): with a few dozen worlds the noise would otherwise
  overturn good rule-bot plays.
- **The spades-2p draw** can be searched (``search_draw``: keep or discard, the rest of the
  draw, the bidding and the play rolled out by the rule bots); off by default, since it lost
  points to the rule bot's draw in development runs. Double Nil stays the rule bot's call.

What the seat reads is what ``SearchBot`` reads: its legal actions, its own hand and the
public play (through the rule bot on its own seat and the public bids), and the worlds of
``sample_world``; tests/engine/test_bots_search.py checks every searched phase.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from .. import catalog
from ..actions import BIDS, DOUBLE_NIL, Action
from ..base import GameState
from ..masks import ALL_CARDS, BIT, cards_of
from ..spades_core import SScorer, finish, from_state
from ..worlds import KEEPERS, place, rebuild, sample_spades_2p, spades_play_limits
from ._spades_play import estimate_tricks, nil_hand
from .search import SearchBot, _clearly_better, _wmean

# the race model (each game's descriptor, ``GameInfo.bot_params``): ``gain``, the points a side
# gains in an average hand, and ``spread``, the spread of one hand's difference between the
# sides (from benchmarks/bots.py runs of these bots)


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def win_chance(game: str, me: float, opp: float, target: int, over: bool, won: bool) -> float:
    """The side's chance of winning the game with ``me`` and ``opp`` points (bags already
    taken off), ``over``/``won`` when the game has ended."""
    if over:
        return 1.0 if won else 0.0
    race = catalog.info(game).bot_params
    lead = max(me, opp)
    hands = max(0.5, (target - lead) / race["gain"] + 0.5)
    return _phi((me - opp) / (race["spread"] * math.sqrt(hands)))


def sample_2p_by_turns(state: Any, seat: int, rng: random.Random, bias: float) -> Any:
    """A spades-2p world for ``seat`` in which the opponent drew like the rule bot: on each of
    its turns it kept the top card only when it was worth keeping (``KEEPERS``: spades from
    the five up, queens and better) and otherwise discarded it and took the next, unseen one.
    Whether it kept or discarded is public, so the cards it kept on a keep turn are ``bias``
    times likelier to be keepers, the cards it discarded on a discard turn ``bias`` times
    likelier not to be; the card it took blind after a discard, the card it threw blind after
    a keep and the stock are drawn without a prior. Every consistent holding can still come
    out (the prior is a weight, not a rule). After an opponent's Double Nil exchange (it may
    hold cards of the discard pile) the plain ``sample_spades_2p`` world is used."""
    if state.phase in ("deal", "over") or state.double[1 - seat] or state.exchanged[1 - seat] > 0:
        return sample_spades_2p(state, seat, rng, keep_bias=6.0)
    opp = 1 - seat
    deck = state.deck
    turns: list[tuple[int, int, bool]] = []
    ex_at = -1
    for i, (p, a) in enumerate(state.actions):
        if a.kind == "draw":
            turns.append((len(turns), p, a.value == "keep"))
        elif a.kind == "exchange" and p == seat:
            ex_at = i
    seen = 0  # both cards of each of this seat's turns
    for t, p, _ in turns:
        if p == seat:
            seen |= BIT[deck[2 * t]] | BIT[deck[2 * t + 1]]
    pos = 2 * len(turns)
    shown = deck[pos] if state.phase == "draw" and state.on_turn == (seat,) else -1
    r_s = 0
    if ex_at >= 0:  # our own Double Nil exchange: cards taken from the pile are ours now
        give, get = state.exchange_log[seat]
        r_s = sum(BIT[c] for c in get)
    tricks = [*state.tricks, state.trick]
    played_o = 0
    gone = 0
    for trick in tricks:
        for p, c in trick:
            gone |= BIT[c]
            if p == opp:
                played_o |= BIT[c]
    allowed = spades_play_limits(tricks, 2, state.trump, False)[opp]
    hidden_m = ALL_CARDS & ~seen & ~r_s & ~gone & ~(BIT[shown] if shown >= 0 else 0)
    # opponent cards taken from the pile by our exchange were among its discards
    got_o = r_s & ~seen
    opp_turns = [(t, keep) for t, p, keep in turns if p == opp]
    n_keep = sum(1 for _, k in opp_turns if k)
    n_disc = len(opp_turns) - n_keep
    kept_played = played_o  # cards already played came from its hand: which turn is open
    hidden = cards_of(hidden_m)
    # groups: 0 kept on a keep turn, 1 kept blind after a discard, 2 thrown on a discard
    # turn, 3 thrown blind after a keep, 4 the stock; the played cards are already placed
    # in the hand and take places of groups 0/1 (by the same prior)
    pk = cards_of(kept_played)
    caps = [n_keep, n_disc, n_disc, n_keep, 52 - pos - (1 if shown >= 0 else 0)]
    g01 = [0] * len(pk)
    if pk:
        # assign played cards to keep/blind turns with the prior, within the capacities
        order = list(range(len(pk)))
        rng.shuffle(order)
        left = [n_keep, n_disc]
        for i in order:
            c = pk[i]
            wk = left[0] * (bias if KEEPERS >> c & 1 else 1.0)
            wb = float(left[1])
            j = 0 if rng.random() * (wk + wb) < wk else 1
            if not left[j]:
                j = 1 - j
            left[j] -= 1
            g01[i] = j
        caps[0], caps[1] = left
    # cards our exchange took from the pile were thrown by the opponent (groups 2/3)
    got = cards_of(got_o)
    thrown_fixed = [0] * len(got)
    if got:
        left2 = [caps[2], caps[3]]
        for i, c in enumerate(got):
            w2 = left2[0] * (bias if not KEEPERS >> c & 1 else 1.0)
            j = 0 if rng.random() * (w2 + left2[1]) < w2 else 1
            if not left2[j]:
                j = 1 - j
            left2[j] -= 1
            thrown_fixed[i] = 2 + j
        caps[2], caps[3] = left2
    masks = [allowed, allowed, ALL_CARDS, ALL_CARDS, ALL_CARDS]
    favour = [(KEEPERS, bias), (0, 1.0), (ALL_CARDS & ~KEEPERS, bias), (0, 1.0), (0, 1.0)]
    where = place(hidden, masks, caps, rng, favour)
    groups: list[list[int]] = [[], [], [], [], []]
    for c, j in zip(pk, g01, strict=True):
        groups[j].append(c)
    for c, j in zip(got, thrown_fixed, strict=True):
        groups[j].append(c)
    for c, j in zip(hidden, where, strict=True):
        groups[j].append(c)
    for g in groups:
        rng.shuffle(g)
    new = deck[:pos] + [0] * (52 - pos)
    for t, keep in opp_turns:
        if keep:
            new[2 * t], new[2 * t + 1] = groups[0].pop(), groups[3].pop()
        else:
            new[2 * t], new[2 * t + 1] = groups[2].pop(), groups[1].pop()
    if pos < 52:
        new[pos:] = ([shown] if shown >= 0 else []) + groups[4]
    return rebuild(state, new, {})


class SpadesSearchBot(SearchBot):
    """``SearchBot`` for the Spades games (see the module docstring)."""

    def __init__(self, game: str, bid_sigma: float = 0.5, bid_floor: float = 0.05, turn_bias: float = 200.0, trust_rule: float = 2.0,
                 search_draw: bool = False, game_value: bool = True, bid_spread: int | None = None,
                 search_nil: bool = True, core: bool = True, solve_at: int = 4, **kw: Any) -> None:
        info = catalog.info(game)
        if not info.has_bags or "gain" not in info.bot_params:
            raise ValueError(f"SpadesSearchBot plays the Spades games (bids, bags and a race model), not {game!r}")
        super().__init__(game, **kw)
        self.bid_sigma = bid_sigma
        self.bid_floor = bid_floor
        self.search_draw = search_draw
        self.game_value = game_value
        # the numbers searched either side of the rule bot's bid (partnership: none, see above)
        self.bid_spread = bid_spread if bid_spread is not None else (0 if info.teams else 2)
        self.search_nil = search_nil
        self.turn_bias = turn_bias
        self.trust_rule = trust_rule
        self.core = core  # rollouts on engine/spades_core.py once the play has begun
        self.solve_at = solve_at  # on the core: the seat's own last plays searched from this many cards

    def _sampler(self, state: GameState) -> Callable[[int, random.Random], GameState]:
        if self.info.stock == "draw":  # the draw: worlds fit what the opponent kept
            if self.turn_bias > 0:
                return lambda seat, rng: sample_2p_by_turns(state, seat, rng, self.turn_bias)
            return lambda seat, rng: sample_spades_2p(state, seat, rng, keep_bias=self.keep_bias)
        return super()._sampler(state)

    def _value(self, state: GameState, seat: int) -> float:
        """The side's total minus 10 per bag in its counter, minus the same for the other side."""
        row = state.hand_results[-1]
        tot, bags = row["totals"], row["bags"]
        opp = (seat + 1) % state.n
        return float((tot[seat] - 10 * bags[seat]) - (tot[opp] - 10 * bags[opp]))

    # ------------------------------------------------------------------ candidates
    def _candidates(self, state: GameState, seat: int, legal: Sequence[Action],
                    rng: random.Random) -> list[Action] | None:
        phase = state.phase
        if phase == "draw":
            if not self.search_draw:
                return None
            rule = self.rule.choose(state, seat, rng)
            if rule == DOUBLE_NIL:
                return None
            return [a for a in legal if a != DOUBLE_NIL]
        if phase == "bid" and self.search_bids:
            rule = self.rule.choose(state, seat, rng)
            if rule.kind != "bid":
                return None  # Blind Nil: the rule bot's call
            bids = {a.value for a in legal if a.kind == "bid"}
            want = [rule.value]
            for d in range(1, self.bid_spread + 1):
                want += [rule.value - d, rule.value + d]
            want = [b for b in want if b > 0 and b in bids]
            if rule.value == 0:
                want.insert(0, 0)
            elif self.search_nil and 0 in bids and self._nil_thinkable(state, seat):
                want.append(0)
            return [BIDS[b] for b in dict.fromkeys(want)]
        return super()._candidates(state, seat, legal, rng)

    def _nil_thinkable(self, state: GameState, seat: int) -> bool:
        """A Nil worth searching: no partner Nil, and a hand of few tricks without the top
        trumps."""
        if self.info.teams:
            bids = getattr(state, "bids")  # noqa: B009
            if bids[(seat + 2) % 4] == 0:
                return False
        trump = getattr(state, "trump")  # noqa: B009
        held = list(state.hand_of(seat))
        if any(c // 13 == trump and c % 13 >= 10 for c in held):
            return False
        players = state.n
        return estimate_tricks(held, trump, players) < 2.0

    # ------------------------------------------------------------------ world weights
    def _weight(self, world: GameState, seat: int) -> float:
        """How well the other seats' bids fit the hands this world gives them (1 before
        any bid, or after a Blind Nil's pass has changed hands since the bidding)."""
        bids: list[int] = getattr(world, "bids")  # noqa: B009
        if self.info.teams:
            if any(getattr(world, "blind")):  # noqa: B009 - hands changed after the bids
                return 1.0
            double = [False] * 4
            players = 4
        else:
            double = getattr(world, "double")  # noqa: B009
            players = 2
        trump: int = getattr(world, "trump")  # noqa: B009
        masks: list[int] = getattr(world, "masks")  # noqa: B009
        played = [0] * world.n
        for trick in [*getattr(world, "tricks"), getattr(world, "trick")]:  # noqa: B009
            for p, c in trick:
                played[p] |= 1 << c
        w = 1.0
        sig2 = 2.0 * self.bid_sigma ** 2
        for p in range(world.n):
            b = bids[p]
            if p == seat or b < 0 or double[p]:
                continue
            held = cards_of(masks[p] | played[p])
            est = estimate_tricks(held, trump, players)
            if b == 0:
                like = 1.0 if (est < 1.5 and nil_hand(held, trump)) else 0.0
            else:
                # the rule bots bid round(est), at least 1: distance from that bid's interval
                lo = -math.inf if b == 1 else b - 0.5
                d = lo - est if est < lo else max(0.0, est - (b + 0.5))
                like = math.exp(-d * d / sig2)
            w *= self.bid_floor + (1.0 - self.bid_floor) * like
        return w

    # ------------------------------------------------------------------ rollout value
    def _rollout_value(self, w: GameState, seat: int) -> float:
        row = w.hand_results[-1]
        tot = row["totals"]
        bags = row["bags"]
        opp = (seat + 1) % w.n
        me_eff = tot[seat] - 10 * bags[seat]
        opp_eff = tot[opp] - 10 * bags[opp]
        if not self.game_value:
            return float(me_eff - opp_eff)
        target = w.options["target"]
        won = bool(w.winners) and (seat in w.winners)
        return 1000.0 * win_chance(self.game, me_eff, opp_eff, target, w.over, won)

    # ------------------------------------------------------------------ rollouts on the core
    def _scorer(self, state: GameState, seat: int) -> SScorer:
        """The core's value of a finished hand, as ``_rollout_value`` (``state`` in its play
        phase: the bids are made)."""
        st: Any = state
        flags = list(st.blind) if state.n == 4 else list(st.double)
        return SScorer(self.game, seat, state.totals[:], list(st.bags), list(st.bids), flags, dict(state.options),
                       self.game_value, self.info.bot_params["gain"], self.info.bot_params["spread"])

    def _play_out(self, world: GameState, seat: int, actions: Sequence[Action], seed: int,
                  value: Callable[[GameState, int], float], late: Callable[[], bool]) -> list[float]:
        """Each of ``actions`` in ``world``, the rest of the hand's bidding and drawing by the
        rule bots on the engine, then its play on the core (its rule bots, the seat's own last
        cards searched exactly)."""
        if not self.core:
            return super()._play_out(world, seat, actions, seed, value, late)
        got: list[float] = []
        start = None
        scorer = None
        if world.phase == "play":
            start = from_state(world)
            scorer = self._scorer(world, seat)
        for a in actions:
            if start is not None and scorer is not None:
                core = start.copy()
                core.play(a.value)
                got.append(finish(core, scorer, self.solve_at))
            else:
                w = world.copy()
                w.apply(a, seat)
                r = random.Random(seed)
                while w.phase not in ("play", "deal", "over"):
                    for p in w.turn_seats():
                        w.apply(self.rule.choose(w, p, r), p)
                        if w.phase in ("play", "deal", "over"):
                            break
                if w.phase == "play":
                    got.append(finish(from_state(w), self._scorer(w, seat), self.solve_at))
                else:
                    got.append(value(w, seat))
            if late():
                break
        return got

    # ------------------------------------------------------------------ the search
    def _search(self, state: GameState, seat: int, cands: list[Action], rng: random.Random) -> Action:
        vals, wts, alive, worlds = self._run(state, seat, cands, rng, self._rollout_value)
        if not worlds:
            return self.rule.choose(state, seat, rng)
        best = max(alive, key=lambda i: (_wmean(vals[i][-worlds:], wts), -i))
        if self.trust_rule > 0:
            # the rule bot's choice stands unless the best beats it clearly (by ``trust_rule``
            # standard errors of the weighted paired difference): the noise of a few worlds
            # should not overturn a good policy
            ra = self.rule.choose(state, seat, random.Random(0))
            ri = next((i for i, c in enumerate(cands) if c == ra), -1)
            if ri < 0 and ra.kind == "play":  # a card of a run: the run's lowest stands for it
                ri = max((i for i, c in enumerate(cands) if c.kind == "play" and c.value // 13 == ra.value // 13
                         and c.value <= ra.value), key=lambda i: cands[i].value, default=-1)
            if ri >= 0 and ri != best and len(vals[ri]) >= worlds:
                if not _clearly_better(vals[best][-worlds:], vals[ri][-worlds:], wts[-worlds:], self.trust_rule):
                    best = ri
        return cands[best]
