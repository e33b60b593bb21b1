"""Scorekeeper mode's score sheet, corrections and game over.

The sheet and game-over scenes are the kiosk's own (scoresheet.ScoreSheetScene,
gameover.GameOverScene) reading a ``SheetSession`` instead of a dealt game's session, with
scorekeeping's buttons: next hand, undo (confirmed), a score correction (seat, points and a
reason, shown on the sheet and kept in the record), leaving.
"""

from __future__ import annotations

import functools
from typing import Any

import pygame

from trickref.engine.scorekeeper import ScoreSheet

from .. import draw as D
from .. import theme as T
from ..i18n import N_, _, ngettext
from ..scene import Scene
from ..setup import title
from ..widgets import Button, Stepper
from .gameover import GameOverScene
from .scorekeeper_entry import (
    ScorekeeperEntryScene,
    SheetSession,
    ask_leave,
    ask_undo,
    finish_sheet,
)
from .scoresheet import REASON_WORDS, ScoreSheetScene, reason_words


def correction_lines(sheet: ScoreSheet) -> list[str]:
    out = []
    for c in sheet.corrections:
        who = sheet.names[c["seat"]]
        if sheet.TEAMS:
            who += f" & {sheet.names[(c['seat'] + 2) % sheet.n]}"
        reason = f" ({reason_words(c['reason'])})" if c.get("reason") else ""
        out.append(_("{who} {points} after hand {hand}").format(who=who, points=f"{c['points']:+d}",
                                                                  hand=c["after_hand"]) + reason)
    return out


class ScorekeeperSheetScene(ScoreSheetScene):
    name = "scorekeeper_sheet"
    can_correct = False  # its own Correct, in its own bar

    def __init__(self, app: Any, sheet: ScoreSheet, entry_state: dict[str, Any] | None = None) -> None:
        super().__init__(app)
        self.sheet = sheet
        self.session = SheetSession(sheet)
        self.entry_state = entry_state  # what the entry screen held (kept when going back)

    def score_sheet(self) -> ScoreSheet:
        return self.sheet

    def fixer(self) -> Any:
        from .handfix import KeptFixer

        return KeptFixer(self.app, self.sheet, self.entry_state)

    def layout(self) -> None:
        th = self.theme
        self.widgets = []
        specs: list[tuple[str, Any, Any]] = [(N_("Menu"), self.menu, T.BUTTON_OFF),
                                             (N_("Correct"), self.correct, T.BUTTON_OFF),
                                             (N_("Undo"), self.ask_undo, T.BUTTON_OFF)]
        if self.sheet.over:
            specs.append((N_("Game over"), self.game_over, T.BUTTON_ON))
        else:
            specs.append((N_("Next hand"), self.next_hand, T.BUTTON_ON))
        buttons = [Button(_(text), fn, pygame.Rect(0, 0, th.u(100), th.touch), color=color, role="small",
                          name="Undo hand" if text == "Undo" else text) for text, fn, color in specs]
        self.place_bar(buttons)
        self._page_buttons()

    def heading(self) -> str:
        return _("Score sheet: {game}").format(game=title(self.sheet.GAME_ID))

    @property
    def game_title(self) -> str:
        return title(self.sheet.GAME_ID)

    def said(self) -> str:
        return ngettext("{n} hand entered; {dealer} deals next", "{n} hands entered; {dealer} deals next",
                        self.sheet.hand_number).format(n=self.sheet.hand_number, dealer=self.sheet.names[self.sheet.dealer])

    def title_h(self) -> int:
        th = self.theme
        return super().title_h() + th.font("small").get_height()

    @property
    def bar_height(self) -> int:
        if self.stacked():
            return super().bar_height
        return max(self.theme.touch + self.theme.u(8), self.title_h())

    def draw_heading(self, surface: Any) -> int:
        """The title and who deals next, left of the buttons (above them on a narrow screen)."""
        th = self.theme
        room = (th.width if self.stacked() else self._bar_left) - 3 * th.pad
        text = self.heading()
        if th.font("large", bold=True).size(text)[0] > room:
            text = self.game_title  # beside the buttons the game's name says enough
        r = D.text(surface, th, text, (2 * th.pad, th.pad), "large", T.TEXT, bold=True, max_width=room)
        said = self.said()
        if th.font("small").size(said)[0] > room and ";" in said:  # too long beside the buttons: who deals next
            said = said.split(";")[1].strip()
        if th.font("small").size(said)[0] <= room:  # else the entry screen says it
            D.text(surface, th, said, (2 * th.pad, r.bottom), "small", T.TEXT_DIM)
        return self.bar_height + th.u(2)

    def next_hand(self) -> None:
        scene = ScorekeeperEntryScene(self.app, self.sheet)
        if self.entry_state is not None and self.entry_state.get("hand") == self.sheet.hand_number:
            scene.restore(self.entry_state)
        self.app.switch(scene)

    def game_over(self) -> None:
        self.app.switch(ScorekeeperOverScene(self.app, self.sheet))

    def ask_undo(self) -> None:
        ask_undo(self.app, self.sheet)

    def menu(self) -> None:
        ask_leave(self.app, self.sheet)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["corrections"] = correction_lines(self.sheet)
        m["over"] = self.sheet.over
        m["totals"] = self.sheet.totals[:]
        return m


