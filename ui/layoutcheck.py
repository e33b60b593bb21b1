"""The kiosk's layout rules, checked on a drawn frame: nothing overlapping, nothing off screen,
touch targets big enough, text in its box, and text large enough to read across the table.

Scenes need not cooperate: every text, button, touch row, panel and card drawn goes through
``ui.draw`` / ``ui.card_art``, which append a ``Drawn`` record to ``draw.layout_log`` while it is
a list (``recording()``). ``check(records, size)`` reads the records of the top scene (the last
one drawn: a modal's box is checked, not the dimmed scene under it) and returns the problems in
words. ``trickref screenshots`` checks every frame it writes; tests/ui/test_layout_scenes.py
checks every scene it stages at every size.

The rules, in millimetres on the screen each size is sold as (``DISPLAYS``):

- text: capital letters at least ``MIN_CAP_MM`` high as drawn (after any shrink to fit), and at
  least ``MIN_CAP_MM_LARGE`` with the large-text setting on; the corner index of a face-up card
  at least ``MIN_CAP_MM`` (cards keep their size with large text). 2.4 mm is 12 minutes of arc at 70 cm (body text for someone in front of the screen);
  3.0 mm is 15 minutes of arc at 70 cm, near ISO 9241-303's 16' minimum for reading at a glance,
  which is what large text is for: reading across a table at 60-80 cm.
- touch: every button and touch row at least ``MIN_TOUCH_MM`` on each side (Android's 48 dp).
- face-up cards at least ``MIN_CARD_MM`` high (the trick at 11 players included).
- QR codes: each module at least ``MIN_QR_MODULE_MM`` (a phone held 20-30 cm away reads it
  with room for glare); no text or button over a code (its quiet zone included).
- nothing off screen; no two texts, buttons or cards overlapping (cards may overlap cards: a
  fanned hand); a button's label inside the button; a text either inside a panel or clear of
  it. Things cut by a scrolling list's window are allowed (that is what scrolling is).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import draw as D

MIN_CAP_MM = 2.4
MIN_CAP_MM_LARGE = 3.0
MIN_TOUCH_MM = 7.6
MIN_CARD_MM = 10.0
MIN_QR_MODULE_MM = 0.5


@dataclass(frozen=True)
class Display:
    name: str
    width_mm: float  # the active area across the pixel rows (the screen's width as used)

    def px_per_mm(self, size: tuple[int, int]) -> float:
        return size[0] / self.width_mm


# each supported size, as the screen it is sold on (the smallest such screen: the worst case)
DISPLAYS: dict[tuple[int, int], Display] = {
    (800, 480): Display("Raspberry Pi Touch Display, 7 inch (154.08 x 85.92 mm)", 154.08),
    (1024, 600): Display("7 inch HDMI/DSI panel, 1024x600 (154.21 x 85.92 mm)", 154.21),
    (1280, 720): Display("7 inch 16:9 panel, 1280x720 (154.6 x 87.0 mm)", 154.6),
    # Raspberry Pi's specification: 720x1280 px, active area 88 x 155 mm (8.2 px/mm)
    (720, 1280): Display("Raspberry Pi Touch Display 2, 7 inch portrait (88.0 x 155.0 mm)", 88.0),
}
LAYOUT_SIZES = tuple(DISPLAYS)
# the portrait panel (8.2 px/mm) needs a portrait layout at a larger scale to meet the
# millimetre rules (``Scene.portrait_layout``, drawn with ``Theme.portrait_theme``): a scene
# without one is checked there for geometry only (overlaps, off screen, labels in buttons); a
# scene with one is held to every rule (``check`` reads the scene's switch from the frame)
GEOMETRY_ONLY = {(720, 1280)}


def portrait_ready(records: list[D.Drawn]) -> bool:
    """The frame's top scene says it is laid out for portrait screens."""
    return next((r.portrait for r in reversed(records) if r.kind == "scene"), False)


def display_for(size: tuple[int, int]) -> Display:
    """The display a size is sold on; other sizes are taken as 7 inch wide-screen panels."""
    return DISPLAYS.get(size) or Display(f"{size[0]}x{size[1]} taken as a 7 inch panel", 154.08 if size[0] >= size[1] else 88.0)


@contextlib.contextmanager
def recording() -> Iterator[list[D.Drawn]]:
    """Record what is drawn inside the block."""
    old = D.layout_log
    D.layout_log = []
    try:
        yield D.layout_log
    finally:
        D.layout_log = old


def top_layer(records: list[D.Drawn]) -> list[D.Drawn]:
    """The records of the last scene drawn (a modal over a scene: the modal's)."""
    start = max((i for i, r in enumerate(records) if r.kind == "scene"), default=-1)
    return records[start + 1:]


def _where(r: D.Drawn) -> str:
    what = f"{r.kind} {r.text!r}" if r.text else r.kind
    return f"{what} at {tuple(r.rect)}"


