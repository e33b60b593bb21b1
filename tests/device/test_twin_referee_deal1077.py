"""Hand 1077 of two-player Spades with Double Nil under the real referee on the physical twin
(issue 20: benchmarks/twin_referee.py, hands 1030-1079; benchmarks/RESULTS.md, "The stack's
bottom card: no loop card under the cards still to deal").

The deal sends 51 cards round the loop, and the sorting hopper's blade drops each one in at its
place, counted from the top of the stack: the cards still to deal lie under the loop cards. 7D,
the second loop card, had its place at the bottom of the loop cards, right over the gathered
cards; the blade's one-card error (3 % a landing, the twin's seeded draws) put it under KC, the
top gathered card, and every later card with a place below 7D's counted it and went under KC
too, as did those under TD, a second such error. 22 loop cards lay under KC; the deal read them
again and again (their depths counted cards that lay under KC as well) until one was read a
third time, and DEAL_DONE came with KC never read: "1 card of the plan not dealt (missing:
KC)", a stop at the table. Now a loop card whose place is the bottom of the stack while cards to
deal lie under it goes in one card higher, over the stack's bottom card (firmware
Dealer.loop_depth_now), so the blade's error puts it at most at the bottom of the stack, never
under a card still to deal; that bottom card goes round to its place when the plan's cards are
dealt (DealJob.bottom_route).

Seeded, deterministic on the twin; about 5 s a run."""

from __future__ import annotations

from benchkit import load_bench

TR = load_bench("twin_referee")  # the harness: the Referee's steps on the twin


def test_spades_double_nil_hand_1077_deals_every_card_and_plays_through() -> None:
    """Before: ``Stopped`` ("the deal did not check out: 1 card of the plan not dealt (missing:
    KC)") right after the deal."""
    try:
        t = TR.spades_double_nil(1077, TR._mode("new"))
    finally:
        TR._mode("new")
    g = t.ref.game
    assert g is not None and g.phase not in ("draw", "exchange"), g.phase
    assert any(a.kind == "exchange" for _, a in g.actions)  # the Double Nil's three cards given
    assert not t.agree(), t.agree()  # the referee's places, the twin's pockets, the firmware's loop
    assert t.fetches == 54
    assert not t.tw.mech.stuck
    # (the harness stops the hand at a deal that does not check out: every card of the plan was
    # dealt, none read twice)
    r = t.result()
    assert r["fetching_s"] <= 30.0, r  # (23.0 s of the twin's time)
