"""The kiosk's club night scene against a real Mosquitto: join, status (connected, results
waiting, last receipt), leave; and what it says when the broker refuses: a bad password,
credentials that are not this table's, a hub nobody answers at. Never a crash, never a silent
retry loop."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from club_rig import ClubRig, needs_mosquitto, wait_for  # noqa: E402

from trickref.device.club import table as CT  # noqa: E402
from trickref.device.club.broker import free_port  # noqa: E402
from trickref.ui import i18n  # noqa: E402

pytestmark = needs_mosquitto


@pytest.fixture
def kiosk(club, tmp_path, monkeypatch):
    monkeypatch.setenv("TRICKREF_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("TRICKREF_HOME", str(tmp_path / "home"))
    from trickref.ui.screenshots import make_app

    app = make_app((800, 480))
    yield app
    CT.links.close()
    i18n.set_language("en")


def tap(app: Any, name: str) -> None:
    """A finger on the button called ``name`` (mouse down and up, as SDL makes of a touch)."""
    import pygame

    app.render()
    b = app.scene.button(name)
    assert b.visible and b.enabled, f"button {name!r} is not tappable on {app.scene.name}"
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        app.dispatch(pygame.event.Event(kind, pos=b.rect.center, button=1, touch=True))
    app.render()


def scroll_to(app: Any, name: str) -> None:
    """Scroll the scene's list so the row holding button ``name`` is on screen (a finger's drag)."""
    app.render(force=True)
    area = app.scene.area
    b = app.scene.button(name)
    row = next(i for i, (_h, w) in enumerate(area.rows) if b in w.children())
    area.offset = 0
    area.scroll(sum(h for h, _w in area.rows[:row]))
    app.render(force=True)


def enter(app: Any, field: str, text: str) -> None:
    """Tap the field, type on the on-screen keyboard, OK."""
    scroll_to(app, f"club {field}")
    tap(app, f"club {field}")
    kb = app.scene
    assert kb.name == "keyboard"
    kb.text = text
    tap(app, "OK")
    assert app.scene.name == "club"


def fill(app: Any, rig: ClubRig, table: str, password: str, port: int | None = None, user: str = "") -> None:
    enter(app, "host", "127.0.0.1")
    enter(app, "port", str(port or rig.broker.port))
    enter(app, "night", rig.night.name)
    enter(app, "table", table)
    if user:
        enter(app, "user", user)
    enter(app, "password", password)


def lines(app: Any) -> list[str]:
    app.scene.update(0.5)
    app.render(force=True)
    return list(app.scene.model()["lines"])


def test_join_shows_the_status_and_leave_forgets_nothing(club, kiosk) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=1)
    app = kiosk
    app.go("settings")
    scroll_to(app, "club night")
    tap(app, "club night")  # from the admin settings
    assert app.scene.name == "club"
    assert lines(app)[0] == "Not joined to a club night"
    tap(app, "Join")  # nothing filled in: said, not joined
    assert lines(app)[1].startswith("Cannot join: club.host is empty; club.night is empty")
    fill(app, rig, "t1", rig.night.passwords["t1"])
    tap(app, "Join")
    home = Path(os.environ["TRICKREF_HOME"])
    assert CT.load_settings(home).settings.joined
    assert oct((home / "club.toml").stat().st_mode & 0o777) == "0o600"
    assert wait_for(lambda: lines(app)[0] == "Connected to club night n1 as table t1", 10), lines(app)
    assert lines(app)[3:] == ["Results waiting for the hub: 0", "Last receipt from the hub: none yet", "", ""]
    assert not app.scene.button("club host").enabled  # joined: leave before changing the settings
    link = CT.links.get(home)
    assert link is not None
    rig.hub.start_round(0)
    link.game_started(0, "hearts", ["a", "b", "c", "d"])  # what a club game's first deal sends
    assert wait_for(lambda: lines(app)[4].startswith("Last receipt from the hub: ") and
                    lines(app)[4] != "Last receipt from the hub: none yet", 10), lines(app)
    assert lines(app)[3] == "Results waiting for the hub: 0"
    # the round's salts revealed: the decks the hub gave this table are checked against the
    # commitments it published before the round
    rig.hub.commit_round(0)
    rig.hub.end_round(0, "a test: the tables do not play")
    assert wait_for(lambda: lines(app)[5] == "round 1: every deck the hub gave matches the commitment it published "
                    "before the round", 10), lines(app)
    rig.broker.stop()
    assert wait_for(lambda: lines(app)[0] == "Not connected to the club hub", 10)
    tap(app, "Leave")
    assert not CT.load_settings(home).settings.joined and CT.links.get(home) is None
    assert lines(app)[0] == "Not joined to a club night"
    tap(app, "Done")
    assert app.scene.name == "settings"


@pytest.mark.parametrize("case", ["password", "table", "unreachable"])
def test_a_refusal_is_named_on_screen_and_not_retried(club, kiosk, case) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=1)
    app = kiosk
    app.go("club")
    if case == "password":
        fill(app, rig, "t1", "not-the-password")
        want = "Bad password: the club hub refused table t1's name or password."
    elif case == "table":  # t2's own user and password, entered for table t1
        fill(app, rig, "t1", rig.night.passwords["t2"], user="t2")
        want = "Not authorised for this table: these credentials are not table t1's."
    else:
        port = free_port()
        fill(app, rig, "t1", rig.night.passwords["t1"], port=port)
        want = f"Club hub unreachable at 127.0.0.1:{port}: check the address and the network (trying again)."
    tap(app, "Join")
    assert wait_for(lambda: lines(app)[1] == want, 15), lines(app)
    assert lines(app)[0] == "Not connected to the club hub"
    link = CT.links.get(Path(os.environ["TRICKREF_HOME"]))
    assert link is not None
    st = link.status()
    assert st["error_kind"] == case
    assert lines(app)[2] == st["error"]  # the details, as the log has them
    # a refusal of the credentials stops the link (no retry loop); an unreachable hub is tried
    # again, saying so
    assert st["stopped"] is (case != "unreachable")
    if case == "unreachable":
        assert "nothing answers at 127.0.0.1" in st["error"]
    # the same in French
    i18n.set_language("fr")
    app.scene.relayout()
    fr = lines(app)
    assert fr[1] and fr[1] != want and fr[0] != "Not connected to the club hub"


def test_a_game_started_on_a_joined_kiosk_plays_the_hubs_boards(club, kiosk) -> None:
    """Home -> start a game on a joined table: the dealing screen says what it waits for (in the
    kiosk's language), and the first hand is the hub's board once the director starts the round."""
    import time

    from trickref.ui.resume import start_new_game

    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=2)
    rig.hub.commit_all()
    app = kiosk
    CT.save_settings(Path(os.environ["TRICKREF_HOME"]), CT.ClubSettings(
        joined=True, host="127.0.0.1", port=rig.broker.port, night="n1", table="t1",
        password=rig.night.passwords["t1"]))
    app.table_args = {"mode": "instant"}  # the ideal dealer: the club part is what is tested
    i18n.set_language("fr")
    assert start_new_game(app, "hearts", 4, ["Ana", "Ben", "Cem", "Dia"], {}, bots=range(4))
    table = app.session.table
    assert table.host.club is not None

    def dealing_status() -> str:
        app.tick(0.05)
        app.render(force=True)
        return str(app.scene.model().get("status")) if app.scene.name == "dealing" else app.scene.name

    assert wait_for(lambda: dealing_status() == "en attente du directeur pour commencer la manche 1", 15), \
        dealing_status()
    rig.hub.start_round(0)
    deadline = time.monotonic() + 20
    while table.referee.waiting == "shuffle" and time.monotonic() < deadline:
        dealing_status()
        time.sleep(0.05)
    assert table.referee.record()["hands"][0]["deck"] == rig.hub.deals["0"][0]["deck"]
    assert wait_for(lambda: dealing_status() in ("play", "handoff", "bidding", "summary"), 10)  # dealt: on it goes
    link = CT.links.get(Path(os.environ["TRICKREF_HOME"]))
    assert link is not None and wait_for(lambda: link.acknowledged >= 1, 10)  # the game's start reached the hub
    assert "n1/t1/start/0" in rig.hub.state.digests
    app.end_session()


def test_the_kiosk_shows_who_sits_at_this_table_next(club, kiosk, tmp_path) -> None:
    """The director's roster and movement reach each table: its club scene says who sits where
    there in the next round (in the kiosk's language), and the next round's after this one ends."""
    rig: ClubRig = club(tables=["t1", "t2"], rounds=2, boards=1)
    rig.hub.set_roster(["Ana", "Ben", "Cem", "Dia", "Eli", "Fay", "Gus", "Hal"], "howell")
    CT.save_settings(Path(os.environ["TRICKREF_HOME"]), CT.ClubSettings(
        joined=True, host="127.0.0.1", port=rig.broker.port, night="n1", table="t1",
        password=rig.night.passwords["t1"]))
    app = kiosk
    app.go("club")
    app.render(force=True)
    names = [x["name"] for x in rig.hub.state.seating(0)["t1"]]
    want = "Round 1 at this table: " + ", ".join(f"{i + 1}. {n}" for i, n in enumerate(names))
    assert wait_for(lambda: lines(app)[6] == want, 15), lines(app)
    shots = os.environ.get("CLUB_SCREENSHOTS")
    if shots:
        import pygame

        pygame.image.save(app.screen, os.path.join(shots, "kiosk-club-seating.png"))
    i18n.set_language("fr")
    app.scene.relayout()
    assert lines(app)[6].startswith("Manche 1 à cette table : 1. ")
    i18n.set_language("en")
    rig.hub.start_round(0)
    rig.hub.end_round(0, "a test: nobody plays")
    names = [x["name"] for x in rig.hub.state.seating(1)["t1"]]
    assert wait_for(lambda: lines(app)[6].startswith("Round 2 at this table: 1. " + names[0]), 15), lines(app)
