"""No scene in table mode draws a card face up that only one seat may see.

card_art records every face-up card it draws; each frame's cards must all appear in the
public view the frame was drawn from. Simulated mode is checked too: a hand appears only for
the seat whose player tapped "show my cards", and never on the hand-off screen.
"""

from __future__ import annotations

import random

import pytest

from trickref.engine import cards as C
from trickref.ui import card_art
from trickref.ui.screenshots import auto_step, start_game

GAMES = [("hearts", 4), ("spades-2p", 2), ("german-whist", 2), ("partnership-spades", 4), ("cancellation-hearts", 7)]


def public_cards(obj) -> set[int]:
    """Every card named anywhere in a public view."""
    out: set[int] = set()
    if isinstance(obj, dict):
        for v in obj.values():
            out |= public_cards(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out |= public_cards(v)
    elif isinstance(obj, str) and len(obj) == 2:
        try:
            out.add(C.parse(obj))
        except ValueError:
            pass
    return out


@pytest.mark.parametrize("game,players", GAMES, ids=[g for g, _ in GAMES])
def test_table_mode_draws_only_public_cards(small_app, game, players):
    app = small_app
    from trickref.engine.options import SPECS

    lowest = next(s.minimum or 1 for s in SPECS[game] if s.name == "target")
    session = start_game(app, game, players, humans=tuple(range(players)), seed=13, options={"target": lowest})
    session.simulated = False  # table mode: physical cards, shared screen
    table = session.table
    rng = random.Random(0)
    frames = 0
    for _step in range(600):
        app.route()
        with card_art.recording() as drawn:
            app.render(force=True)
        allowed = public_cards(table.public_view())
        assert set(drawn) <= allowed, (app.scene.name, sorted(C.NAMES[c] for c in set(drawn) - allowed))
        frames += 1
        if rng.random() < 0.1:  # now and then look at the score sheet and the last trick too
            app.go("scoresheet")
            with card_art.recording() as drawn:
                app.render(force=True)
            assert set(drawn) <= allowed
        st = table.state
        if st.over:
            break
        if st.needs_deck:
            session.acknowledge_summary()
            table.deal(instant=True)
            continue
        auto_step(table)
    assert frames > 20


def test_simulated_mode_shows_only_the_revealed_hand(small_app):
    app = small_app
    session = start_game(app, "hearts", 4, humans=(0, 1, 2, 3), seed=21)
    table = session.table
    for _step in range(200):
        st = table.state
        if st.phase == "deal":
            break
        app.route()
        with card_art.recording() as drawn:
            app.render(force=True)
        allowed = public_cards(table.public_view())
        if app.scene.name == "handoff":
            assert set(drawn) <= allowed
            seat = app.scene.seat
            session.reveal(seat)
            app.route()
            with card_art.recording() as drawn:
                app.render(force=True)
            mine = {C.parse(c) for c in table.seat_view(seat)["game"]["hand"]}
            extra = set(drawn) - allowed
            assert extra and extra <= mine | public_cards(table.seat_view(seat)["game"])
        auto_step(table)
        session.after_action()
