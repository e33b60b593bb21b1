"""Correcting an earlier hand from the score sheet, and a hand's own page.

The way through: the sheet's "Correct" (or a hand's page, "Correct this hand") -> in a refereed
game the admin PIN -> which hand -> that hand's figures on the keep-score entry screen, filled
in with what the hand says now (``AmendEntryScene``: checked as that hand, not as the next one)
-> why (a reason picked, or typed), with what the correction changes -> applied: in a refereed
game the referee's ``HandCorrection`` through the table host (journalled like every event; the
plays stay as played), in keep-score mode ``ScoreSheet.amend`` on the journalled sheet. Either
way the hand is marked corrected on the sheet, what it said before stays on its page, and the
totals, the game's end and the plot follow.

A ``Fixer`` is the sheet being corrected: a refereed game's (``TableFixer``, its sheet read off
the table's view) or a kept one (``KeptFixer``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import pygame

from trickref.engine.scorekeeper import ScoreSheet

from .. import draw as D
from .. import paperpad as P
from .. import theme as T
from ..i18n import N_, _, ngettext
from ..referee_words import translate
from ..scene import Scene
from ..widgets import Button
from .pin import PinScene
from .scorekeeper_entry import ScorekeeperEntryScene, refusal_words

REASONS = ("miscounted", "revoke", "misdeal")
# a correction's reason as a record keeps it -> its words on screen
REASON_WORDS = {"miscounted": N_("miscounted"), "revoke": N_("revoke"), "misdeal": N_("misdeal"), "other": N_("other")}


def reason_words(reason: str) -> str:
    """A correction's reason in the kiosk's language (a typed one as typed)."""
    return _(REASON_WORDS[reason]) if reason in REASON_WORDS else reason


# ---------------------------------------------------------------------- what is corrected
class Fixer:
    """The sheet a correction goes to."""

    needs_pin = False

    def sheet(self) -> ScoreSheet:
        raise NotImplementedError

    def can_fix(self) -> bool:
        """Whether the sheet takes corrections now."""
        return True

    def apply(self, hand: int, entries: dict[str, Any], reason: str, at: str) -> None:
        """Correct ``hand``; ValueError (in words) when it is refused or cannot be kept."""
        raise NotImplementedError

    def apply_points(self, seat: int, points: int, reason: str) -> None:
        raise NotImplementedError

    def reopen(self) -> None:
        """Back to the score sheet."""
        raise NotImplementedError


class TableFixer(Fixer):
    """A refereed game's sheet: corrections go to the referee through the table host."""

    needs_pin = True

    def __init__(self, app: Any, back_to: str | None) -> None:
        self.app = app
        self.back_to = back_to

    def sheet(self) -> ScoreSheet:
        v = self.app.session.view()
        return P.sheet_of_view(v.get("game") or {}, v.get("table") or {})

    def can_fix(self) -> bool:
        """While the table holds the game: during it, and once it is over (its saved record is
        then replaced by the corrected one, ``device.table.host``)."""
        return self.app.session is not None and self.app.session.table is not None

    def _over(self) -> bool:
        return bool((self.app.session.view().get("game") or {}).get("over"))

    def _still_over(self, change: Callable[[ScoreSheet], Any]) -> None:
        """A finished game stays finished: a correction that would reopen it is refused (the
        game's journal was closed when it ended; its record is what is corrected)."""
        if not self._over():
            return
        trial = self.sheet().copy()
        try:
            change(trial)
        except ValueError:
            return  # the referee says why
        if not trial.over:
            raise ValueError(_("The game is over and saved: this correction would reopen it (no one reaches "
                               "the end any more), so it is not made."))

    def _call(self, event: Any) -> None:
        from ..table_client import refusal_of

        words = refusal_of(self.app.session.table.host.call(event))
        if words is not None:
            raise ValueError(translate(words))

    def apply(self, hand: int, entries: dict[str, Any], reason: str, at: str) -> None:
        from trickref.engine.referee.events import HandCorrection

        self._still_over(lambda sh: sh.amend(hand, entries, reason, at))
        self._call(HandCorrection(hand, entries, reason, "admin", at))

    def apply_points(self, seat: int, points: int, reason: str) -> None:
        from trickref.engine.referee.events import ScoreCorrection

        self._still_over(lambda sh: sh.correct(seat, points, reason))
        self._call(ScoreCorrection(seat, points, reason, "admin"))

    def reopen(self) -> None:
        self.app.go("scoresheet", back=self.back_to)


