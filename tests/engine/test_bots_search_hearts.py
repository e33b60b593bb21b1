"""The Hearts games' search bot (engine/bots/search_hearts.py).

- It never reads a hidden card, on the decisions it searches (card play and the pass): states
  its seat cannot tell apart (a world from ``sample_world``, and ``engine_helpers.scrambled``)
  get the same decision for the same random numbers.
- Its model of the others (``rule_inferences``: what a rule bot's plays say about its hand)
  is never wrong about a rule bot: at every play of rule-bot hands, no seat holds a card the
  inferences rule out for it, and they do rule cards out.
- ``sample_world(..., avoid=...)`` keeps to the masks given, raises when nothing fits, and the
  bot then draws its worlds without them (a seat that does not play like the rule bot).
- Pass candidates are legal passes, the rule bot's first.
"""

from __future__ import annotations

import random

import pytest
from engine_helpers import random_action, random_deck, scrambled

from trickref.engine import cards as C
from trickref.engine.base import GameState
from trickref.engine.bots import bot_for
from trickref.engine.bots.levels import make_search_bot, search_bot
from trickref.engine.bots.search_hearts import (
    HeartsSearchBot,
    rule_inference_plays,
    rule_inferences,
)
from trickref.engine.games import new_game
from trickref.engine.masks import mask_of

GAMES = [("hearts", 3), ("hearts", 4), ("hearts", 6), ("cancellation-hearts", 6), ("cancellation-hearts", 9)]


def decks_of(game: str) -> int:
    return 2 if game == "cancellation-hearts" else 1


def holds(s: GameState, p: int) -> int:
    return mask_of(sorted(set(s.hand_of(p))))


def hidden_hands(s: GameState, seat: int) -> list[list[int]]:
    return [sorted(s.hand_of(p)) for p in range(s.n) if p != seat]


@pytest.mark.parametrize("game,n,infer", [(g, n, True) for g, n in GAMES] + [("hearts", 4, "soft"), ("hearts", 4, False)])
def test_hearts_search_bot_never_reads_hidden_cards(game: str, n: int, infer: bool | str) -> None:
    rng = random.Random(31)
    bot = HeartsSearchBot(game, iterations=2, infer=infer)
    s = new_game(game, n, {"target": 10**6})
    checked = differed = passes = 0
    while checked < 8 or passes < 2:
        s.start_hand(random_deck(rng, decks_of(game)))
        while s.turn_seats():
            seat = rng.choice(s.turn_seats())
            searched = s.phase in ("play", "pass") and len(s.legal_actions(seat)) > 1
            if searched and (s.phase == "pass" or rng.random() < 0.2):
                worlds: list[GameState] = [s.sample_world(seat, rng), scrambled(s, seat, rng)]  # type: ignore[attr-defined]
                k = rng.randrange(1 << 30)
                want = bot.choose(s, seat, random.Random(k))
                assert want in s.legal_actions(seat)
                for other in worlds:
                    assert other.view(seat) == s.view(seat)
                    differed += hidden_hands(other, seat) != hidden_hands(s, seat)
                    assert bot.choose(other, seat, random.Random(k)) == want
                checked += 1
                passes += s.phase == "pass"
            # rule bots play (their plays are what the inferences read), with a random move now and then
            if rng.random() < 0.9:
                a = bot_for(game).choose(s, s.turn_seats()[0], rng)
                s.apply(a, s.turn_seats()[0])
            else:
                s.apply(*reversed(random_action(s, rng)))
    assert differed >= checked


@pytest.mark.parametrize("game,n", GAMES + [("hearts", 5), ("hearts", 7), ("cancellation-hearts", 11)])
def test_rule_inferences_hold_for_rule_bots(game: str, n: int) -> None:
    rng = random.Random(32)
    rule = bot_for(game)
    s = new_game(game, n, {"target": 10**6})
    ruled_out = 0
    for _ in range(4):
        s.start_hand(random_deck(rng, decks_of(game)))
        while s.turn_seats():
            for seat in s.turn_seats():
                if s.phase == "play":
                    avoid = rule_inferences(s, seat, game == "cancellation-hearts")
                    assert avoid[seat] == 0
                    for p in range(n):
                        assert not holds(s, p) & avoid[p], (seat, p, C.names(s.hand_of(p)))
                        ruled_out += avoid[p].bit_count()
                s.apply(rule.choose(s, seat, rng), seat)
                if not s.turn_seats():
                    break
    assert ruled_out > 0


