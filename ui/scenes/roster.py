"""The table's players: pick who sits at a seat from the list (names are typed once, on the
on-screen keyboard, in any of the kiosk's languages' letters, and kept), and each player's
history at this table (games played and won per game, best score), from ``ui.memory``."""

from __future__ import annotations

import functools
from typing import Any

import pygame

from trickref.engine.games import GAME_IDS

from .. import draw as D
from .. import memory as M
from .. import theme as T
from ..i18n import _, ngettext
from ..scene import Scene
from ..setup import Setup, title
from ..widgets import Button, ScrollArea, Widget


def narrow(theme: T.Theme) -> bool:
    return theme.width < theme.u(600)


def summary_words(stats: dict[str, Any]) -> str:
    """'12 games, 5 won' over every game; 'no games yet'."""
    played = sum(s.played for s in stats.values())
    won = sum(s.won for s in stats.values())
    if not played:
        return _("no games yet")
    return ngettext("{n} game", "{n} games", played).format(n=played) + ", " + \
        ngettext("{n} won", "{n} won", won).format(n=won)


class _PlayerRow(Widget):
    """One name of the roster: tap it to seat the player; History shows their games."""

    def __init__(self, scene: RosterScene, name: str) -> None:
        super().__init__()
        self.scene = scene
        self.player = name
        self.pick = Button(name, functools.partial(scene.pick, name), name=f"pick {name}")
        self.info = Button(_("History"), functools.partial(scene.show_history, name), name=f"history {name}",
                           role="small", color=T.BUTTON_OFF)
        self.words = summary_words(M.history(scene.app, name))
        at = scene.setup.seat_of(name)
        if at is not None:
            self.words = _("seat {n}").format(n=at + 1) + " \u00b7 " + self.words
        self.pick.selected = at == scene.seat

    def _place(self, theme: T.Theme) -> None:
        r = self.rect
        info_w = max(theme.u(130), theme.font("small").size(self.info.text)[0] + 3 * theme.pad)
        self.info.rect = pygame.Rect(r.right - info_w, r.y, info_w, theme.touch)
        if narrow(theme):
            self.pick.rect = pygame.Rect(r.x, r.y, r.width - info_w - theme.pad, theme.touch)
        else:
            self.pick.rect = pygame.Rect(r.x, r.y, min(theme.u(300), r.width // 2), theme.touch)

    def children(self) -> list[Widget]:
        return [self.pick, self.info]

    def handle(self, event: Any) -> bool:
        return self.pick.handle(event) or self.info.handle(event)

    def draw(self, surface: Any, theme: T.Theme) -> None:
        self._place(theme)
        self.pick.draw(surface, theme)
        self.info.draw(surface, theme)
        if narrow(theme):  # under the name
            pos, room = (self.rect.x + theme.pad, self.pick.rect.bottom + theme.u(2)), self.rect.width - 2 * theme.pad
            D.text(surface, theme, self.words, pos, "small", T.TEXT_DIM, max_width=room)
        else:  # between the name and History
            x = self.pick.rect.right + 2 * theme.pad
            D.text(surface, theme, self.words, (x, self.pick.rect.centery), "small", T.TEXT_DIM, "midleft",
                   max_width=self.info.rect.x - theme.pad - x)


class RosterScene(Scene):
    """Who sits at ``seat``: the table's players, New player, Back."""

    name = "roster"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too

    def __init__(self, app: Any, seat: int = 0) -> None:
        super().__init__(app)
        self.setup: Setup = app.setup
        self.seat = seat
        M.reconcile(app)  # sheets kept since the history was last looked at

    def _sub(self) -> str:
        return _("tap a name to seat that player; a new player is added to the list once and kept")

    def _sub_lines(self, sub: str | None, room: int) -> list[str]:
        return D.wrap(self.theme, sub, room, "small") if sub else []  # as many lines as it takes

    def layout(self) -> None:
        th = self.theme
        top = self.header_bottom(self._sub(), right=2 * th.pad) + th.u(4)
        bw = th.u(220) if not narrow(th) else (th.width - 5 * th.pad) // 2
        y = th.height - th.touch - th.pad
        self.new_btn = Button(_("New player"), self.new_player, pygame.Rect(th.width - bw - 2 * th.pad, y, bw, th.touch),
                              color=T.BUTTON_ON, name="New player")
        self.back = Button(_("Back"), self.done, pygame.Rect(2 * th.pad, y, bw, th.touch), color=T.BUTTON_OFF,
                           name="Back")
        self.rows = [_PlayerRow(self, n) for n in M.roster(self.app)]
        self.area = ScrollArea(pygame.Rect(th.pad, top, th.width - 2 * th.pad, y - top - th.pad))
        row_h = th.touch + (th.font("small").get_linesize() + th.u(4) if narrow(th) else 0) + th.pad
        self.area.set_rows([(row_h, r) for r in self.rows])
        self.widgets = [self.area, self.new_btn, self.back]

    def pick(self, name: str) -> None:
        self.setup.seat_player(self.seat, name)
        self.setup.touch()
        self.done()

    def done(self) -> None:
        self.app.go("players")

    def show_history(self, name: str) -> None:
        self.app.go("player", player=name, seat=self.seat)

    def new_player(self) -> None:
        from ..keyboard import KeyboardScene
        from .confirm import ConfirmScene

        def done(text: str) -> None:
            if not text.strip():
                return
            kept = M.add_player(self.app, text)
            if kept is None:
                self.app.push(ConfirmScene(self.app, _("The player could not be added"),
                                           str(getattr(self.app, "memory_problem", "")), yes=_("OK"), no=None))
                return
            self.pick(kept)

        self.app.push(KeyboardScene(self.app, title=_("New player's name"), text="", on_done=done, max_len=14))

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        self.title(surface, _("Who sits at seat {n}?").format(n=self.seat + 1), self._sub(), right=2 * th.pad)
        if not self.rows:
            room = self.area.rect.width - 2 * th.pad
            y = self.area.rect.y + th.pad
            words = _("No players on the list yet. Tap New player to add the people who play at this table.")
            for line in D.wrap(th, words, room, "body"):
                y = D.text(surface, th, line, (self.area.rect.x + th.pad, y), "body", T.TEXT_DIM, max_width=room).bottom

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["players"] = [r.player for r in self.rows]
        m["words"] = [r.words for r in self.rows]
        m["seat"] = self.seat
        return m


class PlayerScene(Scene):
    """One player's games at this table, per game; taking them off the list."""

    name = "player"
    portrait_layout = True

    def __init__(self, app: Any, player: str = "", seat: int = 0) -> None:
        super().__init__(app)
        self.player = player
        self.seat = seat
        self.stats = M.history(app, player)

    def layout(self) -> None:
        th = self.theme
        bw = th.u(260) if not narrow(th) else (th.width - 5 * th.pad) // 2
        y = th.height - th.touch - th.pad
        self.widgets = [
            Button(_("Back"), self.back, pygame.Rect(2 * th.pad, y, bw, th.touch), color=T.BUTTON_OFF, name="Back"),
            Button(_("Remove from the list"), self.ask_remove, pygame.Rect(th.width - bw - 2 * th.pad, y, bw, th.touch),
                   color=T.BAD, role="small", name="Remove from the list"),
        ]

    def back(self) -> None:
        self.app.go("roster", seat=self.seat)

    def ask_remove(self) -> None:
        from .confirm import ConfirmScene

        def remove() -> None:
            M.forget_player(self.app, self.player)
            self.back()

        self.app.push(ConfirmScene(
            self.app, _("Remove {name} from the list?").format(name=self.player),
            _("The name is no longer offered for a seat. The games played are kept: adding the same name again brings "
              "them back."), yes=_("Remove"), no=_("Back"), on_yes=remove))

    def rows(self) -> list[tuple[str, str, str, str]]:
        """(game, played, won, best) for each game played, in the home screen's order."""
        out = []
        for g in GAME_IDS:
            s = self.stats.get(g)
            if s is None or not s.played:
                continue
            best = "-" if s.best is None else str(s.best)
            out.append((title(g), str(s.played), str(s.won), best))
        return out

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        top = self.title(surface, self.player, _("games finished at this table"), right=2 * th.pad) + th.pad
        rows = self.rows()
        room = th.width - 4 * th.pad
        if not rows:
            y = top
            for line in D.wrap(th, _("No finished games at this table yet."), room, "body"):
                y = D.text(surface, th, line, (2 * th.pad, y), "body", T.TEXT_DIM, max_width=room).bottom
            return
        heads = (_("game"), _("played"), _("wins"), _("best score"))
        small, body = th.font("small"), th.font("body")
        # the numbers' columns as wide as their heading or figures; the game's name takes the rest
        widths = [max(small.size(h)[0], *(body.size(r[i])[0] for r in rows)) + 2 * th.pad for i, h in
                  enumerate(heads) if i]
        name_w = room - sum(widths)
        xs = [2 * th.pad, 2 * th.pad + name_w]
        for w in widths[:-1]:
            xs.append(xs[-1] + w)
        two_lines = narrow(th)  # a portrait screen: the game's name on a line of its own
        for i, (x, h) in enumerate(zip(xs, heads, strict=True)):
            if two_lines and i == 0:
                continue
            D.text(surface, th, h, (x, top), "small", T.TEXT_DIM, max_width=name_w if i == 0 else widths[i - 1])
        y = top + small.get_linesize() + th.u(4)
        bottom = th.height - th.touch - 2 * th.pad
        line = body.get_linesize() + th.u(6)
        for r in rows:
            if y + line * (2 if two_lines else 1) > bottom:
                break
            if two_lines:
                D.text(surface, th, r[0], (xs[0], y), "body", T.TEXT, max_width=room)
                y += body.get_linesize()
                for x, v in zip(xs[1:], r[1:], strict=True):
                    D.text(surface, th, v, (x, y), "body", T.ACCENT)
            else:
                D.text(surface, th, r[0], (xs[0], y), "body", T.TEXT, max_width=name_w - th.pad)
                for x, v in zip(xs[1:], r[1:], strict=True):
                    D.text(surface, th, v, (x, y), "body", T.ACCENT)
            y += line

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["player"] = self.player
        m["rows"] = self.rows()
        return m
