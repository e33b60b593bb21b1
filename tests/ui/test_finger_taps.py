"""Held taps on the choices of a hand, touch events acting exactly once, and the one-tap choices
that bind a hand asking first (tests/ui/finger.py taps as a person does)."""

from __future__ import annotations

import pygame
import pytest
from finger import KINDS, Clock, tap, tap_target

from trickref.engine.actions import BLIND_NIL, DOUBLE_NIL
from trickref.ui.screenshots import advance, correct, show, start_game
from trickref.ui.touch import Pointer


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("hold_ms", [20, 60, 120, 500])
def test_a_held_tap_passes_three_cards(small_app, kind, hold_ms):
    app = small_app
    s = start_game(app, "hearts", 4, seed=7)
    advance(s, lambda st: st.phase == "pass" and 0 in st.turn_seats())
    sc = show(app, reveal=0)
    for name in [n for n, _r in sc.touch_targets() if n.startswith("card ")][:3]:
        tap_target(app, name, hold_ms=hold_ms, kind=kind)
    assert len(app.scene.hand.selected) == 3
    held = []
    tap_target(app, "Pass 3 cards", hold_ms=hold_ms, kind=kind,
               while_held=lambda: held.append((app.scene.held, [b.pressed for b in app.scene.action_buttons])))
    s.table.drain()
    assert 0 in s.table.state.public_view()["passed"] or s.table.state.phase != "pass"
    # while held, the button (drawn again each frame) looked pressed
    assert held[0][0] == "Pass 3 cards" and held[0][1] == [True]


