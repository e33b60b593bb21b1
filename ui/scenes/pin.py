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
        if self.app.settings.locked:
            self.message = "locked: the stored PIN is unreadable (delete the pin line in config.toml)"

    def ok(self) -> None:
        if self.app.settings.check_pin(self.text):
            self.app.go(self.then)
            return
        self.tries += 1
        self.text = ""
        self.message = "wrong PIN"
        self.needs_redraw = True

    def cancel(self) -> None:
        self.app.go("home")
