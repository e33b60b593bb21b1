"""Scorekeeper mode on the kiosk: a table playing with its own cards enters each hand's counts.

There is no dealer, no seat panel and no session: the kiosk only keeps the score sheet
(engine.scorekeeper.ScoreSheet, which scores with the games' own code), journalled change by
change (device.scorekeep_journal: fsync'd before the screen moves on) so that a power cut, a
closed kiosk or Menu -> Leave loses nothing; the next start resumes the sheet and says so.

Fast entry: one row per seat with a box for each count the rules score (bids, tricks, hearts)
and a number pad. The box to fill is highlighted; one tap on the pad fills it and moves on to
the next. Where the rules fix the last count (tricks add up to 13, hearts to 13 or 26) it is
filled in by itself, marked "auto", and follows any change to the others. The Q♠ (and omnibus)
holder is one tap on that seat's row; the two Q♠ of Cancellation Hearts are counted by tapping
the seat's Q♠ box (0, 1, 2, 0...); what nobody took (a cancelled last trick) is 0 unless
changed. A moon is scored "everyone else" unless the shooter's own choice is tapped. "Enter
hand" scores the hand and opens the next one on the same screen, with the hand's points shown.

The scenes are built directly (not through ``ui.scenes.make``) because they carry the sheet.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pygame

from trickref.engine.scorekeeper import ScoreSheet

from .. import draw as D
from .. import theme as T
from ..i18n import N_, _, current, ngettext
from ..scene import Scene
from ..widgets import Button, Widget

_T = TypeVar("_T")

# the entry fields' labels (engine.scorekeeper), translated where they are drawn
FIELD_LABELS = (N_("Bid"), N_("Double Nil"), N_("Blind Nil"), N_("Tricks"), N_("Hearts"), N_("Hearts nobody took"),
                N_("Q\u2660 nobody took"), N_("Tricks (all)"), N_("Stage-two tricks"))

# ---------------------------------------------------------------------- the journal


def _folders() -> tuple[Path, Path]:
    from ..table_client import load_config

    storage = load_config().storage
    return Path(storage.journal_dir()), Path(storage.games_dir())


def keeper(app: Any, create: bool = True) -> Any:
    """The app's open keep-score journal (device.scorekeep_journal.ScorekeepJournal), opened on
    first use. With ``create=False`` a journal that does not exist yet is not created (None)."""
    j = getattr(app, "scorekeep", None)
    if j is not None and not j.journal.closed:
        return j
    from trickref.device.games_store import GamesStore
    from trickref.device.scorekeep_journal import JOURNAL_NAME, ScorekeepJournal

    jdir, gdir = _folders()
    if not create:
        path = jdir / JOURNAL_NAME
        if not path.exists() or path.stat().st_size == 0:
            return None
    j = ScorekeepJournal.open(jdir, GamesStore(gdir))
    app.scorekeep = j
    return j


def pending_sheet(app: Any) -> ScoreSheet | None:
    """The unfinished keep-score sheet waiting in the journal, if any (nothing is created)."""
    try:
        j = keeper(app, create=False)
    except (OSError, ValueError):
        return None  # a damaged journal is explained when the table tries to resume it
    return None if j is None or j.sheet is None or j.sheet.over else j.sheet


def describe(sheet: ScoreSheet) -> str:
    """'Hearts, 4 players, 2 hands entered: Ana 12, Ben 5, ...' for resume messages."""
    from ..gameinfo import title

    hands = ngettext("{n} hand entered", "{n} hands entered", sheet.hand_number).format(n=sheet.hand_number)
    what = _("{game}, {n} players, {hands}").format(game=title(sheet.GAME_ID), n=sheet.n, hands=hands)
    if sheet.n > 6:  # too many to read in a message: the sheet shows them
        return f"{what}."
    totals = ", ".join(f"{sheet.names[s]} {sheet.totals[s]}" for s in range(sheet.n))
    return f"{what}: {totals}."


def _say(app: Any, title: str, detail: str, **kw: Any) -> None:
    from .confirm import ConfirmScene

    app.push(ConfirmScene(app, title, detail, **{"yes": "OK", "no": None, **kw}))


def start_scorekeeping(app: Any, *, replace: bool = False) -> ScorekeeperEntryScene | None:
    """From the home screen's choices (game, players, names, rule options): a new sheet,
    journalled, and its entry screen. An unfinished sheet in the journal is not replaced
    silently: the table is asked (resume it, or save it as an unfinished record and start the
    new one); ``replace=True`` is that second answer."""
    from trickref.device.journal import JournalCorrupt, JournalError

    st = app.setup
    try:
        j = keeper(app)
        if j.sheet is not None:
            if j.sheet.over:
                j.finish()  # saved at its game over; saving again finds the same file
            elif replace:
                j.finish()  # the abandoned sheet: a partial record in the games folder
            else:
                app.push(PendingSheetScene(app, j.sheet))
                return None
        sheet = j.start(st.game, st.players, st.game_options(), 0, st.seat_names())
    except JournalCorrupt as e:
        explain_damage(app, e)
        return None
    except (JournalError, OSError, ValueError) as e:
        _say(app, _("The score sheet could not start"), str(e))
        return None
    app.end_session()  # no dealt game runs meanwhile (its own journal keeps it)
    from ..memory import mark_in_use

    mark_in_use(app, "scorekeep")  # a restart resumes the sheet
    scene = ScorekeeperEntryScene(app, sheet)
    app.switch(scene)
    return scene


def explain_damage(app: Any, e: Any) -> None:
    """A keep-score journal damaged in the middle (``JournalCorrupt``): said in words, with
    the offer to move it aside (kept for inspection) so the table can keep score again."""
    path = Path(e.path)

    def aside() -> None:
        moved = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        path.rename(moved)
        _say(app, _("Damaged journal moved aside"), _("It is kept as {file} for inspection.").format(file=moved.name))

    _say(app, _("The score sheet could not be read"),
         _("Its journal is damaged in the middle ({reason}, at byte {offset}; {good} entries before it are "
           "intact). Move it aside to keep score again.").format(reason=e.reason, offset=e.offset, good=e.good_records),
         yes="Move aside", no="Back", on_yes=aside)


def resume_scorekeeping(app: Any, announce: bool = True) -> bool:
    """The unfinished keep-score sheet in the journal, on its entry screen (said so with
    ``announce``); a finished one still in the journal is saved and cleared. False when there
    is nothing to resume."""
    from trickref.device.journal import JournalCorrupt, JournalError

    try:
        j = keeper(app, create=False)
    except JournalCorrupt as e:
        explain_damage(app, e)
        return False
    except (JournalError, OSError, ValueError) as e:
        _say(app, _("The score sheet could not be resumed"), str(e))
        return False
    if j is None or j.sheet is None:
        return False
    sheet = j.sheet
    if sheet.over:
        try:
            j.finish()
        except (JournalError, OSError, ValueError) as e:
            _say(app, _("A finished score sheet could not be saved"), str(e))
        return False
    app.end_session()
    from ..memory import mark_in_use

    mark_in_use(app, "scorekeep")  # a restart resumes the sheet
    app.switch(ScorekeeperEntryScene(app, sheet))
    if announce:
        said = (_("Every entry is saved as it is made.") if j.report.clean else
                _("Every entry is saved as it is made (a last entry cut short by the power going was dropped)."))
        _say(app, _("Score sheet resumed"), f"{describe(sheet)} {said}", yes="Continue")
    return True


def finish_sheet(app: Any, sheet: ScoreSheet) -> tuple[Path | None, str | None]:
    """The sheet's record into the games folder, then its journal emptied: (path, None) or
    (None, why)."""
    from trickref.device.journal import JournalError

    j = getattr(app, "scorekeep", None)
    if j is None or j.sheet is not sheet:
        from ..resume import save_scorekept

        return save_scorekept(sheet)
    try:
        return j.finish(), None
    except (JournalError, OSError, ValueError) as e:
        return None, str(e)


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


_TALLY = re.compile(r"(.+): (\d+) of (\d+)( \(nobody's included\))?")


def tally_words(lines: list[str]) -> list[str]:
    """The sheet's check lines ('tricks: 12 of 13', 'Q\u2660: Ana') in the kiosk's language."""
    out = []
    for line in lines:
        m = _TALLY.fullmatch(line)
        if m is not None:
            label = m.group(1)
            words = _(label[:1].upper() + label[1:])  # the column heading, as translated
            if label[:1].islower():
                first = words[:1]
                if current() == "tr":  # Turkish dotted and dotless i: İ -> i, I -> ı
                    first = {"\u0130": "i", "I": "\u0131"}.get(first, first)
                words = first.lower() + words[1:]
            text = _("{label}: {got} of {want}").format(label=words, got=m.group(2), want=m.group(3))
            out.append(text + (_(" (nobody's included)") if m.group(4) else ""))
        elif line.endswith(": not chosen"):
            out.append(_("{label}: not chosen").format(label=line[: -len(": not chosen")]))
        else:
            out.append(line)
    return out


class SheetSession:
    """Stands in for ui.session.Session where the shared scenes read one (view, title)."""

    def __init__(self, sheet: ScoreSheet) -> None:
        self.sheet = sheet

    @property
    def title(self) -> str:
        """The game's name in the kiosk's language, marked as a kept sheet."""
        from ..gameinfo import title

        game = title(self.sheet.GAME_ID)
        return _("{game} (keeping score)").format(game=game)

    def view(self) -> dict[str, Any]:
        return {"game": sheet_view(self.sheet), "table": {}}




CYCLE_MAX = 2  # counts this small (the two Q♠ of Cancellation Hearts) are counted by tapping their box
PAD_SLOTS = 15  # 3 columns of 5 beside the rows (landscape), 5 of 3 under them (portrait)
PAD_FIRST_PAGE = 14  # 0..13 on the pad; larger counts (up to 26) on its second page


class PendingSheetScene(Scene):
    """Asked when "Keep score" finds an unfinished sheet: resume it, or keep it as an
    unfinished record and start the new one."""

    name = "confirm"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    modal = True

    def __init__(self, app: Any, sheet: ScoreSheet) -> None:
        super().__init__(app)
        self.sheet = sheet
        self.question = _("An unfinished score sheet")

    def layout(self) -> None:
        th = self.theme
        w, h = min(th.width - 2 * th.pad, th.u(640)), th.u(280)
        self.box = pygame.Rect((th.width - w) // 2, (th.height - h) // 2, w, h)
        bw = (w - 4 * th.pad) // 3
        y = self.box.bottom - th.touch - th.pad
        x = self.box.x + th.pad
        specs = ((_("Back"), self.app.pop, T.BUTTON_OFF, "no"), (_("New sheet"), self.new, T.BAD, "New sheet"),
                 (_("Resume it"), self.resume, T.BUTTON_ON, "yes"))
        self.widgets = [Button(t, fn, pygame.Rect(x + i * (bw + th.pad), y, bw, th.touch), color=c, name=n)
                        for i, (t, fn, c, n) in enumerate(specs)]

    def resume(self) -> None:
        self.app.pop()
        self.app.switch(ScorekeeperEntryScene(self.app, self.sheet))

    def new(self) -> None:
        self.app.pop()
        start_scorekeeping(self.app, replace=True)

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        shade = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        surface.blit(shade, (0, 0))
        D.panel(surface, self.box, T.PANEL, th.u(12), border=T.ACCENT)
        D.text(surface, th, self.question, (self.box.centerx, self.box.y + th.pad), "large", T.TEXT, "midtop",
               bold=True, max_width=self.box.width - 4 * th.pad)
        y = self.box.y + th.pad + th.font("large").get_height() + th.u(4)
        detail = describe(self.sheet) + " " + _("Resume it, or start a new sheet: this one is then saved to the "
                                                "games folder as an unfinished record.")
        bottom = self.box.bottom - th.touch - 2 * th.pad
        for line in D.wrap(th, detail, self.box.width - 4 * th.pad, "body"):
            if y + th.font("body").get_height() > bottom:
                break
            r = D.text(surface, th, line, (self.box.centerx, y), "body", T.TEXT_DIM, "midtop")
            y = r.bottom + th.u(2)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["question"] = self.question
        return m


class Cell(Button):
    """One seat's count: its value large, "auto" under it when the rules filled it in, a
    highlight when it is the box the number pad fills."""

    def __init__(self, name: str, on_click: Any, rect: Any) -> None:
        super().__init__("", on_click, rect, name=name)
        self.note = ""
        self.blank = False

    def draw(self, surface: Any, theme: T.Theme) -> None:
        if not self.visible:
            return
        th = theme
        color = T.BUTTON_DOWN if self.pressed else T.BUTTON_ON if self.selected else T.FELT_DARK
        D.panel(surface, self.rect, color, radius=th.u(8), border=T.ACCENT if self.selected else T.TEXT_DIM)
        fg = T.TEXT_DIM if self.blank else T.TEXT if self.note else T.ACCENT
        with D.owning("button", surface, self.rect, self.text):
            if self.note:
                small_h = th.font("small").get_height()
                mid = (self.rect.centerx, self.rect.centery - small_h // 2 + th.u(2))
                D.text(surface, th, self.text, mid, "body", fg, "center", bold=True, max_width=self.rect.width - th.u(6))
                D.text(surface, th, self.note, (self.rect.centerx, self.rect.bottom - th.u(1)), "small", T.TEXT_DIM,
                       "midbottom", max_width=self.rect.width - th.u(6))
            else:
                D.text(surface, th, self.text, self.rect.center, "large", fg, "center", bold=True,
                       max_width=self.rect.width - th.u(6))


Key = tuple[str, int]  # (entry key, seat); seat -1 for what nobody took

# a column heading too wide for its boxes (a narrow portrait screen): the suit it counts
SYMBOLS = {"Hearts": "\u2665", "Hearts nobody took": "\u2665"}


class ScorekeeperEntryScene(Scene):
    """One hand's entry: a box per count and seat, a number pad, holders, the moon choice,
    Enter hand."""

    name = "scorekeeper_entry"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too

    def __init__(self, app: Any, sheet: ScoreSheet, entries: dict[str, Any] | None = None) -> None:
        super().__init__(app)
        self.sheet = sheet
        self.refusal: str | None = None  # the reason of the last refused "Enter hand"
        self.texts: list[str] = []
        self.last_hand: str | None = None  # "hand 2: Ana +3, ..." after Enter hand
        self.last_points: list[int] | None = None  # that hand's points, shown on the rows
        self.page = 0
        self._reset(entries)

    # ------------------------------------------------------------------ the entry's state
    def _reset(self, entries: dict[str, Any] | None) -> None:
        sheet = self.sheet
        self.entries: dict[str, Any] = dict(entries) if entries is not None else sheet.blank()
        for k, v in self.entries.items():
            if isinstance(v, list):
                self.entries[k] = list(v)
        self.entered: set[Key] = set()
        self.auto: set[Key] = set()
        for f in sheet.schema():
            if f["kind"] == "count" and (entries is not None or f["max"] <= CYCLE_MAX):
                self.entered.update((f["key"], s) for s in range(sheet.n))
            elif f["kind"] == "number":
                self.entered.add((f["key"], -1))
        if "moon" in self.entries and entries is None:
            self.entries["moon"] = None
        self.focus: Key | None = None
        self._autofill()
        self.focus = self._next_focus(None)

    def _field(self, key: str) -> dict[str, Any]:
        return next(f for f in self.sheet.schema() if f["key"] == key)

    def _pad_keys(self) -> list[str]:
        """The count fields filled from the number pad, in the order they are asked for."""
        return [f["key"] for f in self.sheet.schema() if f["kind"] == "count" and f["max"] > CYCLE_MAX]

    def _order(self) -> list[Key]:
        return [(k, s) for k in self._pad_keys() for s in range(self.sheet.n)]

    def value(self, cell: Key) -> int:
        key, seat = cell
        v = self.entries.get(key)
        return int((v[seat] if isinstance(v, list) else v) or 0)

    def _set(self, cell: Key, v: int) -> None:
        key, seat = cell
        if seat < 0:
            self.entries[key] = v
        else:
            self.entries[key][seat] = v

    def _nobody(self, key: str) -> int:
        return self.sheet.keeping.nobody(key, self.entries)

    def _autofill(self) -> None:
        """Fill in what the rules fix: the last count of a field that adds up to a known sum,
        and every count still open once the others reach that sum (they can only be 0)."""
        for cell in self.auto:
            self.entered.discard(cell)
        self.auto = set()
        for f in self.sheet.schema():
            if f["kind"] != "count" or "sum" not in f or f["max"] <= CYCLE_MAX:
                continue
            key = f["key"]
            n = self.sheet.n
            open_ = [s for s in range(n) if (key, s) not in self.entered]
            if not open_:
                continue
            got = sum(self.entries[key][s] for s in range(n) if (key, s) in self.entered) + self._nobody(key)
            left = f["sum"] - got
            if len(open_) == 1 and f["min"] <= left <= f["max"]:
                self.entries[key][open_[0]] = left
                self.auto.add((key, open_[0]))
            elif left == 0:
                for s in open_:
                    self.entries[key][s] = 0
                    self.auto.add((key, s))
            else:
                for s in open_:
                    self.entries[key][s] = 0

    def _next_focus(self, after: Key | None) -> Key | None:
        order = self._order()
        todo = [c for c in order if c not in self.entered and c not in self.auto]
        if not todo:
            return None
        if after in order:
            i = order.index(after)
            later = [c for c in todo if order.index(c) > i]
            if later:
                return later[0]
        return todo[0]

    def missing(self) -> list[Key]:
        """Boxes not filled in yet (neither entered nor filled in by the rules)."""
        return [c for c in self._order() if c not in self.entered and c not in self.auto]

    # ------------------------------------------------------------------ layout
    def _row_fields(self) -> list[dict[str, Any]]:
        return [f for f in self.sheet.schema() if f["kind"] in ("count", "toggle", "holder")]

    def layout(self) -> None:
        th = self.theme
        sheet = self.sheet
        n = sheet.n
        W, H, p = th.width, th.height, th.pad
        portrait = H > W
        self.portrait = portrait
        small_h, body_h = th.font("small").get_height(), th.font("body", bold=True).get_height()
        if portrait:  # the game and hand on their own line, the bar's buttons on the next
            self.head_h = th.u(6) + th.font("body", bold=True).get_linesize() + small_h + th.u(2)
            self.bar_h = self.head_h + th.touch + th.u(6)
        else:
            self.head_h = 0
            self.bar_h = th.touch + th.u(8)
        self.header_h = small_h + th.u(4)
        if portrait:  # the checks and the verdict on full-width lines above Clear and Enter hand
            self.bottom_y = H - th.touch - 2 * p - (2 * small_h + body_h + th.u(6))
        else:
            self.bottom_y = H - th.touch - 2 * p
        top = self.bar_h + self.header_h
        self.top = top
        # the number pad: on the right, or under the rows on a portrait screen
        gap = th.u(6)
        # portrait: 5 x 3 keys under the rows, or 8 x 2 for a big table (its rows need the height)
        pad_cols = (8 if sheet.n >= 7 else 5) if portrait else 3
        pad_rows = -(-PAD_SLOTS // pad_cols)
        pbw = max(th.touch, th.u(60)) if not portrait else (W - 2 * p - (pad_cols - 1) * gap) // pad_cols
        pbh = th.touch if not portrait else th.touch + th.u(4)
        pad_w = pad_cols * pbw + (pad_cols - 1) * gap
        pad_h = pad_rows * pbh + (pad_rows - 1) * gap
        pad_y = self.bottom_y - p - pad_h if portrait else top
        self.pad_rect = pygame.Rect(W - p - pad_w, pad_y, pad_w, pad_h)
        self.pad_buttons: list[Button] = []
        for i in range(PAD_SLOTS):
            r, c = divmod(i, pad_cols)
            rect = pygame.Rect(self.pad_rect.x + c * (pbw + gap), pad_y + r * (pbh + gap), pbw, pbh)
            self.pad_buttons.append(Button("", functools.partial(self._pad, i), rect, role="large", name=f"pad slot {i}"))
        # the seats' rows, left of the pad
        numbers = [f for f in sheet.schema() if f["kind"] == "number"]
        rows = n + (1 if numbers else 0)
        area_w = W - 2 * p if portrait else self.pad_rect.x - 2 * p
        avail = (pad_y - th.u(4) - th.font("small").get_height() if portrait else self.bottom_y) - top - p
        cols = 1
        while avail // -(-rows // cols) < th.touch and cols < (2 if portrait else 3):
            cols += 1
        # portrait, two columns: "Nobody" on a line of its own under them, its name as wide as it needs
        self.nobody_line = portrait and bool(numbers) and cols == 2
        per_col = -(-(n if self.nobody_line else rows) // cols)
        # a portrait screen's rows may be lower than a touch target's default (their boxes then are
        # too, still above the 7.6 mm minimum)
        row_h = max(th.u(44) if portrait else th.touch, min(th.u(64), avail // (per_col + self.nobody_line)))
        self.cell_h = min(th.touch, row_h - th.u(4)) if portrait else th.touch
        col_w = (area_w - p * (cols - 1)) // cols
        self.cols, self.row_h, self.col_w = cols, row_h, col_w
        fields = self._row_fields()
        cw = max(th.touch, th.u(60))
        widths = {"count": cw, "toggle": max(th.touch, th.u(100)), "holder": max(th.touch, th.u(64))}
        fw = [widths[f["kind"]] for f in fields]
        name_w = col_w - sum(fw) - p * len(fw)
        for i, f in enumerate(fields):  # a count column as wide as its heading, while the names keep room
            need = th.font("small").size(_(f["label"]))[0] + th.u(4)
            if f["kind"] == "count" and need > fw[i] and name_w - (need - fw[i]) >= th.u(110):
                name_w -= need - fw[i]
                fw[i] = need
        self.col_x: list[list[tuple[str, int, int]]] = []
        for c in range(cols):
            x = p + c * (col_w + p) + name_w + p
            heads = []
            for f, w in zip(fields, fw, strict=True):
                heads.append((f["label"] if f["kind"] != "toggle" else "", x, w))
                x += w + p
            self.col_x.append(heads)
        self.widgets = []
        self.cells: dict[Key, Cell] = {}
        self.row_widgets: list[dict[str, Widget]] = []
        self.name_rects: list[pygame.Rect] = []
        for s in range(n):
            c, r = divmod(s, per_col)
            x0 = p + c * (col_w + p)
            y = top + r * row_h
            self.name_rects.append(pygame.Rect(x0, y, name_w, row_h))
            ws: dict[str, Widget] = {}
            for f, (_label, x, w) in zip(fields, self.col_x[c], strict=True):
                rect = pygame.Rect(x, y + (row_h - self.cell_h) // 2, w, self.cell_h)
                ws[f["key"]] = self._make(f, s, rect)
            self.row_widgets.append(ws)
            self.widgets.extend(ws.values())
        self.nobody_rect: pygame.Rect | None = None
        if numbers:
            c, r = divmod(n, per_col) if not self.nobody_line else (cols - 1, per_col)
            x0 = p + c * (col_w + p) if not self.nobody_line else p
            y = top + r * row_h
            self.nobody_rect = pygame.Rect(x0, y, name_w if not self.nobody_line else self.col_x[c][0][1] - p - x0, row_h)
            for f in numbers:
                # under the column of the same thing (hearts under hearts, Q♠ under Q♠)
                head = next((h for h in self.col_x[c] if f["label"].lower().startswith(h[0].lower())), self.col_x[c][-1])
                cell = Cell(f"nobody {f['key']}", functools.partial(self._tap_cell, (f["key"], -1)),
                            pygame.Rect(head[1], y + (row_h - self.cell_h) // 2, head[2], self.cell_h))
                self.cells[(f["key"], -1)] = cell
                self.widgets.append(cell)
        # the top bar
        bw = th.u(112) if not portrait else (W - 2 * p - 2 * th.u(6)) // 3
        x = W - p
        self.bar_buttons: list[Button] = []
        middle = (_("Undo"), self.ask_undo, "Undo hand")
        if not sheet.can_undo():  # before the first hand: who deals it (tap to pass it on)
            middle = (_("Dealer: {name}").format(name=sheet.names[sheet.dealer]), self.next_dealer, "First dealer")
        for text, fn, name in ((_("Menu"), self.menu, "Menu"), middle, (_("Sheet"), self.show_sheet, "Sheet")):
            x -= bw
            b = Button(text, fn, pygame.Rect(x, self.head_h + th.u(3), bw, th.touch), color=T.BUTTON_OFF, role="small",
                       name=name)
            self.bar_buttons.append(b)
            x -= th.u(6)
        self._bar_right = W - x if not portrait else p
        # the bottom row: moon choices (when a moon is entered) or the check line, Clear, Enter hand
        by = H - th.touch - p
        enter_w = th.u(190)
        self.enter_btn = Button(_("Enter hand"), self.enter_hand, pygame.Rect(W - p - enter_w, by, enter_w, th.touch),
                                color=T.BUTTON_ON, name="Enter hand")
        self.clear_btn = Button(_("Clear"), self.clear, pygame.Rect(self.enter_btn.rect.x - p - th.u(100), by, th.u(100),
                                                                 th.touch), color=T.BUTTON_OFF, name="Clear")
        if portrait:  # Enter hand as wide as the row allows; the moon choice above them, full width
            self.enter_btn.rect = pygame.Rect(self.clear_btn.rect.x - th.u(100) - p, by, 0, th.touch)
            self.clear_btn.rect = pygame.Rect(p, by, th.u(130), th.touch)
            self.enter_btn.rect = pygame.Rect(self.clear_btn.rect.right + p, by, W - 3 * p - th.u(130), th.touch)
            self.line_w = W - 4 * p
            my, mw, mx = self.bottom_y + th.u(4), (W - 3 * p) // 2, p
        else:
            self.line_w = self.clear_btn.rect.x - 3 * p
            my, mw, mx = by, (self.clear_btn.rect.x - 3 * p) // 2, p
        self.moon_self = Button("", functools.partial(self._set_moon, "self"), pygame.Rect(mx, my, mw, th.touch),
                                role="small", name="moon self")
        self.moon_others = Button("", functools.partial(self._set_moon, "others"),
                                  pygame.Rect(mx + mw + p, my, mw, th.touch), role="small", name="moon others")
        self.widgets.extend([*self.pad_buttons, *self.bar_buttons, self.moon_self, self.moon_others, self.clear_btn,
                             self.enter_btn])
        self._sync()

    def _make(self, f: dict[str, Any], seat: int, rect: pygame.Rect) -> Widget:
        who = self.sheet.names[seat]
        key = f["key"]
        if f["kind"] == "count":
            cell = Cell(f"{who} {key}", functools.partial(self._tap_cell, (key, seat)), rect)
            self.cells[(key, seat)] = cell
            return cell
        if f["kind"] == "toggle":
            return Button(_(f["label"]), functools.partial(self._toggle, key, seat), rect, role="small",
                          name=f"{who} {f['label']}")
        return Button(_(f["label"]), functools.partial(self._hold, key, seat), rect, role="small",
                      name=f"{who} {f['label']}", color=T.BUTTON_OFF)

    # ------------------------------------------------------------------ changes
    def pad_values(self) -> list[int | str | None]:
        """What each pad slot shows now: a number, "more"/"back" for the second page, or None."""
        out: list[int | str | None] = [None] * PAD_SLOTS
        if self.focus is None:
            return out
        hi = self._field(self.focus[0])["max"]
        if self.page == 0:
            for v in range(min(hi, PAD_FIRST_PAGE - 1) + 1):
                out[v] = v
            if hi >= PAD_FIRST_PAGE:
                out[-1] = "more"
        else:
            for i, v in enumerate(range(PAD_FIRST_PAGE, hi + 1)):
                out[i] = v
            out[-1] = "back"
        return out

    def _pad(self, slot: int) -> None:
        v = self.pad_values()[slot]
        if v == "more" or v == "back":
            self.page = 1 if v == "more" else 0
            self._changed()
            return
        if not isinstance(v, int) or self.focus is None:
            return
        cell = self.focus
        self._set(cell, v)
        self.entered.add(cell)
        self.auto.discard(cell)
        key, seat = cell
        if key == "bids" and v:
            for nk in ("double_nil", "blind_nil"):
                if nk in self.entries:
                    self.entries[nk][seat] = False
        self._autofill()
        self.focus = self._next_focus(cell)
        self.page = 0
        self._changed()

    def _tap_cell(self, cell: Key) -> None:
        key, _ = cell
        f = self._field(key)
        if f["max"] <= CYCLE_MAX:  # the two Q♠: count by tapping
            self._set(cell, (self.value(cell) + 1) % (f["max"] + 1))
            self.entered.add(cell)
            self._autofill()
        else:
            self.focus = cell
            self.page = 1 if self.value(cell) >= PAD_FIRST_PAGE else 0
        self._changed()

    def _toggle(self, key: str, seat: int) -> None:
        on = not self.entries[key][seat]
        self.entries[key][seat] = on
        bid = ("bids", seat)
        if on:  # Nil: the bid is 0, entered
            self.entries["bids"][seat] = 0
            self.entered.add(bid)
            if self.focus == bid:
                self.focus = self._next_focus(bid)
        else:
            self.entered.discard(bid)
            self.focus = bid
        self._changed()

    def _hold(self, key: str, seat: int) -> None:
        self.entries[key] = None if self.entries.get(key) == seat else seat
        self._changed()

    def _set_moon(self, choice: str) -> None:
        self.entries["moon"] = choice
        self._changed()

    def _changed(self) -> None:
        self.refusal = None
        # counts set from outside (a caller filling ``entries``): a number that is there was entered
        nil = [s for k in ("double_nil", "blind_nil") for s, on in enumerate(self.entries.get(k) or []) if on]
        stray = [c for c in self._order() if c not in self.entered and c not in self.auto
                 and (self.value(c) or (c[0] == "bids" and c[1] in nil))]
        if stray:
            self.entered.update(stray)
            self._autofill()
            self.focus = self._next_focus(self.focus)
        if "moon" in self.entries:
            if self.sheet.moon_shooter(self.entries) is None:
                self.entries["moon"] = None
            elif self.entries["moon"] is None:
                self.entries["moon"] = "others"  # the usual choice; the shooter's own is one tap
        self._ensure_layout()
        self._sync()
        self.needs_redraw = True

    def _sync(self) -> None:
        """Widgets show the entries; Nil toggles show only where the rules allow them."""
        sheet, e = self.sheet, self.entries
        for cell, w in self.cells.items():
            w.blank = cell not in self.entered and cell not in self.auto
            w.text = "?" if w.blank else str(self.value(cell))
            w.note = _("auto") if cell in self.auto else ""
            w.selected = cell == self.focus
            w.latch = self._field(cell[0])["max"] <= CYCLE_MAX  # a Q♠ count: a tap counts on (ui.widgets)
        for s, ws in enumerate(self.row_widgets):
            for key, w in ws.items():
                w.latch = True  # on/off and who-took marks: a tap on a lit one takes it back
                if key in ("double_nil", "blind_nil") and isinstance(w, Button):
                    partner_on = key == "blind_nil" and bool(e[key][(s + 2) % sheet.n])
                    w.visible = sheet.nil_allowed(s) and not partner_on
                    w.selected = bool(e[key][s])
                    if not w.visible and e[key][s]:
                        e[key][s] = False
                elif isinstance(w, Button) and not isinstance(w, Cell):
                    w.selected = e.get(key) == s
        for b, v in zip(self.pad_buttons, self.pad_values(), strict=True):
            b.visible = v is not None
            b.text = "14+" if v == "more" else "0-13" if v == "back" else str(v)
            b.name = "pad more" if v == "more" else "pad back" if v == "back" else f"pad {v}"
            b.color = T.BUTTON_OFF if isinstance(v, str) else T.BUTTON
        shooter = sheet.moon_shooter(e)
        self.moon_self.visible = self.moon_others.visible = shooter is not None
        if shooter is not None:
            who = sheet.names[shooter]
            self.moon_self.text = f"{who} {sheet.options['moon_self']:+d}"
            self.moon_others.text = _("Everyone else {points}").format(points=f"{sheet.options['moon_others']:+d}")
            self.moon_self.selected = e.get("moon") == "self"
            self.moon_others.selected = e.get("moon") == "others"
        self.enter_btn.enabled = not sheet.over

    def next_dealer(self) -> None:
        sheet = self.sheet
        try:
            sheet.set_first_dealer((sheet.first_dealer + 1) % sheet.n)
        except ValueError as e:
            self.refusal = str(e)
        for b in self.bar_buttons:
            if b.name == "First dealer":
                b.text = _("Dealer: {name}").format(name=sheet.names[sheet.dealer])
        self.needs_redraw = True

    def clear(self) -> None:
        self._reset(None)
        self._changed()

    def taken(self, take: Callable[[dict[str, Any]], _T]) -> _T | None:
        """``take(entries)`` once every box is filled in (the hand entered, or checked as a
        correction); None, with the refusal on screen, when a box is still empty (the first
        one gets the focus) or ``take`` refused them (a ValueError with the reason)."""
        missing = self.missing()
        if missing:
            self.refusal = self._missing_text(missing)
            self.focus = missing[0]
            self._sync()
            self.needs_redraw = True
            return None
        try:
            return take(self.entries)
        except ValueError as e:  # EntryError: cannot be right; JournalError: could not be saved
            self.refusal = refusal_words(e)
            self.needs_redraw = True
            return None

    def enter_hand(self) -> None:
        """Score the hand ("Enter hand") and open the next one here; a refusal stays on screen
        with its reason. The hand is in the journal before the screen moves on."""
        pts = self.taken(self.sheet.enter)
        if pts is None:
            return
        sheet = self.sheet
        if sheet.over:
            self.app.go("scorekeeper_over", sheet=sheet)
            return
        self.last_hand = _("Hand {n}:").format(n=sheet.hand_number) + " " + ", ".join(
            f"{who} {p:+d}" for who, p in self._shown_points(pts))
        self.last_points = pts
        self._reset(None)
        self.refusal = None
        self.relayout()  # the first-dealer button becomes Undo
        self._ensure_layout()

    def _shown_points(self, pts: list[int]) -> list[tuple[str, int]]:
        names = self.sheet.names
        if self.sheet.TEAMS:
            return [(f"{names[0]} & {names[2]}", pts[0]), (f"{names[1]} & {names[3]}", pts[1])]
        return list(zip(names, pts, strict=True))

    def _missing_text(self, missing: list[Key], fit: tuple[int, int, str] | None = None) -> str:
        """What is still to enter ("still to enter: Hearts of Dan, Eve (tap a number)"); with
        ``fit`` (width, lines, role) as much of it as fits there: fewer names ("and 5 more"),
        then no hint."""
        from ..i18n import elide

        key, seat = missing[0]
        label = _(self._field(key)["label"])
        names = [self.sheet.names[s] for k, s in missing if k == key]

        def words(k: int, hint: bool) -> str:
            who = ", ".join(names[:k]) if k >= len(names) else ngettext(
                "{names} and {n} more", "{names} and {n} more", len(names) - k).format(
                names=", ".join(names[:k]), n=len(names) - k)
            msg = _("still to enter: {what} of {who} (tap a number)") if hint else _("still to enter: {what} of {who}")
            return elide(msg.format(what=label, who=who))

        if fit is None:
            return words(len(names), True)
        width, lines, role = fit
        for hint in (True, False):
            for k in range(len(names), 0, -1):
                text = words(k, hint)
                if len(D.wrap(self.theme, text, width, role)) <= lines:
                    return text
        return words(1, False)

    def show_sheet(self) -> None:
        self.app.go("scorekeeper_sheet", sheet=self.sheet, entry_state=self.state())

    def state(self) -> dict[str, Any]:
        """What is entered so far (kept when going to the score sheet and back)."""
        return {"entries": {k: (list(v) if isinstance(v, list) else v) for k, v in self.entries.items()},
                "entered": set(self.entered), "focus": self.focus, "hand": self.sheet.hand_number}

    def restore(self, state: dict[str, Any]) -> None:
        self.entries = state["entries"]
        self.entered = set(state["entered"])
        self.focus = state["focus"]
        self._autofill()

    def ask_undo(self) -> None:
        ask_undo(self.app, self.sheet)

    def menu(self) -> None:
        ask_leave(self.app, self.sheet)

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
        head_w = th.width - self._bar_right - 3 * th.pad
        D.text(surface, th, self.heading(), (2 * th.pad, th.u(4)), "body", T.TEXT, bold=True, max_width=head_w)
        shooter = sheet.moon_shooter(self.entries)
        if shooter is not None and not sheet.over:
            sub, colour = _("{name} shot the moon: scored as chosen below").format(name=sheet.names[shooter]), T.ACCENT
        elif self.last_hand:
            sub, colour = _("Hand {n} entered; {dealer} deals").format(n=sheet.hand_number,
                                                                         dealer=sheet.names[sheet.dealer]), T.GOOD
        else:
            sub, colour = self.intro(), T.TEXT_DIM
        if th.font("small").size(sub)[0] > head_w:  # too long for the bar: the short form
            if shooter is not None and not sheet.over:
                sub = _("{name} shot the moon").format(name=sheet.names[shooter])
            elif ";" in sub:
                sub = sub.split(";")[0].strip()
        sub_y = th.u(6) + th.font("body", bold=True).get_linesize() if self.portrait else th.u(32)
        D.text(surface, th, sub, (2 * th.pad, sub_y), "small", colour, max_width=head_w)
        hy = self.bar_h + th.u(2)
        for heads in self.col_x:
            for label, x, w in heads:
                if not label:  # a toggle's column: each toggle says what it is
                    continue
                words = _(label)
                if th.font("small").size(words)[0] > w + th.pad and label in SYMBOLS:  # too narrow: the suit
                    words = SYMBOLS[label]
                D.text(surface, th, words, (x + w // 2, hy), "small", T.ACCENT, "midtop", max_width=w + th.pad)
        # what the pad fills
        if self.focus is not None:
            key, seat = self.focus
            who = _("nobody") if seat < 0 else sheet.names[seat]
            ask = f"{_(self._field(key)['label'])}: {who}"
        else:
            ask = _("tap a box to change it")
        ask_y = hy if self.pad_rect.y <= self.top else self.pad_rect.y - th.u(4) - th.font("small").get_height()
        free_column = self.focus is None and self.pad_rect.y <= self.top  # no pad showing: its column is free
        side_y = ask_y
        if free_column:
            for line in D.wrap(th, ask, self.pad_rect.width, "small"):
                side_y = D.text(surface, th, line, (self.pad_rect.centerx, side_y), "small", T.TEXT_DIM, "midtop",
                                max_width=self.pad_rect.width).bottom
        else:
            D.text(surface, th, ask, (self.pad_rect.centerx, ask_y), "small", T.TEXT if self.focus else T.TEXT_DIM,
                   "midtop", max_width=self.pad_rect.width)
        small_h = th.font("small").get_height()
        body_h = th.font("body", bold=True).get_height()
        stacked = body_h + small_h <= self.row_h
        for s, r in enumerate(self.name_rects):
            if s % 2:
                pygame.draw.rect(surface, T.FELT_DARK, (r.x, r.y, self.col_w, r.height))
            total = _("total {n}").format(n=sheet.totals[s])
            if self.last_points is not None:
                total += f" ({self.last_points[s]:+d})"
            if stacked:
                if th.font("small").size(total)[0] > r.width - th.pad:  # the number alone where the words do not fit
                    total = str(sheet.totals[s])
                D.text(surface, th, sheet.names[s], (r.x + th.pad, r.centery + th.u(1)), "body", T.TEXT, "bottomleft",
                       bold=True, max_width=r.width - th.pad)
                D.text(surface, th, total, (r.x + th.pad, r.centery + th.u(1)), "small", T.TEXT_DIM, "topleft",
                       max_width=r.width - th.pad)
            else:  # a short row: the name, and the total beside it (left to the sheet when there is no room)
                name_w = th.font("body", bold=True).size(sheet.names[s])[0]
                tw = th.font("small").size(total)[0]
                if name_w + tw + 3 * th.pad > r.width:
                    total = str(sheet.totals[s])
                    tw = th.font("small").size(total)[0]
                if name_w + tw + 3 * th.pad > r.width:
                    total, tw = "", 0
                D.text(surface, th, sheet.names[s], (r.x + th.pad, r.centery), "body", T.TEXT, "midleft", bold=True,
                       max_width=r.width - tw - 3 * th.pad)
                if total:
                    D.text(surface, th, total, (r.right - th.pad, r.centery), "small", T.TEXT_DIM, "midright")
        if self.nobody_rect is not None:
            r = self.nobody_rect
            what = _("cancelled trick")
            if th.font("small").size(what)[0] <= r.width - th.pad:
                D.text(surface, th, _("Nobody"), (r.x + th.pad, r.centery + th.u(1)), "body", T.TEXT_DIM, "bottomleft",
                       max_width=r.width - th.pad)
                D.text(surface, th, what, (r.x + th.pad, r.centery + th.u(1)), "small", T.TEXT_DIM, "topleft",
                       max_width=r.width - th.pad)
            else:  # too narrow for the second line at a readable size: "Nobody" alone
                role = "body" if th.font("body").size(_("Nobody"))[0] <= r.width - th.pad else "small"
                D.text(surface, th, _("Nobody"), (r.x + th.pad, r.centery), role, T.TEXT_DIM, "midleft",
                       max_width=r.width - th.pad)
        # the check line and the reason, beside the buttons (the moon choice takes their place)
        if self.moon_self.visible and not sheet.over:
            return
        y = self.bottom_y + th.u(2)
        parts = tally_words(sheet.tally(self.entries))
        note = _(" (nobody's included)")  # left out of a check too wide for its line
        parts = [pt[: -len(note)] if pt.endswith(note) and th.font("small").size(pt)[0] > self.line_w else pt
                 for pt in parts]
        line = "   ".join(parts)
        if len(parts) > 1 and th.font("small").size(line)[0] > self.line_w:  # one check a line
            for part in parts[:2]:
                D.text(surface, th, part, (2 * th.pad, y), "small", T.TEXT, max_width=self.line_w)
                y += small_h
            y += th.u(2)
        else:
            D.text(surface, th, line, (2 * th.pad, y), "small", T.TEXT, max_width=self.line_w)
            y += small_h + th.u(2)
        reason = self.reason()
        if reason is not None:  # the sheet's reasons are English sentences: in the kiosk's language
            from ..referee_words import translate

            reason = translate(reason)
        x, w, anchor = 2 * th.pad, self.line_w, "topleft"
        if reason is None:
            text, role, colour = self.ready_text(), "body", T.GOOD
        else:
            text, role, colour = reason, "small", (T.BAD_TEXT if self.refusal else T.ACCENT)
        line_h = th.font(role).get_height()
        fits = y + len(D.wrap(th, text, w, role)) * line_h <= th.height
        if free_column and not sheet.over and not fits:  # the pad's column is free: the verdict goes there
            x, w, y = self.pad_rect.centerx, self.pad_rect.width, side_y + th.u(8)
            anchor = "midtop"
        if sheet.over:
            D.text(surface, th, _("The game is over: see the score sheet."), (x, y), "small", T.ACCENT, anchor,
                   max_width=w)
            return
        bottom = (self.bottom_y - th.pad if anchor == "midtop" else
                  self.enter_btn.rect.y - th.u(2) if self.portrait else th.height)
        room = max(1, (bottom - y) // line_h)
        if reason is not None and not self.refusal and len(D.wrap(th, text, w, role)) > room and self.missing():
            text = self._missing_text(self.missing(), fit=(w, room, role))  # fewer names, not cut off
        for part in D.wrap(th, text, w, role):
            if y + line_h > bottom:
                break
            y = D.text(surface, th, part, (x, y), role, colour, anchor, max_width=w).bottom

    def heading(self) -> str:
        """The bar's first line: the game and the hand being entered."""
        from ..gameinfo import title

        return _("{game}: hand {n}").format(game=title(self.sheet.GAME_ID), n=self.sheet.hand_number + 1)

    def ready_text(self) -> str:
        """What the verdict line says when the entry can be entered."""
        return _("Ready: tap Enter hand")

    def intro(self) -> str:
        """The bar's second line before anything is entered."""
        return _("{dealer} deals; keeping score for your own cards").format(dealer=self.sheet.names[self.sheet.dealer])

    def reason(self) -> str | None:
        """Why the entry cannot be entered as it stands (None: it can)."""
        if self.refusal:
            return self.refusal
        missing = self.missing()
        if missing:
            return self._missing_text(missing)
        return self.problem()

    def problem(self) -> str | None:
        """Why the filled-in boxes cannot be the next hand (None: they can)."""
        return self.sheet.check(self.entries)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(entries={k: (list(v) if isinstance(v, list) else v) for k, v in self.entries.items()},
                 tally=self.sheet.tally(self.entries), reason=self.reason(), refusal=self.refusal,
                 totals=self.sheet.totals[:], hand=self.sheet.hand_number,
                 moon_shooter=self.sheet.moon_shooter(self.entries), texts=list(self.texts),
                 focus=None if self.focus is None else list(self.focus), auto=sorted(list(c) for c in self.auto),
                 last_hand=self.last_hand)
        return m


