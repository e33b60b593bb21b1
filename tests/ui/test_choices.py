"""The less common choices offered by tapping: the moon, Double Nil, Blind Nil, exchanges."""

from __future__ import annotations

from kiosk_helpers import tap_button

from trickref.engine.actions import BLIND_NIL, DOUBLE_NIL, MOON_OTHERS, MOON_SELF
from trickref.ui.screenshots import advance, correct, start_game


def test_moon_choice_buttons_show_the_options_values(small_app, monkeypatch):
    app = small_app
    session = start_game(app, "hearts", 4, humans=(0,), seed=8, options={"moon_self": -26})
    advance(session, lambda st: st.phase == "play" and 0 in st.turn_seats())
    session.reveal(0)
    app.route()
    table = session.table
    monkeypatch.setattr(table, "legal", lambda seat: [MOON_SELF, MOON_OTHERS])
    taken = []
    monkeypatch.setattr(session, "submit", lambda seat, action: taken.append((seat, action)))
    app.render(force=True)
    assert {"Me -26", "Others +26"} <= set(app.scene.model()["buttons"])
    tap_button(app, "Others +26")
    assert taken == [] and app.scene.name == "confirm"  # it binds the hand: asked first
    tap_button(app, "yes")
    assert taken == [(0, MOON_OTHERS)]


def test_double_nil_declared_by_a_tap_before_the_first_draw(small_app):
    app = small_app
    session = start_game(app, "spades-2p", 2, humans=(0, 1), seed=8)
    st = session.table.state
    seat = st.turn_seats()[0]
    session.reveal(seat)
    app.route()
    app.render(force=True)
    assert app.scene.name == "play"
    assert DOUBLE_NIL in session.table.legal(seat)
    tap_button(app, "Double Nil")
    tap_button(app, "yes")  # asked first
    assert st.double[seat]
    assert app.scene.model()["drawn_card"]  # the shown card is still waiting for keep/discard


def test_blind_nil_for_the_trailing_team(small_app):
    app = small_app
    session = start_game(app, "partnership-spades", 4, humans=(0, 1, 2, 3), seed=8, options={"blind_nil_margin": 0},
                         deal=False)
    st = session.table.state
    leading = st.dealer % 2  # the first bidder (left of the dealer) must trail: the dealer's team leads
    correct(session.table, leading, 50, "staged: the first bidder's team trails")
    assert st.totals[leading] == st.totals[leading + 2] == 50
    session.start_deal()
    session.table.drain()
    app.route()
    app.render(force=True)
    assert app.scene.name == "handoff"
    seat = app.scene.seat
    assert BLIND_NIL in session.table.legal(seat)
    tap_button(app, "Blind Nil (without looking)")
    tap_button(app, "yes")  # asked first
    assert st.blind[seat] and st.bids[seat] == 0
    assert session.revealed is None  # declared without the hand ever shown


def test_the_default_is_always_among_the_preset_buttons() -> None:
    """A row shows the presets it has room for, the rules page's default always among them:
    partnership Spades' targets are 100 / 200 / 300 / 500, default 500, and a narrow row showed
    100 and 200 only. Cancellation Hearts' moon options offer the seed's figures and the pool's
    (-52 / +52), as RULES.md says the kiosk does."""
    from trickref.engine.catalog import info
    from trickref.ui.scenes.options import shown_presets

    assert shown_presets((100, 200, 300, 500), 500, 2) == (100, 500)
    assert shown_presets((100, 200, 300, 500), 500, 3) == (100, 200, 500)
    assert shown_presets((100, 200, 300, 500), 500, 4) == (100, 200, 300, 500)
    assert shown_presets((None, -200, -500), None, 2) == (None, -200)
    assert shown_presets((100, 150, 200), 150, 2) == (100, 150)
    assert shown_presets((), 7, 2) == ()
    specs = {s.name: s for s in info("cancellation-hearts").options}
    assert specs["moon_self"].presets == (-28, -52) and specs["moon_others"].presets == (26, 52)
