"""Rule options of the chosen game, built from engine.options.SPECS (kind, default, choices)."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..i18n import N_, _
from ..scene import Scene
from ..setup import Setup
from ..widgets import Button, Choice, ScrollArea, Stepper, Toggle, Widget

LABELS = {
    "target": N_("Game ends at"), "first_bidder": N_("Who bids first"), "failed_nil_tricks_are_bags": N_("Failed Nil tricks are bags"),
    "passing": N_("Passing"), "no_points_on_first_trick": N_("No points on the first trick"),
    "last_trick_cancelled": N_("Cancelled last trick goes to"), "moon_self": N_("Moon: shooter scores"),
    "moon_others": N_("Moon: others score"), "score_all_tricks": N_("Score tricks over 13 (all 26)"),
    "trump": N_("Trump suit"), "must_beat": N_("Must beat (head the trick)"), "first_lead": N_("First lead by"),
    "blind_nil_margin": N_("Blind Nil when trailing by more than"), "cap_team_bid_at_13": N_("Team bid at most 13"),
    "nil_tricks_count_for_partner": N_("Nil tricks count for partner"), "loss_floor": N_("Lose at or below"),
    "omnibus": N_("Omnibus card (-10)"), "omnibus_card": N_("Omnibus card"),
}
CHOICE_WORDS = {
    "TD": "10\u2666", "JD": "J\u2666", "clubs": N_("\u2663 clubs"), "spades": N_("\u2660 spades"),
    "second": N_("second player"), "first": N_("first player"), "dealer": N_("the dealer"),
    "left": N_("dealer's left"), "nobody": N_("nobody"), "leader": N_("the leader"),
    "left-right": N_("left, then right"), "right": N_("always right"), "none": N_("no passing"),
}


def choice_words(choice: object) -> str:
    """A rule option's choice in words, in the kiosk's language."""
    word = CHOICE_WORDS.get(str(choice))
    return str(choice) if word is None else _(word)


def shown_presets(presets: tuple[Any, ...], default: Any, room: int) -> tuple[Any, ...]:
    """The preset buttons a row has room for, in the spec's order: the first ``room``, with the
    default always among them (partnership Spades' targets 100 / 200 / 300 / 500, default 500:
    a row with room for two shows 100 and 500, so the rules page's default is one tap away)."""
    first = tuple(presets[:room])
    if default in presets and default not in first and room > 0:
        return (*first[: room - 1], default)
    return first


class _Help(Widget):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def lines(self, theme: T.Theme, width: int) -> list[str]:
        return D.wrap(theme, self.text, width - theme.u(24), "small")

    def draw(self, surface: Any, theme: T.Theme) -> None:
        y = self.rect.y
        for line in self.lines(theme, self.rect.width):
            D.text(surface, theme, line, (self.rect.x + theme.u(16), y), "small", T.TEXT_DIM,
                   max_width=self.rect.width - theme.u(24))
            y += theme.font("small").get_height()


class _Label(Widget):
    """An option's name on its own line above its control (a narrow, portrait screen)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def lines(self, theme: T.Theme, width: int) -> list[str]:
        return D.wrap(theme, self.text, width - theme.u(16), "body")

    def draw(self, surface: Any, theme: T.Theme) -> None:
        y = self.rect.y
        for line in self.lines(theme, self.rect.width):
            y = D.text(surface, theme, line, (self.rect.x + theme.pad, y), "body", T.TEXT,
                       max_width=self.rect.width - theme.u(16)).bottom


class OptionsScene(Scene):
    name = "options"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.setup: Setup = app.setup

    def _setter(self, name: str) -> Any:
        def set_value(v: Any) -> None:
            self.setup.options[self.setup.game][name] = v
            self.setup.touch()  # remembered at once (ui.memory)
            self.needs_redraw = True
        return set_value

    def label_for(self, spec: Any) -> str:
        return _(LABELS[spec.name]) if spec.name in LABELS else spec.name.replace("_", " ")

    def label_above(self, spec: Any) -> bool:
        """On a narrow (portrait) screen a stepper's or choice's name goes on its own line above
        it, and a switch's too when it is longer than the room beside the switch."""
        th = self.theme
        if th.width >= th.u(600):
            return False
        if spec.kind != "bool":
            return True
        room = th.width - 4 * th.pad - th.u(170)
        return th.font("body").size(self.label_for(spec))[0] > room

    def widget_for(self, spec: Any) -> Widget:
        value = self.setup.options[self.setup.game].get(spec.name, spec.default)
        label = "" if self.label_above(spec) else self.label_for(spec)
        if spec.kind == "bool":
            return Toggle(label, bool(value), self._setter(spec.name))
        if spec.kind == "choice":
            return Choice(label, spec.choices, value, self._setter(spec.name), fmt=choice_words)
        step = 50 if spec.name == "target" and spec.default >= 100 else (10 if spec.name in ("blind_nil_margin",) else 1)
        if spec.name == "loss_floor":
            step = 100
        presets = shown_presets(spec.presets, spec.default, 3 if self.theme.width >= 1000 or not label else 2)
        return Stepper(label, value, self._setter(spec.name), step=step, minimum=spec.minimum, presets=presets)

    def layout(self) -> None:
        th = self.theme
        top = self.header_bottom(_("defaults follow the rules page; drag to scroll"), right=2 * self.theme.pad) + th.u(4)
        rows: list[tuple[int, Widget]] = []
        self.option_widgets: dict[str, Widget] = {}
        for spec in self.setup.specs():
            if self.label_above(spec):
                name_row = _Label(self.label_for(spec))
                k = len(name_row.lines(th, th.width - 2 * th.pad - 12))
                rows.append((k * th.font("body").get_height() + th.u(2), name_row))
            w = self.widget_for(spec)
            self.option_widgets[spec.name] = w
            rows.append((th.touch + th.u(6), w))
            help_row = _Help(_(spec.help))
            k = len(help_row.lines(th, th.width - 2 * th.pad - 12))  # the scroll list's row width
            rows.append((k * th.font("small").get_height() + th.u(8), help_row))
        self.area = ScrollArea(pygame.Rect(th.pad, top, th.width - 2 * th.pad, th.height - top - th.touch - 3 * th.pad))
        self.area.set_rows(rows)
        y = th.height - th.touch - th.pad
        self.reset = Button(_("Defaults"), self.defaults, pygame.Rect(2 * th.pad, y, th.u(180), th.touch), color=T.BUTTON_OFF)
        self.back = Button(_("Done"), lambda: self.app.go("home"), pygame.Rect(th.width - th.u(180) - 2 * th.pad, y, th.u(180), th.touch))
        self.widgets = [self.area, self.reset, self.back]

    def defaults(self) -> None:
        from trickref.engine.options import defaults

        self.setup.options[self.setup.game] = defaults(self.setup.game)
        self.setup.touch()
        self.relayout()

    def draw_content(self, surface: Any) -> None:
        from ..setup import title

        self.title(surface, _("Rule options: {game}").format(game=title(self.setup.game)),
                   _("defaults follow the rules page; drag to scroll"), right=2 * self.theme.pad)

    def _sub_lines(self, sub: str | None, room: int) -> list[str]:
        return D.wrap(self.theme, sub, room, "small") if sub else []  # as many lines as it takes

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["options"] = dict(self.setup.options[self.setup.game])
        return m
