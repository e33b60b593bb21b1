"""Sound cues: your turn, a trick taken, a refused tap, the dealer alarm; silent when off."""

from __future__ import annotations

from kiosk_helpers import settle, tap_card

from trickref.engine import cards as C
from trickref.ui.screenshots import advance, make_app, real_game, show, start_game
from trickref.ui.settings import Settings
from trickref.ui.sound import CUES, RATE, tone


def test_tones_are_the_right_length():
    for parts in CUES.values():
        assert len(tone(parts)) == 2 * sum(RATE * ms // 1000 for _, ms in parts)


def test_cues_during_a_game():
    app = make_app((800, 480), settings=Settings(sound=True))
    session = start_game(app, "hearts", 4, humans=(0,), seed=12)
    app.route()
    assert app.sounds.log[-1] == "turn"  # the only human: their hand at once, with the turn chime
    assert app.scene.name == "play"
    app.route()
    assert app.sounds.log.count("turn") == 1  # no second chime for the same turn
    advance(session, lambda st: st.phase == "play" and 0 in st.turn_seats() and len(st.trick) >= 1
            and any(c // 13 != st.trick[0] // 13 for c in st.hand_of(0))
            and any(c // 13 == st.trick[0] // 13 for c in st.hand_of(0)))
    app.route()
    settle(app)
    # a card that does not follow suit is refused with the error sound
    st = session.table.state
    led = st.trick[0] // 13
    wrong = next(c for c in st.hand_of(0) if c // 13 != led)
    tap_card(app, C.NAMES[wrong])
    assert app.sounds.log[-1] == "error" and app.scene.error
    right = next(c for c in st.hand_of(0) if c // 13 == led)
    before = len(app.sounds.log)
    tap_card(app, C.NAMES[right])
    settle(app)
    assert "trick" in app.sounds.log[before:]


def test_alarm_on_a_dealer_fault_and_silence_when_off():
    app = make_app((800, 480), settings=Settings(sound=False))
    table = real_game(app, "german-whist", 2)  # the simulated dealer: its cable comes out
    table.fault("link")
    app.session.start_deal()
    assert table.wait(lambda: table.referee.dealer_fault is not None)
    app.route()
    assert app.scene.name == "fault" and app.sounds.log == ["alarm"]
    assert app.sounds._ready is None  # sound off: the audio device was never opened


def test_the_referees_sounds_are_carried_out_by_the_table_host():
    """A refusal's sound is the referee's: the table host plays it on the kiosk's speaker (from
    its worker thread, played by the loop), and the screen adds none of its own."""
    from trickref.engine.actions import Action

    app = make_app((800, 480), settings=Settings(sound=True))
    session = start_game(app, "hearts", 4, humans=(0,), seed=12)
    app.route()
    table = session.table
    assert table.host.speaker is app.sounds
    advance(session, lambda st: st.phase == "play" and 0 in st.turn_seats())
    show(app, reveal=0)
    assert app.scene.acting_seat == 0
    before, heard = len(app.sounds.log), len(table.host.sounds)
    held = set(table.state.hand_of(0))
    stranger = next(c for c in range(52) if c not in held)  # a card seat 0 does not hold
    app.scene.submit(Action("play", stranger))
    assert app.scene.error  # the referee's words
    assert list(table.host.sounds)[heard:] == ["refused"]
    assert app.sounds.log[before:] == ["refused"]  # once: the host's, played by the loop
