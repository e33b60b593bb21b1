"""Hearts (seed 004, RULES.md "hearts"): every rule and option, one test or more each."""

from __future__ import annotations

import pytest
from engine_helpers import card_names_in
from test_hearts_support import deck_for, names, play

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game
from trickref.engine.hearts import HeartsState


def new(n: int = 4, dealer: int = 0, **options: object) -> HeartsState:
    st = new_game("hearts", n, options, first_dealer=dealer)
    assert isinstance(st, HeartsState)
    return st


def skip_passes(st: HeartsState) -> None:
    """Everyone passes their three lowest cards (only where a test does not care)."""
    while st.phase == "pass":
        s = st.turn_seats()[0]
        st.apply(A.pass_cards(st.hand_of(s)[:3]), s)


def to_hand(st: HeartsState, number: int) -> None:
    """Play whole hands (lowest legal card each time) until hand ``number`` is being dealt."""
    import random

    rng = random.Random(number)
    while st.hand_number < number:
        if st.needs_deck:
            d = C.full_deck()
            rng.shuffle(d)
            st.start_hand(d)
            continue
        s = st.turn_seats()[0]
        st.apply(st.legal_actions(s)[0], s)
    assert not st.needs_deck


# ---------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("n,removed,each", [
    (3, ["2D"], 17), (4, [], 13), (5, ["2D", "2C"], 10), (6, ["2D", "3D", "3C", "4C"], 8), (7, ["2D", "3D", "3C"], 7),
])
def test_removed_cards_and_hand_sizes(n: int, removed: list[str], each: int) -> None:
    st = new(n, dealer=n - 1)
    st.start_hand(list(range(52)))
    held = [c for s in range(n) for c in st.hand_of(s)]
    assert sorted(held) == sorted(set(range(52)) - {C.parse(x) for x in removed})
    assert [len(st.hand_of(s)) for s in range(n)] == [each] * n
    assert st.public_view()["removed"] == removed


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("dealer", [0, 2])
def test_deal_one_at_a_time_from_dealers_left_skipping_removed(n: int, dealer: int) -> None:
    st = new(n, dealer=dealer)
    deck = list(range(51, -1, -1))  # AC first: the removed low cards come off late
    st.start_hand(deck)
    removed = {C.parse(x) for x in {3: ["2D"], 4: [], 5: ["2D", "2C"], 6: ["2D", "3D", "3C", "4C"], 7: ["2D", "3D", "3C"]}[n]}
    dealt = [c for c in deck if c not in removed]
    for k, c in enumerate(dealt):
        assert c in st.hand_of((dealer + 1 + k) % n), (k, C.NAMES[c])
    assert C.NAMES[deck[0]] == "AC" and deck[0] in st.hand_of((dealer + 1) % n)


# ---------------------------------------------------------------------------- passing


def test_pass_directions_four_players_left_right_across_none() -> None:
    st = new(4, target=10**6)
    seen = []
    for h in range(1, 7):
        to_hand(st, h)
        seen.append((st.phase, st.public_view()["pass_direction"]))
    assert seen == [("pass", "left"), ("pass", "right"), ("pass", "across"), ("play", "none"),
                    ("pass", "left"), ("pass", "right")]


@pytest.mark.parametrize("n", [3, 5, 6, 7])
def test_pass_directions_other_counts_left_right(n: int) -> None:
    st = new(n, target=10**6)
    dirs = []
    for h in range(1, 5):
        to_hand(st, h)
        dirs.append(st.public_view()["pass_direction"])
    assert dirs == ["left", "right", "left", "right"]


