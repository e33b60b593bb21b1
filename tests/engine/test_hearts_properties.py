"""Property tests over random legal games of Hearts (3-7 players) and Cancellation Hearts
(6-11 players): card conservation, hand sizes, tricks per hand, points, legal_actions and apply
agreeing, undo, records, copies and views."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from engine_helpers import card_names_in, random_options
from hypothesis import given
from hypothesis import strategies as st

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.base import GameState
from trickref.engine.cancellation_hearts import CARDS_EACH as CH_EACH
from trickref.engine.cancellation_hearts import CancellationHeartsState
from trickref.engine.errors import IllegalAction
from trickref.engine.games import new_game
from trickref.engine.hearts import CARDS_EACH as H_EACH
from trickref.engine.hearts import REMOVED, HeartsState
from trickref.engine.hearts_common import POINTS, HeartsFamilyState

CASES = [("hearts", n) for n in (3, 4, 5, 6, 7)] + [("cancellation-hearts", n) for n in range(6, 12)]


def where_cards_are(s: HeartsFamilyState) -> Counter[int]:
    """Every card's count over all the places a card can be."""
    places: Counter[int] = Counter()
    for seat in range(s.n):
        places.update(s.hand_of(seat))
    if s.phase == "pass":
        for p in s.passes:
            places.update(p)
    places.update(s.trick)
    for _, cards, _ in s.tricks:
        places.update(cards)
    if isinstance(s, HeartsState):
        places.update(REMOVED[s.n])
    else:
        assert isinstance(s, CancellationHeartsState)
        places.update(s.widow)
    return places


def check_invariants(s: HeartsFamilyState) -> None:
    decks = s.DECKS
    assert where_cards_are(s) == Counter({c: decks for c in range(52)})
    locs = s.card_locations()
    if locs is not None:
        assert Counter(c for cs in locs.values() for c in cs) == Counter({c: decks for c in range(52)})
        assert all(locs[f"hand{i}"] == s.hand_of(i) for i in range(s.n))
    each = H_EACH[s.n] if isinstance(s, HeartsState) else CH_EACH[s.n]
    if s.phase == "play":
        played = len(s.trick)
        for i in range(s.n):
            seat = (s.leader + i) % s.n
            assert len(s.hand_of(seat)) == each - s.tricks_played - (1 if i < played else 0)
    if s.phase == "pass":
        for seat in range(s.n):
            assert len(s.hand_of(seat)) == each - (3 if s.passes[seat] else 0)
    assert s.tricks_played == len(s.tricks)
    assert sum(s.tricks_taken) <= s.tricks_played
    total = 26 if isinstance(s, HeartsState) else 52
    assert sum(s.points_taken) <= total
    for seat in range(s.n):
        h = s.hand_of(seat)
        assert h == sorted(h)


def check_views(s: HeartsFamilyState) -> None:
    pub = s.public_view()
    played = {a.value for _, a in s.actions if a.kind == "play"}
    removed = set(REMOVED[s.n]) if isinstance(s, HeartsState) else set()
    names = card_names_in(pub)
    assert {C.parse(x) for x in names} <= played | removed, "the public view shows an unplayed card"
    pub_count = Counter(names)
    for seat in range(s.n):
        v = s.view(seat)
        own = set(s.hand_of(seat)) | set(s.passes[seat]) | set(s.received[seat])
        if isinstance(s, CancellationHeartsState) and s.widow_taker == seat:
            own |= set(s.widow)
        extra = Counter(card_names_in(v)) - pub_count
        assert {C.parse(x) for x in extra} <= own, f"seat {seat} sees another seat's card"
        assert sorted(v["hand"]) == sorted(C.names(s.hand_of(seat)))


def refused(s: GameState, seat: int, action: A.Action) -> None:
    """An unlisted action: check gives a reason in words and apply raises without changing."""
    reason = s.check(action, seat)
    assert isinstance(reason, str) and reason, action
    before = s.copy()
    with pytest.raises(IllegalAction) as e:
        s.apply(action, seat)
    assert e.value.reason == reason
    assert s == before


def unlisted(s: HeartsFamilyState, seat: int, legal: list[A.Action], rng: random.Random) -> list[A.Action]:
    out: list[A.Action] = []
    plays = [A.PLAY[c] for c in rng.sample(range(52), 8)]
    out += [a for a in plays if a not in legal]
    cards = rng.sample(range(52), 3)
    p = A.pass_cards(cards)
    if p not in legal:
        out.append(p)
    out += [m for m in (A.MOON_SELF, A.MOON_OTHERS, A.BIDS[3]) if m not in legal]
    return out


