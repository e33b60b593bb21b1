"""engine/spades_core.py, the search's bitboard core of the Spades games' play phase, against
the engine and the rule bots: the same legal cards (with and without the duty to beat), the
same play, the rule bot's card at every position, the hand scored and valued as the search bot
values it, the exact endgame; and the same results in both builds."""

from __future__ import annotations

import random
from typing import Any

import pytest
from engine_helpers import assert_same_in_the_other_build, random_deck

from trickref.engine import spades_core
from trickref.engine.actions import Action
from trickref.engine.bots import bot_for
from trickref.engine.bots.search_spades import SpadesSearchBot
from trickref.engine.games import new_game
from trickref.engine.masks import mask_of
from trickref.engine.spades_core import SScorer, count, from_state

FIELDS = ("hands", "trick", "leader", "turn", "broken", "taken", "tricks_done", "played", "led", "win_card")


def snapshot(core: spades_core.SCore) -> dict[str, Any]:
    return {f: getattr(core, f) for f in FIELDS}


def positions(game: str, seed: int, hands: int, options: dict[str, Any] | None = None, noise: float = 0.25):
    """(state, seat) at every play decision: rule bots, a random card now and then."""
    n = 4 if game == "partnership-spades" else 2
    s = new_game(game, n, {"target": 10**6, **(options or {})})
    rng = random.Random(seed)
    rule = bot_for(game)
    for _ in range(hands):
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            seat = s.turn_seats()[0]
            if s.phase == "play":
                yield s, seat
            legal = s.legal_actions(seat)
            a = rng.choice(list(legal)) if s.phase == "play" and rng.random() < noise else rule.choose(s, seat, rng)
            if a.kind == "exchange":
                pile = s.discards  # type: ignore[attr-defined]
                a = Action("exchange", (a.value[0], tuple(sorted(rng.sample(pile, len(a.value[0]))))))
            s.apply(a, seat)


CASES = [("partnership-spades", {}), ("partnership-spades", {"trump": "spades", "must_beat": False}),
         ("partnership-spades", {"nil_tricks_count_for_partner": True, "first_lead": "left"}), ("spades-2p", {}),
         ("spades-2p", {"failed_nil_tricks_are_bags": True})]


def scorer_of(s: Any, seat: int, game_value: bool = True) -> SScorer:
    bot = SpadesSearchBot(s.GAME_ID, game_value=game_value)
    return bot._scorer(s, seat)


@pytest.mark.parametrize("game,options", CASES)
def test_core_plays_like_the_engine_and_the_rule_bot(game: str, options: dict[str, Any]) -> None:
    rule = bot_for(game)
    checked = 0
    for k, (s, seat) in enumerate(positions(game, 10 + len(options), 8, options)):
        core = from_state(s)
        assert core.turn == seat
        legal = s.legal_actions(seat)
        assert core.legal() == mask_of(a.value for a in legal)
        if len(legal) > 1:
            assert core.rule_card() == rule.choose(s, seat, random.Random(0)).value, (k, seat)
            checked += 1
        c = random.Random(k).choice(list(legal)).value
        after = s.copy()
        after.apply(next(a for a in legal if a.value == c), seat)
        core.play(c)
        if after.phase == "play":
            assert snapshot(core) == snapshot(from_state(after))
        else:
            assert core.taken == after.hand_results[-1].get("figures", {}).get("tricks_taken", core.taken)
    assert checked > 100


@pytest.mark.parametrize("game,options", CASES)
def test_rollouts_score_as_the_engine(game: str, options: dict[str, Any]) -> None:
    """The rule bots' rest of the hand in the engine and on the core: the same tricks, and the
    scorer's worth equals the search bot's own value of the engine's finished hand."""
    rule = bot_for(game)
    rng = random.Random(3)
    for k, (s, seat) in enumerate(positions(game, 20 + len(options), 6, options)):
        if k % 4:
            continue
        w = s.copy()
        while w.phase == "play":
            p = w.turn_seats()[0]
            w.apply(rule.choose(w, p, rng), p)
        core = from_state(s)
        core.rollout()
        assert core.taken == list(w.tricks_taken)
        for gv in (True, False):
            bot = SpadesSearchBot(game, game_value=gv)
            assert scorer_of(s, seat, gv).value(core) == pytest.approx(bot._rollout_value(w, seat))


@pytest.mark.parametrize("game,options", CASES[:1] + CASES[3:4])
def test_the_endgame_solver_is_never_worse_than_the_rule_line(game: str, options: dict[str, Any]) -> None:
    tried = 0
    for s, seat in positions(game, 30, 8, options):
        core = from_state(s)
        if count(core.hands[seat]) > 4:
            continue
        sc = scorer_of(s, seat)
        best = spades_core.solve(core.copy(), sc)
        rule = core.copy()
        rule.rollout()
        assert best >= sc.value(rule) - 1e-9
        assert spades_core.finish(core.copy(), sc, 4) == best
        tried += 1
    assert tried > 20


def digest() -> list[Any]:
    out: list[Any] = []
    for game, options in CASES:
        for k, (s, seat) in enumerate(positions(game, 40, 2, options)):
            if k % 7:
                continue
            core = from_state(s)
            v = spades_core.finish(core.copy(), scorer_of(s, seat), 3)
            core.rollout()
            out.append([game, core.taken, round(v, 9)])
    return out


def test_both_builds_give_the_same_rollouts() -> None:
    assert_same_in_the_other_build("test_spades_core", digest())
