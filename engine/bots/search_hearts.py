"""The search bot of the two Hearts games: engine/bots/search.py's determinized search with
three additions, each measured in benchmarks/bots.py (figures in benchmarks/RESULTS.md):

- **Worlds that fit how the others played** (off by default, ``infer``). The hidden cards are dealt as
  ``sample_world`` deals them, with one more constraint per seat: what that seat's plays say
  about its hand *if it played like the rule bot* (engine/bots/_hearts_play.py), the opponent
  model the rollouts use anyway. A card followed that did not win means no card of the suit
  between it and the winning card (the rule bot ducks with its highest losing card); a card
  that won although a losing one was possible never happens, so no losing card was held; a
  discard other than the Q♠ means no Q♠, a discard of a heart no higher heart, a discard of
  a plain card no heart (and no A♠/K♠ while a Q♠ was out); a lead means no card that costs
  less by the rule bot's lead order, whatever the unknown suit lengths. (What a pass says is
  not used: the passer's hand now holds what it received, as dangerous as what it passed.)
  When those constraints leave no consistent holding (a seat that does not
  play like the rule bot, a human say), the world is drawn without them. The constraints are
  computed from the public play and this seat's own passes only (``view(seat)`` knowledge).
  With ``infer="soft"`` they are a likelihood instead of a wall: worlds are drawn without
  them and each weighs ``soft_eps`` for every play of another seat it contradicts (the model:
  a seat plays the rule bot's card, or with chance ``soft_eps`` something else), so a seat
  that plays otherwise (a person, OpenSpiel's ISMCTS) bends the worlds without ruling out
  the hand it really holds. Measured (benchmarks/RESULTS.md, 2026-12-03), neither way is
  clearly better: against rule bots (4-player Hearts, 180 hands) 3.62 points a hand with them,
  4.26 without (+0.64, 95% +-0.95), 4.49 soft; at OpenSpiel's table against ISMCTS (200
  deals, 2 v 2) our seats' points minus ISMCTS's 0.83 better without them (+-0.94). The
  bot plays people, who are not the rule bot, so it does without a model that is right only
  about the rule bot.
- **The pass is searched.** Candidates: every 3 of the rule bot's 6 most dangerous cards
  (``pass_pool``), the rule bot's pass first; each is played in sampled worlds (the others' passes still
  hidden) followed by the whole hand with rule bots, like a card.
- **A hand is scored relative to the table**: minus the seat's points plus the average of the
  others' (the same as minus its points when nobody shoots the moon; a moon shot by another
  seat, or one stopped, counts as it does at the table).

The bot reads nothing but ``state.legal_actions(seat)``, ``state.view(seat)``'s knowledge
(its own hand and passes, the public play) and ``state.sample_world(seat, rng)``;
``tests/engine/test_bots_search.py`` checks it on card play and passes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from .. import catalog
from ..actions import Action, pass_cards
from ..base import GameState
from ..cards import HEARTS, QS, SPADES
from ..chearts_core import CCore
from ..chearts_core import finish as cc_finish
from ..chearts_core import from_state as cc_from_state
from ..hearts_common import PASS_COUNT, POINTS
from ..hearts_core import Core, Scorer, Worlds, count, finish, from_state
from ..masks import mask_of
from ..rand import Rand
from ._hearts_play import AS, KS, HeartsBot, rank, trick_winner_index
from .search import SearchBot

SUIT = [sum(1 << (s * 13 + r) for r in range(13)) for s in range(4)]


def _lead_bounds(c: int) -> tuple[float, float]:
    """The least and most the rule bot's lead cost of card ``c`` can be, whatever it does not
    tell (its suit lengths, whether it holds the Q♠ or a high spade, a Q♠ still out)."""
    s, r = c // 13, rank(c)
    if s == HEARTS:
        return r + 4 - 1.3, r + 4 - 0.1
    if s == SPADES:
        if c == QS:
            return r + 40 - 1.3, r + 40 - 0.1
        if c in (AS, KS):
            return r - 1.3, r + 30 - 0.1
        return r - 3 - 1.3, r - 0.1
    return r - 1.3, r - 0.1


def rule_inferences(state: GameState, seat: int, cancellation: bool) -> list[int]:
    """Per seat, a mask of cards that seat cannot hold now if it played like the rule bot; 0 for
    ``seat`` itself, and 0 for a seat that has shown it does not play like the rule bot (it
    played a card the rule bot's play would have ruled out earlier: a person, another
    program). Read from the public trick history only."""
    out = []
    for masks in rule_inference_plays(state, seat, cancellation):
        m = 0
        for x in masks:
            m |= x
        out.append(m)
    return out


def rule_inference_plays(state: GameState, seat: int, cancellation: bool) -> list[list[int]]:
    """``rule_inferences`` play by play: per seat, for each of its plays that says something,
    the cards that play says it did not hold (if it played like the rule bot); none for
    ``seat`` and for a seat that has shown it does not play like the rule bot."""
    n = state.n
    avoid = [0] * n
    per: list[list[int]] = [[] for _ in range(n)]
    unlike = [False] * n
    tricks: list[tuple[int, list[int]]] = [(lead, list(cards)) for lead, cards, _ in getattr(state, "tricks")]  # noqa: B009
    current: list[int] = list(getattr(state, "trick"))  # noqa: B009
    if current:
        tricks.append((getattr(state, "leader"), current))  # noqa: B009
    qs_played = 0
    decks = state.DECKS
    broken = False
    led_before = [0, 0, 0, 0]  # tricks led in each suit before
    for t, (leader, cards) in enumerate(tricks):
        for i, c in enumerate(cards):
            p = (leader + i) % n
            if p != seat and avoid[p] >> c & 1:
                unlike[p] = True  # it held a card its earlier plays said it did not
            if p != seat and t > 0 and not unlike[p]:
                said = _play_inference(cards[:i], c, n, cancellation, broken, qs_played < decks, led_before)
                if said:
                    avoid[p] |= said
                    per[p].append(said)
            if c == QS:
                qs_played += 1
            if POINTS[c]:
                broken = True
        led_before[cards[0] // 13] += 1
    return [[] if unlike[p] or p == seat else per[p] for p in range(n)]


def _play_inference(prefix: list[int], c: int, n: int, cancellation: bool, broken: bool, qs_out: bool,
                    led_before: list[int]) -> int:
    """The cards the player of ``c`` (after ``prefix`` in the trick) did not hold, if it
    played like the rule bot; ``qs_out``: a Q♠ not played yet (the player's own unknown)."""
    out = 0
    if not prefix:  # a lead: no card that the rule bot would have led first
        lo_c = _lead_bounds(c)[0]
        s = c // 13
        for x in range(52):
            if x == c:
                continue
            if x // 13 == s:
                # same suit: the same length and conditions; a lower card costs less, but for
                # the Q♠ under a led A♠/K♠
                if x < c and not (x == QS and c in (AS, KS)) and not (c == KS and x == AS):
                    out |= 1 << x
                elif c == QS and x // 13 == SPADES:
                    out |= 1 << x  # the Q♠ costs more than every other spade
            elif x // 13 == HEARTS and not broken:
                continue  # hearts could not be led
            elif _lead_bounds(x)[1] < lo_c:
                out |= 1 << x
        return out
    led = prefix[0] // 13
    if c // 13 == led:
        me = len(prefix)
        suit = [led * 13 + r for r in range(13)]
        losing = [x for x in suit if trick_winner_index(prefix + [x], cancellation) != me]
        wins = trick_winner_index(prefix + [c], cancellation) == me
        if not wins:
            for x in losing:
                if rank(x) > rank(c):
                    out |= 1 << x  # the rule bot ducks with its highest losing card
            return out
        for x in losing:
            out |= 1 << x  # it had no card that loses
        if cancellation:
            return out
        winning = [x for x in suit if x not in losing]
        last = me == n - 1
        if c == QS or (led == SPADES and not last):
            return out  # (whether it thinks a Q♠ is out depends on its own hand)
        if last or (sum(POINTS[x] for x in prefix) == 0 and led != HEARTS and led_before[led] == 0):
            out |= sum(1 << x for x in winning if x > c and x != QS)  # it plays its highest safe card
        else:
            out |= sum(1 << x for x in winning if x < c)  # its lowest winning card
        return out
    # a discard (void in the suit led; not on the first trick, where points may be barred)
    if c == QS:
        return out
    out |= 1 << QS
    if c // 13 == HEARTS:
        out |= sum(1 << x for x in range(c + 1, (c // 13 + 1) * 13))
        if qs_out:
            out |= (1 << AS) | (1 << KS)
    elif c not in (AS, KS) or not qs_out:
        out |= SUIT[HEARTS]
        if qs_out:
            out |= (1 << AS) | (1 << KS)
    elif c == KS:
        out |= 1 << AS
    return out


class HeartsSearchBot(SearchBot):
    """SearchBot for the Hearts games (Hearts, Cancellation Hearts) with the additions above, each one
    switchable for measurements (``infer``, ``search_pass``, ``relative``)."""

    def __init__(self, game: str, *, infer: bool | str = False, search_pass: bool = True, relative: bool = True,
                 pass_pool: int = 6, core: bool = True, solve_at: int = 4, soft_eps: float = 0.25,
                 **kw: Any) -> None:
        if not catalog.info(game).point_cards:
            raise ValueError(f"HeartsSearchBot plays the Hearts games (hearts and the Q\u2660 score), not {game!r}")
        if catalog.info(game).cancels:
            # Cancellation Hearts spends its whole budget: the early stop (a card clearly best
            # after 8+ worlds) cost it about a third of its edge over the rule bots at the
            # Pi-4-sized budget (benchmarks/RESULTS.md, 2026-12-03: 27% v 39% fewer points
            # over 432 hands of development seeds); a budget still ends every decision
            kw.setdefault("settle_z", None)
        super().__init__(game, **kw)
        # True: worlds drawn within the inferences; "soft": weighted by them; False (the default: a
        # model that is right only about the rule bot; measured both ways in benchmarks/RESULTS.md): not used
        self.infer = infer
        self.soft_eps = soft_eps  # "soft": the chance a seat's play was not the rule bot's (per play)
        self._soft: list[list[int]] = []  # "soft": the inferences of the decision, per seat and play
        self.search_pass = search_pass
        self.relative = relative
        self.pass_pool = pass_pool
        self.cancellation = self.info.cancels
        self.fallbacks = 0  # worlds drawn without the inferences (they did not fit)
        self.core = core  # play searched on engine/hearts_core.py (chearts_core.py with two decks)
        self.solve_at = solve_at  # on the core: the seat's own last plays searched from this many cards
        if self.core:
            self.halving = (8, 16, 32)  # worlds are cheap on the core: candidates are dropped on more evidence

    def _candidates(self, state: GameState, seat: int, legal: Sequence[Action],
                    rng: random.Random) -> list[Action] | None:
        if state.phase == "pass":
            return self._pass_candidates(state, seat) if self.search_pass else None
        return super()._candidates(state, seat, legal, rng)

    def _pass_candidates(self, state: GameState, seat: int) -> list[Action]:
        rule = self.rule
        assert isinstance(rule, HeartsBot)
        first = rule.choose_pass(state, seat)
        hand = state.hand_of(seat)
        # the rule bot's danger order: its pass is the first three; others from its first few
        order: list[int] = []
        for c in first.value:
            order.append(c)
        rest = [c for c in sorted(hand, key=lambda c: -c) if c not in order]
        ranked = sorted(rest, key=lambda c: -_danger_of(rule, state, seat, c))
        pool = list(dict.fromkeys(order + ranked))[: self.pass_pool]
        cands = [first]
        seen = {tuple(sorted(first.value))}
        for combo in combinations(pool, PASS_COUNT):
            key = tuple(sorted(combo))
            if key in seen:
                continue
            seen.add(key)
            cands.append(pass_cards(list(key)))
        return cands

    def _sampler(self, state: GameState) -> Callable[[int, random.Random], Any]:
        if self.core and state.phase == "play":
            return self._cc_sampler(state) if self.cancellation else self._core_sampler(state)
        sample: Callable[..., GameState] = getattr(state, "sample_world")  # noqa: B009
        if not self.infer or state.phase not in ("play", "pass"):
            return sample
        if self.infer == "soft":
            self._soft = []
            soft_box: list[bool] = []

            def soft_draw(seat: int, rng: random.Random) -> GameState:
                if not soft_box and state.phase == "play":
                    soft_box.append(True)
                    self._soft = rule_inference_plays(state, seat, self.cancellation)
                return sample(seat, rng)

            return soft_draw
        avoid: list[list[int]] = []

        def draw(seat: int, rng: random.Random) -> GameState:
            if not avoid:
                avoid.append(rule_inferences(state, seat, self.cancellation))
            if any(avoid[0]):
                try:
                    return sample(seat, rng, avoid=avoid[0])
                except AssertionError:  # no holding fits them: a seat that does not play like the rule bot
                    avoid[0] = [0] * state.n
                    self.fallbacks += 1
            return sample(seat, rng)

        return draw

    def _pass_out(self, world: GameState, seat: int, actions: Sequence[Action], seed: int,
                  late: Callable[[], bool]) -> list[float]:
        """Each pass of ``actions`` in ``world``, the others' passes by the rule bot, then the
        hand played out on the core (as a card search does)."""
        o = world.options
        scorer = Scorer(seat, world.totals[:], o["target"], o["moon_self"], o["moon_others"],
                        bool(o.get("omnibus", False)), self.relative, 52 if self.cancellation else 26)
        got: list[float] = []
        for a in actions:
            w = world.copy()
            w.apply(a, seat)
            r = random.Random(seed)
            while w.phase == "pass":
                for p in w.turn_seats():
                    w.apply(self.rule.choose(w, p, r), p)
            if self.cancellation:
                got.append(cc_finish(cc_from_state(w), scorer, self.solve_at))
            else:
                got.append(finish(from_state(w), scorer, self.solve_at))
            if late():
                break
        return got

    def _value(self, state: GameState, seat: int) -> float:
        return self._score(state.hand_results[-1]["points"], seat)

    def _score(self, pts: Sequence[int], seat: int) -> float:
        if not self.relative:
            return -float(pts[seat])
        return (sum(pts) - pts[seat]) / (len(pts) - 1) - pts[seat]

    # ------------------------------------------------------------------ play on the core
    def _cc_sampler(self, state: GameState) -> Callable[[int, random.Random], Any]:
        """Cancellation Hearts: worlds as chearts_core positions, their hands drawn as
        ``sample_world`` draws them (``sample_holdings``, with the rule-bot inferences as
        ``avoid`` while they fit)."""
        base = cc_from_state(state)
        cs: Any = state
        box: list[Any] = []

        def draw(seat: int, rng: random.Random) -> Any:
            if not box:
                avoid = rule_inferences(state, seat, True) if self.infer is True else None
                self._soft = rule_inference_plays(state, seat, True) if self.infer == "soft" else []
                o = state.options
                box.extend((avoid if avoid is not None and any(avoid) else None, None,
                            Scorer(seat, state.totals[:], o["target"], o["moon_self"], o["moon_others"], False,
                                   self.relative, 52)))
            if box[0] is not None:
                try:
                    if box[1] is None:  # what every world of this decision has in common, once
                        box[1] = cs.holdings_sampler(seat, box[0])
                    once, twice, widow = box[1].holdings(rng)
                except AssertionError:  # no holding fits: a seat that does not play like the rule bot
                    box[0] = box[1] = None
                    self.fallbacks += 1
            if box[0] is None:
                if box[1] is None:
                    box[1] = cs.holdings_sampler(seat)
                once, twice, widow = box[1].holdings(rng)
            pts = 0
            for c in widow:
                pts += POINTS[c]
            return base.with_hands(once, twice, pts if base.widow_on else 0)

        self._core_box = box
        return draw

    def _core_sampler(self, state: GameState) -> Callable[[int, random.Random], Any]:
        """Worlds as hearts_core positions: the hidden cards dealt within what the seat knows
        (``HeartsState.hidden_knowledge``, the rule-bot inferences as ``avoid``), each world
        the position with those hands."""
        base = from_state(state)
        hs: Any = state
        n = state.n
        box: list[Any] = []

        def draw(seat: int, rng: random.Random) -> Any:
            if not box:
                avoid = rule_inferences(state, seat, False) if self.infer is True else None
                self._soft = rule_inference_plays(state, seat, False) if self.infer == "soft" else []
                worlds = None
                for av in ((avoid, None) if avoid is not None and any(avoid) else (None,)):
                    _played, allowed, known, hidden = hs.hidden_knowledge(seat, av)
                    own = hs.masks[seat]
                    fixed = [own if p == seat else known[p] for p in range(n)]
                    caps = [0 if p == seat else hs._hand_size(p) - count(known[p]) for p in range(n)]
                    try:
                        worlds = Worlds(n, seat, fixed, allowed, caps, hidden)
                        break
                    except AssertionError:  # no holding fits: a seat that does not play like the rule bot
                        self.fallbacks += 1
                assert worlds is not None
                o = state.options
                box.extend((worlds, Rand(rng.getrandbits(32)),
                            Scorer(seat, state.totals[:], o["target"], o["moon_self"], o["moon_others"], o["omnibus"],
                                   self.relative)))
            return base.with_hands(box[0].deal(box[1]))

        self._core_box = box
        return draw

    def _weight(self, world: Any, seat: int) -> float:
        """With soft inferences: the likelihood of the others' plays in ``world`` if each play was
        the rule bot's with chance 1 - ``soft_eps`` (a play that says its seat did not hold
        a card the world gives it counts ``soft_eps``); 1 otherwise."""
        soft = self._soft
        if not soft:
            return 1.0
        if isinstance(world, Core):
            hands = world.hands
        elif isinstance(world, CCore):
            hands = world.once  # the cards each seat holds (once or twice)
        else:
            hands = [mask_of(sorted(set(world.hand_of(p)))) for p in range(world.n)]
        w = 1.0
        eps = self.soft_eps
        for p in range(len(soft)):
            h = hands[p]
            for m in soft[p]:
                if h & m:
                    w *= eps
        return w

    def _play_out(self, world: Any, seat: int, actions: Sequence[Action], seed: int,
                  value: Callable[[GameState, int], float], late: Callable[[], bool]) -> list[float]:
        if isinstance(world, CCore):
            cscorer = self._core_box[2]
            cgot: list[float] = []
            for a in actions:
                cw = world.copy()
                cw.play(a.value)
                cgot.append(cc_finish(cw, cscorer, self.solve_at))
                if late():
                    break
            return cgot
        if not isinstance(world, Core):
            if self.core and world.phase == "pass":
                return self._pass_out(world, seat, actions, seed, late)
            return super()._play_out(world, seat, actions, seed, value, late)
        scorer = self._core_box[2]
        got: list[float] = []
        for a in actions:
            w = world.copy()
            w.play(a.value)
            got.append(finish(w, scorer, self.solve_at))
            if late():
                break
        return got


def _danger_of(rule: HeartsBot, state: GameState, seat: int, c: int) -> float:
    """The rule bot's pass danger of card ``c`` in ``seat``'s hand (HeartsBot.choose_pass)."""
    hand = state.hand_of(seat)
    low_spades = sum(1 for x in hand if x // 13 == SPADES and x < QS)
    s, r = c // 13, rank(c)
    if c == QS:
        return 100.0 if low_spades < 4 else 25.0
    if c in (AS, KS):
        return 80.0 + r if low_spades < 4 else 20.0 + r
    if s == HEARTS:
        return (40.0 + r) if r >= 10 else float(r)
    if s == SPADES:
        return float(r) - 5
    return r + (12.0 if sum(1 for x in hand if x // 13 == s) <= 2 else 0.0)
