"""A table that remembers (ui/memory.py over device/roster.py), on the kiosk: players picked
from the table's list (typed once on the on-screen keyboard, in any of the kiosk's languages'
letters), each game's last setup after a restart, Rematch with the same table, the players'
history, the keep-score sheet in use resumed after a SIGKILL, and a damaged memory explained.

Restarts are real: a new App on the same storage home, or a kiosk process killed with SIGKILL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from kiosk_helpers import tap, tap_button
from referee_helpers import play_to_end, pump, referee_app, start

from trickref.device.roster import STORE_NAME
from trickref.ui.screenshots import make_app


def _restart(size: tuple[int, int] = (800, 480)) -> Any:
    """The kiosk started again on the same storage home (a fresh App, its start screen)."""
    from trickref.ui.app import start_home

    app = make_app(size)
    start_home(app)
    app.render(force=True)
    return app


def _run_and_kill(script: str) -> str:
    """Run a child kiosk script, wait for its first line, then cut its power (SIGKILL)."""
    here = str(Path(__file__).resolve().parent)
    p = subprocess.Popen([sys.executable, "-c", script, here], stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    try:
        assert p.stdout is not None
        line = p.stdout.readline()
        assert line, "the game process ended early"
        return line
    finally:
        p.kill()
        p.wait()


def type_on_keyboard(app: Any, text: str) -> None:
    """Tap each letter on the on-screen keyboard (the accent layer for letters outside A-Z)."""
    for ch in text:
        kb = app.scene
        want_accents = not (ch.isascii() or ch == " ")
        if ch == " ":
            tap_button(app, "Space")
            continue
        if kb.accents != want_accents:
            tap_button(app, "Layer")
            kb = app.scene
        if ch.isupper() and not kb.shift:
            tap_button(app, "Shift")
        names = {b.name for b in kb.buttons()}
        key = next(k for k in (ch, ch.upper(), ch.lower()) if k in names and (want_accents or k.isascii()))
        tap_button(app, key)


def _seat_from_roster(app: Any, seat: int, new: str | None = None, pick: str | None = None) -> None:
    tap_button(app, f"name {seat}")
    assert app.scene.name == "roster" and app.scene.model()["seat"] == seat
    if new is not None:
        tap_button(app, "New player")
        assert app.scene.name == "keyboard"
        type_on_keyboard(app, new)
        tap_button(app, "OK")
    else:
        tap_button(app, f"pick {pick}")
    assert app.scene.name == "players"


def test_players_are_picked_from_the_tables_list_and_kept_after_a_restart():
    app = make_app((800, 480))
    app.go("players")
    app.render(force=True)
    _seat_from_roster(app, 0, new="Çağrı")
    _seat_from_roster(app, 1, new="Jàn Pyè")
    _seat_from_roster(app, 2, new="İpek")
    assert app.setup.names[:3] == ["Çağrı", "Jàn Pyè", "İpek"]
    # a name is added once: typing it again (any case) picks the one on the list
    _seat_from_roster(app, 3, new="ÇAĞRI")
    assert app.setup.names[3] == "Çağrı" and app.setup.names[0] == "Dee"  # the two seats swapped
    _seat_from_roster(app, 0, pick="Çağrı")  # and back
    assert app.setup.names[:4] == ["Çağrı", "Jàn Pyè", "İpek", "Dee"]
    tap(app, app.scene.rows[2].bot.rect.center)  # seat 3 becomes a human
    again = _restart()
    assert again.scene.name == "home"
    assert again.setup.names[:4] == ["Çağrı", "Jàn Pyè", "İpek", "Dee"] and 2 not in again.setup.bots
    again.go("roster", seat=1)
    again.render(force=True)
    assert again.scene.model()["players"] == ["Çağrı", "Jàn Pyè", "İpek"]


def test_each_games_setup_comes_back_after_a_restart():
    app = make_app((800, 480))
    app.go("home")
    tap_button(app, "game cancellation-hearts")
    for _ in range(3):
        tap_button(app, "Players +")  # 9 players
    app.go("players")
    app.render(force=True)
    row = app.scene.rows[4]
    tap(app, row.level.rect.center)  # seat 5's bot searches
    tap(app, row.level.rect.center)  # ... as the strong bot
    tap(app, app.scene.rows[3].bot.rect.center)  # seat 4 is a person
    app.go("options")
    app.render(force=True)
    target = app.scene.option_widgets["target"]
    target.on_change(200)  # the game ends at 200
    app.go("home")
    tap_button(app, "game spades-2p")
    assert app.setup.players == 2
    # the kiosk stops and starts again: the last game chosen, and each game's own setup
    again = _restart()
    st = again.setup
    assert st.game == "spades-2p" and st.players == 2
    again.go("home")
    again.render(force=True)
    tap_button(again, "game cancellation-hearts")
    assert st.players == 9 and st.level_of(4) == "strong" and 3 not in st.bots and 4 in st.bots
    assert st.game_options()["target"] == 200


KILLED_SETUP = r"""
import sys
from trickref.ui.screenshots import make_app
app = make_app((800, 480))
st = app.setup
st.choose_game("hearts"); st.touch()
st.players = 5; st.touch()
st.bots.discard(2); st.touch()
st.options["hearts"]["target"] = 60; st.touch()
print("set", flush=True)
import time; time.sleep(600)
"""


def test_a_kill_right_after_setting_up_keeps_the_setup(tmp_path):
    assert _run_and_kill(KILLED_SETUP).strip() == "set"  # SIGKILL: no chance to save anything more
    again = _restart()
    st = again.setup
    assert st.game == "hearts" and st.players == 5 and 2 not in st.bots and st.game_options()["target"] == 60


def test_rematch_starts_the_same_table_and_the_history_counts_the_game():
    app = referee_app()
    app.table_args = {"mode": "instant"}
    app.session_args["simulated"] = True
    app.setup.bot_levels = {1: "search"}
    st = app.setup
    st.choose_game("german-whist")
    st.names[:2] = ["Çağrı", "Ben"]
    start(app, "german-whist", 2, humans=(0,), options={"target": 5})
    from trickref.ui import memory as M

    M.add_player(app, "Çağrı")
    first = app.session.table
    # the search bot's seat plays by the rule bot's choices here (fast); the table keeps its level
    from trickref.device.table.bot_worker import make_bot

    first._on_worker(lambda: first.seats.use_maker(lambda game, level, r=False: make_bot(game, "rule")))
    play_to_end(app)
    assert app.scene.name == "gameover"
    stats = M.history(app, "Çağrı")
    assert stats["german-whist"].played == 1 and M.history(app, "Ben") == {}  # a bot seat is not counted
    tap_button(app, "Rematch")
    pump(app, lambda a: a.scene.name in ("play", "bidding", "handoff", "dealing"))
    t = app.session.table
    assert t is not first and t.game == "german-whist" and t.bots == {1} and t.levels.get(1) == "search"
    assert t.state.names == ["Çağrı", "Ben"] and t.state.options["target"] == 5
    app.end_session()
    # the history is on the player's page
    app.go("player", player="Çağrı", seat=0)
    app.render(force=True)
    assert app.scene.model()["rows"][0][:2] == ("German Whist", "1")


KEEP_SCORE = r"""
from trickref.ui.screenshots import make_app
from trickref.ui.resume import start_new_game
from trickref.ui.scenes.scorekeeper_entry import start_scorekeeping
app = make_app((800, 480))
app.table_args = {"mode": "instant"}
assert start_new_game(app, "hearts", 4, ["Ana", "Ben", "Cem", "Dee"], {}, [1, 2, 3])
t = app.session.table
t.deal(); t.drain()
app.end_session()  # Menu -> Leave: the refereed game waits in its journal
app.setup.choose_game("german-whist")
app.setup.players = 2
sc = start_scorekeeping(app)
sc.sheet.enter({"tricks": [9, 4]})
print("kept", flush=True)
import time; time.sleep(600)
"""


def test_a_restart_after_a_kill_during_keep_score_resumes_the_sheet_not_the_left_game():
    assert _run_and_kill(KEEP_SCORE).strip() == "kept"
    app = _restart()
    scenes = [s.name for s in app.scenes.stack]
    assert scenes[0] == "scorekeeper_entry", scenes
    assert app.session is None  # the refereed game was not reopened
    assert app.scorekeep.sheet.GAME_ID == "german-whist" and app.scorekeep.sheet.hand_number == 1
    from trickref.ui.resume import unfinished_game

    left = unfinished_game(app)
    assert left is not None and left.game == "hearts"  # it waits for "Resume game" on the home screen


def test_a_damaged_memory_is_explained_on_screen_and_kept_aside():
    from trickref.ui.table_client import load_config

    home = Path(load_config().storage.home_dir())
    app = make_app((800, 480))
    from trickref.ui import memory as M

    M.add_player(app, "Ana")
    M.add_player(app, "Ben")
    path = home / STORE_NAME
    data = bytearray(path.read_bytes())
    data[14] ^= 0x40  # a flipped bit in the first record
    path.write_bytes(bytes(data))
    again = _restart()
    assert again.scene.name == "confirm"
    words = again.scene.model()["question"] + " " + again.scene.detail
    assert "damaged" in words and "CRC mismatch" in words and ".damaged-" in words
    assert list(home.glob(f"{STORE_NAME}.damaged-*"))
    tap_button(again, "yes")
    assert M.roster(again) == ["Ben"]  # what could be read is kept


def test_a_change_that_cannot_be_saved_is_said_at_once():
    from trickref.ui.table_client import load_config

    app = make_app((800, 480))
    app.go("players")
    app.render(force=True)
    (Path(load_config().storage.home_dir()) / STORE_NAME).unlink()  # the card lost the file
    tap(app, app.scene.rows[2].bot.rect.center)
    assert app.scene.name == "confirm"
    assert "could not be saved" in app.scene.detail and STORE_NAME in app.scene.detail
    tap_button(app, "yes")
    assert app.scene.name == "players" and 2 not in app.setup.bots  # the game goes on with the change


SET_UP_AND_KILLED = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from finger import tap_target
from trickref.ui import memory as M
from trickref.ui.screenshots import make_app
app = make_app((800, 480))
for name in ("Zoë", "Şule", "Jàn", "Ana"):
    M.add_player(app, name)
app.go("home")
app.render(force=True)
tap_target(app, "game spades-2p")
tap_target(app, "game hearts")
tap_target(app, "Players +")  # five at the table
app.go("players")
app.render(force=True)
for seat, name in ((0, "Şule"), (1, "Zoë"), (3, "Jàn")):  # seats picked from the table's list
    tap_target(app, f"name {seat}")
    tap_target(app, f"pick {name}")
tap_target(app, "bot 2")  # seat 3: a person
tap_target(app, "level 1")  # seat 2's bot: one level up
tap_target(app, "level 4")
tap_target(app, "level 4")  # seat 5's: two
app.go("options")
app.render(force=True)
for name, w in app.scene.option_widgets.items():  # every option away from its default
    kind = type(w).__name__
    if kind == "Toggle":
        w.on_change(not w.value)
    elif kind == "Choice":
        w.on_change(next(c for c in w.choices if c != w.value))
    else:
        w.on_change(w.value + w.step)
app.go("players")
app.render(force=True)
rows = [(r.name_btn.text, r.bot.value, r.level.text) for r in app.scene.rows]
print(json.dumps({"rows": rows, "options": app.setup.game_options()}), flush=True)
time.sleep(600)
"""


