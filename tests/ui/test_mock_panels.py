"""Simulated mode's on-screen seat panel runs the real panel code: its -, +, OK drive pins of
gpiozero's MockFactory (``device.panels.MockPanels``) low on mouse down and high on mouse up, so
a tap comes through the debounce and a held OK through the long-press path ("ok_long": undo that
seat's last entry), as on the wired table. Waits are on events with generous hang guards."""

from __future__ import annotations

import time

import pygame
from kiosk_helpers import tap_button
from referee_helpers import HANG_GUARD_S, pump, referee_app, start

from trickref.device.panels import MockPanels

HUMAN = 3  # dealer 0: seats 1, 2, 3 bid, then seat 0 (a bot) after the human


def _to_the_human_bid(app):
    table = app.session.table
    deadline = time.monotonic() + HANG_GUARD_S  # a guard against a hang, not a timing assertion
    while time.monotonic() < deadline:
        pump(app)
        if app.scene.name == "dealing":  # the deal is on the dealer's thread: wait for it
            pump(app, lambda a: a.scene.name != "dealing")
        sc = app.scene
        if sc.name == "bidding" and sc.acting_seat == HUMAN:
            return table
        if sc.name == "handoff":
            tap_button(app, "Show my cards")
        elif sc.name == "summary":
            tap_button(app, sc.next.name)
    raise AssertionError(f"seat {HUMAN} never came to bid (scene {app.scene.name})")


def _pin_levels(panels: MockPanels, seat: int, button: str) -> list[bool]:
    pin = panels.factory.pin(getattr(panels.pin_map[seat], button).number)
    return [bool(s.state) for s in pin.states]


def _bid(table):
    b = table.referee.game.bids[HUMAN]
    return None if b < 0 else b  # the engine keeps -1 for "not bid yet"


def test_a_tap_on_the_on_screen_panel_reaches_the_referee_through_the_mock_pins():
    app = referee_app()
    start(app, "partnership-spades", 4, humans=(HUMAN,), options={"target": 100})
    table = _to_the_human_bid(app)
    panels = table.opened.panels
    assert isinstance(panels, MockPanels)
    # the referee lights the seat on turn: on the mock pin behind the on-screen panel
    assert table.led(HUMAN) == "on" and panels.led(HUMAN) == "on"
    assert panels.factory.pin(panels.pin_map[HUMAN].led.number).state
    tap_button(app, "panel +")  # down and up in one instant: the release waits out the debounce
    # the press counts once the pin has been low for the window; the put-off release follows it
    pump(app, lambda a: HUMAN in table.pending and _pin_levels(panels, HUMAN, "plus")[-1])
    assert _pin_levels(panels, HUMAN, "plus")[-2:] == [False, True]  # driven low, then high
    assert _bid(table) is None
    tap_button(app, "panel OK")
    pump(app, lambda a: _bid(table) is not None and _pin_levels(panels, HUMAN, "ok")[-1])
    assert _bid(table) == 1  # the first + shows bid 1, OK takes it
    assert _pin_levels(panels, HUMAN, "ok")[-2:] == [False, True]
    pump(app, lambda a: table.led(HUMAN) != "on")  # the turn moved on: the LED goes out
    assert panels.led(HUMAN) == "off" and not panels.factory.pin(panels.pin_map[HUMAN].led.number).state


def test_holding_the_on_screen_ok_past_the_long_press_asks_to_undo_the_bid():
    app = referee_app()
    start(app, "partnership-spades", 4, humans=(HUMAN,), options={"target": 100})
    table = _to_the_human_bid(app)
    app.session.bot_delay = 1e9  # seat 0 (a bot) waits: the human's bid stays the last entry
    tap_button(app, "panel +")
    pump(app, lambda a: HUMAN in table.pending)
    tap_button(app, "panel OK")
    pump(app, lambda a: _bid(table) is not None)
    app.route()
    app.render(force=True)
    assert app.scene.name == "bidding" and app.scene.panel_seat == HUMAN  # its panel stays up
    ok = app.scene.button("panel OK")
    assert ok.visible
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=ok.rect.center, button=1, touch=True))
    pump(app, lambda a: table.referee.undo_pending is not None)  # the long press, while held
    question = table.public_view()["table"]["undo"]
    assert question is not None and question.startswith("Undo ") and "bid" in question
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=ok.rect.center, button=1, touch=True))
    logic = table.opened.panels._buttons[HUMAN]["ok"]
    pump(app, lambda a: logic.debouncer.stable is False)  # the release has settled...
    pump(app, lambda a: not pygame.event.peek())
    assert table.referee.undo_pending is not None  # ...and said nothing more (no "ok")
    assert _bid(table) == 1
    tap_button(app, "panel OK")  # OK answers the question: yes
    pump(app, lambda a: _bid(table) is None)
    assert table.referee.undo_pending is None and HUMAN in table.turn()
