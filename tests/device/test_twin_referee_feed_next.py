"""The referee's FEED / ROUTE_PRESENTED flag NEXT on the physical twin (issue 20 point 4): the
real Referee plays a German Whist hand and a two-player Spades draw with a Double Nil exchange,
every card through the reader, and each dealer step it gives goes to the unmodified firmware on
the twin (device/dealer/twin.py, its sorting hopper) as device/table/dealers.py sends it: DealPlan
-> DEAL_PLAN, Fetch -> FETCH (flag NEXT for ``then_next``), Stage -> FETCH to 0xFE, RouteFed ->
ROUTE_PRESENTED (place 255 and flag NEXT for ``then_next``), FeedBack -> FEED 1 HOLD, then
ROUTE_PRESENTED with its place byte and flag. A player's card is taken out of their pocket and
dropped into the play slot; FEED 1 HOLD reads it, and the referee is told what was read.

German Whist's trick's second play and the Double Nil exchange's last card given now carry the
flag (the referee before sent it only on the draw's feed-backs): the fed card's eject brings the
loop's next card to the read window, so the FETCH of the winner's card (of the first replacement)
starts with it there. The hand plays through, every card where the referee says it is; the
same hand with the hints taken off sends no such flag and fetches slower."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from benchkit import load_bench

from trickref.engine import cards as C

TR = load_bench("twin_referee")  # the harness: the Referee's steps on the twin
NO_ERROR = {"sorter.error_chance": 0.0}  # the blade never misplaces a card: the runs compare exactly


def _whist(hints: bool) -> Any:
    return TR.german_whist(3, hints, NO_ERROR)  # stage one: 13 tricks of two plays


def test_a_german_whist_hand_on_the_twin_sends_next_with_each_tricks_second_play() -> None:
    t = _whist(True)
    g = t.ref.game
    assert g is not None and t.ref.stock_pos == 52  # stage one played: the stock is gone
    assert not t.agree(), t.agree()
    assert len(t.flagged) == 13 and all(w.startswith("RouteFed") for w in t.flagged)
    # each trick's winner's card was in the read window when its FETCH began (pulled by the
    # second play's eject): 13 of the 26 FETCHes, the winners'
    fetches = t.window_at_fetch
    assert len(fetches) == 26
    assert [w for c, w in fetches[0::2]] == [c for c, w in fetches[0::2]], fetches
    # and the rest of the hand (stage two: no stock, no flag) plays through
    while t.enter():
        pass
    assert g.finished_hands or t.ref.game is not g
    assert len(t.flagged) == 13
    # the referee before (no NEXT on a fed card's routing but the draw's FeedBack): the same
    # hand, the same plays, no flag; each winner's FETCH a feed move slower
    before = _old(TR.german_whist, 3, True, NO_ERROR)
    assert before.flagged == [] and not before.agree()
    assert [w for c, w in before.window_at_fetch[0::2]] == [None] * 13
    assert t.fetch_ms <= before.fetch_ms - 13 * 100, (t.fetch_ms, before.fetch_ms)


def _old(fn: Any, *args: Any) -> Any:
    """``fn`` run with the referee as it was (no DealerSteps._then_next)."""
    TR._mode("old")
    try:
        return fn(*args)
    finally:
        TR._mode("new")


def _spades(hints: bool) -> Any:
    return TR.spades_double_nil(6, hints, NO_ERROR)  # the draw, seat 0's Double Nil, its exchange


def test_a_double_nil_exchange_on_the_twin_sends_next_with_the_last_card_given() -> None:
    t = _spades(True)
    g = t.ref.game
    assert g is not None and g.phase not in ("draw", "exchange")
    (seat, ex), = [(s, a) for s, a in g.actions if a.kind == "exchange"]
    give, get = ex.value
    assert seat == 0 and len(give) == 3 and len(get) == 3
    assert not t.agree(), t.agree()
    assert Counter(t.tw.mech.pockets[0]) == Counter(g.hand_of(0))
    # the draw's 25 feed-backs (as before) and the exchange's last card given (new)
    assert [w.split()[0] for w in t.flagged] == ["FeedBack"] * 25 + ["RouteFed"], t.flagged
    assert C.parse(t.flagged[-1].split()[1]) in give
    # the first replacement's FETCH began with its card in the read window (rule exchange/2:
    # the replacements' discards were parked at the loop's bottom, so it is the loop's next)
    first, window = t.window_at_fetch[-3]
    assert first in get and window == first, (C.NAMES[first], window)
    before = _old(_spades, True)
    assert [w.split()[0] for w in before.flagged] == ["FeedBack"] * 25 and not before.agree()
    assert before.window_at_fetch[-3][1] is None
    assert t.exchange_ms <= before.exchange_ms - 100, (t.exchange_ms, before.exchange_ms)
    # every hint off: not even the draw's flag
    assert _spades(False).flagged == []


@pytest.mark.timeout(900)  # (a bot's hand in the loop: hundreds of loop passes, a minute on a loaded machine)
def test_german_whist_with_a_bot_seat_in_the_loop_handles_a_pulled_card_the_fetch_does_not_want() -> None:
    """Seat 1 a bot whose hand is in the dealer's loop: when it wins a trick its new card stays in
    the loop, and the Fetch after the human's second play (NEXT) is the loser's card, not the
    card the eject pulled. The FETCH reads the pulled card and sends it round, as it would have fed
    it first without the flag: the hand plays through and every card is where the referee says."""
    t = TR.german_whist(3, True, NO_ERROR, loop_bots=(1,))
    assert t.ref.stock_pos == 52
    assert not t.agree(), t.agree()
    assert t.flagged and all(w.startswith("RouteFed") for w in t.flagged)
    unwanted = [(c, w) for c, w in t.window_at_fetch if w is not None and w != c]
    assert unwanted, t.window_at_fetch  # the case: a pulled card the FETCH did not want


@pytest.mark.parametrize("mode", ["new", "old"])
def test_with_the_hopper_lifts_swing_modelled_stage_one_plays_through(mode: str) -> None:
    """The twin's lift with its swing (Mechanism.lift_swings; physical.toml servo.lift_swing_ms,
    25 ms, an estimate, after the PCA9685's next frame): a feed move that starts before the
    stack has come down onto P takes the hopper's card only when it lands. German Whist's first FETCH after a
    trick's held ejects (with the referee's FEED NEXT or without: ``old``) stopped with
    DOUBLE_FEED (the card unread, the gate's length) while the firmware started the move in the
    pass that lowered the lift; it now waits LIFT_SETTLE_MS for the stack (mechanics.lift_settled)."""
    TR._mode(mode)
    try:
        t = TR.TwinTable("german-whist", 3, TR.bot_for("german-whist").choose, True, NO_ERROR)
        t.tw.mech.lift_swings = True
        t.start()
        for _ in range(26):
            assert t.enter()
        assert not t.agree()
    finally:
        TR._mode("new")