class KeptFixer(Fixer):
    """A kept sheet (keep-score mode): anyone corrects it; every change is journalled."""

    def __init__(self, app: Any, sheet: ScoreSheet, entry_state: dict[str, Any] | None = None) -> None:
        self.app = app
        self.kept = sheet
        self.entry_state = entry_state

    def sheet(self) -> ScoreSheet:
        return self.kept

    def apply(self, hand: int, entries: dict[str, Any], reason: str, at: str) -> None:
        try:
            self.kept.amend(hand, entries, reason, at)
        except ValueError as e:  # EntryError (its reason), JournalError (could not be saved)
            raise ValueError(translate(getattr(e, "reason", None) or str(e))) from None

    def apply_points(self, seat: int, points: int, reason: str) -> None:
        self.kept.correct(seat, points, reason)

    def reopen(self) -> None:
        self.app.go("scorekeeper_sheet", sheet=self.kept, entry_state=self.entry_state)


def with_pin(app: Any, fixer: Fixer, then: Callable[[], Any]) -> None:
    """``then()`` once allowed: at once in keep-score mode, after the admin PIN in a refereed game."""
    if fixer.needs_pin:
        app.push(AdminPinScene(app, then))
    else:
        then()


def pick_hand(app: Any, fixer: Fixer) -> None:
    app.push(PickHandScene(app, fixer))


def fix_hand(app: Any, fixer: Fixer, hand: int) -> None:
    app.switch(AmendEntryScene(app, fixer, hand))


# ---------------------------------------------------------------------- the PIN
class AdminPinScene(PinScene):
    """The admin PIN over the sheet before a refereed game's score is corrected."""

    modal = True

    def __init__(self, app: Any, on_ok: Callable[[], Any]) -> None:
        super().__init__(app, then="")
        self.title_text = _("Admin PIN to correct the score")
        self.on_ok = on_ok

    def ok(self) -> None:
        right, said = self.app.settings.try_pin(self.text)
        if right:
            self.app.pop()
            self.on_ok()
            return
        self.tries += 1
        self.text = ""
        self.message = said
        self.needs_redraw = True

    def cancel(self) -> None:
        self.app.pop()


# ---------------------------------------------------------------------- a hand's words
def figures_words(sheet: ScoreSheet, entries: dict[str, Any], seats: tuple[int, ...]) -> str:
    """A side's figures in one hand: "bid 4, made 5", "Nil, made 0", "3\u2665 Q\u2660", "9 tricks"."""
    if "bids" in entries:  # the Spades games: bids, tricks and the special Nil
        nil_key = "double_nil" if "double_nil" in entries else "blind_nil"
        parts = []
        for s in seats:
            b, t = int(entries["bids"][s]), int(entries["tricks"][s])
            if b == 0:
                word = _(P.NIL_WORDS[2 if nil_key == "double_nil" else 1]) if entries.get(nil_key, [False] * 4)[s] else _("Nil")
                parts.append(_("{nil}, made {made}").format(nil=word, made=t))
            else:
                parts.append(_("bid {bid}, made {made}").format(bid=b, made=t))
        return "; ".join(parts)
    if "hearts" not in entries:  # tricks only
        n = int(entries["tricks"][seats[0]])
        return ngettext("{n} trick", "{n} tricks", n).format(n=n)
    s = seats[0]
    hearts = f"{entries['hearts'][s]}\u2665"
    qs = entries["qs"]
    q = int(qs[s]) if isinstance(qs, list) else int(qs == s)
    if q:
        hearts += " Q\u2660" if q == 1 else " 2 Q\u2660"
    if sheet.moon_shooter(entries) == s:
        hearts += " " + _("(moon: {choice})").format(choice=_("self") if entries.get("moon") == "self" else _("others"))
    return hearts


MOON_CHOICES = (N_("self"), N_("others"))


