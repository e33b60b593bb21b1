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
"missing from the deal", Resume after Resume). The harness is
device/simulated/reboot_trials.py; benchmarks/dealer_reboots.py runs every moment."""

from __future__ import annotations

import pytest

from trickref.device.simulated import reboot_trials as trials


def _same_hand_as_without_the_reboot(game: str, when: str, k: int, flash: str) -> None:
    want, _, _ = trials.clean(game)
    t = trials.play_with_reboot(game, when, k, flash)
    try:
        trials.same_hand_same_pockets(t, want)
    finally:
        t.close()


SHARES = (0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95)


@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("flash", ["kept", "lost"])
@pytest.mark.parametrize("when", ["landing", "unheard", "between"])
@pytest.mark.parametrize("game", ["german-whist", "spades-2p", "hearts"])
def test_a_dealer_that_reboots_by_itself_mid_hand_loses_nothing(game: str, when: str, flash: str,
                                                                share: float) -> None:
    k = max(1, round(share * trials.moments(game, when)))
    _same_hand_as_without_the_reboot(game, when, k, flash)


@pytest.mark.parametrize("flash", ["kept", "lost"])
@pytest.mark.parametrize("k", [44, 46, 50, 52])
def test_german_whist_cards_the_watchdog_left_on_the_loop_or_delivered_unheard(k: int, flash: str) -> None:
    """Found beyond the shares above, with the answers lost: at card 44 the watchdog fired while
    a FETCH cycled the last five stock cards, all on the loop's return path; the belt never ran
    again, and every relearning found the hopper empty (the firmware's homecoming brings them
    in now). At card 52 the FETCH's card went into the seat's pocket unheard: the relearning
    ran out with only that card missing, a difference hidden by the hopper running out, and it
    was sent again for ever (check_deal: missing, so the step's memory or a person ends it).
    With the flash blank (cleared as the firmware boots, after its last save), card 44: the
    relearning's feed move found the hopper empty as the cards of the return path came home,
    the dealer stopped with a jam naming no card, and the resumed relearning's one card not
    found (the FETCH's, delivered unheard) was taken as a deal to send again, for ever; now the
    table names the card and the person puts it in the play slot (DealerAdapter._relearn_mismatch
    reads a resumed relearning too; check_deal counts no jam that names no card). Cards 46 and
    50 with the flash blank (benchmarks/dealer_reboots.py): the same jam, with a played card
    held in the read window; the resumed relearning missed only that card (routed on to the
    trick pocket), but the window's card was forgotten and the RouteFed was refused for ever
    ("not in the reader gate"): the resumed relearning keeps it."""
    _same_hand_as_without_the_reboot("german-whist", "unheard", k, flash)


@pytest.mark.parametrize("flash", ["kept", "lost"])
def test_hearts_the_watchdog_as_the_hand_overs_last_card_lands_with_half_its_answers_lost(flash: str) -> None:
    """Found beyond the shares above: four-player Hearts, the watchdog in the pass in which the
    twelfth passed card landed, six of the hand-over's answers still in the USB buffer. The
    dealer's step memory says the deal is DONE with all twelve entries filled; its events are
    gone. Before, the host waited for an end the dealer could no longer tell ("idle but never
    reported the end"), Resume after Resume; now the driver ends the deal from the step
    memory (Dealer._remembered_deal)."""
    _same_hand_as_without_the_reboot("hearts", "unheard", 12, flash)


@pytest.mark.parametrize("flash", ["kept", "lost"])
def test_spades_draw_the_watchdog_as_a_card_fed_back_lands_unheard(flash: str) -> None:
    """Found by benchmarks/dealer_reboots.py with the flash blank: two-player Spades' draw, the
    watchdog in the pass in which the card a player fed back landed in the discard pocket, its
    answers lost; the move that ejected it (flag NEXT) had brought a loop card to the read
    window. The host took the window's card for the fed one and waited for the player to feed
    it again ("5H was fed back but never read": they no longer have it). Now a card fed back
    and held before the reboot is read again where it lies (the window's card goes through the
    loop's relearning first), and one not found there went on to its target (the step ends)."""
    _same_hand_as_without_the_reboot("spades-2p", "unheard", 7, flash)


@pytest.mark.parametrize("flash", ["kept", "lost"])
def test_spades_draw_the_watchdog_between_a_stage_and_its_fetch_with_cards_on_the_loop(flash: str) -> None:
    """Found by benchmarks/dealer_reboots.py (``between`` after every step): two-player Spades,
    the watchdog after the stage of AD, six stock cards the stage had sent round still on the
    loop's return path, the flash kept. The saved loop model said valid; the first FETCH after
    the boot took those cards' loop sensor edges for its own card passing its pocket (JAM 4),
    Resume after Resume. A loop model saved with cards on their way is no longer valid
    (firmware steps.nv_image; saved again once they are home): the host relearns the loop.
    The flash blank (found by a sweep of every moment, tenth session): the relearning's first
    loop card took a card still riding the belt from before the boot, reaching E 80 ms after
    the belt started again, for its own; the transit time it taught was far too short, and the
    FETCH after it named each of its loop cards JAM 3, Resume after Resume. A card at E far
    sooner than any card of the dealer's can reach it is no card of its (firmware
    Mechanics.too_soon_at_e)."""
    _same_hand_as_without_the_reboot("spades-2p", "between", 9, flash)
