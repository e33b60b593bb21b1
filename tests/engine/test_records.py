"""The record format of RECORDS.md: reading (10D and lower case accepted), canonical writing,
round trips for every game, precise errors naming the field, and replay errors."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from engine_helpers import (
    game_player_counts,
    load_class,
    random_action,
    random_deck,
    random_options,
)

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.errors import RecordError
from trickref.engine.records import (
    FORMAT,
    ReplayError,
    dump,
    dumps,
    parse,
    record_of,
    replay,
    summary,
)

CASES = list(game_player_counts())


def gw_record(hands: int = 1, seed: int = 4, partial: int = 0) -> dict[str, Any]:
    """A German Whist record of random legal play: ``hands`` whole hands, then ``partial``
    actions of one more."""
    cls = load_class("german-whist")
    rng = random.Random(seed)
    g = cls(2, {"target": 100}, 0, ["Ana", "Ben"])
    for h in range(hands + (1 if partial else 0)):
        g.start_hand(random_deck(rng, 1))
        limit = partial if h == hands else 10_000
        while g.phase == "play" and limit:
            s, a = random_action(g, rng)
            g.apply(a, s)
            limit -= 1
    return g.to_json()


# ---------------------------------------------------------------------------- reading
def test_reading_accepts_10_and_lower_case_and_writing_is_canonical() -> None:
    rec = gw_record()
    loose = json.loads(json.dumps(rec))
    hand = loose["hands"][0]
    hand["deck"] = [c.replace("T", "10").lower() if i % 2 else c.lower() for i, c in enumerate(hand["deck"])]
    for a in hand["actions"]:
        a["play"] = a["play"].replace("T", "10").lower()
    assert any(c.startswith("10") for c in hand["deck"])
    r = parse(loose)
    assert dump(r) == rec
    assert all(len(c) == 2 and c == c.upper() for c in dump(r)["hands"][0]["deck"])


def test_text_bytes_and_objects_parse_alike() -> None:
    rec = gw_record()
    text = json.dumps(rec)
    assert parse(text) == parse(text.encode()) == parse(rec)
    assert json.loads(dumps(parse(rec))) == rec
    assert dumps(parse(rec)).endswith("\n") and "\n" not in dumps(parse(rec))[:-1]


def test_defaults_fill_in_and_only_differing_options_are_written() -> None:
    rec = gw_record()
    assert rec["options"] == {"target": 100}
    state = replay(parse(rec))
    assert state.options == {"target": 100, "score_all_tricks": False}
    rec2 = dict(rec, options={"target": 15, "score_all_tricks": False})
    assert replay(parse(rec2)).to_json()["options"] == {}
    rec3 = {k: v for k, v in rec.items() if k not in ("options", "first_dealer")}
    assert parse(rec3).options == {} and parse(rec3).first_dealer == 0


def test_every_action_kind_round_trips_through_its_record_form() -> None:
    samples = [
        A.KEEP, A.DISCARD, A.DOUBLE_NIL, A.BLIND_NIL, A.MOON_SELF, A.MOON_OTHERS,
        A.bid(0), A.bid(13), A.play("TD"), A.pass_cards(["QS", "AH", "KH"]), A.pass_cards(["2C", "3C"]),
        A.exchange(["AS", "KD"], ["2H", "3H"]), A.exchange([], []),
    ]
    for a in samples:
        rec = A.to_record(2, a)
        assert json.loads(json.dumps(rec)) == rec
        assert A.from_record(rec) == (2, a)
    assert A.to_record(1, A.pass_cards(["QS", "AH", "KH"])) == {"seat": 1, "pass": ["QS", "KH", "AH"]}
    assert A.to_record(0, A.play("10d")) == {"seat": 0, "play": "TD"}
    assert A.from_record({"seat": 0, "exchange": {"give": ["as"], "get": ["10h"]}}) == (
        0, A.exchange(["AS"], ["TH"]))


@pytest.mark.parametrize(("game", "n"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_records_of_random_games_round_trip(game: str, n: int) -> None:
    cls = load_class(game)
    rng = random.Random(hash((game, n)) % 1000)
    state = cls(n, random_options(game, rng), first_dealer=n - 1, names=[f"P{i}" for i in range(n)])
    for h in range(2):
        if state.over:
            break
        state.start_hand(random_deck(rng, cls.DECKS))
        limit = 10_000 if h == 0 else 25  # the last hand stops part way
        while state.phase not in ("deal", "over") and limit:
            s, a = random_action(state, rng)
            state.apply(a, s)
            limit -= 1
    rec = state.to_json()
    text = dumps(record_of(state))
    assert json.loads(text) == rec
    assert rec["format"] == FORMAT and rec["game"] == game and rec["players"] == [f"P{i}" for i in range(n)]
    assert rec["first_dealer"] == n - 1
    assert all(len(h["deck"]) == 52 * cls.DECKS for h in rec["hands"])
    again = replay(parse(text))
    assert again == state
    assert dump(parse(text)) == rec
    s = summary(again)
    assert s["game"] == game and s["totals"] == state.totals
    assert len(s["hands"]) == len(state.hand_results)


# ---------------------------------------------------------------------------- errors
def _broken(change: Any) -> dict[str, Any]:
    rec = gw_record()
    change(rec)
    return rec


def _set(path: list[Any], value: Any) -> Any:
    def change(rec: dict[str, Any]) -> None:
        obj: Any = rec
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return change


BAD_RECORDS = [
    ("format", _set(["format"], "trickref-record/9"), "must be 'trickref-record/1'"),
    ("game", _set(["game"], "bridge"), "unknown game 'bridge'"),
    ("players", _set(["players"], ["Ana", "Ben", "Cem"]), "german-whist is for 2 players, not 3"),
    ("players", _set(["players"], "Ana and Ben"), "must be a list of player names"),
    ("options.trump", _set(["options"], {"trump": "clubs"}), "unknown option for german-whist"),
    ("options.target", _set(["options"], {"target": 0}), "must be at least 1"),
    ("options.score_all_tricks", _set(["options"], {"score_all_tricks": "yes"}), "must be true or false"),
    ("first_dealer", _set(["first_dealer"], 2), "must be a seat from 0 to 1"),
    ("hands", _set(["hands"], {}), "must be a list of hands"),
    ("hands[0].deck", _set(["hands", 0, "deck"], ["AS"] * 52), "AS appears too often"),
    ("hands[0].deck", _set(["hands", 0, "deck"], list(C.NAMES[:51])), "has 51 cards; a full deck has 52"),
    ("hands[0].deck", _set(["hands", 0, "deck", 5], "1X"), "not a card: '1X'"),
    ("hands[0].actions[3].play", _set(["hands", 0, "actions", 3, "play"], "ZZ"), "not a card: 'ZZ'"),
    ("hands[0].actions[0]", _set(["hands", 0, "actions", 0], {"seat": 0, "fold": True}), "unknown action 'fold'"),
    ("hands[0].actions[0].seat", _set(["hands", 0, "actions", 0, "seat"], 2), "no seat 2 at a table of 2"),
    ("hands[0].actions[0].seat", _set(["hands", 0, "actions", 0, "seat"], "one"), "must be a whole number"),
    ("hands[0].actions[1].bid", _set(["hands", 0, "actions", 1], {"seat": 0, "bid": 14}), "a bid is a whole number from 0 to 13"),
]


@pytest.mark.parametrize(("field", "change", "words"), BAD_RECORDS, ids=[f"{b[0]}:{b[2][:20]}" for b in BAD_RECORDS])
def test_invalid_records_name_the_field(field: str, change: Any, words: str) -> None:
    with pytest.raises(RecordError) as err:
        parse(_broken(change))
    assert err.value.field == field
    assert words in err.value.problem
    assert str(err.value).startswith(f"{field}: ")


@pytest.mark.parametrize(("text", "words"), [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "a record is a JSON object, not list"),
    (b"\xff\xfe\x00", "not"),
])
def test_not_json_is_a_file_error(text: str | bytes, words: str) -> None:
    with pytest.raises(RecordError) as err:
        parse(text)
    assert err.value.field == "file" and words in err.value.problem


def _illegal_follow(rec: dict[str, Any]) -> tuple[dict[str, Any], int, int, str, str]:
    """The record cut at the first trick where the follower could break suit, with such a
    card played instead: (record, action index, seat, card, led suit)."""
    cls = load_class("german-whist")
    hand = rec["hands"][0]
    g = cls(2, rec["options"], 0, rec["players"])
    g.start_hand([C.parse(c) for c in hand["deck"]])
    for i, a in enumerate(hand["actions"]):
        seat, action = A.from_record(a)
        trick = getattr(g, "trick")  # noqa: B009
        if trick:
            led = trick[0][1] // 13
            off = [c for c in g.hand_of(seat) if c // 13 != led]
            if off and len(off) < len(g.hand_of(seat)):
                cut = dict(hand, actions=hand["actions"][:i] + [{"seat": seat, "play": C.NAMES[off[0]]}])
                return dict(rec, hands=[cut]), i, seat, C.NAMES[off[0]], C.SUIT_NAMES[led]
        g.apply(action, seat)
    raise AssertionError("no trick where a player could break suit")


def test_replay_stops_at_the_first_illegal_action_with_its_place_and_rule() -> None:
    bad, i, seat, card, suit = _illegal_follow(gw_record())
    with pytest.raises(ReplayError) as err:
        replay(parse(bad))
    e = err.value
    assert (e.hand, e.action_index, e.seat, e.reason) == (0, i, seat, f"must follow {suit}")
    assert str(e) == f"hand 0, action {i}: seat {seat} cannot play {card}: must follow {suit}"


def test_replay_of_a_wrong_turn_and_of_hands_after_an_unfinished_one() -> None:
    rec = gw_record()
    a0 = rec["hands"][0]["actions"][0]
    wrong = _broken(_set(["hands", 0, "actions", 0, "seat"], 1 - a0["seat"]))
    with pytest.raises(ReplayError) as err:
        replay(parse(wrong))
    assert (err.value.hand, err.value.action_index) == (0, 0)
    assert "turn" in err.value.reason
    two = gw_record(hands=1, partial=5)
    two["hands"].append(two["hands"][0])
    with pytest.raises(ReplayError) as err2:
        replay(parse(two))
    assert err2.value.hand == 2 and "had not ended" in err2.value.reason


def test_a_hand_may_stop_part_way() -> None:
    rec = gw_record(hands=1, partial=7)
    state = replay(parse(rec))
    assert len(state.hand_results) == 1 and len(state.actions) == 7
    assert summary(state)["hands"] == [
        {"points": state.hand_results[0]["points"], "totals": state.hand_results[0]["totals"]}]
