"""engine/hearts_core.py, the search's bitboard core of Hearts' play phase, against the engine
and the rule bot: the same legal cards, the same play (hands, trick, winner, points, hearts
broken), the same hand result (moon and omnibus included), the rule bot's card at every
position; its worlds keep to what the seat knows; and the compiled and pure-Python builds give
the same rollouts and worlds."""

from __future__ import annotations

import random
from typing import Any

import pytest
from engine_helpers import assert_same_in_the_other_build, random_deck

from trickref.engine import hearts_core
from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.hearts_core import Worlds, count, from_state, moon_result
from trickref.engine.masks import mask_of
from trickref.engine.rand import Rand

FIELDS = ("hands", "trick", "leader", "turn", "broken", "tricks_done", "points", "played", "rounds", "led",
          "win_seat", "win_card", "omni_taker")


def snapshot(core: hearts_core.Core) -> dict[str, Any]:
    return {f: getattr(core, f) for f in FIELDS}


def games(n: int, seed: int, hands: int, options: dict[str, Any] | None = None):
    """(state, seat) at every play decision of seeded hands: rule bots, with a random card now
    and then so that positions the rule bot would not reach come too."""
    s = new_game("hearts", n, {"target": 10**6, **(options or {})})
    rng = random.Random(seed)
    rule = bot_for("hearts")
    for _ in range(hands):
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            seat = s.turn_seats()[0]
            if s.phase == "play":
                yield s, seat
            legal = s.legal_actions(seat)
            a = rng.choice(list(legal)) if s.phase == "play" and rng.random() < 0.25 else rule.choose(s, seat, rng)
            s.apply(a, seat)


@pytest.mark.parametrize("n,options", [(3, {}), (4, {}), (4, {"omnibus": True}), (5, {}), (6, {"omnibus": True,
                                                                                               "omnibus_card": "JD"}),
                                       (7, {})])
def test_core_plays_like_the_engine_and_the_rule_bot(n: int, options: dict[str, Any]) -> None:
    rule = bot_for("hearts")
    checked = 0
    for s, seat in games(n, 100 + n, 6, options):
        core = from_state(s)
        assert snapshot(core) == snapshot(from_state(s.copy()))
        assert core.turn == seat
        legal = s.legal_actions(seat)
        assert core.legal() == mask_of(a.value for a in legal)
        if len(legal) > 1:
            assert core.rule_card() == rule.choose(s, seat, random.Random(0)).value
            checked += 1
        # one card in both: the same position after it
        c = random.Random(checked).choice(list(legal)).value
        after = s.copy()
        after.apply(legal[[a.value for a in legal].index(c)], seat)
        core.play(c)
        if after.phase == "play":
            assert snapshot(core) == snapshot(from_state(after))
        else:  # the hand is over (or a moon choice is up): the same points taken
            assert core.points == after.points_taken and core.done()
    assert checked > 100


@pytest.mark.parametrize("n,options", [(4, {}), (4, {"omnibus": True}), (5, {"moon_self": -26}), (3, {})])
def test_rollouts_end_as_the_engine_with_rule_bots(n: int, options: dict[str, Any]) -> None:
    """From every play position, the rule bots' rest of the hand in the engine (the moon chosen
    by the rule bot) and the core's rollout and moon_result give the same hand result."""
    rule = bot_for("hearts")
    rng = random.Random(n)
    moons = 0
    for k, (s, _seat) in enumerate(games(n, 200 + n, 8, options)):
        if k % 3:
            continue
        w = s.copy()
        totals = w.totals[:]
        while w.phase not in ("deal", "over"):
            p = w.turn_seats()[0]
            w.apply(rule.choose(w, p, rng), p)
        core = from_state(s)
        core.rollout()
        o = s.options
        got = moon_result(core.points, totals, o["target"], o["moon_self"], o["moon_others"], core.omni_taker,
                          o["omnibus"])
        assert got == w.hand_results[-1]["points"]
        moons += 26 in core.points
    # the moon choice near the end of a game: both choices weighed against the totals
    for totals in ([90, 10, 20, 30], [80, 99, 0, 5], [0, 0, 0, 0], [99, 99, 99, 74]):
        pts = [26, 0, 0, 0]
        for shooter in range(4):
            got = moon_result(pts[-shooter:] + pts[:-shooter], totals, 100, -25, 26, -1, False)
            assert sorted(got) in ([-25, 0, 0, 0], [0, 26, 26, 26])


