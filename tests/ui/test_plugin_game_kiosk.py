"""The tests' own sixth game (tests/plugin_game, Three-handed Whist) on the kiosk, added only by
the catalog's registration call: the home screen offers it and a whole kept score is entered
by taps (issue 19 point 1)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kiosk_helpers import tap_button

from trickref.engine import catalog

PLUGIN = Path(__file__).resolve().parents[1] / "plugin_game"


@pytest.fixture
def whist3() -> Iterator[catalog.GameInfo]:
    sys.path.insert(0, str(PLUGIN))
    try:
        import whist3_info

        yield catalog.register(whist3_info.INFO)
    finally:
        catalog.unregister("whist-3p")
        sys.path.remove(str(PLUGIN))


def test_a_whole_kept_score_of_the_plugin_game(whist3: catalog.GameInfo) -> None:
    from test_scorekeeper_ui import fill

    from trickref.ui.screenshots import make_app

    app: Any = make_app((800, 480))
    app.go("home")
    app.render(force=True)
    tap_button(app, "game whist-3p")
    assert app.setup.game == "whist-3p" and app.setup.players == 3
    app.setup.options["whist-3p"]["target"] = 15
    app.scene.relayout()
    tap_button(app, "Keep score (own cards)")
    sc = app.scene
    assert sc.name == "scorekeeper_entry" and "Three-handed Whist" in sc.heading()
    assert sc.model()["tally"] == ["tricks: 0 of 17"]
    fill(app, "tricks", [8, 6, 3])
    tap_button(app, "Enter hand")
    assert app.scene.model()["totals"] == [8, 6, 3]
    fill(app, "tricks", [9, 4, 4])
    tap_button(app, "Enter hand")
    assert app.scene.sheet.over and app.scene.sheet.winners == [0] and app.scene.sheet.totals == [17, 10, 7]


def test_its_rules_page_comes_from_its_own_folder(whist3: catalog.GameInfo) -> None:
    from trickref.ui.scenes.rules import help_page, rules_blocks

    assert help_page("whist-3p", "fr") == PLUGIN / "help" / "en" / "whist-3p.md"  # English where no French
    assert ("h", "Three-handed Whist") in rules_blocks("whist-3p")


@pytest.mark.parametrize("size", [(800, 480), (1280, 720), (480, 800)])
def test_the_home_screen_fits_six_games(whist3: catalog.GameInfo, size: tuple[int, int]) -> None:
    from trickref.ui.screenshots import make_app

    app: Any = make_app(size)
    app.go("home")
    app.render(force=True)
    rects = [b.rect for b in app.scene.game_buttons]
    assert len(rects) == len(catalog.game_ids()) == 6
    screen = app.screen.get_rect()
    assert all(screen.contains(r) and r.height >= app.theme.touch for r in rects)
    assert not any(a.colliderect(b) for i, a in enumerate(rects) for b in rects[i + 1:])


def test_the_screenshot_set_stages_and_draws_its_screens(whist3: catalog.GameInfo) -> None:
    """The kiosk's screenshot set has the generic screens of a game with none of its own: its
    rules page, mid-trick, a review, a score sheet after two hands, its keep-score entry."""
    from trickref.ui.screenshots import make_app, scenarios

    shots = {name: fn for name, fn in scenarios() if "whist-3p" in name}
    assert sorted(shots) == ["keep-score-whist-3p", "play-whist-3p-3", "review-whist-3p-3", "rules-whist-3p",
                             "scoresheet-whist-3p"]
    for name, fn in shots.items():
        app: Any = make_app((800, 480))
        try:
            sc = fn(app)
            app.render(force=True)
            if name == "rules-whist-3p":
                assert sc.name == "rules" and app.setup.game == "whist-3p"
            if name in ("play-whist-3p-3", "review-whist-3p-3"):
                g = app.session.table.public_view()["game"]
                assert g["game"] == "whist-3p" and g["info"]["title"] == "Three-handed Whist" and sc.name in ("play", "review")
            if name == "scoresheet-whist-3p":
                assert sc.name == "scoresheet" and app.session.table.state.hand_number == 2
            if name == "keep-score-whist-3p":
                assert sc.name == "scorekeeper_entry" and sc.model()["tally"] == ["tricks: 0 of 17"]
        finally:
            app.end_session()
