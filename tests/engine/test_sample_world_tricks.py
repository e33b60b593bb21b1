"""``sample_world(seat, rng)`` of German Whist, partnership-spades and spades-2p
(engine/worlds.py): a determinization of what ``seat`` does not know.

Properties, at random moments of random games (Blind Nil passes and Double Nil exchanges
included), for each seat: the sampled state's ``view(seat)`` equals the real one; it is a
legal state of the game (its record replays to it, so every play in it was legal, every void
and must-beat duty kept); the hidden cards are the same cards, over the same hidden places
with the same counts; no seat holds a card of a suit it has shown a void in (the Spades
games, where hands do not grow during play); and the worlds depend only on what the seat
knows: a state the seat cannot tell apart gives the same worlds for the same random numbers.
And in small positions every holding consistent with the seat's knowledge comes out over
many samples, and nothing else: the consistent holdings are found independently, by
replaying the record with every candidate deck and keeping those the rules allow and the
seat's view cannot tell apart.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import random_action, random_deck

from trickref.engine import cards as C
from trickref.engine.actions import BLIND_NIL, DOUBLE_NIL
from trickref.engine.base import GameState
from trickref.engine.games import new_game
from trickref.engine.german_whist import GermanWhistState
from trickref.engine.partnership_spades import PartnershipSpadesState
from trickref.engine.spades_2p import Spades2PState


def hidden_places(s: GameState, seat: int) -> dict[str, Any]:
    """The cards in places hidden from ``seat`` (together) and how many each place holds."""
    locs = s.card_locations()
    assert locs is not None
    places = [f"hand{p}" for p in range(s.n) if p != seat]
    places += [k for k in ("passing", "discards", "stock") if k in locs]
    cards: Counter[int] = Counter()
    for k in places:
        cards.update(locs[k])
    return {"cards": cards, "counts": {k: len(locs[k]) for k in places}}


def shown_voids(s: GameState) -> list[set[int]]:
    voids: list[set[int]] = [set() for _ in range(s.n)]
    trick: list[int] = []
    for p, a in s.actions:
        if a.kind != "play":
            continue
        if trick and a.value // 13 != trick[0] // 13:
            voids[p].add(trick[0] // 13)
        trick.append(a.value)
        if len(trick) == s.n:
            trick = []
    return voids


def check_world(s: GameState, seat: int, rng: random.Random) -> None:
    w = s.sample_world(seat, rng)  # type: ignore[attr-defined]
    assert type(w) is type(s)
    assert w.view(seat) == s.view(seat)
    assert GameState.from_json(w.to_json()) == w  # a legal state: its record replays to it
    assert hidden_places(w, seat) == hidden_places(s, seat)
    assert w.hand_of(seat) == s.hand_of(seat) or sorted(w.hand_of(seat)) == sorted(s.hand_of(seat))
    if not isinstance(s, GermanWhistState):  # hands only shrink during play
        for p in range(s.n):
            if p != seat:
                assert not {c // 13 for c in w.hand_of(p)} & shown_voids(s)[p], "a shown void holds a card"
    # only what the seat knows is used: a world of this state (which the seat cannot tell
    # from it) gives the same worlds for the same random numbers
    k = rng.randrange(1 << 30)
    assert w.sample_world(seat, random.Random(k)).to_json() == s.sample_world(seat, random.Random(k)).to_json()  # type: ignore[attr-defined]
    assert w.totals == s.totals and w.hand_number == s.hand_number


def play_on(s: GameState, rng: random.Random, every: float, seats: list[int] | None = None) -> int:
    """Play random legal actions to the end of the hand, checking worlds now and then."""
    checked = 0
    while s.turn_seats():
        if rng.random() < every:
            for seat in seats if seats is not None else range(s.n):
                check_world(s, seat, rng)
                checked += 1
        seat, action = random_action(s, rng)
        legal = s.legal_actions(seat)
        for special in (BLIND_NIL, DOUBLE_NIL):  # make the rare knowledge common
            if special in legal and rng.random() < 0.5:
                action = special
        s.apply(action, seat)
    return checked


@pytest.mark.parametrize("options", [{}, {"must_beat": False, "trump": "spades", "first_lead": "left"}])
def test_partnership_spades_worlds(options: dict[str, Any]) -> None:
    rng = random.Random(3)
    s = new_game("partnership-spades", 4, {"target": 10**6, "blind_nil_margin": 0, **options})
    assert isinstance(s, PartnershipSpadesState)
    checked = 0
    blind = 0
    for _ in range(8):
        s.start_hand(random_deck(rng, 1))
        checked += play_on(s, rng, 0.1)
        blind += sum(1 for _, a in s.actions if a.kind == "pass")
        for seat in range(4):
            assert s.sample_world(seat, rng) == s  # between hands nothing is hidden
    assert checked > 40 and blind >= 4


def test_spades_2p_worlds() -> None:
    rng = random.Random(4)
    s = new_game("spades-2p", 2, {"target": 10**6})
    assert isinstance(s, Spades2PState)
    checked = exchanges = 0
    for _ in range(10):
        s.start_hand(random_deck(rng, 1))
        checked += play_on(s, rng, 0.12)
        exchanges += sum(1 for _, a in s.actions if a.kind == "exchange" and a.value[0])
    assert checked > 60 and exchanges > 4


def test_german_whist_worlds() -> None:
    rng = random.Random(5)
    s = new_game("german-whist", 2, {"target": 10**6})
    assert isinstance(s, GermanWhistState)
    checked = 0
    for _ in range(6):
        s.start_hand(random_deck(rng, 1))
        checked += play_on(s, rng, 0.15)
    assert checked > 60


@pytest.mark.parametrize("game", ["german-whist", "partnership-spades", "spades-2p"])
def test_worlds_differ_from_the_real_one(game: str) -> None:
    rng = random.Random(6)
    s = new_game(game, 4 if game == "partnership-spades" else 2, {"target": 10**6})
    s.start_hand(random_deck(rng, 1))
    while s.phase != "play":
        s.apply(*reversed(random_action(s, rng)))
    for _ in range(3):
        s.apply(*reversed(random_action(s, rng)))
    other = {tuple(sorted(s.sample_world(0, rng).hand_of(1))) for _ in range(20)}  # type: ignore[attr-defined]
    assert len(other) > 10


# ---------------------------------------------------------------------- every holding comes out


def _replays_to(rec: dict[str, Any], deck: list[int], seat: int, want: dict[str, Any]) -> bool:
    rec["hands"][-1]["deck"] = C.names(deck)
    try:
        w = GameState.from_json(rec)
    except ValueError:
        return False
    return w.view(seat) == want


def _sampled(s: GameState, seat: int, key: Any, rng: random.Random, times: int) -> set[Any]:
    return {key(s.sample_world(seat, rng)) for _ in range(times)}  # type: ignore[attr-defined]


def test_every_partnership_holding_comes_out() -> None:
    """Two tricks left, a void shown: every split of the six hidden cards over the three other
    hands that the rules allow, and nothing else."""
    rng = random.Random(12)
    s = new_game("partnership-spades", 4, {"target": 10**6})
    assert isinstance(s, PartnershipSpadesState)
    while True:
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats() and not (s.phase == "play" and len(s.tricks) == 11 and not s.trick):
            s.apply(*reversed(random_action(s, rng)))
        if s.turn_seats() and any(shown_voids(s)[p] for p in (1, 2, 3)) and not any(s.blind):
            break
        while s.turn_seats():
            s.apply(*reversed(random_action(s, rng)))
    seat = 0
    others = (1, 2, 3)
    hidden = sorted(c for p in others for c in s.hand_of(p))
    played: list[list[int]] = [[] for _ in range(4)]
    for p, a in s.actions:
        if a.kind == "play":
            played[p].append(a.value)
    want_view = s.view(seat)
    rec = s.to_json()
    first = (s.dealer + 1) % 4
    consistent = set()
    for perm in set(itertools.permutations(hidden)):
        hands = {seat: s.hand_of(seat), 1: list(perm[0:2]), 2: list(perm[2:4]), 3: list(perm[4:6])}
        deck = [0] * 52
        for p in range(4):
            deck[(p - first) % 4::4] = hands[p] + played[p]
        if _replays_to(rec, deck, seat, want_view):
            consistent.add(tuple(tuple(sorted(hands[p])) for p in others))
    assert 1 < len(consistent) < 90, "the position should rule some holdings out"
    seen = _sampled(s, seat, lambda w: tuple(tuple(sorted(w.hand_of(p))) for p in others), rng, 50 * len(consistent))
    assert seen == consistent


def test_every_spades_2p_holding_comes_out() -> None:
    """Two tricks left, no Double Nil: the opponent's two cards can be any two of the cards
    the seat has not seen that the rules allow (the rest lie in the discard pile)."""
    rng = random.Random(13)
    s = new_game("spades-2p", 2, {"target": 10**6})
    assert isinstance(s, Spades2PState)
    seat, opp = 0, 1
    while True:
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats() and not (s.phase == "play" and len(s.tricks) == 11 and not s.trick):
            seat_on, action = random_action(s, rng)
            if action == DOUBLE_NIL:
                continue
            s.apply(action, seat_on)
        if s.turn_seats() and shown_voids(s)[opp]:
            break
        while s.turn_seats():
            s.apply(*reversed(random_action(s, rng)))
    deck0 = s.deck
    turns = [(i, p, a.value == "keep") for i, (p, a) in enumerate((p, a) for p, a in s.actions if a.kind == "draw")]
    mine = {deck0[2 * t] for t, p, _ in turns if p == seat} | {deck0[2 * t + 1] for t, p, _ in turns if p == seat}
    opp_played = [a.value for p, a in s.actions if a.kind == "play" and p == opp]
    unseen = sorted(set(range(52)) - mine - set(opp_played))
    want_view = s.view(seat)
    rec = s.to_json()
    consistent = set()
    for pair in itertools.combinations(unseen, 2):
        kept = list(pair) + opp_played
        thrown = [c for c in unseen if c not in pair]
        deck = deck0[:]
        j = 0
        for t, p, keep in turns:
            if p == opp:
                deck[2 * t], deck[2 * t + 1] = (kept[j], thrown[j]) if keep else (thrown[j], kept[j])
                j += 1
        if _replays_to(rec, deck, seat, want_view):
            consistent.add(pair)
    assert 1 < len(consistent) < len(unseen) * (len(unseen) - 1) // 2
    seen = _sampled(s, seat, lambda w: tuple(sorted(w.hand_of(opp))), rng, 30 * len(consistent))
    assert seen == consistent


def test_every_german_whist_holding_comes_out() -> None:
    """The last trick of stage one: the card left face down under the face-up card can be any
    card the seat has not seen, unless the opponent's shown voids tie it to its hand; found
    independently by trying, for each candidate, random placements of the other hidden cards
    over the opponent's dealt and drawn cards until one replays."""
    rng = random.Random(14)
    s = new_game("german-whist", 2, {"target": 10**6})
    assert isinstance(s, GermanWhistState)
    seat, opp = 0, 1
    while True:
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats() and len(s.played) < 24:
            s.apply(*reversed(random_action(s, rng)))
        if s.turn_seats() and shown_voids(s)[opp]:
            break
        while s.turn_seats():
            s.apply(*reversed(random_action(s, rng)))
    assert s.stock == 50
    world = s.sample_world(seat, rng)
    known = set(range(52)) - set(hidden_places(s, seat)["cards"])
    want_view = s.view(seat)
    rec = s.to_json()
    # the positions whose cards the seat has not seen: the opponent's dealt cards and its
    # face-down draws, and the last stock card
    nd = 1 - s.dealer
    opp_pos = list(range(0 if opp == nd else 1, 26, 2))
    deck0 = world.deck  # a deck the seat cannot tell from the real one
    opp_pos += [p for p in range(27, 50, 2) if deck0[p] not in known]
    hidden = sorted(deck0[p] for p in opp_pos) + [deck0[51]]
    consistent = set()
    for c in hidden:
        rest = [x for x in hidden if x != c]
        for _ in range(400):
            rng.shuffle(rest)
            deck = deck0[:]
            for p, x in zip(opp_pos, rest, strict=True):
                deck[p] = x
            deck[51] = c
            if _replays_to(rec, deck, seat, want_view):
                consistent.add(c)
                break
    assert 1 < len(consistent)
    seen = _sampled(s, seat, lambda w: w.deck[51], rng, 40 * len(hidden))
    assert seen == consistent


