"""Scorekeeper mode on the kiosk, driven by synthesized taps at 800x480 and 1280x720: whole
scorekept games of hearts (a moon, a refused entry, undo) and partnership-spades (Blind Nil
only when allowed), corrections, and the layout of every game's entry screen."""

from __future__ import annotations

from typing import Any

import pytest
from kiosk_helpers import tap_button

from trickref.engine.scorekeeper import ScoreSheet


def start(app: Any, game: str, players: int, **options: Any) -> None:
    app.go("home")
    app.render(force=True)
    tap_button(app, f"game {game}")
    app.setup.players = players
    app.setup.options[game].update(options)
    app.scene.relayout()
    tap_button(app, "Keep score (own cards)")
    assert app.scene.name == "scorekeeper_entry"


def fill(app: Any, key: str, values: list[int]) -> None:
    """Enter one count per seat as a table would: tap the seat's box only when it is not the
    one the pad fills, tap the number; boxes the rules filled in with the right number are left."""
    sc = app.scene
    names = sc.sheet.names
    for s, v in enumerate(values):
        cell = [key, s]
        m = sc.model()
        if cell in m["auto"] and m["entries"][key][s] == v:
            continue
        if m["focus"] != cell:
            tap_button(app, f"{names[s]} {key}")
        if v >= 14:
            tap_button(app, "pad more")
        tap_button(app, f"pad {v}")


def enter_hearts(app: Any, hearts: list[int], qs: int, moon: str | None = None) -> None:
    names = app.scene.sheet.names
    fill(app, "hearts", hearts)
    tap_button(app, f"{names[qs]} Q\u2660")
    if moon:
        assert app.scene.model()["moon_shooter"] is not None
        tap_button(app, f"moon {moon}")


def enter_spades(app: Any, bids: list[int], tricks: list[int], blind: int | None = None) -> None:
    names = app.scene.sheet.names
    if blind is not None:
        tap_button(app, f"{names[blind]} Blind Nil")
    fill(app, "bids", bids)
    fill(app, "tricks", tricks)


def test_a_whole_scorekept_hearts_game(app: Any) -> None:
    start(app, "hearts", 4, target=50)
    sc = app.scene
    assert sc.model()["tally"] == ["hearts: 0 of 13", "Q\u2660: not chosen"]
    enter_hearts(app, [3, 5, 0, 5], 2)
    assert app.scene.model()["reason"] is None
    assert "Ready: tap Enter hand" in app.scene.model()["texts"]
    tap_button(app, "Enter hand")
    # the next hand opens on the same screen, with this one's points
    m = app.scene.model()
    assert m["scene"] == "scorekeeper_entry" and m["hand"] == 1 and m["totals"] == [3, 5, 13, 5]
    assert m["last_hand"] == "Hand 1: Ana +3, Ben +5, Cem +13, Dee +5"
    assert m["focus"] == ["hearts", 0] and m["auto"] == []
    # a moon: Ben's 13 leave 0 for the others (filled in); the shooter's choice is offered,
    # "everyone else" chosen unless changed
    enter_hearts(app, [0, 13, 0, 0], 1)
    m = app.scene.model()
    assert m["auto"] == [["hearts", 2], ["hearts", 3]]
    assert m["moon_shooter"] == 1 and m["entries"]["moon"] == "others" and m["reason"] is None
    assert "moon self" in m["buttons"] and "moon others" in m["buttons"]
    tap_button(app, "moon self")
    assert app.scene.model()["entries"]["moon"] == "self"
    tap_button(app, "moon others")
    tap_button(app, "Enter hand")
    assert app.scene.model()["totals"] == [29, 5, 39, 31]
    # undo the moon hand (confirmed); its entries come back; enter it again
    tap_button(app, "Undo hand")
    assert app.scene.name == "confirm" and app.scene.model()["question"] == "Undo hand 2?"
    tap_button(app, "yes")
    assert app.scene.name == "scorekeeper_entry"
    assert app.scene.model()["entries"]["hearts"] == [0, 13, 0, 0]
    assert app.scene.sheet.totals == [3, 5, 13, 5]
    tap_button(app, "Enter hand")
    assert app.scene.model()["totals"] == [29, 5, 39, 31]
    # an entry that cannot be right is refused with the reason
    enter_hearts(app, [3, 5, 0, 6], 2)
    assert app.scene.model()["tally"][0] == "hearts: 14 of 13"
    tap_button(app, "Enter hand")
    m = app.scene.model()
    assert m["scene"] == "scorekeeper_entry" and "hearts add up to 14, not 13" in m["refusal"]
    assert any("hearts add up to 14" in t for t in m["texts"])
    tap_button(app, "Dee hearts")
    assert app.scene.model()["refusal"] is None and app.scene.model()["focus"] == ["hearts", 3]
    tap_button(app, "pad 5")
    tap_button(app, "Enter hand")
    # Cem reaches 52: game over, lowest (Ben) wins
    assert app.scene.name == "scorekeeper_over"
    assert app.scene.model()["winners"] == [1]
    # saved at game over: the games folder holds the record, read back to the same sheet
    from trickref.device.config import load
    from trickref.device.games_store import GamesStore

    store = GamesStore(load().config.storage.games_dir())
    saved = store.list_games()
    assert len(saved) == 1 and app.scene.model()["saved"] == str(saved[0].path)
    assert store.read(saved[0]).summary() == app.scene.sheet.summary()
    tap_button(app, "Score sheet")
    m = app.scene.model()
    assert m["totals"] == [32, 10, 52, 36] and m["over"]
    assert [r[1:] for r in m["rows"]] == [["+3/3", "+5/5", "+13/13", "+5/5"], ["+26/29", "+0/5", "+26/39", "+26/31"],
                                          ["+3/32", "+5/10", "+13/52", "+5/36"]]
    # the record of the game replays to the same sheet
    back = ScoreSheet.from_json(app.scene.sheet.to_json())
    assert back.summary() == app.scene.sheet.summary()
    tap_button(app, "Game over")
    tap_button(app, "New game")
    assert app.scene.name == "home"


