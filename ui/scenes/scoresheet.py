"""The score sheet: every hand's points, running totals, bags, and a plot of the totals."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import plot
from .. import theme as T
from ..i18n import N_, _
from ..widgets import Button
from .gamebase import GameScene

# a correction's reason as a record keeps it -> its words on screen
REASON_WORDS = {"miscounted": N_("miscounted"), "revoke": N_("revoke"), "misdeal": N_("misdeal"), "other": N_("other")}

def columns(g: dict[str, Any]) -> tuple[list[str], list[int]]:
    """Column labels and the seat whose figures each column shows (one per team in partnerships)."""
    names = list(g.get("names", []))
    if g.get("game") == "partnership-spades" and len(names) == 4:
        return [f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"], [0, 1]
    return names, list(range(len(names)))


def correction_words(g: dict[str, Any], c: dict[str, Any]) -> str:
    """'Ben -5 after hand 3 (revoke)'; in partnerships the team's names."""
    names = list(g.get("names", []))
    seat = int(c.get("seat", 0))
    who = names[seat] if 0 <= seat < len(names) else _("seat {n}").format(n=seat + 1)
    if g.get("game") == "partnership-spades" and len(names) == 4:
        who += f" & {names[(seat + 2) % 4]}"
    reason = f" ({_(REASON_WORDS.get(c['reason'], c['reason']))})" if c.get("reason") else ""
    return _("{who} {points} after hand {hand}").format(who=who, points=f"{int(c.get('points', 0)):+d}",
                                                       hand=c.get("after_hand")) + reason


