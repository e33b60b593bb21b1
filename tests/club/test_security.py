"""Credentials, the ACL, duplicate and reordered deliveries, malformed and oversized messages."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from club_rig import (
    ClubRig,
    check_against_records,
    needs_mosquitto,
    offline_round,
    publish_all,
    raw_client,
    wait_for,
)

from trickref.device.club import topics as T
from trickref.engine.records import parse, replay

pytestmark = needs_mosquitto


def test_wrong_password_is_refused_with_a_clear_message(club, tmp_path) -> None:
    rig: ClubRig = club()
    lk = rig.link("t1", password="not-the-password")
    assert wait_for(lambda: lk.error is not None, 10)
    assert lk.error == ("club night n1: the club hub refused this table: not authorised "
                        "(wrong name or password) (table 't1')")
    assert not lk.connected
    lk.game_started(0, "hearts", ["a", "b", "c", "d"])  # the table plays on, keeping it
    time.sleep(0.3)
    assert len(lk.outbox) == 1 and rig.hub.state.digests == {}


def test_acl_a_table_writes_only_its_own_topics_and_reads_only_its_deals(club) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=1)
    c, got = raw_client(rig, "t1")
    c.subscribe(f"{T.night_root('n1')}/#", qos=1)
    time.sleep(0.2)
    rig.hub.start_round(0)
    start = {"v": T.VERSION, "night": "n1", "table": "t2", "kind": "start", "round": 0, "players": ["x"] * 4}
    c.publish(T.table_topic("n1", "t2", "start", 0), T.encode(start), qos=1).wait_for_publish(5)
    # nor can it speak for the hub: a deal to t2, the night's description
    c.publish(T.deal_topic("n1", "t2", 0, 0), b'{"round":0,"board":0,"deck":[]}', qos=1, retain=True).wait_for_publish(5)
    c.publish(T.public_topic("n1", "night"), b'{"forged":1}', qos=1, retain=True).wait_for_publish(5)
    time.sleep(0.5)
    topics = {t for t, _ in got}
    assert T.deal_topic("n1", "t1", 0, 0) in topics
    assert not any("/to/t2/" in t for t in topics)  # t2's deal is not readable by t1
    assert rig.hub.state.digests == {}  # t1 could not speak for t2
    hub_view, hgot = raw_client(rig, "t2")
    hub_view.subscribe([(f"{T.night_root('n1')}/to/t2/#", 1), (T.public_topic("n1", "night"), 1)])
    assert wait_for(lambda: any(t == T.public_topic("n1", "night") for t, _ in hgot), 10)
    time.sleep(0.3)
    assert all(b"forged" not in p for _, p in hgot)
    assert all(json.loads(p)["deck"] for t, p in hgot if "/deal/" in t)
    for cl in (c, hub_view):
        cl.loop_stop()
        cl.disconnect()


def test_duplicate_and_reordered_deliveries_count_once(club, tmp_path) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=3)
    rig.hub.start_round(0)
    records = {}
    for i, t in enumerate(["t1", "t2"]):
        pending, records[(t, 0)] = offline_round(rig, t, 0, seed=i)
        # game over first, every message twice
        publish_all(rig, t, [(p.topic, p.payload) for p in reversed(pending + pending)])
    assert wait_for(lambda: rig.hub.duplicates == 10)
    check_against_records(rig, records)


def test_malformed_and_oversized_messages_are_logged_and_dropped(club, caplog) -> None:
    caplog.set_level(logging.WARNING, "trickref.club.hub")
    rig: ClubRig = club(tables=["t1"], rounds=1, boards=1)
    rig.hub.start_round(0)
    c, _ = raw_client(rig, "t1")
    topic = T.table_topic("n1", "t1", "hand", 0, 0)
    good = {"v": T.VERSION, "night": "n1", "table": "t1", "kind": "hand", "round": 0, "hand": 0,
            "points": [0, 0, 0, 26], "record": {}}
    bad = [
        (topic, b"\xff not json"),
        (topic, T.encode({**good, "hand": 1})),
        (topic, T.encode({**good, "points": "lots"})),
        (topic, b"[" + b"0," * (T.MAX_PAYLOAD // 2) + b"0]"),
    ]
    # topics outside the table's own messages never reach the hub: the broker's ACL lets a
    # table write one topic per message of the night's rounds and boards, nothing else
    blocked = [(T.table_topic("n1", "t1", "hand", 7, 0), T.encode({**good, "round": 7})),
               (f"{T.night_root('n1')}/table/t1/cheat/0", b"{}")]
    for t, p in blocked + bad:
        c.publish(t, p, qos=1).wait_for_publish(5)
    assert wait_for(lambda: len(rig.hub.dropped) == len(bad))
    time.sleep(0.5)
    assert len(rig.hub.dropped) == len(bad)
    c.loop_stop()
    c.disconnect()
    text = "\n".join(rig.hub.dropped)
    for words in ("not UTF-8", "hand 1 does not match the topic (0)", "points must be a list",
                  f"over the {T.MAX_PAYLOAD} byte limit"):
        assert words in text
    assert caplog.text.count("refused a message") == len(bad)
    assert rig.hub.state.digests == {}
    assert rig.hub.client.is_connected()


def test_a_hand_whose_points_differ_from_its_plays_is_refused_and_the_real_one_accepted(club) -> None:
    """The hub computes every hand's points from its plays: a table claiming other points is
    refused (before or after its record came), and the genuine result, sent later, counts."""
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=2)
    rig.hub.start_round(0)
    records = {}
    for i, t in enumerate(["t1", "t2"]):
        pending, records[(t, 0)] = offline_round(rig, t, 0, seed=i)
        msgs = {p.key.split("/", 2)[2]: p for p in pending}
        lie_key = "hand/0/0" if t == "t1" else "hand/0/1"
        body = json.loads(msgs[lie_key].payload)
        body["points"] = [0, 0, 0, 26] if body["points"] != [0, 0, 0, 26] else [26, 0, 0, 0]
        order = [lie_key, "start/0", "over/0"] if t == "t1" else ["start/0", "over/0", lie_key]
        lies = [(msgs[lie_key].topic, T.encode(body))] if t == "t1" else []
        rest = [(msgs[k].topic, msgs[k].payload) for k in order if k != lie_key]
        after = [] if t == "t1" else [(msgs[lie_key].topic, T.encode(body))]
        publish_all(rig, t, lies + rest + after)
    assert wait_for(lambda: len(rig.hub.dropped) == 2)
    assert all("the table claims points" in why and "but its plays give" in why for why in rig.hub.dropped)
    assert not rig.hub.state.results  # neither lie counted; nothing else sent yet but starts and ends
    for i, t in enumerate(["t1", "t2"]):  # the genuine results come (the tables' outboxes)
        pending, _ = offline_round(rig, t, 0, seed=i)
        publish_all(rig, t, [(p.topic, p.payload) for p in pending])
    assert wait_for(lambda: len(rig.hub.state.results) == 4)
    for (t, _r), rec in records.items():  # the hub's points are the plays' points
        rows = replay(parse(rec)).hand_results
        assert [rig.hub.state.results[(t, 0, h)].points for h in range(2)] == [r["points"] for r in rows]
    assert rig.hub.settle(10)
    scored = {(b["round"], b["board"]): set(b["tables"]) for b in rig.hub.standings["board_results"]}
    assert scored == {(0, 0): {"t1", "t2"}, (0, 1): {"t1", "t2"}}


def test_a_table_reads_its_decks_only_once_the_round_starts(club) -> None:
    """Before a round starts a table sees its commitments (hashes) and nothing of its decks,
    also after a hub restart; starting round 1 releases round 1's decks only."""
    rig: ClubRig = club(tables=["t1", "t2"], rounds=2, boards=2)
    c, got = raw_client(rig, "t1")
    c.subscribe([(f"{T.night_root('n1')}/#", 1), ("#", 1)])
    rig.hub.commit_all()
    rig.hub.republish()
    assert wait_for(lambda: any("/public/commit/1" in t for t, _ in got), 10)
    time.sleep(0.5)
    decks = {json.dumps(b["deck"], separators=(",", ":")).encode() for r in rig.hub.deals.values() for b in r}
    assert got and not any("/deal/" in t for t, _ in got)
    assert not any(d in p for d in decks for _, p in got)  # no deck in anything t1 can read
    commits = [json.loads(p) for t, p in got if "/public/commit/" in t]
    assert all(set(x) == {"round", "commitments"} for x in commits)
    rig.hub.start_round(0)
    assert wait_for(lambda: sum("/deal/" in t for t, _ in got) == 2, 10)
    deals = {t for t, _ in got if "/deal/" in t}
    assert deals == {T.deal_topic("n1", "t1", 0, 0), T.deal_topic("n1", "t1", 0, 1)}
    # a new subscriber (a table that joins late) gets round 0's retained decks, not round 1's
    c2, got2 = raw_client(rig, "t1")
    c2.subscribe(f"{T.night_root('n1')}/to/t1/#", qos=1)
    assert wait_for(lambda: sum("/deal/" in t for t, _ in got2) == 2, 10)
    time.sleep(0.3)
    assert {t for t, _ in got2 if "/deal/" in t} == deals
    assert any(d in p for d in decks for _, p in got)  # (the check above would see one)
    for cl in (c, c2):
        cl.loop_stop()
        cl.disconnect()


