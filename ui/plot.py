"""A line plot of running totals over the hands, drawn with pygame.draw (no plotting library)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pygame

from . import draw as D
from . import gameinfo as GI
from . import theme as T

PALETTE: tuple[T.Color, ...] = (
    (250, 200, 60), (110, 190, 255), (255, 120, 120), (120, 220, 130), (220, 140, 255), (255, 170, 90),
    (90, 220, 220), (240, 240, 240), (200, 160, 110), (255, 130, 200), (160, 200, 80),
)


Point = tuple[int, int]  # (hands played, total)


def series_from(g: dict[str, Any], corrections: Sequence[Mapping[str, Any]] | None = None
                ) -> tuple[list[str], list[list[Point]]]:
    """(labels, points) for each player, or each team in partnerships: (hand, total) from
    (0, 0), one point per hand, and for a score correction made after hand h a second point at
    h (a vertical step), so the line and the legend end at the total the sheet shows.
    ``corrections`` are ``{"after_hand", "seat", "points"}`` (the referee's and the score
    sheet's shape); by default ``g["corrections"]``."""
    names = list(g.get("names", []))
    rows = g.get("hand_results", [])
    n = len(names)
    seats = list(range(n))
    labels = names
    team = GI.teams(g) and n == 4
    if team:
        seats = [0, 1]
        labels = [f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"]
    fixes = list(g.get("corrections") or []) if corrections is None else list(corrections)
    series: list[list[Point]] = []
    for k, s in enumerate(seats):
        mine = [c for c in fixes if (c.get("seat", -1) % 2 == k if team else c.get("seat") == s)]
        pts: list[Point] = [(0, 0)]
        # each hand's running total already holds the corrections made before that hand
        for h in range(len(rows) + 1):
            if h:
                pts.append((h, int(rows[h - 1]["totals"][s])))
            extra = sum(int(c.get("points", 0)) for c in mine if c.get("after_hand") == h)
            if extra:
                pts.append((h, pts[-1][1] + extra))
        series.append(pts)
    return labels, series


def nice_step(span: float) -> int:
    raw = max(1.0, span / 4)
    mag = 10 ** (len(str(int(raw))) - 1)
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return int(m * mag)
    return int(10 * mag)


def points_of(s: Sequence[int] | Sequence[Point]) -> list[Point]:
    """A series as (hand, total) points: a plain list of totals is one per hand from 0."""
    return [(int(v[0]), int(v[1])) if isinstance(v, tuple) else (i, int(v)) for i, v in enumerate(s)]


def draw_plot(surface: Any, theme: T.Theme, rect: pygame.Rect, labels: Sequence[str],
              series: Sequence[Sequence[int]] | Sequence[Sequence[Point]], target: int | None = None) -> None:
    """The running totals; the legend gives each line's last point, which is the total on the
    sheet (corrections included, as vertical steps)."""
    th = theme
    D.panel(surface, rect, T.PANEL, th.u(8))
    lines = [points_of(s) for s in series]
    if not lines or len(lines[0]) < 2:
        from .i18n import _

        D.text(surface, th, _("the plot starts after the first hand"), rect.center, "small", T.TEXT_DIM, "center",
               max_width=rect.width - th.u(8))
        return
    small = th.font("small")
    texts = [f"{lab} {lines[k][-1][1]}" for k, lab in enumerate(labels)]
    # the legend: beside the plot (as wide as its longest label needs, up to half the panel),
    # or under it in a tall panel (a portrait screen), in as many columns as fit
    lh = max(small.get_height(), th.u(24))
    need = max((small.size(t)[0] for t in texts), default=0) + th.u(30)
    below = rect.height > rect.width
    if below:
        cols = max(1, min(len(labels), (rect.width - th.u(16)) // max(1, need)))
        per = -(-len(labels) // cols)
        legend_w = rect.width - th.u(16)
        legend_h = per * lh + th.u(8)
    else:
        room = rect.height - th.u(16)
        lh = max(small.get_height(), min(th.u(24), room // max(1, len(labels))))
        cols = 1 if len(labels) * lh <= room else 2  # many players: the legend in two columns
        per = -(-len(labels) // cols)
        legend_w = min(max(min(th.u(200), rect.width * 2 // 5), need * cols), rect.width // 2)
        legend_h = 0
    lo = min(0, *(v for s in lines for _, v in s))
    hi = max(1, *(v for s in lines for _, v in s))
    if target is not None and target <= hi * 1.5:
        hi = max(hi, target)
    step = nice_step(hi - lo)
    lo = (lo // step) * step
    hi = -((-hi) // step) * step
    left = max(th.u(46), max(small.size(str(v))[0] for v in (lo, hi)) + th.u(10))  # room for the axis numbers
    inner = pygame.Rect(rect.x + left, rect.y + max(th.u(10), small.get_height() // 2 + th.u(2)),
                        rect.width - left - th.u(10) - (0 if below else legend_w), 0)
    inner.height = rect.bottom - legend_h - inner.y - small.get_height() - th.u(10)
    hands = max(x for s in lines for x, _ in s)

    def pt(i: int, v: int) -> tuple[int, int]:
        x = inner.x + round(inner.width * i / max(1, hands))
        y = inner.bottom - round(inner.height * (v - lo) / max(1, hi - lo))
        return x, y

    grid = (60, 74, 86)
    v = lo
    while v <= hi:
        y = pt(0, v)[1]
        pygame.draw.line(surface, grid if v else T.TEXT_DIM, (inner.x, y), (inner.right, y), 1)
        D.text(surface, th, str(v), (inner.x - th.u(4), y), "small", T.TEXT_DIM, "midright")
        v += step
    if target is not None and lo <= target <= hi:
        y = pt(0, target)[1]
        for x in range(inner.x, inner.right, th.u(10)):
            pygame.draw.line(surface, T.BAD, (x, y), (min(inner.right, x + th.u(5)), y), 2)
    every = max(1, hands // 10)
    for i in range(0, hands + 1, every):
        x = pt(i, lo)[0]
        D.text(surface, th, str(i), (x, inner.bottom + th.u(3)), "small", T.TEXT_DIM, "midtop")
    width = max(2, th.u(3))
    for k, s in enumerate(lines):
        color = PALETTE[k % len(PALETTE)]
        pts = [pt(i, v) for i, v in s]
        if len(pts) >= 2:  # one point (a correction before the first hand ends) is a dot
            pygame.draw.lines(surface, color, False, pts, width)
        for p in pts:
            pygame.draw.circle(surface, color, p, width + 1)
    col_w = legend_w // cols
    for k, text in enumerate(texts):
        color = PALETTE[k % len(PALETTE)]
        if below:  # row by row under the plot
            x = rect.x + th.u(8) + (k % cols) * col_w
            ly = rect.bottom - legend_h + (k // cols) * lh
        else:
            x = rect.right - legend_w + (k // per) * col_w
            ly = rect.y + th.u(8) + (k % per) * lh
        pygame.draw.line(surface, color, (x, ly + lh // 2), (x + th.u(18), ly + lh // 2), width)
        D.text(surface, th, text, (x + th.u(24), ly + lh // 2), "small", T.TEXT, "midleft",
               max_width=col_w - th.u(28))
