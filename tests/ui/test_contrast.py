"""Text colours on the felt and the panels are readable: at least 4.5:1 contrast (WCAG 2 AA for
normal text), computed from the theme's colours with the WCAG relative-luminance formula; and
no word is drawn in the red of strokes and fills (``BAD``, 2.2:1 on the felt): the sources are
read for it."""

from __future__ import annotations

import ast
from pathlib import Path

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


@pytest.mark.parametrize("fg", ["TEXT", "TEXT_DIM", "ACCENT", "GOOD", "BAD_TEXT"])
@pytest.mark.parametrize("bg", ["FELT", "FELT_DARK", "PANEL", "PANEL_LIGHT"])
def test_text_colours_reach_4_5_to_1(fg, bg):
    ratio = contrast(getattr(T, fg), getattr(T, bg))
    assert ratio >= 4.5, f"{fg} on {bg}: {ratio:.2f}:1"


def test_secondary_text_on_a_disabled_button_reads():
    assert contrast(T.TEXT_DIM, T.BUTTON_OFF) >= 4.5


def test_red_words_on_the_keyboards_white_field_read():
    assert contrast(T.BAD_ON_LIGHT, T.WHITE) >= 4.5


def test_the_stroke_red_is_never_a_words_colour():
    """Every ``D.text``/``draw.text`` call, every (words, colour) pair a scene builds for its
    lines and every colour given to a line of text names a text colour, never ``T.BAD`` (which is
    2.2:1 on the felt: for strokes, fills and button faces only)."""
    ui = Path(__file__).resolve().parents[2] / "ui"

    def is_bad(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Attribute) and n.attr == "BAD" for n in ast.walk(node))

    found = []
    for path in sorted(ui.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "text":
                if any(is_bad(a) for a in node.args[4:6]) or any(k.arg in ("color", "colour") and is_bad(k.value)
                                                                  for k in node.keywords):
                    found.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Tuple) and len(node.elts) >= 2 and is_bad(node.elts[-1]):
                first = node.elts[0]
                words = (isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id in ("_", "verdict")) \
                    or (isinstance(first, ast.Attribute) and first.attr in ("error", "message"))
                if words:
                    found.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "color"
                                                      for t in node.targets) and is_bad(node.value):
                found.append(f"{path.name}:{node.lineno}")
    assert not found, f"words drawn in T.BAD (use T.BAD_TEXT): {found}"
