"""engine/chearts_core.py, the search's core of Cancellation Hearts' play, against the engine and
the rule bot: the same legal cards and play (cancelled tricks, waiting cards, the widow), the
rule bot's card at every position, the hand's worth as the search bot scores it; worlds drawn
by ``sample_holdings`` as ``sample_world`` draws them; the same results in both builds."""

from __future__ import annotations

import random
from typing import Any

import pytest
from engine_helpers import assert_same_in_the_other_build, random_deck

from trickref.engine import chearts_core
from trickref.engine.bots import bot_for
from trickref.engine.bots.search_hearts import HeartsSearchBot
from trickref.engine.chearts_core import from_state
from trickref.engine.games import new_game
from trickref.engine.hearts_core import Scorer
from trickref.engine.masks import mask_of

FIELDS = ("once", "twice", "trick", "leader", "turn", "led", "first_lead", "broken", "tricks_done", "rounds",
          "qs_played", "waiting", "widow", "widow_on", "points")


def snapshot(core: chearts_core.CCore) -> dict[str, Any]:
    return {f: getattr(core, f) for f in FIELDS}


def positions(n: int, seed: int, hands: int, options: dict[str, Any] | None = None, noise: float = 0.25):
    s = new_game("cancellation-hearts", n, {"target": 10**6, **(options or {})})
    rng = random.Random(seed)
    rule = bot_for("cancellation-hearts")
    for _ in range(hands):
        s.start_hand(random_deck(rng, 2))
        while s.turn_seats():
            seat = s.turn_seats()[0]
            if s.phase == "play":
                yield s, seat
            legal = s.legal_actions(seat)
            a = rng.choice(list(legal)) if s.phase == "play" and rng.random() < noise else rule.choose(s, seat, rng)
            s.apply(a, seat)


def scorer(s: Any, seat: int) -> Scorer:
    o = s.options
    return Scorer(seat, s.totals[:], o["target"], o["moon_self"], o["moon_others"], False, True, 52)


CASES = [(6, {}), (7, {"no_points_on_first_trick": True}), (9, {"last_trick_cancelled": "leader"}), (11, {})]


@pytest.mark.parametrize("n,options", CASES)
def test_core_plays_like_the_engine_and_the_rule_bot(n: int, options: dict[str, Any]) -> None:
    rule = bot_for("cancellation-hearts")
    checked = 0
    for k, (s, seat) in enumerate(positions(n, 50 + n, 3, options)):
        core = from_state(s)
        assert core.turn == seat
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
            assert core.over and core.points == after.points_taken
    assert checked > 100


@pytest.mark.parametrize("n,options", CASES)
def test_rollouts_score_as_the_engine(n: int, options: dict[str, Any]) -> None:
    rule = bot_for("cancellation-hearts")
    bot = HeartsSearchBot("cancellation-hearts")
    rng = random.Random(5)
    for k, (s, seat) in enumerate(positions(n, 60 + n, 3, options)):
        if k % 6:
            continue
        w = s.copy()
        while w.phase not in ("deal", "over"):
            p = w.turn_seats()[0]
            w.apply(rule.choose(w, p, rng), p)
        core = from_state(s)
        core.rollout()
        assert core.points == w.points_taken
        assert chearts_core.value(core, scorer(s, seat)) == pytest.approx(bot._value(w, seat))


def test_worlds_keep_to_what_the_seat_knows() -> None:
    for k, (s, seat) in enumerate(positions(8, 70, 2)):
        if k % 9:
            continue
        once, twice, widow = s.sample_holdings(seat, random.Random(k))
        assert once[seat] == s.once[seat] and twice[seat] == s.twice[seat]
        for p in range(s.n):
            assert bin(once[p]).count("1") + bin(twice[p]).count("1") == s._hand_size(p)
            assert twice[p] & ~once[p] == 0
        assert len(widow) == len(s.widow)


def digest() -> list[Any]:
    out: list[Any] = []
    for n, options in CASES[:2]:
        for k, (s, seat) in enumerate(positions(n, 80 + n, 1, options)):
            if k % 11:
                continue
            once, twice, widow = s.sample_holdings(seat, random.Random(k))
            core = from_state(s)
            v = chearts_core.finish(core.copy(), scorer(s, seat), 2)
            core.rollout()
            out.append([once, twice, widow, core.points, round(v, 9)])
    return out


def test_both_builds_give_the_same_rollouts_and_worlds() -> None:
    assert_same_in_the_other_build("test_chearts_core", digest())
