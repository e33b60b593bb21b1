"""Hearts' staged screens: the deal on the simulated dealer, a hand-off, a moon, a pass, table
mode, mid-trick at three to five players, the summary, a score sheet, a review, large text,
an undo being confirmed, the journal's resume, and kept scores (a moon, a correction, game
over)."""

from __future__ import annotations

from typing import Any

from ..staging import (
    advance,
    keep,
    mid_trick,
    real_game,
    review,
    score_sheet,
    show,
    start_game,
    tricks,
    wait,
)
from . import Scenario

GAME = "hearts"


def scenarios() -> list[Scenario]:
    out: list[Scenario] = []

    def add(name: str) -> Any:
        def deco(fn: Any) -> Any:
            out.append((name, fn))
            return fn
        return deco

    @add("rules-hearts")
    def _rules(app: Any) -> Any:
        app.setup.choose_game(GAME)
        return show(app, scene="rules")

    @add("dealing")
    def _dealing(app: Any) -> Any:
        # the real path: the simulated dealer on its pty, slowed down twenty cards in
        table = real_game(app, GAME, 4)

        def slow(ev: Any) -> None:
            if table.public_view()["table"]["dealer"]["dealt"] >= 20:
                table.opened.world.sim.speed = 0.01

        table.opened.driver.add_listener(slow)
        app.session.start_deal()
        wait(table, lambda: table.public_view()["table"]["dealer"]["dealt"] >= 20)
        sc = show(app)
        table.close()
        return sc

    @add("handoff")
    def _handoff(app: Any) -> Any:
        s = start_game(app, GAME, 4, humans=(0, 2))
        advance(s, lambda st: st.phase == "play" and len(getattr(st, "trick", [])) == 1 and 2 in st.turn_seats())
        return show(app)

    @add("moon-hearts")
    def _moon(app: Any) -> Any:
        # Ana took every heart and the Q♠: she chooses how the moon scores (seed 1, hand 5)
        s = start_game(app, GAME, 4, humans=(0,), names=["Ana", "Ben", "Cem", "Dan"], seed=1)
        advance(s, lambda st: st.phase == "moon" and 0 in st.turn_seats())
        return show(app, reveal=0)

    @add("pass-hearts")
    def _pass(app: Any) -> Any:
        s = start_game(app, GAME, 4)
        advance(s, lambda st: st.phase == "pass")
        sc = show(app, reveal=0)
        sc.hand.selected = [0, 3]
        app.render(force=True)
        return sc

    for n in (4, 3, 5):
        out.append((f"play-{GAME}-{n}", mid_trick(GAME, n)))

    @add("play-table-mode-hearts")
    def _tablemode(app: Any) -> Any:
        s = start_game(app, GAME, 4, humans=(0, 1, 2, 3))
        s.simulated = False
        advance(s, lambda st: st.phase == "play" and len(st.trick) == 2)
        return show(app)

    @add("summary-hearts")
    def _summary(app: Any) -> Any:
        s = start_game(app, GAME, 4)
        advance(s, lambda st: st.hand_number == 3 and st.phase == "deal")
        s.summary_seen = 2
        return show(app)

    out.append(("scoresheet-hearts-5", score_sheet(GAME, 5, 5, {"target": 500})))
    out.append((f"review-{GAME}-4", review(GAME, 4, lambda st: st.phase == "play" and tricks(st) >= 6
                                            and len(st.trick) >= 1)))

    @add("resumed")
    def _resumed(app: Any) -> Any:
        # a game in the journal, resumed when the kiosk starts again (mid-trick)
        table = real_game(app, GAME, 4, humans=(0,))
        app.session.start_deal()
        for _ in range(2000):
            g = table.state
            if table.referee.accepting() and g.phase == "play" and len(g.trick) == 2:
                break
            if table.needs_deal:
                table.deal()
            seat = next(iter(table.turn()), None)
            if seat is not None and table.referee.accepting():
                action = table.bot.choose(g.copy(), seat, table.host.bot_rng(seat))
                table.submit(seat, action)
            else:
                table.drain()
        app.end_session()
        from ..app import start_home

        start_home(app)
        app.render(force=True)
        sc = app.scene
        app.end_session()
        return sc

    @add("large-text-play-hearts")
    def _large(app: Any) -> Any:
        app.settings.large_text = True
        app.settings.four_colour = True
        app.apply_settings()
        s = start_game(app, GAME, 4, seed=11)
        advance(s, lambda st: st.phase == "play" and len(st.trick) >= 2 and 0 in st.turn_seats() and tricks(st) >= 3)
        return show(app, reveal=0)

    @add("confirm-undo")
    def _confirm(app: Any) -> Any:
        s = start_game(app, GAME, 4)
        advance(s, lambda st: st.phase == "play" and 0 in st.turn_seats() and len(st.trick) == 0 and tricks(st) >= 1)
        sc = show(app, reveal=0)
        sc.ask_undo()
        app.render(force=True)
        return app.scene

    return out + _kept()


def _kept() -> list[Scenario]:
    """Kept scores (own cards): entries mid-entry, a moon, the sheet with a correction, a hand
    corrected, game over."""

    def hearts(app: Any) -> Any:
        return keep(app, GAME, 4, {"omnibus": True}, ({"hearts": [3, 5, 0, 5], "qs": 2, "omnibus": 0},),
                    {"hearts": [2, 6, 1, 3], "qs": 1, "omnibus": 3})

    def moon(app: Any) -> Any:
        return keep(app, GAME, 5, entries={"hearts": [0, 0, 13, 0, 0], "qs": 2})

    def sheet(app: Any) -> Any:
        sc = keep(app, GAME, 4, hands=({"hearts": [3, 5, 0, 5], "qs": 2}, {"hearts": [1, 2, 10, 0], "qs": 0},
                                       {"hearts": [0, 0, 13, 0], "qs": 2, "moon": "others"}))
        sc.sheet.correct(1, -5, "miscounted")
        sc.show_sheet()
        app.render(force=True)
        return app.scene

    def fix_entry(app: Any) -> Any:
        from ..scenes.handfix import KeptFixer, fix_hand

        sc = sheet(app)
        fix_hand(app, KeptFixer(app, sc.sheet), 2)
        app.scene.entries["hearts"] = [1, 3, 9, 0]
        app.scene._changed()
        app.render(force=True)
        return app.scene

    def fix_reason(app: Any) -> Any:
        sc = fix_entry(app)
        sc.enter_hand()
        app.scene.pick("revoke")
        app.render(force=True)
        return app.scene

    def pick(app: Any) -> Any:
        from ..scenes.handfix import KeptFixer, pick_hand

        sc = sheet(app)
        pick_hand(app, KeptFixer(app, sc.sheet))
        app.render(force=True)
        return app.scene

    def over(app: Any) -> Any:
        moon_hand = {"hearts": [0, 0, 0, 13], "qs": 3, "moon": "others"}
        sc = keep(app, GAME, 4, {"target": 50}, hands=(moon_hand,))
        sc.entries = dict(moon_hand)
        sc.enter_hand()
        app.render(force=True)
        return app.scene

    return [("keep-score-hearts", hearts), ("keep-score-moon", moon), ("keep-score-sheet", sheet),
            ("correct-hand-which", pick), ("correct-hand-figures", fix_entry), ("correct-hand-reason", fix_reason),
            ("keep-score-gameover", over)]
