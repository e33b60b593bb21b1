"""Property tests over random legal games of spades-2p and partnership-spades: card
conservation, hand sizes, 13 tricks a hand, score invariants, legal_actions and apply agreeing,
undo, JSON round trips, independent copies, and views that leak nothing hidden."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trickref.engine import cards as C
from trickref.engine.actions import BIDS, BLIND_NIL, DISCARD, DOUBLE_NIL, KEEP, PLAY, Action
from trickref.engine.base import GameState
from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game
from trickref.engine.partnership_spades import PartnershipSpadesState
from trickref.engine.spades_2p import Spades2PState

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def strings(obj: Any) -> set[str]:
    """Every string inside a view (keys and values)."""
    out: set[str] = set()
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out |= strings(k) | strings(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            out |= strings(v)
    return out


def random_action(g: GameState, rng: random.Random) -> Action:
    pool = [
        PLAY[rng.randrange(52)], BIDS[rng.randrange(14)], KEEP, DISCARD, DOUBLE_NIL, BLIND_NIL,
        Action("bid", 14), Action("pass", tuple(sorted(rng.sample(range(52), 2)))),
        Action("exchange", (tuple(sorted(rng.sample(range(52), 2))), tuple(sorted(rng.sample(range(52), 2))))),
        Action("play", "XX"), Action("draw", "maybe"),
    ]
    return rng.choice(pool)


def check_cards(g: GameState) -> None:
    loc = g.card_locations()
    assert loc is not None
    allc = sorted(c for cs in loc.values() for c in cs)
    assert allc == list(range(52)), loc
    if g.phase == "play":
        sizes = [len(g.hand_of(s)) for s in range(g.n)]
        done = len(g.tricks)  # type: ignore[attr-defined]
        in_trick = {s for s, _ in g.trick}  # type: ignore[attr-defined]
        assert sizes == [13 - done - (s in in_trick) for s in range(g.n)]
        assert sum(g.tricks_taken) == done  # type: ignore[attr-defined]


def check_views(g: GameState) -> None:
    hands = {s: set(C.names(g.hand_of(s))) for s in range(g.n)}
    pub = strings(g.public_view())
    for s in range(g.n):
        assert not hands[s] & pub
    if isinstance(g, Spades2PState):
        hidden = set(C.names(g.deck[g.pos:])) | set(C.names(g.discards))
        assert not hidden & pub
    if isinstance(g, PartnershipSpadesState):
        for p in g.passes:
            if p is not None:
                assert not set(C.names(c for c in p if not g.played >> c & 1)) & pub
    for s in range(g.n):
        v = strings(g.view(s))
        assert set(g.view(s)["hand"]) == hands[s]
        others = set().union(*(hands[o] for o in range(g.n) if o != s))
        allowed: set[str] = set()
        if isinstance(g, Spades2PState):
            allowed = set(C.names(C.sorted_hand([c for c in range(52) if g.seen[s] >> c & 1])))
            stock = set(C.names(g.deck[g.pos:]))
            shown = {C.NAMES[g.deck[g.pos]]} if g.phase == "draw" and g.turn_seats() == (s,) else set()
            assert not (stock - shown) & v
            unseen = set(C.names(g.discards)) - allowed
            assert not unseen & v
        if isinstance(g, PartnershipSpadesState) and g.passes[s] is not None:
            allowed = set(C.names(g.passes[s] or ()))
        assert not (others - allowed) & v


def choose(g: GameState, seat: int, rng: random.Random) -> Action:
    legal = g.legal_actions(seat)
    assert legal
    if isinstance(g, Spades2PState) and g.phase == "exchange" and rng.random() < 0.5:
        give = legal[rng.randrange(len(legal))].value[0]
        get = tuple(sorted(rng.sample(g.discards, len(give))))
        return Action("exchange", (give, get))
    if BLIND_NIL in legal and rng.random() < 0.5:
        return BLIND_NIL
    return legal[rng.randrange(len(legal))]


def run(g: GameState, rng: random.Random, hands: int, deep: bool) -> None:
    for _ in range(hands):
        if g.over:
            break
        deck = list(range(52))
        rng.shuffle(deck)
        g.start_hand(deck)
        points_before = g.totals[:]
        steps = 0
        while g.phase not in ("deal", "over"):
            seats = g.turn_seats()
            assert seats
            seat = rng.choice(seats)
            for other in range(g.n):
                if other not in seats:
                    assert g.legal_actions(other) == []
            legal = g.legal_actions(seat)
            if deep and steps % 5 == 0:
                for a in legal:
                    assert g.check(a, seat) is None, (a, g.check(a, seat))
                if g.phase in ("play", "bid", "draw"):  # every card, bid and draw: legal iff listed
                    for a in [*PLAY, *BIDS, KEEP, DISCARD, DOUBLE_NIL, BLIND_NIL]:
                        assert (g.check(a, seat) is None) == (a in legal), (a, g.check(a, seat))
                check_views(g)
            bad = random_action(g, rng)
            if bad not in legal and not (bad.kind == "exchange" and g.check(bad, seat) is None):
                reason = g.check(bad, seat)
                assert isinstance(reason, str) and reason
                before = g.copy()
                try:
                    g.apply(bad, seat)
                except IllegalAction as e:
                    assert e.reason == reason
                else:
                    raise AssertionError(f"{bad} was applied though not legal")
                assert g == before
            a = choose(g, seat, rng)
            if deep and steps % 11 == 3:
                snap = g.copy()
                g.apply(a, seat)
                after = g.copy()
                assert g.undo() == a
                assert g == snap
                g.apply(a, seat)
                assert g == after
                assert snap != after
            else:
                g.apply(a, seat)
            steps += 1
            if g.phase not in ("deal", "over"):
                check_cards(g)
        res = g.hand_results[-1]
        assert [b + p for b, p in zip(points_before, res["points"], strict=True)] == g.totals
        assert g.bags is not None and all(0 <= b < 10 for b in g.bags)
        if g.TEAMS:
            assert g.totals[0] == g.totals[2] and g.totals[1] == g.totals[3]
            assert g.bags[0] == g.bags[2] and g.bags[1] == g.bags[3]
        for p in res["points"]:
            assert p % 1 == 0
    assert sum(len(t) for t in []) == 0


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    first_bidder=st.sampled_from(["second", "first"]),
    bags=st.booleans(),
    dealer=st.integers(0, 1),
)
def test_spades_2p_random_games(seed: int, first_bidder: str, bags: bool, dealer: int) -> None:
    rng = random.Random(seed)
    g = new_game("spades-2p", 2, {"first_bidder": first_bidder, "failed_nil_tricks_are_bags": bags,
                                  "target": 150}, first_dealer=dealer)
    run(g, rng, 3, deep=True)
    roundtrip(g)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    trump=st.sampled_from(["clubs", "spades"]),
    must_beat=st.booleans(),
    first_lead=st.sampled_from(["dealer", "left"]),
    margin=st.sampled_from([0, 100]),
    cap=st.booleans(),
    count=st.booleans(),
    bags=st.booleans(),
    floor=st.sampled_from([None, -200]),
)
def test_partnership_spades_random_games(seed: int, trump: str, must_beat: bool, first_lead: str, margin: int,
                                         cap: bool, count: bool, bags: bool, floor: int | None) -> None:
    rng = random.Random(seed)
    opts = {"trump": trump, "must_beat": must_beat, "first_lead": first_lead, "blind_nil_margin": margin,
            "cap_team_bid_at_13": cap, "nil_tricks_count_for_partner": count,
            "failed_nil_tricks_are_bags": bags, "loss_floor": floor, "target": 200}
    g = new_game("partnership-spades", 4, opts, first_dealer=rng.randrange(4))
    run(g, rng, 3, deep=True)
    roundtrip(g)


def roundtrip(g: GameState) -> None:
    j = g.to_json()
    back = type(g).from_json(j)
    assert back == g
    assert back.to_json() == j
    c = g.copy()
    assert c == g
    if not g.over:
        deck = list(range(52))
        c.start_hand(deck)
        assert c != g and g.needs_deck
        for _ in range(5):
            s = c.turn_seats()[0]
            c.apply(c.legal_actions(s)[0], s)
        assert g.needs_deck and g.hand_number + 1 == c.hand_number


def test_copy_mid_hand_is_independent() -> None:
    for game, n in (("spades-2p", 2), ("partnership-spades", 4)):
        rng = random.Random(5)
        g = new_game(game, n)
        deck = list(range(52))
        rng.shuffle(deck)
        g.start_hand(deck)
        for _ in range(40):
            s = g.turn_seats()[0]
            g.apply(g.legal_actions(s)[0], s)
        before = g.to_json()
        hands = [g.hand_of(s) for s in range(n)]
        c = g.copy()
        for _ in range(10):
            s = c.turn_seats()[0]
            c.apply(c.legal_actions(s)[-1], s)
        assert g.to_json() == before and [g.hand_of(s) for s in range(n)] == hands
        assert type(g).from_json(before) == g


def test_blind_nil_pass_legal_list_is_every_pair() -> None:
    g = new_game("partnership-spades", 4, {"blind_nil_margin": 0})
    assert isinstance(g, PartnershipSpadesState)
    rng = random.Random(3)
    for _ in range(30):
        if g.over:
            break
        deck = list(range(52))
        rng.shuffle(deck)
        g.start_hand(deck)
        while g.phase != "deal" and not g.over:
            seats = g.turn_seats()
            s = seats[0]
            legal = g.legal_actions(s)
            if g.phase == "pass":
                hand = g.hand_of(s)
                assert [a.value for a in legal] == list(combinations(sorted(hand), 2))
            a = BLIND_NIL if BLIND_NIL in legal else legal[rng.randrange(len(legal))]
            g.apply(a, s)


def test_undo_across_the_end_of_a_hand() -> None:
    for game, n in (("spades-2p", 2), ("partnership-spades", 4)):
        rng = random.Random(11)
        g = new_game(game, n)
        deck = list(range(52))
        rng.shuffle(deck)
        g.start_hand(deck)
        before_last = g.copy()
        while g.turn_seats():
            s = g.turn_seats()[0]
            a = g.legal_actions(s)[rng.randrange(len(g.legal_actions(s)))]
            before_last = g.copy()
            g.apply(a, s)
        assert g.needs_deck and len(g.hand_results) == 1
        undone = g.undo()
        assert g == before_last and g.hand_results == [] and g.totals == [0] * n
        g.apply(undone, g.turn_seats()[0])
        assert g.needs_deck and len(g.hand_results) == 1
