"""Text drawing shared by widgets and scenes, with a log of what was written.

Every piece of text the kiosk draws goes through ``text()``; while ``text_log`` is a list the
strings are appended to it, which lets tests read what a screen shows without OCR.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import suits
from . import theme as T

text_log: list[str] | None = None
_cache: dict[tuple[Any, ...], Any] = {}

# the layout log (ui.layoutcheck): while a list, every text, button, touch row and card drawn is
# appended as a ``Drawn`` record, so a test can check a frame's geometry without reading pixels
layout_log: list[Drawn] | None = None
_owner: list[int] = []  # the index in layout_log of the button whose label is being drawn


@dataclass
class Drawn:
    """One thing drawn: ``kind`` is "scene" (a scene starts drawing: the records after it are
    its), "text", "button" (a touch target with its label drawn inside), "target" (a touch row,
    e.g. a toggle), "card" or "panel". ``rect`` is where it landed on the screen (for text: its
    ink, the pixels actually set); ``box`` is the room it was given (text: ``max_width`` wide),
    ``cap`` a text's capital-letter height in pixels as drawn (after any shrink to fit),
    ``clip`` the surface's clip at the time (a scroll list's window), ``owner`` the record index
    of the button a label belongs to (-1: none), ``scene`` the scene drawing it."""

    kind: str
    rect: Any
    text: str = ""
    cap: float = 0.0
    shrunk: float = 1.0
    box: Any = None
    clip: Any = None
    owner: int = -1
    scene: str = ""
    portrait: bool = False  # a "scene" record: the scene has a portrait layout (Scene.portrait_layout)


_scene_name = ""


def log_scene(name: str, portrait: bool = False) -> None:
    global _scene_name
    _scene_name = name
    if layout_log is not None:
        import pygame

        layout_log.append(Drawn("scene", pygame.Rect(0, 0, 0, 0), scene=name, portrait=portrait))


def log(kind: str, surface: Any, rect: Any, **kw: Any) -> int:
    """Append a record (when logging); returns its index (-1 when not logging)."""
    if layout_log is None:
        return -1
    import pygame

    layout_log.append(Drawn(kind, pygame.Rect(rect), clip=pygame.Rect(surface.get_clip()),
                            owner=_owner[-1] if _owner else -1, scene=_scene_name, **kw))
    return len(layout_log) - 1


@contextlib.contextmanager
def owning(kind: str, surface: Any, rect: Any, text: str = "") -> Iterator[None]:
    """Log a button (or touch row) and make the texts drawn inside the block its label."""
    me = log(kind, surface, rect, text=text)
    if me >= 0:
        _owner.append(me)
    try:
        yield
    finally:
        if me >= 0:
            _owner.pop()


def cap_height(font: Any) -> int:
    """The height of a capital H in ``font``, in pixels."""
    m = font.metrics("H")[0]
    return int(m[3] - m[2]) if m else font.get_ascent()


def render(theme: T.Theme, s: str, role: str = "body", color: T.Color = T.TEXT, bold: bool = False,
           on_dark: bool = True) -> Any:
    """The rendered text, cached: most of a frame's text is the same as the last frame's."""
    key = (s, theme.text_px(role), color, bold, on_dark, theme.four_colour)
    img = _cache.get(key)
    if img is None:
        if len(_cache) > 3000:
            _cache.clear()
        img = _cache[key] = suits.render_text(s, theme.font(role, bold), color, theme, on_dark)
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
    shrink = 1.0
    if max_width is not None and img.get_width() > max_width > 0:
        shrink = max_width / img.get_width()
        h = max(1, round(img.get_height() * shrink))
        img = pygame.transform.smoothscale(img, (max_width, h))
    r = img.get_rect(**{anchor: pos})
    surface.blit(img, r)
    if layout_log is not None and s.strip():
        ink = img.get_bounding_rect().move(r.topleft)
        box = None
        if max_width is not None:
            box = pygame.Rect(0, r.y, max_width, r.height)
            setattr(box, anchor if anchor in ("topleft", "midleft", "bottomleft", "topright", "midright",
                                               "bottomright", "midtop", "center", "midbottom") else "topleft", pos)
        log("text", surface, ink, text=s, cap=cap_height(theme.font(role, bold)) * shrink, shrunk=shrink, box=box)
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
    log("panel", surface, rect)
    if border is not None:
        pygame.draw.rect(surface, border, rect, width=2, border_radius=radius)
