"""Score corrections on the plot (issue 10, finding 6): the sheet said 28 after a -5
correction while the legend and the line said 33. The line now steps at the correction and
ends, like the legend, on the sheet's total."""

from __future__ import annotations

from typing import Any

from trickref.engine.scorekeeper import ScoreSheet
from trickref.ui import plot
from trickref.ui.scenes.scorekeeper_entry import sheet_view


def hearts_sheet() -> ScoreSheet:
    sheet = ScoreSheet("hearts", 4, names=["Ana", "Ben", "Cem", "Dee"])
    sheet.enter({"hearts": [3, 5, 0, 5], "qs": 2})
    sheet.correct(0, 2, "revoke")  # after hand 1: carried into every later hand's total
    sheet.enter({"hearts": [1, 2, 10, 0], "qs": 0})
    sheet.enter({"hearts": [0, 0, 13, 0], "qs": 2, "moon": "others"})
    sheet.correct(1, -5, "miscounted")  # after the last hand: in no hand's row
    return sheet


def test_the_plot_ends_on_the_sheets_totals() -> None:
    sheet = hearts_sheet()
    labels, series = plot.series_from(sheet_view(sheet))
    assert [s[-1][1] for s in series] == sheet.totals == [45, 28, 23, 31]
    ben = series[1]
    assert ben == [(0, 0), (1, 5), (2, 7), (3, 33), (3, 28)], "a vertical step at the correction"
    ana = series[0]
    assert ana[:3] == [(0, 0), (1, 3), (1, 5)] and ana[-1] == (3, 45)


def test_a_partnership_correction_moves_its_team_line() -> None:
    sheet = ScoreSheet("partnership-spades", 4, names=["Ana", "Ben", "Cem", "Dee"])
    sheet.enter({"bids": [4, 4, 4, 4], "tricks": [2, 4, 3, 4]})
    sheet.correct(2, 10, "miscounted")  # Cem: the Ana & Cem team
    labels, series = plot.series_from(sheet_view(sheet))
    assert labels == ["Ana & Cem", "Ben & Dee"]
    assert [s[-1][1] for s in series] == [sheet.totals[0], sheet.totals[1]] == [-70, 80]


def test_the_drawn_sheet_and_legend_agree(small_app: Any) -> None:
    from trickref.ui.scenes.scorekeeper_sheet import ScorekeeperSheetScene

    app = small_app
    sheet = hearts_sheet()
    app.switch(ScorekeeperSheetScene(app, sheet))
    app.render(force=True)
    m = app.scene.model()
    assert m["totals"] == [45, 28, 23, 31]
    assert m["plot_legend"] == ["Ana 45", "Ben 28", "Cem 23", "Dee 31"]
    assert "Ben 28" in app.scene.texts and "Ben 33" not in app.scene.texts
    # each correction has its own row under its hand, so the columns add up on screen
    assert ["fix", "", "-5", "", ""] in m["rows"] and ["fix", "+2", "", "", ""] in m["rows"]