@pytest.mark.parametrize("hand,offset", [(1, 1), (2, 3), (3, 2)])
def test_passes_are_simultaneous_and_arrive_when_all_have_passed(hand: int, offset: int) -> None:
    st = new(4, target=10**6)
    to_hand(st, hand)
    assert st.phase == "pass" and st.turn_seats() == (0, 1, 2, 3)
    assert st.to_move is None
    before = [st.hand_of(s) for s in range(4)]
    order = [2, 0, 3, 1]  # any seat order
    passed = {}
    for i, s in enumerate(order):
        cards = before[s][-3:]
        passed[s] = cards
        st.apply(A.pass_cards(cards), s)
        if i < 3:
            assert st.phase == "pass"
            assert st.turn_seats() == tuple(sorted(order[i + 1:]))
            # nobody has received anything yet; the passer's cards left its hand
            for t in range(4):
                want = [c for c in before[t] if c not in passed.get(t, [])]
                assert st.hand_of(t) == want
            assert st.public_view()["passed"] == sorted(order[: i + 1])
            assert st.view(s)["received_cards"] == []
    assert st.phase == "play"
    for s in range(4):
        to = (s + offset) % 4
        assert set(passed[s]) <= set(st.hand_of(to))
        assert st.view(to)["received_cards"] == C.names(passed[s])
        assert st.view(s)["passed_cards"] == C.names(passed[s])
        assert st.view(s)["pass_to"] == to
        assert len(st.hand_of(s)) == 13


def test_a_seat_passes_only_once_and_only_cards_it_holds() -> None:
    st = new(4)
    st.start_hand(deck_for("hearts", 4, {1: ["AS", "KS", "QS", "JS"], 2: ["AH"]}))
    assert st.check(A.pass_cards(["AH", "KS", "QS"]), 1) == "you do not hold AH"
    assert st.check(A.Action("pass", (C.parse("QS"), C.parse("KS"))), 1) == "a pass is exactly 3 cards"
    unsorted = A.Action("pass", (C.parse("AS"), C.parse("KS"), C.parse("QS")))
    assert "sorted" in (st.check(unsorted, 1) or "")
    assert st.check(A.Action("pass", (C.parse("QS"), C.parse("QS"), C.parse("AS"))), 1) is not None
    assert st.check(A.play("QS"), 1) == "everyone passes 3 cards first"
    st.apply(A.pass_cards(["AS", "KS", "QS"]), 1)
    assert st.check(A.pass_cards(st.hand_of(1)[:3]), 1) is not None
    with pytest.raises(IllegalAction):
        st.apply(A.pass_cards(st.hand_of(1)[:3]), 1)
    assert 1 not in st.turn_seats()
    # the legal passes are exactly the 3-card subsets of the hand
    legal = st.legal_actions(2)
    assert len(legal) == 286 and len(set(legal)) == 286
    assert all(st.check(a, 2) is None for a in legal)


# ---------------------------------------------------------------------------- the first trick


def test_holder_of_2c_leads_it() -> None:
    st = new(4, dealer=1, target=10**6)
    to_hand(st, 4)  # the fourth hand: no pass
    assert st.phase == "play"
    holder = next(s for s in range(4) if C.parse("2C") in st.hand_of(s))
    assert st.turn_seats() == (holder,)
    assert list(st.legal_actions(holder)) == [A.play("2C")]
    other = next(c for c in st.hand_of(holder) if c != C.parse("2C"))
    assert st.check(A.PLAY[other], holder) == "the first lead must be the 2C"


def test_five_players_lead_the_3c() -> None:
    st = new(5)
    st.start_hand(deck_for("hearts", 5, {3: ["3C"]}))
    skip_passes(st)
    holder = next(s for s in range(5) if C.parse("3C") in st.hand_of(s))
    assert st.turn_seats() == (holder,)
    assert list(st.legal_actions(holder)) == [A.play("3C")]
    assert st.check(A.play(C.NAMES[next(c for c in st.hand_of(holder) if c != C.parse('3C'))]), holder) == "the first lead must be the 3C"


def no_pass_game(n: int = 4, **opts: object) -> HeartsState:
    """A four-player game at its fourth hand (no pass), ready for a chosen deal."""
    st = new(n, target=10**6, **opts)
    to_hand(st, 3)
    while st.phase != "deal":
        s = st.turn_seats()[0]
        st.apply(st.legal_actions(s)[0], s)
    assert st.needs_deck and st.hand_number == 3
    return st


