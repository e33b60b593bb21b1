"""The admin PIN pad in front of the settings screen.

Settings the kiosk cannot use (``Settings.locked``) show a page saying which file and why, with
no PIN pad (no PIN opens them); wrong PINs are limited by the settings' ``PinGuard``."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..i18n import _
from ..keyboard import KeyboardScene
from ..widgets import Button


class PinScene(KeyboardScene):
    name = "pin"
    modal = False

    def __init__(self, app: Any, then: str = "settings") -> None:
        super().__init__(app, title=_("Admin PIN"), digits=True, secret=True, max_len=8)
        self.then = then
        self.tries = 0

    @property
    def locked(self) -> bool:
        return bool(self.app.settings.locked)

    def enter(self) -> None:
        super().enter()
        s = self.app.settings
        if s.locked:
            self.message = s.lock_reason or _("settings locked")
        elif s.guard.wait_left() > 0:
            self.message = s.try_pin("")[1]  # "too many wrong PINs: try again in ..." (not a try)

    def layout(self) -> None:
        if not self.locked:
            super().layout()
            return
        th = self.theme
        self.field = pygame.Rect(2 * th.pad, th.u(44), th.width - 4 * th.pad, th.u(56))
        self.back_btn = Button(_("Back"), self.cancel, pygame.Rect(th.width - th.u(180) - 2 * th.pad,
                                                                th.height - th.touch - th.pad, th.u(180), th.touch))
        self.widgets = [self.back_btn]

    def draw_content(self, surface: Any) -> None:
        if not self.locked:
            super().draw_content(surface)
            return
        th = self.theme
        surface.fill(T.PANEL)
        y = self.title(surface, _("Settings locked"))
        width = th.width - 4 * th.pad
        for line in D.wrap(th, self.message, width, "body"):
            r = D.text(surface, th, line, (2 * th.pad, y), "body", T.TEXT, max_width=width)
            y = r.bottom + th.u(4)
        hint = _("No PIN opens the settings until the configuration file is fixed or deleted "
                 "(deleting it restores the defaults and the PIN 0000).")
        y += th.pad
        for line in D.wrap(th, hint, width, "small"):
            r = D.text(surface, th, line, (2 * th.pad, y), "small", T.TEXT_DIM, max_width=width)
            y = r.bottom + th.u(2)

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
