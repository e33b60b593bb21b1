"""The on-screen keyboard: letters for player names, a number pad for the admin PIN.

It is a modal scene drawn over the screen that opened it; ``on_done(text)`` is called with
what was typed when OK is tapped (Cancel calls nothing). PIN entry shows dots, never digits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pygame

from . import draw as D
from . import theme as T
from .i18n import _
from .scene import Scene
from .widgets import Button, Widget

LETTER_ROWS = ("1234567890", "QWERTYUIOP", "ASDFGHJKL-", "ZXCVBNM.'")

# The second layer: the letters of the players' languages (French, Haitian Creole, Turkish)
# and the symbols a serial-port path or URL needs. Each key is (lower case, upper case): the
# Turkish dotless and dotted i do not follow str.upper() (i -> I, not İ).
ACCENT_ROWS: tuple[tuple[tuple[str, str], ...], ...] = (
    tuple((c, c) for c in "1234567890"),
    (("ç", "Ç"), ("ğ", "Ğ"), ("ı", "I"), ("i", "İ"), ("ö", "Ö"), ("ş", "Ş"), ("ü", "Ü"), ("é", "É"),
     ("è", "È"), ("ê", "Ê")),
    (("à", "À"), ("ò", "Ò"), ("ë", "Ë"), ("â", "Â"), ("î", "Î"), ("ô", "Ô"), ("û", "Û"), ("ù", "Ù"),
     ("ï", "Ï"), ("œ", "Œ")),
    tuple((c, c) for c in "/:_-.'@()"),
)


class KeyboardScene(Scene):
    name = "keyboard"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    modal = True

    def __init__(self, app: Any, title: str = "", text: str = "", on_done: Callable[[str], Any] | None = None,
                 digits: bool = False, secret: bool = False, max_len: int = 16,
                 on_cancel: Callable[[], Any] | None = None) -> None:
        super().__init__(app)
        self.title_text = title
        self.text = text
        self.on_done = on_done
        self.on_cancel = on_cancel
        self.digits = digits
        self.secret = secret
        self.max_len = max_len
        self.shift = not text  # a name starts with a capital; a name being edited goes on in lower case
        self.accents = False  # the second layer: accented letters and symbols
        self.message = ""
        self.letter_keys: list[tuple[Button, str, str]] = []

    def type(self, ch: str) -> None:
        """A key that types itself (a digit, a space): no case."""
        if len(self.text) < self.max_len:
            self.text += ch
        self.needs_redraw = True

    def type_pair(self, lower: str, upper: str) -> None:
        """A key of the accent layer: its own upper case, not str.upper()'s."""
        if len(self.text) < self.max_len:
            self.text += upper if self.shift else lower
            if self.shift and lower.isalpha():
                self.shift = False
        self.needs_redraw = True

    def toggle_layer(self) -> None:
        self.accents = not self.accents
        self.layout()
        self.needs_redraw = True

    def back(self) -> None:
        self.text = self.text[:-1]
        if not self.text:
            self.shift = True
        self.needs_redraw = True

    def ok(self) -> None:
        self.app.pop()
        if self.on_done:
            self.on_done(self.text)

    def cancel(self) -> None:
        self.app.pop()
        if self.on_cancel:
            self.on_cancel()

    def layout(self) -> None:
        th = self.theme
        W, H, p = th.width, th.height, th.pad
        self.field = pygame.Rect(2 * p, th.u(44), W - 4 * p - (0 if self.digits else th.u(140)), th.u(56))
        top = self.field.bottom + p
        keys: list[Widget] = []
        if self.digits:
            kw = th.u(110)
            kh = max(th.touch, (H - top - 5 * p) // 4)
            if W < th.u(600):  # a portrait screen: keys no taller than wide, Cancel clear below them
                kh = max(th.touch, min(kw, (H - top - th.touch - 7 * p) // 4))
            x0 = (W - 3 * kw - 2 * p) // 2
            pad = ("123", "456", "789", "<0>")
            for r, row in enumerate(pad):
                for c, ch in enumerate(row):
                    rect = pygame.Rect(x0 + c * (kw + p), top + r * (kh + p), kw, kh)
                    if ch == "<":
                        keys.append(Button(_("Del"), self.back, rect, color=T.BUTTON_OFF, name="Del"))
                    elif ch == ">":
                        keys.append(Button(_("OK"), self.ok, rect, color=T.BUTTON_ON, name="OK"))
                    else:
                        keys.append(Button(ch, functools.partial(self.type, ch), rect, role="large", name=ch))
            keys.append(Button(_("Cancel"), self.cancel, pygame.Rect(p, H - th.touch - p, th.u(140), th.touch),
                               color=T.BUTTON_OFF))
        else:
            cols = 10
            narrow = W < th.u(600)  # a portrait screen: the function keys on two rows of their own
            kw = (W - 2 * p - (cols - 1) * th.u(4)) // cols
            kh = max(th.touch, (H - top - p - (5 if narrow else 4) * th.u(4)) // (6 if narrow else 5))
            if narrow:
                kh = min(kh, th.u(80))
            rows: tuple[tuple[tuple[str, str], ...], ...] = (
                ACCENT_ROWS if self.accents else tuple(tuple((c.lower(), c) for c in row) for row in LETTER_ROWS))
            self.letter_keys = []
            for r, pairs in enumerate(rows):
                x = p + (cols - len(pairs)) * (kw + th.u(4)) // 2
                for lower, upper in pairs:
                    rect = pygame.Rect(x, top + r * (kh + th.u(4)), kw, kh)
                    # shows the case it types (``_sync_case``); a letter is named for its capital,
                    # an accent key for the case it shows (as tests and the layer's labels know them)
                    label = upper if self.shift else lower
                    key = Button(label, functools.partial(self.type_pair, lower, upper), rect, role="large",
                                 name=label if self.accents else upper)
                    keys.append(key)
                    self.letter_keys.append((key, lower, upper))
                    x += kw + th.u(4)
            y = top + 4 * (kh + th.u(4))
            unit = kw + th.u(4)
            # (label, action, width in keys, colour, name) on one row, or two on a portrait screen
            fkeys = [(_("Shift"), self.toggle_shift, T.BUTTON_OFF, "Shift"),
                     ("ABC" if self.accents else "ÀÉ/", self.toggle_layer, T.BUTTON_OFF, "Layer"),
                     (_("Space"), lambda: self.type(" "), T.BUTTON, "Space"),
                     (_("Del"), self.back, T.BUTTON_OFF, "Del"), (_("OK"), self.ok, T.BUTTON_ON, "OK")]
            lines = [(fkeys[:3], (3, 3, 4)), (fkeys[3:], (5, 5))] if narrow else [(fkeys, (2, 2, 2, 2, 2))]
            for k, (line, widths) in enumerate(lines):
                x = p
                for (text, fn, colour, name), n in zip(line, widths, strict=True):
                    keys.append(Button(text, fn, pygame.Rect(x, y + k * (kh + th.u(4)), n * unit - th.u(4), kh),
                                       color=colour, name=name))
                    x += n * unit
            keys.append(Button(_("Cancel"), self.cancel, pygame.Rect(W - th.u(130) - p, self.field.y, th.u(130), self.field.height),
                               color=T.BUTTON_OFF))
        self.widgets = keys

    def toggle_shift(self) -> None:
        self.shift = not self.shift
        self.needs_redraw = True

    def _sync_case(self) -> None:
        """The letter keys show the case they type now; Shift lights while it is on."""
        for key, lower, upper in self.letter_keys:
            key.text = upper if self.shift else lower
            if self.accents:
                key.name = key.text
        for b in self.widgets:
            if isinstance(b, Button) and b.name == "Shift":
                b.selected = b.latch = self.shift
            elif isinstance(b, Button) and b.name == "Del":
                b.enabled = bool(self.text)  # nothing to delete

    def handle(self, event: Any) -> None:
        if event.type == pygame.KEYDOWN:  # a real keyboard works too
            if event.key == pygame.K_RETURN:
                self.ok()
            elif event.key == pygame.K_BACKSPACE:
                self.back()
            elif event.unicode and event.unicode.isprintable() and (not self.digits or event.unicode.isdigit()):
                if len(self.text) < self.max_len:
                    self.text += event.unicode
            self.needs_redraw = True
            return
        super().handle(event)

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        self._sync_case()
        surface.fill(T.PANEL)
        D.text(surface, th, self.title_text, (2 * th.pad, th.pad), "large", T.TEXT, bold=True, max_width=th.width - th.u(160))
        pygame.draw.rect(surface, T.WHITE, self.field, border_radius=th.u(6))
        shown = "\u2022" * len(self.text) if self.secret else self.text
        D.text(surface, th, shown + "|", (self.field.x + th.pad, self.field.centery), "large", T.BLACK, "midleft",
               on_dark=False, max_width=self.field.width - 2 * th.pad)
        if self.message:
            D.text(surface, th, self.message, (self.field.right - th.pad, self.field.centery), "small", T.BAD_ON_LIGHT, "midright",
                   max_width=self.field.width * 3 // 4)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["text"] = "\u2022" * len(self.text) if self.secret else self.text
        return m
