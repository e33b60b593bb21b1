"""The kiosk on the real referee path: referee + simulated dealer on a pty (through the Dealer
driver) + on-screen panels + journal + games folder, driven by synthesized taps."""

from __future__ import annotations

import json

import pytest
from kiosk_helpers import WHOLE_GAME_TIMEOUT_S, tap_button
from referee_helpers import _table_state, play_to_end, pump, referee_app, start

from trickref.device.config import load
from trickref.device.games_store import GamesStore
from trickref.engine import cards as C
from trickref.ui import card_art
from trickref.ui.app import start_home

GAMES = [
    ("hearts", 4, {"target": 50}),
    ("spades-2p", 2, {"target": 60}),
    ("german-whist", 2, {"target": 3}),
    ("partnership-spades", 4, {"target": 100}),
    ("cancellation-hearts", 6, {"target": 100}),
]


def dealt(table) -> bool:
    """The hand is out and checked: the table takes entries."""
    return table.referee.accepting()


def crawl_from_the_next_card(table) -> None:
    """The simulated dealer slows to a crawl as soon as it deals its next card (set on the
    driver's thread, as the card's event comes in), so a deal is still under way when the test
    makes its next tap, however long a loaded machine takes to get there."""
    from trickref.device.dealer import messages as m

    driver, sim = table.opened.driver, table.opened.world.sim

    def listener(ev) -> None:
        if getattr(ev, "kind", None) == m.EV_CARD_DEALT:
            sim.speed = 0.01
            driver.remove_listener(listener)

    driver.add_listener(listener)


def back_from_the_fault(app, table) -> None:
    """After Resume: wait on the table host (drain: the recovery, then the rest of the deal)
    with the kiosk's loop still, so no frame competes with the dealer's threads for the
    process while the dealer is checked; then let the kiosk route."""
    table.drain()
    assert dealt(table), _table_state(app)
    pump(app, lambda a: a.scene.name != "fault")


def games_folder() -> GamesStore:
    return GamesStore(load().config.storage.games_dir())


@pytest.mark.timeout(WHOLE_GAME_TIMEOUT_S)
@pytest.mark.parametrize("game,players,options", GAMES, ids=[g for g, _, _ in GAMES])
def test_a_whole_game_with_a_human_seat_by_taps(game, players, options):
    app = referee_app()
    session = start(app, game, players, humans=(0,), options=options)
    table = session.table
    seen = play_to_end(app)
    assert app.scene.name == "gameover"
    ref = table.referee
    assert ref.waiting == "over" and ref.game.over
    # the human seat acted by taps: its entries came from the touchscreen or its panel
    assert any(s == 0 for s, _ in ref.game.actions) or any(
        s == 0 for _deck, acts in ref.game.finished_hands for s, _ in acts)
    assert "summary" in seen and ("play" in seen or "bidding" in seen)
    # the finished record is in the games folder and replays to the same totals
    saved = games_folder().list_games()
    assert len(saved) == 1 and saved[0].game == game
    rec = json.loads(saved[0].path.read_text())
    assert len(rec["hands"]) == ref.game.hand_number
    # and the journal was started afresh: the next kiosk start shows home
    app.end_session()
    again = referee_app()
    start_home(again)
    assert again.scene.name == "home" and again.session is None


@pytest.mark.timeout(WHOLE_GAME_TIMEOUT_S)
def test_resume_mid_trick_gives_the_identical_view_and_play_goes_on():
    app = referee_app()
    session = start(app, "hearts", 4, humans=(0,), options={"target": 50})
    table = session.table

    def mid_trick(a):
        g = table.referee.game
        return g is not None and g.phase == "play" and len(g.trick) == 2 and table.referee.accepting()

    for _ in range(400):
        pump(app)
        if mid_trick(app):
            break
        from referee_helpers import human_step

        human_step(app)
    assert mid_trick(app)
    view = table.public_view()
    seat_views = [table.seat_view(s) for s in range(4)]
    events = table.referee.events_handled
    app.end_session()  # the app is dropped: the journal holds the game

    app2 = referee_app()
    start_home(app2)
    assert app2.scene.name == "confirm"  # "Game resumed" said on screen
    assert app2.scene.question == "Game resumed" and "where it stopped" in app2.scene.detail
    t2 = app2.session.table
    assert t2.referee.events_handled == events
    assert t2.public_view() == view
    assert [t2.seat_view(s) for s in range(4)] == seat_views
    tap_button(app2, "yes")
    # play goes on from there: a whole game to the end
    play_to_end(app2)
    assert t2.referee.waiting == "over"