class ScorekeeperOverScene(GameOverScene):
    name = "scorekeeper_over"

    def __init__(self, app: Any, sheet: ScoreSheet) -> None:
        super().__init__(app)
        self.sheet = sheet
        self.session = SheetSession(sheet)
        from ..resume import save_scorekept

        # the finished sheet goes to the games folder (saving it again finds the same file); its
        # journal stays until the table leaves this screen, so "Undo last hand" still works
        self.saved, self.save_error = save_scorekept(sheet)

    def new_game(self) -> None:
        finish_sheet(self.app, self.sheet)  # saved already: this empties the journal
        super().new_game()

    def draw_content(self, surface: Any) -> None:
        super().draw_content(surface)
        th = self.theme
        bottom = min(b.rect.y for b in self.buttons()) - th.u(2)
        lines = self._saved_lines()
        for k, line in enumerate(lines):  # a long file name on a line of its own
            D.text(surface, th, line, (th.width // 2, bottom - (len(lines) - 1 - k) * th.font("small").get_height()),
                   "small", T.TEXT_DIM if self.saved is not None else T.BAD_TEXT, "midbottom", max_width=th.width - 4 * th.pad)

    def _saved_lines(self) -> list[str]:
        th = self.theme
        words = (_("saved as {file}").format(file=self.saved.name) if self.saved is not None
                 else _("could not save the game: {error}").format(error=self.save_error))
        room = th.width - 4 * th.pad
        font = th.font("small")
        out: list[str] = []
        for line in D.wrap(th, words, room, "small"):
            while font.size(line)[0] > room and "_" in line:  # a file name wider than the screen: cut at its _
                cut = max((i for i in range(len(line)) if line[i] == "_" and font.size(line[:i + 1])[0] <= room),
                          default=line.index("_"))
                out.append(line[:cut + 1])
                line = line[cut + 1:]
            out.append(line)
        return out[:3]

    def reserved_bottom(self) -> int:
        return len(self._saved_lines()) * self.theme.font("small").get_height() + self.theme.u(4)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["saved"] = None if self.saved is None else str(self.saved)
        m["save_error"] = self.save_error
        return m

    def layout(self) -> None:
        th = self.theme
        w, h = th.u(220), th.touch
        if th.width < th.u(600):  # narrow: three buttons side by side
            w = (th.width - 6 * th.pad) // 3
        labels = (_("Score sheet"), _("Undo last hand"), _("New game"))
        if any(th.font("body").size(t)[0] > w - th.u(8) for t in labels):  # tall enough for two-line labels
            h = max(th.touch, 2 * th.font("body").get_linesize() + th.u(4))
        y = th.height - h - th.pad
        mid = pygame.Rect((th.width - w) // 2, y, w, h)
        if th.width < th.u(600):  # narrow: Undo last hand on its own row above the other two
            w = (th.width - 6 * th.pad) // 2
            h = th.touch if all(th.font("body").size(t)[0] <= w - th.u(8) for t in labels) else h
            y = th.height - h - th.pad
            mid = pygame.Rect(2 * th.pad, y - th.pad - th.touch, th.width - 4 * th.pad, th.touch)
        self.widgets = [
            Button(_("Score sheet"), lambda: self.app.switch(ScorekeeperSheetScene(self.app, self.sheet)),
                   pygame.Rect(2 * th.pad, y, w, h)),
            Button(_("Undo last hand"), lambda: ask_undo(self.app, self.sheet), mid, color=T.BUTTON_OFF),
            Button(_("New game"), self.new_game, pygame.Rect(th.width - w - 2 * th.pad, y, w, h), color=T.BUTTON_ON),
        ]


class ScorekeeperCorrectScene(Scene):
    """A score correction: whose score, by how much, and why (kept on the sheet and record)."""

    name = "scorekeeper_correct"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    REASONS = ("miscounted", "revoke", "misdeal", "other")

    def __init__(self, app: Any, sheet: ScoreSheet, fixer: Any = None) -> None:
        super().__init__(app)
        self.sheet = sheet
        if fixer is None:
            from .handfix import KeptFixer

            fixer = KeptFixer(app, sheet)
        self.fixer = fixer  # where the correction goes (a kept sheet, or a refereed game's referee)
        self.seat: int | None = None
        self.points = 0
        self.reason = self.REASONS[0]
        self.error: str | None = None

    def layout(self) -> None:
        th = self.theme
        p, W, H = th.pad, th.width, th.height
        n = self.sheet.n
        narrow = th.width < th.u(600)  # a portrait screen
        top = self.header_bottom(self._words(), right=2 * th.pad if narrow else None) + th.u(4)
        per_row = min(n, 3 if narrow else 6)
        bw = (W - p * (per_row + 3)) // per_row
        self.seat_buttons = []
        for s in range(n):
            r, c = divmod(s, per_row)
            label = self.sheet.names[s]
            if self.sheet.TEAMS:
                label += f" & {self.sheet.names[(s + 2) % n]}"
            b = Button(label, functools.partial(self.pick, s),
                       pygame.Rect(2 * p + c * (bw + p), top + r * (th.touch + p), bw, th.touch), role="small",
                       name=f"seat {self.sheet.names[s]}")
            self.seat_buttons.append(b)
        y = top + (-(-n // per_row)) * (th.touch + p) + p
        self.points_label: tuple[int, int] | None = None
        if narrow:  # the word "Points" on its own line, two presets beside - and +
            self.points_label = (2 * p, y)
            y += th.font("body").get_height() + th.u(4)
        self.stepper = Stepper("" if narrow else _("Points"), self.points, self.set_points,
                               pygame.Rect(2 * p, y, W - 4 * p, th.touch + p),
                               presets=(-5, 5) if narrow else (-10, -5, 5, 10), minimum=-999, maximum=999,
                               fmt=lambda v: f"{(v or 0):+d}")
        y += th.touch + 3 * p
        per = 2 if narrow else len(self.REASONS)  # narrow: two rows of two
        rw = (W - 4 * p - p * (per - 1)) // per
        self.reason_buttons = [Button(_(REASON_WORDS[r]), functools.partial(self.pick_reason, r),
                                      pygame.Rect(2 * p + (i % per) * (rw + p), y + (i // per) * (th.touch + p), rw,
                                                  th.touch), role="small", name=f"reason {r}")
                               for i, r in enumerate(self.REASONS)]
        by = H - th.touch - p
        aw = min(max(th.u(260), th.font("body").size(_("Apply correction"))[0] + th.u(16)), W - 3 * p - th.u(160))
        bh = th.touch
        if th.font("body").size(_("Apply correction"))[0] > aw - th.u(8):  # its label on two lines
            bh = max(th.touch, 2 * th.font("body").get_linesize() + th.u(4))
            by = H - bh - p
        self.apply_btn = Button(_("Apply correction"), self.apply, pygame.Rect(W - p - aw, by, aw, bh),
                                color=T.BUTTON_ON)
        self.cancel_btn = Button(_("Cancel"), self.cancel, pygame.Rect(p, by, th.u(160), bh), color=T.BUTTON_OFF)
        self.widgets = [*self.seat_buttons, self.stepper, *self.reason_buttons, self.apply_btn, self.cancel_btn]
        self._sync()

    def _sync(self) -> None:
        for s, b in enumerate(self.seat_buttons):
            b.selected = s == self.seat
        for b in self.reason_buttons:
            b.selected = b.name == f"reason {self.reason}"
        self.stepper.value = self.points

    def pick(self, seat: int) -> None:
        self.seat = seat
        self.error = None
        self._sync()

    def set_points(self, v: int | None) -> None:
        self.points = int(v or 0)
        self.error = None

    def pick_reason(self, r: str) -> None:
        self.reason = r
        self._sync()

    def apply(self) -> None:
        if self.seat is None:
            self.error = _("Tap whose score to correct.")
            return
        try:
            self.fixer.apply_points(self.seat, self.points, self.reason)
        except ValueError as e:
            self.error = str(e)
            return
        self.fixer.reopen()

    def cancel(self) -> None:
        self.fixer.reopen()

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        self.title(surface, _("Score correction"), self._words(), right=2 * th.pad if th.width < th.u(600) else None)
        if self.points_label is not None:
            D.text(surface, th, _("Points"), self.points_label, "body", T.TEXT)
        if self.error:
            from ..referee_words import translate

            D.text(surface, th, translate(self.error), (2 * th.pad, self.apply_btn.rect.y - th.u(30)), "body", T.BAD_TEXT,
                   max_width=th.width - 4 * th.pad)

    def _words(self) -> str:
        return _("kept on the score sheet and in the record, with its reason")

    def _sub_lines(self, sub: str | None, room: int) -> list[str]:
        return D.wrap(self.theme, sub, room, "small") if sub else []  # as many lines as it takes

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(seat=self.seat, points=self.points, reason=self.reason, error=self.error)
        return m
