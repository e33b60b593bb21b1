"""Debounce and hold timing for the seat buttons, in our own code with an injectable clock.

Why not gpiozero's ``bounce_time``: its mock pins ignore it (so it cannot be tested), and the
expander pins never pass through gpiozero at all. Everything here is pure: it is fed levels with
the time they were seen and asked, at any later time, what happened. Nothing sleeps or reads a
clock; ``device.panels`` owns the clock and calls ``tick`` at the deadlines these objects give.

``Debouncer``: a level counts once it has been stable for ``window`` seconds (the buttons bounce
for a few ms and the panel cables are long enough to pick up spikes, so a single edge is not
trusted). A storm of edges inside the window gives one change, when the storm has settled; a
spike that comes back inside the window gives none.

``ButtonLogic``: one button's events from its debounced level.

- ``-`` and ``+``: an event on press; held, it repeats after ``repeat_delay`` every
  ``repeat_interval`` (0 turns repeat off).
- ``OK``: "ok" on release; held for ``long_press`` it gives "ok_long" instead (at the moment
  the time is reached, so the player sees the undo without letting go; the release then says
  nothing more). A long hold whose deadline tick was missed still gives "ok_long" at release.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


class Debouncer:
    """A raw level in, a stable level out once it has not changed for ``window`` seconds."""

    def __init__(self, window: float, level: bool = False) -> None:
        self.window = window
        self.stable = level
        self._raw = level
        self._since = -math.inf  # when the raw level last changed

    @property
    def raw(self) -> bool:
        return self._raw

    @property
    def since(self) -> float:
        """When the current raw level began (the start of the stable level once accepted)."""
        return self._since

    def feed(self, level: bool, now: float) -> bool | None:
        """A sample (an edge, or a poll of the level). Returns the new stable level, if any."""
        if level != self._raw:
            self._raw = level
            self._since = now
        return self.poll(now)

    def poll(self, now: float) -> bool | None:
        """The new stable level if the raw level has now held for the window, else None."""
        if self._raw != self.stable and now >= self._since + self.window:  # as deadline()
            self.stable = self._raw
            return self.stable
        return None

    def deadline(self) -> float | None:
        """When ``poll`` next has something to decide (None: nothing pending)."""
        return self._since + self.window if self._raw != self.stable else None


@dataclass(frozen=True)
class Timing:
    """Seconds. From ``config.PanelsConfig`` (which keeps milliseconds) via ``from_ms``."""

    debounce: float = 0.020
    long_press: float = 1.5
    repeat_delay: float = 0.5
    repeat_interval: float = 0.15  # 0: no repeat
    blink: float = 0.25

    @classmethod
    def from_ms(cls, debounce: int, long_press: int, repeat_delay: int, repeat_interval: int,
                blink: int) -> Timing:
        return cls(debounce / 1000, long_press / 1000, repeat_delay / 1000, repeat_interval / 1000,
                   blink / 1000)


class ButtonLogic:
    """One button: raw levels and ticks in, ``(event name, time)`` pairs out.

    ``name`` is "minus", "plus" or "ok"; OK's long hold is reported as "ok_long".
    """

    def __init__(self, name: str, timing: Timing) -> None:
        self.name = name
        self.timing = timing
        self.debouncer = Debouncer(timing.debounce)
        self._pressed_at: float | None = None
        self._next_repeat: float | None = None
        self._long_done = False

    def assume(self, pressed: bool) -> None:
        """Take ``pressed`` as the level already there (at start-up): no event for it, and a
        button held at boot does not count until it has been released and pressed again."""
        self.debouncer = Debouncer(self.timing.debounce, pressed)
        self._pressed_at = None
        self._next_repeat = None

    @property
    def repeats(self) -> bool:
        return self.name != "ok" and self.timing.repeat_interval > 0

    def feed(self, pressed: bool, now: float) -> list[tuple[str, float]]:
        changed = self.debouncer.feed(pressed, now)
        return self._after(changed, now)

    def tick(self, now: float) -> list[tuple[str, float]]:
        return self._after(self.debouncer.poll(now), now)

    def deadline(self) -> float | None:
        times = [self.debouncer.deadline()]
        if self._pressed_at is not None:
            if self.name == "ok" and not self._long_done:
                times.append(self._pressed_at + self.timing.long_press)
            times.append(self._next_repeat)
        return min((t for t in times if t is not None), default=None)

    def _after(self, changed: bool | None, now: float) -> list[tuple[str, float]]:
        out: list[tuple[str, float]] = []
        if changed is True:
            at = self.debouncer.since
            self._pressed_at = at
            self._long_done = False
            if self.name != "ok":
                out.append((self.name, at))
                if self.repeats:
                    self._next_repeat = at + self.timing.repeat_delay
        elif changed is False and self._pressed_at is not None:
            if self.name == "ok" and not self._long_done:
                held = self.debouncer.since - self._pressed_at
                if held >= self.timing.long_press:
                    out.append(("ok_long", self._pressed_at + self.timing.long_press))
                else:
                    out.append(("ok", self.debouncer.since))
            self._pressed_at = None
            self._next_repeat = None
        if self._pressed_at is not None:
            if self.name == "ok" and not self._long_done and now >= self._pressed_at + self.timing.long_press:
                self._long_done = True
                out.append(("ok_long", self._pressed_at + self.timing.long_press))
            if self._next_repeat is not None and now >= self._next_repeat:
                out.append((self.name, self._next_repeat))
                self._next_repeat += self.timing.repeat_interval
                if self._next_repeat <= now:  # ticks came late: no burst of stale repeats
                    self._next_repeat = now + self.timing.repeat_interval
        return out
