"""Menu -> Leave keeps a refereed game: the home screen offers to resume it, Start game asks
before replacing it, and the replaced game is saved as an unfinished record (issue 10, 2)."""

from __future__ import annotations

from typing import Any

from kiosk_helpers import tap_button
from referee_helpers import human_step, pump, referee_app, start

from trickref.device.config import load
from trickref.device.games_store import GamesStore
from trickref.engine import records


def _leave_after_moves(app: Any, moves: int) -> dict[str, Any]:
    start(app, "hearts", 4, (0,), {})
    pump(app, lambda a: a.scene.name in ("play", "bidding"))
    for _ in range(moves):
        human_step(app)
        pump(app)
    before = app.session.table.referee.record()
    tap_button(app, "Menu")
    tap_button(app, "yes")  # Leave
    assert app.scene.name == "home" and app.session is None
    return before


def test_leave_then_resume_from_home() -> None:
    app = referee_app()
    before = _leave_after_moves(app, 2)
    m = app.scene.model()
    assert m["left_game"] == "hearts" and "Resume game" in m["buttons"]
    tap_button(app, "Resume game")
    pump(app, lambda a: a.session is not None and a.scene.name == "confirm")
    assert app.scene.model()["question"] == "Game resumed"
    assert app.session.table.referee.record() == before


def test_start_game_asks_then_saves_the_left_game_as_unfinished_record() -> None:
    app = referee_app()
    before = _leave_after_moves(app, 2)
    tap_button(app, "game german-whist")
    tap_button(app, "Start game")
    assert app.scene.name == "confirm" and app.scene.model()["question"] == "Start a new game?"
    assert "Hearts, 4 players" in app.scene.detail
    tap_button(app, "no")  # Back: nothing replaced
    assert app.scene.name == "home" and app.session is None and app.scene.model()["left_game"] == "hearts"
    tap_button(app, "Start game")
    tap_button(app, "yes")  # Start new
    pump(app, lambda a: a.session is not None)
    assert app.session.table.referee.game.GAME_ID == "german-whist"
    store = GamesStore(load().config.storage.games_dir())
    saved = store.list_games()
    assert len(saved) == 1
    back = store.read(saved[0])
    assert isinstance(back, records.Record) and back.game == "hearts"
    assert records.dump(back)["hands"] == before["hands"]  # every move so far, the hand in progress included


def test_no_question_without_an_unfinished_game() -> None:
    app = referee_app()
    app.go("home")
    assert app.scene.model()["left_game"] is None and "Resume game" not in app.scene.model()["buttons"]
    tap_button(app, "Start game")
    pump(app, lambda a: a.session is not None)
    assert app.scene.name != "confirm"
