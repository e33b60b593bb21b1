"""The seat panels: three buttons (-, +, OK) and a "your turn" LED per seat.

Two implementations of one interface (``PanelSource``), chosen by the configuration's mode:

- ``Panels``: the real wiring. Each pin of the pin map (``config.PanelsConfig``) is either a Pi
  GPIO, driven through gpiozero with the pin factory given (its default on the Pi,
  ``MockFactory`` in tests), or a pin of an MCP23017 expander on I2C (``device.mcp23017``),
  whose interrupt line is a gpiozero input. Raw levels go through our own debounce and hold
  logic (``device.debounce``) with an injectable clock, because gpiozero's mock pins ignore
  ``bounce_time`` and the expander pins never see it.
- ``MockPanels``: the real ``Panels`` on gpiozero's ``MockFactory`` with a direct pin map: the
  kiosk's on-screen panels and ``trickref sim``'s bots (``hold``/``release`` drive the mock
  pins), so simulated mode runs the same debounce and long-press code as the wired table.

Events reach ``on_event`` as ``PanelEvent(seat, button, at)``; ``button`` is "minus", "plus",
"ok" or "ok_long" (OK held for ``long_press_ms``: undo that seat's last entry). ``-`` and ``+``
auto-repeat while held. ``Panels`` calls ``on_event`` from gpiozero's callback thread or from its
own timer thread, one event at a time (never concurrently); keep the callback short (post the
event to the referee's queue).

LEDs are "off", "on" or "blink" (the referee blinks a seat's LED on an illegal play). Blinking is
driven by the same timer and clock as the buttons, so it works the same on GPIO and expander
pins and tests can step it.

Timers: ``Panels`` has one daemon thread that sleeps until the next deadline (debounce settle,
long press, repeat, blink, the 100 ms expander backstop poll) and calls ``tick``. Tests pass
``run_timer=False`` with a fake clock and call ``tick()`` themselves.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .config import MAX_SEATS, Config, Expander, PanelsConfig, PinRef, SeatPins
from .debounce import ButtonLogic, Timing
from .mcp23017 import MCP23017, ExpanderError, I2CBus, open_bus

ButtonName = Literal["minus", "plus", "ok", "ok_long"]
LedMode = Literal["off", "on", "blink"]
LED_MODES: tuple[str, ...] = ("off", "on", "blink")
BUTTON_NAMES: tuple[str, ...] = ("minus", "plus", "ok", "ok_long")
EXPANDER_POLL = 0.1  # seconds: backstop read of every expander in case an interrupt edge is lost

Clock = Callable[[], float]


@dataclass(frozen=True)
class PanelEvent:
    """One press at one seat. ``at`` is on the source's clock (``time.monotonic`` by default)."""

    seat: int
    button: str  # one of BUTTON_NAMES
    at: float


EventHandler = Callable[[PanelEvent], None]


class PanelError(ValueError):
    """A wrong seat, button or LED mode, or a pin map the hardware cannot honour."""


class PanelSource(Protocol):
    """What the referee and kiosk use, whichever panels are behind it."""

    @property
    def seats(self) -> int: ...

    def set_led(self, seat: int, mode: str) -> None: ...

    def led(self, seat: int) -> str: ...

    def close(self) -> None: ...


def _check_led(seats: int, seat: int, mode: str) -> None:
    if not 0 <= seat < seats:
        raise PanelError(f"no seat {seat}: the panels have seats 0 to {seats - 1}")
    if mode not in LED_MODES:
        raise PanelError(f"LED mode must be one of {', '.join(LED_MODES)}, not {mode!r}")


class _Led:
    """One LED: its mode and how to drive the pin."""

    def __init__(self, drive: Callable[[bool], None]) -> None:
        self.drive = drive
        self.mode = "off"
        self.level = False
        self.blink_from = 0.0

    def set_level(self, level: bool) -> None:
        if level != self.level:
            self.level = level
            self.drive(level)


