"""The table host started again on the same dealer: one simulated hand whose host loses its power
right after the ``k``-th dealer step of the hand ended (``DealerDone``).

The dealer either goes on (``reboot="no"``: only the host restarted; it keeps its step memory,
reply cache and event log), reboots having saved its loop model (``"kept"``) or reboots with a
blank flash (``"lost"``). The cards stay where they physically are (nothing is put back), and a
new host resumes from the journal on that dealer and plays the hand to its end. The hand must
come out exactly as the hand played without the cut (its deal, every action), with every seat's
pocket holding what the referee says (``reboot_trials.same_hand_same_pockets``).

tests/device/test_power_cut_sweep.py runs a spread of moments once each;
benchmarks/host_restarts.py runs them many times (what changes from run to run is what a real
restart changes: the new host's random first sequence number and step ids, the threads' timing).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from trickref.device.simulated import reboot_trials as trials
from trickref.device.simulated.table import PowerCut, SimTable
from trickref.device.simulated.world import SimWorld
from trickref.engine.referee.events import DealerDone

REBOOTS = ("no", "kept", "lost")


def moments(game: str) -> int:
    """How many dealer steps end in the clean hand of ``game`` (the moments a cut can follow)."""
    return trials.clean(game)[2]


def play_with_restart(game: str, k: int, reboot: str, journal_path: str) -> SimTable:
    """The hand of ``game`` cut after the ``k``-th dealer step and resumed by a new host on the
    journal at ``journal_path``: the second table, played (the caller closes it; on an error it
    is closed here)."""
    if reboot not in REBOOTS:
        raise ValueError(f"reboot is one of {REBOOTS}, not {reboot!r}")
    players = trials.PLAYERS[game]
    first = SimTable(game, players, seed=trials.SEED, journal_path=journal_path)
    n = [0]

    def cut(ev: Any, ref: Any) -> bool:
        n[0] += isinstance(ev, DealerDone)
        return isinstance(ev, DealerDone) and n[0] == k

    first.host.cut_after = cut
    world = first.opened.world
    assert isinstance(world, SimWorld)  # the dealer and the cards, which outlive the host
    second: SimTable | None = None
    try:
        first.start()
        try:
            first.run(max_hands=1)
        except PowerCut:
            pass
        else:
            raise AssertionError(f"the power never went: the hand has fewer than {k} dealer steps")
        first.opened.host.close()  # the host is gone; the dealer and the cards are not
        first.opened.panels.close()
        sim = first.sim
        assert sim is not None
        if reboot == "lost":
            sim.board.nv = None  # what it saved is gone (a blank flash)
        if reboot != "no":
            sim.reboot()
        second = SimTable(game, players, seed=trials.SEED, journal_path=journal_path, world=world)
        second.start()
        assert second.replayed > 0, "the new host replayed nothing from the journal"
        second.run(max_hands=1)
        return second
    except BaseException:
        if second is not None:
            second.close()
        else:
            world.close()
        raise


def run_point(game: str, k: int, reboot: str = "no") -> dict[str, Any]:
    """One restart trial, its outcome in words: ``right``, ``stuck`` (the table could not go on),
    ``wrong`` (the hand or a pocket came out otherwise) or ``error`` (anything else)."""
    with tempfile.TemporaryDirectory() as d:
        return trials.judged({"game": game, "k": k, "reboot": reboot}, game,
                             lambda: play_with_restart(game, k, reboot, os.path.join(d, "journal")))