def check(records: list[D.Drawn], size: tuple[int, int], large_text: bool = False, physical: bool = True) -> list[str]:
    """Every rule the frame breaks, in words (an empty list: the frame passes). ``physical``
    False checks the geometry only (not the millimetre sizes of text, cards and targets), unless
    the frame's scene has a portrait layout and ``size`` is portrait: that is what the layout is for."""
    import pygame

    physical = physical or (size[1] > size[0] and portrait_ready(records))
    out: list[str] = []
    screen = pygame.Rect(0, 0, *size)
    ppm = display_for(size).px_per_mm(size)
    min_cap = (MIN_CAP_MM_LARGE if large_text else MIN_CAP_MM) * ppm
    layer = top_layer(records)
    scene = next((r.scene for r in reversed(records) if r.kind == "scene"), "")
    index = {id(r): i for i, r in enumerate(records)}

    def cut(r: D.Drawn) -> bool:
        """Partly hidden by a clip narrower than the screen (a scroll list's window)."""
        return r.clip is not None and r.clip != screen and not r.clip.contains(r.rect)

    def hidden(r: D.Drawn) -> bool:
        return r.clip is not None and not r.clip.colliderect(r.rect)

    shown = [r for r in layer if r.kind != "scene" and not hidden(r) and r.rect.width > 0 and r.rect.height > 0]
    for r in shown:
        if not screen.contains(r.rect) and not cut(r):
            out.append(f"{scene}: off screen: {_where(r)}")
    texts = [r for r in shown if r.kind == "text" and not cut(r)]
    buttons = [r for r in shown if r.kind in ("button", "target") and not cut(r)]
    cards = [r for r in shown if r.kind == "card" and not cut(r)]
    panels = [r for r in shown if r.kind == "panel" and not cut(r)]
    codes = [r for r in shown if r.kind == "qr" and not cut(r)]
    for r in texts:
        if physical and r.cap < min_cap - 0.05:
            out.append(f"{scene}: text too small: {_where(r)} capitals {r.cap:.1f} px = {r.cap / ppm:.2f} mm "
                       f"(at least {min_cap / ppm:.1f} mm){' after shrinking to fit' if r.shrunk < 1 else ''}")
        if r.owner >= 0:
            box = records[r.owner]
            if not box.rect.contains(r.rect):
                out.append(f"{scene}: text outside its button: {_where(r)} in {_where(box)}")
    for r in cards if physical else []:
        if r.text and r.rect.height < MIN_CARD_MM * ppm - 0.5:
            out.append(f"{scene}: card too small: {_where(r)} {r.rect.height / ppm:.1f} mm high (at least {MIN_CARD_MM} mm)")
        if r.text and r.cap < MIN_CAP_MM * ppm - 0.05:  # cards keep their size with large text
            out.append(f"{scene}: card index too small: {_where(r)} capitals {r.cap / ppm:.2f} mm")
    for r in buttons if physical else []:
        edge = min(r.rect.width, r.rect.height)
        if edge < MIN_TOUCH_MM * ppm - 0.5:
            out.append(f"{scene}: touch target too small: {_where(r)} {edge / ppm:.1f} mm (at least {MIN_TOUCH_MM} mm)")

    def overlap(a: Any, b: Any) -> bool:
        c = a.clip(b)
        return c.width > 1 and c.height > 1

    for r in codes:
        if physical and r.cap < MIN_QR_MODULE_MM * ppm - 0.05:
            out.append(f"{scene}: QR code modules too small: {_where(r)} {r.cap / ppm:.2f} mm (at least {MIN_QR_MODULE_MM} mm)")
        for b in texts + buttons:
            if overlap(r.rect, b.rect):
                out.append(f"{scene}: over a QR code: {_where(b)} and {_where(r)}")

    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if overlap(a.rect, b.rect):
                out.append(f"{scene}: texts overlap: {_where(a)} and {_where(b)}")
        for b in buttons:
            if a.owner != index.get(id(b)) and b.kind == "button" and overlap(a.rect, b.rect):
                out.append(f"{scene}: text over a button: {_where(a)} and {_where(b)}")
        for c in cards:
            if overlap(a.rect, c.rect):
                out.append(f"{scene}: text over a card: {_where(a)} and {_where(c)}")
        for p in panels:
            if overlap(a.rect, p.rect) and not p.rect.contains(a.rect):
                out.append(f"{scene}: text across a panel's edge: {_where(a)} and panel at {tuple(p.rect)}")
    for i, a in enumerate(buttons):
        for b in buttons[i + 1:]:
            if overlap(a.rect, b.rect):
                out.append(f"{scene}: buttons overlap: {_where(a)} and {_where(b)}")
        for c in cards:
            if overlap(a.rect, c.rect):
                out.append(f"{scene}: card over a button: {_where(a)} and {_where(c)}")
        for p in panels:  # a button half over a plate or a box (not its own panel, not inside one)
            if overlap(a.rect, p.rect) and not p.rect.contains(a.rect) and not a.rect.contains(p.rect):
                out.append(f"{scene}: button across a panel's edge: {_where(a)} and panel at {tuple(p.rect)}")
    return out


def render_checked(app: Any, physical: bool = True) -> list[str]:
    """Draw the app's current frame and check it."""
    with recording() as log:
        app.render(force=True)
    size = app.screen.get_size()
    return check(log, size, bool(app.theme.large_text), physical)


def resize(app: Any, size: tuple[int, int], large_text: bool | None = None) -> None:
    """Show the same staged app at another size (and text size): a new screen surface, the
    theme for it, every scene laid out again."""
    import pygame

    from . import theme as T

    large = app.settings.large_text if large_text is None else large_text
    app.settings.large_text = large
    app.screen = pygame.Surface(size)
    app.theme = T.Theme(size[0], size[1], large_text=large, four_colour=app.settings.four_colour)
    for s in app.scenes.stack:
        s.relayout()
