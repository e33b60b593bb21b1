"""The Hearts and Cancellation Hearts bots: always legal, only their own knowledge, and the
plays a sound player makes (pass the danger, duck, dump the Q♠, lead low, best moon choice,
cancel the winning card in Cancellation Hearts)."""

from __future__ import annotations

import random

import pytest
from engine_helpers import put_hand, scrambled

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.bots import bot_for
from trickref.engine.bots._hearts_play import HeartsBot
from trickref.engine.games import new_game
from trickref.engine.hearts_common import ONE, HeartsFamilyState

CASES = [("hearts", n) for n in (3, 4, 5, 6, 7)] + [("cancellation-hearts", n) for n in range(6, 12)]


def position(game: str, n: int, seat: int, hand: list[str], trick: list[str], leader: int,
             tricks_played: int = 1, broken: bool = False, **opts: object) -> HeartsFamilyState:
    """A play position built directly (whitebox): ``seat`` holds ``hand`` (set with the
    documented ``engine_helpers.put_hand``) and is on turn after ``trick`` (led by ``leader``).
    Other hands are irrelevant to a bot that does not peek. Short hands like these cannot be
    reached through ``start_hand`` and ``apply``, so the trick fields are written here too;
    the position is for one bot decision only (the engine's trick-winner fields are not set:
    do not ``apply`` from it)."""
    st = new_game(game, n, {"target": 10**6, **opts})
    assert isinstance(st, HeartsFamilyState)
    d = C.full_deck(st.DECKS)
    st.start_hand(d)
    st.phase = "play"
    put_hand(st, seat, C.parse_all(hand))
    st.trick = C.parse_all(trick)
    st.leader = leader
    st.led = st.trick[0] // 13 if st.trick else -1
    st.tricks = [(0, tuple(range(n)), 0)] * tricks_played  # filler history: low spades
    st.broken = broken
    st.turn_t = ONE[seat]
    assert (leader + len(st.trick)) % n == seat
    return st


def choose(st: HeartsFamilyState, seat: int, cancellation: bool | None = None) -> str:
    bot = bot_for(st.GAME_ID) if cancellation is None else HeartsBot(cancellation)
    a = bot.choose(st, seat, random.Random(0))
    assert a in st.legal_actions(seat)
    return C.NAMES[a.value]


# ---------------------------------------------------------------------------- legality


@pytest.mark.parametrize("game,n", CASES)
def test_bots_play_whole_hands_legally(game: str, n: int) -> None:
    rng = random.Random(n)
    bot = bot_for(game)
    st = new_game(game, n, {"target": 10**6})
    for _ in range(2):
        d = C.full_deck(st.DECKS)
        rng.shuffle(d)
        st.start_hand(d)
        while st.phase not in ("deal", "over"):
            for seat in st.turn_seats():
                a = bot.choose(st, seat, rng)
                assert a in st.legal_actions(seat)
                st.apply(a, seat)
                break
    assert len(st.hand_results) == 2


@pytest.mark.parametrize("game,n", [("hearts", 4), ("hearts", 5), ("cancellation-hearts", 6), ("cancellation-hearts", 10)])
def test_bots_do_not_peek_at_other_hands(game: str, n: int) -> None:
    """Moving the cards the seat cannot see between the other seats (and the widow), consistently
    with everything it saw (engine_helpers.scrambled), never changes a choice."""
    rng = random.Random(1)
    bot = bot_for(game)
    st = new_game(game, n, {"target": 10**6})
    assert isinstance(st, HeartsFamilyState)
    d = C.full_deck(st.DECKS)
    rng.shuffle(d)
    st.start_hand(d)
    steps = moved = 0
    while st.phase not in ("deal", "over"):
        seat = st.turn_seats()[0]
        a = bot.choose(st, seat, random.Random(steps))
        if st.phase == "play":
            other = scrambled(st, seat, rng)
            moved += any(other.hand_of(s) != st.hand_of(s) for s in range(n))
            assert bot.choose(other, seat, random.Random(steps)) == a
        st.apply(a, seat)
        steps += 1
    assert moved >= steps // 3, (moved, steps)


# ---------------------------------------------------------------------------- passing


def test_passes_the_queen_and_high_spades_without_cover() -> None:
    st = new_game("hearts", 4)
    from test_hearts_support import deck_for

    st.start_hand(deck_for("hearts", 4, {1: ["QS", "AS", "KS", "2S", "2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D", "2H"]}))
    a = bot_for("hearts").choose(st, 1, random.Random(0))
    assert a == A.pass_cards(["QS", "AS", "KS"])


