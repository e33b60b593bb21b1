"""QR codes on the kiosk: encoded by segno (pure Python), drawn with pygame as whole pixels.

Every module is a square of the same whole number of pixels, black on white, with the quiet
zone of four modules the standard asks for (ISO/IEC 18004), so a phone's camera reads it off the
screen. Error correction M (15% of the code may be lost to glare or a finger) and never a Micro
QR code (phones' camera apps read only the full kind). The layout log records the code as a
``qr`` (``cap``: its module in pixels), which ui.layoutcheck keeps clear of text and buttons and
holds to its ``MIN_QR_MODULE_MM``.
"""

from __future__ import annotations

import functools
from typing import Any

from . import draw as D

QUIET = 4  # modules of white around the code
ERROR = "m"
DARK = (0, 0, 0)
LIGHT = (255, 255, 255)


@functools.lru_cache(maxsize=16)
def matrix(text: str) -> tuple[tuple[bool, ...], ...]:
    """The code's modules, dark True, without the quiet zone."""
    import segno

    code = segno.make(text, error=ERROR, micro=False, boost_error=False)
    return tuple(tuple(bool(v) for v in row) for row in code.matrix)


def modules(text: str) -> int:
    """Modules across, quiet zone included."""
    return len(matrix(text)) + 2 * QUIET


def module_px(text: str, room: int) -> int:
    """The largest whole module (pixels) for the code with its quiet zone in ``room`` pixels."""
    return max(1, room // modules(text))


def draw(surface: Any, text: str, rect: Any) -> Any:
    """Draw the code centred in ``rect`` (as large as whole modules allow); returns where it
    landed, quiet zone included."""
    import pygame

    m = matrix(text)
    px = module_px(text, min(rect.width, rect.height))
    side = px * (len(m) + 2 * QUIET)
    box = pygame.Rect(0, 0, side, side)
    box.center = rect.center
    surface.fill(LIGHT, box)
    x0, y0 = box.x + QUIET * px, box.y + QUIET * px
    for r, row in enumerate(m):
        y = y0 + r * px
        c = 0
        while c < len(row):  # runs of dark modules as one rectangle each
            if row[c]:
                start = c
                while c < len(row) and row[c]:
                    c += 1
                surface.fill(DARK, (x0 + start * px, y, (c - start) * px, px))
            else:
                c += 1
    D.log("qr", surface, box, text="QR code", cap=float(px))
    return box
