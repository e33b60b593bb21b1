"""Power cuts all through a stock hand, on the same table: the host loses its power right after
the k-th dealer step of the hand has ended (``DealerDone``), the dealer either goes on (only the
host restarted), reboots having saved its loop model, or reboots with a blank flash (what it
saved is gone); the cards stay where they physically are (nothing is put back by the test), and
a new host resumes from the journal on that dealer. The bots then play the hand to its end, and
the hand must be exactly the hand played without the cut (its deal, every action), with every
pocket holding what the referee says. German Whist (the stock fetched and staged after every
trick) and two-player Spades (the draw: a card shown, kept or fed back) are the games where the
dealer's loop holds cards through the hand, so where a restart matters most; four-player Hearts
parks the passed cards in the loop and hands them over in one plan (a Release)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from trickref.device.simulated.table import PowerCut, SimTable
from trickref.engine.referee.events import DealerDone

SEED = 7
PLAYERS = {"german-whist": 2, "spades-2p": 2, "hearts": 4}
# where in the hand the power goes, as a share of the hand's dealer steps
SHARES = (0.02, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.99)


@functools.cache
def _clean(game: str) -> tuple[Any, int]:
    """The hand without a cut: its record, and how many dealer steps ended in it."""
    with SimTable(game, PLAYERS[game], seed=SEED) as t:
        n = [0]

        def count(ev: Any, ref: Any) -> bool:
            n[0] += isinstance(ev, DealerDone)
            return False

        t.host.cut_after = count
        t.start()
        t.run(max_hands=1)
        return repr(t.referee.game.record_hands()[0]), n[0]


@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("reboot", ["no", "kept", "lost"])
@pytest.mark.parametrize("game", ["german-whist", "spades-2p", "hearts"])
def test_a_power_cut_anywhere_in_a_stock_hand_resumes_to_the_same_hand(game: str, reboot: str, share: float,
                                                                         tmp_path: Any) -> None:
    want, steps = _clean(game)
    k = max(1, round(share * steps))
    path = str(tmp_path / "journal")
    first = SimTable(game, PLAYERS[game], seed=SEED, journal_path=path)
    n = [0]

    def cut(ev: Any, ref: Any) -> bool:
        n[0] += isinstance(ev, DealerDone)
        return isinstance(ev, DealerDone) and n[0] == k

    first.host.cut_after = cut
    world = first.opened.world
    second: SimTable | None = None
    try:
        first.start()
        with pytest.raises(PowerCut):
            first.run(max_hands=1)
        first.opened.host.close()  # the host is gone; the dealer and the cards are not
        first.opened.panels.close()
        sim = first.sim
        if reboot == "lost":
            sim.board.nv = None  # what it saved is gone (a blank flash)
        if reboot != "no":
            sim.reboot()
        second = SimTable(game, PLAYERS[game], seed=SEED, journal_path=path, world=world)
        second.start()
        assert second.replayed > 0
        second.run(max_hands=1)
        ref = second.referee
        assert ref.dealer_fault is None, ref.dealer_fault
        assert repr(ref.game.record_hands()[0]) == want
        pockets = ref.places.restore()[0]
        with sim.lock:
            for target, cards in pockets.items():
                if target.startswith("seat:"):
                    assert sorted(sim.board.tray(int(target[5:]))) == sorted(cards), target
    finally:
        if second is not None:
            second.close()
        else:
            world.close()
