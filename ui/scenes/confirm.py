"""A yes/no confirmation drawn over the current screen (undo, leaving a game)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..i18n import N_, _
from ..scene import Scene
from ..widgets import Button

ANSWERS = (N_("OK"), N_("Back"), N_("Leave"), N_("Undo"), N_("Cancel"), N_("Keep"), N_("Stay"), N_("Move aside"),
           N_("Continue"))  # words callers pass as answers


class ConfirmScene(Scene):
    name = "confirm"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    modal = True

    def __init__(self, app: Any, question: str | None = None, detail: str = "", yes: str | None = None,
                 no: str | None = "", on_yes: Callable[[], Any] | None = None) -> None:
        """A question with two answers, or (``no=None``) a message with one button."""
        super().__init__(app)
        self.question, self.detail, self.on_yes = question or _("Are you sure?"), detail, on_yes
        # the answers callers pass in English ("OK", "Back") are in the catalog too
        self.yes_text = _(yes) if yes else _("Yes")
        self.no_text = None if no is None else (_(no) if no else _("No"))

    def layout(self) -> None:
        th = self.theme
        w = min(th.u(560), th.width - 2 * th.pad)
        # tall enough for the question and the detail on as many lines as they take (a narrow
        # portrait screen wraps more), at least the 260 units of the landscape box
        q_lines = len(D.wrap(th, self.question, w - 4 * th.pad, "large"))
        d_lines = min(6, len(D.wrap(th, self.detail, w - 4 * th.pad, "body"))) if self.detail else 0
        need = (2 * th.pad + q_lines * th.font("large").get_height() + th.u(12) + d_lines * (th.font("body").get_height()
                + th.u(2)) + th.u(12) + th.touch + 2 * th.pad)
        h = min(th.height - 2 * th.pad, max(th.u(260), need))
        self.box = pygame.Rect((th.width - w) // 2, (th.height - h) // 2, w, h)
        bw = (w - 3 * th.pad * 2) // 2
        y = self.box.bottom - th.touch - 2 * th.pad
        if self.no_text is None:
            self.widgets = [
                Button(self.yes_text, self.yes, pygame.Rect(self.box.centerx - bw // 2, y, bw, th.touch), name="yes"),
            ]
            return
        self.widgets = [
            Button(self.no_text, self.app.pop, pygame.Rect(self.box.x + 2 * th.pad, y, bw, th.touch), color=T.BUTTON_OFF, name="no"),
            Button(self.yes_text, self.yes, pygame.Rect(self.box.right - 2 * th.pad - bw, y, bw, th.touch), color=T.BAD, name="yes"),
        ]

    def yes(self) -> None:
        self.app.pop()
        if self.on_yes:
            self.on_yes()

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        shade = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, (0, 0))
        D.panel(surface, self.box, T.PANEL, th.u(12), border=T.ACCENT)
        y = self.box.y + 2 * th.pad
        for line in D.wrap(th, self.question, self.box.width - 4 * th.pad, "large"):
            y = D.text(surface, th, line, (self.box.centerx, y), "large", T.TEXT, "midtop", bold=True,
                       max_width=self.box.width - 4 * th.pad).bottom
        y = max(y + th.u(12), self.box.y + th.u(64))
        bottom = self.box.bottom - th.touch - 2 * th.pad - th.u(4)
        for line in D.wrap(th, self.detail, self.box.width - 4 * th.pad, "body"):
            if y + th.font("body").get_height() > bottom:
                break
            r = D.text(surface, th, line, (self.box.centerx, y), "body", T.TEXT_DIM, "midtop",
                       max_width=self.box.width - 4 * th.pad)
            y = r.bottom + th.u(2)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["question"] = self.question
        return m


def ask_blind_nil(app: Any, declare: Callable[[], Any]) -> None:
    """Blind Nil is declared with one tap and binds the hand: ask before ``declare``."""
    app.push(ConfirmScene(app, _("Bid Blind Nil, without looking?"),
                          _("Your team scores +200 if you take no trick this hand, -200 if you take any. "
                            "You and your partner then pass each other two cards."),
                          yes=_("Blind Nil"), no=N_("Back"), on_yes=declare))
