"""Touch widgets: buttons, labels, toggles, steppers, choices and scrolling lists.

Widgets react to mouse button events only (ui.touch turns a touchscreen's FINGER events and
SDL's mouse copies of them into one stream of mouse events). A button fires on release inside
its rect, so a finger sliding off cancels the tap. Rects are set by the owning scene's layout;
every target is at least ``theme.touch`` high.

Which widget a finger holds down is the scene's, not the widget object's: ``Scene.receive``
keeps the held target's *name* and gives the ``pressed`` state back to whichever object has
that name when the next event arrives, so a scene may build its widgets again on every frame
(a finger is held for 50-500 ms while frames are drawn) and the release still finds its button.
A touch target therefore has a ``name`` unique on its screen (a Button's defaults to its English
text); ``find_targets`` lists them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from . import draw as D
from . import theme as T
from .i18n import _


class Widget:
    tappable = False  # a touch target of its own (a button, a toggle): see find_targets
    name: str | None = None

    def __init__(self, rect: Any = None) -> None:
        import pygame

        self.rect = pygame.Rect(rect) if rect is not None else pygame.Rect(0, 0, 0, 0)
        self.visible = True
        self.enabled = True
        self.pressed = False  # a finger is down on it (the scene restores it by name: ui.scene)

    def handle(self, event: Any) -> bool:
        """React to ``event``; True when it was consumed (the scene then redraws)."""
        return False

    def draw(self, surface: Any, theme: T.Theme) -> None:
        pass

    def children(self) -> list[Widget]:
        """Widgets inside this one (composite rows), so tests and scenes can find buttons."""
        return []


class Button(Widget):
    tappable = True

    def __init__(self, text: str, on_click: Callable[[], Any] | None = None, rect: Any = None,
                 color: T.Color = T.BUTTON, role: str = "body", name: str | None = None) -> None:
        super().__init__(rect)
        self.text = text
        self.on_click = on_click
        self.color = color
        self.role = role
        self.name = name or getattr(text, "msgid", text)  # the English name in every language
        self.selected = False  # shows the value chosen now (a segment, a preset): not a target then
        self.latch = False  # selected means "on" and a tap turns it off (Shift): a target either way

    def handle(self, event: Any) -> bool:
        import pygame

        if not (self.visible and self.enabled):
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.rect.collidepoint(event.pos):
            self.pressed = True
            return True
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self.pressed:
            self.pressed = False
            if self.rect.collidepoint(event.pos) and self.on_click is not None:
                self.on_click()
            return True
        return False

    def draw(self, surface: Any, theme: T.Theme) -> None:
        if not self.visible:
            return
        if not self.enabled:
            color = T.BUTTON_OFF
        elif self.pressed:
            color = T.BUTTON_DOWN
        elif self.selected:
            color = T.BUTTON_ON
        else:
            color = self.color
        D.panel(surface, self.rect, color, radius=theme.u(8), border=T.ACCENT if self.selected else None)
        fg = T.TEXT if self.enabled else T.TEXT_DIM
        lines = self.lines(theme)
        step = theme.font(self.role).get_linesize()
        top = self.rect.centery - step * (len(lines) - 1) // 2
        with D.owning("button", surface, self.rect, str(self.text)):
            for i, line in enumerate(lines):
                D.text(surface, theme, line, (self.rect.centerx, top + i * step), self.role, fg, anchor="center",
                       max_width=self.rect.width - theme.u(8))

    def lines(self, theme: T.Theme) -> list[str]:
        """The label as drawn: one line, or two when it is too wide and the button is tall
        enough (a long French or Turkish label wraps rather than shrinks)."""
        room = self.rect.width - theme.u(8)
        font = theme.font(self.role)
        if font.size(self.text)[0] <= room or " " not in self.text or self.rect.height < 2 * font.get_linesize():
            return [self.text]
        wrapped = D.wrap(theme, self.text, room, self.role)
        return wrapped if len(wrapped) == 2 else [self.text]


class Label(Widget):
    def __init__(self, text: str, rect: Any = None, role: str = "body", color: T.Color = T.TEXT,
                 anchor: str = "midleft", bold: bool = False) -> None:
        super().__init__(rect)
        self.text = text
        self.role = role
        self.color = color
        self.anchor = anchor
        self.bold = bold

    def draw(self, surface: Any, theme: T.Theme) -> None:
        if self.visible and self.text:
            pos = getattr(self.rect, self.anchor)
            D.text(surface, theme, self.text, pos, self.role, self.color, anchor=self.anchor, bold=self.bold,
                   max_width=self.rect.width or None)


class Toggle(Widget):
    """An on/off switch with its label; the whole row is the touch target."""

    tappable = True

    def __init__(self, label: str, value: bool, on_change: Callable[[bool], Any] | None = None, rect: Any = None,
                 name: str | None = None) -> None:
        super().__init__(rect)
        self.label = label
        self.value = value
        self.on_change = on_change
        self.name = name or getattr(label, "msgid", label)

    def handle(self, event: Any) -> bool:
        import pygame

        if not (self.visible and self.enabled):
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.rect.collidepoint(event.pos):
            self.pressed = True
            return True
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self.pressed:
            self.pressed = False
            if self.rect.collidepoint(event.pos):
                self.value = not self.value
                if self.on_change:
                    self.on_change(self.value)
            return True
        return False

    def draw(self, surface: Any, theme: T.Theme) -> None:
        import pygame

        if not self.visible:
            return
        r = self.rect
        D.log("target", surface, r, text=str(self.label))
        sw = pygame.Rect(0, 0, theme.u(72), theme.u(36))
        sw.midright = (r.right - theme.pad, r.centery)
        D.text(surface, theme, self.label, (r.x + theme.pad, r.centery), "body", T.TEXT, "midleft",
               max_width=sw.x - r.x - 2 * theme.pad)
        pygame.draw.rect(surface, T.BUTTON_ON if self.value else T.BUTTON_OFF, sw, border_radius=sw.height // 2)
        knob = sw.height // 2 - theme.u(3)
        cx = sw.right - sw.height // 2 if self.value else sw.x + sw.height // 2
        pygame.draw.circle(surface, T.WHITE, (cx, sw.centery), knob)
        D.text(surface, theme, _("on") if self.value else _("off"), (sw.x - theme.pad, r.centery), "small", T.TEXT_DIM, "midright")


class Stepper(Widget):
    """A number with - and + buttons (and optional preset buttons), e.g. a target score or a bid."""

    def __init__(self, label: str, value: int | None, on_change: Callable[[int | None], Any] | None = None,
                 rect: Any = None, step: int = 1, minimum: int | None = None, maximum: int | None = None,
                 presets: Sequence[int | None] = (), fmt: Callable[[int | None], str] | None = None) -> None:
        super().__init__(rect)
        self.label = label
        self.value = value
        self.on_change = on_change
        self.step = step
        self.minimum = minimum
        self.maximum = maximum
        self.presets = tuple(presets)
        self.fmt = fmt or (lambda v: _("off") if v is None else str(v))
        self.minus = Button("-", functools.partial(self.bump, -1), name=f"{label} -")
        self.plus = Button("+", functools.partial(self.bump, +1), name=f"{label} +")
        self.preset_buttons = [Button(self.fmt(p), functools.partial(self.set, p), role="small", name=f"{getattr(label, 'msgid', label)} = {p}")
                               for p in self.presets]

    def set(self, v: int | None) -> None:
        if v is not None:
            if self.minimum is not None:
                v = max(self.minimum, v)
            if self.maximum is not None:
                v = min(self.maximum, v)
        if v != self.value:
            self.value = v
            if self.on_change:
                self.on_change(v)

    def bump(self, d: int) -> None:
        base = self.value
        if base is None:
            base = next((p for p in self.presets if p is not None), self.minimum or 0)
            self.set(base)
            return
        self.set(base + d * self.step)

    def layout(self, theme: T.Theme) -> None:
        import pygame

        r = self.rect
        b = theme.touch
        self.plus.rect = pygame.Rect(r.right - b, r.y + (r.height - b) // 2, b, b)
        val_w = theme.u(84)
        self.minus.rect = pygame.Rect(self.plus.rect.x - val_w - b, self.plus.rect.y, b, b)
        x = self.minus.rect.x - theme.pad
        pw = theme.u(70)
        for pbtn in reversed(self.preset_buttons):
            pbtn.rect = pygame.Rect(x - pw, self.plus.rect.y, pw, b)
            x -= pw + theme.u(4)
        self._label_right = x - theme.pad

    def handle(self, event: Any) -> bool:
        if not (self.visible and self.enabled):
            return False
        return any(w.handle(event) for w in (self.minus, self.plus, *self.preset_buttons))

    def _limits(self) -> None:
        """- and + are off where they would do nothing (at the minimum, at the maximum)."""
        v = self.value
        self.minus.enabled = v is None or self.minimum is None or v > self.minimum
        self.plus.enabled = v is None or self.maximum is None or v < self.maximum

    def draw(self, surface: Any, theme: T.Theme) -> None:
        if not self.visible:
            return
        self.layout(theme)
        self._limits()
        r = self.rect
        D.text(surface, theme, self.label, (r.x + theme.pad, r.centery), "body", T.TEXT, "midleft",
               max_width=max(10, self._label_right - r.x - theme.pad))
        for p, btn in zip(self.presets, self.preset_buttons, strict=True):
            btn.selected = p == self.value
            btn.draw(surface, theme)
        self.minus.draw(surface, theme)
        self.plus.draw(surface, theme)
        mid = ((self.minus.rect.right + self.plus.rect.x) // 2, r.centery)
        D.text(surface, theme, self.fmt(self.value), mid, "large", T.ACCENT, "center")


class Choice(Widget):
    """One of a few values, shown as a row of segment buttons."""

    def __init__(self, label: str, choices: Sequence[Any], value: Any, on_change: Callable[[Any], Any] | None = None,
                 rect: Any = None, fmt: Callable[[Any], str] = str) -> None:
        super().__init__(rect)
        self.label = label
        self.choices = list(choices)
        self.value = value
        self.on_change = on_change
        self.buttons = [Button(fmt(c), functools.partial(self.set, c), role="small", name=f"{getattr(label, 'msgid', label)} = {c}")
                        for c in self.choices]

    def set(self, v: Any) -> None:
        if v != self.value:
            self.value = v
            if self.on_change:
                self.on_change(v)

    def layout(self, theme: T.Theme) -> None:
        import pygame

        r = self.rect
        b = theme.touch
        font = theme.font("small")  # as wide as the longest choice needs, up to 200 units
        bw = max(theme.u(118), min(theme.u(200), max((font.size(x.text)[0] for x in self.buttons), default=0) + theme.u(12)))
        x = r.right
        for btn in reversed(self.buttons):
            btn.rect = pygame.Rect(x - bw, r.y + (r.height - b) // 2, bw, b)
            x -= bw + theme.u(4)
        self._label_right = x - theme.pad

    def handle(self, event: Any) -> bool:
        if not (self.visible and self.enabled):
            return False
        return any(b.handle(event) for b in self.buttons)

    def draw(self, surface: Any, theme: T.Theme) -> None:
        if not self.visible:
            return
        self.layout(theme)
        r = self.rect
        D.text(surface, theme, self.label, (r.x + theme.pad, r.centery), "body", T.TEXT, "midleft",
               max_width=max(10, self._label_right - r.x - theme.pad))
        for c, btn in zip(self.choices, self.buttons, strict=True):
            btn.selected = c == self.value
            btn.draw(surface, theme)


class ScrollArea(Widget):
    """A vertical list of child rows taller than the screen: drag to scroll, or the arrows.

    Children are (height, widget) rows; their rects are recomputed from the scroll offset."""

    def __init__(self, rect: Any = None) -> None:
        super().__init__(rect)
        self.rows: list[tuple[int, Widget]] = []
        self.offset = 0
        self._drag: tuple[int, int] | None = None
        self._dragged = False

    @property
    def content_height(self) -> int:
        return sum(h for h, _ in self.rows)

    def scroll(self, dy: int) -> None:
        most = max(0, self.content_height - self.rect.height)
        self.offset = max(0, min(most, self.offset + dy))
        self._place()

    def _place(self) -> None:
        import pygame

        y = self.rect.y - self.offset
        for h, w in self.rows:
            w.rect = pygame.Rect(self.rect.x, y, self.rect.width - 12, h)
            w.visible = w.rect.bottom > self.rect.y and w.rect.y < self.rect.bottom
            y += h

    def set_rows(self, rows: list[tuple[int, Widget]]) -> None:
        self.rows = rows
        self.scroll(0)

    def handle(self, event: Any) -> bool:
        import pygame

        if event.type == pygame.MOUSEWHEEL:
            self.scroll(-event.y * 40)
            return True
        pos: Any = getattr(event, "pos", None)
        if pos is None:
            return any(w.visible and w.handle(event) for _h, w in self.rows)
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.rect.collidepoint(pos):
            self._drag = (pos[1], self.offset)
            self._dragged = False
        elif event.type == pygame.MOUSEMOTION and self._drag is not None and event.buttons[0]:
            y0, off0 = self._drag
            if abs(pos[1] - y0) > 12:
                self._dragged = True
                for t in find_targets([w for _h, w in self.rows]):  # a drag is not a tap: let go
                    t.pressed = False
            if self._dragged:
                self.scroll(off0 + y0 - pos[1] - self.offset)
                return True
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self._drag is not None:
            self._drag = None
            if self._dragged:
                return True
        if not self.rect.collidepoint(pos) and event.type == pygame.MOUSEBUTTONDOWN:
            return False
        return any(w.visible and w.handle(event) for _h, w in self.rows)

    def draw(self, surface: Any, theme: T.Theme) -> None:
        clip = surface.get_clip()
        surface.set_clip(self.rect)
        for _h, w in self.rows:
            if w.visible:
                w.draw(surface, theme)
        surface.set_clip(clip)
        if self.content_height > self.rect.height:
            import pygame

            frac = self.rect.height / self.content_height
            bar_h = max(theme.u(20), round(self.rect.height * frac))
            top = self.rect.y + round((self.rect.height - bar_h) * self.offset / max(1, self.content_height - self.rect.height))
            pygame.draw.rect(surface, T.TEXT_DIM, (self.rect.right - theme.u(5), top, theme.u(4), bar_h), border_radius=2)


def _buttons_of(w: Widget) -> list[Button]:
    if isinstance(w, Button):
        return [w]
    if isinstance(w, Stepper):
        return [w.minus, w.plus, *w.preset_buttons]
    if isinstance(w, Choice):
        return list(w.buttons)
    return [b for c in w.children() for b in _buttons_of(c)]


def find_targets(widgets: Sequence[Widget]) -> list[Widget]:
    """Every touch target among ``widgets`` and inside them (a composite widget lists its parts
    with ``children()``; a ScrollArea its rows): the buttons and toggles a finger can hold."""
    out: list[Widget] = []
    for w in widgets:
        if isinstance(w, ScrollArea):
            out.extend(find_targets([x for _h, x in w.rows]))
        elif isinstance(w, Stepper):
            out.extend([w.minus, w.plus, *w.preset_buttons])
        elif isinstance(w, Choice):
            out.extend(w.buttons)
        elif w.tappable:
            out.append(w)
        else:
            out.extend(find_targets(w.children()))
    return out


def shown_targets(widgets: Sequence[Widget], clip: Any = None) -> list[tuple[Widget, Any]]:
    """The touch targets a finger can reach now, with the part of each on screen: visible and
    enabled, inside visible composites, the rows of a ScrollArea cut to its window (a target
    less than half on screen is left out)."""
    out: list[tuple[Widget, Any]] = []
    for w in widgets:
        if not w.visible:
            continue
        if isinstance(w, ScrollArea):
            out.extend(shown_targets([x for _h, x in w.rows], w.rect if clip is None else w.rect.clip(clip)))
            continue
        parts = [w.minus, w.plus, *w.preset_buttons] if isinstance(w, Stepper) else list(w.buttons) \
            if isinstance(w, Choice) else [w] if w.tappable else None
        if parts is None:
            out.extend(shown_targets(w.children(), clip))
            continue
        for t in parts:
            if not (t.visible and t.enabled) or t.rect.width <= 0:
                continue
            if getattr(t, "selected", False) and not getattr(t, "latch", False):
                continue  # the choice showing the value now (a segment, a preset, the game chosen): tapping keeps it
            r = t.rect if clip is None else t.rect.clip(clip)
            if r.height * 2 >= t.rect.height and r.width * 2 >= t.rect.width:
                out.append((t, r))
    return out


def find_buttons(widgets: Sequence[Widget]) -> list[Button]:
    """Every button among ``widgets`` (tests tap them by name)."""
    out: list[Button] = []
    for w in widgets:
        if isinstance(w, ScrollArea):
            out.extend(find_buttons([x for _h, x in w.rows]))
        else:
            out.extend(_buttons_of(w))
    return out


class LabelledButton(Widget):
    """A setting: its name at the left, a button showing its value at the right (tap: edit); on a
    narrow (portrait) screen the name goes above its button. The settings and club screens' rows."""

    def __init__(self, label: str, button: Button) -> None:
        super().__init__()
        self.label, self.button = label, button

    def children(self) -> list[Widget]:
        return [self.button]

    def handle(self, event: Any) -> bool:
        return self.button.handle(event)

    @staticmethod
    def stacked(theme: T.Theme) -> bool:
        """On a narrow (portrait) screen the name goes above its button."""
        return theme.width < theme.u(600)

    @staticmethod
    def height(theme: T.Theme) -> int:
        if LabelledButton.stacked(theme):
            return theme.font("body").get_height() + theme.touch + theme.u(10)
        return theme.touch + theme.u(6)

    def draw(self, surface: Any, theme: T.Theme) -> None:
        import pygame

        r = self.rect
        if self.stacked(theme):
            D.text(surface, theme, self.label, (r.x + theme.pad, r.y), "body", T.TEXT, max_width=r.width - 2 * theme.pad)
            w = min(theme.u(300), r.width - 2 * theme.pad)
            self.button.rect = pygame.Rect(r.right - theme.pad - w, r.y + theme.font("body").get_height() + theme.u(4), w,
                                           theme.touch)
        else:
            w = theme.u(300)
            self.button.rect = pygame.Rect(r.right - w, r.y + (r.height - theme.touch) // 2, w, theme.touch)
            D.text(surface, theme, self.label, (r.x + theme.pad, r.centery), "body", T.TEXT, "midleft",
                   max_width=r.width - w - 2 * theme.pad)
        self.button.draw(surface, theme)
