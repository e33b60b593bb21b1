"""engine/whist_core.py, the search's bitboard core of German Whist, against the engine and the
rule bot: the same legal cards and play (the stock drawn as the engine draws it), the rule
bot's card at every position (ties broken in its hand's order), the hand's worth as the search
bot scores it, the exact endgame; and the same results in both builds."""

from __future__ import annotations

import random
from typing import Any

import pytest
from engine_helpers import assert_same_in_the_other_build, random_deck

from trickref.engine import whist_core
from trickref.engine.bots import bot_for
from trickref.engine.bots.german_whist import GermanWhistSearchBot
from trickref.engine.games import new_game
from trickref.engine.masks import mask_of
from trickref.engine.whist_core import WScorer, count, from_state

FIELDS = ("hands", "stock", "stage", "leader", "lead", "played", "tricks1", "tricks2")


def snapshot(core: whist_core.WCore) -> dict[str, Any]:
    return {f: getattr(core, f) for f in FIELDS}


def positions(seed: int, hands: int, options: dict[str, Any] | None = None, noise: float = 0.25):
    s = new_game("german-whist", 2, {"target": 10**6, **(options or {})})
    rng = random.Random(seed)
    rule = bot_for("german-whist")
    for _ in range(hands):
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            seat = s.turn_seats()[0]
            yield s, seat
            legal = s.legal_actions(seat)
            a = rng.choice(list(legal)) if rng.random() < noise else rule.choose(s, seat, rng)
            s.apply(a, seat)


@pytest.mark.parametrize("options", [{}, {"score_all_tricks": True}])
def test_core_plays_like_the_engine_and_the_rule_bot(options: dict[str, Any]) -> None:
    rule = bot_for("german-whist")
    checked = 0
    for k, (s, seat) in enumerate(positions(5, 6, options)):
        core = from_state(s)
        assert core.turn() == seat
        legal = s.legal_actions(seat)
        assert core.legal() == mask_of(a.value for a in legal)
        if len(legal) > 1:
            assert core.rule_card() == rule.choose(s, seat, random.Random(0)).value, k
            checked += 1
        c = random.Random(k).choice(list(legal)).value
        after = s.copy()
        after.apply(next(a for a in legal if a.value == c), seat)
        core.play(c)
        if after.phase == "play":
            assert snapshot(core) == snapshot(from_state(after))
        else:
            assert core.done()
    assert checked > 150


@pytest.mark.parametrize("options", [{}, {"score_all_tricks": True}])
def test_rollouts_score_as_the_engine(options: dict[str, Any]) -> None:
    rule = bot_for("german-whist")
    bot = GermanWhistSearchBot("german-whist")  # its value: the game's search bot's
    rng = random.Random(4)
    for k, (s, seat) in enumerate(positions(6, 4, options)):
        if k % 5:
            continue
        w = s.copy()
        while w.phase == "play":
            p = w.turn_seats()[0]
            w.apply(rule.choose(w, p, rng), p)
        core = from_state(s)
        core.rollout()
        assert core.tricks1 == w.tricks1 and core.tricks2 == w.tricks2  # type: ignore[attr-defined]
        assert WScorer(seat).value(core) == pytest.approx(bot._value(w, seat))


def test_the_endgame_solver_is_never_worse_than_the_rule_line() -> None:
    tried = 0
    for s, seat in positions(7, 6):
        core = from_state(s)
        if core.stage != 2 or count(core.hands[seat]) > 5:
            continue
        sc = WScorer(seat)
        best = whist_core.solve(core.copy(), sc)
        rule = core.copy()
        rule.rollout()
        assert best >= sc.value(rule) - 1e-9
        assert whist_core.finish(core.copy(), sc, 5) == best
        tried += 1
    assert tried > 20


def digest() -> list[Any]:
    out: list[Any] = []
    for k, (s, seat) in enumerate(positions(8, 2)):
        if k % 9:
            continue
        core = from_state(s)
        v = whist_core.finish(core.copy(), WScorer(seat), 5)
        core.rollout()
        out.append([core.tricks1, core.tricks2, round(v, 9)])
    return out


def test_both_builds_give_the_same_rollouts() -> None:
    assert_same_in_the_other_build("test_whist_core", digest())