class HandScene(Scene):
    """One hand's page over the sheet: each player's (team's) figures and points; when it was
    corrected, when, why, and what it said before; "Correct this hand"."""

    name = "hand"
    portrait_layout = True
    modal = True

    def __init__(self, app: Any, fixer: Fixer, hand: int) -> None:
        super().__init__(app)
        self.fixer = fixer
        self.hand = hand
        self.lines: list[tuple[str, str, str]] = []

    def layout(self) -> None:
        th = self.theme
        w = min(th.width - 2 * th.pad, th.u(700))
        h = th.height - 2 * th.pad
        self.box = pygame.Rect((th.width - w) // 2, th.pad, w, h)
        bw = (w - 3 * th.pad) // 2
        y = self.box.bottom - th.touch - th.pad
        self.widgets = [
            Button(_("Close"), self.app.pop, pygame.Rect(self.box.x + th.pad, y, bw, th.touch), color=T.BUTTON_OFF,
                   name="Close"),
            Button(_("Correct this hand"), self.correct, pygame.Rect(self.box.right - th.pad - bw, y, bw, th.touch),
                   color=T.BUTTON_ON, name="Correct this hand"),
        ]
        self.widgets[1].visible = self.fixer.can_fix()

    def correct(self) -> None:
        self.app.pop()
        with_pin(self.app, self.fixer, lambda: fix_hand(self.app, self.fixer, self.hand))

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        shade = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, (0, 0))
        D.panel(surface, self.box, T.PANEL, th.u(12), border=T.ACCENT)
        sheet = self.fixer.sheet()
        if not 1 <= self.hand <= len(sheet.hand_results):
            return
        row = sheet.hand_results[self.hand - 1]
        sides, seats = P.sides_of(sheet.GAME_ID, sheet.names)
        fixes = row.get("corrections") or []
        x = self.box.x + 2 * th.pad
        room = self.box.width - 4 * th.pad
        y = self.box.y + th.pad
        title = _("Hand {n}").format(n=self.hand) + ((" \u2013 " + _("corrected")) if fixes else "")
        y = D.text(surface, th, title, (x, y), "large", T.ACCENT if fixes else T.TEXT, bold=True, max_width=room).bottom
        y += th.u(4)
        small_h = th.font("small").get_height()
        bottom = self.widgets[0].rect.y - th.u(4)
        for f in fixes[-2:]:
            who = f.get("by") or ""
            when = str(f.get("at") or "").replace("T", " ")[:16]
            words = _("Corrected {when}: {reason}").format(when=when, reason=reason_words(str(f.get("reason") or "")))
            if who:
                words += f" ({who})"
            for line in D.wrap(th, words, room, "small")[:2]:
                y = D.text(surface, th, self._fit(line, room), (x, y), "small", T.TEXT_DIM).bottom
        y += th.u(4)
        # a table: who, the figures (and points) now, and before the correction
        name_w = min(room // 3, max(th.font("small", bold=True).size(s)[0] for s in sides) + th.pad)
        before = row.get("original")
        col = (room - name_w) // (2 if before else 1)
        heads = [_("now")] + ([_("before")] if before else [])
        for i, head in enumerate(heads):
            D.text(surface, th, head, (x + name_w + i * col, y), "small", T.TEXT_DIM)
        y += small_h + th.u(2)
        self.lines = []
        rows_room = bottom - y
        line_h = small_h + th.u(2)
        per_side = 2 if len(sides) * 2 * line_h <= rows_room and sheet.TEAMS else 1
        for side, group in zip(sides, seats, strict=True):
            if y + line_h * per_side > bottom:
                break
            now = self._side(sheet, row["entries"], row["points"], group, per_side)
            was = self._side(sheet, before["entries"], before["points"], group, per_side) if before else []
            D.text(surface, th, self._fit(side, name_w - th.u(4), True), (x, y), "small", T.ACCENT, bold=True)
            for j, text in enumerate(now):
                D.text(surface, th, self._fit(text, col - th.pad), (x + name_w, y + j * line_h), "small", T.TEXT)
            for j, text in enumerate(was):
                changed = j >= len(now) or now[j] != text
                D.text(surface, th, self._fit(text, col - th.pad), (x + name_w + col, y + j * line_h), "small",
                       T.BAD_TEXT if changed else T.TEXT_DIM)
            self.lines.append((side, " ".join(now), " ".join(was)))
            y += line_h * max(1, len(now))
        y += th.u(6)
        totals = ", ".join(f"{side} {row['totals'][g[0]]}" for side, g in zip(sides, seats, strict=True))
        for line in D.wrap(th, _("Totals after hand {n}: {totals}").format(n=self.hand, totals=totals), room, "small"):
            if y + small_h > bottom:
                break
            y = D.text(surface, th, line, (x, y), "small", T.TEXT_DIM).bottom

    def _side(self, sheet: ScoreSheet, entries: dict[str, Any], points: list[int], group: tuple[int, ...],
              lines: int) -> list[str]:
        words = figures_words(sheet, entries, group)
        pts = f"{points[group[0]]:+d}"
        if lines == 2 and "; " in words:
            a, b = words.split("; ", 1)
            return [a, f"{b}: {pts}"]
        return [f"{words}: {pts}"]

    def _fit(self, text: str, room: int, bold: bool = False) -> str:
        font = self.theme.font("small", bold)
        if font.size(text)[0] <= room:
            return text
        while text and font.size(text + "\u2026")[0] > room:
            text = text[:-1]
        return text + "\u2026"

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(hand=self.hand, lines=[list(x) for x in self.lines])
        return m


# ---------------------------------------------------------------------- which hand
class PickHandScene(Scene):
    """Which hand to correct (the latest first on the last page); in keep-score mode also a
    score correction by points (no hand)."""

    name = "pick_hand"
    portrait_layout = True
    modal = True

    def __init__(self, app: Any, fixer: Fixer) -> None:
        super().__init__(app)
        self.fixer = fixer
        self.first = None  # the first hand shown (None: the page with the latest)

    def layout(self) -> None:
        th = self.theme
        hands = len(self.fixer.sheet().hand_results)
        w = min(th.width - 2 * th.pad, th.u(640))
        gap = th.pad
        bw = max(th.touch, th.u(72))
        cols = max(1, (w - 2 * th.pad + gap) // (bw + gap))
        title_h = th.pad + th.font("large", bold=True).get_height() + th.u(12)
        want = title_h + max(1, -(-hands // cols)) * (th.touch + gap) + 2 * (th.touch + th.pad)
        h = min(th.height - 2 * th.pad, max(th.u(240), want))
        self.box = pygame.Rect((th.width - w) // 2, (th.height - h) // 2, w, h)
        top = self.box.y + th.pad + th.font("large", bold=True).get_height() + th.u(12)
        bottom = self.box.bottom - 2 * (th.touch + th.pad)
        rows = max(1, (bottom - top + gap) // (th.touch + gap))
        per = cols * rows
        if hands > per:  # pages of hands: « and » take two places
            per -= 2
        first = self.first if self.first is not None else max(0, hands - per)
        self.first = first
        self.widgets = []
        x0 = self.box.x + (w - (cols * bw + (cols - 1) * gap)) // 2
        slots = []
        if hands > per + 2 or hands > cols * rows:
            slots.append(("\u00ab", functools.partial(self._page, -per), "Earlier hands", first > 0))
        for hnd in range(first + 1, min(hands, first + per) + 1):
            slots.append((str(hnd), functools.partial(self._pick, hnd), f"hand {hnd}", True))
        if hands > cols * rows:
            slots.append(("\u00bb", functools.partial(self._page, per), "Later hands", first + per < hands))
        for i, (text, fn, name, on) in enumerate(slots):
            r, c = divmod(i, cols)
            b = Button(text, fn, pygame.Rect(x0 + c * (bw + gap), top + r * (th.touch + gap), bw, th.touch),
                       name=name)
            b.enabled = on
            self.widgets.append(b)
        y = self.box.bottom - th.touch - th.pad
        bw2 = (w - 3 * th.pad) // 2
        self.widgets.append(Button(_("Cancel"), self.app.pop, pygame.Rect(self.box.x + th.pad, y, bw2, th.touch),
                                   color=T.BUTTON_OFF, name="Cancel"))
        if isinstance(self.fixer, KeptFixer) or self.fixer.needs_pin:
            self.widgets.append(Button(_("Score correction"), self.points,
                                       pygame.Rect(self.box.right - th.pad - bw2, y, bw2, th.touch), color=T.BUTTON_OFF,
                                       name="Score correction"))

    def _page(self, step: int) -> None:
        hands = len(self.fixer.sheet().hand_results)
        assert self.first is not None
        self.first = max(0, min(hands - 1, self.first + step))
        self.relayout()

    def _pick(self, hand: int) -> None:
        self.app.pop()
        fix_hand(self.app, self.fixer, hand)

    def points(self) -> None:
        self.app.pop()
        self.app.go("scorekeeper_correct", sheet=self.fixer.sheet(), fixer=self.fixer)

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        shade = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, (0, 0))
        D.panel(surface, self.box, T.PANEL, th.u(12), border=T.ACCENT)
        room = self.box.width - 4 * th.pad
        D.text(surface, th, _("Correct which hand?"), (self.box.centerx, self.box.y + th.pad), "large", T.TEXT, "midtop",
               bold=True, max_width=room)
        if not self.fixer.sheet().hand_results:
            D.text(surface, th, _("No hand has ended yet."), self.box.center, "body", T.TEXT_DIM, "center",
                   max_width=room)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["first"] = self.first
        return m


# ---------------------------------------------------------------------- the figures
class AmendEntryScene(ScorekeeperEntryScene):
    """The keep-score entry screen for an earlier hand: filled in with what the hand says now,
    checked as that hand (its dealer, the totals before it); "Continue" asks why."""

    name = "hand_fix"

    def __init__(self, app: Any, fixer: Fixer, hand: int, entries: dict[str, Any] | None = None) -> None:
        self.fixer = fixer
        self.hand = hand
        self.base = fixer.sheet()
        ctx = self.base.before(hand)
        super().__init__(app, ctx, entries if entries is not None else self.base.effective(hand - 1))

    def layout(self) -> None:
        super().layout()
        for b in self.bar_buttons:
            if b.name == "Sheet":
                b.text, b.on_click, b.name = _("Cancel"), self.cancel, "Cancel"
            else:
                b.visible = False
        self.enter_btn.text, self.enter_btn.name = _("Continue"), "Continue"

    def heading(self) -> str:
        return _("Correct hand {n}").format(n=self.hand)

    def intro(self) -> str:
        return _("{dealer} dealt it; change what was wrong").format(dealer=self.sheet.names[self.sheet.dealer])

    def ready_text(self) -> str:
        return _("Ready: tap Continue")

    def cancel(self) -> None:
        self.fixer.reopen()

    def show_sheet(self) -> None:
        self.cancel()

    def problem(self) -> str | None:
        try:
            self.base.check_amend(self.hand, self.entries)
        except ValueError as e:
            return refusal_words(e)
        return None

    def enter_hand(self) -> None:
        canon = self.taken(lambda entries: self.base.check_amend(self.hand, entries))
        if canon is not None:
            self.app.switch(ReasonScene(self.app, self.fixer, self.hand, canon))

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["fixing"] = self.hand
        return m


# ---------------------------------------------------------------------- why
class ReasonScene(Scene):
    """Why the hand is corrected (picked, or typed), what it changes, then Apply."""

    name = "hand_reason"
    portrait_layout = True

    def __init__(self, app: Any, fixer: Fixer, hand: int, entries: dict[str, Any]) -> None:
        super().__init__(app)
        self.fixer = fixer
        self.hand = hand
        self.entries = entries
        self.reason: str | None = None
        self.typed = ""
        self.error: str | None = None
        self.refused = False
        base = fixer.sheet()
        self.before = base
        trial = base.copy()
        trial.amend(hand, entries, "", "")
        self.after = trial

    def layout(self) -> None:
        th = self.theme
        p, W, H = th.pad, th.width, th.height
        top = self.header_bottom(self._sub(), right=2 * p)
        per = 2 if W < th.u(600) else 4
        rw = (W - 4 * p - p * (per - 1)) // per
        specs = [(reason_words(r), r) for r in REASONS] + [(_("Type a reason"), "")]
        self.reason_buttons = []
        for i, (text, key) in enumerate(specs):
            rect = pygame.Rect(2 * p + (i % per) * (rw + p), top + (i // per) * (th.touch + p), rw, th.touch)
            fn = functools.partial(self.pick, key) if key else self.type_reason
            self.reason_buttons.append(Button(text, fn, rect, role="small", name=f"reason {key or 'typed'}"))
        self.changes_top = top + (-(-len(specs) // per)) * (th.touch + p) + p
        by = H - th.touch - p
        aw = max(th.u(200), th.font("body").size(_("Apply correction"))[0] + th.u(16))
        self.apply_btn = Button(_("Apply correction"), self.apply, pygame.Rect(W - p - aw, by, aw, th.touch),
                                color=T.BUTTON_ON, name="Apply correction")
        self.back_btn = Button(_("Back"), self.back, pygame.Rect(p, by, th.u(140), th.touch), color=T.BUTTON_OFF,
                               name="Back")
        self.widgets = [*self.reason_buttons, self.apply_btn, self.back_btn]
        self._sync()

    def _sub(self) -> str:
        return _("kept on the score sheet and in the record, with when and why")

    def _sync(self) -> None:
        self._ensure_layout()
        for b in self.reason_buttons:
            key = b.name.removeprefix("reason ")
            b.selected = (key == "typed" and bool(self.typed) and self.reason == self.typed) or (
                key != "typed" and key == self.reason)
        self.apply_btn.enabled = bool(self.reason) and not self.refused

    def pick(self, key: str) -> None:
        self.reason = key
        self.error = None
        self.refused = False
        self._sync()

    def type_reason(self) -> None:
        from ..keyboard import KeyboardScene

        def done(text: str) -> None:
            self.typed = text.strip()
            self.reason = self.typed or None
            self._sync()
            self.needs_redraw = True

        self.app.push(KeyboardScene(self.app, title=_("Why is the hand corrected?"), text=self.typed, on_done=done,
                                    max_len=40))

    def back(self) -> None:
        self.app.switch(AmendEntryScene(self.app, self.fixer, self.hand, dict(self.entries)))

    def apply(self) -> None:
        if not self.reason:
            self.error = _("Pick or type why the hand is corrected.")
            return
        try:
            self.fixer.apply(self.hand, self.entries, self.reason, time.strftime("%Y-%m-%dT%H:%M:%S"))
        except ValueError as e:
            self.error = str(e)
            self.refused = True  # the same correction would be refused again: Back changes it
            self._sync()
            return
        self.fixer.reopen()

    def changes(self) -> list[str]:
        """What the correction changes, in words: the hand's points, the totals, the game's end."""
        b, a = self.before, self.after
        sides, seats = P.sides_of(b.GAME_ID, b.names)
        h = self.hand - 1
        out = []
        pts = [f"{side} {b.hand_results[h]['points'][g[0]]:+d} -> {a.hand_results[h]['points'][g[0]]:+d}"
               for side, g in zip(sides, seats, strict=True)
               if b.hand_results[h]["points"][g[0]] != a.hand_results[h]["points"][g[0]]]
        out.append(_("Hand {n}: {changes}").format(n=self.hand, changes=", ".join(pts)) if pts
                   else _("Hand {n}: the points stay the same").format(n=self.hand))
        tot = [f"{side} {b.totals[g[0]]} -> {a.totals[g[0]]}" for side, g in zip(sides, seats, strict=True)
               if b.totals[g[0]] != a.totals[g[0]]]
        if tot:
            out.append(_("Totals: {changes}").format(changes=", ".join(tot)))
        if a.over and not b.over:
            names = " & ".join(b.names[w] for w in a.winners)
            out.append(ngettext("This ends the game: {who} wins.", "This ends the game: {who} win.",
                                len(a.winners)).format(who=names))
        elif b.over and not a.over:
            out.append(_("The game goes on: nobody has won yet."))
        elif a.over and b.over and sorted(a.winners) != sorted(b.winners):
            names = " & ".join(b.names[w] for w in a.winners)
            out.append(ngettext("The winner changes: {who} wins.", "The winners change: {who} win.",
                                len(a.winners)).format(who=names))
        return out

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        self.title(surface, _("Why correct hand {n}?").format(n=self.hand), self._sub(), right=2 * th.pad)
        y = self.changes_top
        room = th.width - 4 * th.pad
        bottom = self.apply_btn.rect.y - th.u(4)
        lines: list[tuple[str, T.Color]] = []
        if self.typed and self.reason == self.typed:
            lines.append((_("Reason: {reason}").format(reason=self.typed), T.ACCENT))
        lines += [(c, T.TEXT) for c in self.changes()]
        if self.error:
            lines.append((self.error, T.BAD_TEXT))
        for text, color in lines:
            for line in D.wrap(th, text, room, "small"):
                if y + th.font("small").get_height() > bottom:
                    return
                y = D.text(surface, th, line, (2 * th.pad, y), "small", color).bottom + th.u(2)

    def _sub_lines(self, sub: str | None, room: int) -> list[str]:
        return D.wrap(self.theme, sub, room, "small") if sub else []

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(hand=self.hand, reason=self.reason, error=self.error, changes=self.changes(), entries=self.entries)
        return m