def test_passes_high_hearts_when_spades_are_safe() -> None:
    st = new_game("hearts", 4)
    from test_hearts_support import deck_for

    st.start_hand(deck_for("hearts", 4, {1: ["2S", "3S", "4S", "5S", "AH", "KH", "QH", "2C", "3C", "4C", "2D", "3D", "4D"]}))
    a = bot_for("hearts").choose(st, 1, random.Random(0))
    assert a == A.pass_cards(["AH", "KH", "QH"])


# ---------------------------------------------------------------------------- trick play


def test_ducks_with_the_highest_card_that_still_loses() -> None:
    st = position("hearts", 4, 2, ["AS", "JS", "3S", "5D"], ["4S", "KS"], leader=0)
    assert choose(st, 2) == "JS"


def test_dumps_the_queen_under_a_higher_spade() -> None:
    st = position("hearts", 4, 2, ["QS", "3S", "5D"], ["4S", "AS"], leader=0)
    assert choose(st, 2) == "QS"


def test_dumps_the_queen_then_high_hearts_when_void() -> None:
    st = position("hearts", 4, 3, ["QS", "AH", "2H", "KD"], ["2C", "5C", "9C"], leader=0, broken=True)
    assert choose(st, 3) == "QS"
    st = position("hearts", 4, 3, ["AH", "2H", "KD", "3S"], ["2C", "5C", "9C"], leader=0, broken=True)
    assert choose(st, 3) == "AH"


def test_last_to_play_takes_a_clean_trick_with_its_highest_card() -> None:
    st = position("hearts", 4, 3, ["AD", "KD"], ["2D", "5D", "9D"], leader=0)
    assert choose(st, 3) == "AD"
    st = position("hearts", 4, 3, ["AD", "KD", "3D"], ["2D", "5D", "9D"], leader=0)
    assert choose(st, 3) == "3D"  # ducking is still better


def test_leads_low() -> None:
    st = position("hearts", 4, 1, ["AD", "KD", "4D", "9C", "JC"], [], leader=1)
    assert choose(st, 1) == "4D"


def test_smokes_out_the_queen_with_a_low_spade() -> None:
    st = position("hearts", 4, 1, ["3S", "AD", "KD", "2D", "9C"], [], leader=1)
    assert choose(st, 1) == "3S"
    st = position("hearts", 4, 1, ["3S", "QS", "KD", "2D", "9C"], [], leader=1)
    assert choose(st, 1) == "2D"  # holding the queen: no spade leads


def test_cancellation_bot_cancels_the_winning_card() -> None:
    # KS led, AS winning; seat 2 holds the other AS: playing it cancels both aces, KS wins
    st = position("cancellation-hearts", 6, 2, ["AS", "2S", "5D"], ["KS", "AS"], leader=0)
    assert choose(st, 2) == "AS"
    # two aces already cancelled: the 9S is winning, so the KS would win; duck with the 2S
    st = position("cancellation-hearts", 6, 3, ["KS", "2S", "5D"], ["9S", "AS", "AS"], leader=0)
    assert choose(st, 3) == "2S"
    assert choose(st, 3, cancellation=False) == "KS"  # blind to cancellation, it would take it


# ---------------------------------------------------------------------------- the moon


def moon_state(totals: list[int], **opts: object) -> HeartsFamilyState:
    from test_hearts import no_pass_game, shoot

    st = no_pass_game(**opts)
    st.options["target"] = 100
    st.totals = totals[:]
    shoot(st)
    assert st.phase == "moon" and st.turn_seats() == (0,)
    return st


@pytest.mark.parametrize("totals,opts,expect", [
    ([60, 20, 80, 90], {}, "self"),  # "others" would end the game with seat 1 lowest
    ([90, 80, 80, 80], {}, "others"),  # "others" ends the game with the shooter lowest
    ([10, 20, 20, 20], {}, "others"),  # a margin of +36 beats +35
    ([10, 20, 20, 20], {"moon_self": -52}, "self"),  # +62 beats +36
])
def test_moon_choice_compares_the_results(totals: list[int], opts: dict[str, int], expect: str) -> None:
    st = moon_state(totals, **opts)
    a = bot_for("hearts").choose(st, 0, random.Random(0))
    assert a.value == expect
