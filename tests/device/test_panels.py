"""Seat panels on gpiozero's MockFactory and a fake I2C bus, with a fake clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import FrozenInstanceError
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from trickref.device import config as C
from trickref.device.config import PinRef, SeatPins
from trickref.device.debounce import Timing
from trickref.device.mcp23017 import ExpanderError, FakeBus
from trickref.device.panels import (
    MockPanels,
    PanelError,
    PanelEvent,
    Panels,
    open_panels,
    pin_factory_for,
)

TIMING = Timing(debounce=0.02, long_press=1.5, repeat_delay=0.5, repeat_interval=0.1, blink=0.25)
DIRECT = (
    SeatPins(PinRef(None, 5), PinRef(None, 6), PinRef(None, 12), PinRef(None, 13)),
    SeatPins(PinRef(None, 16), PinRef(None, 19), PinRef(None, 20), PinRef(None, 21)),
)


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = None


class Table:
    """Panels on mock pins with a fake clock; ``advance`` steps time through every deadline."""

    def __init__(self, factory: MockFactory, seats: Any = DIRECT, **kw: Any) -> None:
        self.clock = FakeClock()
        self.events: list[PanelEvent] = []
        self.factory = factory
        self.panels = Panels(seats, self.events.append, timing=TIMING, clock=self.clock,
                             run_timer=False, **kw)

    def advance(self, seconds: float) -> None:
        end = self.clock.t + seconds
        while (d := self.panels.next_deadline()) is not None and d <= end:
            self.clock.t = max(self.clock.t, d)
            self.panels.tick()
        self.clock.t = end
        self.panels.tick()

    def pin(self, n: int) -> Any:
        return self.factory.pin(n)

    def names(self) -> list[tuple[int, str]]:
        return [(e.seat, e.button) for e in self.events]


def test_press_minus_gives_one_event_after_debounce(factory: MockFactory) -> None:
    t = Table(factory)
    t.pin(5).drive_low()
    assert t.events == [], "not before the level has settled"
    t.advance(0.05)
    assert t.events == [PanelEvent(0, "minus", 100.0)]
    t.pin(5).drive_high()
    t.advance(0.05)
    assert len(t.events) == 1


def test_bounce_storm_gives_exactly_one_press(factory: MockFactory) -> None:
    t = Table(factory)
    ok = t.pin(20)
    for _ in range(25):  # 50 edges 0.5 ms apart
        ok.drive_low()
        t.clock.t += 0.0005
        ok.drive_high()
        t.clock.t += 0.0005
    ok.drive_low()
    t.advance(0.3)
    for _ in range(25):
        ok.drive_high()
        t.clock.t += 0.0005
        ok.drive_low()
        t.clock.t += 0.0005
    ok.drive_high()
    t.advance(0.3)
    assert t.names() == [(1, "ok")]


def test_long_press_on_ok_asks_to_undo(factory: MockFactory) -> None:
    t = Table(factory)
    t.pin(12).drive_low()
    t.advance(1.4)
    assert t.events == []
    t.advance(0.2)
    assert t.events == [PanelEvent(0, "ok_long", pytest.approx(101.5))]
    t.advance(2.0)
    t.pin(12).drive_high()
    t.advance(0.1)
    assert t.names() == [(0, "ok_long")], "release after a long press says nothing more"
    t.pin(12).drive_low()
    t.advance(0.3)
    t.pin(12).drive_high()
    t.advance(0.1)
    assert t.names() == [(0, "ok_long"), (0, "ok")]


def test_plus_auto_repeats_while_held(factory: MockFactory) -> None:
    t = Table(factory)
    t.pin(19).drive_low()
    t.advance(0.85)
    t.pin(19).drive_high()
    t.advance(1.0)
    assert t.names() == [(1, "plus")] * 5  # press, then 0.5, 0.6, 0.7, 0.8 s


def test_led_on_off_blink_on_the_mock_pins(factory: MockFactory) -> None:
    t = Table(factory)
    led = t.pin(13)
    assert led.state is False
    t.panels.set_led(0, "on")
    assert led.state is True and t.panels.led(0) == "on"
    t.panels.set_led(0, "off")
    assert led.state is False
    t.panels.set_led(1, "blink")
    seen = []
    for _ in range(8):
        seen.append(t.pin(21).state)
        t.advance(0.25)
    assert seen == [True, False] * 4
    t.panels.set_led(1, "off")
    t.advance(1.0)
    assert t.pin(21).state is False
    with pytest.raises(PanelError, match="LED mode"):
        t.panels.set_led(0, "dim")
    with pytest.raises(PanelError, match="no seat 2"):
        t.panels.set_led(2, "on")


def test_button_held_at_start_does_not_count(factory: MockFactory) -> None:
    factory.pin(5).drive_low()
    t = Table(factory)
    t.advance(1.0)
    t.pin(5).drive_high()
    t.advance(0.1)
    assert t.events == []
    t.pin(5).drive_low()
    t.advance(0.1)
    assert t.names() == [(0, "minus")]


def test_close_turns_leds_off_and_releases_pins(factory: MockFactory) -> None:
    t = Table(factory)
    t.panels.set_led(0, "on")
    t.panels.close()
    assert factory.pin(13).state is False
    t.pin(5).drive_low()
    t.advance(0.1)
    assert t.events == []
    again = Panels(DIRECT, lambda e: None, run_timer=False)  # the pins are free again
    again.close()


def test_events_are_frozen() -> None:
    e = PanelEvent(1, "ok", 2.0)
    with pytest.raises(FrozenInstanceError):
        e.seat = 2  # type: ignore[misc]


# ------------------------------------------------------------------ expanders

def expander_table(factory: MockFactory, seats: int = 11) -> tuple[Table, FakeBus]:
    bus = FakeBus(0x20, 0x21, 0x22)
    cfg = C.Config().panels
    t = Table(factory, cfg.seats[:seats], expanders=cfg.expanders, bus=bus, reset=cfg.reset)
    return t, bus


def interrupt(t: Table, bus: FakeBus, address: int, gpio: int) -> None:
    """The chip pulls INTA low when it latched a change; the Pi's pin follows."""
    if bus.interrupt_pending(address):
        t.pin(gpio).drive_low()
        t.pin(gpio).drive_high()


