"""Cancellation Hearts' staged screens: eight players' names, mid-trick at eight and eleven,
the cancelled trick waiting, the fair check's longest code, score sheets of ten players, a
review, kept scores of eleven (cards given to nobody, an amended hand)."""

from __future__ import annotations

from typing import Any

from ..staging import advance, keep, mid_trick, review, score_sheet, show, start_game, tricks
from . import Scenario

GAME = "cancellation-hearts"


def scenarios() -> list[Scenario]:
    def players(app: Any) -> Any:
        app.setup.choose_game(GAME)
        app.setup.players = 8
        return show(app, scene="players")

    def cancel(app: Any) -> Any:
        s = start_game(app, GAME, 6, humans=(0,), seed=3)
        advance(s, lambda st: st.phase == "play" and bool(st.waiting) and not st.trick, limit=200000)
        sc = show(app, reveal=0)
        sc.toggle_review()  # a tap on "Last trick": the cancelled trick, now waiting
        app.render(force=True)
        return sc

    def fair(app: Any) -> Any:
        # the check after a hand with its QR code: the longest code (104 cards) behind a
        # typical address of the table's own verify page
        s = start_game(app, GAME, 6)
        advance(s, lambda st: st.hand_number == 1 and st.phase == "deal")
        s.summary_seen = 1
        app.verify_address = "http://192.168.1.20:8088/verify"
        return show(app, scene="faircheck")

    def cancel11(app: Any) -> Any:
        return keep(app, GAME, 11, entries={
            "hearts": [4, 2, 3, 3, 2, 1, 1, 2, 3, 2, 0], "qs": [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "nobody_hearts": 3, "nobody_qs": 1})

    def sheet11(app: Any) -> Any:
        hands = ({"hearts": [3, 2, 3, 2, 2, 3, 2, 3, 2, 2, 2], "qs": [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]},
                 {"hearts": [0, 5, 2, 2, 2, 3, 2, 3, 2, 2, 2], "qs": [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
                  "nobody_hearts": 1},
                 {"hearts": [2, 2, 3, 2, 2, 3, 2, 3, 2, 3, 2], "qs": [0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]},
                 {"hearts": [4, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3], "qs": [0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]})
        sc = keep(app, GAME, 11, hands=hands)
        sc.sheet.amend(2, {"hearts": [1, 4, 2, 2, 2, 3, 2, 3, 2, 2, 2], "qs": [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
                           "nobody_hearts": 1}, "miscounted", "2025-05-02T21:14:03")
        sc.show_sheet()
        app.render(force=True)
        return app.scene

    return [("players", players), (f"play-{GAME}-8", mid_trick(GAME, 8)), (f"play-{GAME}-11", mid_trick(GAME, 11)),
            ("last-trick-cancellation", cancel), ("fair-check-cancellation", fair),
            ("scoresheet-cancellation-10", score_sheet(GAME, 10, 4)),
            (f"review-{GAME}-11", review(GAME, 11, lambda st: st.phase == "play" and tricks(st) >= 5
                                         and len(st.trick) >= 3)),
            ("keep-score-cancellation-11", cancel11), ("keep-score-sheet-cancellation-11", sheet11)]
