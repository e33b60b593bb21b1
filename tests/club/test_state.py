"""The hub's checks, without a broker: a hand result is scored from its plays, and a forged,
mangled or garbage message is refused and never blocks the genuine one (properties)."""

from __future__ import annotations

import functools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trickref.device.club import topics as T
from trickref.device.club.hub import Night, draw_deals
from trickref.device.club.link import _sendable
from trickref.device.club.sim import play_game
from trickref.device.club.state import NightState
from trickref.engine.records import parse, replay

BOARDS = 3


@functools.lru_cache(maxsize=1)
def night_and_game() -> tuple[Night, dict[str, Any], list[tuple[str, bytes]], list[list[int]]]:
    """A night, its decks, and table t1's genuine messages of round 1 (topic, payload), with
    every hand's points as the records' replay gives them."""
    night = Night("n1", "hearts", 4, ["t1", "t2"], 1, BOARDS)
    deals = draw_deals(night, random.Random(20261203))  # (the same boards every run: a failure reproduces)
    decks = [b["deck"] for b in deals["0"]]
    ref = play_game(lambda b: decks[b], "hearts", 4, {}, BOARDS, seed=7, names=["a", "b", "c", "d"])
    record = ref.record()
    msgs = []
    base = {"v": T.VERSION, "night": "n1", "table": "t1", "round": 0, "sent": 1.0}
    msgs.append((T.table_topic("n1", "t1", "start", 0),
                 T.encode({**base, "kind": "start", "game": "hearts", "players": ["a", "b", "c", "d"], "options": {}})))
    rows = [list(r["points"]) for r in replay(parse(record)).hand_results]
    for h in range(BOARDS):
        part = _sendable(record)
        part["hands"] = record["hands"][:h + 1]
        msgs.append((T.table_topic("n1", "t1", "hand", 0, h),
                     T.encode({**base, "kind": "hand", "hand": h, "points": rows[h], "totals": [], "record": part})))
    msgs.append((T.table_topic("n1", "t1", "over", 0), T.encode({**base, "kind": "over", "record": _sendable(record)})))
    return night, deals, msgs, rows


def fresh() -> NightState:
    night, deals, _, _ = night_and_game()
    s = NightState(night, deals)
    s.start_round(0, 0.0)
    return s


def mutate(payload: bytes, how: int, rng: random.Random) -> bytes:
    body = json.loads(payload)
    rec = body.get("record")
    if how == 0 and "points" in body:
        body["points"][rng.randrange(4)] += rng.choice([-13, -1, 1, 26])
    elif how == 1 and rec and rec["hands"] and rec["hands"][-1]["actions"]:
        acts = rec["hands"][-1]["actions"]
        del acts[rng.randrange(len(acts))]
    elif how == 2 and rec and rec["hands"]:
        deck = rec["hands"][rng.randrange(len(rec["hands"]))]["deck"]
        i, j = rng.sample(range(len(deck)), 2)
        deck[i], deck[j] = deck[j], deck[i]
    elif how == 3 and rec and rec["hands"]:
        acts = rec["hands"][-1]["actions"]
        plays = [a for a in acts if "play" in a]
        if plays:
            a = rng.choice(plays)
            a["seat"] = (a["seat"] + 1) % 4
    elif how == 4:
        body[rng.choice(["v", "table", "round", "night", "kind"])] = rng.choice([99, "t2", 5, None, "x" * 300])
    elif how == 5 and rec:
        rec[rng.choice(["game", "first_dealer", "options", "players"])] = rng.choice(
            ["spades-2p", 2, {"points_to_win": 50}, ["a"]])
    elif how == 6:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    elif how == 7:
        return payload[:rng.randrange(len(payload))]
    elif how == 8 and rec:
        rec["hands"] = rec["hands"][:-1]
    else:
        body["points"] = [int("9" * 40)] * 4
    return T.encode(body)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, BOARDS + 1), how=st.integers(0, 9), seed=st.integers(0, 10**6))
def test_a_mangled_message_never_counts_and_never_blocks_the_genuine_one(which: int, how: int, seed: int) -> None:
    _, _, msgs, rows = night_and_game()
    s = fresh()
    topic, payload = msgs[which]
    bad = mutate(payload, how, random.Random(seed))
    verdict, words, _ = s.offer(topic, bad, 1.0)
    if bad != payload:
        if verdict == "accepted":  # (only a harmless change can pass: the same plays, points and all)
            assert json.loads(bad).get("record") == json.loads(payload).get("record")
        else:
            assert verdict == "refused" and words
    for t, p in msgs:  # the genuine messages, all of them, after it
        v, w, _ = s.offer(t, p, 2.0)
        assert v in ("accepted", "duplicate"), w
    assert {(k[2]): r.points for k, r in s.results.items()} == dict(enumerate(rows))
    assert s.table_done("t1", 0)


