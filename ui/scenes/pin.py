"""The admin PIN pad in front of the settings screen."""

from __future__ import annotations

from typing import Any

from ..keyboard import KeyboardScene


class PinScene(KeyboardScene):
    name = "pin"
    modal = False

    def __init__(self, app: Any, then: str = "settings") -> None:
        super().__init__(app, title="Admin PIN", digits=True, secret=True, max_len=8)
        self.then = then
        self.tries = 0

    def enter(self) -> None:
        super().enter()
        s = self.app.settings
        if s.locked:
            self.message = s.lock_reason or "settings locked"
        elif s.guard.wait_left() > 0:
            self.message = s.try_pin("")[1]  # "too many wrong PINs: try again in ..." (not a try)

    def ok(self) -> None:
        right, said = self.app.settings.try_pin(self.text)
        if right:
            self.app.go(self.then)
            return
        self.tries += 1
        self.text = ""
        self.message = said
        self.needs_redraw = True

    def cancel(self) -> None:
        self.app.go("home")
