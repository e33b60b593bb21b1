"""Each finished hand keeps its figures in its ``hand_results`` row (``figures``): what each seat
bid and took. The kiosk's hand summary reads them; they must agree with the hand's scoring and
survive the next deal (which resets the hand's own fields)."""

from __future__ import annotations

import random

import pytest

from trickref.engine import cards as C
from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.hearts_common import POINTS

GAMES = [("hearts", 4, {}), ("hearts", 3, {}), ("hearts", 5, {"omnibus": True}), ("cancellation-hearts", 6, {}),
         ("cancellation-hearts", 8, {"last_trick_cancelled": "leader"}), ("spades-2p", 2, {}),
         ("partnership-spades", 4, {}), ("german-whist", 2, {})]


def play_hands(game: str, players: int, options: dict, hands: int, seed: int):
    """A bot game, and the public view just after each hand ended (before the next deal)."""
    st = new_game(game, players, options, 0, None)
    rng = random.Random(seed)
    bot = bot_for(game)
    ends = []
    while len(st.hand_results) < hands and not st.over:
        if st.needs_deck:
            deck = C.full_deck(st.DECKS)
            rng.shuffle(deck)
            st.start_hand(deck)
            continue
        before = st.copy()
        seat = st.turn_seats()[0]
        st.apply(bot.choose(st, seat, rng), seat)
        if st.phase in ("deal", "over"):
            ends.append((before, st.public_view()))
    return st, ends


@pytest.mark.parametrize("game,players,options", GAMES, ids=[f"{g}-{n}" for g, n, _ in GAMES])
def test_figures_agree_with_the_hand_and_outlive_the_next_deal(game, players, options):
    st, ends = play_hands(game, players, options, 3, seed=players * 7)
    assert ends
    for k, (before, view) in enumerate(ends):
        row = view["hand_results"][-1]
        f = row["figures"]
        assert st.hand_results[k]["figures"] == f  # still there after later deals
        taken = f["tricks_taken"]
        assert len(taken) == players
        if game.startswith("hearts") or game == "cancellation-hearts":
            tricks = 52 * st.DECKS // players
            if game == "hearts":
                assert sum(taken) == tricks
            else:  # a trick whose cards all cancelled is won by nobody
                assert sum(taken) <= tricks
            pts = [h * POINTS[C.parse("2H")] + q * POINTS[C.QS] for h, q in zip(f["hearts"], f["queens"], strict=True)]
            if before.phase != "moon" and not options.get("omnibus"):
                assert pts == row["points"], (k, f, row["points"])
        elif game == "german-whist":
            assert sum(f["tricks_stage1"]) == 13 and sum(f["tricks_stage2"]) == 13
            assert taken == [a + b for a, b in zip(f["tricks_stage1"], f["tricks_stage2"], strict=True)]
        else:
            assert sum(taken) == 13
            # the bids of the hand, as they were made (the view hides them once the hand ends)
            assert f["bids"] == [None if b < 0 else b for b in before.bids]


def test_german_whist_names_the_last_tricks_winner():
    st = new_game("german-whist", 2, None, 0, None)
    rng = random.Random(3)
    deck = C.full_deck(1)
    rng.shuffle(deck)
    st.start_hand(deck)
    bot = bot_for("german-whist")
    for _ in range(2):
        seat = st.turn_seats()[0]
        st.apply(bot.choose(st, seat, rng), seat)
    v = st.public_view()
    assert v["last_trick"] and v["last_trick_winner"] == v["leader"] == st.turn_seats()[0]


@pytest.mark.parametrize("game,players", [("hearts", 4), ("hearts", 5), ("cancellation-hearts", 7), ("spades-2p", 2),
                                          ("partnership-spades", 4), ("german-whist", 2)])
def test_the_view_names_who_is_taking_the_trick_in_progress(game, players):
    """``trick_winning``: the seat whose card takes the trick so far (the highest trump, else the
    highest of the suit led; in Cancellation Hearts a card played twice cancels)."""
    from trickref.engine.base import trick_winner

    st = new_game(game, players, None, 0, None)
    rng = random.Random(5)
    bot = bot_for(game)
    seen = 0
    while len(st.hand_results) < 1:
        if st.needs_deck:
            deck = C.full_deck(st.DECKS)
            rng.shuffle(deck)
            st.start_hand(deck)
            continue
        seat = st.turn_seats()[0]
        st.apply(bot.choose(st, seat, rng), seat)
        v = st.public_view()
        trick = [(int(s), C.parse(c)) for s, c in v.get("trick") or []]
        if not trick:
            assert v.get("trick_winning") is None
            continue
        seen += 1
        if game == "cancellation-hearts":
            led = trick[0][1] // 13
            cards = [c for _, c in trick]
            live = [(c, s) for s, c in trick if c // 13 == led and cards.count(c) == 1]
            expect = max(live)[1] if live else None
        else:
            trump = v.get("trump")
            suit = None if trump is None else ("SHDC".index(trump) if len(trump) == 1 else C.SUIT_NAMES.index(trump))
            expect = trick_winner(trick, suit)
        assert v["trick_winning"] == expect, (trick, v.get("trump"))
    assert seen > 5
