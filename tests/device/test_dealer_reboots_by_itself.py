"""The dealer reboots by itself while the host runs on (the Pico's watchdog, a brown-out on the
5 V rail): the cards stay where they physically are, the firmware comes back with a new boot id
and either the loop model it saved on its flash ("kept") or none ("lost"), and nobody restarts
the host. The hand must go on to exactly the hand played without the reboot (its deal, every
action), with every pocket holding what the referee says, and never stick.

Three kinds of moment: right when a card lands in a pocket (the watchdog fires at the end of
that firmware pass: "landing"), the same with the answer that told of it lost with the dealer's
USB buffer ("unheard": the host never learns the card landed), and between two steps (the
host's next command finds a dealer that has just booted). Found with an explorer that
rebooted the dealer after every event of a German Whist hand: before these fixes the table
stuck for good at 6 of 29 places ("there is no card for it", "not in the reader gate",
"missing from the deal", Resume after Resume)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from trickref.device.simulated.table import SimTable
from trickref.engine.referee.events import DealDone, DealerDone

SEED = 7
PLAYERS = {"german-whist": 2, "spades-2p": 2, "hearts": 4}


@functools.cache
def _clean(game: str) -> tuple[str, int, int]:
    """The hand without a reboot: its record, how many cards landed in a pocket after the deal,
    and how many dealer steps ended."""
    with SimTable(game, PLAYERS[game], seed=SEED) as t:
        puts, steps = _counters(t)
        t.start()
        t.run(max_hands=1)
        return repr(t.referee.game.record_hands()[0]), puts[0], steps[0]


def _counters(t: SimTable) -> tuple[list[int], list[int]]:
    """Count the cards landing in pockets after the deal (on the simulated board) and the dealer
    steps ended (on the host)."""
    dealt = [False]
    puts = [0]
    steps = [0]
    board = t.sim.board
    put = board._put

    def counting_put(card: int, target: int) -> None:
        put(card, target)
        puts[0] += dealt[0]

    board._put = counting_put  # type: ignore[method-assign]

    def after(ev: Any, ref: Any) -> bool:
        dealt[0] = dealt[0] or isinstance(ev, DealDone)
        steps[0] += isinstance(ev, DealerDone)
        return False

    t.host.cut_after = after
    return puts, steps


def _play_with_reboot(game: str, when: str, k: int, flash: str) -> SimTable:
    t = SimTable(game, PLAYERS[game], seed=SEED)
    puts, steps = _counters(t)
    sim = t.sim
    fired = [False]

    def reboot() -> None:
        fired[0] = True
        if flash == "lost":
            sim.board.nv = None
        sim.board.reboot_requested = True  # the firmware restarts at its next loop pass

    if when == "unheard":
        # the watchdog fires in the very pass that logged the card's landing, before the
        # dealer's USB buffer went out: the host never hears that the card landed
        rebooting = sim._reboot

        def reboot_unheard(cause: int) -> None:
            sim.board.tx.clear()
            rebooting(cause)

        sim._reboot = reboot_unheard  # type: ignore[method-assign]
    if when in ("landing", "unheard"):
        put = sim.board._put

        def landing(card: int, target: int) -> None:
            put(card, target)
            if puts[0] == k and not fired[0]:
                reboot()

        sim.board._put = landing  # type: ignore[method-assign]
    else:
        after = t.host.cut_after
        assert after is not None

        def between(ev: Any, ref: Any) -> bool:
            after(ev, ref)
            if isinstance(ev, DealerDone) and steps[0] == k and not fired[0]:
                with sim.lock:  # before the host sends the next step
                    reboot()
                    sim._reboot(cause=3)
            return False

        t.host.cut_after = between
    t.start()
    t.run(max_hands=1)
    assert fired[0], "the reboot never came"
    assert sim.boots >= 1
    return t


def _same_hand_same_pockets(t: SimTable, want: str) -> None:
    ref = t.referee
    assert ref.dealer_fault is None, ref.dealer_fault
    assert repr(ref.game.record_hands()[0]) == want
    pockets = ref.places.restore()[0]
    sim = t.sim
    with sim.lock:
        for target, cards in pockets.items():
            if target.startswith("seat:"):
                assert sorted(sim.board.tray(int(target[5:]))) == sorted(cards), target


SHARES = (0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95)


@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("flash", ["kept", "lost"])
@pytest.mark.parametrize("when", ["landing", "unheard", "between"])
@pytest.mark.parametrize("game", ["german-whist", "spades-2p", "hearts"])
def test_a_dealer_that_reboots_by_itself_mid_hand_loses_nothing(game: str, when: str, flash: str,
                                                                share: float) -> None:
    want, puts, steps = _clean(game)
    k = max(1, round(share * (steps if when == "between" else puts)))
    t = _play_with_reboot(game, when, k, flash)
    try:
        _same_hand_same_pockets(t, want)
    finally:
        t.close()


@pytest.mark.parametrize("flash", ["kept", "lost"])
@pytest.mark.parametrize("k", [44, 52])
def test_german_whist_cards_the_watchdog_left_on_the_loop_or_delivered_unheard(k: int, flash: str) -> None:
    """Found beyond the shares above, with the answers lost: at card 44 the watchdog fired while
    a FETCH cycled the last five stock cards, all on the loop's return path; the belt never ran
    again, and every relearning found the hopper empty (the firmware's homecoming brings them
    in now). At card 52 the FETCH's card went into the seat's pocket unheard: the relearning
    ran out with only that card missing, a difference hidden by the hopper running out, and it
    was sent again for ever (check_deal: missing, so the step's memory or a person ends it)."""
    want, _, _ = _clean("german-whist")
    t = _play_with_reboot("german-whist", "unheard", k, flash)
    try:
        _same_hand_same_pockets(t, want)
    finally:
        t.close()


@pytest.mark.parametrize("flash", ["kept", "lost"])
def test_hearts_the_watchdog_as_the_hand_overs_last_card_lands_with_half_its_answers_lost(flash: str) -> None:
    """Found beyond the shares above: four-player Hearts, the watchdog in the pass in which the
    twelfth passed card landed, six of the hand-over's answers still in the USB buffer. The
    dealer's step memory says the deal is DONE with all twelve entries filled; its events are
    gone. Before, the host waited for an end the dealer could no longer tell ("idle but never
    reported the end"), Resume after Resume; now the driver ends the deal from the step
    memory (Dealer._remembered_deal)."""
    want, _, _ = _clean("hearts")
    t = _play_with_reboot("hearts", "unheard", 12, flash)
    try:
        _same_hand_same_pockets(t, want)
    finally:
        t.close()
