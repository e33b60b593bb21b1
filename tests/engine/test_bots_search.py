"""The search bots (engine/bots/search.py): legal choices, and they never read a hidden card.

The proof of the second: at decision points of random games of all five games, the bot's
seat is given states whose hidden cards were moved consistently with everything it saw (a
world drawn by ``sample_world``, and ``engine_helpers.scrambled``: the record replayed with
hidden cards of the deck swapped), and with the same random numbers it makes the same choice.
The states differ in the other seats' hands in most cases (checked, so the test cannot pass
by scrambling nothing). A fixed number of worlds is searched (``iterations``), so the
decision does not depend on the machine's speed.
"""

from __future__ import annotations

import random

import pytest
from engine_helpers import random_action, random_deck, scrambled

from trickref.engine.base import GameState
from trickref.engine.bots.levels import LEVEL_NAMES, search_bot, search_class
from trickref.engine.bots.search import SearchBot
from trickref.engine.bots.search_spades import SpadesSearchBot
from trickref.engine.games import new_game

GAMES = [("hearts", 4), ("hearts", 5), ("cancellation-hearts", 7), ("german-whist", 2),
         ("partnership-spades", 4), ("spades-2p", 2)]


def hidden_hands(s: GameState, seat: int) -> list[list[int]]:
    return [sorted(s.hand_of(p)) for p in range(s.n) if p != seat]


@pytest.mark.parametrize("game,n", GAMES)
def test_search_bot_never_reads_hidden_cards(game: str, n: int) -> None:
    rng = random.Random(21)
    # the spades-2p draw search is off by default: on here, so its worlds are checked too
    bot = search_class(game)(game, iterations=2, **({"search_draw": True} if game == "spades-2p" else {}))
    s = new_game(game, n, {"target": 10**6})
    decks = 2 if game == "cancellation-hearts" else 1
    checked = differed = 0
    while checked < 6:
        s.start_hand(random_deck(rng, decks))
        while s.turn_seats():
            seat = rng.choice(s.turn_seats())
            # every searched phase: play, bid, and the spades-2p draw (SpadesSearchBot)
            searched = s.phase in ("play", "bid", "draw") and len(s.legal_actions(seat)) > 1
            if searched and rng.random() < 0.15:
                worlds: list[GameState] = [s.sample_world(seat, rng), scrambled(s, seat, rng)]  # type: ignore[attr-defined]
                k = rng.randrange(1 << 30)
                want = bot.choose(s, seat, random.Random(k))
                assert want in s.legal_actions(seat)
                for other in worlds:
                    assert other.view(seat) == s.view(seat)
                    differed += hidden_hands(other, seat) != hidden_hands(s, seat)
                    assert bot.choose(other, seat, random.Random(k)) == want
                checked += 1
            s.apply(*reversed(random_action(s, rng)))
    assert differed >= checked  # most of the scrambled states hold other hidden cards


@pytest.mark.parametrize("game,n", GAMES)
def test_search_bot_plays_whole_hands(game: str, n: int) -> None:
    rng = random.Random(22)
    bots = [search_class(game)(game, iterations=1) if p == 0 else search_bot(game, "rule") for p in range(n)]
    s = new_game(game, n, {"target": 10**6})
    s.start_hand(random_deck(rng, 2 if game == "cancellation-hearts" else 1))
    while s.turn_seats():
        for p in s.turn_seats():
            a = bots[p].choose(s, p, rng)
            assert a in s.legal_actions(p)
            s.apply(a, p)
            if not s.turn_seats():
                break
    assert s.hand_results


def test_levels() -> None:
    assert LEVEL_NAMES[0] == "rule"
    assert isinstance(search_bot("hearts", "strong"), SearchBot)
    assert not isinstance(search_bot("hearts", "rule"), SearchBot)
    for game in ("partnership-spades", "spades-2p"):
        assert isinstance(search_bot(game, "strong"), SpadesSearchBot)
    assert not isinstance(search_bot("german-whist", "strong"), SpadesSearchBot)
    with pytest.raises(ValueError, match="unknown bot level 'expert'"):
        search_bot("hearts", "expert")
