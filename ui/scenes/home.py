"""Home: choose the game and the number of players, then seats, options, rules, start."""

from __future__ import annotations

import functools
from typing import Any

import pygame

from trickref.engine.games import GAME_IDS

from .. import draw as D
from .. import theme as T
from ..i18n import LANGUAGES, _, ngettext
from ..scene import Scene
from ..setup import Setup, player_counts, title
from ..widgets import Button, Stepper


def option_words(name: str) -> str:
    """A rule option's label in the kiosk's language (its id when it has none)."""
    from .options import LABELS

    return _(LABELS[name]) if name in LABELS else name.replace("_", " ")


class HomeScene(Scene):
    name = "home"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.pending: Any = None  # the unfinished keep-score sheet, if any
        self.left_game: Any = None  # the unfinished refereed game in the journal (ui.resume.Unfinished)
        if not isinstance(app.setup, Setup):
            app.setup = Setup()
        self.setup: Setup = app.setup

    def layout(self) -> None:
        th = self.theme
        W, H, p = th.width, th.height, th.pad
        top = th.u(70)
        col_w = th.u(300)
        self.game_buttons: list[Button] = []
        tall = th.width < th.u(600)  # a portrait screen: the games in two columns, everything else under them
        if tall:
            top = th.u(80)
            gw = (W - 5 * p) // 2
            gh = max(th.touch, 2 * th.font("body").get_linesize() + th.u(4))
            for i, g in enumerate(GAME_IDS):
                r, c = divmod(i, 2)
                b = Button(title(g), functools.partial(self.pick, g),
                           pygame.Rect(2 * p + c * (gw + p), top + r * (gh + p), gw, gh), name=f"game {g}")
                b.selected = g == self.setup.game
                self.game_buttons.append(b)
            x = 2 * p
            self._title_y = top + (-(-len(GAME_IDS) // 2)) * (gh + p) + p
            top = self._title_y + th.font("large", bold=True).get_height() + th.u(4) - th.u(40)
        else:
            n = len(GAME_IDS)  # the catalog's games: five built in, plug-ins after them
            bh = (H - top - p * (n + 2)) // n
            cols = 1 if bh >= th.touch else 2  # too many for one column: two, half as wide
            rows = -(-n // cols)
            bh = max(th.touch, (H - top - p * (rows + 2)) // rows)
            bw = (col_w - (cols - 1) * p) // cols
            for i, g in enumerate(GAME_IDS):
                r, c = divmod(i, cols)
                b = Button(title(g), functools.partial(self.pick, g),
                           pygame.Rect(2 * p + c * (bw + p), top + r * (bh + p), bw, bh), name=f"game {g}")
                b.selected = g == self.setup.game
                self.game_buttons.append(b)
            x = 2 * p + col_w + 3 * p
            self._title_y = top
        rw = W - x - 2 * p
        counts = player_counts(self.setup.game)
        self.count = Stepper(_("Players"), self.setup.players, self.set_count, pygame.Rect(x, top + th.u(40), rw, th.touch + p),
                             minimum=min(counts), maximum=max(counts))
        self.count.enabled = len(counts) > 1
        half = (rw - p) // 2
        y = top + th.u(40) + th.touch + 3 * p
        # tall enough for a label on two lines (long French and Turkish words, large text)
        mh = max(th.touch, 2 * th.font("body").get_linesize() + th.u(2))
        self.seats_btn = Button(_("Players & bots"), lambda: self.app.go("players"), pygame.Rect(x, y, half, mh))
        self.options_btn = Button(_("Rule options"), lambda: self.app.go("options"), pygame.Rect(x + half + p, y, half, mh))
        y += mh + p
        self.rules_btn = Button(_("How to play"), lambda: self.app.go("rules"), pygame.Rect(x, y, half, mh))
        self.settings_btn = Button(_("Settings"), lambda: self.app.go("pin"), pygame.Rect(x + half + p, y, half, mh),
                                   color=T.BUTTON_OFF)
        keep_w = (rw - p) // 2  # "Keep score (own cards)": the kiosk keeps the sheet for a table's own cards
        self.start_btn = Button(_("Start game"), self.start, pygame.Rect(x, H - 2 * p - th.u(72), rw - keep_w - p, th.u(72)),
                                color=T.BUTTON_ON, role="large")
        from .scorekeeper_entry import pending_sheet

        # an unfinished keep-score sheet (left with Menu, or cut by a restart) waits in its journal
        self.pending = pending_sheet(self.app)
        keep = _("Resume score sheet") if self.pending is not None else _("Keep score (own cards)")
        self.keep_btn = Button(keep, self.keep_score,
                               pygame.Rect(x + rw - keep_w, H - 2 * p - th.u(72), keep_w, th.u(72)), role="small",
                               color=T.BUTTON_ON if self.pending is not None else T.BUTTON)
        # the language chooser: the current language in its own words; a tap moves to the next
        lang_w = th.u(210)
        self.language_btn = Button(LANGUAGES[self.app.settings.language], self.next_language,
                                   pygame.Rect(W - 2 * p - lang_w, p, lang_w, th.u(70) - 2 * p), name="language",
                                   role="small", color=T.BUTTON_OFF)
        self.widgets = [*self.game_buttons, self.count, self.seats_btn, self.options_btn, self.rules_btn,
                        self.settings_btn, self.start_btn, self.keep_btn, self.language_btn]
        self._info_top = y + mh + p
        from ..resume import unfinished_game

        # a refereed game left with Menu -> Leave (or kept by a failed resume) waits in its journal
        self.left_game = unfinished_game(self.app)
        self.resume_btn: Button | None = None
        if self.left_game is not None:
            ry = self.start_btn.rect.y - p - th.touch
            self.resume_btn = Button(_("Resume game") + ": " + self.left_game.describe(), self.resume,
                                     pygame.Rect(x, ry, rw, th.touch), name="Resume game", color=T.BUTTON_ON,
                                     role="small")
            self.widgets.append(self.resume_btn)
        self._x = x

    def next_language(self) -> None:
        """English -> Français -> Kreyòl ayisyen -> Türkçe -> English, kept in the configuration
        file at once (a table that has no admin at hand still keeps its language)."""
        settings = self.app.settings
        settings.next_language()
        if not settings.locked:
            try:
                settings.save()
            except (OSError, ValueError):
                pass  # the language still changes for this session; settings say why on Done
        self.relayout()

    def pick(self, game: str) -> None:
        self.setup.choose_game(game)  # its last setup, remembered (ui.memory)
        self.setup.touch()
        self.relayout()

    def set_count(self, n: int | None) -> None:
        counts = player_counts(self.setup.game)
        if n is None:
            return
        if n not in counts:  # keep within the allowed counts
            want = n
            n = min(counts, key=lambda c: abs(c - want))
        self.setup.players = n
        self.count.value = n
        self.setup.touch()

    def start(self) -> None:
        """Start game; an unfinished game in the journal is not replaced silently (asked first,
        then saved as an unfinished record)."""
        from ..resume import ask_new_game, start_new_game

        st = self.setup
        ask_new_game(self.app, lambda: start_new_game(self.app, st.game, st.players, st.seat_names(),
                                                      st.game_options(), st.seat_bots()))

    def resume(self) -> None:
        from ..resume import resume_left_game

        resume_left_game(self.app)

    def keep_score(self) -> None:
        from .scorekeeper_entry import start_scorekeeping

        start_scorekeeping(self.app)

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        D.text(surface, th, "trickref", (2 * th.pad, th.pad), "title", T.ACCENT, bold=True)
        D.text(surface, th, _("choose a game"), (2 * th.pad, th.u(46)), "small", T.TEXT_DIM)
        st = self.setup
        D.text(surface, th, title(st.game), (self._x, self._title_y), "large", T.TEXT, bold=True,
               max_width=th.width - self._x - th.pad)
        humans = [st.names[s] for s in range(st.players) if s not in st.bots]
        bots = len(st.seat_bots())
        line = ngettext("{humans} + {n} bot", "{humans} + {n} bots", bots).format(
            humans=", ".join(humans) or _("no humans"), n=bots)
        below = self.resume_btn.rect.y if self.resume_btn is not None else self.start_btn.rect.y
        if self._info_top + th.font("small").get_height() > below:
            return  # the Resume button takes the place of the seats and options lines
        D.text(surface, th, line, (self._x, self._info_top), "small", T.TEXT_DIM, max_width=th.width - self._x - th.pad)
        y2 = self._info_top + th.font("small").get_height() + th.u(2)
        if y2 + th.font("small").get_height() > below:
            return  # the Resume button takes the options line's place
        changed = [k for k, v in st.game_options().items() if v != next(s.default for s in st.specs() if s.name == k)]
        target = st.game_options().get("target")
        opt = _("target {target}").format(target=target) + "; " + (
            _("changed: {names}").format(names=", ".join(option_words(k) for k in changed)) if changed
            else _("other options as the rules page"))
        room = th.width - self._x - th.pad
        for line in D.wrap(th, opt, room, "small"):  # on two lines when it is long and there is room
            if y2 + th.font("small").get_height() > below:
                break
            D.text(surface, th, line, (self._x, y2), "small", T.TEXT_DIM, max_width=room)
            y2 += th.font("small").get_height()

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(game=self.setup.game, players=self.setup.players,
                 pending_sheet=None if self.pending is None else self.pending.TITLE,
                 left_game=None if self.left_game is None else self.left_game.game)
        return m
