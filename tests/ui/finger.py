"""A finger for kiosk tests: taps as a person gives them, through the app's own loop.

A person's tap is not a click. The finger goes down, stays 50-500 ms while the kiosk draws
frames (the press itself asks for one; bots, animations and the dealer ask for more), drifts a
few pixels, and lifts. ``tap`` does that: the press is posted to pygame's event queue, then
each of the 3-6 frames of the hold is one turn of ``App.step`` (the loop ``App.run`` runs: events handed
to the scenes, a tick, a frame drawn), with a move of a few pixels on the way, and the release.
Time is the test's own clock (``hold_ms`` of it passes; nothing sleeps), so a tap costs only the
frames it draws.

How the press arrives (``kind``):

- ``"mouse"``: mouse events only (a mouse, or a touchscreen that presents itself as an
  absolute pointer);
- ``"touch"``: what SDL sends for a touchscreen such as the Raspberry Pi Touch Display: FINGERDOWN
  / FINGERMOTION / FINGERUP with coordinates normalised to 0..1, each preceded by the mouse
  event SDL synthesizes from it (``touch=True``), in SDL's order; the kiosk must act once;
- ``"finger"``: the FINGER events alone (SDL's mouse synthesis turned off).

The walk (tests/ui/test_finger_walk.py) taps every touch target of every staged screen with
this finger and checks that each one acts. A scene joins the walk by itself: its targets are
``Scene.touch_targets()`` -- every Button or Toggle among its ``widgets`` (inside ScrollAreas,
Steppers, Choices, and composite widgets that list their parts with ``children()``), the
buttons its ``buttons()`` adds, and whatever the scene adds by overriding ``touch_targets`` (the
play scene adds the cards of the hand). Give each target a ``name`` unique on its screen (a
Button's defaults to its English text). A screen the screenshot set stages
(``ui.screenshots.scenarios``) is walked with no further work; a state it does not stage goes
into ``EXTRA_STATES`` in the walk test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

KINDS = ("mouse", "touch", "finger")


class Clock:
    """The test's clock for ``App.step``: it moves only when the finger says time passed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _post(ev_type: int, **kw: Any) -> None:
    ok = pygame.event.post(pygame.event.Event(ev_type, kw))
    assert ok is not False, f"the kiosk blocks {pygame.event.event_name(ev_type)} events: a touch would be lost"


def _down(kind: str, pos: tuple[int, int], size: tuple[int, int], finger_id: int) -> None:
    if kind in ("mouse", "touch"):
        touch = kind == "touch"
        _post(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0), touch=touch)
        _post(pygame.MOUSEBUTTONDOWN, pos=pos, button=1, touch=touch)
    if kind in ("touch", "finger"):
        _post(pygame.FINGERDOWN, touch_id=1, finger_id=finger_id, x=pos[0] / size[0], y=pos[1] / size[1],
              dx=0.0, dy=0.0, pressure=1.0)


def _move(kind: str, pos: tuple[int, int], rel: tuple[int, int], size: tuple[int, int], finger_id: int) -> None:
    if kind in ("mouse", "touch"):
        _post(pygame.MOUSEMOTION, pos=pos, rel=rel, buttons=(1, 0, 0), touch=kind == "touch")
    if kind in ("touch", "finger"):
        _post(pygame.FINGERMOTION, touch_id=1, finger_id=finger_id, x=pos[0] / size[0], y=pos[1] / size[1],
              dx=rel[0] / size[0], dy=rel[1] / size[1], pressure=1.0)


def _up(kind: str, pos: tuple[int, int], size: tuple[int, int], finger_id: int) -> None:
    if kind in ("mouse", "touch"):
        _post(pygame.MOUSEBUTTONUP, pos=pos, button=1, touch=kind == "touch")
    if kind in ("touch", "finger"):
        _post(pygame.FINGERUP, touch_id=1, finger_id=finger_id, x=pos[0] / size[0], y=pos[1] / size[1],
              dx=0.0, dy=0.0, pressure=0.0)


def turn(app: Any, clock: Clock, ms: float) -> None:
    """One turn of the app's loop with ``ms`` of the test's time passing. A frame is asked for
    (an exposed window: what a bot's move or an animation does while a finger is down), so the
    scene draws, and builds again whatever it builds per frame."""
    _post(pygame.WINDOWEXPOSED)
    clock.now += ms / 1000
    app.step(1, clock.now - ms / 1000, now=clock)


def tap(app: Any, pos: tuple[int, int], hold_ms: int = 120, drift: tuple[int, int] = (3, -2), kind: str = "touch",
        clock: Clock | None = None, finger_id: int = 0, while_held: Callable[[], Any] | None = None) -> int:
    """A finger's tap at ``pos``: down, held ``hold_ms`` (50-500 ms at a table) while the app's
    loop draws frames (three to six, one per 60 ms held), drifting by ``drift`` pixels on the way,
    then up where it drifted to. ``while_held()`` runs mid-hold (a test can look at the pressed
    look). Returns the frames the app drew meanwhile."""
    assert kind in KINDS, kind
    clock = clock or Clock()
    size = app.screen.get_size()
    x0, y0 = int(pos[0]), int(pos[1])
    frames = max(3, min(6, hold_ms // 60))
    drawn = app.frames
    pygame.event.clear()
    _down(kind, (x0, y0), size, finger_id)
    turn(app, clock, 1)
    at = (x0, y0)
    for i in range(frames):
        # the drift, a pixel or two at a time over the hold
        nx = x0 + round(drift[0] * (i + 1) / frames)
        ny = y0 + round(drift[1] * (i + 1) / frames)
        if (nx, ny) != at:
            _move(kind, (nx, ny), (nx - at[0], ny - at[1]), size, finger_id)
            at = (nx, ny)
        turn(app, clock, hold_ms / frames)
        if while_held is not None and i == frames // 2:
            while_held()
    _up(kind, at, size, finger_id)
    turn(app, clock, 1)
    return app.frames - drawn


def tap_target(app: Any, name: str, **kw: Any) -> int:
    """Tap the touch target called ``name`` on the top scene (a button, a toggle, a card) at
    the middle of the part of it on screen."""
    app.render(force=True)
    rect = dict(app.scene.touch_targets()).get(name)
    assert rect is not None, f"no touch target {name!r} on {app.scene.name}: {[n for n, _r in app.scene.touch_targets()]}"
    return tap(app, rect.center, **kw)
