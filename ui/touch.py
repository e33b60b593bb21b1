"""One pointer for the scenes, from SDL's mouse events and its touch (FINGER*) events.

How a touch reaches the kiosk (SDL 2, as pygame-ce ships it): the touchscreen's driver (the
Raspberry Pi Touch Display under KMS/DRM or X11) sends FINGERDOWN / FINGERMOTION / FINGERUP with
coordinates normalised to 0..1, and SDL *also* synthesizes mouse events from the first finger
(SDL_HINT_TOUCH_MOUSE_EVENTS, on by default), posted just before the finger event they copy;
pygame-ce marks those with ``event.touch = True``. A mouse, or a touchscreen that presents itself
as an absolute pointer, sends mouse events only; with the hint off, or events posted by a test,
there are FINGER events only.

So a tap can arrive once or twice. ``Pointer.translate`` turns every stream into one: the source
that starts a gesture (a press) owns it until its release, and what the other source says
meanwhile (SDL's copy, a second finger) is dropped, including the release of a press it dropped.
FINGER events become mouse events (pixels of the window, ``touch=True``) so the widgets know one
kind of event. A real mouse (``touch`` unset) always takes over: a finger whose release was lost
cannot lock the screen.
"""

from __future__ import annotations

from typing import Any

MOUSE = "mouse"


class Pointer:
    def __init__(self) -> None:
        self.owner: Any = None  # None, MOUSE, or the (touch_id, finger_id) of the finger down
        self.owner_touch = False  # the mouse gesture that owns is SDL's copy of a touch
        self._drop_mouse_up = False  # a mouse press was dropped: drop its release too

    def reset(self) -> None:
        self.owner, self.owner_touch, self._drop_mouse_up = None, False, False

    def translate(self, event: Any, size: tuple[int, int]) -> list[Any]:
        """The events the scenes should see for ``event`` (none, itself, or a mouse event made
        from a finger event); ``size`` is the window's size in pixels."""
        import pygame

        t = event.type
        touch = bool(getattr(event, "touch", False))
        if t == pygame.MOUSEBUTTONDOWN and event.button == 1:
            if isinstance(self.owner, tuple) and touch:
                self._drop_mouse_up = True  # SDL's copy of the finger that owns the gesture
                return []
            self.owner, self.owner_touch, self._drop_mouse_up = MOUSE, touch, False
            return [event]
        if t == pygame.MOUSEBUTTONUP and event.button == 1:
            if self._drop_mouse_up:
                self._drop_mouse_up = False
                return []
            if self.owner == MOUSE:
                self.owner = None
            return [event]
        if t == pygame.MOUSEMOTION:
            return [] if isinstance(self.owner, tuple) and touch else [event]
        if t in (pygame.FINGERDOWN, pygame.FINGERMOTION, pygame.FINGERUP):
            finger = (getattr(event, "touch_id", 0), getattr(event, "finger_id", 0))
            pos = _pixels(event, size)
            if t == pygame.FINGERDOWN:
                if self.owner is not None and self.owner != finger:
                    return []  # SDL's mouse copy of this finger is acting, or another finger is down
                self.owner, self._drop_mouse_up = finger, False
                return [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1, touch=True)]
            if self.owner != finger:
                return []
            if t == pygame.FINGERMOTION:
                rel = (round(getattr(event, "dx", 0.0) * size[0]), round(getattr(event, "dy", 0.0) * size[1]))
                return [pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=rel, buttons=(1, 0, 0), touch=True)]
            self.owner = None
            return [pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1, touch=True)]
        if t in (getattr(pygame, "WINDOWFOCUSLOST", -1), getattr(pygame, "WINDOWLEAVE", -1)):
            self.reset()
        return [event]


def _pixels(event: Any, size: tuple[int, int]) -> tuple[int, int]:
    """A finger's normalised (0..1) position in the window's pixels, kept inside the window."""
    w, h = size
    x = min(w - 1, max(0, int(float(event.x) * w)))
    y = min(h - 1, max(0, int(float(event.y) * h)))
    return x, y
