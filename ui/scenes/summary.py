"""The end of a hand: what each player (team) took and scored, and the totals."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import tableview as TV
from .. import theme as T
from ..widgets import Button
from .gamebase import GameScene
from .scoresheet import columns


class SummaryScene(GameScene):
    name = "summary"
    show_undo = False

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.lines: list[str] = []

    def layout(self) -> None:
        th = self.theme
        self.widgets = self.top_buttons()
        w = th.u(260)
        self.next = Button("Next hand", self.next_hand, pygame.Rect(th.width - w - 2 * th.pad, th.height - th.u(72) - th.pad,
                           w, th.u(72)), color=T.BUTTON_ON, role="large")
        self.widgets.append(self.next)

    def next_hand(self) -> None:
        self.session.acknowledge_summary()
        self.session.conceal()
        self.app.route()

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        g = self.g
        self.draw_bar(surface)
        self.next.text = "Final scores" if g.get("over") else "Next hand"
        results = g.get("hand_results", [])
        if not results:
            return
        last = results[-1]
        labels, seats = columns(g)
        low_wins = g.get("game") in ("hearts", "cancellation-hearts")
        top = self.bar_height + th.pad
        D.text(surface, th, f"Hand {len(results)} scored", (2 * th.pad, top), "title", T.TEXT, bold=True)
        y = top + th.u(56)
        self.lines = []
        line_h = max(th.u(30), min(th.u(44), (th.height - y - th.u(90)) // max(1, len(seats))))
        role = "body" if line_h >= th.u(34) else "small"
        cols = (th.pad * 2, th.u(300), th.u(440), th.u(560))
        D.text(surface, th, "this hand", (cols[1], y - th.u(24)), "small", T.TEXT_DIM)
        D.text(surface, th, "total", (cols[2], y - th.u(24)), "small", T.TEXT_DIM)
        for k, s in enumerate(seats):
            pts, tot = last["points"][s], last["totals"][s]
            D.text(surface, th, labels[k], (cols[0], y), role, T.TEXT, max_width=cols[1] - cols[0] - th.pad)
            good = pts < 0 if low_wins else pts > 0
            bad = pts > 0 if low_wins else pts < 0
            D.text(surface, th, f"{pts:+d}", (cols[1], y), role, T.GOOD if good else (T.BAD if bad else T.TEXT))
            D.text(surface, th, str(tot), (cols[2], y), role, T.ACCENT, bold=True)
            extra = TV.seat_line(g, s) if g.get("game") != "partnership-spades" else ""
            if "bags" in last:
                extra = (extra + "  " if extra else "") + f"bags {last['bags'][s]}"
            D.text(surface, th, extra, (cols[3], y), "small", T.TEXT_DIM, max_width=th.width - cols[3] - th.pad)
            self.lines.append(f"{labels[k]}: {pts:+d} -> {tot}")
            y += line_h

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["lines"] = list(self.lines)
        return m
