"""partnership-spades rules (RULES.md "partnership-spades", seed 003): one test per rule and option."""

from __future__ import annotations

import pytest

from trickref.engine import cards as C
from trickref.engine.actions import BIDS, BLIND_NIL, KEEP, PLAY, Action, pass_cards, play
from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game
from trickref.engine.partnership_spades import PartnershipSpadesState


def P(names: str) -> list[int]:
    return [C.parse(n) for n in names.split()]


def deal_deck(hands: dict[int, list[int]], dealer: int = 0) -> list[int]:
    """The deck order that deals these (partial) hands, one card at a time from the dealer's
    left; hands are filled up to 13 from the unused cards in card order."""
    used = {c for h in hands.values() for c in h}
    rest = [c for c in range(52) if c not in used]
    full = {s: list(hands.get(s, [])) for s in range(4)}
    for s in range(4):
        while len(full[s]) < 13:
            full[s].append(rest.pop(0))
    deck = [full[(dealer + 1 + i) % 4][i // 4] for i in range(52)]
    assert sorted(deck) == list(range(52))
    return deck


def game(hands: dict[int, list[int]] | None = None, dealer: int = 0, **options: object) -> PartnershipSpadesState:
    g = new_game("partnership-spades", 4, options, first_dealer=dealer)
    assert isinstance(g, PartnershipSpadesState)
    g.start_hand(deal_deck(hands or {}, dealer))
    return g


def bid_all(g: PartnershipSpadesState, bids: dict[int, int]) -> None:
    while g.phase == "bid":
        s = g.turn_seats()[0]
        g.apply(BIDS[bids.get(s, 3)], s)


def to_play(hands: dict[int, list[int]], bids: dict[int, int] | None = None, dealer: int = 0,
            **options: object) -> PartnershipSpadesState:
    g = game(hands, dealer, **options)
    bid_all(g, bids or {})
    assert g.phase == "play"
    return g


# ---------------------------------------------------------------------- deal and bidding


def test_deal_one_at_a_time_from_the_dealers_left() -> None:
    deck = list(range(52))
    g = new_game("partnership-spades", 4, first_dealer=2)
    g.start_hand(deck)
    assert g.hand_of(3) == [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48]
    assert g.hand_of(0)[0] == 1 and g.hand_of(2)[0] == 3
    assert all(len(g.hand_of(s)) == 13 for s in range(4))


def test_bidding_starts_left_of_dealer_one_round_0_to_13() -> None:
    g = game(dealer=1)
    assert g.phase == "bid" and g.turn_seats() == (2,)
    assert g.legal_actions(2) == list(BIDS)
    for s in (2, 3, 0, 1):
        assert g.turn_seats() == (s,)
        g.apply(BIDS[s + 1], s)
    assert g.bids == [1, 2, 3, 4] and g.phase == "play"
    assert g.public_view()["contracts"] == [1 + 3, 2 + 4]


def test_bid_errors() -> None:
    g = game()
    assert g.check(Action("bid", 14), 1) == "a bid is 0 to 13"
    assert g.check(BIDS[3], 2) == "it is seat 1's turn"
    assert g.check(PLAY[0], 1) is not None
    assert g.check(KEEP, 1) is not None


def test_option_cap_team_bid_at_13() -> None:
    g = game(cap_team_bid_at_13=True)
    g.apply(BIDS[9], 1)
    g.apply(BIDS[13], 2)
    assert g.legal_actions(3) == list(BIDS[:5])
    assert g.check(BIDS[5], 3) == "the team's bids may not add up to more than 13 (at most 4)"
    g.apply(BIDS[4], 3)
    assert g.legal_actions(0) == [BIDS[0]]
    free = game()
    free.apply(BIDS[9], 1)
    free.apply(BIDS[13], 2)
    assert free.check(BIDS[13], 3) is None


def test_public_view_shows_tricks_taken_over_tricks_bid() -> None:
    g = game()
    g.apply(BIDS[4], 1)
    assert g.public_view()["taken_bid"] == ["0/-", "0/4", "0/-", "0/-"]


# ---------------------------------------------------------------------- Blind Nil


def _trailing(margin_gap: int, **options: object) -> PartnershipSpadesState:
    g = new_game("partnership-spades", 4, options)
    assert isinstance(g, PartnershipSpadesState)
    g.totals = [0, margin_gap, 0, margin_gap]  # team 0+2 trails by margin_gap
    g.start_hand(deal_deck({}))
    return g


def test_blind_nil_needs_the_team_to_trail_by_more_than_the_margin() -> None:
    g = _trailing(100)
    g.apply(BIDS[3], 1)
    assert BLIND_NIL not in g.legal_actions(2)
    assert g.check(BLIND_NIL, 2) == "Blind Nil needs the team to trail by more than 100 points"
    g = _trailing(101)
    assert BLIND_NIL not in g.legal_actions(1)  # seat 1's team leads
    assert g.public_view()["blind_nil_eligible"] == [0, 2]
    assert g.view(0)["blind_nil_offer"] is True and g.view(1)["blind_nil_offer"] is False
    g.apply(BIDS[3], 1)
    assert BLIND_NIL in g.legal_actions(2)
    g = _trailing(51, blind_nil_margin=50)
    g.apply(BIDS[3], 1)
    assert BLIND_NIL in g.legal_actions(2)


def test_at_most_one_blind_nil_per_team_and_the_passes() -> None:
    g = _trailing(300)
    g.apply(BIDS[3], 1)
    g.apply(BLIND_NIL, 2)
    g.apply(BIDS[3], 3)
    assert BLIND_NIL not in g.legal_actions(0)
    assert g.check(BLIND_NIL, 0) == "at most one Blind Nil per team"
    g.apply(BIDS[5], 0)
    assert g.bids == [5, 3, 0, 3] and g.blind == [False, False, True, False]
    assert g.phase == "pass" and g.turn_seats() == (2,)  # the Blind Nil player first
    assert len(g.legal_actions(2)) == 78
    h2, h0 = g.hand_of(2), g.hand_of(0)
    give2 = pass_cards(h2[:2])
    assert g.check(pass_cards(h2[:3]), 2) == "pass exactly 2 cards"
    assert g.check(pass_cards(h0[:2]), 2) == f"you do not hold {C.NAMES[min(h0[:2])]}"
    assert g.check(Action("pass", (h2[1], h2[0])), 2) is not None
    assert g.check(give2, 0) == "it is seat 2's turn"
    g.apply(give2, 2)
    # the partner does not see the Blind Nil player's cards before giving
    assert not set(give2.value) & set(g.hand_of(0))
    assert g.view(0).get("received_cards") is None
    for name in C.names(give2.value):
        assert name not in str(g.view(0)) and name not in str(g.public_view())
    assert g.turn_seats() == (0,)
    give0 = pass_cards(h0[-2:])
    g.apply(give0, 0)
    assert sorted(g.hand_of(2)) == sorted(set(h2) - set(give2.value) | set(give0.value))
    assert sorted(g.hand_of(0)) == sorted(set(h0) - set(give0.value) | set(give2.value))
    assert g.view(0)["received_cards"] == C.names(give2.value)
    assert g.view(2)["received_cards"] == C.names(give0.value)
    assert g.phase == "play" and g.turn_seats() == (0,)


def test_only_the_trailing_team_can_declare_blind_nil() -> None:
    # "trails by more than the margin" (margin >= 0) holds for one team at most
    g = _trailing(300, blind_nil_margin=0)
    for s in (1, 2, 3, 0):
        assert (BLIND_NIL in g.legal_actions(s)) == (s % 2 == 0)
        g.apply(BIDS[3], s)


def test_blind_nil_scores_200_for_the_team() -> None:
    g = _score({0: 4, 1: 3, 2: 0, 3: 3}, [4, 3, 0, 6], blind=2)
    assert g.hand_results[-1]["points"] == [240, 63, 240, 63]
    g = _score({0: 4, 1: 3, 2: 0, 3: 3}, [4, 3, 1, 5], blind=2)
    assert g.hand_results[-1]["points"][0] == -160


# ---------------------------------------------------------------------- play


def test_dealer_leads_the_first_trick_or_left_with_the_option() -> None:
    assert to_play({}, dealer=2).turn_seats() == (2,)
    assert to_play({}, dealer=2, first_lead="left").turn_seats() == (3,)


def test_clubs_are_trump_and_not_led_until_broken() -> None:
    hands = {0: P("2C 3C AH"), 1: P("2H"), 2: P("3H"), 3: P("4H")}
    g = to_play(hands)
    assert g.check(play("2C"), 0) == "clubs are not broken"
    assert PLAY[C.parse("2C")] not in g.legal_actions(0)
    assert g.public_view()["trump"] == "C"


def test_a_trump_on_another_suits_lead_wins_and_breaks_trumps() -> None:
    hands = {
        0: P("AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"),
        1: P("2C 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"),
        2: P("AS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
        3: P("AD 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
    }
    g = to_play(hands)
    g.apply(play("2H"), 0)
    assert list(g.legal_actions(1)) == [PLAY[C.parse("2C")]]  # must trump (must_beat)
    g.apply(play("2C"), 1)
    assert g.broken
    g.apply(play("AS"), 2)  # void, no trump: any card
    assert g.check(play("AD"), 3) == "must trump"
    assert g.check(play("3C"), 3) is None
    assert g.legal_actions(3)[0] == play("3C")  # must over-trump the 2C
    g.apply(play("3C"), 3)
    assert g.tricks_taken[3] == 1 and g.turn_seats() == (3,)


def test_option_trump_spades() -> None:
    hands = {0: P("2S AH"), 1: P("2H 3C")}
    g = to_play(hands, trump="spades")
    assert g.check(play("2S"), 0) == "spades are not broken"
    assert g.public_view()["trump"] == "S"


def test_leader_holding_only_trumps_may_lead_one() -> None:
    clubs = P("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC")
    g = to_play({0: clubs})
    assert {a.value for a in g.legal_actions(0)} == set(clubs)
    g.apply(play("5C"), 0)
    assert g.broken


def _must_beat_hands() -> dict[int, list[int]]:
    return {
        0: P("TS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
        1: P("2S JS AS 2C 3C 2H 3H 4H 5H 6H 7H 8H 9H"),
        2: P("3S 4S 5S 6S 7S 8S 9S TH JH QH KH AH AD"),
        3: P("KS 4C 5C 6C 7C 8C 9C TC JC QC KC AC QS"),
    }


def test_must_beat_the_best_led_card_when_holding_the_suit() -> None:
    g = to_play(_must_beat_hands())
    g.apply(play("TS"), 0)
    assert {a.value for a in g.legal_actions(1)} == set(P("JS AS"))
    assert g.check(play("2S"), 1) == "must beat the TS"
    assert g.check(play("2H"), 1) == "must follow spades"
    g.apply(play("JS"), 1)
    # seat 2 holds only lower spades: any spade
    assert {a.value for a in g.legal_actions(2)} == set(P("3S 4S 5S 6S 7S 8S 9S"))


def test_must_trump_when_void_and_over_trump_if_possible() -> None:
    hands = _must_beat_hands()
    hands[0] = P("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD TS")
    hands[1] = P("2S JS AS 2C 3C 2H 3H 4H 5H 6H 7H 8H 9H")
    hands[2] = P("3S 4S 5S 6S 7S 8S 9S TH JH QH KH AH AD")
    g = to_play(hands)
    g.apply(play("2D"), 0)
    assert {a.value for a in g.legal_actions(1)} == set(P("2C 3C"))
    assert g.check(play("2H"), 1) == "must trump"
    g.apply(play("3C"), 1)
    # seat 2 holds the led suit: the trick is trumped, so any diamond will do
    assert {a.value for a in g.legal_actions(2)} == {C.parse("AD")}
    g.apply(play("AD"), 2)
    # seat 3 void in diamonds: must over-trump the 3C
    legal3 = {a.value for a in g.legal_actions(3)}
    assert legal3 == set(P("4C 5C 6C 7C 8C 9C TC JC QC KC AC"))
    g2 = g.copy()
    g2.masks[3] = sum(1 << c for c in P("2C KS QS"))  # only a lower trump: still must trump
    assert {a.value for a in g2.legal_actions(3)} == {C.parse("2C")}
    assert g2.check(play("KS"), 3) == "must trump"
    g3 = g.copy()
    assert g3.check(play("KS"), 3) == "must trump"
    g4 = g.copy()
    g4.masks[3] = sum(1 << c for c in P("2C 5C KS"))
    assert g4.check(play("2C"), 3) == "must over-trump the 3C"
    g.apply(play("4C"), 3)
    assert g.tricks_taken == [0, 0, 0, 1]


def test_option_must_beat_off_any_card_of_the_led_suit() -> None:
    g = to_play(_must_beat_hands(), must_beat=False)
    g.apply(play("TS"), 0)
    assert {a.value for a in g.legal_actions(1)} == set(P("2S JS AS"))
    g.apply(play("2S"), 1)
    g.apply(play("3S"), 2)
    g.apply(play("KS"), 3)
    assert g.tricks_taken == [0, 0, 0, 1] and g.turn_seats() == (3,)
    assert g.check(play("4C"), 3) == "clubs are not broken"  # the broken rule still holds


def test_must_beat_off_void_player_may_discard() -> None:
    hands = _must_beat_hands()
    hands[0] = P("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD TS")
    g = to_play(hands, must_beat=False)
    g.apply(play("2D"), 0)
    assert g.check(play("2H"), 1) is None


# ---------------------------------------------------------------------- scoring


def _score(bids: dict[int, int], taken: list[int], blind: int | None = None,
           bags: list[int] | None = None, totals: list[int] | None = None,
           **options: object) -> PartnershipSpadesState:
    g = to_play({}, {s: max(1, b) for s, b in bids.items()}, **options)
    g.bids = [bids[s] for s in range(4)]
    if blind is not None:
        g.blind[blind] = True
    g.tricks_taken = taken[:]
    if bags is not None:
        assert g.bags is not None
        g.bags[:] = bags
    if totals is not None:
        g.totals[:] = totals
    g._score_hand()
    return g


def test_team_contract_made_and_failed() -> None:
    g = _score({0: 4, 1: 3, 2: 3, 3: 3}, [4, 2, 4, 3])
    assert g.hand_results[-1]["points"] == [71, -60, 71, -60]
    assert g.bags == [1, 0, 1, 0]
    assert g.totals == [71, -60, 71, -60]


def test_nil_scores_for_the_team_independent_of_the_contract_and_its_tricks_do_not_count() -> None:
    g = _score({0: 5, 1: 3, 2: 0, 3: 3}, [4, 4, 1, 4])
    # team 0: contract 5 failed with 4 (the Nil's trick does not count): -50; Nil failed -100
    assert g.hand_results[-1]["points"][0] == -150
    assert g.bags[0] == 0  # the failed Nil's trick is not a bag
    g = _score({0: 5, 1: 3, 2: 0, 3: 3}, [6, 3, 0, 4])
    assert g.hand_results[-1]["points"][0] == 51 + 100


def test_option_nil_tricks_count_for_partner() -> None:
    g = _score({0: 5, 1: 3, 2: 0, 3: 3}, [4, 4, 1, 4], nil_tricks_count_for_partner=True)
    assert g.hand_results[-1]["points"][0] == 50 - 100


def test_option_failed_nil_tricks_are_bags() -> None:
    g = _score({0: 5, 1: 3, 2: 0, 3: 3}, [5, 3, 2, 3], failed_nil_tricks_are_bags=True)
    assert g.hand_results[-1]["points"][0] == 50 - 100 + 2
    assert g.bags[0] == 2 and g.bags[2] == 2


def test_team_bags_10_cost_100_and_the_rest_carries() -> None:
    g = _score({0: 2, 1: 3, 2: 2, 3: 3}, [5, 3, 2, 3], bags=[8, 0, 8, 0])
    assert g.hand_results[-1]["points"] == [43 - 100, 60, 43 - 100, 60]
    assert g.bags == [1, 0, 1, 0]


def test_both_partners_nil_no_contract() -> None:
    g = _score({0: 0, 1: 6, 2: 0, 3: 6}, [0, 6, 1, 6])
    assert g.hand_results[-1]["points"][0] == 100 - 100
    assert g.bags[0] == 0


# ---------------------------------------------------------------------- end of game


def test_target_higher_total_wins_and_equal_play_on() -> None:
    g = _score({0: 5, 1: 5, 2: 0, 3: 3}, [5, 5, 0, 3], target=100, totals=[0, 20, 0, 20])
    # team 0: 50 + 100 = 150; team 1: 80 + 20 = 100: both reached, higher wins
    assert g.totals == [150, 100, 150, 100] and g.over and g.winners == [0, 2]
    g = _score({0: 5, 1: 5, 2: 3, 3: 3}, [5, 5, 3, 0], target=50)
    assert g.totals == [80, -80, 80, -80] and g.winners == [0, 2]
    g = _score({0: 5, 1: 5, 2: 3, 3: 3}, [5, 5, 3, 0], target=100)
    assert not g.over
    g = _score({0: 4, 1: 3, 2: 3, 3: 3}, [4, 3, 3, 3], target=50, totals=[0, 10, 0, 10])
    assert g.totals == [70, 70, 70, 70] and not g.over  # equal totals play another hand


def test_option_loss_floor() -> None:
    g = _score({0: 5, 1: 1, 2: 5, 3: 1}, [4, 1, 4, 4], loss_floor=-200, totals=[-150, 0, -150, 0])
    assert g.totals[0] == -250 and g.over and g.winners == [1, 3]
    g = _score({0: 5, 1: 1, 2: 5, 3: 1}, [4, 1, 4, 4], totals=[-150, 0, -150, 0])
    assert not g.over  # off by default
    g = _score({0: 5, 1: 5, 2: 5, 3: 5}, [4, 4, 1, 4], loss_floor=-200, totals=[-150, -160, -150, -160])
    assert g.over and g.winners == [0, 2]  # both at or below: the higher total wins


def test_the_deal_passes_left() -> None:
    g = _score({0: 3, 1: 3, 2: 3, 3: 3}, [3, 3, 3, 4])
    assert g.dealer == 1 and g.needs_deck
    g.start_hand(list(range(52)))
    assert g.turn_seats() == (2,)


def test_illegal_play_raises_with_the_rule() -> None:
    g = to_play(_must_beat_hands())
    g.apply(play("TS"), 0)
    with pytest.raises(IllegalAction, match="seat 1 cannot play 2S: must beat the TS"):
        g.apply(play("2S"), 1)
    assert g.check(play("AD"), 1) == "you do not hold AD"