def test_a_restart_after_setting_up_a_table_shows_the_same_players_seats_and_options():
    """Set up by taps (game, players, seats picked from the list, a person instead of a bot,
    bot levels, every option changed), then the power goes (SIGKILL, nothing more saved): the
    kiosk started again shows the same game, the same seats with the same players, humans and
    bots and levels, and the same options on its own screens."""
    import json

    shown = json.loads(_run_and_kill(SET_UP_AND_KILLED))  # SIGKILL: the power goes
    assert shown["rows"][0][0] == "Şule" and shown["rows"][1][0] == "Zoë" and shown["rows"][3][0] == "Jàn"
    assert shown["rows"][2][1] is False and len(shown["rows"]) == 5
    again = _restart()
    assert again.scene.name == "home" and again.setup.game == "hearts" and again.setup.players == 5
    again.go("players")
    again.render(force=True)
    rows = [[r.name_btn.text, r.bot.value, r.level.text] for r in again.scene.rows]
    assert rows == shown["rows"]
    again.go("options")
    again.render(force=True)
    assert again.scene.model()["options"] == shown["options"]
    assert {n: w.value for n, w in again.scene.option_widgets.items()} == shown["options"]
    # and none of it is what a fresh table has: every option and both levels were changed
    defaults = {spec.name: spec.default for spec in again.setup.specs()}
    assert shown["options"] and all(shown["options"][n] != defaults[n] for n in defaults), (shown, defaults)
    assert shown["rows"][1][2] != shown["rows"][2][2] and shown["rows"][4][2] not in (shown["rows"][1][2],
                                                                                         shown["rows"][2][2])


