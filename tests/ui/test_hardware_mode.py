"""Hardware mode: the dealer on the configured port (here a dealer simulator's pty, standing in
for the USB cable) and the wired seat panels (gpiozero's MockFactory), no simulator inside the
kiosk; a panel press on gpiozero's thread reaches the referee through the table host's inbox,
never through pygame."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory
from referee_helpers import pump, referee_app

from trickref.device.config import Config, DealerConfig, PanelsConfig, PinRef, SeatPins
from trickref.device.dealer.sim import DealerSimulator
from trickref.device.panels import Panels
from trickref.ui.session import Session
from trickref.ui.table_client import start_table

SEATS = tuple(SeatPins(PinRef(None, 4 * s + 2), PinRef(None, 4 * s + 3), PinRef(None, 4 * s + 4), PinRef(None, 4 * s + 5))
              for s in range(4))


class PanelClock:
    """The panels' clock, stepped by the test (the debounce and auto-repeat windows are on it)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_hardware_mode_deals_on_the_configured_port_and_reads_the_panels():
    sim = DealerSimulator(seats=4, speed=400.0)
    sim.start()
    factory = MockFactory()
    app = referee_app()
    try:
        config = Config(mode="hardware", dealer=DealerConfig(port=sim.stable_path),
                        panels=PanelsConfig(seats=SEATS, expanders=(), reset=None))
        clock = PanelClock()
        table = start_table("partnership-spades", 4, ["A", "B", "C", "D"], {"target": 100}, bots=(1, 2, 3),
                            config=config, seed=4, pin_factory=factory, panel_clock=clock)
        assert isinstance(table.opened.panels, Panels) and table.opened.world is None and table.mode == "hardware"
        app.session = Session(table, simulated=False, bot_delay=0.0, trick_hold=0.0)
        app.session.start_deal()
        app.route()
        pump(app, lambda a: table.referee.accepting() and 0 in table.turn())
        # the deal went through the port: the simulator's seat trays hold the hands
        assert sorted(sim.board.tray(0)) == sorted(table.state.hand_of(0))
        assert app.scene.name == "bidding" and table.led(0) == "on"
        app.render(force=True)
        assert app.scene.model()["leds"][0] == "on"  # the panel's LED, shown on screen too
        assert table.opened.panels.led(0) == "on"  # and lit on the wired panel
        # seat 0's + then OK on the wired panel (mock pins, active low)
        panels = table.opened.panels

        def press(pin: int) -> None:
            # held 0.2 s on the panels' clock: past the 20 ms debounce, released before the 0.5 s
            # auto-repeat, however long the machine takes between the two edges
            factory.pin(pin).drive_low()
            clock.t += 0.2
            panels.tick()
            factory.pin(pin).drive_high()
            clock.t += 0.2
            panels.tick()

        def bid_of_seat_0():
            return next((a.value for s, a in table.state.actions if s == 0 and a.kind == "bid"), None)

        press(3)  # plus
        pump(app, lambda a: 0 in table.pending)
        assert bid_of_seat_0() is None
        press(4)  # OK
        pump(app, lambda a: bid_of_seat_0() is not None)
        assert bid_of_seat_0() == 1  # the first + shows bid 1, OK takes it
    finally:
        app.end_session()
        sim.stop()
        factory.reset()
