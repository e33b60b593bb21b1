"""Scorekeeper mode on the kiosk: a table playing with its own cards enters each hand's counts.

There is no dealer, no seat panel and no session: the kiosk only keeps the score sheet
(engine.scorekeeper.ScoreSheet, which scores with the games' own code). One row per seat with
steppers for what the rules score (bids and tricks, hearts, Q♠ counts), the Q♠ (and omnibus)
holder chosen by tapping a button on that seat's row, Double/Blind Nil toggles only where the
rules allow them, a running check line ("tricks: 12 of 13") and, when the entry cannot be
right, the reason in words. A moon offers the shooter's two choices. "Enter hand" scores it
and shows the score sheet; the last hand can be undone (with a confirmation) and re-entered.

The scenes are built directly (not through ``ui.scenes.make``) because they carry the sheet.
"""

from __future__ import annotations

import functools
from typing import Any

import pygame

from engine.scorekeeper import EntryError, ScoreSheet

from .. import draw as D
from .. import theme as T
from ..scene import Scene
from ..widgets import Button, Stepper, Widget


def start_scorekeeping(app: Any) -> ScorekeeperEntryScene:
    """From the home screen's choices (game, players, names, rule options): a new sheet and
    its entry screen."""
    st = app.setup
    sheet = ScoreSheet(st.game, st.players, st.game_options(), 0, st.seat_names())
    app.end_session()  # no dealt game runs meanwhile
    scene = ScorekeeperEntryScene(app, sheet)
    app.switch(scene)
    return scene


def sheet_view(sheet: ScoreSheet) -> dict[str, Any]:
    """The sheet in the shape of a game's public view, for the shared score-sheet drawing."""
    return {
        "game": sheet.GAME_ID,
        "names": list(sheet.names),
        "options": dict(sheet.options),
        "hand_results": [{"points": r["points"], "totals": r["totals"]} for r in sheet.hand_results],
        "hand_number": sheet.hand_number,
        "totals": sheet.totals[:],
        "bags": None if sheet.bags is None else sheet.bags[:],
        "over": sheet.over,
        "winners": sheet.winners[:],
        "corrections": [dict(c) for c in sheet.corrections],
        "phase": "over" if sheet.over else "deal",
    }


class SheetSession:
    """Stands in for ui.session.Session where the shared scenes read one (view, title)."""

    def __init__(self, sheet: ScoreSheet) -> None:
        self.sheet = sheet
        self.title = f"{sheet.TITLE} (keeping score)"

    def view(self) -> dict[str, Any]:
        return {"game": sheet_view(self.sheet), "table": {}}