# A child kiosk process: Çağrı (a person, on the table's list) against a rule bot at German
# Whist to 5, on the instant table; each script goes on from here and prints one line when
# it reaches the moment the test kills it at.
CHILD_TABLE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from referee_helpers import human_step, play_to_end, pump, referee_app, start
from trickref.device.table.bot_worker import make_bot
from trickref.ui import memory as M
app = referee_app()
app.table_args = {"mode": "instant"}
app.session_args["simulated"] = True
app.setup.choose_game("german-whist")
app.setup.names[:2] = ["Çağrı", "Ben"]
M.add_player(app, "Çağrı")
start(app, "german-whist", 2, humans=(0,), options={"target": 5})
t = app.session.table
t._on_worker(lambda: t.seats.use_maker(lambda game, level, r=False: make_bot(game, "rule")))
"""

PLAYED_AND_KILLED = CHILD_TABLE + r"""
play_to_end(app)
g = t.state
print(json.dumps({"scene": app.scene.name, "totals": list(g.totals), "winners": list(g.winners)}), flush=True)
time.sleep(600)
"""


def test_a_power_cut_on_the_game_over_screen_keeps_the_players_history():
    """A refereed game played to its end by taps, then SIGKILL on the game-over screen: started
    again, the table offers no game to resume and Çağrı's page counts the game once (played,
    won, best), as it does after a second restart."""
    import json

    end = json.loads(_run_and_kill(PLAYED_AND_KILLED))
    assert end["scene"] == "gameover"
    from trickref.ui import memory as M
    from trickref.ui.resume import unfinished_game

    for _ in range(2):
        app = _restart()
        assert app.scene.name == "home" and unfinished_game(app) is None
        st = M.history(app, "Çağrı")["german-whist"]
        assert (st.played, st.won, st.best) == (1, int(0 in end["winners"]), end["totals"][0])
        assert M.history(app, "Ben") == {}  # the bot's seat
        app.go("player", player="Çağrı", seat=0)
        app.render(force=True)
        assert app.scene.model()["rows"][0] == ("German Whist", "1", str(int(0 in end["winners"])),
                                                str(end["totals"][0]))


KILLED_MID_GAME = CHILD_TABLE + r"""
while len(t.state.played) < 6:
    pump(app)
    human_step(app)
