"""Home, seats, options, rules, keyboard and the admin PIN, driven by taps."""

from __future__ import annotations

import pygame
from kiosk_helpers import tap, tap_button

from trickref.engine.options import SPECS, defaults


def test_home_to_a_started_game_with_chosen_options(small_app):
    app = small_app
    app.session_args = {"bot_delay": 0.0, "trick_hold": 0.0, "deal_delay": False}
    app.go("home")
    app.render(force=True)
    tap_button(app, "game partnership-spades")
    assert app.scene.model()["game"] == "partnership-spades"
    assert app.scene.model()["players"] == 4
    tap_button(app, "Rule options")
    assert app.scene.name == "options"
    # every option of the game is on screen with its default
    assert app.scene.model()["options"] == defaults("partnership-spades")
    assert set(app.scene.option_widgets) == {s.name for s in SPECS["partnership-spades"]}
    tap_button(app, "Trump suit = spades")
    tap_button(app, "Game ends at = 100")  # the row's presets: 100 and the default, 500
    tap_button(app, "Game ends at +")
    assert app.scene.model()["options"]["trump"] == "spades"
    assert app.scene.model()["options"]["target"] == 150
    toggle = app.scene.option_widgets["must_beat"]
    app.scene.area.scroll(toggle.rect.y - app.scene.area.rect.y)
    app.render(force=True)
    tap(app, toggle.rect.center)
    assert app.scene.model()["options"]["must_beat"] is False
    tap_button(app, "Done")
    tap_button(app, "Start game")
    st = app.session.table.state
    assert st.GAME_ID == "partnership-spades"
    assert st.options["trump"] == "spades" and st.options["target"] == 150 and st.options["must_beat"] is False
    assert app.scene.name in ("handoff", "bidding", "dealing")


def test_player_count_stays_within_the_game(small_app):
    app = small_app
    app.go("home")
    tap_button(app, "game cancellation-hearts")
    assert app.setup.players == 6
    for _ in range(5):
        tap_button(app, "Players +")
    assert app.setup.players == 11
    app.render(force=True)
    assert not app.scene.button("Players +").enabled  # at the most: + is off
    tap_button(app, "game hearts")
    assert app.setup.players in (3, 4, 5, 6, 7)


def test_names_typed_on_the_keyboard_and_bots_toggled(small_app):
    app = small_app
    app.go("players")
    app.render(force=True)
    tap_button(app, "name 1")
    assert app.scene.name == "roster"  # the table's players; a new one is typed once
    tap_button(app, "New player")
    assert app.scene.name == "keyboard"
    for ch in "ZOE":
        tap_button(app, ch)
    assert app.scene.model()["text"] == "Zoe"  # shift for the first letter only
    tap_button(app, "OK")
    assert app.scene.name == "players"
    assert app.setup.names[1] == "Zoe"
    row = app.scene.rows[1]
    assert 1 in app.setup.bots
    tap(app, row.bot.rect.center)
    assert 1 not in app.setup.bots
    assert app.setup.seat_bots() == [2, 3]


def test_how_to_play_is_written_for_players_or_a_note(small_app, monkeypatch, tmp_path):
    from trickref.engine.games import GAME_IDS
    from trickref.ui.scenes import rules

    app = small_app
    app.go("rules")
    app.render(force=True)
    lines = app.scene.model()["lines"]
    assert any("Hearts" in ln for ln in lines) and len(lines) > 10
    # every game's page speaks to players: no game ids, seed files, 0-based seats or option ids
    for game in GAME_IDS:
        text = rules.rules_text(game)
        assert len(text) > 800, game
        for developer_words in ("Game id", "game id", "seed", ".txt", "seats are numbered", "0..n", "`", "_"):
            assert developer_words not in text, (game, developer_words)
        assert "Rule options" in text and "The end" in text and "Scoring" in text
    # a language without its own page falls back to English
    assert rules.rules_text("hearts", "xx") == rules.rules_text("hearts", "en")
    monkeypatch.setattr(rules, "HELP", tmp_path)
    app.go("rules")
    app.render(force=True)
    assert any("missing" in ln for ln in app.scene.model()["lines"])


