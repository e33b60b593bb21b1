"""``place_hidden`` (engine/hearts_common.py), the draw of the hidden cards behind both Hearts
games' worlds: it keeps one placement of the cards still to place and updates it card by card
(``_take``) instead of solving the placement again for every card. Its answers must be the ones
of the solve-again algorithm it replaced, bit for bit (the same random numbers give the same
worlds): that algorithm is kept below as the reference, and both run on random instances:
hands with voids, passes in flight and a widow, some with no placement at all. Also
``CancellationHeartsState.holdings_sampler``: the worlds of one decision drawn from one
sampler are the ones ``sample_holdings`` draws."""

from __future__ import annotations

import random

import pytest
from engine_helpers import random_deck

from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.hearts_common import place_hidden


# the algorithm place_hidden replaced (main before 2026-12-03 evening), verbatim
def reference_place_hidden(cards: list[int], slots: list[tuple[int, int]], allowed: list[int],
                 rng: random.Random) -> list[tuple[int, int]]:
    """For ``sample_world``: a place for every hidden card (``slots``: one (seat, 0) per free
    card of a seat's hand, (seat, 1) per card of a pass in flight, (-1, 1) per card of a
    face-down widow), each slot used once, a card in a hand only if ``allowed[seat]`` (a
    mask) has it; passes in flight and the widow take anything.

    Card by card, the most constrained first, each to a random place among those that still
    leave a placement of the rest (a max-flow check over the cards grouped by where they may
    go), so it never backtracks and every consistent placement can come out (not uniformly)."""
    free: dict[tuple[int, int], int] = {}
    for sl in slots:
        free[sl] = free.get(sl, 0) + 1
    places = list(free)

    def sig(c: int) -> int:  # the places card c may take, as a bit set over ``places``
        m = 0
        for j, (p, where) in enumerate(places):
            if where == 1 or allowed[p] >> c & 1:
                m |= 1 << j
        return m

    sigs = [sig(c) for c in cards]
    left: dict[int, int] = {}  # cards still to place, by signature
    for g in sigs:
        left[g] = left.get(g, 0) + 1

    everywhere = (1 << len(places)) - 1

    def feasible() -> bool:
        """Every card still to place fits (bipartite flow: signatures -> places; each
        augmenting path, found breadth-first, carries as many cards as it can)."""
        groups = [g for g in left if left[g]]
        if all(g == everywhere for g in groups):  # unconstrained: any spare capacity will do
            return True
        n_groups, n_places = len(groups), len(places)
        need = [left[g] for g in groups]
        cap = [free[sl] for sl in places]
        reach = [[j for j in range(n_places) if g >> j & 1] for g in groups]
        flow = [[0] * n_places for _ in groups]
        for i in range(n_groups):
            while need[i]:
                # from group i: group -> a place it may take; place -> a group with cards
                # there (they may move on to another of that group's places)
                ppar = [-1] * n_places  # the group a place was reached from
                gpar = [-2] * n_groups  # the place a group was reached through (-1: the start)
                gpar[i] = -1
                frontier = [i]
                end = -1
                while frontier and end < 0:
                    nxt: list[int] = []
                    for k in frontier:
                        for j in reach[k]:
                            if ppar[j] >= 0:
                                continue
                            ppar[j] = k
                            if cap[j] > 0:
                                end = j
                                break
                            for k2 in range(n_groups):
                                if gpar[k2] == -2 and flow[k2][j]:
                                    gpar[k2] = j
                                    nxt.append(k2)
                        if end >= 0:
                            break
                    frontier = nxt
                if end < 0:
                    return False
                b = min(need[i], cap[end])
                k = ppar[end]
                while k != i:
                    b = min(b, flow[k][gpar[k]])
                    k = ppar[gpar[k]]
                j = end
                k = ppar[j]
                while True:
                    flow[k][j] += b
                    if k == i:
                        break
                    j = gpar[k]
                    flow[k][j] -= b
                    k = ppar[j]
                cap[end] -= b
                need[i] -= b
        return True

    if not feasible():
        raise AssertionError("no placement of the hidden cards fits what has been shown")
    out: list[tuple[int, int]] = [(0, 0)] * len(cards)
    # the most constrained cards first (random among equals): once they are placed the rest
    # go anywhere and need no flow check
    order = sorted(range(len(cards)), key=lambda i: (sigs[i].bit_count(), rng.random()))
    rand = rng.random
    for i in order:
        g = sigs[i]
        left[g] -= 1
        options = [j for j in range(len(places)) if g >> j & 1 and free[places[j]]]
        # a random place among those that keep the rest placeable: drawn one at a time (a
        # place that does not keep them is struck off), so each of them is equally likely;
        # a card with one place left takes it (the placement of the rest held before it)
        while True:
            if not options:  # pragma: no cover - feasible() held before this card
                raise AssertionError("placement lost its way")
            k = int(rand() * len(options))
            j = options[k]
            free[places[j]] -= 1
            if len(options) == 1 or feasible():
                out[i] = places[j]
                break
            free[places[j]] += 1
            options[k] = options[-1]
            options.pop()
    return out