def test_spades_2p_keep_prior() -> None:
    """``keep_bias`` (the search bots' prior that the opponent kept good cards) draws worlds
    that are just as consistent, and puts more of the usual keepers in the opponent's hand."""
    from trickref.engine.masks import mask_of
    from trickref.engine.worlds import KEEPERS, sample_spades_2p

    rng = random.Random(15)
    s = new_game("spades-2p", 2, {"target": 10**6})
    assert isinstance(s, Spades2PState)
    plain = biased = 0
    for _ in range(4):
        s.start_hand(random_deck(rng, 1))
        while s.turn_seats():
            seat, action = random_action(s, rng)
            if action == DOUBLE_NIL:
                continue
            if s.phase == "play" and rng.random() < 0.2:
                for _ in range(5):
                    w = sample_spades_2p(s, 0, rng, keep_bias=6.0)
                    assert w.view(0) == s.view(0)
                    assert GameState.from_json(w.to_json()) == w
                    assert hidden_places(w, 0) == hidden_places(s, 0)
                    biased += (mask_of(w.hand_of(1)) & KEEPERS).bit_count()
                    plain += (mask_of(s.sample_world(0, rng).hand_of(1)) & KEEPERS).bit_count()
            s.apply(action, seat)
    assert biased > 1.2 * plain > 0