@pytest.mark.parametrize("game,n", [("hearts", 4), ("cancellation-hearts", 7)])
def test_sample_world_avoid(game: str, n: int) -> None:
    rng = random.Random(33)
    rule = bot_for(game)
    s = new_game(game, n, {"target": 10**6})
    s.start_hand(random_deck(rng, decks_of(game)))
    while s.phase != "play" or s.tricks_played < 3:  # type: ignore[attr-defined]
        seat = s.turn_seats()[0]
        s.apply(rule.choose(s, seat, rng), seat)
    seat = s.turn_seats()[0]
    other = (seat + 1) % n
    # keep the other seat from the hidden cards it holds (not the ones this seat passed it)
    avoid = [0] * n
    avoid[other] = holds(s, other) & ~mask_of(s.hand_of(seat)) & ~mask_of(s.passes[seat])  # type: ignore[attr-defined]
    kept = 0
    for _ in range(20):
        try:
            w = s.sample_world(seat, rng, avoid=avoid)  # type: ignore[attr-defined]
        except AssertionError:
            continue
        assert w.view(seat) == s.view(seat)
        assert not holds(w, other) & avoid[other]
        kept += 1
    # every hidden card barred from every other seat: nothing fits
    hidden = 0
    for p in range(n):
        if p != seat:
            hidden |= holds(s, p)
    with pytest.raises(AssertionError):
        s.sample_world(seat, rng, avoid=[0 if p == seat else hidden for p in range(n)])  # type: ignore[attr-defined]
    if game == "hearts":
        assert kept == 20  # 4 players: the other two hands take every hidden card


def test_bot_falls_back_when_the_others_do_not_play_like_rule_bots() -> None:
    rng = random.Random(34)
    game, n = "hearts", 4
    bot = HeartsSearchBot(game, iterations=3, infer=True)
    s = new_game(game, n, {"target": 10**6})
    played = 0
    for _ in range(3):
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            seat, a = random_action(s, rng)  # random players: the inferences are often wrong
            if seat == 0 and s.phase == "play" and len(s.legal_actions(0)) > 1:
                assert bot.choose(s, 0, rng) in s.legal_actions(0)
                played += 1
            s.apply(a, seat)
    assert played > 10
    assert bot.fallbacks > 0


@pytest.mark.parametrize("game,n", [("hearts", 4), ("cancellation-hearts", 8)])
def test_pass_candidates(game: str, n: int) -> None:
    rng = random.Random(35)
    s = new_game(game, n, {"target": 10**6})
    bot = make_search_bot(game, iterations=2)
    assert isinstance(bot, HeartsSearchBot)
    s.start_hand(random_deck(rng, decks_of(game)))
    assert s.phase == "pass"
    seat = s.turn_seats()[0]
    legal = s.legal_actions(seat)
    cands = bot._pass_candidates(s, seat)
    assert cands[0] == bot_for(game).choose(s, seat, rng)
    assert len(cands) == len(set(cands)) > 10
    assert all(c in legal for c in cands)
    assert bot.choose(s, seat, rng) in cands
    assert isinstance(search_bot(game, "strong"), HeartsSearchBot)
    with pytest.raises(ValueError, match="not 'spades-2p'"):
        HeartsSearchBot("spades-2p")


def test_a_seat_that_does_not_play_like_the_rule_bot_is_not_read_like_one() -> None:
    """Random players soon play a card their earlier plays ruled out (if they were rule bots):
    from then on no inference is drawn about them; every inference left still holds."""
    rng = random.Random(35)
    s = new_game("hearts", 4, {"target": 10**6})
    dropped = 0
    for _ in range(4):
        s.start_hand(random_deck(rng, 1))
        before = [0] * 4
        while s.turn_seats():
            seat, a = random_action(s, rng)
            if s.phase == "play":
                avoid = rule_inferences(s, 0, False)
                for p in range(1, 4):
                    if before[p] and not avoid[p]:
                        dropped += 1
                    if avoid[p]:
                        assert avoid[p] & before[p] == before[p]  # only grows while the seat fits
                before = avoid
            s.apply(a, seat)
    assert dropped > 0


