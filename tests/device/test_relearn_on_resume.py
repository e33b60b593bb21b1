"""Resume relearns the dealer's loop only when it must. The table host loses power in the middle
of a German Whist hand (26 stock cards parked in the loop), and a new host resumes from the
journal on the same dealer simulator (hardware mode: the real driver on its pty, no restore):

- the dealer kept running (only the host restarted): its loop model is valid and holds the 26
  cards, so nothing is dealt round the loop again, and the next stock card is fetched by identity;
- the dealer rebooted too, at rest: it saved its loop model (protocol 3, firmware/steps.py) and
  read it back at boot, so again nothing is dealt round the loop;
- the dealer rebooted having lost what it saved (a new firmware, a blank flash): its model is
  empty, so the 26 cards are dealt back to the loop (one plan, each card read once) before
  anything else, and the same fetch works.
"""

from __future__ import annotations

from typing import Any

import pytest

from trickref.device.dealer.driver import Dealer
from trickref.device.journal import Journal
from trickref.device.simulated.table import PowerCut, SimTable
from trickref.device.table.host import SerialDealer, TableHost
from trickref.device.table.open import OpenTable
from trickref.engine import cards as C
from trickref.engine.referee.commands import Fetch, Stage
from trickref.engine.referee.events import DealerDone


def _cut_mid_hand(path: str) -> tuple[Any, list[int]]:
    """German Whist until the first stage-one trick is taken (its stock fetches queued), then
    the host's power goes. Returns the simulator (still running) and the loop's cards."""
    table = SimTable("german-whist", 2, seed=7, journal_path=path)

    def cut(ev: Any, ref: Any) -> bool:
        return isinstance(ev, DealerDone) and any(isinstance(s, Fetch) for s in ref.steps)

    table.host.cut_after = cut
    table.start()
    with pytest.raises(PowerCut):
        table.run(max_hands=1)
    loop = list(table.referee.places.at.get("loop", []))
    opened = table.opened
    opened.host.close()  # the host is gone (its driver with it); the dealer simulator is not
    opened.panels.close()
    return table.sim, loop


def _resume(sim: Any, path: str) -> tuple[OpenTable, list[list[tuple[int, int]]]]:
    driver = Dealer(sim.stable_path, link_timeout=1.0, stall_timeout=10.0)
    driver.open()
    plans: list[list[tuple[int, int]]] = []
    deal = driver.deal

    def spy(plan: Any, **kw: Any) -> Any:
        plans.append([(int(c), int(t)) for c, t in plan])
        return deal(plan, **kw)

    driver.deal = spy  # type: ignore[method-assign]
    journal, records, _ = Journal.open(path)
    host = TableHost(SerialDealer(driver), journal=journal, auto_deal=False)
    table = OpenTable(host, "hardware", 2, driver=driver, records=records)
    table.resume()
    host.drain(60)
    return table, plans


@pytest.mark.parametrize("reboot", ["no", "kept", "lost"])
def test_resume_relearns_the_loop_only_when_the_dealer_lost_it(reboot: str, tmp_path: Any) -> None:
    path = str(tmp_path / "journal")
    sim, loop = _cut_mid_hand(path)
    table: OpenTable | None = None
    try:
        assert len(loop) >= 20
        if reboot == "lost":
            sim.board.nv = None  # what it saved is gone (a blank flash)
        if reboot != "no":
            sim.reboot()
        table, plans = _resume(sim, path)
        ref = table.host.referee
        assert ref.dealer_fault is None, ref.dealer_fault
        relearned = [p for p in plans if p and all(t == 0x85 for _, t in p)]
        if reboot == "lost":
            assert len(relearned) == 1 and sorted(c for c, _ in relearned[0]) == sorted(loop)
        else:
            assert relearned == []
        # either way the fetches queued before the power went were carried out by identity
        assert not any(isinstance(s, (Fetch, Stage)) for s in ref.steps), ref.steps
        pockets = ref.places.restore()[0]
        with sim.lock:
            for target, cards in pockets.items():
                if target.startswith("seat:"):
                    assert sorted(sim.board.tray(int(target[5:]))) == sorted(cards), C.names(cards)
    finally:
        if table is not None:
            table.close()
        sim.stop()
