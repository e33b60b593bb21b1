"""The two Spades bots: always legal, stronger than random play, sensible in the situations the
rules make interesting, and blind to what their seat may not know."""

from __future__ import annotations

import random

import pytest

from trickref.engine import cards as C
from trickref.engine.actions import BIDS, BLIND_NIL, DISCARD, DOUBLE_NIL, KEEP, Action, play
from trickref.engine.base import GameState
from trickref.engine.bots import bot_for
from trickref.engine.bots._spades_play import estimate_tricks, nil_hand
from trickref.engine.games import new_game
from trickref.engine.partnership_spades import PartnershipSpadesState
from trickref.engine.spades_2p import Spades2PState
from trickref.engine.spades_common import cards_of, mask_of

B2 = bot_for("spades-2p")
B4 = bot_for("partnership-spades")


def P(names: str) -> list[int]:
    return [C.parse(n) for n in names.split()]


class RandomBot:
    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        return rng.choice(state.legal_actions(seat))


def play_out(state: GameState, bots: list, rng: random.Random, max_hands: int = 60) -> None:
    hands = 0
    while not state.over and hands < max_hands:
        deck = list(range(52))
        rng.shuffle(deck)
        state.start_hand(deck)
        hands += 1
        while state.turn_seats():
            seat = state.turn_seats()[0]
            legal = state.legal_actions(seat)
            a = bots[seat].choose(state, seat, rng)
            assert a in legal, (a, state.phase)
            if a.kind == "exchange":
                assert isinstance(state, Spades2PState)
                a = Action("exchange", (a.value[0], tuple(sorted(rng.sample(state.discards, len(a.value[0]))))))
            state.apply(a, seat)


@pytest.mark.parametrize("options", [{}, {"first_bidder": "first", "failed_nil_tricks_are_bags": True}])
def test_spades_2p_bot_is_legal_and_beats_random(options: dict) -> None:
    wins = 0
    for g in range(12):
        rng = random.Random(g)
        bots = [B2, RandomBot()] if g % 2 == 0 else [RandomBot(), B2]
        st = new_game("spades-2p", 2, options | {"target": 200})
        play_out(st, bots, rng)
        assert st.over
        wins += st.winners == [g % 2]
    assert wins >= 11


@pytest.mark.parametrize("options", [
    {},
    {"trump": "spades", "must_beat": False, "first_lead": "left", "cap_team_bid_at_13": True,
     "nil_tricks_count_for_partner": True, "blind_nil_margin": 0, "loss_floor": -300},
])
def test_partnership_bot_is_legal_and_beats_random(options: dict) -> None:
    wins = 0
    for g in range(12):
        rng = random.Random(g)
        r = RandomBot()
        bots = [B4, r, B4, r] if g % 2 == 0 else [r, B4, r, B4]
        st = new_game("partnership-spades", 4, options | {"target": 200})
        play_out(st, bots, rng)
        assert st.over
        wins += st.winners[0] % 2 == g % 2
    assert wins >= 11


def test_bot_self_play_finishes_games_with_every_kind_of_bid() -> None:
    kinds: set[str] = set()
    for g in range(6):
        rng = random.Random(100 + g)
        st = new_game("partnership-spades", 4, {"blind_nil_margin": 0})
        play_out(st, [B4] * 4, rng)
        assert st.over
        kinds |= {a.kind for _, acts in st.finished_hands for _, a in acts}
    assert {"bid", "play", "blind_nil", "pass"} <= kinds


# ---------------------------------------------------------------------- hand valuation


def test_bids_are_counted_from_the_hand() -> None:
    strong = P("AS KS QS JS 9S AH KH AD KD AC 2C 3C 4H")
    weak = P("2S 3H 4H 5H 2D 3D 4D 6D 2C 3C 4C 5C 7C")
    assert estimate_tricks(strong, C.SPADES, 2) >= 8
    assert estimate_tricks(weak, C.SPADES, 2) < 0.5
    assert nil_hand(weak, C.SPADES) and not nil_hand(strong, C.SPADES)
    assert not nil_hand(P("AH 2S 3H 4H 2D 3D 4D 6D 2C 3C 4C 5C 7C"), C.SPADES)
    # trump length counts
    assert estimate_tricks(P("9S 8S 7S 6S 5S 4S 2H 3H 2D 3D 2C 3C 4C"), C.SPADES, 4) >= 2
    # with clubs trump the same spades are side cards
    assert estimate_tricks(P("AS KS QS 2H 3H 4H 5H 2D 3D 4D 5D 6D 7D"), C.CLUBS, 4) < \
        estimate_tricks(P("AC KC QC 2H 3H 4H 5H 2D 3D 4D 5D 6D 7D"), C.CLUBS, 4)


