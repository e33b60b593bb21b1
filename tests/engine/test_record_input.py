"""A record file is untrusted input (engine/record_input.py): nesting deep enough to break the
JSON reader, a deck of numbers, a file without hands are each one RecordError naming the field."""

from __future__ import annotations

import json
import random

import pytest

from trickref.engine import cards as C
from trickref.engine.errors import RecordError
from trickref.engine.record_input import MAX_DEPTH
from trickref.engine.records import dump, parse, record_of, replay
from trickref.engine.scorekeeper import ScoreSheet


def a_record() -> dict:
    """A real one-hand hearts record (replayed from a seeded game), to spoil one field of."""
    from trickref.engine.bots import bot_for
    from trickref.engine.games import new_game

    st = new_game("hearts", 4)
    rng = random.Random(3)
    deck = C.full_deck(1)
    rng.shuffle(deck)
    st.start_hand(deck)
    bot = bot_for("hearts")
    while not st.needs_deck:
        seat = st.turn_seats()[0]
        st.apply(bot.choose(st, seat, rng), seat)
    return dump(record_of(st))


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 100_000])
def test_nesting_past_the_limit_is_refused_as_text_and_as_an_object(depth: int) -> None:
    text = '{"format": "trickref-record/1", "game": "hearts", "options": ' + "[" * depth + "]" * depth + "}"
    with pytest.raises(RecordError) as e:
        parse(text)
    assert e.value.field == "file" and "nested" in e.value.problem
    if depth < 1000:  # an object that deep can be built; parse walks it without recursion too
        with pytest.raises(RecordError, match="nested"):
            parse(json.loads(text))


def test_a_record_at_its_real_depth_still_parses() -> None:
    rec = a_record()
    assert replay(parse(json.dumps(rec))).hand_results


@pytest.mark.parametrize("bad", [0, 51, 12.0, None, True, ["QS"]])
def test_a_deck_entry_that_is_not_a_card_name_is_refused(bad: object) -> None:
    rec = a_record()
    rec["hands"][0]["deck"][5] = bad
    with pytest.raises(RecordError) as e:
        parse(rec)
    assert e.value.field == "hands[0].deck[5]" and "not a card" in e.value.problem


def test_a_deck_of_card_numbers_is_refused_though_it_holds_every_card() -> None:
    rec = a_record()
    rec["hands"][0]["deck"] = [C.parse(c) for c in rec["hands"][0]["deck"]]
    with pytest.raises(RecordError, match="not a card"):
        parse(rec)


def test_a_record_without_hands_is_refused_and_an_empty_list_is_a_game_not_dealt() -> None:
    rec = a_record()
    del rec["hands"]
    with pytest.raises(RecordError) as e:
        parse(rec)
    assert e.value.field == "hands" and "missing" in e.value.problem
    rec["hands"] = []
    assert parse(rec).hands == []


def test_a_scorekept_record_without_hands_is_refused() -> None:
    obj = {"format": "trickref-record/1", "mode": "scorekeeper", "game": "hearts", "players": ["A", "B", "C", "D"]}
    with pytest.raises(RecordError) as e:
        ScoreSheet.from_json(obj)
    assert e.value.field == "hands"
    obj["hands"] = []
    assert ScoreSheet.from_json(obj).n == 4