def test_worlds_keep_to_what_the_seat_knows() -> None:
    for n in (3, 4, 5, 7):
        for k, (s, seat) in enumerate(games(n, 300 + n, 3)):
            if k % 4:
                continue
            played, allowed, known, hidden = s.hidden_knowledge(seat)
            own = s.masks[seat]
            fixed = [own if p == seat else known[p] for p in range(n)]
            caps = [0 if p == seat else s._hand_size(p) - count(known[p]) for p in range(n)]
            worlds = Worlds(n, seat, fixed, allowed, caps, hidden)
            rnd = Rand(k + 1)
            seen = [0] * n
            for _ in range(20):
                hands = worlds.deal(rnd)
                assert hands[seat] == own
                union = 0
                for p in range(n):
                    assert count(hands[p]) == s._hand_size(p)
                    assert hands[p] & ~fixed[p] & ~allowed[p] == 0
                    assert union & hands[p] == 0
                    union |= hands[p]
                    seen[p] |= hands[p]
                assert union == sum(s.masks)
            # the true hands fit what the seat knows
            for p in range(n):
                assert s.masks[p] & ~fixed[p] & ~allowed[p] == 0


def test_worlds_refuse_what_cannot_fit() -> None:
    # two other seats, three hidden cards that only seat 1 may hold, room for two there
    with pytest.raises(AssertionError):
        Worlds(3, 0, [0, 0, 0], [0, 0b111, 0], [0, 2, 1], 0b111)


def digest() -> list[Any]:
    """Rollouts and worlds of seeded positions (the same in either build)."""
    out: list[Any] = []
    for k, (s, seat) in enumerate(games(4, 9, 3, {"omnibus": True})):
        if k % 5:
            continue
        core = from_state(s)
        core.rollout()
        played, allowed, known, hidden = s.hidden_knowledge(seat)
        fixed = [s.masks[seat] if p == seat else known[p] for p in range(4)]
        caps = [0 if p == seat else s._hand_size(p) - count(known[p]) for p in range(4)]
        w = Worlds(4, seat, fixed, allowed, caps, hidden).deal(Rand(k))
        out.append([core.points, core.omni_taker, w])
    return out


def test_both_builds_give_the_same_rollouts_and_worlds() -> None:
    assert_same_in_the_other_build("test_hearts_core", digest())


def exhaustive(core: hearts_core.Core, scorer: hearts_core.Scorer) -> float:
    """The seat's best worth by trying every card (no cards taken as equivalent)."""
    while core.hands[core.turn] and core.turn != scorer.seat:
        core.play(core.rule_card())
    if not core.hands[core.turn]:
        return scorer.value(core)
    best = -1e18
    lm = core.legal()
    for c in range(52):
        if lm >> c & 1:
            w = core.copy()
            w.play(c)
            best = max(best, exhaustive(w, scorer))
    return best


@pytest.mark.parametrize("n,options", [(4, {}), (4, {"omnibus": True}), (3, {}), (5, {})])
def test_the_endgame_solver_finds_the_best_line(n: int, options: dict[str, Any]) -> None:
    """From the seat's last few cards: ``solve`` equals trying every card (the cards it takes
    as equivalent are), and is never worse than the rule bot's own line."""
    tried = 0
    for s, seat in games(n, 400 + n, 10, options):
        core = from_state(s)
        if count(core.hands[seat]) > 4:
            continue
        o = s.options
        scorer = hearts_core.Scorer(seat, s.totals[:], o["target"], o["moon_self"], o["moon_others"], o["omnibus"],
                                    True)
        best = hearts_core.solve(core.copy(), scorer)
        assert best == exhaustive(core.copy(), scorer)
        rule = core.copy()
        rule.rollout()
        assert best >= scorer.value(rule)
        assert hearts_core.finish(core.copy(), scorer, 4) == best
        tried += 1
    assert tried > 20