def test_a_whole_scorekept_partnership_spades_game(app: Any) -> None:
    start(app, "partnership-spades", 4, target=200)
    buttons = app.scene.model()["buttons"]
    assert not any(b.endswith("Blind Nil") for b in buttons), "no Blind Nil while no team trails by 100"
    enter_spades(app, [4, 4, 4, 4], [2, 4, 3, 4])
    assert app.scene.model()["tally"] == ["tricks: 13 of 13"]
    tap_button(app, "Enter hand")
    assert app.scene.model()["totals"] == [-80, 80, -80, 80]
    buttons = app.scene.model()["buttons"]
    assert "Ana Blind Nil" in buttons and "Cem Blind Nil" in buttons
    assert "Ben Blind Nil" not in buttons and "Dee Blind Nil" not in buttons
    tap_button(app, "Ana Blind Nil")
    buttons = app.scene.model()["buttons"]
    assert "Cem Blind Nil" not in buttons, "at most one Blind Nil per team"
    enter_spades(app, [0, 4, 4, 4], [0, 4, 5, 4])
    assert app.scene.model()["entries"]["blind_nil"] == [True, False, False, False]
    tap_button(app, "Enter hand")
    assert app.scene.model()["totals"] == [161, 160, 161, 160]
    enter_spades(app, [3, 3, 3, 3], [4, 3, 3, 2])
    tap_button(app, "Enter hand")
    m = app.scene.model()
    assert m["scene"] == "scorekeeper_entry" and "tricks add up to 12, not 13" in m["refusal"]
    tap_button(app, "Dee tricks")
    tap_button(app, "pad 3")
    tap_button(app, "Enter hand")
    assert app.scene.name == "scorekeeper_over"
    assert app.scene.model()["winners"] == [0, 2]
    assert app.scene.sheet.totals == [222, 220, 222, 220] and app.scene.sheet.bags == [2, 0, 2, 0]


def test_a_correction_is_kept_and_shown(small_app: Any) -> None:
    app = small_app
    start(app, "hearts", 4)
    enter_hearts(app, [3, 5, 0, 5], 2)
    tap_button(app, "Enter hand")
    tap_button(app, "Sheet")
    tap_button(app, "Correct")
    assert app.scene.name == "pick_hand"  # a hand, or a score correction by points
    tap_button(app, "Score correction")
    assert app.scene.name == "scorekeeper_correct"
    tap_button(app, "Apply correction")
    assert app.scene.model()["error"] == "Tap whose score to correct."
    tap_button(app, "seat Ben")
    tap_button(app, "Points = -5")
    tap_button(app, "reason revoke")
    tap_button(app, "Apply correction")
    m = app.scene.model()
    assert m["scene"] == "scorekeeper_sheet" and m["totals"] == [3, 0, 13, 5]
    assert m["corrections"] == ["Ben -5 after hand 1 (revoke)"]
    assert any(t.startswith("Corrections: Ben -5") for t in app.scene.texts)
    assert app.scene.sheet.to_json()["corrections"] == [{"after_hand": 1, "seat": 1, "points": -5, "reason": "revoke"}]
    tap_button(app, "Undo hand")
    assert app.scene.model()["question"] == "Undo the correction Ben -5?"
    tap_button(app, "yes")
    assert app.scene.sheet.totals == [3, 5, 13, 5] and not app.scene.sheet.corrections


