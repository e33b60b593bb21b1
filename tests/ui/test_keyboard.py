"""The on-screen keyboard types the players' names in their languages and a port path."""

from __future__ import annotations

import pygame
import pytest
from kiosk_helpers import tap_button

from trickref.ui.keyboard import ACCENT_ROWS, KeyboardScene


def open_keyboard(app, text: str = "") -> KeyboardScene:
    typed: list[str] = []
    kb = KeyboardScene(app, "Name", text, on_done=typed.append, max_len=40)
    app.push(kb)
    app.render(force=True)
    kb.typed = typed  # type: ignore[attr-defined]
    return kb


def press(app, keys: list[str]) -> str:
    for k in keys:
        tap_button(app, k)
    return app.scene.model()["text"]


@pytest.mark.parametrize(
    "keys, expected",
    [
        (["Z", "O", "Layer", "ë"], "Zoë"),
        (["Layer", "Ç", "Layer", "A", "Layer", "ğ", "Layer", "L", "A"], "Çağla"),
        (["Layer", "É", "Layer", "M", "I", "L", "E"], "Émile"),
        (["T", "I", "Space", "Shift", "J", "A", "N", "Space", "Layer", "ò"], "Ti Jan ò"),
        # Turkish dotted capital I and dotless small i: not what str.upper()/lower() give
        (["Layer", "İ", "Layer", "S", "Layer", "ı"], "İsı"),
    ],
)
def test_names_in_the_players_languages(small_app, keys, expected):
    app = small_app
    kb = open_keyboard(app)
    assert press(app, keys) == expected
    tap_button(app, "OK")
    assert kb.typed == [expected]  # type: ignore[attr-defined]


def test_a_serial_port_path_and_url_can_be_typed(small_app):
    app = small_app
    open_keyboard(app)
    tap_button(app, "Shift")  # the first letter would be a capital
    keys = ["Layer", "/", "Layer", "D", "E", "V", "Layer", "/", "Layer", "T", "T", "Y"]
    assert press(app, keys) == "/dev/tty"
    open_keyboard(app)
    tap_button(app, "Shift")
    keys = ["S", "O", "C", "K", "E", "T", "Layer", ":", "/", "/", "1", "2", "7", ".", "0", ".", "0", ".", "1", ":",
            "5", "0", "0", "0", "_"]
    assert press(app, keys) == "socket://127.0.0.1:5000_"


def test_every_key_renders_with_a_real_glyph(small_app):
    """No tofu: the kiosk's font has a glyph for every letter the keyboard can type."""
    app = small_app
    font = pygame.font.Font(None, 30)
    letters = "".join(lo + up for row in ACCENT_ROWS for lo, up in row)
    missing = [ch for ch, m in zip(letters, font.metrics(letters), strict=True) if m is None]
    assert missing == []
    kb = open_keyboard(app)
    for _layer in (0, 1):
        for shift in (False, True):
            kb.shift = shift
            kb.layout()
            for b in kb.buttons():
                assert all(m is not None for m in font.metrics(b.text)), b.text
        tap_button(app, "Layer")