class CountStepper(Stepper):
    """A compact -, value, + stepper for one seat's count (no label drawn; the column header
    says what it counts). Buttons are named '<seat name> <what> -/+' for tests."""

    def layout(self, theme: T.Theme) -> None:
        r = self.rect
        b = min(theme.touch, r.height)
        val_w = max(theme.u(34), r.width - 2 * b)
        self.minus.rect = pygame.Rect(r.x, r.y + (r.height - b) // 2, b, b)
        self.plus.rect = pygame.Rect(r.x + b + val_w, self.minus.rect.y, b, b)
        self._label_right = r.x

    def draw(self, surface: Any, theme: T.Theme) -> None:
        if not self.visible:
            return
        self.layout(theme)
        self.minus.enabled = self.enabled and (self.minimum is None or (self.value or 0) > self.minimum)
        self.plus.enabled = self.enabled and (self.maximum is None or (self.value or 0) < self.maximum)
        self.minus.draw(surface, theme)
        self.plus.draw(surface, theme)
        mid = ((self.minus.rect.right + self.plus.rect.x) // 2, self.rect.centery)
        D.text(surface, theme, self.fmt(self.value), mid, "large", T.ACCENT if self.enabled else T.TEXT_DIM, "center")

    @staticmethod
    def width_for(theme: T.Theme) -> int:
        return 2 * theme.touch + theme.u(40)


class ScorekeeperEntryScene(Scene):
    """One hand's entry: rows of steppers, the check line, the moon choice, Enter hand."""

    name = "scorekeeper_entry"

    def __init__(self, app: Any, sheet: ScoreSheet, entries: dict[str, Any] | None = None) -> None:
        super().__init__(app)
        self.sheet = sheet
        self.entries: dict[str, Any] = entries if entries is not None else sheet.blank()
        self.refusal: str | None = None  # the reason of the last refused "Enter hand"
        self.texts: list[str] = []

    # ------------------------------------------------------------------ layout
    def _fields(self) -> list[dict[str, Any]]:
        """Per-seat fields shown as columns (counts, toggles, holders); 'number' fields go on
        the extra 'nobody' row."""
        return [f for f in self.sheet.schema() if f["kind"] in ("count", "toggle", "holder")]

    def layout(self) -> None:
        th = self.theme
        sheet = self.sheet
        n = sheet.n
        W, H, p = th.width, th.height, th.pad
        self.bar_h = th.touch + th.u(8)
        self.header_h = th.font("small").get_height() + th.u(4)
        bottom_h = th.touch + 2 * p  # the check line and reason sit beside Clear / Enter hand
        self.bottom_y = H - bottom_h
        numbers = [f for f in sheet.schema() if f["kind"] == "number"]
        rows = n + (1 if numbers else 0)
        top = self.bar_h + self.header_h
        avail = self.bottom_y - top - p
        cols = 1
        while (avail // -(-rows // cols)) < th.touch + th.u(2) and cols < 3:
            cols += 1
        per_col = -(-rows // cols)
        row_h = min(th.u(70), avail // per_col)
        col_w = (W - p * (cols + 1)) // cols
        self.cols, self.row_h, self.col_w, self.top = cols, row_h, col_w, top
        self.widgets = []
        self.row_widgets: list[dict[str, Widget]] = []
        self.name_rects: list[pygame.Rect] = []
        self.col_x: list[list[tuple[str, int, int]]] = []  # per column: (label, x, width) headers
        fields = self._fields()
        cw = CountStepper.width_for(th)
        holder_w = max(th.touch, th.u(84))
        toggle_w = th.u(110)

        def widths() -> list[int]:
            out = []
            for f in fields:
                out.append(cw if f["kind"] == "count" else toggle_w if f["kind"] == "toggle" else holder_w)
            return out

        fw = widths()
        name_w = max(th.u(60), col_w - sum(fw) - p * len(fw))
        # squeeze the steppers' value field when the column is narrow (11-seat tables)
        if name_w < th.u(80) and any(f["kind"] == "count" for f in fields):
            cw = 2 * th.touch + th.u(30)
            fw = widths()
            name_w = max(th.u(50), col_w - sum(fw) - p * len(fw))
        for c in range(cols):
            x = p + c * (col_w + p) + name_w + p
            heads = []
            for f, w in zip(fields, fw, strict=True):
                heads.append((f["label"], x, w))
                x += w + p
            self.col_x.append(heads)
        for s in range(n):
            c, r = divmod(s, per_col)
            x0 = p + c * (col_w + p)
            y = top + r * row_h
            self.name_rects.append(pygame.Rect(x0, y, name_w, row_h))
            x = x0 + name_w + p
            ws: dict[str, Widget] = {}
            for f, w in zip(fields, fw, strict=True):
                rect = pygame.Rect(x, y + (row_h - min(row_h, th.touch)) // 2, w, min(row_h, th.touch))
                ws[f["key"]] = self._make(f, s, rect)
                x += w + p
            self.row_widgets.append(ws)
            self.widgets.extend(ws.values())
        self.nobody_widgets: dict[str, Widget] = {}
        if numbers:
            c, r = divmod(n, per_col)
            x0 = p + c * (col_w + p)
            y = top + r * row_h
            self.nobody_rect = pygame.Rect(x0, y, name_w, row_h)
            heads = self.col_x[c]
            for f in numbers:
                # under the column of the same thing (hearts under hearts, Q♠ under Q♠)
                col = next((h for h in heads if f["label"].lower().startswith(h[0].lower())), heads[-1])
                rect = pygame.Rect(col[1], y + (row_h - min(row_h, th.touch)) // 2, cw, min(row_h, th.touch))
                st = CountStepper(f"nobody {f['key']}", int(self.entries.get(f["key"]) or 0),
                                  functools.partial(self._set_number, f["key"]), rect,
                                  minimum=f["min"], maximum=f["max"])
                self.nobody_widgets[f["key"]] = st
                self.widgets.append(st)
        # the top bar
        bw = th.u(112)
        x = W - p
        self.bar_buttons: list[Button] = []
        middle = ("Undo", self.ask_undo, "Undo hand")
        if not sheet.can_undo():  # before the first hand: who deals it (tap to pass it on)
            middle = (f"Dealer: {sheet.names[sheet.dealer]}", self.next_dealer, "First dealer")
        for text, fn, name in (("Menu", self.menu, "Menu"), middle, ("Sheet", self.show_sheet, "Sheet")):
            x -= bw
            b = Button(text, fn, pygame.Rect(x, th.u(3), bw, th.touch), color=T.BUTTON_OFF, role="small", name=name)
            self.bar_buttons.append(b)
            x -= th.u(6)
        self._bar_right = W - x
        # the bottom row: moon choices (when a moon is entered), Clear, Enter hand
        by = H - th.touch - p
        enter_w = th.u(200)
        self.enter_btn = Button("Enter hand", self.enter_hand, pygame.Rect(W - p - enter_w, by, enter_w, th.touch),
                                color=T.BUTTON_ON, name="Enter hand")
        self.clear_btn = Button("Clear", self.clear, pygame.Rect(self.enter_btn.rect.x - p - th.u(110), by, th.u(110),
                                                                 th.touch), color=T.BUTTON_OFF, name="Clear")
        self.line_w = self.clear_btn.rect.x - 3 * p
        mw = (self.clear_btn.rect.x - 3 * p) // 2
        self.moon_self = Button("", functools.partial(self._set_moon, "self"), pygame.Rect(p, by, mw, th.touch),
                                role="small", name="moon self")
        self.moon_others = Button("", functools.partial(self._set_moon, "others"),
                                  pygame.Rect(2 * p + mw, by, mw, th.touch), role="small", name="moon others")
        self.widgets.extend([*self.bar_buttons, self.moon_self, self.moon_others, self.clear_btn, self.enter_btn])
        self._sync()

    def _make(self, f: dict[str, Any], seat: int, rect: pygame.Rect) -> Widget:
        who = self.sheet.names[seat]
        key = f["key"]
        if f["kind"] == "count":
            return CountStepper(f"{who} {key}", int(self.entries[key][seat]),
                                functools.partial(self._set_count, key, seat), rect,
                                minimum=f["min"], maximum=f["max"])
        if f["kind"] == "toggle":
            return Button(f["label"], functools.partial(self._toggle, key, seat), rect, role="small",
                          name=f"{who} {f['label']}")
        return Button(f["label"], functools.partial(self._hold, key, seat), rect, role="small",
                      name=f"{who} {f['label']}", color=T.BUTTON_OFF)

    # ------------------------------------------------------------------ changes
    def _set_count(self, key: str, seat: int, v: int | None) -> None:
        self.entries[key][seat] = int(v or 0)
        field = next(f for f in self.sheet.schema() if f["key"] == key)
        if self.sheet.n == 2 and "sum" in field:  # two players: the other count follows
            self.entries[key][1 - seat] = max(0, min(field["max"], field["sum"] - int(v or 0)))
        if key == "bids" and v:
            for nk in ("double_nil", "blind_nil"):
                if nk in self.entries:
                    self.entries[nk][seat] = False
        self._changed()

    def _set_number(self, key: str, v: int | None) -> None:
        self.entries[key] = int(v or 0)
        self._changed()

    def _toggle(self, key: str, seat: int) -> None:
        on = not self.entries[key][seat]
        self.entries[key][seat] = on
        if on:
            self.entries["bids"][seat] = 0
        self._changed()

    def _hold(self, key: str, seat: int) -> None:
        self.entries[key] = None if self.entries.get(key) == seat else seat
        self._changed()

    def _set_moon(self, choice: str) -> None:
        self.entries["moon"] = choice
        self._changed()

    def _changed(self) -> None:
        self.refusal = None
        if "moon" in self.entries and self.sheet.moon_shooter(self.entries) is None:
            self.entries["moon"] = None
        self._ensure_layout()
        self._sync()
        self.needs_redraw = True

    def _sync(self) -> None:
        """Widgets show the entries; Nil toggles show only where the rules allow them."""
        sheet, e = self.sheet, self.entries
        for s, ws in enumerate(self.row_widgets):
            for key, w in ws.items():
                if isinstance(w, CountStepper):
                    w.value = int(e[key][s])
                elif key in ("double_nil", "blind_nil") and isinstance(w, Button):
                    partner_on = key == "blind_nil" and bool(e[key][(s + 2) % sheet.n])
                    w.visible = sheet.nil_allowed(s) and not partner_on
                    w.selected = bool(e[key][s])
                    if not w.visible and e[key][s]:
                        e[key][s] = False
                elif isinstance(w, Button):
                    w.selected = e.get(key) == s
        for key, w in self.nobody_widgets.items():
            if isinstance(w, CountStepper):
                w.value = int(e.get(key) or 0)
        shooter = sheet.moon_shooter(e)
        self.moon_self.visible = self.moon_others.visible = shooter is not None
        if shooter is not None:
            who = sheet.names[shooter]
            self.moon_self.text = f"{who} {sheet.options['moon_self']:+d}"
            self.moon_others.text = f"Everyone else {sheet.options['moon_others']:+d}"
            self.moon_self.selected = e.get("moon") == "self"
            self.moon_others.selected = e.get("moon") == "others"
        self.enter_btn.enabled = not sheet.over

    def next_dealer(self) -> None:
        sheet = self.sheet
        sheet.set_first_dealer((sheet.first_dealer + 1) % sheet.n)
        for b in self.bar_buttons:
            if b.name == "First dealer":
                b.text = f"Dealer: {sheet.names[sheet.dealer]}"
        self.needs_redraw = True

    def clear(self) -> None:
        self.entries = self.sheet.blank()
        self._changed()

    def enter_hand(self) -> None:
        """Score the hand ("Enter hand"); a refusal stays on screen with its reason."""
        try:
            self.sheet.enter(self.entries)
        except EntryError as e:
            self.refusal = e.reason
            self.needs_redraw = True
            return
        self.entries = self.sheet.blank()
        self.refusal = None
        if self.sheet.over:
            from .scorekeeper_sheet import ScorekeeperOverScene

            self.app.switch(ScorekeeperOverScene(self.app, self.sheet))
        else:
            self.show_sheet()

    def show_sheet(self) -> None:
        from .scorekeeper_sheet import ScorekeeperSheetScene

        self.app.switch(ScorekeeperSheetScene(self.app, self.sheet, self.entries))

    def ask_undo(self) -> None:
        ask_undo(self.app, self.sheet)

    def menu(self) -> None:
        ask_leave(self.app)

    # ------------------------------------------------------------------ drawing
    def draw(self, surface: Any) -> None:
        prev = D.text_log
        D.text_log = self.texts = []
        try:
            super().draw(surface)
        finally:
            if prev is not None:
                prev.extend(self.texts)
            D.text_log = prev

    def draw_content(self, surface: Any) -> None:
        th, sheet = self.theme, self.sheet
        pygame.draw.rect(surface, T.FELT_DARK, (0, 0, th.width, self.bar_h))
        dealer = sheet.names[sheet.dealer]
        D.text(surface, th, f"{sheet.TITLE}: enter hand {sheet.hand_number + 1}", (2 * th.pad, th.u(4)), "body", T.TEXT,
               bold=True, max_width=th.width - self._bar_right - 3 * th.pad)
        shooter = sheet.moon_shooter(self.entries)
        if shooter is not None and not sheet.over:
            sub, colour = f"{sheet.names[shooter]} shot the moon: choose below, then Enter hand", T.ACCENT
        else:
            sub, colour = f"{dealer} dealt; keeping score for your own cards", T.TEXT_DIM
        D.text(surface, th, sub, (2 * th.pad, th.u(30)), "small", colour, max_width=th.width - self._bar_right - 3 * th.pad)
        hy = self.bar_h + th.u(2)
        shown_toggles = any(w.visible for ws in self.row_widgets for k, w in ws.items() if k in ("double_nil", "blind_nil"))
        for heads in self.col_x:
            for label, x, w in heads:
                if label in ("Double Nil", "Blind Nil") and not shown_toggles:
                    continue
                D.text(surface, th, label, (x + w // 2, hy), "small", T.ACCENT, "midtop", max_width=w)
        totals = sheet.totals
        for s, r in enumerate(self.name_rects):
            if s % 2:
                pygame.draw.rect(surface, T.FELT_DARK, (r.x, r.y, self.col_w, r.height))
            D.text(surface, th, sheet.names[s], (r.x + th.pad, r.centery - th.u(2)), "body", T.TEXT, "bottomleft",
                   bold=True, max_width=r.width - th.pad)
            D.text(surface, th, f"total {totals[s]}", (r.x + th.pad, r.centery), "small", T.TEXT_DIM, "topleft",
                   max_width=r.width - th.pad)
        if self.nobody_widgets:
            r = self.nobody_rect
            D.text(surface, th, "Nobody", (r.x + th.pad, r.centery - th.u(2)), "body", T.TEXT_DIM, "bottomleft",
                   max_width=r.width - th.pad)
            D.text(surface, th, "cancelled last trick", (r.x + th.pad, r.centery), "small", T.TEXT_DIM, "topleft",
                   max_width=r.width - th.pad)
        # the check line and the reason, beside the buttons (the moon choice takes their place)
        if self.moon_self.visible and not sheet.over:
            return
        y = self.bottom_y + th.u(2)
        small_h = th.font("small").get_height()
        line = "   ".join(sheet.tally(self.entries))
        D.text(surface, th, line, (2 * th.pad, y), "small", T.TEXT, max_width=self.line_w)
        y += small_h + th.u(2)
        reason = self.reason()
        if sheet.over:
            D.text(surface, th, "The game is over: see the score sheet.", (2 * th.pad, y), "small", T.ACCENT)
        elif reason is None:
            D.text(surface, th, "Ready: tap Enter hand", (2 * th.pad, y), "body", T.GOOD)
        else:
            colour = T.BAD if self.refusal else T.ACCENT
            for text in D.wrap(th, reason, self.line_w, "small")[:3]:
                D.text(surface, th, text, (2 * th.pad, y), "small", colour, max_width=self.line_w)
                y += small_h

    def reason(self) -> str | None:
        """Why the entry cannot be entered as it stands (None: it can)."""
        if self.refusal:
            return self.refusal
        return self.sheet.check(self.entries)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(entries={k: (list(v) if isinstance(v, list) else v) for k, v in self.entries.items()},
                 tally=self.sheet.tally(self.entries), reason=self.reason(), refusal=self.refusal,
                 totals=self.sheet.totals[:], hand=self.sheet.hand_number,
                 moon_shooter=self.sheet.moon_shooter(self.entries), texts=list(self.texts))
        return m


def ask_undo(app: Any, sheet: ScoreSheet) -> None:
    """Confirm, then take back the last hand (its entries come back for re-entry) or
    correction."""
    from .confirm import ConfirmScene

    what = sheet.last_undo_text()
    if what is None:
        app.push(ConfirmScene(app, "Nothing to undo", "No hand has been entered yet.", yes="OK", no="Back"))
        return

    def undo() -> None:
        taken = sheet.undo()
        entries = taken.get("entries")
        app.switch(ScorekeeperEntryScene(app, sheet, dict(entries) if entries is not None else None))

    app.push(ConfirmScene(app, f"Undo {what}?", "Its scores come off the sheet; a hand's entries come back "
                          "to be corrected and entered again.", yes="Undo", no="Keep", on_yes=undo))


def ask_leave(app: Any) -> None:
    from .confirm import ConfirmScene

    def leave() -> None:
        app.session = None
        app.go("home")

    app.push(ConfirmScene(app, "Leave this score sheet?", "Start a new game from the home screen.",
                          yes="Leave", no="Stay", on_yes=leave))
