"""The scene state machine: one scene on screen at a time, plus modal overlays.

A scene is a small object with ``handle(event)``, ``update(dt)`` and ``draw(surface)`` and a
``needs_redraw`` flag; the app draws only when the flag is set, so an idle kiosk does no
drawing at all. ``tick_ms`` tells the main loop how soon the scene wants ``update`` again
(None: only when an event arrives), which is what keeps idle CPU near zero.

Input arrives through ``receive(event)`` (the app calls it; ``handle`` is the scene's own hook).
The scene, not the widget object, remembers which touch target a finger holds (``held``: its
name): a press can last many frames, and a scene may build its buttons again on any frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import draw as D
from . import theme as T
from .widgets import Button, Widget, find_buttons, find_targets, shown_targets

if TYPE_CHECKING:
    from .app import App


class Scene:
    name = "scene"
    modal = False  # drawn over the scene below it (confirmations, keyboard, PIN)
    # laid out for portrait screens too: on a portrait screen the scene draws with the theme's
    # portrait scale (``Theme.portrait_theme``) and ui.layoutcheck holds it to the millimetre rules there
    portrait_layout = False

    def __init__(self, app: App) -> None:
        self.app = app
        self.needs_redraw = True
        self.widgets: list[Widget] = []
        self._laid_out_for: tuple[int, int, bool] | None = None
        self.held: str | None = None  # the name of the touch target a finger holds down

    @property
    def theme(self) -> T.Theme:
        th: T.Theme = self.app.theme
        return th.portrait_theme() if self.portrait_layout and th.portrait else th

    # lifecycle
    def enter(self) -> None:
        self.needs_redraw = True

    def exit(self) -> None:
        pass

    def layout(self) -> None:
        """Create or place widgets for the current theme (screen size, text size)."""

    def _ensure_layout(self) -> None:
        from .i18n import current

        key = (self.theme.width, self.theme.height, self.theme.large_text, current())
        if self._laid_out_for != key:
            self._laid_out_for = key
            self.layout()

    def relayout(self) -> None:
        self._laid_out_for = None
        self.needs_redraw = True

    # input: the press a finger holds is the scene's, by the target's name
    def receive(self, event: Any) -> None:
        """Hand ``event`` to ``handle``, the held press kept by name across rebuilt widgets.

        A new press forgets any press before it (its release was lost: a scene switched, a
        modal opened), so a stale target never swallows a release; every other event first
        gives ``pressed`` back to the target now called ``held`` (a new object after a rebuild)
        and takes it from any other; after the scene handled it, ``held`` is what is pressed."""
        import pygame

        self._ensure_layout()
        down = event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1
        self.restore_press(None if down else self.held)
        self.handle(event)
        held = [t for t in self.targets() if t.pressed]
        self.held = held[0].name if held else None

    def restore_press(self, name: str | None = None) -> None:
        """Mark the target called ``name`` pressed and every other not (None: none pressed)."""
        self.held = name
        for t in self.targets():
            t.pressed = name is not None and t.name == name

    def targets(self) -> list[Widget]:
        """Every touch target of the scene (buttons, toggles, the parts of steppers and
        choices, the rows of scrolling lists), visible or not: ``find_targets`` over the widgets,
        and whatever ``buttons()`` adds (a scene's own buttons outside ``widgets``)."""
        out = find_targets(self.widgets)
        seen = {id(t) for t in out}
        out.extend(b for b in self.buttons() if id(b) not in seen)
        return out

    def touch_targets(self) -> list[tuple[str, Any]]:
        """(name, rect) of everything a finger can tap now: the visible, enabled targets (a
        scene adds its own, e.g. the cards of a hand). Tests walk these (tests/ui/finger.py)."""
        out = [(str(t.name), r) for t, r in shown_targets(self.widgets)]
        names = {n for n, _r in out}
        ours = {id(t) for t in find_targets(self.widgets)}
        out.extend((str(b.name), b.rect) for b in self.buttons()  # a scene's own, outside widgets
                   if id(b) not in ours and b.name not in names and b.visible and b.enabled and b.rect.width > 0)
        return out

    # the three verbs
    def handle(self, event: Any) -> None:
        self._ensure_layout()
        for w in list(self.widgets):
            if w.visible and w.handle(event):
                self.needs_redraw = True
                return

    def update(self, dt: float) -> None:
        pass

    @property
    def tick_ms(self) -> int | None:
        return None

    def draw(self, surface: Any) -> None:
        D.log_scene(self.name, self.portrait_layout)
        self._ensure_layout()
        if not self.modal:
            surface.fill(T.FELT)
        self.draw_content(surface)
        if self.held is not None:  # widgets built again while drawing: the held one looks held
            self.restore_press(self.held)
        for w in self.widgets:
            w.draw(surface, self.theme)
        self.needs_redraw = False

    def draw_content(self, surface: Any) -> None:
        """Everything the scene shows besides its widgets."""

    # helpers
    def title(self, surface: Any, text: str, sub: str | None = None, right: int | None = None) -> int:
        """Draw the title bar (``right`` pixels at the right kept free for buttons; the line
        under the title wraps to two lines rather than shrink); returns its bottom y."""
        th = self.theme
        room = th.width - (th.u(240) if right is None else right) - 2 * th.pad
        r = D.text(surface, th, text, (th.pad * 2, th.pad), "title", T.TEXT, bold=True, max_width=room)
        bottom = r.bottom
        for line in self._sub_lines(sub, room):
            r2 = D.text(surface, th, line, (th.pad * 2, bottom), "small", T.TEXT_DIM, max_width=room)
            bottom = r2.bottom
        return bottom + th.pad

    def _sub_lines(self, sub: str | None, room: int) -> list[str]:
        if not sub:
            return []
        lines = D.wrap(self.theme, sub, room, "small")
        return lines if len(lines) <= 2 else [sub]

    def header_bottom(self, sub: str | None = None, right: int | None = None) -> int:
        """Where ``title(surface, ..., sub, right)`` ends, without drawing it (at least 64 units,
        where the scenes' content used to start)."""
        th = self.theme
        room = th.width - (th.u(240) if right is None else right) - 2 * th.pad
        h = th.pad + th.font("title", bold=True).get_height() + len(self._sub_lines(sub, room)) * th.font("small").get_height()
        return max(th.u(64), h + th.pad)

    def buttons(self) -> list[Button]:
        return find_buttons(self.widgets)

    def button(self, name: str) -> Button:
        """The button called ``name`` (its text unless named otherwise); tests tap it."""
        for b in self.buttons():
            if b.name == name:
                return b
        raise KeyError(f"no button {name!r} on {self.name}; have {[b.name for b in self.buttons()]}")

    def model(self) -> dict[str, Any]:
        """What the scene shows, as data (tests read this instead of pixels)."""
        return {"scene": self.name, "buttons": [b.name for b in self.buttons() if b.visible and b.enabled]}


class SceneStack:
    """The current scene, with modal scenes stacked on top of it."""

    def __init__(self) -> None:
        self.stack: list[Scene] = []

    @property
    def top(self) -> Scene | None:
        return self.stack[-1] if self.stack else None

    def switch(self, scene: Scene) -> None:
        while self.stack:
            self.stack.pop().exit()
        self.stack.append(scene)
        scene.enter()

    def push(self, scene: Scene) -> None:
        self.stack.append(scene)
        scene.enter()

    def pop(self) -> Scene | None:
        if not self.stack:
            return None
        s = self.stack.pop()
        s.exit()
        if self.stack:
            self.stack[-1].needs_redraw = True
        return s

    @property
    def needs_redraw(self) -> bool:
        return any(s.needs_redraw for s in self.stack)

    def draw(self, surface: Any) -> None:
        # the base scene and every modal above it, bottom first
        start = len(self.stack) - 1
        while start > 0 and self.stack[start].modal:
            start -= 1
        for s in self.stack[start:]:
            s.draw(surface)
