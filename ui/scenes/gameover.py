"""Game over: the winner(s), final totals and the plot of the whole game; Rematch (the same
players, seats, bots and options), or a new game."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import plot
from .. import theme as T
from ..i18n import _, ngettext
from ..widgets import Button
from .gamebase import GameScene
from .scoresheet import columns


class GameOverScene(GameScene):
    name = "gameover"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    show_undo = False

    def enter(self) -> None:
        super().enter()
        from ..memory import count_table

        table = getattr(self.session, "table", None)
        if table is not None and hasattr(table, "host"):
            count_table(self.app, table)  # the players' history at this table (once per game)

    def layout(self) -> None:
        th = self.theme
        w = th.u(220) if th.width >= th.u(600) else (th.width - 8 * th.pad) // 3
        y = th.height - th.touch - th.pad
        self.widgets = [
            Button(_("Score sheet"), lambda: self.app.push_scene("scoresheet", back="gameover"),
                   pygame.Rect(2 * th.pad, y, w, th.touch), role="small" if w < th.u(200) else "body"),
            Button(_("Rematch"), self.rematch, pygame.Rect((th.width - w) // 2, y, w, th.touch), color=T.BUTTON_ON,
                   name="Rematch"),
            Button(_("New game"), self.new_game, pygame.Rect(th.width - w - 2 * th.pad, y, w, th.touch)),
        ]

    def rematch(self) -> None:
        """The same game again: the same players in the same seats, the same bots at the same
        levels, the same options (and that setup remembered for the next time)."""
        from ..resume import start_new_game

        table = self.session.table
        game, names = table.game, list(self.g.get("names", []))
        options = dict(table.state.options)
        bots = sorted(table.bots)
        levels = {s: lv for s, lv in getattr(table, "levels", {}).items() if s in table.bots}
        st = self.app.setup
        st.choose_game(game)
        st.players = len(names)
        st.names[: len(names)] = names
        st.bots = set(bots) | {s for s in st.bots if s >= len(names)}
        st.bot_levels.update(levels)
        st.options[game] = options
        st.touch()
        start_new_game(self.app, game, len(names), names, options, bots)

    def new_game(self) -> None:
        end = getattr(self.app, "end_session", None)
        if end is not None:
            end()  # the table's dealer and worker stop
        self.app.session = None
        self.app.go("home")

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        g = self.g
        names = g.get("names", [])
        winners = g.get("winners", [])
        who = " & ".join(names[s] for s in winners) or _("nobody")
        D.text(surface, th, _("Game over"), (th.width // 2, th.pad), "title", T.TEXT_DIM, "midtop")
        D.text(surface, th, ngettext("{who} wins!", "{who} win!", max(1, len(winners))).format(who=who), (th.width // 2, th.u(56)), "huge", T.ACCENT,
               "midtop", bold=True, max_width=th.width - 4 * th.pad)
        labels, seats = columns(g)
        totals = g.get("totals", [])
        line = "   ".join(f"{labels[k]} {totals[s]}" for k, s in enumerate(seats))
        D.text(surface, th, line, (th.width // 2, th.u(124)), "body", T.TEXT, "midtop", max_width=th.width - 4 * th.pad)
        bottom = min(b.rect.y for b in self.buttons()) - th.pad - self.reserved_bottom()
        prect = pygame.Rect(2 * th.pad, th.u(160), th.width - 4 * th.pad, bottom - th.u(160))
        labs, series = plot.series_from(g)
        plot.draw_plot(surface, th, prect, labs, series, g.get("options", {}).get("target"))

    def reserved_bottom(self) -> int:
        """Room kept above the buttons for a line under the plot (none here)."""
        return 0

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["winners"] = list(self.g.get("winners", []))
        return m
