"""Hand 1020 of two-player Spades with Double Nil under the real referee on the physical twin
(issue 20: benchmarks/twin_referee.py found it; benchmarks/RESULTS.md, "Hand 1020 under the
referee: a FETCH's cards sent to a top that lay under its card").

The blade (3 % a landing one card off, the twin's seeded draws) put 6S one card over its place
during an earlier FETCH of 9C (six draw turns before); the twelve stock cards after it, and then the discard 7H
fed back with its place byte, went in under it (depths count from the top). At draw turn 20 the
referee stages 6S (the loop model has it first: STAGED at once) and fetches it to seat 0: the
FETCH reads those cards first, sends six to their places (under 6S again), then the rest "to the
top" of the stock, under the parked discards; 7H, one of those, lay under 6S, the depths counted
it, and each card went in under 6S again, round and round until the FETCH's limit: JAM stage 5
with every card in the hopper. Now a card read again after going to that top goes to the top
over the parked cards too (mark OVER), and so does every card the FETCH reads after it.

Seeded, deterministic on the twin (the deck, the gathered order, the bots and the blade's draws
all follow the hand's number); about 5 s a run."""

from __future__ import annotations

import pytest
from benchkit import load_bench

TR = load_bench("twin_referee")  # the harness: the Referee's steps on the twin


@pytest.mark.parametrize("mode", ["new", "old"])
def test_spades_double_nil_hand_1020_plays_through_with_every_card_where_the_referee_says(mode: str) -> None:
    """Before: ``Stopped`` (JAM stage 5, EV 0x05 0x04) at the FETCH of 6S, draw turn 20, in
    both modes (the referee with and without the NEXT hints)."""
    try:
        t = TR.spades_double_nil(1020, TR._mode(mode))
    finally:
        TR._mode("new")
    g = t.ref.game
    assert g is not None and g.phase not in ("draw", "exchange"), g.phase
    assert any(a.kind == "exchange" for _, a in g.actions)  # the Double Nil's three cards given
    assert not t.agree(), t.agree()  # the referee's places, the twin's pockets, the firmware's loop
    assert t.fetches == 54
    # the twin's log: 6S was fetched to seat 0 (pocket 0), no card stuck
    log = [line for _, line in t.tw.mech.log]
    assert "card 6S into pocket 0" in log
    assert not t.tw.mech.stuck
