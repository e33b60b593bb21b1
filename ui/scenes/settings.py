"""Admin settings (behind the PIN): serial port, pin map, sound, four-colour suits, large text."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..i18n import LANGUAGES, _
from ..keyboard import KeyboardScene
from ..scene import Scene
from ..widgets import Button, LabelledButton, ScrollArea, Toggle, Widget


def pin_map(settings: Any) -> dict[str, object]:
    """The seat panels' pin map to show: the configuration's (device.config)."""
    return dict(settings.pin_map)


ROLE_WORDS = {"minus": "-", "plus": "+", "ok": "OK", "led": "LED"}


def pin_lines(pins: dict[str, object]) -> list[str]:
    """One line per seat ('seat 1:  - mcp0:A0   + mcp0:A1 ...'), other pins one per line."""
    seats: dict[int, list[str]] = {}
    other: list[str] = []
    for name, pin in pins.items():
        parts = name.split()
        if len(parts) == 3 and parts[0] == "seat" and parts[1].isdigit():
            seats.setdefault(int(parts[1]), []).append(f"{ROLE_WORDS.get(parts[2], parts[2])} {pin}")
        else:
            other.append(f"{name}: {pin}")
    return [_("seat {n}:").format(n=k + 1) + "   " + "    ".join(v) for k, v in sorted(seats.items())] + other


class _Text(Widget):
    def __init__(self, text: str, color: T.Color = T.TEXT_DIM, role: str = "small") -> None:
        super().__init__()
        self.text, self.color, self.role = text, color, role

    def draw(self, surface: Any, theme: T.Theme) -> None:
        D.text(surface, theme, self.text, (self.rect.x + theme.pad, self.rect.centery), self.role, self.color, "midleft",
               max_width=self.rect.width - 2 * theme.pad)


class SettingsScene(Scene):
    name = "settings"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too

    def layout(self) -> None:
        th = self.theme
        s = self.app.settings
        narrow = th.width < th.u(600)
        top = self.header_bottom(self._note(), right=2 * th.pad if narrow else None) + th.u(4)
        row_h = LabelledButton.height(th)
        self.port_btn = Button(s.serial_port, self.edit_port, name="serial port")
        self.pin_btn = Button(_("Change PIN"), self.change_pin)
        self.toggles = {
            "sound": Toggle(_("Sound"), s.sound, lambda v: self.set("sound", v)),
            "four_colour": Toggle(_("Four-colour suits"), s.four_colour, lambda v: self.set("four_colour", v)),
            "large_text": Toggle(_("Large text"), s.large_text, lambda v: self.set("large_text", v)),
        }
        self.language_btn = Button(LANGUAGES[s.language], self.next_language, name="language")
        rows: list[tuple[int, Widget]] = [
            (row_h, LabelledButton(_("Language"), self.language_btn)),
            (row_h, LabelledButton(_("Dealer serial port"), self.port_btn)),
            *[(th.touch + th.u(6), t) for t in self.toggles.values()],
            (row_h, LabelledButton(_("Admin PIN"), self.pin_btn)),
            (row_h, LabelledButton(_("Club night"), Button(_("Club night..."), self.club, name="club night"))),
            (th.u(40), _Text(_("GPIO pin map (seat panels)"), T.ACCENT, "body")),
        ]
        pins = pin_map(s)
        if not pins:
            rows.append((th.u(30), _Text(_("no pin map configured"))))
        for line in pin_lines(pins):
            # a seat's four pins on two lines when one is too narrow (a portrait screen)
            parts = line.split("    ")
            if th.font("small").size(line)[0] > th.width - 6 * th.pad and len(parts) > 2:
                half = (len(parts) + 1) // 2
                lines = ["    ".join(parts[:half]), "        " + "    ".join(parts[half:])]
            else:
                lines = [line]
            for ln in lines:
                rows.append((max(th.u(26), th.font("small").get_height() + th.u(2)), _Text(ln)))
        self.area = ScrollArea(pygame.Rect(th.pad, top, th.width - 2 * th.pad, th.height - top - th.touch - 3 * th.pad))
        self.area.set_rows(rows)
        y = th.height - th.touch - th.pad
        self.done = Button(_("Done"), self.close, pygame.Rect(th.width - th.u(180) - 2 * th.pad, y, th.u(180), th.touch))
        self.widgets = [self.area, self.done]

    def set(self, name: str, value: Any) -> None:
        setattr(self.app.settings, name, value)
        self.app.apply_settings()

    def next_language(self) -> None:
        """English -> Français -> Kreyòl ayisyen -> Türkçe: saved with the others on Done."""
        self.app.settings.next_language()
        self.relayout()

    def edit_port(self) -> None:
        def done(text: str) -> None:
            try:
                self.app.settings.serial_port = text.strip() or "auto"
            except ValueError as e:
                self.message = str(e)
            self.port_btn.text = self.app.settings.serial_port
            self.needs_redraw = True

        kb = KeyboardScene(self.app, title=_("Serial port (auto, /dev/ttyACM0, socket://host:port)"),
                           text=self.app.settings.serial_port, on_done=done, max_len=60)
        kb.shift = False
        self.app.push(kb)

    def change_pin(self) -> None:
        def done(text: str) -> None:
            try:
                self.app.settings.set_pin(text)
                self.message = _("PIN changed")
            except ValueError as e:
                self.message = str(e)
            self.needs_redraw = True

        self.app.push(KeyboardScene(self.app, title=_("New admin PIN (4 to 8 digits)"), on_done=done, digits=True,
                                    secret=True, max_len=8))

    message = ""

    def club(self) -> None:
        """The club night scene (join, leave, status); these settings are saved first."""
        try:
            self.app.settings.save()
        except (OSError, ValueError) as e:
            self.message = _("could not save: {error}").format(error=e)
            self.needs_redraw = True
            return
        self.app.go("club")

    def close(self) -> None:
        try:
            self.app.settings.save()
        except (OSError, ValueError) as e:
            self.message = _("could not save: {error}").format(error=e)
            self.needs_redraw = True
            return
        self.app.go("home")

    def _note(self) -> str:
        note = self.message or _("saved when you tap Done")
        if not self.message and self.app.settings.default_pin:
            note = _("the admin PIN is still 0000: please change it")
        return note

    def _sub_lines(self, sub: str | None, room: int) -> list[str]:
        return D.wrap(self.theme, sub, room, "small") if sub else []  # as many lines as it takes

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        self.title(surface, _("Settings"), self._note(), right=2 * th.pad if th.width < th.u(600) else None)
