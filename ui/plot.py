"""A line plot of running totals over the hands, drawn with pygame.draw (no plotting library)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pygame

from . import draw as D
from . import theme as T

PALETTE: tuple[T.Color, ...] = (
    (250, 200, 60), (110, 190, 255), (255, 120, 120), (120, 220, 130), (220, 140, 255), (255, 170, 90),
    (90, 220, 220), (240, 240, 240), (200, 160, 110), (255, 130, 200), (160, 200, 80),
)


def series_from(g: dict[str, Any]) -> tuple[list[str], list[list[int]]]:
    """(labels, totals per hand starting at 0) for each player, or each team in partnerships."""
    names = list(g.get("names", []))
    rows = g.get("hand_results", [])
    n = len(names)
    seats = list(range(n))
    labels = names
    if g.get("game") == "partnership-spades" and n == 4:
        seats = [0, 1]
        labels = [f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"]
    series = [[0] + [int(r["totals"][s]) for r in rows] for s in seats]
    return labels, series


def nice_step(span: float) -> int:
    raw = max(1.0, span / 4)
    mag = 10 ** (len(str(int(raw))) - 1)
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return int(m * mag)
    return int(10 * mag)


def draw_plot(surface: Any, theme: T.Theme, rect: pygame.Rect, labels: Sequence[str], series: Sequence[Sequence[int]],
              target: int | None = None) -> None:
    th = theme
    D.panel(surface, rect, T.PANEL, th.u(8))
    if not series or len(series[0]) < 2:
        D.text(surface, th, "the plot starts after the first hand", rect.center, "small", T.TEXT_DIM, "center")
        return
    legend_w = min(th.u(150), rect.width // 3)
    inner = pygame.Rect(rect.x + th.u(46), rect.y + th.u(10), rect.width - th.u(56) - legend_w, rect.height - th.u(34))
    lo = min(0, *(min(s) for s in series))
    hi = max(1, *(max(s) for s in series))
    if target is not None and target <= hi * 1.5:
        hi = max(hi, target)
    step = nice_step(hi - lo)
    lo = (lo // step) * step
    hi = -((-hi) // step) * step
    hands = len(series[0]) - 1

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
    for k, s in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        pts = [pt(i, v) for i, v in enumerate(s)]
        pygame.draw.lines(surface, color, False, pts, width)
        for p in pts:
            pygame.draw.circle(surface, color, p, width + 1)
    ly = rect.y + th.u(8)
    lh = max(th.u(14), min(th.u(24), (rect.height - th.u(16)) // max(1, len(labels))))
    for k, lab in enumerate(labels):
        color = PALETTE[k % len(PALETTE)]
        x = rect.right - legend_w
        pygame.draw.line(surface, color, (x, ly + lh // 2), (x + th.u(18), ly + lh // 2), width)
        D.text(surface, th, f"{lab} {series[k][-1]}", (x + th.u(24), ly + lh // 2), "small", T.TEXT, "midleft",
               max_width=legend_w - th.u(28))
        ly += lh