def test_follow_suit_and_void_on_first_trick() -> None:
    st = no_pass_game()
    d = st.dealer
    # seat 0 leads 2C; seat 1 void in clubs with safe cards; seat 2 only hearts + QS with no clubs
    hands = {
        0: ["2C", "3C", "4C", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D", "5D"],
        1: ["QS", "AH", "KH", "AS", "KS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S"],
        2: ["QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H", "3S", "2S"],
    }
    st.start_hand(deck_for("hearts", 4, hands, dealer=d))
    assert st.phase == "play" and st.turn_seats() == (0,)
    play(st, "2C")
    assert st.check(A.play("QS"), 1) == "no hearts or QS on the first trick"
    assert st.check(A.play("AH"), 1) == "no hearts or QS on the first trick"
    assert A.play("QS") not in st.legal_actions(1)
    assert sorted(a.value for a in st.legal_actions(1)) == sorted(C.parse_all(hands[1][3:]))
    play(st, "AS")
    # seat 2 holds spades besides hearts: may not dump hearts
    assert st.check(A.play("QH"), 2) == "no hearts or QS on the first trick"
    play(st, "3S")
    # seat 3 holds clubs: must follow
    club = next(c for c in st.hand_of(3) if c // 13 == C.CLUBS)
    other = next(c for c in st.hand_of(3) if c // 13 != C.CLUBS)
    assert st.check(A.PLAY[other], 3) == "must follow clubs"
    assert all(a.value // 13 == C.CLUBS for a in st.legal_actions(3))
    st.apply(A.PLAY[club], 3)
    assert not st.broken


def test_void_player_with_only_points_may_play_them_on_the_first_trick() -> None:
    st = no_pass_game()
    hands = {
        0: ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
        1: ["QS", "AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H"],
    }
    st.start_hand(deck_for("hearts", 4, hands, dealer=st.dealer))
    play(st, "2C")
    legal = st.legal_actions(1)
    assert len(legal) == 13 and A.play("QS") in legal
    assert st.check(A.play("QS"), 1) is None
    play(st, "QS")
    assert st.broken  # the Q♠ breaks hearts


def test_hearts_not_led_until_broken_but_qs_may_be_led() -> None:
    st = no_pass_game()
    hands = {
        0: ["2C"],
        1: ["AC", "QS", "2H", "3H", "4H", "5H", "6H", "7H", "2S", "3S", "4S", "5S", "6S"],
    }
    st.start_hand(deck_for("hearts", 4, hands, dealer=st.dealer, voids={2: "H", 3: "H"}))
    play(st, "2C", "AC")
    while st.trick:
        play(st, C.NAMES[st.legal_actions(st.to_move)[0].value])
    assert st.to_move == 1 and not st.broken
    assert st.check(A.play("2H"), 1) == "hearts are not broken"
    legal = {C.NAMES[a.value] for a in st.legal_actions(1)}
    assert legal == {"QS", "2S", "3S", "4S", "5S", "6S"}
    assert st.check(A.play("QS"), 1) is None  # the Q♠ may be led any time
    play(st, "QS")
    assert st.broken  # the Q♠ breaks hearts


def test_leader_holding_only_hearts_may_lead_them() -> None:
    st = no_pass_game()
    hands = {1: ["AC", "AH", "KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H"], 0: ["2C"]}
    st.start_hand(deck_for("hearts", 4, hands, dealer=st.dealer, voids={2: "H", 3: "H"}))
    play(st, "2C", "AC")
    while st.trick:
        play(st, C.NAMES[st.legal_actions(st.to_move)[0].value])
    assert st.to_move == 1 and not st.broken
    assert st.check(A.play("3H"), 1) is None
    assert len(st.legal_actions(1)) == 12
    play(st, "3H")
    assert st.broken


def test_a_heart_discarded_breaks_hearts() -> None:
    st = no_pass_game()
    hands = {0: ["2C", "AC", "KC"], 1: ["3C", "AH"], 2: ["4C"], 3: ["5C", "6C"]}
    st.start_hand(deck_for("hearts", 4, hands, dealer=st.dealer, voids={1: "C"}))
    # seat 1 holds clubs (3C) on trick 1; the second trick is led by seat 3 (5C wins)
    play(st, "2C", "3C", "4C", "5C")
    assert st.leader == 3 and not st.broken
    play(st, "6C", "AC")  # seat 0
    play(st, "AH")  # seat 1: void in clubs now, the heart is allowed after trick 1
    assert st.broken


def test_you_do_not_hold_and_turn_order() -> None:
    st = no_pass_game()
    st.start_hand(deck_for("hearts", 4, {0: ["2C"], 1: ["AS"]}, dealer=st.dealer))
    assert st.check(A.play("AS"), 0) == "you do not hold AS"
    assert st.check(A.play("AS"), 1) == "it is seat 0's turn"
    with pytest.raises(IllegalAction) as e:
        st.apply(A.play("AS"), 0)
    assert str(e.value) == "seat 0 cannot play AS: you do not hold AS"
    assert st.check(A.MOON_SELF, 0) == "it is time to play a card"
    assert st.check(A.Action("play", 99), 0) == "not a card: 99"


def test_trick_winner_is_highest_of_led_suit_and_leads_next() -> None:
    st = no_pass_game()
    hands = {
        0: ["2C", "AD"], 1: ["KC", "AS"], 2: ["AH", "QS"], 3: ["5C", "3D"],
    }
    st.start_hand(deck_for("hearts", 4, hands, dealer=st.dealer, voids={2: "C"}))
    play(st, "2C", "KC")
    safe = next(c for c in st.hand_of(2) if not (c // 13 == C.HEARTS or c == C.QS))
    st.apply(A.PLAY[safe], 2)
    play(st, "5C")
    assert st.tricks[-1] == (0, (C.parse("2C"), C.parse("KC"), safe, C.parse("5C")), 1)
    assert st.turn_seats() == (1,) and st.leader == 1
    v = st.public_view()
    assert v["last_trick"] == [[0, "2C"], [1, "KC"], [2, C.NAMES[safe]], [3, "5C"]]
    assert v["last_trick_winner"] == 1 and v["tricks_taken"] == [0, 1, 0, 0]


# ---------------------------------------------------------------------------- scoring


def play_out(st: HeartsState, chooser: object = None) -> None:
    """Lowest legal card until the hand needs a moon choice or ends."""
    while st.phase == "play":
        s = st.to_move
        assert s is not None
        st.apply(st.legal_actions(s)[0], s)


def shoot(st: HeartsState) -> int:
    """Deal and play a hand in which seat 0 shoots the moon: it holds every club and leads
    them all; the others, void in clubs, discard their spades, diamonds, hearts and the QS."""
    hands = {
        0: ["2C", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "5C", "4C", "3C"],
        1: ["QS", "AH", "KH", "QH", "JH", "TH", "2S", "3S", "4S", "5S", "6S", "7S", "8S"],
        2: ["9H", "8H", "7H", "6H", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD"],
        3: ["5H", "4H", "3H", "2H", "JD", "QD", "KD", "AD", "9S", "TS", "JS", "KS", "AS"],
    }
    st.start_hand(deck_for("hearts", 4, hands, dealer=st.dealer))
    # seat 0 leads all 13 clubs and wins each trick; the others discard
    discards = {
        1: ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "QS", "AH", "KH", "QH", "JH", "TH"],
        2: ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "9H", "8H", "7H", "6H"],
        3: ["9S", "TS", "JS", "KS", "AS", "JD", "QD", "KD", "AD", "5H", "4H", "3H", "2H"],
    }
    clubs = hands[0]
    for t in range(13):
        play(st, clubs[t], discards[1][t], discards[2][t], discards[3][t])
    return 0


def test_points_accumulate_then_the_moon_phase() -> None:
    st = no_pass_game()
    hands = {
        0: ["2C", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "5C", "4C", "3C"],
        1: ["QS", "AH", "KH", "QH", "JH", "TH", "2S", "3S", "4S", "5S", "6S", "7S", "8S"],
        2: ["9H", "8H", "7H", "6H", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD"],
        3: ["5H", "4H", "3H", "2H", "JD", "QD", "KD", "AD", "9S", "TS", "JS", "KS", "AS"],
    }
    st.start_hand(deck_for("hearts", 4, hands, dealer=st.dealer))
    d1 = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "QS", "AH", "KH", "QH", "JH", "TH"]
    d2 = ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "9H", "8H", "7H", "6H"]
    d3 = ["9S", "TS", "JS", "KS", "AS", "JD", "QD", "KD", "AD", "5H", "4H", "3H", "2H"]
    for t in range(12):
        play(st, hands[0][t], d1[t], d2[t], d3[t])
        if t == 7:
            assert st.points_taken == [13, 0, 0, 0]  # the QS alone
    assert st.points_taken == [23, 0, 0, 0]  # QS + 10 hearts
    play(st, hands[0][12], d1[12], d2[12], d3[12])
    # seat 0 took every heart and the QS: the moon
    assert st.points_taken == [26, 0, 0, 0]
    assert st.phase == "moon" and st.turn_seats() == (0,)
    assert st.legal_actions(0) == [A.MOON_SELF, A.MOON_OTHERS]
    assert st.public_view()["moon_shooter"] == 0
    assert st.legal_actions(1) == []


def test_split_points_scored_as_taken() -> None:
    """Lowest legal cards from a random deal: each hand's points are the hearts (1) and QS (13)
    in the tricks each seat won, the winner being the highest card of the led suit."""
    import random

    for seed in range(6):
        st = new(4, target=10**6)
        rng = random.Random(seed)
        d = C.full_deck()
        rng.shuffle(d)
        st.start_hand(d)
        skip_passes(st)
        play_out(st)
        if st.phase == "moon":
            continue
        expect = [0, 0, 0, 0]
        for leader, cards, w in st.tricks:
            led = cards[0] // 13
            best = max(c for c in cards if c // 13 == led)
            assert w == (leader + cards.index(best)) % 4
            expect[w] += sum(1 for c in cards if c // 13 == C.HEARTS) + (13 if C.QS in cards else 0)
        assert st.hand_results[-1]["points"] == expect
        assert sum(expect) == 26


def start_of_hand_totals(st: HeartsState) -> list[int]:
    return st.totals[:]


@pytest.mark.parametrize("choice,expect", [("self", [-25, 0, 0, 0]), ("others", [0, 26, 26, 26])])
def test_moon_choice(choice: str, expect: list[int]) -> None:
    st = no_pass_game()
    before = st.totals[:]
    shoot(st)
    assert st.phase == "moon"
    assert st.check(A.play("2C"), 0) == "the moon shooter must choose \"self\" or \"others\""
    assert st.check(A.Action("moon", "both"), 0) is not None
    assert st.check(A.MOON_SELF, 1) == "it is seat 0's turn"
    st.apply(A.Action("moon", choice), 0)
    assert st.hand_results[-1]["points"] == expect
    assert st.totals == [b + e for b, e in zip(before, expect, strict=True)]
    assert st.phase == "deal"


@pytest.mark.parametrize("moon_self,moon_others", [(-26, 26), (-52, 52)])
def test_moon_options(moon_self: int, moon_others: int) -> None:
    for choice, expect in (("self", [moon_self, 0, 0, 0]), ("others", [0] + [moon_others] * 3)):
        st = no_pass_game(moon_self=moon_self, moon_others=moon_others)
        shoot(st)
        st.apply(A.Action("moon", choice), 0)
        assert st.hand_results[-1]["points"] == expect


@pytest.mark.parametrize("card", ["TD", "JD"])
def test_omnibus_card(card: str) -> None:
    # the omnibus card goes to seat 0's trick (seat 2 discards TD, seat 3 JD)
    for moon_choice in (None, "others"):
        st = no_pass_game(omnibus=True, omnibus_card=card)
        hands = {
            0: ["2C", "AC", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "5C", "4C", "3C"],
            1: ["QS", "AH", "KH", "QH", "JH", "TH", "2S", "3S", "4S", "5S", "6S", "7S", "8S"],
            2: ["9H", "8H", "7H", "6H", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD"],
            3: ["5H", "4H", "3H", "2H", "JD", "QD", "KD", "AD", "9S", "TS", "JS", "KS", "AS"],
        }
        st.start_hand(deck_for("hearts", 4, hands, dealer=st.dealer))
        d1 = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "QS", "AH", "KH", "QH", "JH", "TH"]
        d2 = ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "9H", "8H", "7H", "6H"]
        d3 = ["9S", "TS", "JS", "KS", "AS", "JD", "QD", "KD", "AD", "5H", "4H", "3H", "2H"]
        if moon_choice is None:
            for t in range(12):
                play(st, hands[0][t], d1[t], d2[t], d3[t])
            assert st.omnibus_taker == 0
            assert st.public_view()["omnibus_taker"] == 0
            continue
        for t in range(13):
            play(st, hands[0][t], d1[t], d2[t], d3[t])
        st.apply(A.Action("moon", moon_choice), 0)
        assert st.hand_results[-1]["points"] == [-10, 26, 26, 26]


def test_omnibus_counts_only_when_on() -> None:
    for on in (False, True):
        st = no_pass_game(omnibus=on)
        shoot(st)
        st.apply(A.MOON_SELF, 0)
        assert st.hand_results[-1]["points"] == ([-35, 0, 0, 0] if on else [-25, 0, 0, 0])


# ---------------------------------------------------------------------------- game end


def test_target_reached_lowest_total_wins() -> None:
    st = new(4, target=50)
    while not st.over:
        if st.needs_deck:
            st.start_hand(deck_for("hearts", 4, {}, dealer=st.dealer))  # layout irrelevant
            continue
        s = st.turn_seats()[0]
        st.apply(st.legal_actions(s)[0], s)
    assert max(st.totals) >= 50
    low = min(st.totals)
    assert st.winners == [st.totals.index(low)] and st.totals.count(low) == 1
    assert st.phase == "over" and st.turn_seats() == ()
    assert st.check(A.play("2C"), 0) == "the game is over"
    for r in st.hand_results[:-1]:
        assert max(r["totals"]) < 50 or list(r["totals"]).count(min(r["totals"])) > 1


def test_tie_for_lowest_plays_another_hand() -> None:
    st = new(4, target=50)
    st.totals = [40, 40, 60, 70]
    assert st._game_end() == (False, [])
    st.totals = [40, 41, 60, 70]
    assert st._game_end() == (True, [0])
    st.totals = [40, 41, 49, 30]
    assert st._game_end() == (False, [])


def test_moon_others_can_end_the_game() -> None:
    st = no_pass_game()
    st.totals = [80, 80, 80, 10]
    st.options["target"] = 100
    shoot(st)
    st.apply(A.MOON_OTHERS, 0)
    assert st.over and st.winners == [3] and st.totals == [80, 106, 106, 36]


def test_views_hide_hands_and_passes() -> None:
    st = new(4)
    st.start_hand(deck_for("hearts", 4, {0: ["QS", "AS", "KS"]}))
    st.apply(A.pass_cards(["QS", "AS", "KS"]), 0)
    pub = st.public_view()
    assert card_names_in(pub) == []
    assert names(C.parse_all(st.view(0)["passed_cards"])) == ["AS", "KS", "QS"]
    assert st.view(1)["received_cards"] == []
    assert "QS" not in st.view(1)["hand"]
    assert pub["hand_sizes"] == [10, 13, 13, 13]
