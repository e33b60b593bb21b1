"""Property tests of deals on the real firmware: routing by identity, and no card ever lost."""

from __future__ import annotations

import random
from collections import Counter

from fw_host import make_host, plan_body
from hypothesis import given, settings
from hypothesis import strategies as st

from trickref.firmware import protocol as P

TARGETS = [0, 1, 2, 3, 4, 5, P.REJECT, P.CENTRE, P.LOOP, P.TRICK]
CAPS = {P.REJECT: 24, P.CENTRE: 8, **{seat: 24 for seat in range(6)}}  # trick 110, loop 120 hold any


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**32), st.sampled_from([1, 2]),
       st.lists(st.sampled_from(TARGETS), min_size=104, max_size=104))
def test_every_card_reaches_its_planned_target(order_seed: int, hopper_seed: int, decks: int,
                                               targets: list[int]) -> None:
    order = [c for _ in range(decks) for c in range(52)]
    random.Random(order_seed).shuffle(order)
    hopper = list(order)
    random.Random(hopper_seed).shuffle(hopper)
    host = make_host(deck=hopper, seats=6)
    entries = list(zip(order, targets[:len(order)], strict=True))
    over = [t for t in CAPS if sum(x == t for _, x in entries) > CAPS[t]]
    reply = host.command(P.DEAL_PLAN, plan_body(1, entries))
    if over:
        assert reply.body[1] == P.NAK_TOO_BIG  # more than the pocket holds: refused
        seen = Counter(t for _, t in entries)
        entries = []
        for c, t in zip(order, targets[:len(order)], strict=True):
            seen[t] -= 1
            entries.append((c, P.TRICK if t in over and seen[t] >= CAPS[t] else t))
        reply = host.command(P.DEAL_PLAN, plan_body(2, entries))
    assert reply.body[1] == P.OK_STARTED
    payload = host.until(P.EV_DEAL_DONE, max_ms=600000)[2]
    assert payload[2:] == bytes((len(order), 0, 0, 0))
    for target in {t for _, t in entries}:
        want = [c for c, t in entries if t == target]
        got = host.board.tray(target)
        assert Counter(got) == Counter(want)
        if target == P.LOOP and decks == 1:  # in the loop in the order they were read
            assert got == [c for c in hopper if c in want]
    assert host.board.collisions == []


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 5), st.lists(st.integers(0, 51), max_size=3),
       st.lists(st.integers(0, 51), max_size=3))
def test_with_misreads_missing_and_extra_cards_no_card_is_lost(seed: int, misreads: int, missing: list[int],
                                                               extra: list[int]) -> None:
    order = list(range(52))
    random.Random(seed).shuffle(order)
    hopper = [c for c in order if c not in missing] + extra
    random.Random(seed + 1).shuffle(hopper)
    host = make_host(deck=hopper)
    host.sim.misread(misreads)
    host.command(P.DEAL_PLAN, plan_body(2, [(c, i % 4) for i, c in enumerate(order)]))
    payload = host.until(P.EV_DEAL_DONE, max_ms=600000)[2]
    filled, rejected, n_missing = payload[2], payload[3], payload[4]
    placed = [c for s in range(4) for c in host.board.seat(s)]
    rejects = host.board.tray(P.REJECT)
    assert Counter(placed + rejects) == Counter(hopper)  # every physical card is somewhere, once
    assert filled == len(placed) and rejected == len(rejects)
    assert filled + n_missing == 52
    for s in range(4):
        assert set(host.board.seat(s)) <= set(order[s::4])  # nothing in a wrong seat