def test_expander_press_through_the_interrupt_line(factory: MockFactory) -> None:
    t, bus = expander_table(factory)
    assert t.pin(23).state is True, "expander reset released (high)"
    bus.press(0x21, 9)  # seat 6 plus = mcp1:B1
    interrupt(t, bus, 0x21, 27)
    t.advance(0.03)
    assert t.names() == [(6, "plus")]
    bus.press(0x21, 9, down=False)
    interrupt(t, bus, 0x21, 27)
    bus.press(0x22, 10)  # seat 10 ok = mcp2:B2
    interrupt(t, bus, 0x22, 22)
    t.advance(0.2)
    bus.press(0x22, 10, down=False)
    interrupt(t, bus, 0x22, 22)
    t.advance(0.1)
    assert t.names() == [(6, "plus"), (10, "ok")]


def test_lost_interrupt_is_caught_by_the_backstop_poll(factory: MockFactory) -> None:
    t, bus = expander_table(factory)
    bus.press(0x20, 4)  # seat 1 minus, nobody tells the Pi
    t.advance(0.25)
    assert t.names() == [(1, "minus")]


def test_bounce_storm_on_an_expander_pin(factory: MockFactory) -> None:
    t, bus = expander_table(factory)
    for _ in range(20):
        bus.press(0x20, 2)
        interrupt(t, bus, 0x20, 17)
        t.clock.t += 0.001
        bus.press(0x20, 2, down=False)
        interrupt(t, bus, 0x20, 17)
        t.clock.t += 0.001
    bus.press(0x20, 2)
    interrupt(t, bus, 0x20, 17)
    t.advance(0.2)
    bus.press(0x20, 2, down=False)
    interrupt(t, bus, 0x20, 17)
    t.advance(0.2)
    assert t.names() == [(0, "ok")]


def test_expander_leds(factory: MockFactory) -> None:
    t, bus = expander_table(factory)
    t.panels.set_led(10, "on")
    assert bus.led(0x22, 11)
    t.panels.set_led(3, "blink")
    states = []
    for _ in range(4):
        states.append(bus.led(0x20, 15))
        t.advance(0.25)
    assert states == [True, False, True, False]
    t.panels.close()
    assert not bus.led(0x22, 11) and not bus.led(0x20, 15)


