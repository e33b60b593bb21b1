"""The scene state machine: one scene on screen at a time, plus modal overlays.

A scene is a small object with ``handle(event)``, ``update(dt)`` and ``draw(surface)`` and a
``needs_redraw`` flag; the app draws only when the flag is set, so an idle kiosk does no
drawing at all. ``tick_ms`` tells the main loop how soon the scene wants ``update`` again
(None: only when an event arrives), which is what keeps idle CPU near zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import draw as D
from . import theme as T
from .widgets import Button, Widget, find_buttons

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
