"""The table on Touch Display 2 in portrait (720x1280) and the seat cells it is drawn with: the
portrait scale keeps the millimetres of the 7 inch 800x480 panel, a scene opts in to being
held to the millimetre rules there, seat cells never overlap and keep their words unshrunk
beside a card of at least 10.5 mm, a two-row hand leaves every card a strip to read and tap."""

from __future__ import annotations

import pygame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickref.ui import card_art as A
from trickref.ui import draw as D
from trickref.ui import layoutcheck as L
from trickref.ui import tableview as TV
from trickref.ui import theme as T


def setup_module() -> None:
    from trickref.ui.app import init_pygame

    init_pygame()


def test_the_portrait_scale_keeps_the_millimetres_of_the_7_inch_panel():
    small = T.Theme(800, 480)
    tall = T.Theme(720, 1280).portrait_theme()
    assert not T.Theme(720, 1280).portrait_scale and tall.portrait_scale and tall.portrait
    mm = {size: L.display_for(size).px_per_mm(size) for size in ((800, 480), (720, 1280))}
    a, b = small.scale / mm[(800, 480)], tall.scale / mm[(720, 1280)]  # millimetres per layout unit
    assert abs(a - b) / a < 0.01, (a, b)
    for units in (27, 52, 104):  # text, touch targets, cards (pixels rounded)
        assert abs(small.u(units) / mm[(800, 480)] - tall.u(units) / mm[(720, 1280)]) < 0.15
    # the portrait theme follows its screen's settings when they change
    base = T.Theme(720, 1280)
    base.large_text = True
    assert base.portrait_theme().large_text
    # a landscape screen ignores the switch
    assert T.Theme(800, 480, portrait_scale=True).scale == 1.0


def _frame(scene: str, portrait: bool) -> list[D.Drawn]:
    surf = pygame.Surface((720, 1280))
    th = T.Theme(720, 1280)  # landscape units squeezed into portrait: 1.5 mm capitals
    with L.recording() as log:
        D.log_scene(scene, portrait)
        D.text(surf, th, "Hello table", (10, 10), "small")
    return log


def test_a_scene_with_a_portrait_layout_is_held_to_the_millimetre_rules_in_portrait():
    assert L.check(_frame("old", False), (720, 1280), physical=False) == []
    found = L.check(_frame("new", True), (720, 1280), physical=False)
    assert any("text too small" in p for p in found), found
    # the switch is the top scene's: a modal without it over a table scene is checked as before
    log = _frame("new", True) + _frame("modal", False)
    assert L.check(log, (720, 1280), physical=False) == []


