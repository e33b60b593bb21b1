"""Cancellation Hearts (seed 001, RULES.md "cancellation-hearts"): every rule and option."""

from __future__ import annotations

import random

import pytest
from engine_helpers import card_names_in
from test_hearts_support import deck_for, play

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.cancellation_hearts import CancellationHeartsState
from trickref.engine.games import new_game

GAME = "cancellation-hearts"


def new(n: int = 6, dealer: int = 0, **options: object) -> CancellationHeartsState:
    st = new_game(GAME, n, options, first_dealer=dealer)
    assert isinstance(st, CancellationHeartsState)
    return st


def lowest(st: CancellationHeartsState) -> None:
    """The seat on turn plays its lowest legal card (or makes its first legal choice)."""
    s = st.turn_seats()[0]
    st.apply(st.legal_actions(s)[0], s)


def finish_hand(st: CancellationHeartsState) -> None:
    while st.phase in ("pass", "play"):
        lowest(st)


def to_hand(st: CancellationHeartsState, number: int) -> None:
    rng = random.Random(number)
    while st.hand_number < number:
        if st.needs_deck:
            d = C.full_deck(2)
            rng.shuffle(d)
            st.start_hand(d)
            continue
        lowest(st)


# ---------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("n,each,widow", [(6, 17, 2), (7, 14, 6), (8, 13, 0), (9, 11, 5), (10, 10, 4), (11, 9, 5)])
def test_deal_sizes_and_widow(n: int, each: int, widow: int) -> None:
    st = new(n, dealer=3)
    deck = C.full_deck(2)
    random.Random(n).shuffle(deck)
    st.start_hand(deck)
    assert [len(st.hand_of(s)) for s in range(n)] == [each] * n
    assert sorted(st.widow) == sorted(deck[each * n:]) and len(st.widow) == widow
    for k in range(each * n):
        assert deck[k] in st.hand_of((3 + 1 + k) % n)
    held = sorted(c for s in range(n) for c in st.hand_of(s))
    assert sorted(held + st.widow) == sorted(deck)
    v = st.public_view()
    assert v["widow_size"] == widow and v["widow_on_table"] == (widow > 0) and v["widow_taker"] is None
    assert "widow" not in v and all("widow" not in st.view(s) for s in range(n))


def test_deal_one_at_a_time_from_dealers_left() -> None:
    st = new(7, dealer=5)
    deck = C.full_deck(2)
    st.start_hand(deck)  # 2S 3S 4S ... : seat 6 gets the 2S, seat 0 the 3S, ...
    assert C.parse("2S") in st.hand_of(6) and C.parse("3S") in st.hand_of(0)
    assert C.parse("4S") in st.hand_of(1)


# ---------------------------------------------------------------------------- passing


@pytest.mark.parametrize("mode,dirs", [
    ("left-right", ["left", "right", "left", "right"]),
    ("right", ["right", "right", "right", "right"]),
    ("none", ["none", "none", "none", "none"]),
])
def test_passing_option(mode: str, dirs: list[str]) -> None:
    st = new(6, passing=mode, target=10**6)
    seen = []
    for h in range(1, 5):
        to_hand(st, h)
        seen.append(st.public_view()["pass_direction"])
        assert st.phase == ("play" if mode == "none" else "pass")
    assert seen == dirs


def test_pass_of_identical_cards_and_arrival_after_all() -> None:
    st = new(6)
    st.start_hand(deck_for(GAME, 6, {2: ["AS", "AS", "KH"]}))
    legal = st.legal_actions(2)
    assert len(legal) == len(set(legal))
    assert A.pass_cards(["AS", "AS", "KH"]) in legal
    assert st.check(A.pass_cards(["KH", "KH", "AS"]), 2) == "you hold KH only 1 time(s)"
    st.apply(A.pass_cards(["AS", "AS", "KH"]), 2)
    assert C.parse("AS") not in st.hand_of(2)
    before3 = st.hand_of(3)
    for s in (5, 0, 1, 4):
        st.apply(A.pass_cards(st.hand_of(s)[:3]), s)
        assert st.hand_of(3) == before3  # nothing arrives before everyone has passed
    assert st.turn_seats() == (3,)
    st.apply(A.pass_cards(st.hand_of(3)[:3]), 3)
    assert st.phase == "play"
    assert st.hand_of(3).count(C.parse("AS")) == 2 and C.parse("KH") in st.hand_of(3)
    assert st.view(3)["received_cards"] == ["AS", "AS", "KH"]