def refusal_words(e: ValueError) -> str:
    """Why an entry was refused: an EntryError's reason, else the error's words."""
    return getattr(e, "reason", None) or str(e)


def ask_undo(app: Any, sheet: ScoreSheet) -> None:
    """Confirm, then take back the last hand (its entries come back for re-entry) or
    correction."""
    from .confirm import ConfirmScene

    what = sheet.last_undo_text()
    if what is not None:
        from ..referee_words import translate

        what = translate(what)
    if what is None:
        app.push(ConfirmScene(app, _("Nothing to undo"), _("No hand has been entered yet."), yes="OK", no="Back"))
        return

    def undo() -> None:
        taken = sheet.undo()
        entries = taken.get("entries")
        app.switch(ScorekeeperEntryScene(app, sheet, dict(entries) if entries is not None else None))

    def safe_undo() -> None:
        try:
            undo()
        except ValueError as e:  # the journal could not record it: nothing was taken back
            app.push(ConfirmScene(app, _("Could not undo"), str(e), yes="OK", no=None))

    app.push(ConfirmScene(app, _("Undo {what}?").format(what=what),
                          _("Its scores come off the sheet; a hand's entries come back to be corrected and "
                            "entered again."), yes="Undo", no="Keep", on_yes=safe_undo))


def ask_leave(app: Any, sheet: ScoreSheet | None = None) -> None:
    """Menu: back to the home screen. The sheet stays in the journal, resumable from there."""
    from .confirm import ConfirmScene

    def leave() -> None:
        app.session = None
        app.go("home")

    app.push(ConfirmScene(app, _("Leave this score sheet?"),
                          _("It is kept: \"Resume score sheet\" on the home screen brings it back. Starting a new "
                            "sheet saves this one as an unfinished record."),
                          yes="Leave", no="Stay", on_yes=leave))
