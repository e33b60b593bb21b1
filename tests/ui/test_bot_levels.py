"""Bot levels on the kiosk: a level per bot seat on the players screen (rule bot, search bot,
strong bot), remembered in the settings, and played at by the table."""

from __future__ import annotations

import json

from kiosk_helpers import settle, tap

from trickref.engine.bots.levels import LEVEL_NAMES
from trickref.engine.bots.search import SearchBot
from trickref.ui.settings import Settings
from trickref.ui.setup import BOT_LEVELS, Setup


def test_the_kiosk_offers_the_engine_levels():
    assert BOT_LEVELS == LEVEL_NAMES
    st = Setup()
    assert st.level_of(1) == "rule"
    assert [st.next_level(1) for _ in range(3)] == ["search", "strong", "rule"]


def test_a_level_per_bot_seat_tapped_and_remembered(small_app, tmp_path):
    app = small_app
    path = tmp_path / "bot-levels.json"
    app.settings = Settings(levels_state=path)
    app.go("players")
    app.render(force=True)
    row = app.scene.rows[2]
    assert 2 in app.setup.bots
    assert "level 2" in [getattr(w, "name", None) for w in row.children()]
    tap(app, row.level.rect.center)
    tap(app, row.level.rect.center)
    assert app.setup.level_of(2) == "strong"
    assert json.loads(path.read_text()) == {"2": "strong"}
    assert Settings(levels_state=path).bot_levels == {2: "strong"}  # after a restart
    # a human seat has no level button
    tap(app, app.scene.rows[3].bot.rect.center)
    assert 3 not in app.setup.bots
    assert "level 3" not in [getattr(w, "name", None) for w in app.scene.rows[3].children()]


def test_an_unreadable_levels_file_is_forgotten(tmp_path):
    path = tmp_path / "bot-levels.json"
    path.write_text("{not json")
    assert Settings(levels_state=path).bot_levels == {}
    path.write_text(json.dumps({"1": "expert", "2": "search", "x": "rule"}))
    assert Settings(levels_state=path).bot_levels == {2: "search"}


def test_the_table_plays_each_seat_at_its_level(small_app):
    from trickref.ui.resume import start_new_game

    app = small_app
    app.session_args = {"bot_delay": 0.0, "trick_hold": 0.0, "deal_delay": False}
    app.setup.bot_levels = {1: "search", 2: "rule", 3: "strong"}
    assert start_new_game(app, "hearts", 4, ["A", "B", "C", "D"], {}, [1, 2, 3])
    table = app.session.table
    assert isinstance(table.bot_of(1), SearchBot) and table.bot_of(1).budget < table.bot_of(3).budget
    assert not isinstance(table.bot_of(2), SearchBot)
    settle(app)  # the bots pass (and play if a bot holds the 2 of clubs) without an error
    assert table.state.phase in ("pass", "play")