def instance(rng: random.Random) -> tuple[list[int], list[tuple[int, int]], list[int]]:
    """Hidden cards (one or two decks), slots of 3-11 seats' hands (some with a pass in flight
    or a widow) and each seat's allowed mask with random voids and point-card limits."""
    seats = rng.randint(3, 11)
    decks = rng.choice((1, 2))
    pool = [c for c in range(52) for _ in range(decks)]
    rng.shuffle(pool)
    sizes = [rng.randint(0, 9) for _ in range(seats)]
    flying = [rng.random() < 0.2 for _ in range(seats)]
    widow = rng.choice((0, 0, 1, 3))
    total = sum(sizes) + 3 * sum(flying) + widow
    cards = sorted(pool[:min(total, len(pool))])
    slots: list[tuple[int, int]] = []
    for p in range(seats):
        slots += [(p, 0)] * sizes[p] + [(p, 1)] * (3 * flying[p])
    slots += [(-1, 1)] * widow
    slots = slots[:len(cards)]
    allowed = []
    for _ in range(seats):
        m = (1 << 52) - 1
        for suit in range(4):
            if rng.random() < 0.3:
                m &= ~(0x1FFF << (13 * suit))  # void in the suit
        if rng.random() < 0.05:
            m &= (0x1FFF << 26) | (1 << 36)  # only points (hearts and the Q of spades)
        allowed.append(m)
    return cards, slots, allowed


def test_place_hidden_is_the_reference_bit_for_bit() -> None:
    placed = failed = 0
    for k in range(1500):
        cards, slots, allowed = instance(random.Random(k))
        try:
            want = reference_place_hidden(cards, slots, allowed, random.Random(10_000 + k))
        except AssertionError as e:
            with pytest.raises(AssertionError, match=str(e)):
                place_hidden(cards, slots, allowed, random.Random(10_000 + k))
            failed += 1
            continue
        got = place_hidden(cards, slots, allowed, random.Random(10_000 + k))
        assert got == want, k
        for c, (p, where) in zip(cards, got, strict=True):  # and it is a placement
            assert where == 1 or allowed[p] >> c & 1
        assert sorted(got) == sorted(slots)
        placed += 1
    assert placed > 500 and failed > 50  # both kinds of instance were met


@pytest.mark.parametrize("players", [6, 8, 11])
def test_a_holdings_sampler_draws_what_sample_holdings_draws(players: int) -> None:
    rng = random.Random(players)
    s = new_game("cancellation-hearts", players, {})
    s.start_hand(random_deck(rng, 2))
    rule = bot_for("cancellation-hearts")
    checked = 0
    step = 0
    while s.turn_seats():
        seat = s.turn_seats()[0]
        if step % 9 == 0:
            for who in (seat, (seat + 1) % players):
                sampler = s.holdings_sampler(who)  # one for the decision, many worlds
                for k in range(4):
                    assert sampler.holdings(random.Random(k)) == s.sample_holdings(who, random.Random(k))
                    checked += 1
        step += 1
        s.apply(rule.choose(s, seat, rng), seat)
    assert checked > 40