def _game(n: int, large: bool) -> tuple[dict, dict]:
    names = ["Ana", "Ben", "Cem", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Joe", "Kim"][:n]
    g = {"game": "cancellation-hearts" if n > 6 else "hearts", "players": n, "names": names, "dealer": 0,
         "tricks_taken": [s % 4 for s in range(n)], "points_taken": [(7 * s) % 27 for s in range(n)],
         "totals": [(13 * s) % 100 for s in range(n)], "phase": "play"}
    return g, {"bots": list(range(1, n))}


SCREENS = st.sampled_from([((720, 1280), True), ((800, 480), False), ((1280, 720), False), ((1024, 600), False)])


@settings(max_examples=60, deadline=None)
@given(screen=SCREENS, n=st.integers(2, 11), large=st.booleans())
def test_seat_cells_do_not_overlap_and_keep_their_words_beside_a_10_mm_card(screen, n, large):
    size, portrait = screen
    if not portrait and n < 7:
        return  # landscape draws up to 6 players around the table
    th = T.Theme(*size, large_text=large)
    th = th.portrait_theme() if portrait else th
    g, t = _game(n, large)
    # the room the play scene leaves the cells with a hand shown (the smallest it gives them)
    if portrait:  # under the bar, the turn and the trick's marks; over a two-row hand (smaller from 7 on)
        card_h = TV.stacked_hand_card(th, n)
        bottom = card_h + TV.hand_row_rise(th, card_h) + th.u(14 + 16)
        area = pygame.Rect(th.pad, th.u(180), th.width - 2 * th.pad, th.height - th.u(180) - bottom)
    else:
        area = pygame.Rect(th.pad, th.u(64), th.width - 2 * th.pad, th.height - th.u(64) - th.u(106))
    cells, card_h = TV.seat_grid(th, g, t, area)
    assert len(cells) == n
    for i, r in enumerate(cells):
        assert area.contains(r), (r, area)
        for q in cells[i + 1:]:
            assert not r.colliderect(q)
    mm = card_h / L.display_for(size).px_per_mm(size)
    assert mm >= 10.5, (n, large, size, mm)
    room = cells[0].width - A.card_size(card_h)[0] - 4 * TV.cell_inner(th)
    avail = (cells[0].height - 2 * TV.cell_inner(th)) // th.font("small").get_height()
    assert TV._cell_words_fit(th, g, t, n, room, avail) > 0  # every cell's words, unshrunk


def test_a_seat_cell_draws_its_card_its_words_and_the_marks_inside_itself():
    th = T.Theme(720, 1280).portrait_theme()
    g, t = _game(4, False)
    surf = pygame.Surface((720, 1280))
    area = pygame.Rect(th.pad, th.u(170), th.width - 2 * th.pad, th.u(400))
    cells, card_h = TV.seat_grid(th, g, t, area)
    with L.recording() as log:
        D.log_scene("cells")
        for s, r in enumerate(cells):
            TV.draw_seat_cell(surf, th, g, t, s, r, card_h, active=s == 2, played={1: "QS", 2: "AH"}.get(s), leader=1,
                              winning=2, cancelled=set(), complete=False, tag_line=True, total_line=True)
    drawn = [r for r in log if r.kind in ("text", "card")]
    assert L.check(log, (720, 1280)) == []
    for r in drawn:
        assert any(c.contains(r.rect) for c in cells), r
    texts = [r.text for r in drawn if r.kind == "text"]
    assert "led" in texts and "winning" in texts and "total 0" in texts
    assert [r.text for r in drawn if r.kind == "card"] == ["Q\u2660", "A\u2665"]


@pytest.mark.parametrize("count", [10, 13, 17])
def test_a_two_row_hand_shows_every_index_and_taps_the_card_shown(count):
    th = T.Theme(720, 1280).portrait_theme()
    width = th.width - 2 * th.pad
    assert TV.hand_rows(th, count, width) == 2
    assert TV.hand_rows(th, 6, width) == 1
    rise = TV.hand_row_rise(th)
    area = pygame.Rect(th.pad, th.u(500), width, th.card_height("hand") + th.u(14) + rise)
    h, rects = TV.hand_rects(th, count, area, rows=2)
    back, front = rects[:count - count // 2], rects[count - count // 2:]
    assert all(area.contains(r) for r in rects)
    assert {r.y for r in back} == {front[0].y - rise} and len({r.y for r in front}) == 1
    for row in (back, front):
        for a, b in zip(row, row[1:], strict=False):
            assert b.x - a.x >= th.u(36)  # a strip 7 mm wide: the corner index shows, a finger fits
    hand = TV.HandView()
    hand.cards = list(range(count))
    hand.rects, hand.height = rects, h
    for i, r in enumerate(rects):
        spot = (r.x + th.u(6), r.y + th.u(10))  # the card's corner: never under another card
        assert hand.hit(spot) == i


def test_every_scene_is_laid_out_for_the_portrait_panel():
    """Every scene the kiosk shows opts in to the portrait layout, so test_layout_scenes holds it
    to the millimetre rules at 720x1280 (a scene without it would be checked for geometry only)."""
    import importlib
    import pkgutil

    import trickref.ui.keyboard  # noqa: F401
    import trickref.ui.scenes as scenes
    from trickref.ui.scene import Scene
    from trickref.ui.scenes.gamebase import GameScene

    for m in pkgutil.iter_modules(scenes.__path__):
        importlib.import_module(f"trickref.ui.scenes.{m.name}")
    found, todo = [], list(Scene.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls is not GameScene and cls.__module__.startswith("trickref.ui"):
            found.append(cls)
    assert len(found) >= 20
    assert [c.__name__ for c in found if not c.portrait_layout] == []
