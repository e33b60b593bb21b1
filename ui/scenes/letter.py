"""What the referee told one seat only, read by that player alone on the shared screen.

The shared screen shows "Ben: a message for you (tap to see)" when the referee's words to Ben
name a card ("your replacements are J♠ 10♦"). A tap on it opens this screen: first the hand-off
("Pass the device to Ben", everyone else looks away; any hand on screen is hidden first), then,
on Ben's tap, his words in the kiosk's language; Done marks them read and puts the table back.
Only the letters there when he tapped are shown and marked read.
"""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..i18n import _
from ..referee_words import seat_words
from ..scene import Scene
from ..widgets import Button


class LetterScene(Scene):
    name = "letter"
    portrait_layout = True  # stacked on a portrait screen (ui.scene)
    # over the game: the kiosk's bots wait while the player reads, and no routing takes the
    # screen from under their eyes (ui.app.game_paused); drawn over the whole screen
    modal = True

    def __init__(self, app: Any, seat: int) -> None:
        super().__init__(app)
        self.session = app.session
        self.seat = seat
        self.session.conceal()  # the hand on screen (simulated mode) is not the reader's
        self.is_open = False  # the player tapped Show
        self.opened: list[Any] = []  # the letters shown then

    @property
    def who(self) -> str:
        names = list(self.session.table.public_view().get("game", {}).get("names") or [])
        return str(names[self.seat]) if self.seat < len(names) else _("Seat {n}").format(n=self.seat + 1)

    def layout(self) -> None:
        th = self.theme
        bw = min(th.u(320), th.width - 4 * th.pad)
        self.show = Button(_("Show the message"), self.open, pygame.Rect((th.width - bw) // 2, th.height // 2 + th.u(20),
                                                                         bw, th.u(80)),
                           color=T.BUTTON_ON, role="large", name="Show the message")
        self.back = Button(_("Back"), self.close, pygame.Rect((th.width - bw) // 2, self.show.rect.bottom + 2 * th.pad, bw,
                                                              th.touch), color=T.BUTTON_OFF, name="Back")
        dw = min(th.u(240), th.width - 4 * th.pad)
        self.done = Button(_("Done"), self.read, pygame.Rect((th.width - dw) // 2, th.height - th.pad - th.u(64), dw,
                                                             th.u(64)), color=T.BUTTON_ON, role="large", name="Done")
        self.widgets = [self.done] if self.is_open else [self.show, self.back]

    def open(self) -> None:
        self.opened = self.session.letters(self.seat)
        self.is_open = True
        self.relayout()

    def close(self) -> None:
        self.app.pop()
        self.app.route()

    def read(self) -> None:
        self.session.read_letters(self.opened)
        self.close()

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        surface.fill(T.FELT)  # nothing of the table below shows through
        if not self.is_open:
            D.text(surface, th, _("A message for"), (th.width // 2, th.height // 2 - th.u(150)), "large", T.TEXT_DIM,
                   "midbottom")
            D.text(surface, th, self.who, (th.width // 2, th.height // 2 - th.u(60)), "huge", T.ACCENT, "midbottom",
                   bold=True, max_width=th.width - 4 * th.pad)
            D.text(surface, th, _("Pass the device to them; everyone else: look away"),
                   (th.width // 2, th.height // 2 - th.u(48)), "small", T.TEXT_DIM, "midtop",
                   max_width=th.width - 4 * th.pad)
            return
        y = self.title(surface, _("For {name} only").format(name=self.who), right=2 * th.pad)
        width = th.width - 4 * th.pad
        line_h = th.text_px("large") * 5 // 4
        bottom = self.done.rect.y - th.pad
        for letter in self.opened:
            for line in D.wrap(th, self.words(letter), width, "large"):
                if y + line_h > bottom:
                    break
                D.text(surface, th, line, (2 * th.pad, y), "large", T.TEXT if letter.level == "info" else T.BAD_TEXT,
                       max_width=width)
                y += line_h
            y += th.u(8)
        if not self.opened:
            D.text(surface, th, _("Nothing new"), (2 * th.pad, y), "body", T.TEXT_DIM)

    def words(self, letter: Any) -> str:
        """The letter in the kiosk's language, without the name it starts with (the title says whose)."""
        said = seat_words(letter.text)
        for lead in (f"{self.who}: ", f"{self.who} : "):
            if said.startswith(lead):
                rest = said[len(lead):]
                return rest[:1].upper() + rest[1:]
        return said

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(seat=self.seat, who=self.who, open=self.is_open, opened=[self.words(x) for x in self.opened])
        return m
