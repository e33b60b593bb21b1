"""Partnership Spades' staged screens: its options, a bid on the seat panel, mid-trick, the
summary, a score sheet with a corrected hand and that hand's page, a review, game over, kept
scores (a refusal, a Blind Nil)."""

from __future__ import annotations

from typing import Any

from ..staging import (
    advance,
    correct_hand,
    keep,
    mid_trick,
    press,
    review,
    show,
    start_game,
    tricks,
)
from . import Scenario

GAME = "partnership-spades"


def scenarios() -> list[Scenario]:
    def options(app: Any) -> Any:
        app.setup.choose_game(GAME)
        return show(app, scene="options")

    def bid(app: Any) -> Any:
        s = start_game(app, GAME, 4, humans=(0,))
        advance(s, lambda st: st.phase == "bid" and 0 in st.turn_seats() and sum(b >= 0 for b in st.bids) >= 2)
        press(s.table, 0, "+", 4)  # bid 4 being entered on the panel
        return show(app, reveal=0)

    def summary(app: Any) -> Any:
        s = start_game(app, GAME, 4)
        advance(s, lambda st: st.hand_number == 2 and st.phase == "deal")
        s.summary_seen = 1
        return show(app)

    def sheet_fixed(app: Any) -> Any:
        s = start_game(app, GAME, 4, options={"target": 1000})
        advance(s, lambda st: st.hand_number == 4 and st.phase == "deal")
        s.summary_seen = 4
        correct_hand(s.table, 2, "revoke")
        return show(app, scene="scoresheet")

    def hand_page(app: Any) -> Any:
        sheet_fixed(app)
        app.scene.open_hand(2)
        app.render(force=True)
        return app.scene

    def over(app: Any) -> Any:
        s = start_game(app, GAME, 4, options={"target": 200})
        advance(s, lambda st: st.over, limit=100000)
        s.summary_seen = s.table.state.hand_number
        return show(app)

    def refused(app: Any) -> Any:
        sc = keep(app, GAME, 4, entries={"bids": [3, 4, 2, 4], "tricks": [3, 5, 2, 4]})
        sc.enter_hand()
        app.render(force=True)
        return sc

    def blind(app: Any) -> Any:
        return keep(app, GAME, 4, hands=({"bids": [4, 4, 4, 4], "tricks": [2, 4, 3, 4]},),
                    entries={"blind_nil": [True, False, False, False], "bids": [0, 4, 3, 4], "tricks": [0, 4, 4, 4]})

    return [(f"options-{GAME}", options), (f"bidding-{GAME}", bid), (f"play-{GAME}-4", mid_trick(GAME, 4)),
            (f"summary-{GAME}", summary), (f"scoresheet-{GAME}-corrected", sheet_fixed),
            ("hand-page-corrected", hand_page),
            (f"review-{GAME}-4", review(GAME, 4, lambda st: st.phase == "play" and tricks(st) >= 7)),
            (f"gameover-{GAME}", over), ("keep-score-refused", refused), ("keep-score-blind-nil", blind)]
