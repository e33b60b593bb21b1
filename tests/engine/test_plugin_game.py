"""The tests' own sixth game (tests/plugin_game: Three-handed Whist), added through the catalog's
registration call, plays like the built-in ones: the engine, records, bots, the referee's deal
plan and the keep-score sheet all take it from its descriptor (issue 19 point 1)."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from trickref.engine import catalog
from trickref.engine.bots import bot_for
from trickref.engine.bots.levels import search_bot
from trickref.engine.games import GAME_IDS, new_game
from trickref.engine.records import parse, replay
from trickref.engine.referee import flows
from trickref.engine.scorekeeper import ScoreSheet, sheet_of_game

PLUGIN = Path(__file__).resolve().parents[1] / "plugin_game"


@pytest.fixture
def whist3() -> Iterator[catalog.GameInfo]:
    sys.path.insert(0, str(PLUGIN))
    try:
        import whist3_info

        yield catalog.register(whist3_info.INFO)
    finally:
        catalog.unregister("whist-3p")
        sys.path.remove(str(PLUGIN))


def _play(seed: int, bot: object | None = None, target: int = 20) -> object:
    rng = random.Random(seed)
    g = new_game("whist-3p", 3, {"target": target})
    rule = bot_for("whist-3p")
    while not g.over:
        deck = list(range(52))
        rng.shuffle(deck)
        g.start_hand(deck)
        while g.phase == "play":
            seat = g.turn_seats()[0]
            chooser = bot if bot is not None and seat == 0 else rule
            g.apply(chooser.choose(g, seat, rng), seat)  # type: ignore[attr-defined]
    return g


def test_registered_it_is_a_game_like_the_others(whist3: catalog.GameInfo) -> None:
    assert "whist-3p" in GAME_IDS and catalog.by_letter("t") is whist3
    g = new_game("whist-3p", 3)
    g.start_hand(list(range(52)))
    plan = flows.deal_plan(g)
    assert [t for _, t in plan].count("reject") == 1 and plan[-1] == ("AC", "reject")
    assert flows.after_deal_steps(g) == [] and flows.loop_bots_refused(g, "loop", [1]) is None


@pytest.mark.parametrize("seed", [1, 2])
def test_whole_games_replay_from_their_records_and_score_the_same_on_the_sheet(whist3: catalog.GameInfo,
                                                                               seed: int) -> None:
    g = _play(seed)
    assert g.over and len(g.winners) == 1 and max(g.totals) >= 20  # type: ignore[attr-defined]
    again = replay(parse(g.to_json()))  # type: ignore[attr-defined]
    assert again.totals == g.totals and again.winners == g.winners  # type: ignore[attr-defined]
    sheet = sheet_of_game(g)
    assert sheet.totals == g.totals and sheet.over and sheet.winners == g.winners  # type: ignore[attr-defined]


def test_keep_score_asks_for_tricks_and_checks_them(whist3: catalog.GameInfo) -> None:
    sheet = ScoreSheet("whist-3p", 3, {"target": 10}, names=["Ana", "Ben", "Cem"])
    assert sheet.schema() == [{"key": "tricks", "kind": "count", "label": "Tricks", "min": 0, "max": 17, "sum": 17}]
    assert sheet.check({"tricks": [6, 6, 6]}) == "the tricks add up to 18, not 17 (a hand has 17 tricks, each won by someone)"
    assert sheet.enter({"tricks": [9, 5, 3]}) == [9, 5, 3]
    assert sheet.enter({"tricks": [2, 5, 10]}) == [2, 5, 10]
    assert sheet.over and sheet.winners == [2] and sheet.totals == [11, 10, 13]
    assert ScoreSheet.from_json(sheet.to_json()).totals == [11, 10, 13]


def test_the_search_bot_plays_it(whist3: catalog.GameInfo) -> None:
    bot = search_bot("whist-3p", "strong", reproducible=True)
    g = _play(3, bot=bot, target=5)
    assert g.over  # type: ignore[attr-defined]
