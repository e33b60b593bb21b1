"""Text colours on the felt and the panels are readable: at least 4.5:1 contrast (WCAG 2 AA for
normal text), computed from the theme's colours with the WCAG relative-luminance formula."""

from __future__ import annotations

import pytest

from trickref.ui import theme as T


def luminance(c: tuple[int, int, int]) -> float:
    def lin(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4

    r, g, b = c
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_formula_on_known_pairs():
    assert contrast(T.WHITE, T.BLACK) == pytest.approx(21.0)
    assert contrast((119, 119, 119), T.WHITE) == pytest.approx(4.48, abs=0.01)  # the classic #777 on white


@pytest.mark.parametrize("fg", ["TEXT", "TEXT_DIM", "ACCENT", "GOOD"])
@pytest.mark.parametrize("bg", ["FELT", "FELT_DARK", "PANEL", "PANEL_LIGHT"])
def test_text_colours_reach_4_5_to_1(fg, bg):
    ratio = contrast(getattr(T, fg), getattr(T, bg))
    assert ratio >= 4.5, f"{fg} on {bg}: {ratio:.2f}:1"


def test_secondary_text_on_a_disabled_button_reads():
    assert contrast(T.TEXT_DIM, T.BUTTON_OFF) >= 4.5
