"""The Spades search bot (engine/bots/search_spades.py): what it adds to SearchBot.

The hidden-cards proof for every searched phase (the spades-2p draw included) is in
test_bots_search.py; here: the bid candidates, the world weights by the bidding, the game
value, the draw search and determinism.
"""

from __future__ import annotations

import random

import pytest
from engine_helpers import random_deck

from trickref.engine.actions import BIDS, DISCARD, KEEP
from trickref.engine.bots import bot_for
from trickref.engine.bots.search_spades import SpadesSearchBot, win_chance
from trickref.engine.games import new_game


def _to_phase(game: str, n: int, phase: str, seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    s = new_game(game, n)
    s.start_hand(random_deck(rng, 1))
    rule = bot_for(game)
    while s.phase != phase:
        p = s.turn_seats()[0]
        s.apply(rule.choose(s, p, rng), p)
    return s, rng


def test_rejects_other_games() -> None:
    with pytest.raises(ValueError, match="not 'hearts'"):
        SpadesSearchBot("hearts")


def test_win_chance() -> None:
    g = "partnership-spades"
    assert win_chance(g, 0, 0, 500, False, False) == pytest.approx(0.5)
    assert win_chance(g, 100, 0, 500, False, False) > 0.5 > win_chance(g, 0, 100, 500, False, False)
    # the same lead is worth more near the target
    assert win_chance(g, 480, 430, 500, False, False) > win_chance(g, 100, 50, 500, False, False)
    assert win_chance(g, 10, 900, 500, True, True) == 1.0
    assert win_chance(g, 900, 10, 500, True, False) == 0.0


@pytest.mark.parametrize("game,n", [("partnership-spades", 4), ("spades-2p", 2)])
def test_bid_candidates_around_the_rule_bid(game: str, n: int) -> None:
    for seed in range(6):
        s, rng = _to_phase(game, n, "bid", seed)
        seat = s.turn_seats()[0]
        bot = SpadesSearchBot(game, iterations=1)
        rule = bot_for(game).choose(s, seat, random.Random(0))
        cands = bot._candidates(s, seat, s.legal_actions(seat), random.Random(0))
        assert cands is not None and rule in cands
        values = [a.value for a in cands]
        assert len(values) == len(set(values))
        assert all(abs(v - rule.value) <= 2 for v in values if v > 0)
        assert all(a in s.legal_actions(seat) for a in cands)


def test_world_weights_follow_the_bids() -> None:
    """Worlds that give the opponent a hand matching its bid weigh more than worlds that do
    not: with a 2-trick bid, the worlds where its hand counts about 2 tricks get the top weight."""
    s, rng = _to_phase("spades-2p", 2, "play", 3)
    seat = s.turn_seats()[0]
    bot = SpadesSearchBot("spades-2p", bid_sigma=1.0, bid_floor=0.05)
    ws = [bot._weight(s.sample_world(seat, rng), seat) for _ in range(60)]  # type: ignore[attr-defined]
    assert max(ws) == pytest.approx(1.0)
    assert min(ws) < max(ws)
    assert all(0.05 <= w <= 1.0 for w in ws)
    # before any bid every world weighs the same
    d, rng = _to_phase("spades-2p", 2, "draw", 3)
    assert bot._weight(d.sample_world(d.turn_seats()[0], rng), d.turn_seats()[0]) == 1.0  # type: ignore[attr-defined]


def test_draw_is_searched_and_deterministic() -> None:
    s, rng = _to_phase("spades-2p", 2, "draw", 5)
    seat = s.turn_seats()[0]
    bot = SpadesSearchBot("spades-2p", iterations=3, search_draw=True)
    cands = bot._candidates(s, seat, s.legal_actions(seat), random.Random(1))
    assert cands == [KEEP, DISCARD]
    a = bot.choose(s, seat, random.Random(7))
    assert bot.last_worlds == 3
    assert bot.choose(s, seat, random.Random(7)) == a
    off = SpadesSearchBot("spades-2p", iterations=3, search_draw=False)
    assert off.choose(s, seat, random.Random(7)) == bot_for("spades-2p").choose(s, seat, random.Random(7))
    assert off.last_worlds == 0


def test_nil_is_searched_for_a_low_hand() -> None:
    """Over many bids, Nil comes among the candidates, and only for a hand the bot thinks
    could make it (or when the rule bot bids Nil itself)."""
    bot = SpadesSearchBot("spades-2p")
    rule = bot_for("spades-2p")
    found = 0
    for seed in range(40):
        s, _ = _to_phase("spades-2p", 2, "bid", seed)
        seat = s.turn_seats()[0]
        cands = bot._candidates(s, seat, s.legal_actions(seat), random.Random(0))
        assert cands is not None
        if BIDS[0] in cands:
            found += 1
            assert bot._nil_thinkable(s, seat) or rule.choose(s, seat, random.Random(0)) == BIDS[0]
    assert 0 < found < 40


def test_turn_sampler_worlds_match_the_view() -> None:
    """``sample_2p_by_turns``: at draw, exchange, bid and play decisions of random hands (Double
    Nil ones included), every world looks the same to the seat, and the opponent's hidden
    hand varies between worlds."""
    from engine_helpers import random_action

    from trickref.engine.bots.search_spades import sample_2p_by_turns

    rng = random.Random(31)
    s = new_game("spades-2p", 2, {"target": 10**6})
    checked = varied = 0
    while checked < 40:
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            seat = rng.choice(s.turn_seats())
            if rng.random() < 0.2:
                hands = set()
                for _ in range(4):
                    w = sample_2p_by_turns(s, seat, rng, 200.0)
                    assert w.view(seat) == s.view(seat)
                    hands.add(tuple(sorted(w.hand_of(1 - seat))))
                varied += len(hands) > 1
                checked += 1
            s.apply(*reversed(random_action(s, rng)))
    assert varied >= checked // 2


def test_partnership_bids_searched_are_the_rule_bid_or_nil() -> None:
    """partnership-spades: by default the bid is the rule bot's or Nil (no numbers around the
    rule bid); ``bid_spread`` brings them back; spades-2p keeps two either side."""
    assert SpadesSearchBot("partnership-spades").bid_spread == 0
    assert SpadesSearchBot("spades-2p").bid_spread == 2
    bot = SpadesSearchBot("partnership-spades", iterations=1)
    wide = SpadesSearchBot("partnership-spades", iterations=1, bid_spread=2)
    nil_seen = wide_seen = 0
    for seed in range(30):
        s, _ = _to_phase("partnership-spades", 4, "bid", seed)
        seat = s.turn_seats()[0]
        rule = bot_for("partnership-spades").choose(s, seat, random.Random(0))
        cands = bot._candidates(s, seat, s.legal_actions(seat), random.Random(0))
        assert cands is not None and rule in cands
        assert set(cands) <= {rule, BIDS[0]}
        nil_seen += BIDS[0] in cands and rule != BIDS[0]
        wc = wide._candidates(s, seat, s.legal_actions(seat), random.Random(0))
        assert wc is not None
        wide_seen += len(set(wc) - {rule, BIDS[0]}) > 0
    assert nil_seen > 0  # Nil is still searched for low hands
    assert wide_seen > 0
