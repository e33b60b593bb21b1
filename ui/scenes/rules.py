"""How to play the chosen game, written for players (ui/help/<language>/<game-id>.md), as
scrolling text. The developers' rules pages with every decision stay in seeds/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..i18n import _, current
from ..scene import Scene
from ..widgets import Button, ScrollArea, Widget

HELP = Path(__file__).resolve().parents[1] / "help"


def help_page(game: str, language: str = "en") -> Path:
    """The players' page for ``game`` in ``language``, or the English one when that language
    has none (in the game's own folder when its descriptor names one: a plug-in's)."""
    from trickref.engine import catalog

    folder = Path(catalog.info(game).help_dir or HELP) if catalog.known(game) else HELP
    p = folder / language / f"{game}.md"
    return p if p.is_file() else folder / "en" / f"{game}.md"


def rules_blocks(game: str, language: str = "en") -> list[tuple[str, str]]:
    """The page as (kind, text) blocks: 'h' headings, 'p' paragraphs (source lines joined),
    'row' table rows and list items; a short note when the page is missing."""
    p = help_page(game, language)
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError:
        return [("p", _("The page on how to play {game} is missing from this installation ({file}).").format(
            game=game, file=p.name))]
    blocks: list[tuple[str, str]] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(("p", " ".join(para)))
            para.clear()

    for line in raw.splitlines():
        line = re.sub(r"\*\*(.+?)\*\*|\*(.+?)\*|`(.+?)`", lambda m: next(g for g in m.groups() if g), line)
        line = re.sub(r"\[(.+?)\]\(.+?\)", r"\1", line).rstrip()
        if line.startswith("#"):
            flush()
            blocks.append(("h", re.sub(r"^#+\s*", "", line)))
        elif not line.strip():
            flush()
            blocks.append(("gap", ""))
        elif line.lstrip().startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            blocks.append(("row", "   ".join(cells)))
        elif re.match(r"^\s*([-*]|\d+\.)\s", line):
            flush()
            para.append("\u2022 " + re.sub(r"^\s*([-*]|\d+\.)\s+", "", line))
        else:
            para.append(line.strip())
    flush()
    return blocks


def rules_text(game: str, language: str = "en") -> str:
    return "\n".join(t for _, t in rules_blocks(game, language))


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
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too

    def layout(self) -> None:
        th = self.theme
        top = self.header_bottom(None, right=2 * th.pad) if th.width < th.u(600) else th.u(56)
        game = self.app.setup.game
        rows: list[tuple[int, Widget]] = []
        width = th.width - 4 * th.pad
        for kind, text in rules_blocks(game, current()):
            if kind == "h":
                rows.append((th.u(6), Widget()))
                for ln in D.wrap(th, text, width, "large"):
                    rows.append((th.font("large").get_height() + th.u(4), _Line(ln, True)))
            elif kind == "gap":
                rows.append((th.u(8), Widget()))
            else:
                for ln in D.wrap(th, text, width):
                    rows.append((th.font("body").get_height() + th.u(4), _Line(ln, False)))
        self.lines = [w.text for _, w in rows if isinstance(w, _Line)]
        self.area = ScrollArea(pygame.Rect(th.pad, top, th.width - 2 * th.pad, th.height - top - th.touch - 2 * th.pad))
        self.area.set_rows(rows)
        b = th.touch
        y = th.height - b - th.pad
        done_w = th.u(180) if th.width >= th.u(600) else th.u(140)  # narrow: three buttons still side by side
        self.up = Button(_("Up"), lambda: self.area.scroll(-self.area.rect.height + 40), pygame.Rect(2 * th.pad, y, th.u(120), b))
        self.down = Button(_("Down"), lambda: self.area.scroll(self.area.rect.height - 40),
                           pygame.Rect(2 * th.pad + th.u(130), y, th.u(120), b))
        self.back = Button(_("Done"), lambda: self.app.go("home"), pygame.Rect(th.width - done_w - 2 * th.pad, y, done_w, b))
        self.widgets = [self.area, self.up, self.down, self.back]

    def draw_content(self, surface: Any) -> None:
        from ..setup import title

        th = self.theme
        # Up at the top and Down at the end would do nothing: they are off there
        self.up.enabled = self.area.offset > 0
        self.down.enabled = self.area.offset < self.area.content_height - self.area.rect.height
        self.title(surface, _("How to play: {game}").format(game=title(self.app.setup.game)),
                   right=2 * th.pad if th.width < th.u(600) else None)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["lines"] = list(self.lines)
        return m
