"""Seats: who sits at each seat (picked from the table's players, ui.scenes.roster, where a new
name is typed once on the on-screen keyboard), whether a bot plays it, and at which level (rule
bot, search bot, strong bot: tap to change). Every change is remembered at once with the game's
setup (ui.memory), so a restart shows the same table."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..i18n import _
from ..scene import Scene
from ..setup import Setup, level_title
from ..widgets import Button, ScrollArea, Toggle, Widget


def narrow(theme: T.Theme) -> bool:
    """A canvas narrower than 600 layout units (a portrait screen laid out for it)."""
    return theme.width < theme.u(600)


def second_line(theme: T.Theme) -> int:
    """A seat's second line on a narrow screen: tall enough for the level on two lines."""
    return max(theme.touch, 2 * theme.font("small").get_linesize() + theme.u(6))


class _SeatRow(Widget):
    def __init__(self, scene: PlayersScene, seat: int) -> None:
        super().__init__()
        self.scene = scene
        self.seat = seat
        st = scene.setup
        self.name_btn = Button(st.names[seat], self.edit, name=f"name {seat}")
        self.bot = Toggle(_("bot"), seat in st.bots, self.set_bot, name=f"bot {seat}")
        self.level = Button(level_title(st.level_of(seat)), self.next_level, name=f"level {seat}")

    def edit(self) -> None:
        self.scene.app.go("roster", seat=self.seat)

    def set_bot(self, on: bool) -> None:
        st = self.scene.setup
        if on:
            st.bots.add(self.seat)
        else:
            st.bots.discard(self.seat)
        st.touch()

    def next_level(self) -> None:
        st = self.scene.setup
        level = st.next_level(self.seat)
        settings = getattr(self.scene.app, "settings", None)
        if settings is not None:
            settings.set_bot_level(self.seat, level)
        self.level.text = level_title(level)
        st.touch()

    def _is_bot(self) -> bool:
        return self.seat in self.scene.setup.bots

    def _place(self, theme: T.Theme) -> None:
        r = self.rect
        h = theme.touch
        y = r.y + (r.height - h) // 2
        label_w = max(theme.u(80), theme.font("body").size(_("Seat {n}").format(n=88))[0] + 2 * theme.pad)
        lw = theme.u(190)
        if narrow(theme):  # a portrait screen: the name on the first line, the bot switch and level under it
            y = r.y
            self.name_btn.rect = pygame.Rect(r.x + label_w, y, r.width - label_w, h)
            y2 = y + h + theme.pad
            # the switch, "on"/"off" and the word "bot" in the language, side by side
            bw = theme.font("body").size(self.bot.label)[0] + theme.u(116) + max(
                theme.font("small").size(w)[0] for w in (_("on"), _("off")))
            self.bot.rect = pygame.Rect(r.right - bw, y2, bw, h)
            self.level.role = "small"
            self.level.rect = pygame.Rect(r.x + theme.pad, y2, self.bot.rect.x - 2 * theme.pad - r.x, second_line(theme))
            return
        self.name_btn.rect = pygame.Rect(r.x + label_w, y, r.width - label_w - theme.u(240) - lw, h)
        self.level.rect = pygame.Rect(r.right - theme.u(230) - lw, y, lw, h)
        self.bot.rect = pygame.Rect(r.right - theme.u(220), y, theme.u(210), h)

    def children(self) -> list[Widget]:
        return [self.name_btn, self.level, self.bot] if self._is_bot() else [self.name_btn, self.bot]

    def handle(self, event: Any) -> bool:
        if self.name_btn.handle(event) or self.bot.handle(event):
            return True
        return self._is_bot() and self.level.handle(event)

    def draw(self, surface: Any, theme: T.Theme) -> None:
        self._place(theme)
        cy = self.rect.y + theme.touch // 2 if narrow(theme) else self.rect.centery
        D.text(surface, theme, _("Seat {n}").format(n=self.seat + 1), (self.rect.x + theme.pad, cy), "body",
               T.TEXT_DIM, "midleft")
        self.name_btn.text = self.scene.setup.names[self.seat]
        self.name_btn.draw(surface, theme)
        if self._is_bot():
            self.level.text = level_title(self.scene.setup.level_of(self.seat))
            self.level.draw(surface, theme)
        self.bot.draw(surface, theme)


class PlayersScene(Scene):
    name = "players"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.setup: Setup = app.setup

    def _sub(self) -> str:
        sub = _("tap a name to seat another player; bots play the seats marked bot")
        if "partnership" in self.setup.game:
            sub += "; " + _("partners sit opposite (seats 1+3, 2+4)")
        return sub

    def layout(self) -> None:
        th = self.theme
        top = self.header_bottom(self._sub(), right=2 * self.theme.pad) + th.u(4)
        self.rows = [_SeatRow(self, s) for s in range(self.setup.players)]
        self.area = ScrollArea(pygame.Rect(th.pad, top, th.width - 2 * th.pad, th.height - top - th.touch - 3 * th.pad))
        row_h = th.touch + second_line(th) + 2 * th.pad if narrow(th) else th.touch + th.pad
        self.area.set_rows([(row_h, r) for r in self.rows])
        self.back = Button(_("Done"), lambda: self.app.go("home"),
                           pygame.Rect(th.width - th.u(180) - 2 * th.pad, th.height - th.touch - th.pad, th.u(180), th.touch))
        self.widgets = [self.area, self.back]

    def _sub_lines(self, sub: str | None, room: int) -> list[str]:
        return D.wrap(self.theme, sub, room, "small") if sub else []  # as many lines as it takes

    def draw_content(self, surface: Any) -> None:
        self.title(surface, _("Players"), self._sub(), right=2 * self.theme.pad)
        if not [s for s in range(self.setup.players) if s not in self.setup.bots]:
            th = self.theme
            words = _("no human seat: the bots will play a whole game to watch")
            room = self.back.rect.x - 3 * th.pad
            lines = D.wrap(th, words, room, "small")
            lh = th.font("small").get_height()
            y = self.back.rect.centery - len(lines) * lh // 2
            for line in lines:
                y = D.text(surface, th, line, (2 * th.pad, y), "small", T.ACCENT, max_width=room).bottom
