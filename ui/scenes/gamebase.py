"""What every in-game scene shares: the view, the top bar with Scores / Undo / Menu, plates."""

from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from .. import draw as D
from .. import tableview as TV
from .. import theme as T
from ..i18n import N_, _
from ..scene import Scene
from ..widgets import Button, Widget


class GameScene(Scene):
    name = "game"
    show_undo = True
    fit_bar = False  # the bar's buttons as wide as their labels need (a scene with many of them)
    letters_below = False  # the referee's words to one seat at the foot of the screen (not under the bar)
    # the referee's last warning to the whole table under the bar (the screens of the hand in
    # play: elsewhere, the score sheet shows a correction itself, the summary and game over the
    # hand's end, and the fault screen its own words)
    shows_notice = False
    # set by the scene for the frame: room kept free at the right end of the words strip under
    # the bar, and the strip's least height (the play screen's top row of plates sits there
    # while the strip is shown, so it hides no seat)
    strip_inset = 0
    strip_min_h = 0

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.session = app.session
        self.view: dict[str, Any] = {}
        self.texts: list[str] = []
        self.letter_buttons: list[Button] = []  # the referee's words to one seat: OK, and "tap to see" (ui.letters)
        self._letters: dict[str, Any] = {"shown": [], "sealed": []}
        self._refusal_bottom = 0
        self._letters_cache: dict[str, Any] | None = None

    @property
    def g(self) -> dict[str, Any]:
        return self.view.get("game", {})

    @property
    def t(self) -> dict[str, Any]:
        return self.view.get("table", {})

    def refresh(self) -> None:
        self.view = self.session.view()

    def top_buttons(self) -> list[Widget]:
        """Menu, Undo, Scores and the scene's own buttons: at the right of the bar, or on a
        portrait screen in a row of their own under the title, across the screen."""
        th = self.theme
        w, h = th.u(100), th.touch
        x = th.width - th.pad
        out: list[Widget] = []
        self.bar_buttons: list[Button] = []
        specs = [(N_("Menu"), self.menu), (N_("Undo"), self.ask_undo), (N_("Scores"), self.scores),
                 *self.extra_buttons()]
        if not self.show_undo:
            specs = [s for s in specs if s[0] != "Undo"]
        gap = th.u(6)
        y = th.u(3)
        font = th.font("small")

        def need(text: str) -> int:
            """A one-word label (or a word it changes to) is not shrunk: its button is that wide."""
            words = [_(text), *(_(x) for x in self.other_labels(text))]
            return max([0, *(font.size(x)[0] + th.u(12) for x in words if " " not in x)])

        widths = {text: max(w, need(text)) for text, _fn in specs}
        if self.fit_bar:  # many buttons: each as wide as its label (every word it shows) needs
            def label(text: str) -> int:
                return max(font.size(x)[0] + th.u(8) for x in [_(text), *(_(y) for y in self.other_labels(text))])
            widths = {text: max(th.touch + th.u(8), label(text)) for text, _fn in specs}
        rows = [specs]
        self._bar_rows = 1
        if th.portrait:  # across the screen: equal shares, a wider word taking what it needs
            y = self._portrait_buttons_y
            room = th.width - 2 * th.pad - (len(specs) - 1) * gap
            if sum(need(text) for text, _fn in specs) > room:  # two rows rather than squeezed words
                half = -(-len(specs) // 2)
                rows = [specs[:half], specs[half:]]
                self._bar_rows = 2
            widths = {}
            for row in rows:
                room = th.width - 2 * th.pad - (len(row) - 1) * gap
                wide = {text: need(text) for text, _fn in row if need(text) > room // len(row)}
                rest = len(row) - len(wide)
                share = (room - sum(wide.values())) // rest if rest else 0
                widths.update({text: wide.get(text, share) for text, _fn in row})
        for r, row in enumerate(rows):
            x = th.width - th.pad
            for text, fn in row:
                bw = widths[text]
                x -= bw
                b = Button(_(text), fn, pygame.Rect(x, y + r * (h + gap), bw, h), color=T.BUTTON_OFF, role="small",
                           name=text)
                out.append(b)
                self.bar_buttons.append(b)
                x -= gap
        self._bar_right = 0 if th.portrait else th.width - x
        return out

    @property
    def _portrait_buttons_y(self) -> int:
        """Portrait: the bar's buttons go under the title and the status line."""
        th = self.theme
        return TV.status_y(th) + th.font("small").get_height() + th.u(6)

    @property
    def bar_height(self) -> int:
        th = self.theme
        if th.portrait:
            rows = getattr(self, "_bar_rows", 1)
            return self._portrait_buttons_y + rows * th.touch + (rows - 1) * th.u(6) + th.u(6)
        return th.touch + th.u(8)

    def menu(self) -> None:
        from .confirm import ConfirmScene

        def leave() -> None:
            self.app.end_session()
            self.app.go("home")

        self.app.push(ConfirmScene(self.app, _("Leave this game?"),
                                   _("It is kept: \"Resume game\" on the home screen brings it back, and the kiosk "
                                     "resumes it when it starts again. Starting another game asks first and saves "
                                     "this one as an unfinished record."),
                                   yes=_("Leave"), no=_("Stay"), on_yes=leave))

    def ask_undo(self) -> None:
        from .confirm import ConfirmScene

        table = self.session.table
        if not table.can_undo():
            self.app.push(ConfirmScene(self.app, _("Nothing to undo"), _("No player has acted yet in this hand."), yes=_("OK"),
                                       no=_("Back")))
            return

        def undo() -> None:
            self.session.undo()
            self.session.conceal()
            self.app.route()

        self.app.push(ConfirmScene(self.app, _("Undo the last move?"), self.undo_words(), yes=_("Undo"), no=_("Keep"),
                                   on_yes=undo))

    def undo_words(self) -> str:
        """What Undo takes back, in the players' words: the last move of a person at the table
        and every bot move after it ("Takes back: Ana played 7♥; then Ben played 9♥")."""
        from ..undo_words import undo_preview

        table = self.session.table
        moves = undo_preview(table)
        if not moves:
            return _("Takes back the last human move of this hand (and the bots' moves after it).")
        return _("Takes back: {moves}").format(moves=_("; then ").join(moves))

    def extra_buttons(self) -> list[tuple[str, Any]]:
        return []

    def other_labels(self, name: str) -> list[str]:
        """The other words the bar button ``name`` can show (English, to translate)."""
        return []

    def scores(self) -> None:
        self.app.go("scoresheet")

    def update(self, dt: float) -> None:
        pass

    def draw(self, surface: Any) -> None:
        self.refresh()
        self._letters_cache = None  # laid out again for this frame's view (ui.letters)
        prev = D.text_log
        D.text_log = self.texts = []
        try:
            super().draw(surface)
            self.draw_refusal(surface)
            self.draw_letters(surface)
        finally:
            if prev is not None:
                prev.extend(self.texts)
            D.text_log = prev

    def draw_refusal(self, surface: Any) -> None:
        """Why the last entry (a tap, a panel press, a card fed) was refused, in the referee's
        words, until an entry is taken: on top, under the bar, for everyone at the table, over
        what is drawn there. With no refusal, the referee's last warning to the whole table (a
        card gone to the reject pocket and who takes it back, a score correction), likewise, in a
        yellow frame. The play screen keeps whose turn it is below it (``strip_bottom``)."""
        lines = self._strip_lines("refusal")
        border = T.BAD
        if not lines:
            lines, border = self._strip_lines("notice"), T.ACCENT
        self._refusal_bottom = self.bar_height
        if not lines:
            return
        th = self.theme
        width = th.width - 4 * th.pad - self.strip_inset
        rect = pygame.Rect(2 * th.pad, self.bar_height + th.u(4), width, self._strip_height(lines))
        D.panel(surface, rect, T.PANEL, border=border)
        y = rect.y + th.u(4)
        for line in lines:
            D.text(surface, th, line, (rect.x + th.pad, y), "small", T.TEXT, max_width=width - 2 * th.pad)
            y += th.text_px("small") * 5 // 4
        self._refusal_bottom = rect.bottom

    def strip_bottom(self, notice_only: bool = False) -> int:
        """Where the strip ``draw_refusal`` draws this frame ends (the bar's bottom when none);
        ``notice_only``: where the notice's would, a refusal drawn over it or not."""
        lines = self._strip_lines("notice") if notice_only else \
            self._strip_lines("refusal") or self._strip_lines("notice")
        return self.bar_height + self.theme.u(4) + self._strip_height(lines) if lines else self.bar_height

    def _strip_lines(self, key: str) -> list[str]:
        """The table's words under ``key`` ("refusal", "notice") in the kiosk's language, as
        the strip under the bar shows them (up to three lines, four beside the play screen's top
        row); [] when there are none."""
        words = self.t.get(key)
        if not words or (key == "notice" and not self.shows_notice):
            return []
        from ..referee_words import translate

        th = self.theme
        # (a line more beside the play screen's top row, which narrows the strip: the French
        # of the longest refusals takes four there)
        return D.wrap(th, translate(str(words)), th.width - 6 * th.pad - self.strip_inset,
                      "small")[:4 if self.strip_inset else 3]

    def _strip_height(self, lines: list[str]) -> int:
        th = self.theme
        return max(th.u(8) + len(lines) * th.text_px("small") * 5 // 4, self.strip_min_h)

    # ------------------------------------------------------------ the referee's words to one seat
    def letters_now(self) -> tuple[list[Any], list[int]]:
        """(the letters everyone may read now, the seats with a letter only they may read): on
        the shared screen (no hand on it), a letter naming a card is sealed, and a seat with a
        sealed letter has all its letters read behind the tap, in order. A screen showing a
        player's hand (simulated mode) shows none: the hand says what the player holds, the
        cards are moved by the simulated table, and the screen has no room to spare; they wait
        for the shared screen (the hand-off) and its "tap to see"."""
        if TV.view_seat(self.view) is not None or not hasattr(self.session, "letters"):
            return [], []
        mine = self.session.letters()
        sealed = sorted({x.seat for x in mine if x.secret})
        return [x for x in mine if x.seat not in sealed], sealed

    def _letters_layout(self) -> dict[str, Any]:
        """The letters' block laid out from y = 0: the panel of words shown (its lines), the
        "tap to see" chips, and its height (0: no letter)."""
        from ..referee_words import seat_words

        shown, sealed = self.letters_now()
        out: dict[str, Any] = {"shown": [], "sealed": sealed, "words": [], "lines": [], "panel": None, "chips": [],
                               "height": 0}
        if not shown and not sealed:
            return out
        th = self.theme
        names = list(self.g.get("names") or [])
        x0, width, gap = 2 * th.pad, th.width - 4 * th.pad, th.u(4)
        ok_w = max(th.touch, th.font("small").size(_("OK"))[0] + th.u(16))
        room = width - ok_w - 3 * th.pad
        # the oldest letters first, as many whole ones as 3 lines hold (OK reads those; the next
        # ones come up then)
        lines: list[str] = []
        for x in shown:
            words = seat_words(x.text)
            more = D.wrap(th, words, room, "small")
            if out["shown"] and len(lines) + len(more) > 3:
                break
            out["shown"].append(x)
            out["words"].append(words)
            lines += more[:3]
        shown = out["shown"]
        line_h = th.text_px("small") * 5 // 4
        panel = pygame.Rect(x0, 0, width, max(th.touch + th.u(8), th.u(8) + len(lines) * line_h)) if shown else None
        x, y = x0, (panel.bottom + gap if panel is not None else 0)
        for seat in sealed:
            name = names[seat] if seat < len(names) else str(seat + 1)
            text = _("{name}: a message for you (tap to see)").format(name=name)
            w = min(width, th.font("small").size(text)[0] + th.u(24))
            if x > x0 and x + w > x0 + width:
                x, y = x0, y + th.touch + gap
            out["chips"].append((seat, text, pygame.Rect(x, y, w, th.touch)))
            x += w + th.u(6)
        out.update(lines=lines, panel=panel, ok_w=ok_w, room=room, line_h=line_h,
                   height=out["chips"][-1][2].bottom if out["chips"] else panel.bottom if panel is not None else 0)
        return out

    @property
    def content_top(self) -> int:
        """Where a scene's own content starts: under the bar and, when the letters sit under the
        bar, under them (they take a strip of their own: nothing drawn under them)."""
        h = 0 if self.letters_below else int(self._letters_block.get("height", 0))
        return self.bar_height + (h + 2 * self.theme.u(4) if h else 0)

    @property
    def _letters_block(self) -> dict[str, Any]:
        block = getattr(self, "_letters_cache", None)
        if block is None:
            block = self._letters_cache = self._letters_layout()
        return block

    def draw_letters(self, surface: Any) -> None:
        """Under the bar, in a strip of their own (``content_top``; ``letters_below``: at the
        foot): what the referee told one seat. Words that name no card, and a revealed seat's
        own, as they are, with OK (read); for a seat whose words name a card, only "Ben: a
        message for you (tap to see)", which opens them behind a hand-off (ui.scenes.letter)."""
        block = self._letters_block
        self.letter_buttons = []
        self._letters = {"shown": list(block["words"]), "sealed": list(block["sealed"])}
        if not block["height"]:
            return
        th = self.theme
        gap = th.u(4)
        top = self.letters_foot() - block["height"] if self.letters_below else max(self.bar_height, self._refusal_bottom) + gap
        panel = block["panel"]
        if panel is not None:
            panel = panel.move(0, top)
            D.panel(surface, panel, T.PANEL, border=T.ACCENT)
            ty = panel.y + th.u(4)
            for line in block["lines"]:
                D.text(surface, th, line, (panel.x + th.pad, ty), "small", T.TEXT, max_width=block["room"])
                ty += block["line_h"]
            ok_w = block["ok_w"]
            shown = block["shown"]
            self.letter_buttons.append(Button(_("OK"), lambda: self._read(shown),
                                              pygame.Rect(panel.right - ok_w - th.u(4), panel.y + th.u(4), ok_w, th.touch),
                                              color=T.BUTTON_ON, role="small", name="letters OK"))
        for seat, text, rect in block["chips"]:
            self.letter_buttons.append(Button(text, partial(self._open_letter, seat), rect.move(0, top),
                                              color=T.BUTTON, role="small", name=f"letter for seat {seat + 1}"))
        for b in self.letter_buttons:
            b.pressed = self.held is not None and b.name == self.held
            b.draw(surface, th)

    def letters_foot(self) -> int:
        """Where the letters end when they are drawn at the foot (``letters_below``)."""
        return self.theme.height - self.theme.pad

    def _read(self, letters: list[Any]) -> None:
        self.session.read_letters(letters)
        self.needs_redraw = True

    def _open_letter(self, seat: int) -> None:
        from .letter import LetterScene

        self.app.push(LetterScene(self.app, seat))

    def receive(self, event: Any) -> None:
        """The letters' buttons first (they are drawn over the table), then the scene's own."""
        down = event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1
        if self.letter_buttons:
            self._ensure_layout()
            self.restore_press(None if down else self.held)
            for b in self.letter_buttons:
                if b.visible and b.handle(event):
                    self.needs_redraw = True
                    held = [t for t in self.targets() if t.pressed]
                    self.held = held[0].name if held else None
                    return
        super().receive(event)

    def buttons(self) -> list[Button]:
        return [*self.letter_buttons, *super().buttons()]

    def draw_bar(self, surface: Any) -> None:
        pygame.draw.rect(surface, T.FELT_DARK, (0, 0, self.theme.width, self.bar_height))
        TV.status_bar(surface, self.theme, self.g, self.game_title, self._bar_right)

    @property
    def game_title(self) -> str:
        """The game's name in the kiosk's language (the session's own title is the engine's)."""
        from trickref.engine import catalog

        from ..gameinfo import title

        game = getattr(self.session, "game_id", None)
        return title(game) if catalog.known(game) else str(self.session.title)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["texts"] = list(self.texts)
        m["letters"] = dict(self._letters)
        return m
