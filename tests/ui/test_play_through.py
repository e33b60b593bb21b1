"""Whole games driven through the kiosk by taps: one human against bots, every game."""

from __future__ import annotations

import random

import pytest
from kiosk_helpers import WHOLE_GAME_TIMEOUT_S, play_whole_game, settle, tap_button

from trickref.ui.screenshots import start_game

GAMES = [
    ("hearts", 4, {"target": 50}),
    ("spades-2p", 2, {"target": 120}),
    ("german-whist", 2, {"target": 3}),
    ("partnership-spades", 4, {"target": 100}),
    ("cancellation-hearts", 6, {"target": 100}),
]


def random_chooser(seed: int):
    rng = random.Random(seed)

    def choose(table, seat):
        legal = table.legal(seat)
        if legal[0].kind == "exchange":  # the human picks what to give; the dealer the rest
            give = rng.choice(legal).value[0]
            from trickref.engine.actions import Action

            return Action("exchange", (give, ()))
        if legal[0].kind == "bid":
            return rng.choice([a for a in legal if a.kind == "bid" and a.value <= 5])
        return rng.choice(legal)

    return choose


@pytest.mark.timeout(WHOLE_GAME_TIMEOUT_S)
@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_whole_game_by_taps(small_app, game, players, options):
    app = small_app
    session = start_game(app, game, players, humans=(0,), seed=5, options=options)
    app.route()
    seen = play_whole_game(app, random_chooser(1))
    st = session.table.state
    assert st.over and app.scene.name == "gameover"
    assert app.scene.model()["winners"] == st.winners
    assert {"play", "summary", "gameover"} <= set(seen)
    if game in ("spades-2p", "partnership-spades"):
        assert "bidding" in seen
    # the human really played: seat 0 has actions in the record of every hand
    for _deck, actions in st.finished_hands:
        assert any(s == 0 for s, _ in actions)


@pytest.mark.parametrize("game,players,total", [("spades-2p", 2, 13), ("partnership-spades", 4, 13),
                                                ("german-whist", 2, 13)])
def test_hand_summary_shows_bids_and_tricks(small_app, game, players, total):
    import re

    from kiosk_helpers import play_hand

    app = small_app
    session = start_game(app, game, players, humans=(0,), seed=6)
    app.route()
    play_hand(app, random_chooser(4))
    app.render(force=True)
    lines = app.scene.model()["lines"]
    took = [int(x) for line in lines for x in re.findall(r"(?:took|stage two:) (\d+)", line)]
    took += [int(x) for line in lines for x in re.findall(r"took \d+ \+ (\d+)", line)]
    assert sum(took) == total, lines
    if game == "spades-2p":  # a made contract scores 10 per trick bid plus one per overtrick
        st = session.table.state
        for line, pts in zip(lines, st.hand_results[-1]["points"], strict=True):
            m = re.search(r"bid (\d+), took (\d+)", line)
            if m and int(m[2]) >= int(m[1]) > 0 and pts > -50:
                assert pts == 10 * int(m[1]) + int(m[2]) - int(m[1]), line


def test_two_humans_hand_off_and_never_see_each_other(small_app):
    app = small_app
    session = start_game(app, "hearts", 4, humans=(0, 2), seed=9, options={"target": 50})
    app.route()
    chooser = random_chooser(2)
    shown_for: list[tuple[int, list[str]]] = []
    for _ in range(400):
        settle(app)
        sc = app.scene
        if sc.name == "handoff":
            # nothing private on the hand-off screen
            assert session.revealed is None
            from trickref.ui.tableview import view_hand

            assert view_hand(sc.view) is None
            tap_button(app, "Show my cards")
            continue
        if sc.name == "summary":
            break
        if sc.name in ("play", "bidding"):
            seat = sc.acting_seat
            hand = list(sc.model()["hand"])
            other = 2 - seat
            assert hand == session.table.seat_view(seat)["game"]["hand"]
            assert hand != session.table.seat_view(other)["game"]["hand"]
            shown_for.append((seat, hand))
            from kiosk_helpers import act

            act(app, chooser)
    assert {s for s, _ in shown_for} == {0, 2}


def test_undo_asks_first_then_takes_back_the_human_move(small_app):
    from kiosk_helpers import act

    app = small_app
    session = start_game(app, "hearts", 4, humans=(0,), seed=4)
    app.route()
    settle(app)
    assert app.scene.name == "play"  # the only human: no hand-off screen
    chooser = random_chooser(3)
    st = session.table.state
    # pass, then play until seat 0 has played a card into the trick and bots followed it
    for _ in range(40):
        act(app, chooser)
        settle(app)
        plays = [i for i, (s, a) in enumerate(st.actions) if s == 0 and a.kind == "play"]
        if plays and plays[-1] < len(st.actions) - 1 and st.trick:
            break
    n_before = len(st.actions)
    mine = plays[-1]
    held = len(st.hand_of(0))
    tap_button(app, "Undo")
    assert app.scene.name == "confirm"
    tap_button(app, "no")
    assert len(st.actions) == n_before
    tap_button(app, "Undo")
    tap_button(app, "yes")
    settle(app)
    # seat 0's card is back in its hand, the bots' cards after it too; the pass stays (the
    # passed cards were handed over: the referee cannot take that back)
    assert len(st.actions) == mine and len(st.hand_of(0)) == held + 1
    assert any(s == 0 and a.kind == "pass" for s, a in st.actions)


def test_last_trick_review_on_a_tap(small_app):
    app = small_app
    session = start_game(app, "german-whist", 2, humans=(0,), seed=2)
    app.route()
    chooser = random_chooser(5)
    from kiosk_helpers import act

    for _ in range(200):
        settle(app)
        if app.scene.name == "handoff":
            tap_button(app, "Show my cards")
            continue
        g = session.table.state.public_view()
        if g.get("last_trick") and not g.get("trick") and app.scene.name == "play":
            break
        act(app, chooser)
    tap_button(app, "Last trick")
    m = app.scene.model()
    assert m["reviewing"]
    assert [list(x) for x in m["trick"]] == [list(x) for x in session.table.state.public_view()["last_trick"]]
    tap_button(app, "Last trick")
    assert not app.scene.model()["reviewing"]


@pytest.mark.parametrize("game, players", [("hearts", 4), ("german-whist", 2)])
def test_one_human_is_never_asked_to_pass_the_device(small_app, game, players):
    """With every other seat a bot there is nobody to hide the hand from: no hand-off screen,
    not at a new hand and not after an Undo."""
    from kiosk_helpers import act

    app = small_app
    session = start_game(app, game, players, humans=(0,), seed=3)
    app.route()
    chooser = random_chooser(5)
    seen: list[str] = []
    undone = False
    for _ in range(4000):
        settle(app)
        name = app.scene.name
        seen.append(name)
        if name == "summary":
            if session.table.public_view()["game"].get("hand_number", 0) >= 2:
                break
            tap_button(app, "Next hand")
            continue
        if name in ("play", "bidding") and not undone and session.table.can_undo():
            session.undo()
            session.conceal()
            app.route()
            undone = True
            continue
        act(app, chooser)
    assert undone and "summary" in seen
    assert "handoff" not in seen
