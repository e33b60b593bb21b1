"""After a power cut the card read just before it is still in the reader gate, but the dealer
(rebooted) no longer knows which card it holds. The adapter reads it where it is (FEED with
HOLD reads a card already in the gate, no feeding) and routes it: the real driver on the dealer
simulator's pty, with no ``refeed`` (a hardware table cannot conjure a card back into the hopper)."""

from __future__ import annotations

import pytest

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.sim import DealerSimulator
from trickref.device.table.dealers import DealerAdapter
from trickref.engine import cards as C
from trickref.engine.referee.commands import RouteFed
from trickref.engine.referee.events import DealerDone, DealerFault


@pytest.fixture
def rebooted():  # type: ignore[no-untyped-def]
    """A fresh dealer whose reader gate holds the queen of spades (the power went with it there)."""
    sim = DealerSimulator(seats=2, speed=400.0, seed=2)
    sim.start()
    sim.load_deck([])  # the cards are in the trays (mid-game), none in the hopper
    with sim.lock:
        sim.board.gate = C.parse("QS")
    driver = Dealer(sim.stable_path, link_timeout=1.0, stall_timeout=10.0)
    driver.open()
    try:
        yield sim, driver
    finally:
        driver.close()
        sim.stop()


def test_the_card_in_the_gate_is_read_there_and_routed(rebooted) -> None:  # type: ignore[no-untyped-def]
    sim, driver = rebooted
    adapter = DealerAdapter(driver)  # no refeed: as on hardware
    adapter.in_gate = C.parse("QS")
    out = adapter.run(RouteFed("QS", "trick", step=7))
    assert out == DealerDone(7, "QS")
    with sim.lock:
        assert sim.board.tray(m.TRICK) == [C.parse("QS")] and sim.board.gate is None
        assert not sim.board.hopper
    assert adapter.in_gate is None and adapter.held is None


def test_another_card_in_the_gate_is_a_fault_in_words(rebooted) -> None:  # type: ignore[no-untyped-def]
    sim, driver = rebooted
    adapter = DealerAdapter(driver)
    adapter.in_gate = C.parse("2H")  # the journal says 2H; the gate holds QS
    out = adapter.run(RouteFed("2H", "trick", step=3))
    assert isinstance(out, DealerFault) and out.kind == "jam"
    assert "take the card out of the gate" in out.message
    with sim.lock:
        assert not sim.board.tray(m.TRICK)  # nothing was routed on a guess