# ---------------------------------------------------------------------------- leads


def test_first_lead_left_of_dealer_no_heart_or_qs() -> None:
    st = new(6, dealer=4, passing="none")
    st.start_hand(deck_for(GAME, 6, {5: ["QS", "AH", "2C"]}, dealer=4))
    assert st.turn_seats() == (5,)
    assert st.check(A.play("QS"), 5) == "the first lead may not be a heart or QS"
    assert st.check(A.play("AH"), 5) == "the first lead may not be a heart or QS"
    assert all(not (a.value // 13 == C.HEARTS or a.value == C.QS) for a in st.legal_actions(5))
    assert st.check(A.play("2C"), 5) is None


def test_first_lead_of_only_hearts_and_qs() -> None:
    hand = ["QS", "QS"] + [r + "H" for r in "AKQJT98765432"] + ["AH", "KH"]
    st = new(6, passing="none")
    st.start_hand(deck_for(GAME, 6, {1: hand}))
    assert st.check(A.play("QS"), 1) is None and st.check(A.play("AH"), 1) is None
    assert len(st.legal_actions(1)) == 14


def test_qs_may_be_led_after_the_first_lead_and_hearts_wait() -> None:
    st = new(6, passing="none")
    # seat 1 wins trick 1 with the only AC (the other AC is in the widow) and then leads
    st.start_hand(deck_for(GAME, 6, {1: ["AC", "QS", "2H", "2S"], 2: ["2C"], 3: ["3C"], 4: ["4C"], 5: ["5C"], 0: ["6C"]},
                           widow=["AC", "KC"]))
    play(st, "AC", "2C", "3C", "4C", "5C", "6C")
    assert st.leader == 1 and st.to_move == 1 and not st.broken
    assert st.check(A.play("2H"), 1) == "hearts are not broken"
    assert st.check(A.play("QS"), 1) is None
    assert A.play("QS") in st.legal_actions(1) and A.play("2H") not in st.legal_actions(1)
    assert st.widow_taker == 1 and st.public_view()["widow_on_table"] is False
    assert sorted(st.view(1)["widow"]) == ["AC", "KC"] and "widow" not in st.view(2)
    play(st, "QS")
    assert st.broken


def test_no_points_on_first_trick_option() -> None:
    for on in (False, True):
        st = new(6, passing="none", no_points_on_first_trick=on)
        st.start_hand(deck_for(GAME, 6, {1: ["2C"], 2: ["AH", "QS", "5D"]}, voids={2: "C"}))
        play(st, "2C")
        reason = st.check(A.play("AH"), 2)
        assert reason == ("no hearts or QS on the first trick" if on else None)
        assert (A.play("QS") in st.legal_actions(2)) is (not on)
        assert st.check(A.play("5D"), 2) is None


def test_no_points_on_first_trick_when_holding_nothing_else() -> None:
    hand = ["QS", "QS"] + [r + "H" for r in "AKQJT98765432"] + ["AH", "KH"]
    st = new(6, passing="none", no_points_on_first_trick=True)
    st.start_hand(deck_for(GAME, 6, {1: ["2C"], 2: hand}))
    play(st, "2C")
    assert st.check(A.play("QS"), 2) is None and len(st.legal_actions(2)) == 14


def test_must_follow_suit() -> None:
    st = new(6, passing="none")
    st.start_hand(deck_for(GAME, 6, {1: ["2C"], 2: ["3C", "AS"]}))
    play(st, "2C")
    assert st.check(A.play("AS"), 2) == "must follow clubs"
    assert all(a.value // 13 == C.CLUBS for a in st.legal_actions(2))


# ---------------------------------------------------------------------------- cancellation


def test_identical_cards_cancel_and_the_next_highest_wins() -> None:
    st = new(6, passing="none")
    st.start_hand(deck_for(GAME, 6, {1: ["AS"], 2: ["AS"], 3: ["KS"], 4: ["2S"], 5: ["3S"], 0: ["4S"]},
                           widow=["KS", "QS"]))
    play(st, "AS", "AS", "KS", "2S", "3S", "4S")
    assert st.tricks[-1][2] == 3 and st.leader == 3 and st.to_move == 3
    assert st.widow_taker == 3 and st.points_taken[3] == 13  # the widow's QS
    assert st.public_view()["tricks_taken"] == [0, 0, 0, 1, 0, 0]


def test_off_suit_pairs_do_not_matter() -> None:
    st = new(6, passing="none")
    st.start_hand(deck_for(GAME, 6, {1: ["2S"], 2: ["5D"], 3: ["5D"], 4: ["3S"], 5: ["9H"], 0: ["9H"]},
                           voids={2: "S", 3: "S", 5: "S", 0: "S"}))
    play(st, "2S", "5D", "5D", "3S", "9H", "9H")
    assert st.tricks[-1][2] == 4 and st.points_taken[4] == 2 + sum(
        1 if c // 13 == C.HEARTS else 13 if c == C.QS else 0 for c in st.widow)


def seed_example_void() -> CancellationHeartsState:
    """The seed's example at six seats: Al (seat 1) leads the 10S, Beth and Charlie (void in
    spades) play the 9H, Dave the 10S, Ed and Fay (void in spades) diamonds."""
    st = new(6, passing="none")
    st.start_hand(deck_for(GAME, 6, {
        1: ["TS", "AS", "3C"], 2: ["9H"], 3: ["9H"], 4: ["TS", "4S"], 5: ["2D", "3D"], 0: ["4D", "5D"],
    }, voids={2: "S", 3: "S", 5: "S", 0: "S"}, widow=["AS", "5H"]))
    return st


def test_seed_example_nobody_wins_the_cards_wait_and_the_same_player_leads() -> None:
    st = seed_example_void()
    play(st, "TS", "9H", "9H", "TS", "2D", "4D")
    assert st.tricks[-1] == (1, tuple(C.parse_all(["TS", "9H", "9H", "TS", "2D", "4D"])), -1)
    assert st.to_move == 1 and st.leader == 1
    assert st.tricks_taken == [0] * 6 and st.points_taken == [0] * 6
    v = st.public_view()
    assert sorted(v["waiting"]) == sorted(["TS", "9H", "9H", "TS", "2D", "4D"])
    assert v["widow_on_table"] is True and v["last_trick_winner"] is None
    assert v["broken"] is True  # hearts were played
    # the next won trick takes the waiting cards and the widow (AS, 5H)
    play(st, "AS")
    for _ in range(5):
        lowest(st)
    assert st.tricks[-1][2] == 1
    assert st.widow_taker == 1 and st.public_view()["waiting"] == []
    assert st.points_taken[1] == 2 + 1 + sum(1 for c in st.tricks[-1][1] if c // 13 == C.HEARTS) + (
        13 if C.QS in st.tricks[-1][1] else 0)
    assert st.tricks_taken[1] == 1


def identical_hands_deck(n: int = 6, seed: int = 0) -> tuple[list[int], list[list[int]]]:
    """Seats 1+2, 3+4 and 5+0 hold identical hands (two decks), the widow is a pair: playing
    the lowest legal card every time, every trick is fully cancelled."""
    assert n == 6
    cards = list(range(52))
    random.Random(seed).shuffle(cards)
    sets = [cards[0:17], cards[17:34], cards[34:51]]
    w = cards[51]
    hands = {1: sets[0], 2: sets[0], 3: sets[1], 4: sets[1], 5: sets[2], 0: sets[2]}
    deck = []
    for i in range(17):
        for k in range(6):
            deck.append(hands[(1 + k) % 6][i])
    return deck + [w, w], sets


def test_waiting_cards_accumulate_and_a_cancelled_last_trick_goes_to_nobody() -> None:
    st = new(6, passing="none")
    deck, _ = identical_hands_deck()
    st.start_hand(deck)
    for t in range(16):
        for _ in range(6):
            lowest(st)
        assert st.tricks[-1][2] == -1 and st.leader == 1
        assert len(st.waiting) == 6 * (t + 1)
    for _ in range(6):
        lowest(st)
    assert st.phase == "deal"
    assert st.hand_results[-1]["points"] == [0] * 6
    assert st.tricks_taken == [0] * 6 and st.widow_taker == -1


def test_a_cancelled_last_trick_goes_to_its_leader_by_option() -> None:
    st = new(6, passing="none", last_trick_cancelled="leader")
    deck, _ = identical_hands_deck()
    st.start_hand(deck)
    for _ in range(17 * 6):
        lowest(st)
    # the leader takes every card, the widow too: all 26 hearts and both QS, the moon
    assert st.widow_taker == 1 and st.tricks_taken == [0, 1, 0, 0, 0, 0]
    assert st.points_taken == [0, 52, 0, 0, 0, 0]
    assert st.phase == "moon" and st.turn_seats() == (1,)
    st.apply(A.MOON_SELF, 1)
    assert st.hand_results[-1]["points"] == [0, -28, 0, 0, 0, 0]


@pytest.mark.parametrize("choice,opts,expect", [
    ("self", {}, [0, -28, 0, 0, 0, 0]),
    ("others", {}, [26, 0, 26, 26, 26, 26]),
    ("self", {"moon_self": -52, "moon_others": 52}, [0, -52, 0, 0, 0, 0]),
    ("others", {"moon_self": -52, "moon_others": 52}, [52, 0, 52, 52, 52, 52]),
])
def test_moon_choices_and_options(choice: str, opts: dict[str, int], expect: list[int]) -> None:
    st = new(6, passing="none", last_trick_cancelled="leader", **opts)
    deck, _ = identical_hands_deck(seed=3)
    st.start_hand(deck)
    for _ in range(17 * 6):
        lowest(st)
    assert st.phase == "moon"
    assert st.check(A.play("2C"), 1) == "the moon shooter must choose \"self\" or \"others\""
    st.apply(A.Action("moon", choice), 1)
    assert st.hand_results[-1]["points"] == expect


def test_points_are_hearts_and_queens() -> None:
    """Random deals played lowest-legal: each seat's points are its hearts (1) and QS (13) from
    the tricks and widow it took, recomputed from the trick history and cancellation rule."""
    for seed in range(8):
        n = 6 + seed % 6
        st = new(n, target=10**6)
        rng = random.Random(seed)
        d = C.full_deck(2)
        rng.shuffle(d)
        st.start_hand(d)
        finish_hand(st)
        if st.phase == "moon":
            continue
        pts = [0] * n
        pending: list[int] = []
        widow_taken = False
        for i, (leader, cards, w) in enumerate(st.tricks):
            led = cards[0] // 13
            alive = [c for c in cards if c // 13 == led and cards.count(c) == 1]
            pending += cards
            if not alive:
                assert w == -1
                if i == len(st.tricks) - 1 and st.options["last_trick_cancelled"] == "leader":
                    w = leader
                else:
                    continue
            else:
                assert w == (leader + cards.index(max(alive))) % n
            if not widow_taken:
                pending += st.widow
                widow_taken = True
            pts[w] += sum(1 if c // 13 == C.HEARTS else 13 if c == C.QS else 0 for c in pending)
            pending = []
        assert st.hand_results[-1]["points"] == pts


# ---------------------------------------------------------------------------- game end


def test_game_end_default_target_150_lowest_wins_ties_play_on() -> None:
    st = new(6)
    assert st.options["target"] == 150
    st.totals = [149, 10, 20, 30, 40, 50]
    assert st._game_end() == (False, [])
    st.totals = [150, 10, 20, 30, 40, 50]
    assert st._game_end() == (True, [1])
    st.totals = [150, 10, 10, 30, 40, 50]
    assert st._game_end() == (False, [])


def test_a_whole_game_ends() -> None:
    st = new(7, target=100)
    rng = random.Random(5)
    while not st.over:
        if st.needs_deck:
            d = C.full_deck(2)
            rng.shuffle(d)
            st.start_hand(d)
        else:
            s = rng.choice(st.turn_seats())
            st.apply(rng.choice(st.legal_actions(s)), s)
    assert max(st.totals) >= 100 and st.winners == [st.totals.index(min(st.totals))]
    assert st.totals.count(min(st.totals)) == 1


def test_public_view_hides_hands_and_widow() -> None:
    st = new(9)
    deck = C.full_deck(2)
    random.Random(9).shuffle(deck)
    st.start_hand(deck)
    assert card_names_in(st.public_view()) == []
    for s in range(9):
        v = st.view(s)
        assert sorted(v["hand"]) == sorted(C.names(st.hand_of(s)))
        assert "widow" not in v