@pytest.mark.parametrize("which", [BOARDS, BOARDS + 1], ids=["last-hand", "over"])
def test_a_result_whose_last_hand_lacks_its_last_play_is_refused_and_the_genuine_one_counts(which: int) -> None:
    """The last action cut off the last hand: its plays still replay, legal but unfinished. An
    end-of-round message like that was accepted and fixed the board's plays unfinished, so the
    genuine board result after it was refused ("plays differ from those accepted earlier")."""
    _, _, msgs, rows = night_and_game()
    s = fresh()
    topic, payload = msgs[which]
    body = json.loads(payload)
    body["record"]["hands"][-1]["actions"].pop()
    verdict, words, _ = s.offer(topic, T.encode(body), 1.0)
    assert verdict == "refused" and f"hand {BOARDS} has not ended in its plays" in words \
        or "the hand has not ended in its plays" in words, words
    for t, p in msgs:
        v, w, _ = s.offer(t, p, 2.0)
        assert v == "accepted", w
    assert {(k[2]): r.points for k, r in s.results.items()} == dict(enumerate(rows))
    assert s.table_done("t1", 0)


def test_the_hub_computes_the_points_and_checks_what_the_table_claims() -> None:
    _, _, msgs, rows = night_and_game()
    s = fresh()
    topic, payload = msgs[1]
    body = json.loads(payload)
    body["points"] = [0, 26, 26, 26]
    v, words, _ = s.offer(topic, T.encode(body), 1.0)
    assert v == "refused" and words == (f"table t1, round 1, board 1: the table claims points [0, 26, 26, 26] but "
                                        f"its plays give {rows[0]}")
    body = json.loads(payload)
    # the last play given the card of the play before it (a card its player does not hold); a hand
    # may end in a shoot-the-moon choice, which is not a play, so the plays are picked out by key
    plays = [a for a in body["record"]["hands"][0]["actions"] if "play" in a]
    plays[-1]["play"] = plays[-2]["play"]
    v, words, _ = s.offer(topic, T.encode(body), 1.0)
    assert v == "refused" and "an illegal play" in words
    assert s.offer(topic, payload, 1.0)[0] == "accepted"
    assert s.offer(topic, payload, 1.0)[0] == "duplicate"
    v, words, _ = s.offer(topic, T.encode({**json.loads(payload), "sent": 9.0}), 1.0)
    assert v == "refused" and "a second, different result" in words
    assert s.results[("t1", 0, 0)].points == rows[0]


def test_a_later_hand_with_other_plays_for_an_earlier_hand_is_refused() -> None:
    """The plays of a hand, once accepted from a table, are fixed: hand 2's record must carry
    the same hand 1 (Spades' bags, for one, carry over from hand to hand)."""
    night, deals, msgs, rows = night_and_game()
    s = fresh()
    assert s.offer(*msgs[1], 1.0)[0] == "accepted"
    night2 = Night("n1", "hearts", 4, ["t1", "t2"], 1, BOARDS)
    decks = [b["deck"] for b in deals["0"]]
    other = play_game(lambda b: decks[b], "hearts", 4, {}, 2, seed=99, names=["a", "b", "c", "d"]).record()
    assert other["hands"][0]["actions"] != json.loads(msgs[1][1])["record"]["hands"][0]["actions"]
    pts = [list(r["points"]) for r in replay(parse(other)).hand_results]
    part = _sendable(other)
    body = {**json.loads(msgs[2][1]), "record": part, "points": pts[1]}
    v, words, _ = s.offer(msgs[2][0], T.encode(body), 1.0)
    assert v == "refused" and "hand 1's plays differ from those accepted earlier from table t1" in words
    assert night2.name == night.name


def test_names_are_cleaned() -> None:
    assert T.clean_name("\u202eevil\u202c") == "evil"
    assert T.clean_name("  Ann \t  Lee\u200b ") == "Ann Lee"
    assert T.clean_name("x" * 300) == "x" * 32
    assert T.clean_name("\u2066\u2067\u2068\u2069\u200e\u200f\u061c") == ""
    assert T.clean_name("Ça va") == "Ça va" and T.clean_name("شادی") == "شادی"
    assert T.clean_name(None) == ""
