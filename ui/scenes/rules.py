"""The rules page of the chosen game (seeds/<game-id>.md), as scrolling text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..scene import Scene
from ..widgets import Button, ScrollArea, Widget

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def rules_text(game: str) -> str:
    """The English rules page, light on markdown; a short note when it is missing."""
    p = SEEDS / f"{game}.md"
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError:
        return f"The rules page for {game} is not installed ({p.name} is missing).\nSee RULES.md in the project."
    out = []
    for line in raw.splitlines():
        line = re.sub(r"\*\*(.+?)\*\*|\*(.+?)\*|`(.+?)`", lambda m: next(g for g in m.groups() if g), line)
        line = re.sub(r"^#+\s*", "", line)
        line = re.sub(r"\[(.+?)\]\(.+?\)", r"\1", line)
        for sym, name in (("\u2660", "\u2660"),):
            line = line.replace(sym, name)
        out.append(line)
    return "\n".join(out)


class _Line(Widget):
    def __init__(self, text: str, heading: bool) -> None:
        super().__init__()
        self.text = text
        self.heading = heading

    def draw(self, surface: Any, theme: T.Theme) -> None:
        D.text(surface, theme, self.text, (self.rect.x + theme.pad, self.rect.y), "large" if self.heading else "body",
               T.ACCENT if self.heading else T.TEXT, bold=self.heading, max_width=self.rect.width - 2 * theme.pad)


class RulesScene(Scene):
    name = "rules"

    def layout(self) -> None:
        th = self.theme
        top = th.u(56)
        game = self.app.setup.game
        raw = rules_text(game)
        rows: list[tuple[int, Widget]] = []
        width = th.width - 4 * th.pad
        prev_heading = False
        seeds_lines = (SEEDS / f"{game}.md")
        headings = set()
        if seeds_lines.exists():
            headings = {re.sub(r"^#+\s*", "", ln) for ln in seeds_lines.read_text(encoding="utf-8").splitlines() if ln.startswith("#")}
        for para in raw.split("\n"):
            heading = para in headings
            if heading:
                rows.append((th.u(8), Widget()))
                rows.append((th.font("large").get_height() + th.u(4), _Line(para, True)))
            else:
                for ln in D.wrap(th, para, width):
                    rows.append((th.font("body").get_height() + th.u(2), _Line(ln, False)))
            prev_heading = heading
        del prev_heading
        self.lines = [w.text for _, w in rows if isinstance(w, _Line)]
        self.area = ScrollArea(pygame.Rect(th.pad, top, th.width - 2 * th.pad, th.height - top - th.touch - 2 * th.pad))
        self.area.set_rows(rows)
        b = th.touch
        y = th.height - b - th.pad
        self.up = Button("Up", lambda: self.area.scroll(-self.area.rect.height + 40), pygame.Rect(2 * th.pad, y, th.u(120), b))
        self.down = Button("Down", lambda: self.area.scroll(self.area.rect.height - 40),
                           pygame.Rect(2 * th.pad + th.u(130), y, th.u(120), b))
        self.back = Button("Done", lambda: self.app.go("home"), pygame.Rect(th.width - th.u(180) - 2 * th.pad, y, th.u(180), b))
        self.widgets = [self.area, self.up, self.down, self.back]

    def draw_content(self, surface: Any) -> None:
        from ..setup import title

        self.title(surface, f"How to play: {title(self.app.setup.game)}")

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["lines"] = list(self.lines)
        return m