pump(app)
t.drain()
print("mid", flush=True)
time.sleep(600)
"""


def test_a_game_cut_off_mid_hand_and_resumed_is_counted_once_when_it_ends():
    """SIGKILL in the middle of a refereed hand; the kiosk started again resumes it from the
    journal, it is played to its end, and the player's history counts it once (the bot seat not)."""
    from referee_helpers import play_to_end, referee_app

    from trickref.device.table.bot_worker import make_bot
    from trickref.ui import memory as M
    from trickref.ui.app import start_home

    assert _run_and_kill(KILLED_MID_GAME).strip() == "mid"
    again = referee_app()
    again.table_args = {"mode": "instant"}
    again.session_args["simulated"] = True
    start_home(again)  # resumes from the journal
    assert again.session is not None and M.history(again, "Çağrı") == {}
    t = again.session.table
    assert len(t.state.played) >= 6 and t.state.names == ["Çağrı", "Ben"]
    t._on_worker(lambda: t.seats.use_maker(lambda game, level, r=False: make_bot(game, "rule")))
    tap_button(again, "yes")
    play_to_end(again)
    assert again.scene.name == "gameover"
    g = t.state
    st = M.history(again, "Çağrı")["german-whist"]
    assert (st.played, st.won, st.best) == (1, int(0 in g.winners), g.totals[0]) and M.history(again, "Ben") == {}
    again.end_session()
    assert M.history(_restart(), "Çağrı")["german-whist"] == st
