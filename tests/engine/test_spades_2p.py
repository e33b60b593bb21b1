"""spades-2p rules (RULES.md "spades-2p", seed 000): one test per rule and option, and the seed's
worked examples (Megan and Drew's bids, Karen's 71, Bonnie's bags, Kathy's Nil, Kelly and
Donna's broken spades)."""

from __future__ import annotations

import pytest

from trickref.engine import cards as C
from trickref.engine.actions import (
    BIDS,
    DISCARD,
    DOUBLE_NIL,
    KEEP,
    PLAY,
    Action,
    exchange,
    pass_cards,
    play,
)
from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game
from trickref.engine.spades_2p import Spades2PState
from trickref.engine.spades_common import add_bags, contract_score, nil_score


def P(names: str) -> list[int]:
    return [C.parse(n) for n in names.split()]


def draw_deck(first: list[int], second: list[int], discards: list[int] | None = None) -> list[int]:
    """The stock order that gives the first player ``first`` and the second ``second`` when
    every draw is "keep" (turn t keeps deck[2t] and discards deck[2t+1]); the hands are filled
    up to 13 cards from the unused cards in card order, the rest are the discards."""
    used = set(first) | set(second) | set(discards or [])
    rest = [c for c in range(52) if c not in used]
    first = first + [rest.pop(0) for _ in range(13 - len(first))]
    second = second + [rest.pop(0) for _ in range(13 - len(second))]
    disc = list(discards or []) + rest
    assert len(disc) == 26
    deck: list[int] = []
    for t in range(26):
        hand = first if t % 2 == 0 else second
        deck += [hand[t // 2], disc[t]]
    assert sorted(deck) == list(range(52))
    return deck


def game(deck: list[int] | None = None, dealer: int = 0, **options: object) -> Spades2PState:
    g = new_game("spades-2p", 2, options, first_dealer=dealer)
    assert isinstance(g, Spades2PState)
    g.start_hand(deck if deck is not None else list(range(52)))
    return g


def draw_all(g: Spades2PState) -> None:
    while g.phase == "draw":
        g.apply(KEEP)


def to_play(first: list[int], second: list[int], bids: tuple[int, int] = (3, 3), dealer: int = 0,
            **options: object) -> Spades2PState:
    """A hand in the play phase: these hands, bids as (first player, second player)."""
    g = game(draw_deck(first, second), dealer, **options)
    draw_all(g)
    fp, sp = g.first_player, g.second_player
    order = [sp, fp] if g.options["first_bidder"] == "second" else [fp, sp]
    for s in order:
        g.apply(BIDS[bids[0] if s == fp else bids[1]], s)
    assert g.phase == "play"
    return g


# ---------------------------------------------------------------------- the draw


def test_first_player_is_left_of_dealer_and_turns_alternate() -> None:
    g = game(dealer=1)
    assert g.first_player == 0 and g.second_player == 1
    assert g.phase == "draw" and g.turn_seats() == (0,)
    g.apply(KEEP)
    assert g.turn_seats() == (1,)
    g.apply(DISCARD)
    assert g.turn_seats() == (0,)
    assert g.check(KEEP, 1) == "it is seat 0's turn"


def test_keep_takes_the_top_card_and_discards_the_next_discard_keeps_the_next() -> None:
    deck = list(range(52))
    g = game(deck)  # dealer 0: seat 1 draws first
    g.apply(KEEP, 1)
    assert g.hand_of(1) == [deck[0]] and g.discards == [deck[1]]
    g.apply(DISCARD, 0)
    assert g.hand_of(0) == [deck[3]] and g.discards == [deck[1], deck[2]]


def test_draw_phase_ends_with_13_cards_each_and_26_discards() -> None:
    g = game()
    for i in range(26):
        g.apply(KEEP if i % 3 else DISCARD)
    assert [len(g.hand_of(s)) for s in (0, 1)] == [13, 13]
    assert len(g.discards) == 26
    assert sorted(g.hand_of(0) + g.hand_of(1) + g.discards) == list(range(52))
    assert g.phase == "bid"


def test_the_shown_card_is_seen_only_by_the_seat_on_turn() -> None:
    deck = list(range(52))
    g = game(deck)
    top = C.NAMES[deck[0]]
    assert g.view(1)["shown"] == top
    assert "shown" not in g.view(0)
    assert top not in str(g.public_view())
    g.apply(KEEP, 1)  # deck[1] is shown to seat 1 and discarded face down
    assert g.view(1)["known_discards"] == [C.NAMES[deck[1]]]
    assert g.view(0)["known_discards"] == []
    assert C.NAMES[deck[1]] not in str(g.view(0))
    assert g.view(0)["shown"] == C.NAMES[deck[2]]
    assert "shown" not in g.view(1)


def test_draw_values_are_keep_or_discard() -> None:
    g = game()
    assert g.legal_actions(1) == [KEEP, DISCARD, DOUBLE_NIL]
    assert g.check(Action("draw", "take"), 1) == "a draw is \"keep\" or \"discard\", not 'take'"
    assert g.check(BIDS[3], 1) is not None
    assert g.check(PLAY[0], 1) is not None


# ---------------------------------------------------------------------- Double Nil


def test_double_nil_only_before_the_seats_first_draw_decision() -> None:
    g = game()  # dealer 0: seat 1 first
    assert DOUBLE_NIL in g.legal_actions(1)
    g.apply(KEEP, 1)
    assert DOUBLE_NIL in g.legal_actions(0)  # seat 0's first draw turn
    g.apply(DOUBLE_NIL, 0)
    assert g.turn_seats() == (0,)  # stays on turn
    assert g.legal_actions(0) == [KEEP, DISCARD]
    assert g.check(DOUBLE_NIL, 0) == "Double Nil is already declared"
    g.apply(KEEP, 0)
    assert g.legal_actions(1) == [KEEP, DISCARD]
    assert g.check(DOUBLE_NIL, 1) == "Double Nil must be declared before your first draw decision"
    assert g.public_view()["double_nil"] == [True, False]


def _double_nil_game(both: bool = False) -> Spades2PState:
    g = game()
    g.apply(DOUBLE_NIL, 1)
    g.apply(KEEP, 1)
    if both:
        g.apply(DOUBLE_NIL, 0)
    draw_all(g)
    return g


def test_exchange_after_the_draw_first_player_first_and_canonical_get() -> None:
    g = _double_nil_game(both=True)
    assert g.phase == "exchange" and g.turn_seats() == (1,)
    legal = g.legal_actions(1)
    assert len(legal) == 1 + 13 + 78 + 286  # each give of 0..3 cards once
    hand = g.hand_of(1)
    for a in legal:
        give, get = a.value
        assert len(get) == len(give) and set(give) <= set(hand)
        assert get == tuple(sorted(g.discards[: len(give)]))  # the canonical get
    assert len({a.value[0] for a in legal}) == len(legal)
    g.apply(exchange([], []), 1)
    assert g.turn_seats() == (0,)


def test_exchange_accepts_any_get_from_the_discard_pile() -> None:
    g = _double_nil_game()
    hand = g.hand_of(1)
    pile = g.discards[:]
    give = sorted(hand[-3:])
    get = sorted(pile[-3:])  # not the canonical get: equally legal
    a = exchange(give, get)
    assert a not in g.legal_actions(1)
    assert g.check(a, 1) is None
    assert g.check(exchange(give[:2], get), 1) == "you get as many cards as you give (2), not 3"
    assert g.check(exchange(hand[:4], pile[:4]), 1) == "you may exchange at most 3 cards"
    other = g.hand_of(0)[0]
    assert g.check(exchange([hand[0]], [other]), 1) == f"{C.NAMES[other]} is not in the discard pile"
    assert g.check(exchange([other], [pile[0]]), 1) == f"you do not hold {C.NAMES[other]}"
    assert g.check(Action("exchange", ((hand[1], hand[0]), (pile[0], pile[1]))), 1) is not None
    assert g.check(Action("exchange", "junk"), 1) is not None
    g.apply(a, 1)
    assert sorted(g.hand_of(1)) == sorted(set(hand) - set(give) | set(get))
    assert set(give) <= set(g.discards) and not set(get) & set(g.discards)
    assert len(g.discards) == 26
    # the opponent learns only how many were exchanged
    assert g.public_view()["exchanged"] == [None, 3]
    v0 = g.view(0)
    for c in give:
        assert C.NAMES[c] not in v0["hand"] and C.NAMES[c] not in v0["known_discards"] or c in pile
    assert "exchange" not in v0
    assert g.view(1)["exchange"] == {"give": C.names(give), "get": C.names(get)}
    assert not set(C.names(give)) & set(str(g.public_view()).split("'"))


def test_double_nil_bid_is_fixed_and_its_bidding_turn_skipped() -> None:
    g = _double_nil_game()
    g.apply(exchange([], []), 1)
    assert g.phase == "bid" and g.turn_seats() == (0,)
    assert g.bids == [-1, 0]
    g.apply(BIDS[4], 0)
    assert g.phase == "play"
    g2 = _double_nil_game(both=True)
    g2.apply(exchange([], []), 1)
    g2.apply(exchange([], []), 0)
    assert g2.phase == "play" and g2.bids == [0, 0]  # both Double Nil: no bidding at all


# ---------------------------------------------------------------------- bidding


def test_megan_bids_8_then_drew_bids_6_second_player_first() -> None:
    g = game()  # dealer 0 = Megan, the second player, bids first
    draw_all(g)
    assert g.turn_seats() == (0,)
    assert g.legal_actions(0) == list(BIDS)  # 0 (Nil) to 13, no passing
    g.apply(BIDS[8], 0)
    assert g.turn_seats() == (1,)
    assert BIDS[6] in g.legal_actions(1)  # bids need not exceed each other
    g.apply(BIDS[6], 1)
    assert g.bids == [8, 6] and g.phase == "play"
    assert g.public_view()["bids"] == [8, 6]


def test_option_first_bidder_first() -> None:
    g = game(first_bidder="first")
    draw_all(g)
    assert g.turn_seats() == (1,)


def test_bid_range() -> None:
    g = game()
    draw_all(g)
    assert g.check(Action("bid", 14), 0) == "a bid is 0 to 13"
    assert g.check(Action("bid", -1), 0) == "a bid is 0 to 13"
    assert g.check(Action("bid", True), 0) == "a bid is 0 to 13"
    assert g.check(KEEP, 0) is not None


# ---------------------------------------------------------------------- play


def test_second_player_leads_the_first_trick_and_must_follow_suit() -> None:
    first = P("AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD")
    second = P("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH 2C")
    g = to_play(first, second)
    assert g.turn_seats() == (0,)  # dealer = second player
    g.apply(play("2C"), 0)
    assert g.check(play("AH"), 1) is None  # void in clubs: any card
    g.apply(play("2D"), 1)
    assert g.tricks_taken == [1, 0]  # off-suit does not win
    g.apply(play("2H"), 0)
    assert g.check(play("3D"), 1) == "must follow hearts"
    assert list(g.legal_actions(1)) == [play("AH")]


def test_spades_are_not_led_until_broken_kelly_and_donna() -> None:
    kelly = P("AH KH QH 2S 3S 4S 5S 6S 7S 8S 9S TS 2C")  # seat 0, second player, leads
    donna = P("JS QS KS AS 3C 4C 5C 6C 7C 2D 3D 4D 5D")  # seat 1, no hearts
    g = to_play(donna, kelly)
    assert g.check(play("2S"), 0) == "spades are not broken"
    assert PLAY[C.parse("2S")] not in g.legal_actions(0)
    g.apply(play("AH"), 0)
    legal = {a.value for a in g.legal_actions(1)}
    assert legal == set(donna)  # may play a spade, a club or a diamond
    alt = g.copy()
    alt.apply(play("3C"), 1)  # Donna chose not to trump
    assert alt.broken is False and alt.tricks_taken == [1, 0]
    g.apply(play("JS"), 1)  # Donna trumps: wins, spades are broken
    assert g.broken is True and g.tricks_taken == [0, 1]
    assert g.public_view()["broken"] is True
    assert g.turn_seats() == (1,)
    assert g.check(play("AS"), 1) is None


def test_a_leader_holding_only_spades_may_lead_one_and_breaks_them() -> None:
    spades = P("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")
    g = to_play(P("2H"), spades)
    assert {a.value for a in g.legal_actions(0)} == set(spades)
    g.apply(play("2S"), 0)
    assert g.broken


def test_highest_spade_wins_else_highest_of_led_suit() -> None:
    first = P("AH 3S 4D")
    second = P("KH 2S 5D")
    g = to_play(first, second)
    g.apply(play("KH"), 0)
    g.apply(play("AH"), 1)
    assert g.tricks_taken == [0, 1] and g.turn_seats() == (1,)
    g.apply(play("4D"), 1)
    g.apply(play("5D"), 0)
    assert g.tricks_taken == [1, 1]


def test_play_errors_name_the_rule() -> None:
    g = to_play(P("AH"), P("2H"))
    assert g.check(play("AH"), 0) == "you do not hold AH"
    with pytest.raises(IllegalAction, match="seat 0 cannot play AH: you do not hold AH"):
        g.apply(play("AH"), 0)
    assert g.check(Action("play", 99), 0) == "not a card: 99"
    assert g.check(pass_cards(P("2H 3H")), 0) is not None


# ---------------------------------------------------------------------- scoring


def _score(bids: list[int], taken: list[int], bags: list[int] | None = None, double: list[bool] | None = None,
           **options: object) -> Spades2PState:
    """Score a hand with these bids and tricks through the game's own scoring."""
    g = to_play(P("AH"), P("2H"), **options)
    g.bids = bids[:]
    g.tricks_taken = taken[:]
    if double:
        g.double = double[:]
    if bags:
        assert g.bags is not None
        g.bags[:] = bags
    g._score_hand()
    return g


def test_karen_bids_7_takes_8_scores_71_with_one_bag() -> None:
    assert contract_score(7, 8) == (71, 1)
    g = _score([7, 5], [8, 5])
    assert g.hand_results[-1]["points"] == [71, 50]
    assert g.bags == [1, 0]


def test_failed_bid_scores_minus_10_per_trick_bid() -> None:
    g = _score([6, 4], [5, 8])
    assert g.hand_results[-1]["points"] == [-60, 44]


def test_kathys_nil_against_steves_9() -> None:
    g = _score([0, 9], [0, 13])
    assert g.hand_results[-1]["points"] == [100, 94]
    g = _score([0, 9], [1, 12])
    assert g.hand_results[-1]["points"] == [-100, 93]
    assert g.bags == [0, 3]  # a failed Nil's trick is not a bag by default
    assert nil_score(0, 100) == 100 and nil_score(2, 100) == -100


def test_option_failed_nil_tricks_are_bags() -> None:
    g = _score([0, 9], [2, 11], failed_nil_tricks_are_bags=True)
    assert g.hand_results[-1]["points"] == [-100 + 2, 92]
    assert g.bags == [2, 2]


def test_double_nil_scores_200() -> None:
    g = _score([0, 5], [0, 13], double=[True, False])
    assert g.hand_results[-1]["points"] == [200, 58]
    g = _score([0, 5], [1, 12], double=[True, False])
    assert g.hand_results[-1]["points"][0] == -200


def test_bonnies_bags_11_cost_100_once_and_1_carries_over() -> None:
    # 4 bid / 7 taken, 3 / 6, 4 / 9: 3 + 3 + 5 = 11 bags (the rule, not the seed's 3 + 3 + 4)
    assert add_bags(0, 3) == (3, 0) and add_bags(6, 5) == (1, -100)
    g = new_game("spades-2p", 2)
    assert isinstance(g, Spades2PState)
    seq = [(4, 7), (3, 6), (4, 9)]
    pts = []
    for bid, taken in seq:
        g.start_hand(draw_deck(P("AH"), P("2H")))
        draw_all(g)
        g.apply(BIDS[1], g.turn_seats()[0])
        g.apply(BIDS[1], g.turn_seats()[0])
        bonnie = 0
        g.bids = [bid, 13 - taken]
        g.tricks_taken = [taken, 13 - taken]
        g._score_hand()
        pts.append(g.hand_results[-1]["points"][bonnie])
    assert pts == [43, 33, 45 - 100]
    assert g.bags is not None and g.bags[0] == 1
    assert g.hand_results[-1]["bags"][0] == 1
    # 9 more bags: another penalty
    assert add_bags(1, 9) == (0, -100)


# ---------------------------------------------------------------------- end of game and deal


def test_game_end_higher_total_wins_and_equal_totals_play_on() -> None:
    g = _score([5, 5], [5, 5], target=50)
    assert g.totals == [50, 50] and not g.over and g.needs_deck
    g = _score([5, 4], [5, 8], target=50)
    assert g.totals == [50, 44] and g.over and g.winners == [0]
    g = _score([5, 6], [5, 8], target=50)
    assert g.totals == [50, 62] and g.over and g.winners == [1]
    g = _score([1, 1], [1, 12], target=50)
    assert not g.over  # nobody reached the target


def test_the_deal_passes_left_second_player_becomes_first() -> None:
    g = _score([1, 1], [6, 7])
    assert g.dealer == 1
    g.start_hand(list(range(52)))
    assert g.first_player == 0 and g.turn_seats() == (0,)


def test_a_whole_hand_played_out_scores_and_books_totals() -> None:
    g = to_play(P("AH KH QH"), P("2H 3H 4H"), bids=(0, 2))
    while g.phase == "play":
        s = g.turn_seats()[0]
        g.apply(g.legal_actions(s)[0], s)
    assert sum(g.hand_results[0]["points"]) == sum(g.totals)
    assert len(g.hand_results) == 1 and g.phase == "deal"
    assert sum(g.hand_results[0]["points"]) != 0


def test_kathys_nil_played_out_against_steves_9() -> None:
    kathy = P("2H 3H 4H 5H 6H 7H 2D 3D 4D 5D 6D 7D 2C")  # seat 1, first player
    steve = P("8H 9H TH JH QH KH AH 8D 9D TD JD QD KD")  # seat 0, the dealer, leads
    g = to_play(kathy, steve, bids=(0, 9))
    assert g.bids == [9, 0]
    while g.phase == "play":
        s = g.turn_seats()[0]
        g.apply(g.legal_actions(s)[0], s)
    assert g.hand_results[0]["points"] == [94, 100]  # Steve 9 bid, 13 taken: 90 + 4 bags
    assert g.bags == [4, 0]
