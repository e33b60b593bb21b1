"""The score and menu scenes ``trickref screenshots`` does not stage follow ui.layoutcheck's rules
too: the club night settings, a keep-score correction, a kept sheet's game over and the
"unfinished score sheet" question, at every size (Touch Display 2's portrait included, with its
millimetre rules), normal and large text, in English, and in French, Haitian Creole and Turkish
at 800x480 and 720x1280."""

from __future__ import annotations

import pytest

from trickref.ui import layoutcheck as L
from trickref.ui import screenshots as S
from trickref.ui.i18n import set_language
from trickref.ui.settings import Settings


def _club(app):
    app.go("club")


def _sheet(app):
    dict(S.scenarios())["keep-score-sheet"](app)
    return app.scene.sheet


def _correct(app):
    from trickref.ui.scenes.scorekeeper_sheet import ScorekeeperCorrectScene

    app.switch(ScorekeeperCorrectScene(app, _sheet(app)))


def _over(app):
    from trickref.ui.scenes.scorekeeper_sheet import ScorekeeperOverScene

    app.switch(ScorekeeperOverScene(app, _sheet(app)))


def _pending(app):
    from trickref.ui.scenes.scorekeeper_entry import PendingSheetScene

    app.push(PendingSheetScene(app, _sheet(app)))


STAGES = {"club": _club, "correct": _correct, "over": _over, "pending": _pending}


@pytest.mark.parametrize("language", ["en", "fr", "ht", "tr"])
@pytest.mark.parametrize("name", list(STAGES))
def test_every_size_and_text_size(name, language, tmp_path, monkeypatch):
    monkeypatch.setenv("TRICKREF_HOME", str(tmp_path))
    app = S.make_app((800, 480), Settings(language=language))
    try:
        STAGES[name](app)
        assert app.scene.portrait_layout
        sizes = L.LAYOUT_SIZES if language == "en" else [(800, 480), (720, 1280)]
        problems = []
        for size in sizes:
            for large in (False, True):
                L.resize(app, size, large)
                problems += [f"{size} large={large}: {p}" for p in L.render_checked(app)]
        assert not problems, "\n".join(problems)
    finally:
        app.end_session()
        set_language("en")
