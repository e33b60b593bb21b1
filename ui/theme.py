"""Colours, sizes and fonts of the kiosk, for the two screens it runs on (800x480, 1280x720).

Everything is derived from one scale factor (screen height / 480) so that a layout written for
the 7-inch 800x480 panel also fits 1280x720; touch targets stay at least 48 px on the small
screen. Fonts are created lazily (pygame.font must be initialised first) and cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Color = tuple[int, int, int]

FELT: Color = (22, 92, 58)
FELT_DARK: Color = (14, 66, 41)
PANEL: Color = (30, 40, 48)
PANEL_LIGHT: Color = (48, 62, 74)
TEXT: Color = (240, 240, 235)
# secondary text (grey) and the green of "done" words are read on the felt, its dark bar and the
# panels: at least 4.5:1 contrast (WCAG AA for normal text) on each (tests/ui/test_contrast.py)
TEXT_DIM: Color = (200, 208, 210)
ACCENT: Color = (250, 200, 60)
GOOD: Color = (130, 225, 145)
BAD: Color = (235, 80, 70)  # fills, strokes and crosses; words in red are BAD_TEXT
# red words (errors, refusals, lost points) on the felt, its dark bar and the panels: the light red
# that reaches 4.5:1 on each (BAD itself is 2.2:1 on the felt; tests/ui/test_contrast.py)
BAD_TEXT: Color = (255, 180, 170)
BAD_ON_LIGHT: Color = (170, 25, 25)  # red words on a white field (the keyboard's)
BUTTON: Color = (58, 96, 140)
BUTTON_DOWN: Color = (40, 70, 105)
BUTTON_OFF: Color = (70, 76, 82)
BUTTON_ON: Color = (60, 150, 90)
WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
CARD_FACE: Color = (252, 252, 248)
CARD_EDGE: Color = (60, 60, 60)
CARD_BACK: Color = (150, 30, 40)
CARD_BACK_LINE: Color = (215, 170, 90)
HIGHLIGHT: Color = (255, 215, 0)

# suit colours, indexed by engine suit number (S H D C)
TWO_COLOUR: tuple[Color, ...] = ((20, 20, 20), (200, 20, 30), (200, 20, 30), (20, 20, 20))
FOUR_COLOUR: tuple[Color, ...] = ((20, 20, 20), (200, 20, 30), (20, 70, 200), (20, 130, 40))
# on dark backgrounds the black suits need a light stand-in
TWO_COLOUR_ON_DARK: tuple[Color, ...] = ((235, 235, 235), (255, 95, 95), (255, 95, 95), (235, 235, 235))
FOUR_COLOUR_ON_DARK: tuple[Color, ...] = ((235, 235, 235), (255, 95, 95), (110, 160, 255), (110, 220, 120))

SIZES: dict[str, tuple[int, int]] = {"800x480": (800, 480), "1280x720": (1280, 720)}

# Layout units across a portrait screen laid out for it (``Theme.portrait_scale``): Touch
# Display 2's 720 px span its 88 mm active area, so 456 units give one unit the same
# millimetres as on the 7 inch 800x480 panel (800 units across 154 mm): every size keeps its
# millimetres, and a portrait layout works on a canvas 456 units wide and about 810 high.
PORTRAIT_UNITS = 456


@dataclass
class Theme:
    """The look for one screen size. ``u`` is one layout unit (1 px at 480 lines high)."""

    width: int = 800
    height: int = 480
    large_text: bool = False
    four_colour: bool = False
    # a scene laid out for portrait screens (``Scene.portrait_layout``) draws with this on:
    # on a screen taller than wide, ``PORTRAIT_UNITS`` units across instead of 800
    portrait_scale: bool = False
    _fonts: dict[tuple[int, bool], Any] = field(default_factory=dict, repr=False)
    _portrait: Any = field(default=None, repr=False, compare=False)

    @property
    def portrait(self) -> bool:
        """A screen taller than wide (Touch Display 2 as sold: 720x1280)."""
        return self.height > self.width

    @property
    def scale(self) -> float:
        if self.portrait_scale and self.portrait:
            return self.width / PORTRAIT_UNITS
        return min(self.height / 480, self.width / 800)

    def portrait_theme(self) -> Theme:
        """This look for a scene with a portrait layout: the same screen, text size and colours
        with ``portrait_scale`` on (kept in step with this theme's settings)."""
        p = self._portrait
        if p is None or (p.width, p.height, p.large_text, p.four_colour) != (
                self.width, self.height, self.large_text, self.four_colour):
            p = self._portrait = Theme(self.width, self.height, self.large_text, self.four_colour, portrait_scale=True)
        return p

    def u(self, v: float) -> int:
        """``v`` layout units in pixels."""
        return max(1, round(v * self.scale))

    @property
    def touch(self) -> int:
        """Minimum touch target edge: 48 px at 800x480, scaled up on bigger screens."""
        return self.u(52)

    @property
    def pad(self) -> int:
        return self.u(8)

    def text_px(self, role: str) -> int:
        # small 27 and body 28 give capitals of 13 and 15 px: 2.5 and 2.9 mm on the 7 inch
        # 800x480 panel (ui.layoutcheck's rule); large text (x1.25) gives 3.3 mm and more
        base = {"small": 27, "body": 28, "large": 34, "title": 44, "huge": 64}[role]
        if self.large_text:
            base = round(base * 1.25)
        return self.u(base)

    def font(self, role: str = "body", bold: bool = False) -> Any:
        """A cached pygame Font for a text role: small, body, large, title, huge."""
        return self.font_px(self.text_px(role), bold)

    def font_px(self, px: int, bold: bool = False) -> Any:
        key = (px, bold)
        f = self._fonts.get(key)
        if f is None:
            import pygame

            f = pygame.font.Font(None, px)
            f.set_bold(bold)
            self._fonts[key] = f
        return f

    def suit_colour(self, suit: int, on_dark: bool = False) -> Color:
        if on_dark:
            return (FOUR_COLOUR_ON_DARK if self.four_colour else TWO_COLOUR_ON_DARK)[suit]
        return (FOUR_COLOUR if self.four_colour else TWO_COLOUR)[suit]

    def card_height(self, role: str = "hand") -> int:
        return self.u({"hand": 120, "table": 104, "small": 64, "tiny": 44}[role])


def parse_size(text: str) -> tuple[int, int]:
    """'800x480' -> (800, 480); raises ValueError naming the bad text."""
    try:
        w, h = text.lower().split("x")
        size = int(w), int(h)
    except ValueError:
        raise ValueError(f"screen size must look like 800x480, not {text!r}") from None
    if size[0] < 320 or size[1] < 240:
        raise ValueError(f"screen size {text!r} is too small (at least 320x240)")
    return size
