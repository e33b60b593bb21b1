"""The score sheet: the paper pad of each game (ui.paperpad), a line per hand, the running
totals, and a plot of the totals.

The pad scrolls (drag it; it opens on the latest hands) and turns its pages of players («, »)
when they do not all fit across the screen (Cancellation Hearts at 11). A tap on a hand opens
that hand's page (ui.scenes.handfix.HandScene): its figures, what it first said when it was
corrected, and "Correct this hand". "Correct" corrects any earlier hand (the admin PIN first in
a refereed game) or, in keep-score mode, a score by points. The plot stands beside the pad
when there is room, else "Plot" shows it in the pad's place.
"""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import gameinfo as GI
from .. import paperpad as P
from .. import plot
from .. import theme as T
from ..i18n import _
from ..widgets import Button, Widget
from .gamebase import GameScene
from .handfix import REASON_WORDS, HandScene, TableFixer, pick_hand, reason_words, with_pin

__all__ = ["REASON_WORDS", "PadGrid", "ScoreSheetScene", "columns", "correction_words", "draw_mark", "reason_words"]



def columns(g: dict[str, Any]) -> tuple[list[str], list[int]]:
    """Column labels and the seat whose figures each column shows (one per team in partnerships)."""
    names = list(g.get("names", []))
    if GI.teams(g) and len(names) == 4:
        return [f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"], [0, 1]
    return names, list(range(len(names)))


def correction_words(g: dict[str, Any], c: dict[str, Any]) -> str:
    """'Ben -5 after hand 3 (revoke)'; in partnerships the team's names."""
    names = list(g.get("names", []))
    seat = int(c.get("seat", 0))
    who = names[seat] if 0 <= seat < len(names) else _("seat {n}").format(n=seat + 1)
    if GI.teams(g) and len(names) == 4:
        who += f" & {names[(seat + 2) % 4]}"
    reason = f" ({reason_words(c['reason'])})" if c.get("reason") else ""
    return _("{who} {points} after hand {hand}").format(who=who, points=f"{int(c.get('points', 0)):+d}",
                                                       hand=c.get("after_hand")) + reason


def draw_mark(surface: Any, th: T.Theme, kind: str, center: tuple[int, int], size: int) -> None:
    """A small drawn sign: "moon" (a crescent), "made" (a tick), "failed" (a cross)."""
    x, y = center
    r = max(3, size // 2)
    if kind == "moon":  # a disc with a disc cut out of it, on whatever is under it
        img = pygame.Surface((2 * r + 2, 2 * r + 2), pygame.SRCALPHA)
        pygame.draw.circle(img, T.ACCENT, (r + 1, r + 1), r)
        pygame.draw.circle(img, (0, 0, 0, 0), (r + 1 + r // 2, r + 1 - r // 3), r)
        surface.blit(img, (x - r - 1, y - r - 1))
    elif kind == "made":
        w = max(2, size // 6)
        pygame.draw.lines(surface, T.GOOD, False, [(x - r, y), (x - r // 3, y + r * 2 // 3), (x + r, y - r * 2 // 3)], w)
    elif kind == "failed":
        w = max(2, size // 6)
        pygame.draw.line(surface, T.BAD, (x - r, y - r), (x + r, y + r), w)
        pygame.draw.line(surface, T.BAD, (x - r, y + r), (x + r, y - r), w)


class PadGrid(Widget):
    """The pad's lines under its fixed headings: drag to scroll, tap a hand to open it. The
    scene sets ``pad``, the columns' geometry and the body's rect before each frame."""

    def __init__(self, on_hand: Any) -> None:
        super().__init__()
        self.on_hand = on_hand
        self.pad: P.Pad | None = None
        self.offset = 0
        self.at_bottom = True  # opens on the latest hands, and stays there as hands come
        self.heights: list[int] = []
        self.row_h = 0
        self.fix_h = 0
        self._down: tuple[int, int, int] | None = None  # (y, offset, line) of a press
        self._dragged = False
        self.pressed_line: int | None = None

    @property
    def content(self) -> int:
        return sum(self.heights)

    def most(self) -> int:
        return max(0, self.content - self.rect.height)

    def scroll(self, dy: int) -> None:
        self.offset = max(0, min(self.most(), self.offset + dy))
        self.at_bottom = self.offset >= self.most()

    def place(self, pad: P.Pad, row_h: int, fix_h: int) -> None:
        self.pad = pad
        self.row_h, self.fix_h = row_h, fix_h
        self.heights = [fix_h if ln.fix else row_h for ln in pad.lines]
        self.offset = self.most() if self.at_bottom else min(self.offset, self.most())

    def line_rects(self) -> list[pygame.Rect]:
        y = self.rect.y - self.offset
        out = []
        for h in self.heights:
            out.append(pygame.Rect(self.rect.x, y, self.rect.width, h))
            y += h
        return out

    def line_at(self, pos: tuple[int, int]) -> int | None:
        if self.pad is None or not self.rect.collidepoint(pos):
            return None
        for i, r in enumerate(self.line_rects()):
            if r.collidepoint(pos) and not self.pad.lines[i].fix:
                return i
        return None

    def handle(self, event: Any) -> bool:
        if not self.visible:
            return False
        if event.type == pygame.MOUSEWHEEL:
            self.scroll(-event.y * self.row_h)
            return True
        pos = getattr(event, "pos", None)
        if pos is None:
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.rect.collidepoint(pos):
            line = self.line_at(pos)
            self._down = (pos[1], self.offset, -1 if line is None else line)
            self._dragged = False
            self.pressed_line = line
            return True
        if event.type == pygame.MOUSEMOTION and self._down is not None:
            y0, off0, _line = self._down
            if abs(pos[1] - y0) > max(12, self.row_h // 4):
                self._dragged = True
                self.pressed_line = None
            if self._dragged:
                self.offset = max(0, min(self.most(), off0 + y0 - pos[1]))
                self.at_bottom = self.offset >= self.most()
            return True
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self._down is not None:
            _y0, _off0, line = self._down
            self._down = None
            self.pressed_line = None
            if not self._dragged and line >= 0 and self.line_at(pos) == line and self.pad is not None:
                self.on_hand(self.pad.lines[line].hand)
            return True
        return False


class ScoreSheetScene(GameScene):
    name = "scoresheet"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    show_undo = False
    can_correct = True  # "Correct" (a refereed game: with the admin PIN)

    def __init__(self, app: Any, back: str | None = None) -> None:
        super().__init__(app)
        self.back_to = back
        self.rows: list[list[str]] = []
        self.plot_legend: list[str] = []
        self.side_page = 0
        self.show_plot = False
        self.pages = 1
        self.grid = PadGrid(self.open_hand)

    # ------------------------------------------------------------------ the data
    def score_sheet(self) -> Any:
        """The engine's score sheet the pad shows (a dealt game's: from the view)."""
        if not self.view:
            self.refresh()
        return P.sheet_of_view(self.g, self.t)

    # ------------------------------------------------------------------ layout
    def layout(self) -> None:
        th = self.theme
        self.widgets = []
        self.back = Button(_("Back"), self.go_back, pygame.Rect(0, 0, th.u(120), th.touch), color=T.BUTTON_OFF,
                           role="small", name="Back")
        specs: list[Button] = [self.back]
        if self.can_correct and self.fixer().can_fix():
            specs.append(Button(_("Correct"), self.correct, pygame.Rect(0, 0, th.u(120), th.touch), color=T.BUTTON_OFF,
                                role="small", name="Correct"))
        self.place_bar(specs)
        self._page_buttons()

    def place_bar(self, buttons: list[Button]) -> None:
        """The bar's buttons (and "Plot") at the right of the title, or across a portrait screen
        under it; the pad's grid after them."""
        th = self.theme
        self.plot_btn = Button(_("Plot"), self.toggle_plot, pygame.Rect(0, 0, th.u(100), th.touch), color=T.BUTTON_OFF,
                               role="small", name="Plot")
        self.plot_btn.visible = False
        self._bar_rows = 1
        self._place(buttons)
        sheet = self.score_sheet()
        self._drawn_sheet = sheet
        self._plot_hidden = self.plot_place(sheet, *self.fitted(sheet, th.width - 2 * th.pad), self.bar_height)[0] is None
        if self._plot_hidden:  # "Plot" shows it in the pad's place
            self.plot_btn.visible = True
            buttons = [*buttons, self.plot_btn]
            self._place(buttons)
        self.widgets.extend(buttons)
        self.widgets.append(self.grid)

    def _place(self, buttons: list[Button]) -> None:
        th = self.theme
        gap = th.u(6)
        font = th.font("small")
        words = {b.name: max(font.size(b.text)[0], font.size(_("Sheet"))[0] if b is self.plot_btn else 0) for b in buttons}
        self._bar_rows = 1
        # beside the title when both fit, else under it (a portrait screen, large text with many buttons)
        beside = sum(max(th.u(96), words[b.name] + th.u(16)) + gap for b in buttons)
        self._stacked = self.narrow() or beside + self.title_min() + 3 * th.pad > th.width
        if self._stacked:  # across the screen under the title: one row, or two when the labels need it
            room = th.width - 2 * th.pad
            need = [words[b.name] + th.u(16) for b in buttons]
            per = len(buttons)
            if sum(need) + gap * (per - 1) > room or max(need) > (room - gap * (per - 1)) // per:
                per = -(-len(buttons) // 2)
                self._bar_rows = 2
            w = (room - gap * (per - 1)) // per
            for i, b in enumerate(buttons):
                r, c = divmod(i, per)
                b.rect = pygame.Rect(th.pad + c * (w + gap), self.title_h() + r * (th.touch + gap), w, th.touch)
            self._bar_left = th.width
        else:
            x = th.width - th.pad
            for b in reversed(buttons):
                w = max(th.u(96), words[b.name] + th.u(16))
                x -= w
                b.rect = pygame.Rect(x, th.u(3), w, th.touch)
                x -= gap
            self._bar_left = x

    def _page_buttons(self) -> None:
        th = self.theme
        w = max(th.touch, th.u(60))
        self.prev_btn = Button("\u00ab", lambda: self.turn_page(-1), pygame.Rect(0, 0, w, th.touch), color=T.BUTTON_OFF,
                               name="Previous players")
        self.next_btn = Button("\u00bb", lambda: self.turn_page(1), pygame.Rect(0, 0, w, th.touch), color=T.BUTTON_OFF,
                               name="Next players")
        self.widgets.extend([self.prev_btn, self.next_btn])

    def narrow(self) -> bool:
        """A canvas narrower than 600 units (a portrait screen): the buttons under the title."""
        return self.theme.width < self.theme.u(600)

    def stacked(self) -> bool:
        """The bar's buttons under the title (laid out by ``place_bar``)."""
        return getattr(self, "_stacked", self.narrow())

    def title_min(self) -> int:
        """The narrowest the title may be beside the buttons: the game's name."""
        return int(self.theme.font("large", bold=True).size(self.game_title)[0])

    def title_h(self) -> int:
        th = self.theme
        return th.pad + th.font("large", bold=True).get_height() + th.u(4)

    @property
    def bar_height(self) -> int:
        th = self.theme
        if self.stacked():
            rows = getattr(self, "_bar_rows", 1)
            return self.title_h() + rows * th.touch + (rows - 1) * th.u(6) + th.u(6)
        return th.touch + th.u(8)

    def heading(self) -> str:
        return _("Score sheet: {game}").format(game=self.game_title)

    def draw_heading(self, surface: Any) -> int:
        """The title left of the buttons (above them on a narrow screen); the content's top."""
        th = self.theme
        room = (th.width if self.stacked() else self._bar_left) - 3 * th.pad
        text = self.heading()
        if th.font("large", bold=True).size(text)[0] > room:
            text = self.game_title  # beside the buttons the game's name says enough
        D.text(surface, th, text, (2 * th.pad, th.pad), "large", T.TEXT, bold=True, max_width=room)
        return self.bar_height + th.u(2)

    # ------------------------------------------------------------------ actions
    def go_back(self) -> None:
        if self.back_to:
            self.app.go(self.back_to)
        else:
            self.app.route()

    def toggle_plot(self) -> None:
        self.show_plot = not self.show_plot
        self.needs_redraw = True

    def turn_page(self, step: int) -> None:
        self.side_page = (self.side_page + step) % max(1, self.pages)
        self.needs_redraw = True

    def fixer(self) -> Any:
        """What a correction goes to (ui.scenes.handfix): the referee, through the table."""
        return TableFixer(self.app, self.back_to)

    def open_hand(self, hand: int) -> None:
        self.app.push(HandScene(self.app, self.fixer(), hand))

    def correct(self) -> None:
        """Correct a hand: the admin PIN first (a refereed game), then which hand."""
        fixer = self.fixer()
        with_pin(self.app, fixer, lambda: pick_hand(self.app, fixer))

    # ------------------------------------------------------------------ drawing
    def draw_content(self, surface: Any) -> None:
        th = self.theme
        sheet = self.score_sheet()
        self._drawn_sheet = sheet
        top = self.draw_heading(surface)
        pad, widths = self.fitted(sheet, th.width - 2 * th.pad)
        self.rows = pad.rows()
        labs, series = plot.series_from(self._plot_view(sheet), sheet.corrections)
        self.plot_legend = [f"{lab} {s[-1][1]}" for lab, s in zip(labs, series, strict=True)]
        plot_room, area = self.plot_place(sheet, pad, widths, top)
        if (plot_room is None) != self._plot_hidden:  # the hands that came changed where the plot goes
            self.layout()
            top = self.bar_height + th.u(2)
            plot_room, area = self.plot_place(sheet, pad, widths, top)
        if plot_room is None and self.show_plot:
            self.plot_btn.text = _("Sheet")
            self.grid.visible = self.prev_btn.visible = self.next_btn.visible = False
            plot.draw_plot(surface, th, area, labs, series, sheet.options.get("target"))
            return
        self.plot_btn.text = _("Plot")
        self.grid.visible = True
        self.draw_pad(surface, pad, widths, area)
        if plot_room is not None:
            plot.draw_plot(surface, th, plot_room, labs, series, sheet.options.get("target"))

    def plot_place(self, sheet: Any, pad: P.Pad, widths: dict[str, Any], top: int) -> tuple[pygame.Rect | None, pygame.Rect]:
        """(where the plot goes: beside the pad, under it, or None (behind "Plot"); the pad's area)."""
        th = self.theme
        area = pygame.Rect(th.pad, top, th.width - 2 * th.pad, th.height - top - th.pad)
        need = sum(widths["side"]) + widths["hand"]
        if th.height <= th.width:
            if area.width - need >= th.u(260):
                room = pygame.Rect(area.x + need + th.pad, area.y, area.width - need - th.pad, area.height)
                area.width = need
                return room, area
            return None, area
        pad_h = self.pad_height(pad, widths)  # a portrait screen: under the pad, when it leaves room
        if area.height - pad_h >= th.u(220):
            room = pygame.Rect(area.x, area.y + pad_h + th.pad, area.width, area.height - pad_h - th.pad)
            area.height = pad_h
            return room, area
        return None, area

    def _plot_view(self, sheet: Any) -> dict[str, Any]:
        return {"game": sheet.GAME_ID, "names": sheet.names,
                "hand_results": [{"points": r["points"], "totals": r["totals"]} for r in sheet.hand_results]}

    def measure(self, pad: P.Pad) -> dict[str, Any]:
        """Each column's width (its widest text, headings included), per side the group's
        width (at least its name's, up to a limit: a long name is cut), and the hand column's."""
        th = self.theme
        small = th.font("small")
        bold = th.font("small", bold=True)
        gap = th.u(8)
        marks = {c.mark for ln in pad.lines for side in ln.cells for c in side}
        cols: list[int] = []
        for k, key in enumerate(pad.columns):
            texts = P.heading_lines(key) if len(pad.columns) > 1 else []
            for ln in pad.lines:
                for side in ln.cells:
                    texts.extend(side[k].lines)
            if key in ("score", "takentotal"):
                texts.extend(c.lines[-1] for c in pad.totals)
            if key == "bags" and pad.bags:
                texts.extend(pad.bags)
            w = max([th.u(24), *(small.size(t)[0] for t in texts if t)])
            if key in ("score", "takentotal"):  # the running totals are in bold
                w = max([w, *(bold.size(ln.cells[i][k].lines[-1])[0] for ln in pad.lines if not ln.fix
                              for i in range(len(ln.cells)))])
            if key in ("score", "takentotal") and pad.moon:
                w += th.u(20)  # the moon's mark beside the points
            if key in ("bid", "bidmade") and marks & {"made", "failed"}:
                w += th.u(18)  # a Nil's made/failed mark
            cols.append(w + gap)
        group = sum(cols)
        name_cap = max(group, th.u(130))
        sides = [min(name_cap, max(group, bold.size(s)[0] + gap)) for s in pad.sides]
        hand = max(small.size(t)[0] for t in (_("hand"), _("total"), _("bags"), _("fix"), "88*")) + th.u(12)
        return {"cols": cols, "side": sides, "hand": hand}

    def head_lines(self, pad: P.Pad) -> int:
        """How many lines the column headings take (none for a one-column pad)."""
        if len(pad.columns) == 1:
            return 0
        return max(len(P.heading_lines(k)) for k in pad.columns)

    def heads_h(self, pad: P.Pad) -> int:
        th = self.theme
        return th.font("small", bold=True).get_height() + th.u(4) + self.head_lines(pad) * th.font("small").get_height() \
            + (th.u(4) if self.head_lines(pad) else 0)

    def fitted(self, sheet: Any, room: int) -> tuple[P.Pad, dict[str, Any]]:
        """The pad and its widths: compact (a Spades pad's bid/made in one column) when the full
        one does not show every side across ``room`` pixels and the compact one does better."""
        pad = P.pad_of(sheet)
        widths = self.measure(pad)
        if sum(widths["side"]) + widths["hand"] > room and ("bid" in pad.columns or "taken" in pad.columns):
            small = P.pad_of(sheet, compact=True)
            w2 = self.measure(small)
            if len(self.pages_of(w2, room - w2["hand"])) < len(self.pages_of(widths, room - widths["hand"])):
                return small, w2
        return pad, widths

    def line_h(self) -> tuple[int, int]:
        """(a hand's line: two lines of text, at least a touch row; a score correction's)."""
        th = self.theme
        small = th.font("small").get_height()
        return max(th.u(44), 2 * small + th.u(8)), small + th.u(8)

    def foot_h(self, pad: P.Pad, width: int) -> int:
        th = self.theme
        h = th.font("body", bold=True).get_height() + th.u(8)
        if pad.bags is not None:
            h += th.font("small").get_height() + th.u(4)
        return h + self.notes_h(pad, width)

    def notes(self, pad: P.Pad) -> list[str]:
        out = []
        sheet = getattr(self, "_drawn_sheet", None)
        if sheet is not None and sheet.corrections:  # what each score correction was for
            g = {"game": sheet.GAME_ID, "names": sheet.names}
            out.append(_("Corrections:") + " " + "; ".join(correction_words(g, c) for c in sheet.corrections))
        if "takentotal" in pad.columns:
            out.append(_("Each hand: the hearts and Q\u2660 taken over the running total."))
        if pad.corrected:
            out.append(_("* corrected: tap the hand to see what it said before"))
        elif pad.lines:
            out.append(_("Tap a hand to see it or correct it."))
        if pad.moon:
            out.append(_("shot the moon"))
        return out

    def note_lines(self, pad: P.Pad, width: int) -> list[tuple[str, bool]]:
        """The notes under the totals, wrapped to ``width``: (line, whether the moon's mark goes before it)."""
        th = self.theme
        out = []
        for note in self.notes(pad):
            moon = note == _("shot the moon")
            lines = D.wrap(th, note, width - th.u(8) - (th.u(22) if moon else 0), "small")
            if len(lines) > 2:  # many corrections: the first ones, the rest on the hands' pages
                lines = [lines[0], self.fit(lines[1] + " " + lines[2], width - th.u(8))]
            out.extend((line, moon and i == 0) for i, line in enumerate(lines))
        return out

    def notes_h(self, pad: P.Pad, width: int) -> int:
        return (self.theme.font("small").get_height() + self.theme.u(2)) * len(self.note_lines(pad, width))

    def pad_height(self, pad: P.Pad, widths: dict[str, Any]) -> int:
        th = self.theme
        row_h, fix_h = self.line_h()
        body = sum(fix_h if ln.fix else row_h for ln in pad.lines)
        paged = len(self.pages_of(widths, th.width - 2 * th.pad - widths["hand"])) > 1
        return self.heads_h(pad) + max(row_h, body) + self.foot_h(pad, th.width - 2 * th.pad) + \
            (th.touch + th.u(4) if paged else 0) + th.u(8)

    def pages_of(self, widths: dict[str, Any], room: int) -> list[list[int]]:
        """The sides shown together, page by page (all of them when they fit)."""
        pages: list[list[int]] = [[]]
        used = 0
        for k, w in enumerate(widths["side"]):
            if pages[-1] and used + w > room:
                pages.append([])
                used = 0
            pages[-1].append(k)
            used += w
        return pages

    def draw_pad(self, surface: Any, pad: P.Pad, widths: dict[str, Any], area: pygame.Rect) -> None:
        th = self.theme
        small_h = th.font("small").get_height()
        row_h, fix_h = self.line_h()
        hand_w = widths["hand"]
        page_w = max(th.touch, th.u(60))
        pages = self.pages_of(widths, area.width - hand_w)
        self.pages = len(pages)
        self.side_page %= self.pages
        shown = pages[self.side_page]
        x_side = [area.x + hand_w]
        for k in shown:
            x_side.append(x_side[-1] + widths["side"][k])
        table_w = x_side[-1] - area.x
        # headings: the sides' names, then each group's columns
        y = area.y
        bold_h = th.font("small", bold=True).get_height()
        for i, k in enumerate(shown):
            x0, w = x_side[i], widths["side"][k]
            name = self.fit(pad.sides[k], w - th.u(8), bold=True)
            D.text(surface, th, name, (x0 + w // 2, y), "small", T.ACCENT, "midtop", bold=True)
            pygame.draw.line(surface, T.TEXT_DIM, (x0 + th.u(4), y + bold_h + th.u(1)), (x0 + w - th.u(4), y + bold_h + th.u(1)), 1)
        y += bold_h + th.u(4)
        col_x = self._col_x(widths, x_side, shown)
        heads = self.head_lines(pad)
        if heads:
            for i, _k in enumerate(shown):
                for j, key in enumerate(pad.columns):
                    cx, cw = col_x[i][j]
                    for m, word in enumerate(P.heading_lines(key)):
                        D.text(surface, th, word, (cx + cw // 2, y + m * small_h), "small", T.TEXT_DIM, "midtop")
            y += heads * small_h + th.u(4)
        D.text(surface, th, _("hand"), (area.x + th.u(4), y - small_h - th.u(4)), "small", T.TEXT_DIM)
        # the lines: between the headings and the totals, scrolling
        foot = self.foot_h(pad, area.width) + (th.touch + th.u(4) if self.pages > 1 else 0)
        body = pygame.Rect(area.x, y, table_w, max(row_h, area.bottom - foot - y))
        self.grid.rect = body
        self.grid.place(pad, row_h, fix_h)
        clip = surface.get_clip()
        surface.set_clip(body)
        for idx, (ln, r) in enumerate(zip(pad.lines, self.grid.line_rects(), strict=True)):
            if r.bottom < body.y or r.y > body.bottom:
                continue
            self.draw_line(surface, pad, ln, r, col_x, shown, idx)
        surface.set_clip(clip)
        if self.grid.most() > 0:  # the scroll bar: where these lines are among all of them
            frac = body.height / max(1, self.grid.content)
            bar_h = max(th.u(20), round(body.height * frac))
            top = body.y + round((body.height - bar_h) * self.grid.offset / max(1, self.grid.most()))
            pygame.draw.rect(surface, T.TEXT_DIM, (body.right - th.u(4), top, th.u(3), bar_h), border_radius=2)
        y = body.bottom + th.u(2)
        pygame.draw.line(surface, T.TEXT_DIM, (area.x, y), (area.x + table_w, y), 2)
        y += th.u(4)
        D.text(surface, th, _("total"), (area.x + th.u(4), y + th.u(2)), "small", T.TEXT_DIM)
        k_score = len(pad.columns) - 1  # the running total's column is the last
        for i, k in enumerate(shown):
            cx, cw = col_x[i][k_score]
            D.text(surface, th, pad.totals[k].lines[0], (cx + cw // 2, y), "body", T.ACCENT, "midtop", bold=True)
        y += th.font("body", bold=True).get_height() + th.u(6)
        if pad.bags is not None:
            k_bags = pad.columns.index("bags")
            D.text(surface, th, _("bags"), (area.x + th.u(4), y), "small", T.TEXT_DIM)
            for i, k in enumerate(shown):
                cx, cw = col_x[i][k_bags]
                D.text(surface, th, pad.bags[k], (cx + cw // 2, y), "small", T.TEXT, "midtop")
            y += small_h + th.u(4)
        for note, moon in self.note_lines(pad, area.width):
            x = area.x + th.u(4)
            if moon:
                draw_mark(surface, th, "moon", (x + th.u(8), y + small_h // 2), th.u(14))
                x += th.u(22)
            D.text(surface, th, note, (x, y), "small", T.TEXT_DIM)
            y += small_h + th.u(2)
        self.prev_btn.visible = self.next_btn.visible = self.pages > 1
        if self.pages > 1:  # a row of its own: which players these are, and the buttons to the others
            by = max(y + th.u(2), area.bottom - th.touch)
            right = area.x + max(table_w, min(area.width, table_w + 2 * page_w + 2 * th.pad))
            self.next_btn.rect = pygame.Rect(right - page_w, by, page_w, th.touch)
            self.prev_btn.rect = pygame.Rect(self.next_btn.rect.x - th.pad - page_w, by, page_w, th.touch)
            first, last = shown[0] + 1, shown[-1] + 1
            words = (_("players {first}-{last} of {n}") if last > first else _("player {first} of {n}")).format(
                first=first, last=last, n=len(pad.sides))
            D.text(surface, th, words, (area.x + th.u(4), by + th.touch // 2), "small", T.TEXT_DIM, "midleft",
                   max_width=self.prev_btn.rect.x - area.x - 2 * th.pad)

    def fit(self, text: str, room: int, bold: bool = False) -> str:
        """``text`` cut with an ellipsis to ``room`` pixels (small text is never shrunk)."""
        font = self.theme.font("small", bold)
        if font.size(text)[0] <= room:
            return text
        while text and font.size(text + "\u2026")[0] > room:
            text = text[:-1]
        return text.rstrip() + "\u2026"

    def _col_x(self, widths: dict[str, Any], x_side: list[int], shown: list[int]) -> list[list[tuple[int, int]]]:
        """Per side shown, each column's (x, width), centred in the side's group."""
        out = []
        group = sum(widths["cols"])
        for i, k in enumerate(shown):
            x = x_side[i] + (widths["side"][k] - group) // 2
            cols = []
            for w in widths["cols"]:
                cols.append((x, w))
                x += w
            out.append(cols)
        return out

    def draw_line(self, surface: Any, pad: P.Pad, ln: P.Line, r: pygame.Rect, col_x: list[list[tuple[int, int]]],
                  shown: list[int], idx: int) -> None:
        th = self.theme
        small_h = th.font("small").get_height()
        if ln.fix:
            pygame.draw.rect(surface, T.PANEL, r)
            D.text(surface, th, _("fix"), (r.x + th.u(6), r.centery), "small", T.ACCENT, "midleft")
            for i, k in enumerate(shown):
                for j, cell in enumerate(ln.cells[k]):
                    if cell.lines:
                        cx, cw = col_x[i][j]
                        D.text(surface, th, cell.lines[0], (cx + cw // 2, r.centery), "small", T.ACCENT, "center")
            return
        pressed = self.grid.pressed_line == idx
        back = T.BUTTON_DOWN if pressed else (T.FELT_DARK if ln.hand % 2 == 0 else T.FELT)
        pygame.draw.rect(surface, back, r)
        if ln.corrected:
            pygame.draw.rect(surface, T.ACCENT, (r.x, r.y + th.u(2), th.u(3), r.height - th.u(4)))
        with D.owning("target", surface, r, f"hand {ln.hand}"):
            label = f"{ln.hand}*" if ln.corrected else str(ln.hand)
            D.text(surface, th, label, (r.x + th.u(8), r.centery), "small", T.ACCENT if ln.corrected else T.TEXT_DIM,
                   "midleft", bold=ln.corrected)
            two = r.height >= 2 * small_h + th.u(4)
            for i, k in enumerate(shown):
                for j, cell in enumerate(ln.cells[k]):
                    cx, cw = col_x[i][j]
                    self.draw_cell(surface, cell, pygame.Rect(cx, r.y, cw, r.height), two)

    def draw_cell(self, surface: Any, cell: P.Cell, r: pygame.Rect, two: bool) -> None:
        th = self.theme
        small_h = th.font("small").get_height()
        lines = [x for x in cell.lines] if two else [cell.lines[-1]] if cell.lines else []
        if not lines:
            return
        top = r.centery - (small_h * len(lines)) // 2
        cx = r.centerx
        if cell.mark == "moon":
            cx += th.u(10)
        elif cell.mark in ("made", "failed"):
            cx -= th.u(9)
        for i, text in enumerate(lines):
            if not text:
                continue
            last = i == len(lines) - 1
            bold = cell.bold_last and last and len(lines) > 1
            color = T.TEXT if bold else cell.color
            rr = D.text(surface, th, text, (cx, top + i * small_h), "small", color, "midtop", bold=bold)
            if i == 0 and cell.mark == "moon":
                draw_mark(surface, th, "moon", (rr.x - th.u(10), rr.centery), th.u(14))
            elif i == 0 and cell.mark in ("made", "failed"):
                draw_mark(surface, th, cell.mark, (r.right - th.u(12), rr.centery), th.u(12))

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["rows"] = [list(r) for r in self.rows]
        m["totals"] = list(self.g.get("totals", []))
        m["plot_legend"] = list(self.plot_legend)
        m["pages"] = self.pages
        m["side_page"] = self.side_page
        return m
