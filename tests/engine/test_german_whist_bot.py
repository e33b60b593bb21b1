"""The German Whist bot: legal, uses only its seat's knowledge, plays for good stock cards."""

from __future__ import annotations

import random

from engine_helpers import scrambled
from test_german_whist import P, game, make_deck

from trickref.engine import cards as C
from trickref.engine.actions import play
from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.german_whist import GermanWhistState

BOT = bot_for("german-whist")


def test_bot_plays_whole_games_legally() -> None:
    for seed in range(4):
        rng = random.Random(seed)
        g = new_game("german-whist", 2)
        while not g.over:
            deck = list(range(52))
            rng.shuffle(deck)
            g.start_hand(deck)
            while g.phase == "play":
                s = g.turn_seats()[0]
                a = BOT.choose(g, s, rng)
                assert a in g.legal_actions(s)
                g.apply(a, s)
        assert g.winners and g.totals[g.winners[0]] >= 15


def test_bot_ignores_what_its_seat_cannot_know() -> None:
    """Moving the cards the seat cannot see (the opponent's hidden cards and the face-down
    stock) consistently with everything it saw (engine_helpers.scrambled: the record replayed
    with a changed deck, the seat's view unchanged) never changes its choice."""
    checked = 0
    for seed in range(12):
        rng = random.Random(seed)
        deck = list(range(52))
        rng.shuffle(deck)
        g = game(deck)
        while g.phase == "play" and g.stage == 1 and g.stock < 50:
            me = g.turn_seats()[0]
            other = scrambled(g, me, rng)
            if other.hand_of(1 - me) != g.hand_of(1 - me) or other.deck != g.deck:
                assert isinstance(other, GermanWhistState)
                assert BOT.choose(g, me, random.Random(1)) == BOT.choose(other, me, random.Random(1))
                checked += 1
            g.apply(BOT.choose(g, me, rng), me)
    assert checked > 100


def test_bot_leads_a_master_for_a_face_up_trump() -> None:
    nd = P("AS 4S 3S 2C 3C 4C 5C 6C 7C 8C 9C TC 2H")  # seat 1 (bot) leads
    dl = P("KS QS JS 3H 4H 5H 6H 7H 8H 9H TH JH QH")
    g = game(make_deck(nd, dl, P("AD")))  # the face-up card is the ace of trumps
    assert C.NAMES[BOT.choose(g, 1, random.Random(0)).value] == "AS"


def _after_first_trick(up2: str) -> GermanWhistState:
    """Trick 1: seat 1 leads 2H, seat 0 wins with QH and takes the face-up AD (diamonds are
    trump); seat 0 then leads with ``up2`` face up."""
    nd = P("AS 4S 3S 2C 3C 4C 5C 6C 7C 8C 9C TC 2H")
    dl = P("KS QS JS 3H 4H 5H 6H 7H 8H 9H TH JH QH")
    g = game(make_deck(nd, dl, P("AD 5S " + up2)))
    g.apply(play("2H"), 1)
    g.apply(play("QH"), 0)
    assert g.turn_seats() == (0,) and g.public_view()["stock_card"] == up2
    return g


def test_bot_leads_low_for_a_worthless_face_up_card() -> None:
    g = _after_first_trick("6S")
    assert C.NAMES[BOT.choose(g, 0, random.Random(0)).value] == "3H"


def test_bot_leads_a_sure_winner_for_a_good_face_up_card() -> None:
    g = _after_first_trick("AC")
    assert C.NAMES[BOT.choose(g, 0, random.Random(0)).value] == "AD"


def _bot_follows(up2: str) -> str:
    nd = P("5H 4S 3S 2C 3C 4C 5C 6C 7C 8C 9C TC 6H")
    dl = P("KS QS JS 2H 3H 7H 9H KH 5D 6D 7D 8D 9D")
    g = game(make_deck(nd, dl, P("KC 2D " + up2)))  # clubs trump
    g.apply(play("5H"), 1)
    g.apply(play("2H"), 0)  # seat 1 wins trick 1 and leads trick 2
    g.apply(play("6H"), 1)
    return C.NAMES[BOT.choose(g, 0, random.Random(0)).value]


def test_bot_follows_cheaply_to_win_a_good_card_and_low_otherwise() -> None:
    assert _bot_follows("AD") == "7H"  # an ace face up: win as cheaply as possible
    assert _bot_follows("JC") == "7H"  # a trump (the jack) face up: worth it
    assert _bot_follows("4D") == "3H"  # a low side card: throw the lowest


def test_bot_in_stage_two_wins_with_the_cheapest_card_that_beats() -> None:
    rng = random.Random(2)
    deck = list(range(52))
    rng.shuffle(deck)
    g = game(deck)
    checked = 0
    while g.phase == "play":
        s = g.turn_seats()[0]
        a = BOT.choose(g, s, rng)
        if g.stage == 2 and g.trick:
            led_card = g.trick[0][1]
            legal = [x.value for x in g.legal_actions(s)]
            beat = [c for c in legal if (c // 13 == led_card // 13 and c > led_card)
                    or (c // 13 == g.trump != led_card // 13)]
            if beat:
                assert a.value in beat
                checked += 1
        g.apply(a, s)
    assert checked >= 1


def test_bot_beats_random_play() -> None:
    """Stage-two tricks of the bot against a random player over fixed deals (not timed)."""
    bot_tricks = rand_tricks = 0
    for seed in range(30):
        rng = random.Random(seed)
        deck = list(range(52))
        rng.shuffle(deck)
        g = game(deck)
        while g.phase == "play":
            s = g.turn_seats()[0]
            a = BOT.choose(g, s, rng) if s == seed % 2 else rng.choice(g.legal_actions(s))
            g.apply(a, s)
        bot_tricks += g.tricks2[seed % 2]
        rand_tricks += g.tricks2[1 - seed % 2]
    assert bot_tricks > rand_tricks * 1.3
