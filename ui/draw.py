"""Text drawing shared by widgets and scenes, with a log of what was written.

Every piece of text the kiosk draws goes through ``text()``; while ``text_log`` is a list the
strings are appended to it, which lets tests read what a screen shows without OCR.
"""

from __future__ import annotations

from typing import Any

from . import card_art
from . import theme as T

text_log: list[str] | None = None
_cache: dict[tuple[Any, ...], Any] = {}


def render(theme: T.Theme, s: str, role: str = "body", color: T.Color = T.TEXT, bold: bool = False,
           on_dark: bool = True) -> Any:
    """The rendered text, cached: most of a frame's text is the same as the last frame's."""
    key = (s, theme.text_px(role), color, bold, on_dark, theme.four_colour)
    img = _cache.get(key)
    if img is None:
        if len(_cache) > 3000:
            _cache.clear()
        img = _cache[key] = card_art.render_text(s, theme.font(role, bold), color, theme, on_dark)
    return img


def text(surface: Any, theme: T.Theme, s: str, pos: tuple[int, int], role: str = "body",
         color: T.Color = T.TEXT, anchor: str = "topleft", bold: bool = False, max_width: int | None = None,
         on_dark: bool = True) -> Any:
    """Draw ``s`` with its ``anchor`` point (a pygame Rect attribute name) at ``pos``; returns
    the rect. Text wider than ``max_width`` is shrunk to fit rather than clipped."""
    import pygame

    if text_log is not None:
        text_log.append(s)
    img = render(theme, s, role, color, bold, on_dark)
    if max_width is not None and img.get_width() > max_width > 0:
        h = max(1, round(img.get_height() * max_width / img.get_width()))
        img = pygame.transform.smoothscale(img, (max_width, h))
    r = img.get_rect(**{anchor: pos})
    surface.blit(img, r)
    return r


def wrap(theme: T.Theme, s: str, width: int, role: str = "body") -> list[str]:
    """Split ``s`` into lines no wider than ``width`` pixels (on spaces; keeps blank lines)."""
    font = theme.font(role)
    out: list[str] = []
    for para in s.split("\n"):
        words = para.split(" ")
        line = ""
        for w in words:
            cand = w if not line else line + " " + w
            if font.size(cand)[0] <= width or not line:
                line = cand
            else:
                out.append(line)
                line = w
        out.append(line)
    return out


def panel(surface: Any, rect: Any, color: T.Color = T.PANEL, radius: int = 8, border: T.Color | None = None) -> None:
    import pygame

    pygame.draw.rect(surface, color, rect, border_radius=radius)
    if border is not None:
        pygame.draw.rect(surface, border, rect, width=2, border_radius=radius)