def test_dealer_jam_mid_deal_shows_the_fault_and_the_deal_goes_on():
    app = referee_app(speed=3.0)  # a slow deal, so the jam lands in the middle of it
    session = start(app, "partnership-spades", 4, humans=(0,), options={"target": 100})
    table = session.table
    crawl_from_the_next_card(table)
    pump(app, lambda a: a.scene.name == "dealing" and table.public_view()["table"]["dealer"]["dealt"] >= 1)
    assert table.public_view()["table"]["dealer"]["total"] == 52
    tap_button(app, "Simulate a jam")  # armed: the next card jams
    table.opened.world.sim.speed = 3.0  # so the next card comes
    pump(app, lambda a: a.scene.name == "fault")
    m = app.scene.model()
    assert "jam" in m["title"].lower() and "jammed" in m["what"] and "Resume" in m["fix"]
    so_far = table.public_view()["table"]["dealer"]["dealt"]
    assert 0 < so_far < 52
    table.opened.world.sim.speed = 400.0  # the rest of the deal need not be slow
    tap_button(app, "Resume")
    back_from_the_fault(app, table)
    assert table.referee.dealer_fault is None
    assert any("jam" in f for f in table.host.recoveries) or table.host.recoveries
    assert any(m["text"].startswith("The dealer is back") for m in table.referee.messages)


def test_unplugged_dealer_mid_deal_finishes_the_deal_when_back():
    """Protocol 3: the dealer kept the deal (its dead-man stopped the motors while unheard);
    Resume sends the same deal again under its id and the dealer finishes it: no redeal."""
    app = referee_app(speed=3.0)
    session = start(app, "hearts", 4, humans=(0,), options={"target": 50})
    table = session.table
    pump(app, lambda a: a.scene.name == "dealing" and table.public_view()["table"]["dealer"]["dealt"] >= 1)
    tap_button(app, "Unplug the dealer")
    pump(app, lambda a: a.scene.name == "fault")
    assert app.scene.model()["title"] == "Dealer not answering"
    table.opened.world.sim.speed = 400.0
    tap_button(app, "Resume")
    pump(app, lambda a: dealt(table))
    assert not any("Redealing" in m["text"] for m in table.referee.messages)
    assert any(m["text"].startswith("The dealer is back") for m in table.referee.messages)
    assert len(table.referee.fair) == 1


def test_privacy_on_the_referee_path():
    """In simulated mode a hand is drawn only for the revealed seat, never on the hand-off
    screen; the shared scenes draw only cards of the public view."""
    from test_privacy import public_cards

    app = referee_app()
    session = start(app, "hearts", 4, humans=(0, 1), options={"target": 50})
    table = session.table
    from referee_helpers import human_step

    checked = 0
    for _ in range(300):
        pump(app)
        app.route()
        with card_art.recording() as drawn:
            app.render(force=True)
        allowed = public_cards(table.public_view())
        seat = session.revealed if app.scene.name in ("play", "bidding") else None
        if seat is None:
            assert set(drawn) <= allowed, (app.scene.name, sorted(C.NAMES[c] for c in set(drawn) - allowed))
        else:
            own = public_cards(table.seat_view(seat)["game"])
            assert set(drawn) <= allowed | own
        checked += 1
        if table.referee.game.hand_number >= 2 or table.referee.waiting == "over":
            break
        human_step(app)
    assert checked > 20