def test_rule_inference_plays_are_the_inferences_play_by_play() -> None:
    """``rule_inference_plays`` lists, per seat, what each of its plays says; together they are
    ``rule_inferences``. Rule bots never hold a card one of their plays rules out."""
    rng = random.Random(36)
    rule = bot_for("hearts")
    s = new_game("hearts", 4, {"target": 10**6})
    said = 0
    for _ in range(3):
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            seat = s.turn_seats()[0]
            if s.phase == "play":
                plays = rule_inference_plays(s, seat, False)
                avoid = rule_inferences(s, seat, False)
                assert plays[seat] == []
                for p in range(4):
                    m = 0
                    for x in plays[p]:
                        assert x
                        assert not holds(s, p) & x
                        m |= x
                    assert m == avoid[p]
                    said += len(plays[p])
            s.apply(rule.choose(s, seat, rng), seat)
    assert said > 0


def test_soft_inferences_weigh_worlds_by_the_plays_they_contradict() -> None:
    """``infer="soft"``: worlds are drawn without the inferences and weighed ``soft_eps`` for
    every play of another seat that the world contradicts (a play the rule bot would not have
    made with the hand the world gives it); worlds that fit every play weigh 1."""
    rng = random.Random(37)
    rule = bot_for("hearts")
    s = new_game("hearts", 4, {"target": 10**6})
    s.start_hand(random_deck(rng, 1))
    seat = 0
    while s.phase != "play" or len(s.actions) < 24 or s.turn_seats()[0] != seat:
        p = s.turn_seats()[0]
        s.apply(rule.choose(s, p, rng), p)
    bot = HeartsSearchBot("hearts", iterations=4, infer="soft", soft_eps=0.5)
    plays = rule_inference_plays(s, seat, False)
    assert any(plays[p] for p in range(1, 4))
    draw = bot._sampler(s)
    weights = set()
    for _ in range(200):
        world = draw(seat, rng)
        w = bot._weight(world, seat)
        broken = sum(1 for p in range(4) for m in plays[p] if world.hands[p] & m)
        assert w == 0.5 ** broken
        weights.add(w)
    assert 1.0 in weights and len(weights) > 1  # some worlds fit every play, some do not
    assert bot.choose(s, seat, rng) in s.legal_actions(seat)
    hard = HeartsSearchBot("hearts", iterations=4)
    hard_draw = hard._sampler(s)
    assert all(hard._weight(hard_draw(seat, rng), seat) == 1.0 for _ in range(20))


@pytest.mark.parametrize("game,n,core", [("cancellation-hearts", 7, True), ("hearts", 4, False)])
def test_soft_inferences_on_every_kind_of_world(game: str, n: int, core: bool) -> None:
    """The soft weights on Cancellation Hearts' core worlds (a card held once or twice) and on
    engine states (the search without its core): ``soft_eps`` per contradicted play."""
    rng = random.Random(38)
    rule = bot_for(game)
    s = new_game(game, n, {"target": 10**6})
    s.start_hand(random_deck(rng, decks_of(game)))
    while s.phase != "play" or len(s.tricks) < 4 or s.turn_seats()[0] != 0:  # type: ignore[attr-defined]
        p = s.turn_seats()[0]
        s.apply(rule.choose(s, p, rng), p)
    plays = rule_inference_plays(s, 0, game == "cancellation-hearts")
    assert any(plays)
    bot = HeartsSearchBot(game, iterations=2, infer="soft", soft_eps=0.5, core=core)
    draw = bot._sampler(s)
    weights = set()
    for _ in range(100):
        world = draw(0, rng)
        held = [mask_of(sorted(set(world.hand_of(p)))) for p in range(n)] if not core else world.once
        w = bot._weight(world, 0)
        assert w == 0.5 ** sum(1 for p in range(n) for m in plays[p] if held[p] & m)
        weights.add(w)
    assert len(weights) > 1
