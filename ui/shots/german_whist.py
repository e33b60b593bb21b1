"""German Whist's staged screens: a dealer fault on the simulated dealer, mid-trick, a score
sheet, a review in stage two, a kept score."""

from __future__ import annotations

from typing import Any

from ..staging import keep, mid_trick, real_game, review, score_sheet, show, wait
from . import Scenario

GAME = "german-whist"


def scenarios() -> list[Scenario]:
    def fault(app: Any) -> Any:
        # the real path: the simulator jams twelve cards into the deal; the referee's words
        table = real_game(app, GAME, 2)
        table.arm_fault("jam", after_cards=12)
        app.session.start_deal()
        wait(table, lambda: table.referee.dealer_fault is not None)
        sc = show(app)
        table.close()
        return sc

    def kept(app: Any) -> Any:
        return keep(app, GAME, 2, entries={"tricks": [9, 4]})

    return [(f"play-{GAME}-2", mid_trick(GAME, 2)),
            (f"scoresheet-{GAME}", score_sheet(GAME, 2, 4, {"target": 100})),
            (f"review-{GAME}-2", review(GAME, 2, lambda st: st.phase == "play" and len(st.played) >= 32)),
            ("fault", fault), (f"keep-score-{GAME}", kept)]