CASES = [("spades-2p", 2), ("german-whist", 2), ("partnership-spades", 4), ("hearts", 3), ("hearts", 7),
         ("cancellation-hearts", 6), ("cancellation-hearts", 11)]


SIZES = [(800, 480), (1024, 600), (1280, 720), (720, 1280)]


@pytest.mark.parametrize("large", [False, True], ids=["normal", "large-text"])
@pytest.mark.parametrize("screen_size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_entry_screen_layout_fits(screen_size: tuple[int, int], game: str, players: int, large: bool) -> None:
    """Every target on screen, at least the touch size, none overlapping, names readable
    whole, in normal and large text, on the 7-inch panel, 1024x600, 1280x720 and Touch
    Display 2's portrait 720x1280 (finding 5: 11-player Cancellation Hearts at 800x480 with
    large text had names cut to one letter, overlapping buttons and 4 off screen)."""
    from trickref.ui.screenshots import make_app

    app = make_app(screen_size)
    app.settings.large_text = large
    app.apply_settings()
    opts = {"omnibus": True} if game == "hearts" else {}
    start(app, game, players, **opts)
    sc = app.scene
    app.render(force=True)
    for s, r in enumerate(sc.name_rects):  # each name fits its place at its own size (not squeezed)
        w = app.theme.font("body", bold=True).size(sc.sheet.names[s])[0]
        assert w <= r.width - app.theme.pad, (sc.sheet.names[s], w, r)
    # the pad is up for the first count, and every box the pad fills is on screen
    assert sc.model()["focus"] is not None
    assert sum(1 for b in sc.buttons() if b.visible and b.name.startswith("pad ")) >= 3
    screen = app.screen.get_rect()
    rects = [(b.name, b.rect) for b in sc.buttons() if b.visible]
    for name, r in rects:
        assert screen.contains(r), (name, r)
        assert r.height >= 48 * app.theme.scale - 1 and r.width >= 48 * app.theme.scale - 1, (name, r)
    for i, (a, ra) in enumerate(rects):
        for b, rb in rects[i + 1:]:
            assert not ra.colliderect(rb), (a, ra, b, rb)
    # every seat has its steppers
    for name in sc.sheet.names:
        assert any(b.startswith(f"{name} ") for b, _ in rects)


def test_two_player_counts_follow_each_other(small_app: Any) -> None:
    app = small_app
    start(app, "german-whist", 2, target=7)
    tap_button(app, "pad 9")
    assert app.scene.model()["entries"]["tricks"] == [9, 4] and app.scene.model()["auto"] == [["tricks", 1]]
    assert app.scene.model()["reason"] is None
    tap_button(app, "Enter hand")
    assert app.scene.model()["totals"] == [3, 0]
    tap_button(app, "Ben tricks")
    tap_button(app, "pad 13")
    assert app.scene.model()["entries"]["tricks"] == [0, 13]
    tap_button(app, "Enter hand")
    assert app.scene.name == "scorekeeper_over" and app.scene.model()["winners"] == [1]
    assert app.scene.sheet.totals == [3, 7]


def test_the_first_dealer_is_chosen_before_the_first_hand(small_app: Any) -> None:
    app = small_app
    start(app, "hearts", 4)
    assert "Undo hand" not in app.scene.model()["buttons"]
    tap_button(app, "First dealer")
    tap_button(app, "First dealer")
    assert app.scene.sheet.first_dealer == 2
    assert "Cem deals; keeping score for your own cards" in app.scene.model()["texts"]
    enter_hearts(app, [3, 5, 0, 5], 2)
    tap_button(app, "Enter hand")
    assert app.scene.sheet.dealer == 3 and app.scene.sheet.to_json()["first_dealer"] == 2
    assert "First dealer" not in app.scene.model()["buttons"] and "Undo hand" in app.scene.model()["buttons"]
