"""What the table shows during play (issue 10, findings 7 and 12), on the real kiosk path:
a refused card's reason covers no plate and no card; plates carry the totals and labelled
figures; the trick marks who led and who is winning; Cancellation Hearts marks cancelled
pairs, on the table and in Last trick; received pass cards are marked; the Hearts summary
says who took what."""

from __future__ import annotations

from typing import Any

import pygame
from kiosk_helpers import tap_button
from referee_helpers import human_step, pump, referee_app, start

from trickref.engine import cards as C
from trickref.ui import tableview as TV


def _until_own_play(app: Any, need_trick: bool = True, guard: int = 80) -> Any:
    for _ in range(guard):
        # the bots think off the UI thread: wait until a person has something to do
        pump(app, lambda a: a.scene.name in ("summary", "handoff", "gameover")
             or (a.scene.name in ("play", "bidding") and a.scene.acting_seat is not None))
        sc = app.scene
        legal = sc.legal() if sc.name == "play" else []
        if legal and legal[0].kind == "play" and (sc.g.get("trick") or not need_trick):
            app.render(force=True)
            return sc
        human_step(app)
    raise AssertionError("Ana never had a card to play")


def test_refused_card_reason_covers_no_plate_and_no_card() -> None:
    app = referee_app()
    start(app, "hearts", 4, (0,), {})
    for _ in range(30):
        sc = _until_own_play(app)
        bad = [c for c in sc.hand.cards if c not in sc.hand.playable]
        if bad:
            break
        human_step(app)
    sc.tap_card(sc.hand.cards.index(bad[0]))
    app.render(force=True)
    m = sc.model()
    assert m["error"].startswith("must follow")
    er = pygame.Rect(m["error_rect"])
    for r in m["plate_rects"]:
        assert not er.colliderect(pygame.Rect(r)), (er, r)
    for r in m["hand_rects"]:
        assert not er.colliderect(pygame.Rect(r).inflate(0, 2 * sc.hand.lift)), (er, r)


def test_plates_show_totals_and_labelled_figures() -> None:
    g = {"game": "spades-2p", "names": ["Ana", "Ben"], "totals": [34, -12], "taken_bid": ["1/6", "2/-"],
         "bids": [6, None]}
    assert TV.total_words(g, 0) == "total 34" and TV.total_words(g, 1) == "total -12"
    assert TV.seat_line(g, 0) == "took 1, bid 6"
    assert TV.seat_line(g, 1) == "took 2, no bid yet"
    app = referee_app()
    start(app, "hearts", 4, (0,), {})
    sc = _until_own_play(app, need_trick=False)
    assert all(" | total 0 | " in p for p in sc.model()["plates"].values())


def test_leader_and_winning_markers() -> None:
    # who is taking the trick in progress is the engine's word (its rule is tested there)
    trick = [[2, "5C"], [3, "KC"], [0, "AH"]]
    g = {"game": "hearts", "players": 4, "trick": trick, "trick_winning": 3}
    assert TV.trick_leader_and_winner(g, trick) == (2, 3)
    assert TV.trick_leader_and_winner(g, [[1, "AH"], [2, "2S"]]) == (1, None)  # not the trick in progress
    app = referee_app()
    start(app, "hearts", 4, (0,), {})
    sc = _until_own_play(app)
    m = sc.model()
    trick = m["trick"]
    assert m["trick_leader"] == trick[0][0]
    assert m["trick_winning"] == sc.g["trick_winning"] is not None
    words = " ".join(m["texts"])  # tags over the cards, or one line over the trick ("led: Ana  winning: Ben")
    assert "led" in words and "winning" in words


def test_cancelled_pairs_marked() -> None:
    g = {"game": "cancellation-hearts", "players": 5}
    trick = [[1, "8D"], [2, "QH"], [3, "8D"], [4, "5D"], [0, "2D"]]
    assert TV.cancelled_cards(g, trick) == {"8D"}
    # the 8s cancel: the engine says the 5 is taking it; nobody while every led card cancels
    assert TV.trick_leader_and_winner(dict(g, trick=trick, trick_winning=4), trick) == (1, 4)
    pair = [[0, "8D"], [1, "8D"], [2, "QH"]]
    assert TV.trick_leader_and_winner(dict(g, trick=pair, trick_winning=None), pair) == (0, None)
    assert TV.cancelled_cards({"game": "hearts"}, trick) == set()
    # on the real table: play until a trick with a pair shows in Last trick
    app = referee_app()
    start(app, "cancellation-hearts", 11, (0,), {})
    for _ in range(60):
        sc = _until_own_play(app, need_trick=False)
        last = sc.g.get("last_trick") or []
        names = [c for _s, c in last]
        if any(names.count(c) > 1 for c in names):
            break
        human_step(app)
    else:
        raise AssertionError("no cancelled pair in 60 moves")
    tap_button(app, "Last trick")
    m = app.scene.model()
    assert m["reviewing"] and m["cancelled"] == sorted({c for c in names if names.count(c) > 1})
    assert "cancelled" in " ".join(m["texts"])


def test_received_pass_cards_marked() -> None:
    app = referee_app()
    start(app, "hearts", 4, (0,), {})
    sc = _until_own_play(app, need_trick=False)
    got = sc.g.get("received_cards")
    assert got, "hand 1 passes left: Ana receives three cards"
    m = sc.model()
    assert m["received_marked"] == sorted(c for c in got if C.parse(c) in sc.hand.cards)
    assert m["received_marked"]


def test_hearts_summary_says_who_took_what() -> None:
    app = referee_app()
    start(app, "hearts", 4, (0,), {})
    for _ in range(200):
        pump(app, lambda a: a.scene.name in ("summary", "handoff", "gameover")
             or (a.scene.name in ("play", "bidding") and a.scene.acting_seat is not None))
        if app.scene.name == "summary":
            break
        human_step(app)
    app.render(force=True)
    m = app.scene.model()
    taken = m["taken"]
    assert sum(t["tricks"] for t in taken) == 13
    assert sum(t["hearts"] for t in taken) == 13 and sum(t["queens"] for t in taken) == 1
    for line, t in zip(m["lines"], taken, strict=True):
        assert "took" in line and f"{t['tricks']} trick" in line
        if t["hearts"]:
            assert f"{t['hearts']} \u2665" in line


def test_table_scenes_speak_the_chosen_language() -> None:
    """The play scene in French: the bar, the plates, the turn line and the trick tags."""
    from trickref.ui.screenshots import make_app
    from trickref.ui.settings import Settings

    app = make_app((800, 480), Settings(language="fr"))
    app.session_args = {"bot_delay": 0.0, "trick_hold": 0.0, "deal_delay": True}
    app.table_args = {"speed": 400.0}
    app.seed = 5
    try:
        start(app, "hearts", 4, (0,), {})
        sc = _until_own_play(app)
        texts = sc.model()["texts"]
        assert "Dernier pli" in " ".join(texts) and "Menu" in texts  # the bar (a label may take two lines)
        assert any(t.startswith("donne 1") for t in texts)  # the status line
        assert "total 0" in texts and any("levée" in t for t in texts)  # the plates
        assert any(t.startswith("À vous, Ana") for t in texts) and "entame" in " ".join(texts)
    finally:
        from trickref.ui import i18n

        i18n.set_language("en")
