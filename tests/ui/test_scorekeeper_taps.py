"""Fast score entry (issue 10, finding 13), measured by driving the entry screen with taps at
800x480: the taps a table needs for one typical hand of each game, from the blank entry screen
to the next hand's. Needed: at most 8 for 4-player Hearts and 10 for Partnership Spades. Before
the number pad: Hearts-4 16, German Whist 10, Spades-2p 19, Partnership Spades 27,
Cancellation-11 about 30.

Run with ``-s`` to see the counts."""

from __future__ import annotations

from typing import Any

import kiosk_helpers
import pytest
import test_scorekeeper_ui as ui_tests
from test_scorekeeper_ui import start

# game, players, the hand (what the table reads off its tricks), most taps allowed
TYPICAL: list[tuple[str, int, dict[str, Any], int]] = [
    ("hearts", 4, {"hearts": [3, 5, 0, 5], "qs": 2}, 8),
    ("partnership-spades", 4, {"bids": [4, 3, 2, 3], "tricks": [5, 3, 2, 3]}, 10),
    ("spades-2p", 2, {"bids": [5, 6], "tricks": [6, 7]}, 19 - 1),
    ("german-whist", 2, {"tricks": [8, 5]}, 10 - 1),
    ("cancellation-hearts", 11, {"hearts": [4, 2, 3, 3, 2, 1, 1, 2, 3, 2, 3], "qs": [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0]},
     30 - 1),
]


class Counter:
    def __init__(self) -> None:
        self.taps: list[str] = []

    def tap_button(self, app: Any, name: str) -> None:
        self.taps.append(name)
        kiosk_helpers.tap_button(app, name)


def enter_by_taps(app: Any, hand: dict[str, Any], counter: Counter, monkeypatch: Any) -> None:
    monkeypatch.setattr(ui_tests, "tap_button", counter.tap_button)
    sheet = app.scene.sheet
    for f in sheet.schema():
        key = f["key"]
        if key not in hand:
            continue
        if f["kind"] == "count" and f["max"] > 2:
            ui_tests.fill(app, key, hand[key])
        elif f["kind"] == "count":  # the two Q♠: tap a seat's box once per queen
            for s, v in enumerate(hand[key]):
                for _ in range(v):
                    counter.tap_button(app, f"{sheet.names[s]} {key}")
        elif f["kind"] == "holder":
            counter.tap_button(app, f"{sheet.names[hand[key]]} {f['label']}")
    assert app.scene.model()["reason"] is None, app.scene.model()["reason"]
    counter.tap_button(app, "Enter hand")


@pytest.mark.parametrize(("game", "players", "hand", "most"), TYPICAL, ids=[f"{g}-{n}" for g, n, _, _ in TYPICAL])
def test_taps_for_a_typical_hand(small_app: Any, monkeypatch: Any, game: str, players: int, hand: dict[str, Any],
                                 most: int) -> None:
    app = small_app
    start(app, game, players)
    before = app.scene.sheet.totals[:]
    counter = Counter()
    enter_by_taps(app, hand, counter, monkeypatch)
    m = app.scene.model()
    # the hand was scored as entered, and the next hand is ready to be entered
    assert m["scene"] == "scorekeeper_entry" and m["hand"] == 1 and m["focus"] is not None
    sheet = app.scene.sheet
    assert sheet.entries[0] == {**sheet.entries[0], **hand}
    assert sheet.totals != before or game == "german-whist"
    print(f"\n{game} ({players} players): {len(counter.taps)} taps: {', '.join(counter.taps)}")
    assert len(counter.taps) <= most, counter.taps
