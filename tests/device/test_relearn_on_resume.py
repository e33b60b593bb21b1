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
from trickref.device.dealer.messages import REJECT
from trickref.device.journal import Journal
from trickref.device.simulated.table import PowerCut, SimTable
from trickref.device.table.host import SerialDealer, TableHost
from trickref.device.table.open import OpenTable
from trickref.engine import cards as C
from trickref.engine.referee.commands import FeedBack, Fetch, Stage
from trickref.engine.referee.events import DealerDone


def _cut_mid_hand(path: str, game: str = "german-whist", at: str = "fetch", early: bool = False) -> tuple[Any, list[int]]:
    """The game until its first stock fetch is queued (``at`` "fetch": German Whist's first
    stage-one trick taken, Spades' first draw), or until a card a player fed back has been
    routed (``at`` "fed-back": the draw's FeedBack, whose flag NEXT brings the next stock card
    into the read window), then the host's power goes. ``early``: the player whose card the
    dealer waits for (a FeedBack step) feeds it while the host is down. Returns the simulator
    (still running) and the loop's cards."""
    table = SimTable(game, 2, seed=7, journal_path=path)
    fed_back: set[int] = set()

    def cut(ev: Any, ref: Any) -> bool:
        fed_back.update(s.step for s in ref.steps if isinstance(s, FeedBack))
        if at == "fed-back":
            return isinstance(ev, DealerDone) and ev.step in fed_back
        return isinstance(ev, DealerDone) and any(isinstance(s, Fetch) for s in ref.steps)

    table.host.cut_after = cut
    table.start()
    with pytest.raises(PowerCut):
        table.run(max_hands=1)
    loop = list(table.referee.places.at.get("loop", []))
    opened = table.opened
    opened.host.close()  # the host is gone (its driver with it); the dealer simulator is not
    opened.panels.close()
    head = table.referee.steps[0] if table.referee.steps else None
    if early:
        assert isinstance(head, FeedBack), table.referee.steps
        with table.sim.lock:
            table.sim.board.trays[head.seat].remove(C.parse(head.card))
        table.sim.play(C.parse(head.card))  # into the play slot: nobody reads it yet
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
    _feed_what_the_dealer_waits_for(sim, host)
    return table, plans


def _feed_what_the_dealer_waits_for(sim: Any, host: TableHost) -> None:
    """Two-player Spades' draw: the card a player was to feed back when the power went (a
    FeedBack step) is fed now, from their pocket into the play slot, as the screen asks."""
    ref = host.referee
    for _ in range(4):
        head = ref.steps[0] if ref.steps else None
        if not isinstance(head, FeedBack):
            return
        card = C.parse(head.card)
        with sim.lock:
            rejects = sim.board.trays.get(REJECT, [])
            if card in rejects:  # fed while the host was down, and rejected: the screen says
                assert any(mm.get("seat") == head.seat and f"{head.card} went to the reject pocket" in mm["text"]
                           for mm in ref.messages), ref.messages[-3:]
                rejects.remove(card)  # take it back into your hand
                sim.board.trays.setdefault(head.seat, []).append(card)
            tray = sim.board.trays.get(head.seat, [])
            held = card in tray
            if held:  # (else fed already while the host was down: the dealer reads it now)
                tray.remove(card)
        if held:
            sim.play(card)
        host.wait(lambda h=head: not ref.steps or ref.steps[0] is not h or ref.dealer_fault is not None, 30)
        host.drain(60)


CASES = [("german-whist", "fetch", False), ("spades-2p", "fetch", False), ("spades-2p", "fetch", True),
         ("spades-2p", "fed-back", False)]


@pytest.mark.parametrize("game,at,early", CASES, ids=["-".join(map(str, c)) for c in CASES])
@pytest.mark.parametrize("reboot", ["no", "kept", "lost"])
def test_resume_relearns_the_loop_only_when_the_dealer_lost_it(reboot: str, game: str, at: str, early: bool,
                                                               tmp_path: Any) -> None:
    path = str(tmp_path / "journal")
    sim, loop = _cut_mid_hand(path, game, at, early)
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
