"""Layout invariants: seat plates never overlap and stay on screen, hands and tricks fit."""

from __future__ import annotations

import pygame
from hypothesis import given, settings
from hypothesis import strategies as st

from trickref.ui import tableview as TV
from trickref.ui import theme as T

SIZES = st.sampled_from([(800, 480), (1280, 720)])


def setup_module() -> None:
    from trickref.ui.app import init_pygame

    init_pygame()


@settings(max_examples=60, deadline=None)
@given(size=SIZES, n=st.integers(2, 11), bottom=st.integers(0, 10), large=st.booleans())
def test_seat_plates_do_not_overlap_and_stay_in_the_table(size, n, bottom, large):
    th = T.Theme(*size, large_text=large)
    area = pygame.Rect(th.pad, th.u(64), size[0] - 2 * th.pad, size[1] - th.u(64) - th.u(150))
    rects = TV.plate_rects(th, n, area, bottom % n)
    for r in rects:
        assert area.contains(r), (r, area)
        assert r.width >= th.u(84) and r.height >= th.u(48)
    for i in range(n):
        for j in range(i + 1, n):
            assert not rects[i].colliderect(rects[j]), (n, i, j, rects[i], rects[j])
    # the viewer's seat is at the bottom centre, and the next seat to its left (clockwise)
    me = rects[bottom % n]
    assert me.bottom == max(r.bottom for r in rects)
    if n > 2:
        assert rects[(bottom + 1) % n].centerx < me.centerx


@settings(max_examples=60, deadline=None)
@given(size=SIZES, count=st.integers(1, 17))
def test_hand_fits_its_area_and_every_card_shows_its_index(size, count):
    th = T.Theme(*size)
    area = pygame.Rect(th.pad, size[1] - th.u(150), size[0] - 2 * th.pad, th.u(146))
    h, rects = TV.hand_rects(th, count, area)
    assert len(rects) == count
    for r in rects:
        assert area.contains(r)
    # each card but the last shows a strip wide enough to read its corner index and tap it
    for a, b in zip(rects, rects[1:], strict=False):
        assert b.x - a.x >= min(a.width, th.u(36))


@settings(max_examples=40, deadline=None)
@given(size=SIZES, n=st.integers(2, 11))
def test_a_full_trick_fits_between_the_plates(size, n):
    th = T.Theme(*size)
    area = pygame.Rect(th.u(180), th.u(120), size[0] - 2 * th.u(180), th.u(170))
    h, pos = TV.trick_layout(th, n, n, area)
    w = round(h * 0.714)
    for x, y in pos:
        assert area.contains(pygame.Rect(x, y, w, h))
    assert h >= th.u(40)