def test_mixed_map_gpio_and_expander(factory: MockFactory) -> None:
    bus = FakeBus(0x20)
    seats = (DIRECT[0], SeatPins(*(PinRef("mcp0", i) for i in range(4))))
    t = Table(factory, seats, expanders=(C.Expander("mcp0", 0x20, None),), bus=bus)
    t.pin(6).drive_low()
    bus.press(0x20, 1)
    t.advance(0.3)
    assert sorted(t.names()) == [(0, "plus"), (1, "plus")]


def test_expander_pins_without_a_bus_or_expander_are_refused(factory: MockFactory) -> None:
    seats = (SeatPins(*(PinRef("mcp0", i) for i in range(4))),)
    with pytest.raises(ExpanderError, match="I2C bus"):
        Panels(seats, lambda e: None, expanders=(C.Expander("mcp0", 0x20, None),), run_timer=False)
    with pytest.raises(PanelError, match="mcp0"):
        Panels(seats, lambda e: None, bus=FakeBus(0x20), run_timer=False)


# ------------------------------------------------------------------ simulated, factory, timer

def test_open_panels_by_mode(factory: MockFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    config = C.Config()
    got: list[PanelEvent] = []
    sim = open_panels(config, got.append, "simulated", seats=4)
    assert isinstance(sim, MockPanels) and sim.seats == 4  # the real panel code on mock pins
    sim.close()
    bus = FakeBus(0x20, 0x21, 0x22)
    hw = open_panels(config, got.append, "hardware", bus=bus)
    try:
        assert isinstance(hw, Panels) and hw.seats == 11
    finally:
        hw.close()
    with pytest.raises(PanelError, match="12 seats"):
        open_panels(config, got.append, "hardware", seats=12, bus=bus)
    import trickref.device.panels as P

    def no_bus(n: int) -> Any:
        raise ExpanderError("the seat panels' MCP23017 expanders need the smbus2 package")

    monkeypatch.setattr(P, "open_bus", no_bus)
    with pytest.raises(ExpanderError, match="smbus2"):
        open_panels(config, got.append, "hardware")
    assert isinstance(pin_factory_for("simulated"), MockFactory)
    assert pin_factory_for("hardware") is None


def test_timer_thread_delivers_on_the_real_clock(factory: MockFactory) -> None:
    got: list[PanelEvent] = []
    arrived = threading.Event()

    def handler(e: PanelEvent) -> None:
        got.append(e)
        arrived.set()

    panels = Panels(DIRECT, handler, timing=Timing(repeat_interval=0))
    try:
        factory.pin(12).drive_low()
        factory.pin(12).drive_high()  # a 0-ms spike: ignored
        factory.pin(6).drive_low()
        assert arrived.wait(10), "the timer settles the debounce without any further edge"
        assert [(e.seat, e.button) for e in got] == [(0, "plus")]
    finally:
        panels.close()


# ---------------------------------------------------------------------------- MockPanels


class MockTable:
    """MockPanels (the kiosk's on-screen panels) with a fake clock, stepped like ``Table``."""

    def __init__(self, seats: int = 4) -> None:
        from trickref.device.panels import MockPanels

        self.clock = FakeClock()
        self.events: list[PanelEvent] = []
        self.panels = MockPanels(seats, self.events.append, timing=TIMING, clock=self.clock, run_timer=False)

    def advance(self, seconds: float) -> None:
        end = self.clock.t + seconds
        while (d := self.panels.next_deadline()) is not None and d <= end:
            self.clock.t = max(self.clock.t, d)
            self.panels.tick()
        self.clock.t = end
        self.panels.tick()

    def names(self) -> list[tuple[int, str]]:
        return [(e.seat, e.button) for e in self.events]


def test_mock_panels_tap_gives_one_event_after_the_settle_time() -> None:
    t = MockTable()
    try:
        t.panels.hold(2, "plus")
        t.panels.release(2, "plus")  # down and up in the same instant, as a mouse click
        assert t.events == [], "nothing before the level has settled"
        t.advance(0.5)
        assert t.names() == [(2, "plus")]
        t.panels.press(3, "ok")
        t.advance(0.5)
        assert t.names() == [(2, "plus"), (3, "ok")]
        assert t.events[-1].at == pytest.approx(100.5 + TIMING.debounce)
    finally:
        t.panels.close()


def test_mock_panels_held_ok_gives_ok_long_and_the_release_nothing_more() -> None:
    t = MockTable()
    try:
        t.panels.hold(1, "ok")
        t.advance(1.4)
        assert t.events == []
        t.advance(0.2)
        assert t.names() == [(1, "ok_long")]
        t.advance(1.0)
        t.panels.release(1, "ok")
        t.advance(0.5)
        assert t.names() == [(1, "ok_long")]
    finally:
        t.panels.close()


def test_mock_panels_click_is_one_press_however_late_the_timer_runs() -> None:
    """A loaded machine runs the timer late: a click (down and up at once) still gives one
    press, never an auto-repeat of + or a long OK (its release counts when it was due)."""
    t = MockTable()
    try:
        t.panels.press(2, "plus")
        t.clock.t += TIMING.repeat_delay + 1.0  # the first tick comes long after the click
        t.panels.tick()
        t.advance(1.0)
        assert t.names() == [(2, "plus")]
        t.panels.press(3, "ok")
        t.clock.t += TIMING.long_press + 1.0
        t.panels.tick()
        t.advance(1.0)
        assert t.names() == [(2, "plus"), (3, "ok")]
    finally:
        t.panels.close()


def test_mock_panels_bounce_storm_via_hold_and_release_gives_one_press() -> None:
    t = MockTable()
    try:
        for _ in range(20):  # edges 1 ms apart: releases put off, holds cancel them
            t.panels.hold(0, "minus")
            t.clock.t += 0.001
            t.panels.release(0, "minus")
            t.clock.t += 0.001
        t.panels.hold(0, "minus")
        t.advance(0.1)
        t.panels.release(0, "minus")
        t.advance(0.1)
        assert t.names() == [(0, "minus")]
        pin = t.panels.factory.pin(t.panels.pin_map[0].minus.number)  # the contacts bouncing
        for _ in range(25):
            pin.drive_low()
            t.clock.t += 0.0005
            pin.drive_high()
            t.clock.t += 0.0005
        pin.drive_low()
        t.advance(0.1)
        t.panels.release(0, "minus")
        t.advance(0.1)
        assert t.names() == [(0, "minus"), (0, "minus")]
    finally:
        t.panels.close()


def test_mock_panels_leds_are_read_back_from_the_mock_pins() -> None:
    t = MockTable(seats=11)
    try:
        p = t.panels
        assert p.seats == 11 and [s.led.number for s in p.pin_map][-1] == 43
        p.set_led(10, "on")
        assert p.factory.pin(43).state and p.led(10) == "on" and p.led(9) == "off"
        p.set_led(10, "off")
        assert not p.factory.pin(43).state and p.led(10) == "off"
        p.set_led(4, "blink")
        levels = set()
        for _ in range(6):
            t.advance(TIMING.blink)
            levels.add(bool(p.factory.pin(p.pin_map[4].led.number).state))
        assert p.led(4) == "blink" and levels == {True, False}
        with pytest.raises(PanelError):
            p.hold(11, "ok")
        with pytest.raises(PanelError):
            p.hold(0, "ok_long")
    finally:
        t.panels.close()


def test_mock_panels_on_their_own_timer_deliver_a_tap_and_a_long_press() -> None:
    """The real clock and timer thread (as in the kiosk); event-based waits only."""
    from trickref.device.panels import MockPanels

    got: list[PanelEvent] = []
    arrived = threading.Event()

    def on_event(e: PanelEvent) -> None:
        got.append(e)
        arrived.set()

    panels = MockPanels(2, on_event, timing=Timing(debounce=0.02, long_press=0.2, repeat_delay=0.5,
                                                   repeat_interval=0.1, blink=0.25))
    try:
        panels.press(1, "ok")
        assert arrived.wait(10)
        assert [(e.seat, e.button) for e in got] == [(1, "ok")]
        arrived.clear()
        panels.hold(0, "ok")
        assert arrived.wait(10)
        assert [(e.seat, e.button) for e in got] == [(1, "ok"), (0, "ok_long")]
        panels.release(0, "ok")
    finally:
        panels.close()
    assert [(e.seat, e.button) for e in got] == [(1, "ok"), (0, "ok_long")]