def play_random_hands(game: str, n: int, seed: int, hands: int, deep: bool) -> GameState:
    rng = random.Random(seed)
    opts = random_options(game, rng)
    s = new_game(game, n, opts, first_dealer=rng.randrange(n))
    assert isinstance(s, HeartsFamilyState)
    count = 0
    while not s.over:
        if s.needs_deck:
            if count == hands:
                break
            count += 1
            d = C.full_deck(s.DECKS)
            rng.shuffle(d)
            s.start_hand(d)
            check_invariants(s)
            continue
        seats = s.turn_seats()
        assert seats
        seat = rng.choice(seats)
        legal = s.legal_actions(seat)
        assert legal and len(set(legal)) == len(legal)
        if deep:
            for other in range(s.n):
                if other not in seats:
                    assert s.legal_actions(other) == []
                    assert s.check(legal[0], other) is not None
            for a in legal if len(legal) < 30 else rng.sample(legal, 30):
                assert s.check(a, seat) is None, (a, s.check(a, seat))
            bad = unlisted(s, seat, legal, rng)
            for a in rng.sample(bad, min(4, len(bad))):
                refused(s, seat, a)
        action = rng.choice(legal)
        if deep and rng.random() < 0.08:
            before = s.copy()
            s.apply(action, seat)
            after = s.copy()
            assert s.undo() == action
            assert s == before
            s.apply(action, seat)
            assert s == after
            rebuilt = type(s).from_json(s.to_json())
            assert rebuilt == s
            cp = s.copy()
            assert isinstance(cp, HeartsFamilyState)
            if cp.turn_seats():
                t = cp.turn_seats()[0]
                cp.apply(cp.legal_actions(t)[0], t)
                assert s == after and cp != s
        else:
            s.apply(action, seat)
        check_invariants(s)
        if deep and (rng.random() < 0.15 or s.phase != "play"):
            check_views(s)
        if s.phase in ("deal", "over"):
            hand_done(s)
    return s


def hand_done(s: HeartsFamilyState) -> None:
    """After a hand: as many tricks as cards each, and the points add up."""
    each = H_EACH[s.n] if isinstance(s, HeartsState) else CH_EACH[s.n]
    assert s.tricks_played == each and all(not s.hand_of(i) for i in range(s.n))
    pts = s.hand_results[-1]["points"]
    if s.moon_shooter >= 0:
        return
    assert pts[:] == [p + e for p, e in zip(s.points_taken, s._extra_points(), strict=True)]
    if isinstance(s, HeartsState):
        assert sum(s.points_taken) == 26
    else:
        assert isinstance(s, CancellationHeartsState)
        lost = sum(POINTS[c] for c in s.waiting) + (sum(POINTS[c] for c in s.widow) if s.widow_taker < 0 else 0)
        assert sum(s.points_taken) + lost == 52
        if lost:
            assert s.tricks[-1][2] == -1 and s.options["last_trick_cancelled"] == "nobody"


@pytest.mark.parametrize("game,n", CASES)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_hands_keep_every_rule(game: str, n: int, seed: int) -> None:
    play_random_hands(game, n, seed, hands=1, deep=True)


@pytest.mark.parametrize("game,n", CASES)
def test_whole_random_games_end_with_a_lowest_winner(game: str, n: int) -> None:
    for seed in range(2):
        s = play_random_hands(game, n, seed * 100 + n, hands=10**6, deep=False)
        assert s.over
        low = min(s.totals)
        assert s.winners == [s.totals.index(low)] and s.totals.count(low) == 1
        assert max(s.totals) >= s.options["target"]
        for row in s.hand_results[:-1]:
            t = row["totals"]
            assert max(t) < s.options["target"] or t.count(min(t)) > 1
        replayed = type(s).from_json(s.to_json())
        assert replayed == s


def test_json_is_plain() -> None:
    import json

    for game, n in CASES:
        s = play_random_hands(game, n, 7, hands=1, deep=False)
        json.dumps(s.to_json())
        json.dumps(s.public_view())
        for seat in range(n):
            json.dumps(s.view(seat))
