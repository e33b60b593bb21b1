"""The table host (device/table/host.py) and open_table (device/table/open.py) without a kiosk.

- A wired panel press reaches the dealer with no pygame loop at all: gpiozero's thread -> the
  panels' debounce -> the host's inbox -> the worker (journal, referee) -> the dealer port's
  thread -> the Dealer driver on the simulator's pty.
- Every event is journaled (fsync'd) before the referee sees it; an event the journal cannot
  take is not handled, and the caller is told.
- Refusals come back as the referee's Refusal command; drain waits for the dealer's steps.
"""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from trickref.device.config import Config, DealerConfig, PanelsConfig
from trickref.device.dealer.sim import DealerSimulator
from trickref.device.journal import Journal
from trickref.device.panels import MOCK_REVISION, mock_pin_map
from trickref.device.table.open import TableSetupError, open_table
from trickref.engine import actions as A
from trickref.engine.referee.commands import Refusal
from trickref.engine.referee.events import NewGame, Touch


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


def _press(table, factory, pins, clock, seat: int, button: str) -> None:
    """A finger on a wired key: low for the debounce window, then high (the test's clock)."""
    host, panels = table.host, table.panels
    pin = factory.pin(getattr(pins[seat], button).number)
    n = host.presses
    window = panels._timing.debounce + 0.001
    pin.drive_low()
    clock.now += window
    panels.tick()
    pin.drive_high()
    clock.now += window
    panels.tick()
    assert host.wait(lambda: host.presses > n, 30)
    host.drain(30)


def test_a_wired_press_reaches_the_dealer_without_a_kiosk(tmp_path):
    """spades-2p's draw: the seat shown a card presses + (keep) on its wired panel; the host
    journals the press, the referee asks the dealer to route the card, the dealer routes it into
    the seat's tray. No pygame loop runs."""
    sim = DealerSimulator(seats=2, speed=400.0, seed=1)
    sim.start()
    factory = MockFactory(revision=MOCK_REVISION)
    pins = mock_pin_map(2)
    clock = Clock()
    config = Config(mode="hardware", dealer=DealerConfig(port=sim.stable_path),
                    panels=PanelsConfig(seats=pins, expanders=(), reset=None))
    table = open_table(config, game="spades-2p", players=2, journal_file=tmp_path / "j", seed=2,
                       pin_factory=factory, panel_clock=clock)
    try:
        assert table.mode == "hardware" and table.world is None
        table.begin("spades-2p", ["Ana", "Ben"], {"target": 100})
        table.host.drain(60)
        ref = table.host.referee
        assert ref.game.phase == "draw" and ref.presented is not None
        seat, shown = ref.presented
        assert table.panels.led(seat) == "on"  # the referee's LED command reached the wired panel
        before = sorted(sim.board.tray(seat))
        _press(table, factory, pins, clock, seat, "plus")
        assert ref.game.actions[-1] == (seat, A.KEEP)
        # the card shown was dealt into the pocket; + keeps it and fetches the second card there
        assert shown in before and sorted(sim.board.tray(seat)) == sorted([*before, ref.game.deck[1]])
        assert table.host.handled["button"] == 1 and table.host.errors == []
    finally:
        table.close()
        sim.stop()
        factory.reset()
    _journal, records, _report = Journal.open(tmp_path / "j")
    _journal.close()
    assert {"type": "button", "seat": seat, "button": "plus"} in records


def test_every_event_is_journaled_before_the_referee_takes_it(tmp_path):
    table = open_table(None, "instant", game="hearts", players=4, journal_file=tmp_path / "j", seed=1)
    try:
        table.begin("hearts", ["A", "B", "C", "D"], {"target": 50})
        table.host.drain()
        host = table.host
        assert host.journal is not None and host.journal.count == host.referee.events_handled

        def broken(obj):
            raise OSError("the card is full")

        host.journal.append = broken  # type: ignore[method-assign]
        n = host.referee.events_handled
        g = host.referee.game
        rec = A.to_record(0, A.pass_cards(g.hand_of(0)[:3]))
        rec.pop("seat")
        with pytest.raises(OSError, match="full"):
            host.call(Touch(0, rec))
        assert host.referee.events_handled == n and not g.actions  # not handled, nothing changed
    finally:
        table.close()


def test_a_refusal_is_a_typed_command_with_the_referees_words():
    table = open_table(None, "instant", game="hearts", players=4, seed=1)
    try:
        table.begin("hearts", ["A", "B", "C", "D"], {"target": 50})
        table.host.drain()
        g = table.host.referee.game
        bad = next(c for c in range(52) if c not in g.hand_of(1))
        rec = A.to_record(1, A.pass_cards([bad, *g.hand_of(1)[:2]]))
        rec.pop("seat")
        out = table.host.call(Touch(1, rec))
        refusals = [c for c in out if isinstance(c, Refusal)]
        assert len(refusals) == 1 and refusals[0].seat == 1 and "cannot pass" in refusals[0].text
        assert refusals[0].private  # it names a card in B's hand: not for the shared screen
        assert table.host.refusal_shown() is None
    finally:
        table.close()


def test_open_table_says_what_it_could_not_open(tmp_path):
    config = Config(mode="hardware", dealer=DealerConfig(port=str(tmp_path / "no-such-port")),
                    panels=PanelsConfig(seats=mock_pin_map(4), expanders=(), reset=None))
    with pytest.raises(TableSetupError, match="cannot open the dealer on .*no-such-port"):
        open_table(config, game="hearts", players=4)
    with pytest.raises(TableSetupError, match="unknown table mode 'dream'"):
        open_table(None, "dream", game="hearts", players=4)
    table = open_table(None, "instant", game="hearts", players=4)
    with pytest.raises(TableSetupError, match="target"):
        table.begin("hearts", ["A", "B", "C", "D"], {"target": 5})
    table.close()


def test_new_game_through_the_inbox_in_order():
    table = open_table(None, "instant", game="hearts", players=4, seed=3)
    try:
        table.host.start()
        table.host.post(NewGame("hearts", ("A", "B", "C", "D"), {"target": 50}, 0, ()))
        table.host.drain()
        assert table.host.referee.game is not None and table.host.referee.game.phase == "pass"
    finally:
        table.close()