class ScoreSheetScene(GameScene):
    name = "scoresheet"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    show_undo = False

    def __init__(self, app: Any, back: str | None = None) -> None:
        super().__init__(app)
        self.back_to = back
        self.rows: list[list[str]] = []
        self.plot_legend: list[str] = []

    def layout(self) -> None:
        th = self.theme
        self.widgets = []
        self.back = Button(_("Back"), self.go_back, pygame.Rect(th.width - th.u(150) - th.pad, th.u(3), th.u(150), th.touch))
        self.widgets.append(self.back)

    def go_back(self) -> None:
        if self.back_to:
            self.app.go(self.back_to)
        else:
            self.app.route()

    def narrow(self) -> bool:
        """A canvas narrower than 600 units (a portrait screen): the sheet turned on its side, one
        row per player (team) and a column per hand, the plot under it."""
        return self.theme.width < self.theme.u(600)

    def header_room(self) -> tuple[int, int]:
        """(pixels kept free at the title's right, where the content may start at the earliest)."""
        return self.back.rect.width + self.theme.pad, self.back.rect.bottom + self.theme.pad

    def heading(self, surface: Any, text: str, right: int) -> int:
        """The title on as many lines as it takes left of ``right`` pixels (narrow screens); its bottom."""
        th = self.theme
        room = th.width - right - 3 * th.pad
        y = th.pad
        for line in D.wrap(th, text, room, "large"):
            y = D.text(surface, th, line, (2 * th.pad, y), "large", T.TEXT, bold=True, max_width=room).bottom
        return y + th.pad

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        g = self.g
        labels, seats = columns(g)
        results = g.get("hand_results", [])
        has_bags = g.get("bags") is not None
        if self.narrow():
            right, below = self.header_room()
            top = self.heading(surface, _("Score sheet: {game}").format(game=self.game_title), right)
            self.draw_sideways(surface, g, labels, seats, results, max(top, below))
            return
        title_bottom = self.title(surface, _("Score sheet: {game}").format(game=self.game_title))
        # table on the left, plot on the right (below on narrow tables with many players)
        n = len(labels)
        wide = n > 5
        top = max(title_bottom, self.bar_height)
        table_w = th.width - 2 * th.pad if wide else th.width * 11 // 20
        # the first column holds "hand", "total", "bags", "fix" and the hand numbers
        hand_w = max(th.u(54), max(th.font("small").size(w)[0] for w in (_("hand"), _("total"), _("bags"), _("fix"), "88"))
                     + th.u(10))
        colw = (table_w - hand_w) // max(1, n)
        line_h = th.font("small").get_height() + th.u(4)
        avail_h = (th.height - top - th.pad) // (2 if wide else 1)
        x0 = th.pad
        # header
        D.text(surface, th, _("hand"), (x0 + th.u(4), top), "small", T.TEXT_DIM)
        for k, lab in enumerate(labels):
            D.text(surface, th, lab, (x0 + hand_w + k * colw + colw // 2, top), "small", T.ACCENT, "midtop",
                   max_width=colw - th.u(4))
        y = top + line_h
        # one line per hand ("+28 = 37") when it fits the column, else points over total
        per_hand = 1 if wide and th.font("small").size("+26 = 126")[0] <= colw - th.u(4) else 2
        fixes_n = len(g.get("corrections") or self.t.get("corrections") or [])
        fit = max(1, (avail_h - (3 + fixes_n + min(2, fixes_n)) * line_h) // (line_h * per_hand))
        shown = results[-fit:]
        first = len(results) - len(shown)
        fixes = list(g.get("corrections") or self.t.get("corrections") or [])
        self.rows = []
        for i, r in enumerate(shown):
            pygame.draw.rect(surface, T.FELT_DARK if i % 2 else T.FELT, (x0, y, table_w, line_h * per_hand))
            D.text(surface, th, str(first + i + 1), (x0 + th.u(6), y + th.u(2)), "small", T.TEXT_DIM)
            row = [str(first + i + 1)]
            for k, s in enumerate(seats):
                pts, tot = r["points"][s], r["totals"][s]
                cx = x0 + hand_w + k * colw + colw // 2
                if per_hand == 1:
                    txt = f"{pts:+d} = {tot}"
                    D.text(surface, th, txt, (cx, y + th.u(2)), "small", T.TEXT, "midtop", max_width=colw - th.u(4))
                else:
                    txt = f"{pts:+d}"
                    D.text(surface, th, txt, (cx, y + th.u(2)), "small", T.TEXT_DIM, "midtop")
                    D.text(surface, th, str(tot), (cx, y + line_h + th.u(2)), "small", T.TEXT, "midtop", bold=True)
                row.append(f"{pts:+d}/{tot}")
            self.rows.append(row)
            y += line_h * per_hand
            for c in fixes:  # a correction made after this hand: its own row, so the totals add up
                if c.get("after_hand") != first + i + 1:
                    continue
                pygame.draw.rect(surface, T.PANEL, (x0, y, table_w, line_h))
                D.text(surface, th, _("fix"), (x0 + th.u(6), y + th.u(2)), "small", T.ACCENT)
                k = seats.index(c["seat"]) if c["seat"] in seats else c["seat"] % 2
                cx = x0 + hand_w + k * colw + colw // 2
                D.text(surface, th, f"{int(c['points']):+d}", (cx, y + th.u(2)), "small", T.ACCENT, "midtop",
                       max_width=colw - th.u(4))
                self.rows.append(["fix", *[f"{int(c['points']):+d}" if j == k else "" for j in range(len(seats))]])
                y += line_h
        if first:
            D.text(surface, th, _("(hands 1-{n} above)").format(n=first), (x0 + th.u(4), y), "small", T.TEXT_DIM)
            y += line_h
        pygame.draw.line(surface, T.TEXT_DIM, (x0, y + 1), (x0 + table_w, y + 1), 2)
        y += th.u(4)
        totals = g.get("totals", [])
        D.text(surface, th, _("total"), (x0 + th.u(4), y), "small", T.TEXT_DIM)
        for k, s in enumerate(seats):
            D.text(surface, th, str(totals[s] if s < len(totals) else 0), (x0 + hand_w + k * colw + colw // 2, y), "body",
                   T.ACCENT, "midtop", bold=True)
        y += line_h + th.u(4)
        if has_bags:
            bags = g.get("bags") or []
            D.text(surface, th, _("bags"), (x0 + th.u(4), y), "small", T.TEXT_DIM)
            for k, s in enumerate(seats):
                D.text(surface, th, str(bags[s]), (x0 + hand_w + k * colw + colw // 2, y), "small", T.TEXT, "midtop")
            y += line_h
        if fixes:  # what each correction was for, under the totals
            words = _("Corrections:") + " " + "; ".join(correction_words(g, c) for c in fixes)
            for text in D.wrap(th, words, table_w - th.u(8), "small")[:2]:
                D.text(surface, th, text, (x0 + th.u(4), y), "small", T.ACCENT, max_width=table_w - th.u(8))
                y += line_h
        if wide:
            prect = pygame.Rect(th.pad, max(y + th.pad, th.height // 2 + th.pad), th.width - 2 * th.pad, 0)
            prect.height = th.height - prect.y - th.pad
        else:
            prect = pygame.Rect(x0 + table_w + th.pad, top, th.width - table_w - 3 * th.pad, th.height - top - th.pad)
        # a dealt game's corrections are in the table's view, a scorekept sheet's in its own
        labs, series = plot.series_from(g, g.get("corrections") or self.t.get("corrections") or [])
        self.plot_legend = [f"{lab} {s[-1][1]}" for lab, s in zip(labs, series, strict=True)]
        plot.draw_plot(surface, th, prect, labs, series, g.get("options", {}).get("target"))

    def draw_sideways(self, surface: Any, g: dict[str, Any], labels: list[str], seats: list[int],
                      results: list[dict[str, Any]], top: int) -> None:
        """The sheet on a narrow screen: a row per player (team) with the last hands that fit, the
        total (and bags), then the corrections in words and the plot under it."""
        th = self.theme
        small = th.font("small")
        line_h = small.get_height() + th.u(8)
        x0, table_w = th.pad, th.width - 2 * th.pad
        totals = g.get("totals", [])
        bags = g.get("bags") if g.get("bags") is not None else None
        fixes = list(g.get("corrections") or self.t.get("corrections") or [])
        name_w = min(th.u(150), max([small.size(lab)[0] for lab in labels] + [small.size(_("hand"))[0]]) + th.u(12))
        tot_w = max(th.font("body", bold=True).size("-888")[0], small.size(_("total"))[0]) + th.u(10)
        bag_w = max(small.size("88")[0], small.size(_("bags"))[0]) + th.u(10) if bags is not None else 0
        cell_w = max(th.u(48), small.size("+888")[0] + th.u(10))
        fit = max(1, (table_w - name_w - tot_w - bag_w) // cell_w)
        shown = results[-fit:]
        first = len(results) - len(shown)
        # the header: "hand", the hands' numbers, "total" (and "bags")
        y = top
        x_tot = x0 + table_w - tot_w - bag_w
        D.text(surface, th, _("hand"), (x0 + th.u(4), y), "small", T.TEXT_DIM)
        for i in range(len(shown)):
            D.text(surface, th, str(first + i + 1), (x0 + name_w + i * cell_w + cell_w // 2, y), "small", T.TEXT_DIM,
                   "midtop")
        D.text(surface, th, _("total"), (x_tot + tot_w // 2, y), "small", T.TEXT_DIM, "midtop")
        if bags is not None:
            D.text(surface, th, _("bags"), (x_tot + tot_w + bag_w // 2, y), "small", T.TEXT_DIM, "midtop")
        y += line_h
        for k, s in enumerate(seats):
            pygame.draw.rect(surface, T.FELT_DARK if k % 2 else T.FELT, (x0, y, table_w, line_h))
            cy = y + line_h // 2
            D.text(surface, th, labels[k], (x0 + th.u(4), cy), "small", T.ACCENT, "midleft", max_width=name_w - th.u(8))
            for i, r in enumerate(shown):
                D.text(surface, th, f"{r['points'][s]:+d}", (x0 + name_w + i * cell_w + cell_w // 2, cy), "small",
                       T.TEXT, "center")
            D.text(surface, th, str(totals[s] if s < len(totals) else 0), (x_tot + tot_w // 2, cy), "body", T.ACCENT,
                   "center", bold=True)
            if bags is not None:
                D.text(surface, th, str(bags[s]), (x_tot + tot_w + bag_w // 2, cy), "small", T.TEXT, "center")
            y += line_h
        self.rows = [[str(first + i + 1), *[f"{r['points'][s]:+d}/{r['totals'][s]}" for s in seats]]
                     for i, r in enumerate(shown)]
        y += th.u(4)
        notes = []
        if first:
            notes.append(_("(hands 1-{n} not shown)").format(n=first))
        if fixes:
            notes.append(_("Corrections:") + " " + "; ".join(correction_words(g, c) for c in fixes))
        for text in D.wrap(th, "  ".join(notes), table_w - th.u(8), "small")[:3]:
            y = D.text(surface, th, text, (x0 + th.u(4), y), "small", T.ACCENT, max_width=table_w - th.u(8)).bottom
        prect = pygame.Rect(th.pad, y + th.pad, th.width - 2 * th.pad, 0)
        prect.height = th.height - prect.y - th.pad
        labs, series = plot.series_from(g, fixes)
        self.plot_legend = [f"{lab} {sr[-1][1]}" for lab, sr in zip(labs, series, strict=True)]
        if prect.height >= th.u(120):
            plot.draw_plot(surface, th, prect, labs, series, g.get("options", {}).get("target"))

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["rows"] = [list(r) for r in self.rows]
        m["totals"] = list(self.g.get("totals", []))
        m["plot_legend"] = list(self.plot_legend)
        return m