@pytest.mark.parametrize("choice", ["Keep it", "Discard it"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_held_tap_keeps_or_discards_the_drawn_card(small_app, choice, kind):
    app = small_app
    s = start_game(app, "spades-2p", 2, humans=(0,), names=["Ana", "Ben"], seed=8)
    advance(s, lambda st: st.phase == "draw" and 0 in st.turn_seats() and st.pos >= 10)
    show(app, reveal=0)
    before = len(s.table.state.actions)
    tap_target(app, choice, hold_ms=300, kind=kind, drift=(4, -3))
    s.table.drain()
    taken = [a for seat, a in s.table.state.actions[before:] if seat == 0]
    assert taken and taken[0].kind == "draw" and taken[0].value == ("keep" if choice == "Keep it" else "discard")


def test_the_first_tap_after_last_trick_and_back_plays_the_card(small_app):
    app = small_app
    s = start_game(app, "hearts", 4, seed=11)
    advance(s, lambda st: st.phase == "play" and 0 in st.turn_seats() and len(st.trick) == 1 and st.tricks_played >= 2)
    sc = show(app, reveal=0)
    tap_target(app, "Last trick", hold_ms=150)
    assert app.scene.review
    tap_target(app, "Last trick", hold_ms=150)  # it says Back now
    assert not app.scene.review
    card = next(C for C in sc.hand.cards if C in sc.hand.playable)
    from trickref.engine import cards as C

    tap_target(app, f"card {C.NAMES[card]}", hold_ms=120)
    s.table.drain()
    assert (0, card) in [(seat, a.value) for seat, a in s.table.state.actions if a.kind == "play"]


def test_a_tap_anywhere_ends_the_last_trick_and_nothing_else(small_app):
    app = small_app
    s = start_game(app, "hearts", 4, seed=11)
    advance(s, lambda st: st.phase == "play" and 0 in st.turn_seats() and len(st.trick) == 1 and st.tricks_played >= 2)
    sc = show(app, reveal=0)
    card = next(r for n, r in sc.touch_targets() if n.startswith("card "))
    tap_target(app, "Last trick")
    n = len(s.table.state.actions)
    tap(app, card.center)  # a card, while the last trick shows: only puts the table back
    assert not app.scene.review and len(s.table.state.actions) == n


@pytest.mark.parametrize("kind", KINDS)
def test_a_touch_acts_exactly_once(small_app, kind):
    app = small_app
    app.setup.choose_game("cancellation-hearts")
    app.setup.players = 6
    app.go("home")
    app.render(force=True)
    tap_target(app, "Players +", kind=kind, hold_ms=200)
    assert app.setup.players == 7
    tap_target(app, "Players +", kind=kind, hold_ms=50)
    assert app.setup.players == 8


def test_a_finger_that_slides_off_does_nothing(small_app):
    app = small_app
    app.go("home")
    app.setup.players = 4
    app.render(force=True)
    tap_target(app, "Players +", kind="touch", hold_ms=300, drift=(0, 120))
    assert app.setup.players == 4


def test_a_second_finger_is_ignored_while_the_first_is_down(small_app):
    app = small_app
    app.go("home")
    app.render(force=True)
    sc = app.scene
    plus = dict(sc.touch_targets())["Players +"]
    minus = dict(sc.touch_targets())["Players -"]
    n = app.setup.players
    size = app.screen.get_size()

    def finger(t: int, fid: int, pos: tuple[int, int]) -> pygame.event.Event:
        return pygame.event.Event(t, touch_id=1, finger_id=fid, x=pos[0] / size[0], y=pos[1] / size[1], dx=0.0, dy=0.0,
                                  pressure=1.0)

    for ev in (finger(pygame.FINGERDOWN, 0, plus.center), finger(pygame.FINGERDOWN, 1, minus.center),
               finger(pygame.FINGERUP, 1, minus.center), finger(pygame.FINGERUP, 0, plus.center)):
        app.dispatch(ev)
    assert app.setup.players == n + 1


def test_pointer_keeps_one_stream_in_either_order():
    pygame.init()
    size = (800, 480)

    def ev(t: int, **kw: object) -> pygame.event.Event:
        return pygame.event.Event(t, kw)

    fd = dict(touch_id=1, finger_id=0, x=0.5, y=0.5, dx=0.0, dy=0.0, pressure=1.0)
    sdl = [ev(pygame.MOUSEBUTTONDOWN, pos=(400, 240), button=1, touch=True), ev(pygame.FINGERDOWN, **fd),
           ev(pygame.MOUSEBUTTONUP, pos=(400, 240), button=1, touch=True), ev(pygame.FINGERUP, **fd)]
    for order in (sdl, [sdl[1], sdl[0], sdl[3], sdl[2]]):
        p = Pointer()
        out = [e for x in order for e in p.translate(x, size)]
        assert [e.type for e in out] == [pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP]
        assert p.owner is None
    # bare finger events become mouse events in the window's pixels
    p = Pointer()
    out = p.translate(ev(pygame.FINGERDOWN, **dict(fd, x=0.25, y=1.0)), size)
    assert out[0].type == pygame.MOUSEBUTTONDOWN and out[0].pos == (200, 479) and out[0].touch
    # a finger whose release was lost does not lock out a mouse
    assert p.translate(ev(pygame.MOUSEBUTTONDOWN, pos=(1, 1), button=1, touch=False), size)
    assert p.translate(ev(pygame.MOUSEBUTTONUP, pos=(1, 1), button=1, touch=False), size)


def test_double_nil_asks_first(small_app):
    app = small_app
    s = start_game(app, "spades-2p", 2, humans=(0,), names=["Ana", "Ben"], seed=8)
    advance(s, lambda st: st.phase == "draw" and 0 in st.turn_seats())
    show(app, reveal=0)
    assert DOUBLE_NIL in s.table.legal(0)
    tap_target(app, "Double Nil", hold_ms=200)
    assert app.scene.name == "confirm" and "Double Nil" in app.scene.question
    tap_target(app, "no")
    assert not s.table.state.double[0]
    tap_target(app, "Double Nil", hold_ms=90)
    tap_target(app, "yes", hold_ms=140)
    s.table.drain()
    assert s.table.state.double[0]


def test_the_moon_asks_first(small_app):
    app = small_app
    s = start_game(app, "hearts", 4, humans=(0,), names=["Ana", "Ben", "Cem", "Dan"], seed=1)
    advance(s, lambda st: st.phase == "moon" and 0 in st.turn_seats())
    sc = show(app, reveal=0)
    others = next(n for n, _r in sc.touch_targets() if n.startswith("Others "))
    tap_target(app, others, hold_ms=250, kind="touch")
    assert app.scene.name == "confirm" and "+26" in app.scene.question
    tap_target(app, "yes", hold_ms=250, kind="touch")
    s.table.drain()
    assert s.table.state.phase != "moon"
    hand = s.table.state.hand_results[-1]
    assert hand["points"][0] == 0 and all(p >= 26 for p in hand["points"][1:])


def test_blind_nil_asks_first(small_app):
    app = small_app
    s = start_game(app, "partnership-spades", 4, humans=(0, 1, 2, 3), seed=8, options={"blind_nil_margin": 0},
                   deal=False)
    st = s.table.state
    correct(s.table, st.dealer % 2, 50, "staged: the first bidder's team trails")
    s.start_deal()
    s.table.drain()
    sc = show(app)
    assert sc.name == "handoff" and BLIND_NIL in s.table.legal(sc.seat)
    seat = sc.seat
    tap_target(app, "Blind Nil (without looking)", hold_ms=120)
    assert app.scene.name == "confirm"
    tap_target(app, "yes")
    s.table.drain()
    assert st.blind[seat] and st.bids[seat] == 0


def test_frames_are_drawn_while_the_finger_is_held(small_app):
    app = small_app
    app.go("home")
    app.render(force=True)
    drawn = tap(app, dict(app.scene.touch_targets())["Players +"].center, hold_ms=500, clock=Clock())
    assert drawn >= 6


def test_a_drag_that_starts_on_a_toggle_scrolls_and_does_not_flip_it(small_app):
    app = small_app
    app.go("settings")
    app.render(force=True)
    sc = app.scene
    before = app.settings.sound
    offset = sc.area.offset
    tap_target(app, "Sound", hold_ms=300, drift=(0, -60))  # a drag up the list
    assert app.settings.sound == before and sc.area.offset > offset
    tap_target(app, "Sound", hold_ms=120)  # and the next tap is a tap
    assert app.settings.sound != before
