"""Hot-seat privacy: "pass the device to <name>", then that player taps "show my cards".

Nothing private is drawn here: the previous player's hand is gone from the screen before the
device changes hands. A partnership Blind Nil can be declared here, before looking.
"""

from __future__ import annotations

from typing import Any

import pygame

from trickref.engine.actions import BLIND_NIL

from .. import draw as D
from .. import theme as T
from ..i18n import _
from ..widgets import Button
from .gamebase import GameScene


class HandoffScene(GameScene):
    name = "handoff"
    portrait_layout = True  # stacked on a portrait screen (ui.scene)
    letters_below = True  # the middle says whose turn it is

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.session.conceal()
        self.seat = self.session.needs_handoff()

    def layout(self) -> None:
        th = self.theme
        self.widgets = self.top_buttons()
        bw, bh = th.u(320), th.u(80)
        self.show = Button(_("Show my cards"), self.reveal, pygame.Rect((th.width - bw) // 2, th.height // 2 + th.u(20), bw, bh),
                           color=T.BUTTON_ON, role="large", name="Show my cards")
        self.widgets.append(self.show)
        self.blind = None
        if self.seat is not None and BLIND_NIL in self.session.table.legal(self.seat):
            self.blind = Button(_("Blind Nil (without looking)"), self.blind_nil,
                                pygame.Rect((th.width - bw) // 2, self.show.rect.bottom + th.pad * 2, bw, th.touch),
                                color=T.BAD, name="Blind Nil (without looking)")
            self.widgets.append(self.blind)

    def reveal(self) -> None:
        if self.seat is not None:
            self.session.reveal(self.seat)
        self.app.route()

    def blind_nil(self) -> None:
        from .confirm import ask_blind_nil

        def declare() -> None:
            if self.seat is not None:
                self.session.submit(self.seat, BLIND_NIL)
                self.app.route()

        if self.seat is not None:
            ask_blind_nil(self.app, declare)

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        self.draw_bar(surface)
        name = self.g["names"][self.seat] if self.seat is not None else _("the next player")
        D.text(surface, th, _("Pass the device to"), (th.width // 2, th.height // 2 - th.u(110)), "large", T.TEXT_DIM, "midbottom")
        D.text(surface, th, name, (th.width // 2, th.height // 2 - th.u(20)), "huge", T.ACCENT, "midbottom", bold=True,
               max_width=th.width - 4 * th.pad)
        D.text(surface, th, _("everyone else: look away"), (th.width // 2, th.height // 2 - th.u(12)), "small", T.TEXT_DIM,
               "midtop")

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["seat"] = self.seat
        return m