def test_broken_journal_is_explained_on_screen(tmp_path):
    from trickref.device.journal import encode

    app = referee_app()
    start(app, "hearts", 4, humans=(0,), options={"target": 50})
    pump(app, lambda a: dealt(a.session.table))
    path = load().config.storage.journal_dir() / "table.journal"
    app.end_session()
    data = bytearray(path.read_bytes())
    first = len(encode(json.loads(json.dumps({"x": 1}))))  # noqa: F841 - size of a small record
    data[20] ^= 0xFF  # damage inside the first record: valid records follow
    path.write_bytes(bytes(data))
    app2 = referee_app()
    start_home(app2)
    assert app2.session is None
    assert app2.scene.name == "confirm" and app2.scene.question == "The saved game could not be read"
    assert "damaged in the middle" in app2.scene.detail
    tap_button(app2, "yes")  # move it aside
    assert not path.exists()
    assert any(p.name.startswith("table.journal.damaged-") for p in path.parent.iterdir())


def test_torn_journal_tail_is_dropped_and_said(tmp_path):
    app = referee_app()
    start(app, "hearts", 4, humans=(0,), options={"target": 50})
    pump(app, lambda a: dealt(a.session.table))
    path = load().config.storage.journal_dir() / "table.journal"
    app.end_session()
    with open(path, "ab") as f:
        f.write(b"TRJ1\x40\x00\x00\x00garbage")  # a record cut off by a power cut
    app2 = referee_app()
    start_home(app2)
    assert app2.scene.name == "confirm" and "had not finished saving" in app2.scene.detail
    assert app2.session.table.referee.game.phase == "pass"


def test_deal_mismatch_shows_the_fault_and_the_hand_is_redealt():
    """A card goes missing from the feeder mid-deal: the deal does not check out (DealMismatch);
    the card is put back, Resume, and the hand is dealt again from the same deck order."""
    app = referee_app(speed=3.0)
    session = start(app, "hearts", 4, humans=(0,), options={"target": 50})
    table = session.table
    pump(app, lambda a: a.scene.name == "dealing" and table.public_view()["table"]["dealer"]["dealt"] >= 1)
    sim = table.opened.world.sim
    with sim.lock:
        missing = sim.board.hopper.pop()
    sim.speed = 400.0
    pump(app, lambda a: a.scene.name == "fault")
    m = app.scene.model()
    assert m["title"] == "The deal did not check out" and "1 card missing" in m["what"]
    assert C.NAMES[missing] not in m["what"]  # the missing card is hidden: counts only
    assert "Gather all the cards" in m["fix"]
    with sim.lock:
        sim.board.hopper.append(missing)  # found under the table
    tap_button(app, "Resume")
    pump(app, lambda a: dealt(table))
    assert any("Redealing" in m["text"] for m in table.referee.messages)
    assert sorted(sim.board.tray(0)) == sorted(table.state.hand_of(0))


def test_a_game_over_left_in_the_journal_is_saved_on_resume(monkeypatch):
    """The power went after the game's last entry but before the journal was started afresh:
    the next start saves the record (again, harmlessly) and shows the game over."""
    from trickref.device.journal import Journal
    from trickref.ui.table_client import resume_table, start_table

    with monkeypatch.context() as cut:
        cut.setattr(Journal, "rotate", lambda self, finished=None: None)  # the power goes here
        table = start_table("hearts", 4, ["A", "B", "C", "D"], {"target": 50}, range(4), seed=2, speed=400.0,
                            post=None)
        for _ in range(100000):
            if table.referee.waiting == "over":
                break
            if table.needs_deal:
                table.deal()
            if table.step_bot() is None:
                table.drain()
        assert table.referee.waiting == "over"
        table.close()
    store = games_folder()
    for g in store.list_games():
        g.path.unlink()  # as if the save had not happened either
    again = resume_table(post=None)
    assert again is not None and again.referee.waiting == "over"
    saved = store.list_games()
    assert len(saved) == 1 and json.loads(saved[0].path.read_text())["hands"]
    again.close()
    assert resume_table(post=None) is None  # the journal was started afresh
