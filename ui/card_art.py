"""Playing cards drawn from shapes, crisp at any size, cached.

pygame's default font has no suit glyphs, so suits are drawn as polygons and circles; each
shape is drawn at four times its size and smooth-scaled down, which anti-aliases the edges.
Rendered cards are cached by (card, size, style); the cache is small (a screen shows at most
a few dozen distinct cards) and is cleared when the style changes.

``face_up_log`` supports the privacy test: while it is a list, every face-up card drawn is
appended to it (cache hits too), so a test can compare what was shown with the public view.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from trickref.engine import cards as C

from . import draw as D
from . import suits
from . import theme as T
from .suits import SUIT_OF_SYMBOL, draw_suit, render_text, suit_surface

__all__ = ["ASPECT", "RANK_TEXT", "SUIT_OF_SYMBOL", "card_size", "card_surface", "card_text", "clear_cache", "draw_card",
           "draw_suit", "index_cap", "index_px", "recording", "render_text", "suit_surface"]

RANK_TEXT = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}
ASPECT = 0.714  # width / height of a poker card

face_up_log: list[int] | None = None
_card_cache: dict[tuple[Any, ...], Any] = {}

# pip positions for 2..10 in a unit box (x 0..1 across, y 0..1 down)
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((0.5, 0.0), (0.5, 1.0)),
    3: ((0.5, 0.0), (0.5, 0.5), (0.5, 1.0)),
    4: ((0, 0), (1, 0), (0, 1), (1, 1)),
    5: ((0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)),
    6: ((0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    7: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    8: ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)),
    9: ((0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)),
    10: ((0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1), (1, 1)),
}


@contextlib.contextmanager
def recording() -> Iterator[list[int]]:
    """Record every face-up card drawn inside the block (for the privacy tests)."""
    global face_up_log
    old = face_up_log
    face_up_log = []
    try:
        yield face_up_log
    finally:
        face_up_log = old


def clear_cache() -> None:
    _card_cache.clear()
    suits.clear_cache()


def card_size(height: int) -> tuple[int, int]:
    return max(8, round(height * ASPECT)), height


# ---------------------------------------------------------------------- cards
def _render_face(card: int, w: int, h: int, theme: T.Theme) -> Any:
    import pygame

    surf = pygame.Surface((w, h), pygame.SRCALPHA)
    radius = max(2, round(w * 0.08))
    rect = surf.get_rect()
    pygame.draw.rect(surf, T.CARD_FACE, rect, border_radius=radius)
    pygame.draw.rect(surf, T.CARD_EDGE, rect, width=max(1, round(w / 70)), border_radius=radius)
    suit, rank = C.suit(card), C.rank(card)
    colour = theme.suit_colour(suit)
    rank_text = RANK_TEXT.get(rank, str(rank))

    # corner index: rank over a small suit, top left (and mirrored bottom right when big)
    idx_px = index_px(h, theme)
    font = theme.font_px(idx_px, bold=True)
    txt = font.render(rank_text, True, colour)
    if rank == 10:  # keep "10" narrow
        txt = pygame.transform.smoothscale(txt, (max(1, round(txt.get_width() * 0.8)), txt.get_height()))
    ix = max(2, round(w * 0.06))
    iy = max(1, round(h * 0.03))
    cx = ix + max(txt.get_width(), round(idx_px * 0.6)) // 2
    surf.blit(txt, txt.get_rect(midtop=(cx, iy)))
    small = max(5, round(idx_px * 0.5))
    sy = iy + txt.get_height() - round(idx_px * 0.1) + small // 2
    draw_suit(surf, suit, (cx, sy), small, colour)
    index_w = cx + max(txt.get_width() // 2, small // 2)

    big_enough = h >= 90
    if big_enough:
        corner = pygame.Surface((index_w + 2, sy + small // 2 + 2), pygame.SRCALPHA)
        corner.blit(surf, (0, 0))
        flipped = pygame.transform.rotate(corner, 180)
        surf.blit(flipped, flipped.get_rect(bottomright=(w, h)))

    if rank <= 10 and big_enough:
        pip = max(6, round(w * 0.18))
        x0, x1 = w * 0.38, w * 0.66
        y0, y1 = h * 0.2, h * 0.8
        up = suit_surface(suit, pip, colour)
        down = pygame.transform.flip(up, False, True)
        for px, py in _PIPS[rank]:
            x = x0 + (x1 - x0) * px
            y = y0 + (y1 - y0) * py
            img = down if py > 0.55 and suit != 2 else up
            surf.blit(img, img.get_rect(center=(round(x), round(y))))
    elif rank == 14 or not big_enough:
        # small card or ace: one big suit (below and right of the index on small cards)
        size = round(w * (0.55 if big_enough else 0.5))
        cy = h // 2 if big_enough else round(h * 0.7)
        cxm = w // 2 if big_enough else round(w * 0.62)
        draw_suit(surf, suit, (cxm, cy), size, colour)
    else:
        _draw_court(surf, rank, suit, w, h, colour, theme, big_enough)
    return surf


def _draw_court(surf: Any, rank: int, suit: int, w: int, h: int, colour: tuple[int, int, int], theme: T.Theme, big: bool) -> None:
    """A simple court card: a tinted frame, a crown (K), coronet (Q) or cap (J), letter, suit."""
    import pygame

    tint = tuple(min(255, c // 4 + 200) for c in colour)
    if big:
        frame = pygame.Rect(round(w * 0.26), round(h * 0.14), round(w * 0.52), round(h * 0.72))
    else:
        frame = pygame.Rect(round(w * 0.32), round(h * 0.36), round(w * 0.6), round(h * 0.58))
    pygame.draw.rect(surf, tint, frame, border_radius=max(2, w // 25))
    pygame.draw.rect(surf, colour, frame, width=max(1, w // 50), border_radius=max(2, w // 25))
    fx, fy, fw, fh = frame
    gold = (215, 170, 40)
    top = fy + fh * 0.12
    if rank == 13:  # crown with three points
        pts = [(fx + fw * 0.2, top + fh * 0.2), (fx + fw * 0.2, top), (fx + fw * 0.35, top + fh * 0.1),
               (fx + fw * 0.5, top - fh * 0.04), (fx + fw * 0.65, top + fh * 0.1), (fx + fw * 0.8, top),
               (fx + fw * 0.8, top + fh * 0.2)]
        pygame.draw.polygon(surf, gold, pts)
    elif rank == 12:  # coronet: a band and three pearls
        pygame.draw.rect(surf, gold, (fx + fw * 0.25, top + fh * 0.08, fw * 0.5, fh * 0.1))
        for k in (0.3, 0.5, 0.7):
            pygame.draw.circle(surf, gold, (round(fx + fw * k), round(top + fh * 0.06)), max(1, round(fw * 0.07)))
    else:  # jack: a cap
        pygame.draw.polygon(surf, gold, [(fx + fw * 0.25, top + fh * 0.2), (fx + fw * 0.5, top),
                                         (fx + fw * 0.75, top + fh * 0.2)])
    letter = theme.font_px(max(8, round(fh * 0.42)), bold=True).render(RANK_TEXT[rank], True, colour)
    surf.blit(letter, letter.get_rect(center=(fx + fw // 2, round(fy + fh * 0.58))))
    if big:
        s = max(6, round(fw * 0.22))
        draw_suit(surf, suit, (round(fx + fw * 0.2), round(fy + fh * 0.88)), s, colour)
        draw_suit(surf, suit, (round(fx + fw * 0.8), round(fy + fh * 0.88)), s, colour)


def _render_back(w: int, h: int) -> Any:
    import pygame

    surf = pygame.Surface((w, h), pygame.SRCALPHA)
    radius = max(2, round(w * 0.08))
    rect = surf.get_rect()
    pygame.draw.rect(surf, T.CARD_FACE, rect, border_radius=radius)
    inner = rect.inflate(-max(4, w // 8), -max(4, w // 8))
    pattern = pygame.Surface(inner.size, pygame.SRCALPHA)
    pattern.fill(T.CARD_BACK)
    step = max(4, w // 7)
    lw = max(1, w // 60)
    for k in range(-inner.height, inner.width + inner.height, step):
        pygame.draw.line(pattern, T.CARD_BACK_LINE, (k, 0), (k + inner.height, inner.height), lw)
        pygame.draw.line(pattern, T.CARD_BACK_LINE, (k, inner.height), (k + inner.height, 0), lw)
    mask = pygame.Surface(inner.size, pygame.SRCALPHA)
    pygame.draw.rect(mask, (255, 255, 255, 255), mask.get_rect(), border_radius=max(2, radius // 2))
    pattern.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
    surf.blit(pattern, inner)
    pygame.draw.rect(surf, T.CARD_EDGE, rect, width=max(1, round(w / 70)), border_radius=radius)
    return surf


def card_surface(card: int | None, height: int, theme: T.Theme) -> Any:
    """The cached surface of ``card`` (None: the back) at ``height`` pixels."""
    w, h = card_size(height)
    key = (card, w, h, theme.four_colour, theme.scale)
    surf = _card_cache.get(key)
    if surf is None:
        surf = _render_back(w, h) if card is None else _render_face(card, w, h, theme)
        if len(_card_cache) > 600:
            _card_cache.clear()
        _card_cache[key] = surf
    return surf


def draw_card(surface: Any, card: int | None, topleft: tuple[int, int], height: int, theme: T.Theme,
              *, highlight: bool = False, dim: bool = False) -> Any:
    """Draw a card face up (``card`` an int) or face down (None); returns its rect."""
    import pygame

    if card is not None and face_up_log is not None:
        face_up_log.append(card)
    img = card_surface(card, height, theme)
    r = surface.blit(img, topleft)
    if D.layout_log is not None:  # the corner index's capital height, for the text size rule
        D.log("card", surface, r, text="" if card is None else card_text(card), cap=index_cap(height, theme))
    if dim:
        shade = pygame.Surface(img.get_size(), pygame.SRCALPHA)
        pygame.draw.rect(shade, (0, 0, 0, 110), shade.get_rect(), border_radius=max(2, round(r.width * 0.08)))
        surface.blit(shade, r)
    if highlight:
        pygame.draw.rect(surface, T.HIGHLIGHT, r.inflate(4, 4), width=max(2, height // 40),
                         border_radius=max(2, round(r.width * 0.1)))
    return r


def index_cap(height: int, theme: T.Theme) -> float:
    """The capital height, in pixels, of the rank in a card's corner index at ``height``."""
    return D.cap_height(theme.font_px(index_px(height, theme), bold=True))


def index_px(height: int, theme: T.Theme) -> int:
    """The font size of a card's corner index: large enough to read across the table (a card
    54 layout units high or more has capitals of 2.4 mm or more on each supported screen)."""
    least = round(28 * theme.scale)
    return max(9, round(height * 0.52)) if height < 2 * least else max(least, round(height * 0.26))


# ---------------------------------------------------------------------- text with suits
def card_text(card: int) -> str:
    """'Q\u2660' for the queen of spades: rank then the suit symbol, for ``render_text``."""
    rank = C.rank(card)
    return RANK_TEXT.get(rank, str(rank)) + C.SUIT_SYMBOLS[C.suit(card)]