class Panels:
    """Seat panels on GPIO and/or MCP23017 pins, with our debounce, long press and blinking."""

    def __init__(
        self,
        seats: Sequence[SeatPins],
        on_event: EventHandler,
        *,
        timing: Timing | None = None,
        expanders: Sequence[Expander] = (),
        bus: I2CBus | None = None,
        pin_factory: Any = None,
        reset: int | None = None,
        clock: Clock = time.monotonic,
        run_timer: bool = True,
    ) -> None:
        self._on_event = on_event
        self._timing = timing = timing or Timing()
        self._clock = clock
        self._lock = threading.RLock()
        self._devices: list[Any] = []
        self._buttons: list[dict[str, ButtonLogic]] = [
            {name: ButtonLogic(name, timing) for name in ("minus", "plus", "ok")} for _ in seats
        ]
        self._leds: list[_Led] = []
        self._chips: dict[str, MCP23017] = {}
        self._chip_inputs: dict[str, list[tuple[int, int, str]]] = {}  # chip -> (bit, seat, button)
        self._next_poll: float | None = None
        self._closed = False
        self._wake = threading.Event()
        try:
            self._setup(seats, expanders, bus, pin_factory, reset)
        except BaseException:
            self._close_devices()
            raise
        self._timer: threading.Thread | None = None
        if run_timer:
            self._timer = threading.Thread(target=self._run_timer, name="panels-timer", daemon=True)
            self._timer.start()

    # ------------------------------------------------------------------ set-up

    def _setup(self, seats: Sequence[SeatPins], expanders: Sequence[Expander], bus: I2CBus | None,
               pin_factory: Any, reset: int | None) -> None:
        used_chips = {pin.chip for seat in seats for _, pin in seat.pins() if pin.chip is not None}
        by_name = {e.name: e for e in expanders}
        missing = used_chips - set(by_name)
        if missing:
            raise PanelError(f"the pin map uses expander(s) {', '.join(sorted(missing))} that are not configured")
        if used_chips:
            if reset is not None:
                self._pulse_reset(reset, pin_factory)
            if bus is None:
                raise ExpanderError("expander pins need an I2C bus (device.mcp23017.open_bus)")
            for name in sorted(used_chips):
                self._chips[name] = MCP23017(bus, by_name[name].address)
                self._chip_inputs[name] = []
        masks: dict[str, list[int]] = {name: [0, 0] for name in self._chips}  # buttons, leds
        for s, seat in enumerate(seats):
            for role, pin in seat.pins():
                if pin.chip is not None:
                    masks[pin.chip][1 if role == "led" else 0] |= 1 << pin.number
                    if role != "led":
                        self._chip_inputs[pin.chip].append((pin.number, s, role))
                elif role != "led":
                    self._gpio_button(pin, s, role, pin_factory)
            self._leds.append(_Led(self._led_driver(seat.led, pin_factory)))
        for name, chip in self._chips.items():
            chip.configure(masks[name][0], masks[name][1])
            interrupt = by_name[name].interrupt
            if interrupt is not None:
                self._interrupt_line(name, interrupt, pin_factory)
            levels = chip.read_inputs()
            for bit, s, role in self._chip_inputs[name]:
                self._buttons[s][role].assume(bool(levels >> bit & 1))
        if self._chips:
            self._next_poll = self._clock() + EXPANDER_POLL

    def _gpio_button(self, pin: PinRef, seat: int, role: str, pin_factory: Any) -> None:
        from gpiozero import DigitalInputDevice

        device = DigitalInputDevice(pin.number, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        self._devices.append(device)
        device.when_activated = lambda: self._line(seat, role, True)
        device.when_deactivated = lambda: self._line(seat, role, False)
        self._buttons[seat][role].assume(bool(device.is_active))

    def _led_driver(self, pin: PinRef, pin_factory: Any) -> Callable[[bool], None]:
        if pin.chip is not None:
            chip = self._chips[pin.chip]
            bit = pin.number
            return lambda on: chip.set_output(bit, on)
        from gpiozero import LED

        led = LED(pin.number, initial_value=False, pin_factory=pin_factory)
        self._devices.append(led)
        return lambda on: led.on() if on else led.off()

    def _interrupt_line(self, chip: str, gpio: int, pin_factory: Any) -> None:
        from gpiozero import DigitalInputDevice

        line = DigitalInputDevice(gpio, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        self._devices.append(line)
        line.when_activated = lambda: self.poll_expanders(chip, interrupt=True)

    def _pulse_reset(self, gpio: int, pin_factory: Any) -> None:
        from gpiozero import DigitalOutputDevice

        # RESET is active low: "on" holds the chips in reset; leave it off (high) after.
        reset = DigitalOutputDevice(gpio, active_high=False, initial_value=True, pin_factory=pin_factory)
        self._devices.append(reset)
        time.sleep(0.001)  # datasheet: 1 us minimum
        reset.off()

    # ------------------------------------------------------------------ inputs

    def _line(self, seat: int, role: str, pressed: bool) -> None:
        """A raw level change of one button (gpiozero's thread or an expander read)."""
        with self._lock:
            if self._closed:
                return
            events = self._buttons[seat][role].feed(pressed, self._clock())
            self._deliver(seat, events)
        self._wake.set()

    def poll_expanders(self, only: str | None = None, interrupt: bool = False) -> None:
        """Read the expanders' inputs and feed any changes (the interrupt handler and backstop)."""
        with self._lock:
            if self._closed:
                return
            for name, chip in self._chips.items():
                if only is not None and name != only:
                    continue
                if interrupt:
                    flags, captured = chip.read_interrupt()
                    if flags:
                        self._feed_chip(name, captured, flags)
                self._feed_chip(name, chip.read_inputs(), 0xFFFF)
        self._wake.set()

    def _feed_chip(self, name: str, levels: int, mask: int) -> None:
        now = self._clock()
        for bit, seat, role in self._chip_inputs[name]:
            if mask >> bit & 1:
                self._deliver(seat, self._buttons[seat][role].feed(bool(levels >> bit & 1), now))

    def _deliver(self, seat: int, events: list[tuple[str, float]]) -> None:
        for name, at in events:
            self._on_event(PanelEvent(seat, name, at))

    # ------------------------------------------------------------------ LEDs

    @property
    def seats(self) -> int:
        return len(self._leds)

    def set_led(self, seat: int, mode: str) -> None:
        _check_led(self.seats, seat, mode)
        with self._lock:
            led = self._leds[seat]
            if mode == led.mode:
                return
            led.mode = mode
            led.blink_from = self._clock()
            led.set_level(mode != "off")
        self._wake.set()

    def led(self, seat: int) -> str:
        return self._leds[seat].mode

    def led_level(self, seat: int) -> bool:
        """Whether the LED is lit at this moment (blinking LEDs alternate)."""
        return self._leds[seat].level

    # ------------------------------------------------------------------ time

    def tick(self) -> None:
        """Settle debouncers, fire long presses and repeats, step blinking, poll expanders."""
        with self._lock:
            if self._closed:
                return
            now = self._clock()
            for seat, buttons in enumerate(self._buttons):
                for logic in buttons.values():
                    self._deliver(seat, logic.tick(now))
            half = self._timing.blink
            for led in self._leds:
                if led.mode == "blink":
                    led.set_level(int((now - led.blink_from) // half) % 2 == 0)
            if self._next_poll is not None and now >= self._next_poll:
                self._next_poll = now + EXPANDER_POLL
                self.poll_expanders()

    def next_deadline(self) -> float | None:
        """When ``tick`` next has work (the timer thread sleeps until then)."""
        with self._lock:
            times = [b.deadline() for buttons in self._buttons for b in buttons.values()]
            half = self._timing.blink
            for led in self._leds:
                if led.mode == "blink":
                    elapsed = self._clock() - led.blink_from
                    times.append(led.blink_from + (elapsed // half + 1) * half)
            times.append(self._next_poll)
            return min((t for t in times if t is not None), default=None)

    def _run_timer(self) -> None:
        while not self._closed:
            deadline = self.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self._clock())
            self._wake.wait(timeout)
            self._wake.clear()
            self.tick()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            for led in self._leds:
                led.mode = "off"
                try:
                    led.set_level(False)
                except OSError:
                    pass
            self._closed = True
        self._wake.set()
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.join(timeout=2)
        self._close_devices()

    def _close_devices(self) -> None:
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()

    def __enter__(self) -> Panels:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


MOCK_REVISION = "a020a0"  # a Compute Module 3: GPIO 0 to 45 (the header's 28 are too few for 11 seats)


def mock_pin_map(seats: int) -> tuple[SeatPins, ...]:
    """A direct-GPIO pin map for ``MockPanels``: seat s on GPIO 4s..4s+3 as -, +, OK, LED.

    The default map puts seats on MCP23017 expanders; on mock pins a direct map runs the same
    debounce and hold code with less machinery (no fake I2C bus or interrupt line)."""
    if not 0 < seats <= MAX_SEATS:
        raise PanelError(f"the mock panels have 1 to {MAX_SEATS} seats, not {seats}")
    return tuple(SeatPins(*(PinRef(None, 4 * s + i) for i in range(4))) for s in range(seats))


class MockPanels(Panels):
    """The real ``Panels`` on gpiozero's ``MockFactory``: the kiosk's on-screen panels.

    An on-screen press or a bot's (``trickref sim``, with a clock it steps) never becomes an
    event directly, which would bypass the debounce and long-press code: a press drives a mock pin low (``hold``) and high
    (``release``), so holding the on-screen OK for ``long_press`` gives "ok_long" exactly as the
    wired panel does. A release that comes sooner than the debounce window after its hold (a
    mouse click arrives as down and up in the same instant) is put off until the window has
    passed, so a tap is never lost as a bounce; the timer (or ``tick``) carries it out.
    """

    def __init__(self, seats: int, on_event: EventHandler, *, timing: Timing | None = None,
                 factory: Any = None, clock: Clock = time.monotonic, run_timer: bool = True) -> None:
        if factory is None:
            from gpiozero.pins.mock import MockFactory

            factory = MockFactory(revision=MOCK_REVISION)
        self.factory = factory
        self.pin_map = mock_pin_map(seats)
        self._held: dict[tuple[int, str], float] = {}  # (seat, button) -> when the pin went low
        self._releases: dict[tuple[int, str], float] = {}  # put-off releases: when they are due
        self._edge_at: dict[tuple[int, str], float] = {}  # a put-off release's edge: when it was due
        self._mock_lock = threading.Lock()
        super().__init__(self.pin_map, on_event, timing=timing, pin_factory=factory, clock=clock,
                         run_timer=run_timer)

    @property
    def settle(self) -> float:
        """Seconds a level must hold before it counts (the debounce window)."""
        return self._timing.debounce

    def _pin(self, seat: int, button: str) -> Any:
        if not 0 <= seat < self.seats:
            raise PanelError(f"no seat {seat}: the panels have seats 0 to {self.seats - 1}")
        if button not in ("minus", "plus", "ok"):
            raise PanelError(f"a seat panel has the buttons minus, plus and ok, not {button!r}")
        ref: PinRef = getattr(self.pin_map[seat], button)
        return self.factory.pin(ref.number)

    def hold(self, seat: int, button: str) -> None:
        """The button goes down (its pin is driven low: the buttons switch to GND)."""
        pin = self._pin(seat, button)
        with self._mock_lock:
            self._releases.pop((seat, button), None)
        pin.drive_low()
        with self._mock_lock:
            self._held[(seat, button)] = self._clock()

    def release(self, seat: int, button: str) -> None:
        """The button comes up; put off until the debounce window has passed since the hold."""
        pin = self._pin(seat, button)
        with self._mock_lock:
            held = self._held.pop((seat, button), None)
            if held is not None and self._clock() < held + self.settle:
                self._releases[(seat, button)] = held + self.settle
                later = True
            else:
                later = False
        if later:
            self._wake.set()
        else:
            pin.drive_high()

    def press(self, seat: int, button: str) -> None:
        """A click: hold, then release once the debounce window has passed. The event comes
        from the timer (or ``tick``) through the debounce code, as a wired press does."""
        self.hold(seat, button)
        self.release(seat, button)

    def led(self, seat: int) -> str:
        """Read back from the LED's mock pin ("blink" is a mode, not one level)."""
        mode = super().led(seat)
        if mode == "blink":
            return mode
        return "on" if self.factory.pin(self.pin_map[seat].led.number).state else "off"

    def _line(self, seat: int, role: str, pressed: bool) -> None:
        """As ``Panels``; a put-off release's edge is dated when it was due (``tick``)."""
        at = self._edge_at.pop((seat, role), None)
        if at is None:
            super()._line(seat, role, pressed)
            return
        with self._lock:
            if self._closed:
                return
            self._deliver(seat, self._buttons[seat][role].feed(pressed, at))
        self._wake.set()

    def tick(self) -> None:
        if self._closed:
            return
        now = self._clock()
        with self._mock_lock:
            due = sorted((at, key) for key, at in self._releases.items() if now >= at)
            for _at, key in due:
                del self._releases[key]
        for at, (seat, button) in due:
            # A click's release was due at ``at``: its press counts then and the pin goes up
            # then, however late this tick runs (a loaded machine), so a click never turns into
            # a held key (an auto-repeat of - or +, or a long OK).
            with self._lock:
                if self._closed:
                    return
                self._deliver(seat, self._buttons[seat][button].tick(at))
                self._edge_at[(seat, button)] = at
            self._pin(seat, button).drive_high()
            self._edge_at.pop((seat, button), None)
        super().tick()

    def next_deadline(self) -> float | None:
        with self._mock_lock:
            mine = min(self._releases.values(), default=None)
        theirs = super().next_deadline()
        return min((t for t in (mine, theirs) if t is not None), default=None)


def timing_of(config: PanelsConfig) -> Timing:
    return Timing.from_ms(config.debounce_ms, config.long_press_ms, config.repeat_delay_ms,
                          config.repeat_interval_ms, config.blink_ms)


def pin_factory_for(mode: str) -> Any:
    """gpiozero's pin factory for a resolved mode: MockFactory when simulated, else the default."""
    if mode == "simulated":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    return None


def open_panels(
    config: Config,
    on_event: EventHandler,
    mode: str | None = None,
    *,
    seats: int | None = None,
    clock: Clock = time.monotonic,
    bus: I2CBus | None = None,
    pin_factory: Any = None,
) -> PanelSource:
    """The panels for this configuration: on-screen when simulated, the wiring on hardware.

    ``mode`` defaults to ``config.resolved_mode()``; ``seats`` limits the panels to the first
    seats of the pin map (the table's seat count). An I2C bus is opened when the pin map uses
    expanders (ExpanderError, a clear message, when smbus2 or I2C is missing).
    """
    mode = mode or config.resolved_mode()
    pins = config.panels.seats[: seats if seats is not None else len(config.panels.seats)]
    if seats is not None and seats > len(config.panels.seats):
        raise PanelError(f"{seats} seats, but the pin map has {len(config.panels.seats)} seat panels")
    if mode == "simulated":
        return MockPanels(len(pins), on_event, timing=timing_of(config.panels), clock=clock)
    uses_expanders = any(p.chip is not None for seat in pins for _, p in seat.pins())
    if uses_expanders and bus is None:
        bus = open_bus(config.panels.i2c_bus)
    return Panels(pins, on_event, timing=timing_of(config.panels), expanders=config.panels.expanders,
                  bus=bus, pin_factory=pin_factory, reset=config.panels.reset, clock=clock)


def main() -> None:
    """``python -m device.panels``: print presses and light LEDs, to check a built table."""
    from .config import load

    loaded = load()
    for message in loaded.messages():
        print(message)
    lit: list[int] = []

    def show(event: PanelEvent) -> None:
        print(f"seat {event.seat}: {event.button}", flush=True)
        for seat in lit:
            panels.set_led(seat, "off")
        lit[:] = [event.seat]
        panels.set_led(event.seat, "blink" if event.button == "ok_long" else "on")

    panels = open_panels(loaded.config, show, loaded.config.resolved_mode())
    print(f"{panels.seats} seat panels ({loaded.config.resolved_mode()}); Ctrl-C ends", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        panels.close()


if __name__ == "__main__":
    main()