def test_a_message_over_the_brokers_packet_limit_never_reaches_the_hub(club) -> None:
    """Mosquitto's max_packet_size cuts a 1 MiB publish (it closes that client's connection);
    the hub hears nothing of it and goes on storing the table's next, good message."""
    rig: ClubRig = club(tables=["t1"], rounds=1, boards=1)
    rig.hub.start_round(0)
    c, _ = raw_client(rig, "t1")
    gone: list[Any] = []
    c.on_disconnect = lambda *a: gone.append(a)
    c.publish(T.table_topic("n1", "t1", "start", 0), b"{" + b" " * (1 << 20) + b"}", qos=1)
    assert wait_for(lambda: bool(gone), 10)  # the broker closed the connection
    c.loop_stop()
    c.disconnect()
    assert "n1/t1/start/0" not in rig.hub.state.digests and rig.hub.client.is_connected()
    c2, _ = raw_client(rig, "t1")
    start = {"v": T.VERSION, "night": "n1", "table": "t1", "kind": "start", "round": 0, "players": ["a", "b", "c", "d"]}
    c2.publish(T.table_topic("n1", "t1", "start", 0), T.encode(start), qos=1).wait_for_publish(5)
    assert wait_for(lambda: "n1/t1/start/0" in rig.hub.state.digests, 10)
    assert rig.hub.state.tables[("t1", 0)].players == ["a", "b", "c", "d"]
    c2.loop_stop()
    c2.disconnect()