def _draw_deck(first: list[int], second: list[int]) -> list[int]:
    used = set(first) | set(second)
    rest = [c for c in range(52) if c not in used]
    first = first + [rest.pop(0) for _ in range(13 - len(first))]
    second = second + [rest.pop(0) for _ in range(13 - len(second))]
    deck: list[int] = []
    for t in range(26):
        deck += [(first if t % 2 == 0 else second)[t // 2], rest[t]]
    return deck


def test_2p_draw_keeps_spades_and_high_cards() -> None:
    g = new_game("spades-2p", 2)
    assert isinstance(g, Spades2PState)
    deck = list(range(52))
    deck.remove(C.parse("AS"))
    deck.remove(C.parse("2H"))
    g.start_hand([C.parse("AS"), C.parse("2H")] + deck)
    rng = random.Random(0)
    assert B2.choose(g, 1, rng) == KEEP  # AS shown
    g.apply(KEEP, 1)
    g2 = new_game("spades-2p", 2)
    g2.start_hand([C.parse("2H"), C.parse("AS")] + deck)
    assert B2.choose(g2, 1, rng) == DISCARD  # a two of hearts: take the blind card


def test_2p_double_nil_only_when_trailing_badly_and_the_exchange_gives_the_highest() -> None:
    rng = random.Random(0)
    deck = [C.parse("2H")] + [c for c in range(52) if c != C.parse("2H")]
    g = new_game("spades-2p", 2)
    assert isinstance(g, Spades2PState)
    g.start_hand(deck)
    assert B2.choose(g, 1, rng) != DOUBLE_NIL  # level scores
    g = new_game("spades-2p", 2)
    assert isinstance(g, Spades2PState)
    g.totals = [380, 0]
    g.start_hand(deck)
    assert B2.choose(g, 1, rng) == DOUBLE_NIL
    g.apply(DOUBLE_NIL, 1)
    # going for the Nil, the draw now keeps low cards
    assert B2.choose(g, 1, rng) == KEEP
    while g.phase == "draw":
        s = g.turn_seats()[0]
        g.apply(B2.choose(g, s, rng), s)
    assert g.phase == "exchange"
    hand = g.hand_of(1)
    a = B2.choose(g, 1, rng)
    give = a.value[0]
    danger = sorted(hand, key=lambda c: c % 13, reverse=True)
    assert give and all(c % 13 >= min(x % 13 for x in give) for c in danger[: len(give)])
    assert max(c % 13 for c in hand) == max(c % 13 for c in give)  # the highest card goes


def test_2p_weak_hand_bids_nil() -> None:
    weak = P("2S 3H 4H 5H 2D 3D 4D 6D 2C 3C 4C 5C 7C")
    g = new_game("spades-2p", 2)
    assert isinstance(g, Spades2PState)
    g.start_hand(_draw_deck(P("AS KS QS JS TS AH KH QH AD KD AC KC QC"), weak))
    while g.phase == "draw":
        g.apply(KEEP)
    assert g.turn_seats() == (0,)
    assert B2.choose(g, 0, random.Random(0)) == BIDS[0]
    g.apply(BIDS[0], 0)
    assert B2.choose(g, 1, random.Random(0)).value >= 9


# ---------------------------------------------------------------------- play


def _deal(hands: dict[int, list[int]], dealer: int = 0) -> list[int]:
    used = {c for h in hands.values() for c in h}
    rest = [c for c in range(52) if c not in used]
    full = {s: list(hands.get(s, [])) for s in range(4)}
    for s in range(4):
        while len(full[s]) < 13:
            full[s].append(rest.pop(0))
    return [full[(dealer + 1 + i) % 4][i // 4] for i in range(52)]


def _ps(hands: dict[int, list[int]], bids: dict[int, int], **options: object) -> PartnershipSpadesState:
    g = new_game("partnership-spades", 4, options)
    assert isinstance(g, PartnershipSpadesState)
    g.start_hand(_deal(hands))
    for s in (1, 2, 3, 0):
        g.apply(BIDS[bids[s]], s)
    return g


HANDS = {
    0: P("KH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
    1: P("2H 9H AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS"),
    2: P("QH 3H AH 4H 5H 6H 7H 8H AD QS KS 2C 3C"),
    3: P("JH TH 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
}


def test_do_not_overtake_a_partner_holding_the_top_card() -> None:
    g = _ps(HANDS, {0: 4, 1: 3, 2: 4, 3: 3}, must_beat=False)
    g.apply(play("KH"), 0)
    g.apply(play("2H"), 1)
    # seat 2 holds AH but its partner's KH is already the best heart out: play low
    assert B4.choose(g, 2, random.Random(0)) == play("3H")


def _2p_trick(me: list[int], opp: list[int], bids: tuple[int, int], lead: str) -> Spades2PState:
    g = new_game("spades-2p", 2)
    assert isinstance(g, Spades2PState)
    g.start_hand(_draw_deck(me, opp))  # dealer 0: seat 1 draws first and gets ``me``
    while g.phase == "draw":
        g.apply(KEEP)
    g.apply(BIDS[bids[1]], 0)
    g.apply(BIDS[bids[0]], 1)
    g.apply(play(lead), 0)  # the dealer leads
    return g


def test_win_as_cheaply_as_possible_while_the_contract_needs_tricks() -> None:
    g = _2p_trick(P("2H 6H 9H AH"), P("5H"), (4, 4), "5H")
    assert B2.choose(g, 1, random.Random(0)) == play("6H")


def test_duck_under_the_led_card_once_the_contract_is_made() -> None:
    g = _2p_trick(P("2H 6H 9H AH"), P("7H"), (1, 4), "7H")
    g.tricks_taken = [0, 1]  # seat 1 has made its bid of 1
    assert B2.choose(g, 1, random.Random(0)) == play("6H")  # the highest card that loses


def test_duck_when_the_contract_is_made() -> None:
    g = _ps(HANDS, {0: 1, 1: 1, 2: 1, 3: 1}, must_beat=False)
    g.tricks_taken = [1, 1, 1, 1]  # every contract made: avoid bags
    g.apply(play("KH"), 0)
    # seat 1 holds 2H and 9H: the highest card that still loses
    assert B4.choose(g, 1, random.Random(0)) == play("9H")


def test_a_nil_bidder_plays_the_highest_card_that_still_loses() -> None:
    g = _ps(HANDS, {0: 4, 1: 3, 2: 0, 3: 3}, must_beat=False)
    g.apply(play("KH"), 0)
    g.apply(play("9H"), 1)
    # seat 2 is the Nil bidder: the highest card that still loses
    assert B4.choose(g, 2, random.Random(0)) == play("QH")


def test_cover_plays_over_the_nil_bidder() -> None:
    hands = {
        0: P("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"),
        1: P("2H 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"),
        2: P("KH 3H 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
        3: P("QH AH 4H 5H 6H 7H 8H 9H TH JH 2S 2C 3C"),
    }
    g = new_game("partnership-spades", 4, {"must_beat": False}, first_dealer=3)
    assert isinstance(g, PartnershipSpadesState)
    g.start_hand(_deal(hands, dealer=3))
    for s, b in ((0, 4), (1, 3), (2, 3), (3, 0)):
        g.apply(BIDS[b], s)
    assert g.turn_seats() == (3,)  # the dealer leads
    g.apply(play("QH"), 3)  # seat 3 bid Nil and is winning with QH
    g.apply(play("2D"), 0)
    # seat 1 is the Nil bidder's partner: it holds only 2H in hearts, so it cannot cover
    assert B4.choose(g, 1, random.Random(0)) == play("2H")
    # rebuild so that the partner can cover: seat 1 with AH
    hands[1], hands[3] = P("AH 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"), P("QH 2H 4H 5H 6H 7H 8H 9H TH JH 2S 2C 3C")
    g = new_game("partnership-spades", 4, {"must_beat": False}, first_dealer=3)
    g.start_hand(_deal(hands, dealer=3))
    for s, b in ((0, 4), (1, 3), (2, 3), (3, 0)):
        g.apply(BIDS[b], s)
    g.apply(play("QH"), 3)
    g.apply(play("2D"), 0)
    assert B4.choose(g, 1, random.Random(0)) == play("AH")  # play high over the Nil bidder


def test_blind_nil_is_decided_without_looking() -> None:
    g = new_game("partnership-spades", 4)
    assert isinstance(g, PartnershipSpadesState)
    g.totals = [0, 300, 0, 300]
    g.start_hand(_deal({}))
    g.apply(BIDS[3], 1)
    # seat 2's partner (seat 0) has not bid: no Blind Nil yet
    assert B4.choose(g, 2, random.Random(0)) != BLIND_NIL
    g.apply(BIDS[5], 2)
    g.apply(BIDS[3], 3)
    # seat 0: partner bid 5, team trails by 300: Blind Nil, whatever the cards
    choices = set()
    for hand_seed in range(3):
        h = g.copy()
        assert isinstance(h, PartnershipSpadesState)
        cards = [c for s in (0, 1, 3) for c in cards_of(h.masks[s])]
        random.Random(hand_seed).shuffle(cards)
        h.masks[0], h.masks[1], h.masks[3] = mask_of(cards[:13]), mask_of(cards[13:26]), mask_of(cards[26:])
        choices.add(B4.choose(h, 0, random.Random(0)))
    assert choices == {BLIND_NIL}


# ---------------------------------------------------------------------- only the seat's own knowledge


def _scramble_others(g: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy in which every card hidden from ``seat`` is dealt around again (same counts)."""
    h = g.copy()
    if isinstance(h, PartnershipSpadesState):
        others = [s for s in range(4) if s != seat]
        pool = [c for s in others for c in cards_of(h.masks[s])]
        rng.shuffle(pool)
        for s in others:
            k = h.masks[s].bit_count()
            h.masks[s] = mask_of(pool[:k])
            pool = pool[k:]
    else:
        assert isinstance(h, Spades2PState)
        opp = 1 - seat
        seen = h.seen[seat]
        hidden_discards = [c for c in h.discards if not seen >> c & 1]
        stock = h.deck[h.pos + (2 if h.phase == "draw" else 0):]
        pool = cards_of(h.masks[opp]) + hidden_discards + stock
        rng.shuffle(pool)
        k = h.masks[opp].bit_count()
        h.masks[opp] = mask_of(pool[:k])
        pool = pool[k:]
        new_discards = []
        it = iter(pool[: len(hidden_discards)])
        for c in h.discards:
            new_discards.append(c if seen >> c & 1 else next(it))
        h.discards = new_discards
        rest = pool[len(hidden_discards):]
        cut = h.pos + (2 if h.phase == "draw" else 0)
        h.deck = h.deck[:cut] + rest
    return h


@pytest.mark.parametrize("game,n", [("spades-2p", 2), ("partnership-spades", 4)])
def test_bots_decide_only_from_their_own_knowledge(game: str, n: int) -> None:
    bot = bot_for(game)
    rng = random.Random(9)
    checked = 0
    for _ in range(4):
        st = new_game(game, n)
        deck = list(range(52))
        rng.shuffle(deck)
        st.start_hand(deck)
        while st.turn_seats():
            seat = st.turn_seats()[0]
            a = bot.choose(st, seat, random.Random(1))
            if st.phase != "exchange":
                for k in range(2):
                    other = _scramble_others(st, seat, random.Random(k))
                    assert bot.choose(other, seat, random.Random(1)) == a
                    checked += 1
            if a.kind == "exchange":
                a = Action("exchange", (a.value[0], tuple(sorted(rng.sample(st.discards, len(a.value[0]))))))  # type: ignore[attr-defined]
            st.apply(a, seat)
    assert checked > 200