def test_settings_behind_the_pin():
    from trickref.ui.screenshots import make_app
    from trickref.ui.settings import load_settings

    app = make_app((800, 480), settings=load_settings())  # the table's config file (tmp)
    app.go("home")
    tap_button(app, "Settings")
    assert app.scene.name == "pin"
    for ch in "1111":
        tap_button(app, ch)
    assert app.scene.model()["text"] == "\u2022" * 4
    tap_button(app, "OK")
    assert app.scene.name == "pin" and app.scene.message == "wrong PIN"
    for ch in "0000":
        tap_button(app, ch)
    tap_button(app, "OK")
    assert app.scene.name == "settings"
    four = app.scene.toggles["four_colour"]
    tap(app, four.rect.center)
    assert app.settings.four_colour and app.theme.four_colour
    tap_button(app, "Change PIN")
    for ch in "2468":
        tap_button(app, ch)
    tap_button(app, "OK")
    tap_button(app, "Done")
    assert app.scene.name == "home"
    from trickref.ui.settings import load_settings

    again = load_settings()
    assert again.four_colour is True
    assert again.check_pin("2468") and not again.check_pin("0000")


def test_a_finger_tap_acts_once_with_or_without_sdls_mouse_copy(small_app):
    app = small_app
    app.go("home")
    app.render(force=True)
    b = app.scene.button("game german-whist")
    x, y = b.rect.centerx / app.theme.width, b.rect.centery / app.theme.height
    f = dict(x=x, y=y, finger_id=0, touch_id=0, dx=0, dy=0, pressure=1)
    # FINGER events alone (SDL's mouse copies off): the tap acts
    for e in (pygame.event.Event(pygame.FINGERDOWN, f), pygame.event.Event(pygame.FINGERUP, f)):
        app.dispatch(e)
    assert app.setup.game == "german-whist"
    app.setup.choose_game("hearts")
    app.scene.relayout()
    app.render(force=True)
    # as SDL sends a touch: its mouse copy first, then the FINGER event; a toggle acting twice
    # would show it, so count the picks
    picks = []
    b = app.scene.button("game german-whist")
    old = b.on_click
    b.on_click = lambda: (picks.append(1), old())
    for e in (pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=b.rect.center, button=1, touch=True),
              pygame.event.Event(pygame.FINGERDOWN, f),
              pygame.event.Event(pygame.MOUSEBUTTONUP, pos=b.rect.center, button=1, touch=True),
              pygame.event.Event(pygame.FINGERUP, f)):
        app.dispatch(e)
    assert picks == [1] and app.setup.game == "german-whist"


def test_a_tap_that_slides_off_a_button_does_nothing(small_app):
    app = small_app
    app.go("home")
    app.render(force=True)
    b = app.scene.button("game german-whist")
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=b.rect.center, button=1, touch=True))
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(1, 1), button=1, touch=True))
    assert app.setup.game != "german-whist"


def test_default_pin_is_flagged_and_an_unreadable_pin_locks(tmp_path, monkeypatch):
    from trickref.ui.screenshots import make_app
    from trickref.ui.settings import load_settings

    app = make_app((800, 480), settings=load_settings())
    assert app.settings.default_pin
    app.go("settings")
    app.render(force=True)
    from trickref.ui import draw as D

    D.text_log = []
    try:
        app.render(force=True)
        app.scene.needs_redraw = True
        app.render()
        texts = list(D.text_log)
    finally:
        D.text_log = None
    assert any("still 0000" in t for t in texts)

    cfg = tmp_path / "locked.toml"
    cfg.write_text('[admin]\npin = "not-a-hash"\n')
    monkeypatch.setenv("TRICKREF_CONFIG", str(cfg))
    locked = load_settings()
    assert locked.locked and not locked.check_pin("0000")
    app = make_app((800, 480), settings=locked)
    app.go("pin")
    app.render(force=True)
    assert "locked" in app.scene.message


def test_home_screen_tables_match_the_engine():
    from trickref.engine.games import GAME_IDS, game_class
    from trickref.ui.i18n import set_language
    from trickref.ui.setup import player_counts, title

    set_language("en")
    for g in GAME_IDS:
        assert player_counts(g) == game_class(g).PLAYER_COUNTS
        assert title(g) == game_class(g).TITLE
