"""Small things a player reads: the keyboard's case and Shift, the pass line, the resume notice,
what Undo takes back, French elision and a long "still to enter" line that fits, and the
screenshot tool's translated Settings and keyboard."""

from __future__ import annotations

import pygame
from finger import tap_target

from trickref.ui import layoutcheck as L
from trickref.ui.i18n import set_language
from trickref.ui.keyboard import KeyboardScene
from trickref.ui.screenshots import advance, make_app, scenarios, show, start_game
from trickref.ui.settings import Settings


def test_the_keyboard_shows_the_case_it_types_and_shift_lights(small_app):
    app = small_app
    kb = KeyboardScene(app, "Name", "")
    app.push(kb)
    app.render(force=True)
    key = kb.button("W")
    assert key.text == "W" and kb.button("Shift").selected  # a name starts with a capital
    tap_target(app, "W")
    assert kb.text == "W"
    app.render(force=True)
    assert kb.button("W").text == "w" and not kb.button("Shift").selected
    tap_target(app, "W")
    assert kb.text == "Ww"
    tap_target(app, "Shift")
    app.render(force=True)
    assert kb.button("Shift").selected and kb.button("E").text == "E"
    tap_target(app, "E")
    assert kb.text == "WwE"


def test_a_name_being_edited_goes_on_in_lower_case(small_app):
    app = small_app
    kb = KeyboardScene(app, "Name", "Ana")
    app.push(kb)
    app.render(force=True)
    assert not kb.button("Shift").selected and kb.button("B").text == "b"


def test_the_pass_line_says_to_whom_and_who_has_passed(small_app):
    app = small_app
    s = start_game(app, "hearts", 4, humans=(0,), names=["Ana", "Ben", "Cem", "Dan"], seed=7)
    advance(s, lambda st: st.phase == "pass" and 0 in st.turn_seats())
    s.table.step_bot()  # one bot passes; Ana has not yet
    s.table.drain()
    sc = show(app, reveal=0)
    assert sc.name == "play", sc.name
    msg = sc.model()["message"]
    to = s.table.seat_view(0)["game"]["pass_to"]
    assert f"pass 3 cards to {['Ana', 'Ben', 'Cem', 'Dan'][to]}" in msg
    done = [["Ana", "Ben", "Cem", "Dan"][x] for x in s.table.state.public_view()["passed"]]
    assert done and msg.endswith("already passed: " + ", ".join(done)), msg
    assert "(3 passed)" not in msg


def test_undo_says_what_it_takes_back(small_app):
    app = small_app
    s = start_game(app, "hearts", 4, names=["Ana", "Ben", "Cem", "Dan"], seed=11)
    advance(s, lambda st: st.phase == "play" and 0 in st.turn_seats() and st.tricks_played >= 1)
    sc = show(app, reveal=0)
    from trickref.engine import cards as C

    card = next(c for c in sc.hand.cards if c in sc.hand.playable)
    tap_target(app, f"card {C.NAMES[card]}")
    s.table.drain()
    show(app, reveal=0)
    tap_target(app, "Undo")
    assert app.scene.name == "confirm"
    from trickref.ui.card_art import card_text

    detail = app.scene.detail
    assert detail.startswith("Takes back: Ana played " + card_text(card)), detail
    assert "; then Ben played" in detail  # the bots' cards after it go with it


def test_french_elides_de_before_a_vowel_and_a_long_missing_line_fits():
    set_language("fr")
    try:
        app = make_app((800, 480), Settings(language="fr"))
        app.settings.large_text = True
        app.apply_settings()
        app.setup.choose_game("cancellation-hearts")
        app.setup.players = 11
        app.setup.names[:11] = ["Ana", "Ben", "Cem", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim"]
        from trickref.ui.scenes.scorekeeper_entry import start_scorekeeping

        sc = start_scorekeeping(app, replace=True)
        assert "Cœurs d'Ana" in sc.reason()
        with L.recording() as log:
            app.render(force=True)
        assert not L.check(log, (800, 480), True)
        shown = [r.text for r in log if r.kind == "text" and r.text.startswith("reste à saisir")]
        assert shown and shown[0].startswith("reste à saisir : Cœurs d'Ana") and "autres" in shown[0]
    finally:
        set_language("en")


def test_screenshot_settings_and_keyboard_are_in_the_language_shot():
    stages = dict(scenarios())
    try:
        for name, word in (("settings", "Langue"), ("keyboard", "Nom du nouveau joueur")):
            app = make_app((800, 480), Settings(language="fr"))
            with L.recording() as log:
                stages[name](app)
                app.render(force=True)
            texts = [r.text for r in log if r.kind == "text"]
            assert any(word in t for t in texts), (name, texts[:12])
            assert app.settings.language == "fr"
    finally:
        set_language("en")


def test_the_resume_notice_speaks_the_players_words(tmp_path):
    from trickref.ui.screenshots import scenarios as sc

    app = make_app((800, 480))
    dict(sc())["resumed"](app)
    words = app.scene.question + " " + app.scene.detail
    assert "back where it stopped" in words
    assert "entries in" not in words and "replayed" not in words
    pygame.event.clear()
