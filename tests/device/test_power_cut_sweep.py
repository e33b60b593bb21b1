"""Power cuts all through a stock hand, on the same table: the host loses its power right after
the k-th dealer step of the hand has ended (``DealerDone``), the dealer either goes on (only the
host restarted), reboots having saved its loop model, or reboots with a blank flash (what it
saved is gone); the cards stay where they physically are (nothing is put back by the test), and
a new host resumes from the journal on that dealer. The bots then play the hand to its end, and
the hand must be exactly the hand played without the cut (its deal, every action), with every
pocket holding what the referee says. German Whist (the stock fetched and staged after every
trick) and two-player Spades (the draw: a card shown, kept or fed back) are the games where the
dealer's loop holds cards through the hand, so where a restart matters most; four-player Hearts
parks the passed cards in the loop and hands them over in one plan (a Release).

The trial itself is device/simulated/restart_trials.py (benchmarks/host_restarts.py runs it many
times over)."""

from __future__ import annotations

from typing import Any

import pytest

from trickref.device.simulated import reboot_trials, restart_trials

# where in the hand the power goes, as a share of the hand's dealer steps
SHARES = (0.02, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.99)


@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("reboot", restart_trials.REBOOTS)
@pytest.mark.parametrize("game", ["german-whist", "spades-2p", "hearts"])
def test_a_power_cut_anywhere_in_a_stock_hand_resumes_to_the_same_hand(game: str, reboot: str, share: float,
                                                                         tmp_path: Any) -> None:
    want = reboot_trials.clean(game)[0]
    k = max(1, round(share * restart_trials.moments(game)))
    t = restart_trials.play_with_restart(game, k, reboot, str(tmp_path / "journal"))
    try:
        reboot_trials.same_hand_same_pockets(t, want)
    finally:
        t.close()
