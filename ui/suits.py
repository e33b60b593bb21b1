"""Suit shapes (pygame's default font has none): drawn as polygons and circles at four times
their size and smooth-scaled down, cached by (suit, size, colour); and text with the suit
symbols (\u2660\u2665\u2666\u2663) drawn as those shapes. ui.draw writes text through it,
ui.card_art draws cards with it.
"""

from __future__ import annotations

from typing import Any

from . import theme as T

SUIT_OF_SYMBOL = {"\u2660": 0, "\u2665": 1, "\u2666": 2, "\u2663": 3}

_suit_cache: dict[tuple[int, int, tuple[int, int, int]], Any] = {}


def clear_cache() -> None:
    _suit_cache.clear()


# ---------------------------------------------------------------------- suit shapes
def _draw_suit_big(surf: Any, suit: int, s: int, color: tuple[int, int, int]) -> None:
    """Draw the suit filling an s x s surface (s is the supersampled size)."""
    import pygame

    d = pygame.draw
    if suit == 2:  # diamond
        d.polygon(surf, color, [(s * 0.5, 0), (s * 0.9, s * 0.5), (s * 0.5, s), (s * 0.1, s * 0.5)])
        return
    if suit == 1:  # heart: two lobes and a point
        r = s * 0.26
        d.circle(surf, color, (round(s * 0.27), round(s * 0.3)), round(r))
        d.circle(surf, color, (round(s * 0.73), round(s * 0.3)), round(r))
        d.polygon(surf, color, [(s * 0.03, s * 0.38), (s * 0.97, s * 0.38), (s * 0.5, s * 0.98)])
        d.polygon(surf, color, [(s * 0.27, s * 0.1), (s * 0.73, s * 0.1), (s * 0.5, s * 0.45)])
        return
    if suit == 0:  # spade: an upside-down heart on a stem
        r = s * 0.24
        d.polygon(surf, color, [(s * 0.5, 0), (s * 0.96, s * 0.56), (s * 0.04, s * 0.56)])
        d.circle(surf, color, (round(s * 0.27), round(s * 0.58)), round(r))
        d.circle(surf, color, (round(s * 0.73), round(s * 0.58)), round(r))
        d.polygon(surf, color, [(s * 0.5, s * 0.55), (s * 0.7, s), (s * 0.3, s)])
        return
    # club: three leaves and a stem
    r = s * 0.21
    d.circle(surf, color, (round(s * 0.5), round(s * 0.24)), round(r))
    d.circle(surf, color, (round(s * 0.24), round(s * 0.58)), round(r))
    d.circle(surf, color, (round(s * 0.76), round(s * 0.58)), round(r))
    d.polygon(surf, color, [(s * 0.5, s * 0.3), (s * 0.38, s * 0.58), (s * 0.62, s * 0.58)])
    d.polygon(surf, color, [(s * 0.5, s * 0.45), (s * 0.7, s), (s * 0.3, s)])


def suit_surface(suit: int, size: int, color: tuple[int, int, int]) -> Any:
    """A size x size transparent surface with the suit shape, anti-aliased by supersampling."""
    import pygame

    size = max(4, int(size))
    key = (suit, size, color)
    got = _suit_cache.get(key)
    if got is not None:
        return got
    big = size * 4
    surf = pygame.Surface((big, big), pygame.SRCALPHA)
    _draw_suit_big(surf, suit, big, color)
    small = pygame.transform.smoothscale(surf, (size, size))
    _suit_cache[key] = small
    return small


def draw_suit(surface: Any, suit: int, center: tuple[int, int], size: int, color: tuple[int, int, int]) -> Any:
    """Draw a suit shape centred at ``center``; returns the rect drawn."""
    img = suit_surface(suit, size, color)
    r = img.get_rect(center=center)
    surface.blit(img, r)
    return r



def render_text(text: str, font: Any, color: tuple[int, int, int], theme: T.Theme, on_dark: bool = True) -> Any:
    """Render ``text`` with the suit symbols (\u2660\u2665\u2666\u2663) drawn as shapes in
    suit colours, e.g. 'trump: \u2663'."""
    import pygame

    if not any(ch in SUIT_OF_SYMBOL for ch in text):
        return font.render(text, True, color)
    parts: list[Any] = []
    buf = ""
    h = font.get_height()
    size = max(6, round(h * 0.72))
    for ch in text:
        suit = SUIT_OF_SYMBOL.get(ch)
        if suit is None:
            buf += ch
            continue
        if buf:
            parts.append(font.render(buf, True, color))
            buf = ""
        box = pygame.Surface((size + max(1, size // 6), h), pygame.SRCALPHA)
        img = suit_surface(suit, size, theme.suit_colour(suit, on_dark))
        box.blit(img, img.get_rect(center=(box.get_width() // 2, round(h * 0.45))))
        parts.append(box)
    if buf:
        parts.append(font.render(buf, True, color))
    out = pygame.Surface((sum(p.get_width() for p in parts), h), pygame.SRCALPHA)
    x = 0
    for p in parts:
        out.blit(p, (x, (h - p.get_height()) // 2))
        x += p.get_width()
    return out
