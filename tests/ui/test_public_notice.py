"""The referee's warnings for the whole table reach the shared screen.

When the dealer puts a card in the reject pocket by itself, the referee tells the card's owner on
their own screen ("Ana: 7D went to the reject pocket: take it back into your hand") and the
whole table, without naming the card, that its owner takes it back. That second message reached
only the journal: the shared screen showed nothing, and the people at the table did not know
why a player reached into the reject pocket. It is now drawn under the bar, in the kiosk's
language, until the next entry is taken (as a refusal is).
"""

from __future__ import annotations

import pytest
from kiosk_helpers import act, settle, tap_button
from test_play_through import random_chooser

from trickref.engine import cards as C
from trickref.engine.referee.events import DealerMoved
from trickref.ui.i18n import set_language
from trickref.ui.screenshots import start_game

OWNER_TAKES_IT_BACK = "A card went to the reject pocket: its owner takes it back into their hand (their screen says which)"


def _humans_card_due(app, table, chooser) -> None:
    """Play by taps (the human's pass, the bots on their own) until seat 0 plays a card."""
    for _ in range(400):
        settle(app)
        g = table.state
        if app.scene.name == "play" and g.phase == "play" and table.turn() == (0,) and table.legal(0):
            return
        if app.scene.name == "handoff":
            tap_button(app, "Show my cards")
        else:
            act(app, chooser)
    raise AssertionError("seat 0's card never came due")


def _texts(app) -> str:
    """Every word drawn on the shared screen now, in one line (a long notice is wrapped)."""
    app.tick(0.0)
    app.render(force=True)
    return " ".join(str(t) for t in app.scene.model().get("texts", []))


def _reject_one_of_seat_0s_cards(app, table) -> str:
    """The dealer reports one of seat 0's cards in its reject pocket (a card it cleared from its
    read window when it was stopped): the referee's model moves it, the people are told."""
    card = C.NAMES[sorted(table.state.hand_of(0))[0]]
    table.host.call(DealerMoved(((card, "reject"),), 1))
    table.drain()
    return card


def _hearts_with_seat_0_on_turn(app, chooser):
    """A four-player Hearts table (seat 0 the human, tapping) played up to seat 0's card."""
    session = start_game(app, "hearts", 4, humans=(0,), seed=11)
    app.route()
    _humans_card_due(app, session.table, chooser)
    return session.table


def test_a_card_in_the_reject_pocket_is_told_to_the_whole_table_until_the_next_entry(small_app) -> None:
    app = small_app
    chooser = random_chooser(3)
    table = _hearts_with_seat_0_on_turn(app, chooser)
    assert OWNER_TAKES_IT_BACK not in _texts(app)
    card = _reject_one_of_seat_0s_cards(app, table)
    shown = _texts(app)
    assert OWNER_TAKES_IT_BACK in shown, shown
    assert f"{card} went" not in shown and f"{card} " not in shown.split("reject pocket")[0][-40:], shown  # no card named
    assert table.state.to_move == 0 and card in C.names(table.state.hand_of(0))  # still the owner's
    act(app, chooser)  # an entry is taken: the notice has been read
    settle(app)
    assert OWNER_TAKES_IT_BACK not in _texts(app)


def test_the_notice_is_in_the_kiosks_language(small_app) -> None:
    app = small_app
    table = _hearts_with_seat_0_on_turn(app, random_chooser(3))
    _reject_one_of_seat_0s_cards(app, table)
    set_language("fr")
    try:
        shown = _texts(app)
    finally:
        set_language("en")
    assert "Une carte est partie dans la poche de rejet : son propriétaire la reprend en main (son écran dit laquelle)" \
        in shown, shown
    assert OWNER_TAKES_IT_BACK not in shown


def test_a_refusal_takes_the_place_of_the_notice(small_app) -> None:
    """Both are about the last moment at the table; the refusal is what the person tapping needs."""
    app = small_app
    table = _hearts_with_seat_0_on_turn(app, random_chooser(3))
    _reject_one_of_seat_0s_cards(app, table)
    g = table.state
    legal = {a.value for a in table.legal(0)}
    wrong = next((c for c in g.hand_of(0) if c not in legal), None)
    assert wrong is not None, "seed 11: seat 0 holds a card it may not play here"
    from trickref.engine.actions import Action

    with pytest.raises(ValueError, match="cannot play that card"):
        table.submit(0, Action("play", wrong))
    table.drain()
    shown = _texts(app)
    assert OWNER_TAKES_IT_BACK not in shown and table.host.refusal_shown() in shown, shown


@pytest.mark.parametrize("game,players,size", [("hearts", 4, (800, 480)), ("hearts", 6, (800, 480)),
                                               ("spades-2p", 2, (800, 480)), ("hearts", 4, (1280, 800))])
def test_the_strip_hides_no_seat_and_moves_no_card(game, players, size) -> None:
    """The strip under the bar reached over the top row of plates: while it was shown (a notice,
    a refusal) the north plate was not seen, at the Pi's 800x480 and at 1280x800 alike. The top
    row now goes on one line each at the strip's right end: no plate under the strip, every
    seat's name on the screen, and the trick, the side and bottom plates where they were."""
    from trickref.ui.screenshots import make_app

    app = make_app(size)
    session = start_game(app, game, players, humans=(0,), seed=11)
    app.route()
    table = session.table
    try:
        _humans_card_due(app, table, random_chooser(3))
        _texts(app)
        before = app.scene.shown
        card = _reject_one_of_seat_0s_cards(app, table)
        shown = _texts(app)
        assert OWNER_TAKES_IT_BACK in shown, shown
        scene, th = app.scene, app.scene.theme
        strip = (2 * th.pad, scene.bar_height + th.u(4), th.width - 4 * th.pad - scene.strip_inset,
                 scene.strip_bottom() - scene.bar_height - th.u(4))
        import pygame

        strip_rect = pygame.Rect(strip)
        rects = [pygame.Rect(r) for r in scene.shown["plate_rects"]]
        assert not [r for r in rects if r.colliderect(strip_rect)], (strip_rect, rects)
        assert not [(a, b) for i, a in enumerate(rects) for b in rects[i + 1:] if a.colliderect(b)], rects
        for name in table.state.names:
            assert name in shown, (name, shown)
        moved = [s for s, (a, b) in enumerate(zip(before["plate_rects"], scene.shown["plate_rects"], strict=True))
                 if a != b]
        assert moved and all(before["plate_rects"][s][1] == min(r[1] for r in before["plate_rects"]) for s in moved)
        assert scene.shown["trick"] == before["trick"] and card in C.names(table.state.hand_of(0))
    finally:
        table.close()
