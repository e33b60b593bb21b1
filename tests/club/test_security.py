"""Credentials, the ACL, duplicate and reordered deliveries, malformed and oversized messages."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import paho.mqtt.client as mqtt
from club_rig import ClubRig, check_against_records, needs_mosquitto, wait_for

from trickref.device.club import topics as T
from trickref.device.club.link import ClubConfig, ClubLink
from trickref.device.club.sim import play_game

pytestmark = needs_mosquitto


def raw_client(rig: ClubRig, user: str, password: str | None = None) -> tuple[mqtt.Client, list[Any]]:
    got: list[Any] = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"raw-{user}-{time.monotonic_ns()}")
    c.username_pw_set(user, password or rig.night.passwords[user])
    c.on_message = lambda cl, u, m: got.append((m.topic, m.payload))
    c.connect("127.0.0.1", rig.broker.port)
    c.loop_start()
    return c, got


def test_wrong_password_is_refused_with_a_clear_message(club, tmp_path) -> None:
    rig: ClubRig = club()
    lk = rig.link("t1", password="not-the-password")
    assert wait_for(lambda: lk.error is not None, 10)
    assert lk.error == ("club night n1: the club hub refused this table: not authorised "
                        "(wrong name or password) (table 't1')")
    assert not lk.connected
    lk.game_started(0, "hearts", ["a", "b", "c", "d"])  # the table plays on, keeping it
    time.sleep(0.3)
    assert len(lk.outbox) == 1 and rig.hub.messages == {}


def test_acl_a_table_writes_only_its_own_topics_and_reads_only_its_deals(club) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=1)
    c, got = raw_client(rig, "t1")
    c.subscribe(f"{T.night_root('n1')}/#", qos=1)
    time.sleep(0.2)
    rig.hub.commit_round(0)
    rig.hub.start_round(0)
    start = {"v": 1, "night": "n1", "table": "t2", "kind": "start", "round": 0, "players": ["x"] * 4}
    c.publish(T.table_topic("n1", "t2", "start", 0), T.encode(start), qos=1).wait_for_publish(5)
    c.publish(T.standings_topic("n1"), b'{"forged":1}', qos=1, retain=True).wait_for_publish(5)
    viewer, vgot = raw_client(rig, T.VIEWER_USER)
    viewer.subscribe(f"{T.night_root('n1')}/#", qos=1)
    viewer.publish(T.standings_topic("n1"), b'{"forged":2}', qos=1, retain=True).wait_for_publish(5)
    time.sleep(0.5)
    topics = {t for t, _ in got}
    assert T.deal_topic("n1", "t1", 0, 0) in topics
    assert not any("/to/t2/" in t for t in topics)  # t2's deal is not readable by t1
    assert rig.hub.messages == {}  # t1 could not speak for t2
    vtopics = {t for t, _ in vgot}
    assert T.standings_topic("n1") in vtopics and not any("/to/" in t for t in vtopics)
    standings = [json.loads(p) for t, p in vgot if t == T.standings_topic("n1")]
    assert standings and all("forged" not in s for s in standings)  # nobody but the hub writes them
    for cl in (c, viewer):
        cl.loop_stop()
        cl.disconnect()


def test_duplicate_and_reordered_deliveries_count_once(club, tmp_path) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=3)
    rig.hub.commit_round(0)
    rig.hub.start_round(0)
    records = {}
    for i, t in enumerate(["t1", "t2"]):
        # an offline link (nothing listens on port 9) fills its outbox exactly as at a table
        cfg = ClubConfig("n1", t, rig.night.passwords[t], port=9, outbox=str(tmp_path / f"{t}-off.jsonl"))
        off = ClubLink(cfg)
        decks = [b["deck"] for b in rig.hub.deals["0"]]
        names = [f"{t}/{s + 1}" for s in range(4)]
        off.game_started(0, "hearts", names)
        ref = play_game(lambda b, decks=decks: decks[b], "hearts", 4, {}, 3, seed=i, names=names,
                        on_hand=lambda ref, h, off=off: off.hand_finished(ref.record(), h, 0))
        off.game_over(ref.record(), 0)
        records[(t, 0)] = ref.record()
        pending = off.outbox.pending()
        off.close()
        c, _ = raw_client(rig, t)
        for p in reversed(pending + pending):  # game over first, every message twice
            c.publish(p.topic, p.payload, qos=1).wait_for_publish(5)
        c.loop_stop()
        c.disconnect()
    assert wait_for(lambda: rig.hub.duplicates == 10)
    check_against_records(rig, records)


def test_malformed_and_oversized_messages_are_logged_and_dropped(club, caplog) -> None:
    caplog.set_level(logging.WARNING, "trickref.club.hub")
    rig: ClubRig = club(tables=["t1"], rounds=1, boards=1)
    c, _ = raw_client(rig, "t1")
    topic = T.table_topic("n1", "t1", "hand", 0, 0)
    good = {"v": 1, "night": "n1", "table": "t1", "kind": "hand", "round": 0, "hand": 0,
            "points": [0, 0, 0, 26], "entry": {"deck": []}}
    bad = [
        (topic, b"\xff not json"),
        (topic, T.encode({**good, "hand": 1})),
        (topic, T.encode({**good, "points": "lots"})),
        (T.table_topic("n1", "t1", "hand", 7, 0), T.encode({**good, "round": 7})),
        (f"{T.night_root('n1')}/table/t1/cheat/0", b"{}"),
        (topic, b"[" + b"0," * (T.MAX_PAYLOAD // 2) + b"0]"),
    ]
    for t, p in bad:
        c.publish(t, p, qos=1).wait_for_publish(5)
    assert wait_for(lambda: len(rig.hub.dropped) == len(bad))
    c.loop_stop()
    c.disconnect()
    text = "\n".join(rig.hub.dropped)
    for words in ("not JSON", "hand 1 does not match the topic (0)", "points must be a list",
                  "no round 7", "unknown message kind 'cheat'", "over the 262144 byte limit"):
        assert words in text
    assert caplog.text.count("dropped a message") == len(bad)
    assert rig.hub.messages == {}
    assert rig.hub.client.is_connected()


def test_a_hand_whose_points_differ_from_the_record_is_not_scored(club, tmp_path) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=2)
    rig.hub.commit_round(0)
    rig.hub.start_round(0)
    decks = [b["deck"] for b in rig.hub.deals["0"]]
    sent: dict[str, list[Any]] = {}
    for i, t in enumerate(["t1", "t2"]):
        off = ClubLink(ClubConfig("n1", t, rig.night.passwords[t], port=9, outbox=str(tmp_path / f"{t}.jsonl")))
        off.game_started(0, "hearts", [f"{t}/{s + 1}" for s in range(4)])
        ref = play_game(lambda b: decks[b], "hearts", 4, {}, 2, seed=i,
                        on_hand=lambda ref, h, off=off: off.hand_finished(ref.record(), h, 0))
        off.game_over(ref.record(), 0)
        sent[t] = off.outbox.pending()
        off.close()
    # t1 claims other points for hand 1 (sent before its record); t2's hand 2 lies after its record
    for t, lie_first in (("t1", True), ("t2", False)):
        msgs = {p.key.split("/", 2)[2]: p for p in sent[t]}
        lie_key = "hand/0/0" if lie_first else "hand/0/1"
        body = json.loads(msgs[lie_key].payload)
        body["points"] = [0, 0, 0, 26] if body["points"] != [0, 0, 0, 26] else [26, 0, 0, 0]
        order = [lie_key, "start/0", "over/0"] if lie_first else ["start/0", "over/0", lie_key]
        order += [k for k in msgs if k not in order]
        c, _ = raw_client(rig, t)
        for k in order:
            payload = T.encode(body) if k == lie_key else msgs[k].payload
            c.publish(msgs[k].topic, payload, qos=1).wait_for_publish(5)
        c.loop_stop()
        c.disconnect()
    assert wait_for(lambda: len(rig.hub.messages) == 8)
    assert rig.hub.settle(10)
    bad = {k: b["problem"] for k, b in rig.hub.messages.items() if b.get("problem")}
    assert set(bad) == {"n1/t1/hand/0/0", "n1/t2/hand/0/1"}
    assert all("differ from the game record's" in v for v in bad.values())
    scored = {(b["round"], b["board"]): set(b["tables"]) for b in rig.hub.standings["board_results"]}
    assert scored == {(0, 0): {"t2"}, (0, 1): {"t1"}}


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
    c, _ = raw_client(rig, "t1")
    gone: list[Any] = []
    c.on_disconnect = lambda *a: gone.append(a)
    c.publish(T.table_topic("n1", "t1", "start", 0), b"{" + b" " * (1 << 20) + b"}", qos=1)
    assert wait_for(lambda: bool(gone), 10)  # the broker closed the connection
    c.loop_stop()
    c.disconnect()
    assert "n1/t1/start/0" not in rig.hub.messages and rig.hub.client.is_connected()
    c2, _ = raw_client(rig, "t1")
    start = {"v": 1, "night": "n1", "table": "t1", "kind": "start", "round": 0, "players": ["a", "b", "c", "d"]}
    c2.publish(T.table_topic("n1", "t1", "start", 0), T.encode(start), qos=1).wait_for_publish(5)
    assert wait_for(lambda: "n1/t1/start/0" in rig.hub.messages, 10)
    assert rig.hub.messages["n1/t1/start/0"]["players"] == ["a", "b", "c", "d"]
    c2.loop_stop()
    c2.disconnect()
