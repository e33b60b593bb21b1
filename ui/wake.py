"""The table's wake-up call to the kiosk's loop: the table host's worker (another thread) says
"the table changed" with ``post()`` (``pygame.event.post`` of the ``TABLE_EVENT`` type, safe
from any thread), and the loop redraws from the table. The event carries nothing: seat panel
and button presses and card reads go to the table host, never through the loop.
"""

from __future__ import annotations

from collections.abc import Callable

TABLE_EVENT: int | None = None  # set by init(): a pygame custom event type


def init() -> None:
    """Reserve the event type (once; pygame's display is initialised by the caller)."""
    global TABLE_EVENT
    import pygame

    if TABLE_EVENT is None:
        TABLE_EVENT = pygame.event.custom_type()


def post() -> None:
    """Wake the loop: the table changed."""
    import pygame

    assert TABLE_EVENT is not None, "init_pygame() first"
    pygame.event.post(pygame.event.Event(TABLE_EVENT, {"kind": "table"}))


def poster() -> Callable[[], None] | None:
    """``post`` when a kiosk loop is there to wake (its event type reserved), else None."""
    return post if TABLE_EVENT is not None else None
