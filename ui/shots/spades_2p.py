"""Spades for two's staged screens: a bid on the seat panel, a draw, the hand's first draw (with
Double Nil), mid-trick, a score sheet, a review, a kept score with a Double Nil, and the referee's
words to the Double Nil exchanger: "a message for you" on the table's shared screen, and read
behind the hand-off (ui.scenes.letter)."""

from __future__ import annotations

from typing import Any

from ..staging import advance, keep, mid_trick, press, review, score_sheet, show, start_game, tricks
from . import Scenario

GAME = "spades-2p"
NAMES = ["Ana", "Ben"]


def scenarios() -> list[Scenario]:
    def bid(app: Any) -> Any:
        s = start_game(app, GAME, 2, humans=(0,), names=NAMES)
        advance(s, lambda st: st.phase == "bid" and 0 in st.turn_seats())
        press(s.table, 0, "+", 3)  # bid 3 being entered on the panel
        return show(app, reveal=0)

    def draw(app: Any) -> Any:
        s = start_game(app, GAME, 2, humans=(0,), names=NAMES)
        advance(s, lambda st: st.phase == "draw" and 0 in st.turn_seats() and st.pos >= 10)
        return show(app, reveal=0)

    def draw_first(app: Any) -> Any:
        # the hand's first draw: Double Nil is offered beside Keep it / Discard it
        s = start_game(app, GAME, 2, humans=(0,), names=NAMES, seed=8)
        advance(s, lambda st: st.phase == "draw" and 0 in st.turn_seats())
        return show(app, reveal=0)

    def exchanged(app: Any) -> Any:
        """Both seats people; Ben (seat 1 with this seed) has given two cards in a Double Nil
        exchange: the referee has told him where they go and what replaces them."""
        from trickref.engine.actions import Action

        s = start_game(app, GAME, 2, humans=(0, 1), names=NAMES, seed=7)
        t = s.table
        t.submit(t.turn()[0], Action("double_nil", True))
        advance(s, lambda st: st.phase == "exchange")
        ben = t.turn()[0]
        t.submit(ben, Action("exchange", (tuple(sorted(t.state.hand_of(ben))[:2]), None)))
        t.drain()
        return ben

    def letters(app: Any) -> Any:
        exchanged(app)
        app.session.simulated = False  # the table's shared screen: Ana to bid, Ben's words behind a tap
        return show(app)

    def letter(app: Any) -> Any:
        from ..scenes.letter import LetterScene

        ben = exchanged(app)
        show(app)
        app.push(LetterScene(app, ben))
        app.scene.open()
        app.render(force=True)
        return app.scene

    def kept(app: Any) -> Any:
        return keep(app, GAME, 2, entries={"bids": [0, 5], "double_nil": [True, False], "tricks": [0, 12]})

    return [(f"bidding-{GAME}", bid), (f"draw-{GAME}", draw), (f"draw-first-{GAME}", draw_first),
            (f"play-{GAME}-2", mid_trick(GAME, 2)),
            (f"scoresheet-{GAME}", score_sheet(GAME, 2, 6, names=NAMES)),
            (f"review-{GAME}-2", review(GAME, 2, lambda st: st.phase == "play" and tricks(st) >= 8)),
            (f"keep-score-{GAME}", kept), (f"letters-{GAME}", letters), (f"letter-{GAME}", letter)]
