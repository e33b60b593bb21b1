"""Invariants of every game at every legal player count, over random legal games.

Written against the public GameState API only, so each game is checked as soon as its module
imports (a game whose module does not import yet is skipped with that reason). Random deck
orders come from a seeded shuffle, options are drawn at random, every action is a uniformly
random legal one. Checked along the way:

- every card is in exactly one place (``card_locations()``; each card twice with two decks),
  and no card is both in a hand and already played;
- hand sizes at the start of every trick and the number of tricks per hand (RULES.md);
- points: hearts 26 (less 10 with the omnibus) unless a moon; cancellation hearts 52 less
  what cancelled last tricks leave untaken; totals are the running sums of the points;
- ``legal_actions`` and ``apply`` agree: every listed action applies on a copy, unlisted
  actions are refused with a reason (and change nothing);
- undo restores the exact state, JSON round-trips, copies are independent;
- the public view never holds a card only some seats may know, and a seat's view never holds
  a card of another seat's hand that the seat has not legitimately seen.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import (
    HAND_SIZE,
    TRICKS,
    card_names_in,
    game_player_counts,
    load_class,
    plays_this_hand,
    publicly_known,
    random_action,
    random_deck,
    random_options,
)
from hypothesis import given
from hypothesis import strategies as st

from trickref.engine import cards as C
from trickref.engine.actions import (
    BIDS,
    BLIND_NIL,
    DISCARD,
    DOUBLE_NIL,
    KEEP,
    MOON_OTHERS,
    MOON_SELF,
    PLAY,
    Action,
    exchange,
    pass_cards,
)
from trickref.engine.base import GameState
from trickref.engine.errors import IllegalAction
from trickref.engine.options import defaults

CASES = list(game_player_counts())
_FIXED_POOL: list[Action] = [*PLAY, *BIDS, KEEP, DISCARD, DOUBLE_NIL, BLIND_NIL, MOON_SELF, MOON_OTHERS]


@pytest.fixture(scope="module", params=CASES, ids=[f"{g}-{n}" for g, n in CASES])
def case(request: pytest.FixtureRequest) -> tuple[type[GameState], int]:
    game, n = request.param
    return load_class(game), n


# ---------------------------------------------------------------------------- checks
def check_cards(state: GameState) -> None:
    """Every card in exactly one place; no card both held and played."""
    decks = state.DECKS
    played = Counter(plays_this_hand(state))
    for s in range(state.n):
        held = Counter(state.hand_of(s))
        for c, k in held.items():
            assert k + played[c] <= decks, f"{C.NAMES[c]} is held by seat {s} and played"
    locs = state.card_locations()
    if locs is None or state.phase in ("deal",):
        return
    allc = Counter(c for cs in locs.values() for c in cs)
    wrong = {C.NAMES[c]: allc[c] for c in range(52) if allc[c] != decks}
    assert not wrong, f"cards not exactly {decks} time(s) in {sorted(locs)}: {wrong}"
    for s in range(state.n):
        if f"hand{s}" in locs:
            assert sorted(locs[f"hand{s}"]) == sorted(state.hand_of(s))


def check_turns(state: GameState) -> None:
    turn = state.turn_seats()
    assert turn, f"nobody on turn in phase {state.phase}"
    for s in range(state.n):
        legal = state.legal_actions(s)
        if s in turn:
            assert legal, f"seat {s} is on turn with no legal action in phase {state.phase}"
        else:
            assert legal == []


def check_trick_start(state: GameState, tricks_done: int) -> None:
    g, n = state.GAME_ID, state.n
    size = HAND_SIZE[g][n]
    if g == "german-whist":
        want = size if tricks_done < 13 else 26 - tricks_done
    else:
        want = size - tricks_done
    sizes = [len(state.hand_of(s)) for s in range(n)]
    assert sizes == [want] * n, f"hand sizes {sizes} at the start of trick {tricks_done + 1}"


def unlisted_candidates(state: GameState, seat: int, rng: random.Random) -> list[Action]:
    out = rng.sample(_FIXED_POOL, 6)
    out.append(pass_cards(rng.sample(range(52), 3)))
    out.append(pass_cards(rng.sample(range(52), 2)))
    hand = state.hand_of(seat)
    if state.GAME_ID == "spades-2p" and hand:
        pile = set(getattr(state, "discards", []))  # noqa: B009
        outside = [c for c in range(52) if c not in pile]
        out.append(exchange([rng.choice(hand)], [rng.choice(outside)]))
    return out


def check_legal_agrees(state: GameState, rng: random.Random) -> None:
    for seat in state.turn_seats():
        legal = state.legal_actions(seat)
        for a in rng.sample(legal, min(6, len(legal))):
            assert state.check(a, seat) is None, f"listed {a} refused: {state.check(a, seat)}"
            c = state.copy()
            c.apply(a, seat)
        listed = set(legal)
        before = state.copy()
        for a in unlisted_candidates(state, seat, rng):
            if a in listed or (a.kind == "exchange" and state.check(a, seat) is None
                               and set(a.value[1]) <= set(getattr(state, "discards", ()))):
                continue
            reason = state.check(a, seat)
            assert isinstance(reason, str) and reason, f"unlisted {a} accepted by check"
            with pytest.raises(IllegalAction) as err:
                state.apply(a, seat)
            assert err.value.reason == reason
            assert str(err.value) == f"seat {seat} cannot {a.describe()}: {reason}"
        assert state == before
    off = [s for s in range(state.n) if s not in state.turn_seats()]
    if off:
        s = rng.choice(off)
        a = PLAY[rng.randrange(52)]
        assert state.check(a, s)
        with pytest.raises(IllegalAction):
            state.apply(a, s)


def privately_seen(state: GameState, seat: int) -> set[int]:
    """Cards ``seat`` legitimately knows that may now lie in another seat's hand: cards it
    passed, and in spades-2p both cards of each of its own draw turns (one of them may end in
    the opponent's hand through a Double Nil exchange)."""
    seen: set[int] = set()
    pos = 0
    for s, a in state.actions:
        if a.kind == "pass" and s == seat:
            seen |= set(a.value)
        elif a.kind == "draw":
            if s == seat:
                seen |= {state.deck[pos], state.deck[pos + 1]}
            pos += 2
    return seen


def check_views(state: GameState) -> None:
    known = publicly_known(state)
    pub = state.public_view()
    json.dumps(pub)
    leaked = [x for x in card_names_in(pub) if C.parse(x) not in known]
    assert not leaked, f"public view shows hidden cards {leaked}"
    for seat in range(state.n):
        v = state.view(seat)
        json.dumps(v)
        assert sorted(C.parse(x) for x in v["hand"]) == sorted(state.hand_of(seat))
        # with two decks a name may stand for the copy the seat knows (its widow, say): a card
        # counts as another seat's only when every copy of it is in other seats' hands
        held = Counter(c for o in range(state.n) if o != seat for c in state.hand_of(o))
        others = {c for c, k in held.items() if k == state.DECKS}
        ok = known | set(state.hand_of(seat)) | privately_seen(state, seat)
        bad = [x for x in card_names_in(v) if C.parse(x) in others and C.parse(x) not in ok]
        assert not bad, f"seat {seat}'s view shows another seat's cards {bad}"


def check_undo(state: GameState, before: GameState, action: Action) -> None:
    u = state.copy()
    assert u.undo() == action
    assert u == before


def check_json(state: GameState) -> None:
    rec = json.loads(json.dumps(state.to_json()))
    again = type(state).from_json(rec)
    assert again == state
    assert again.to_json() == rec


def check_copy_independent(state: GameState, rng: random.Random) -> None:
    ref = copy.deepcopy(state)
    views = [state.view(s) for s in range(state.n)]
    c = state.copy()
    for _ in range(3 * state.n):
        if c.phase in ("deal", "over"):
            break
        s, a = random_action(c, rng)
        c.apply(a, s)
    assert state == ref
    assert [state.view(s) for s in range(state.n)] == views


def hand_points_check(state: GameState, deck: list[int], acts: list[tuple[int, Action]],
                      pts: list[int]) -> None:
    g, n, opt = state.GAME_ID, state.n, state.options
    plays = [a.value for _, a in acts if a.kind == "play"]
    assert len(plays) == n * TRICKS[g][n], f"{len(plays)} plays in a hand of {TRICKS[g][n]} tricks"
    moon = [a.value for _, a in acts if a.kind == "moon"]
    if g == "hearts":
        omni = -10 if opt["omnibus"] else 0
        if moon:
            want = opt["moon_self"] if moon[0] == "self" else opt["moon_others"] * (n - 1)
        else:
            want = 26
        assert sum(pts) == want + omni, f"hearts points {pts} (moon {moon})"
    elif g == "cancellation-hearts":
        if moon:
            want = opt["moon_self"] if moon[0] == "self" else opt["moon_others"] * (n - 1)
        elif opt["last_trick_cancelled"] == "leader":
            want = 52
        else:
            want = 52 - cancelled_at_end(plays, n, deck[n * HAND_SIZE[g][n]:])
        assert sum(pts) == want, f"cancellation hearts points {pts} (moon {moon})"
    elif g == "german-whist" and not opt["score_all_tricks"]:
        assert sorted(pts)[0] == 0 and 1 <= max(pts) <= 7


def _value(c: int) -> int:
    return 13 if c == C.QS else 1 if c // 13 == C.HEARTS else 0


def cancelled_at_end(plays: list[int], n: int, widow: list[int]) -> int:
    """Points nobody takes in cancellation hearts: the trailing run of fully cancelled tricks
    (and the widow, if no trick was ever won). Derived here from the plays, independently of
    the engine: only led-suit cards win, and a card played twice to a trick cannot."""
    tricks = [plays[i:i + n] for i in range(0, len(plays), n)]
    lost = 0
    run_to_start = True
    for t in reversed(tricks):
        led = t[0] // 13
        cnt = Counter(c for c in t if c // 13 == led)
        if any(k == 1 for k in cnt.values()):
            run_to_start = False
            break
        lost += sum(_value(c) for c in t)
    if run_to_start:
        lost += sum(_value(c) for c in widow)
    return lost


def check_results(state: GameState) -> None:
    running = [0] * state.n
    for row in state.hand_results:
        running = [a + b for a, b in zip(running, row["points"], strict=True)]
        assert row["totals"] == running
        if state.bags is not None:
            assert all(0 <= b < 10 for b in row["bags"]), row
    assert state.totals == running
    if state.TEAMS:
        assert state.totals[0] == state.totals[2] and state.totals[1] == state.totals[3]
    assert bool(state.winners) == state.over


# ---------------------------------------------------------------------------- the test
@given(seed=st.integers(0, 2**32 - 1), use_random_options=st.booleans())
def test_random_legal_games_keep_every_invariant(
    case: tuple[type[GameState], int], seed: int, use_random_options: bool
) -> None:
    cls, n = case
    rng = random.Random(seed)
    game = cls.GAME_ID
    options: dict[str, Any] = random_options(game, rng) if use_random_options else {}
    state = cls(n, options, first_dealer=rng.randrange(n))
    assert state.options == {**defaults(game), **options}
    hands = 0
    while not state.over and hands < 2:
        assert state.needs_deck and state.turn_seats() == ()
        deck = random_deck(rng, cls.DECKS)
        state.start_hand(deck)
        hands += 1
        plays = 0
        while state.phase not in ("deal", "over"):
            check_turns(state)
            check_cards(state)
            seat, action = random_action(state, rng)
            if action.kind == "play" and plays % n == 0:
                check_trick_start(state, plays // n)
            r = rng.random()
            if r < 0.08:
                check_legal_agrees(state, rng)
            if r < 0.25:
                check_views(state)
            before = state.copy() if r < 0.05 else None
            if 0.9 < r < 0.93:
                check_copy_independent(state, rng)
            if 0.95 < r:
                check_json(state)
            state.apply(action, seat)
            if action.kind == "play":
                plays += 1
            if before is not None:
                check_undo(state, before, action)
        deck_, acts = state.finished_hands[-1]
        assert deck_ == deck
        hand_points_check(state, deck, acts, state.hand_results[-1]["points"])
        check_results(state)
        check_views(state)
        check_json(state)


@given(seed=st.integers(0, 2**32 - 1))
def test_undo_back_to_the_start_of_the_game(case: tuple[type[GameState], int], seed: int) -> None:
    """Undo every action of a hand and a half, one by one, across the hand boundary."""
    cls, n = case
    rng = random.Random(seed)
    state = cls(n, {}, first_dealer=rng.randrange(n))
    history: list[GameState] = []
    taken: list[Action] = []
    for h in range(2):
        if state.over:
            break
        state.start_hand(random_deck(rng, cls.DECKS))
        limit = 10_000 if h == 0 else rng.randrange(1, 60)  # the first hand in full
        while state.phase not in ("deal", "over") and limit:
            history.append(state.copy())
            s, a = random_action(state, rng)
            state.apply(a, s)
            taken.append(a)
            limit -= 1
    while history:
        assert state.can_undo()
        assert state.undo() == taken.pop()
        assert state == history.pop()
    assert not state.can_undo()
    with pytest.raises(ValueError, match="nothing to undo"):
        state.undo()
