"""Cards and suit shapes are drawn (pixels where the suit should be), at any size, cached."""

from __future__ import annotations

import pygame
import pytest

from trickref.ui import card_art as A
from trickref.ui import theme as T


@pytest.fixture(autouse=True)
def _pygame():
    from trickref.ui.app import init_pygame

    init_pygame()


@pytest.mark.parametrize("suit", range(4))
@pytest.mark.parametrize("size", [8, 16, 40])
def test_suit_shapes_have_pixels_where_the_suit_is(suit, size):
    img = A.suit_surface(suit, size, (200, 0, 0))
    w, h = img.get_size()
    filled = sum(1 for x in range(w) for y in range(h) if img.get_at((x, y)).a > 128)
    # a solid shape covering a fair part of its box, centred
    assert 0.25 * w * h < filled < 0.9 * w * h
    assert img.get_at((w // 2, h // 2)).a > 128


def test_shapes_differ_between_suits():
    masks = [pygame.mask.from_surface(A.suit_surface(s, 32, (0, 0, 0))) for s in range(4)]
    for i in range(4):
        for j in range(i + 1, 4):
            assert masks[i].overlap_area(masks[j], (0, 0)) < masks[i].count()


@pytest.mark.parametrize("height", [44, 64, 104, 180])
def test_every_card_renders_at_every_size(height):
    th = T.Theme(800, 480)
    for c in range(52):
        img = A.card_surface(c, height, th)
        assert img.get_size() == A.card_size(height)
    back = A.card_surface(None, height, th)
    assert back.get_size() == A.card_size(height)


def test_suit_drawn_on_card_in_suit_colour_and_four_colour_option():
    th = T.Theme(800, 480)
    diamond_ace = 2 * 13 + 12
    img = A.card_surface(diamond_ace, 120, th)
    w, h = img.get_size()
    centre = img.get_at((w // 2, h // 2))
    assert centre[:3] == T.TWO_COLOUR[2]
    th4 = T.Theme(800, 480, four_colour=True)
    A.clear_cache()
    img4 = A.card_surface(diamond_ace, 120, th4)
    assert img4.get_at((w // 2, h // 2))[:3] == T.FOUR_COLOUR[2]
    club = A.card_surface(3 * 13 + 12, 120, th4)
    assert club.get_at((w // 2, h // 2 + 4))[:3] == T.FOUR_COLOUR[3]


def test_cache_returns_the_same_surface():
    th = T.Theme(800, 480)
    assert A.card_surface(5, 100, th) is A.card_surface(5, 100, th)


def test_face_up_log_records_only_face_up_cards():
    th = T.Theme(800, 480)
    surf = pygame.Surface((200, 200))
    with A.recording() as log:
        A.draw_card(surf, 7, (0, 0), 80, th)
        A.draw_card(surf, None, (10, 0), 80, th)
        A.draw_card(surf, 7, (20, 0), 80, th)
    assert log == [7, 7]


def test_inline_suit_symbols_render_as_shapes():
    th = T.Theme(800, 480)
    font = th.font("body")
    plain = font.render("trump: ", True, (255, 255, 255))
    with_suit = A.render_text("trump: \u2663", font, (255, 255, 255), th)
    assert with_suit.get_width() > plain.get_width()
    # the club's pixels are in the club's on-dark colour
    tail = with_suit.subsurface((plain.get_width(), 0, with_suit.get_width() - plain.get_width(), with_suit.get_height()))
    colours = {tail.get_at((x, y))[:3] for x in range(tail.get_width()) for y in range(tail.get_height())
               if tail.get_at((x, y)).a == 255}
    assert th.suit_colour(3, on_dark=True) in colours
