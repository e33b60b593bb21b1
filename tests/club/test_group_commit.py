"""The hub's group commit: results received together go to disk with one fsync, and a result
is acknowledged (its receipt) only once the journal holds it on disk. A hub that dies between
receiving a result and the fsync has acknowledged nothing of it: the table (whose outbox keeps
every message until a receipt names it) sends it again and it is accepted exactly once.

No broker: the hub's publishes are caught, and the "crash" is a hub abandoned with its queued
lines (a killed process keeps nothing of what it had not written)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from club_rig import wait_for
from test_state import night_and_game

from trickref.device.club import topics as T
from trickref.device.club.hub import JOURNAL, Hub, write_private


def hub_in(folder: Path) -> tuple[Hub, list[tuple[str, Any, set[str]]]]:
    """A hub over ``folder`` (the night's decks stored there) whose publishes are caught:
    (topic, body, the keys of the messages on disk in the journal at that moment)."""
    night, deals, _, _ = night_and_game()
    if not (folder / "deals.json").exists():
        write_private(folder / "deals.json", json.dumps(deals))
    hub = Hub(night, folder)
    sent: list[tuple[str, Any, set[str]]] = []

    def publish(topic: str, body: Any, retain: bool = False) -> None:
        sent.append((topic, body, on_disk(folder)))

    hub._publish = publish  # type: ignore[method-assign]
    return hub, sent


def on_disk(folder: Path) -> set[str]:
    """The keys of the table messages the journal file holds."""
    keys = set()
    path = folder / JOURNAL
    for line in (path.read_text().splitlines() if path.exists() else []):
        obj = json.loads(line)
        if obj["t"] == "msg":
            m = T.parse_table_message("n1", obj["topic"], obj["payload"].encode())
            keys.add(m.key)
    return keys


def receipts(sent: list[tuple[str, Any, set[str]]]) -> list[tuple[list[str], set[str]]]:
    return [(body["keys"], disk) for topic, body, disk in sent if "/receipts/" in topic and body]


def crash(hub: Hub) -> None:
    """The process dies: its queued journal lines with it (the file handle is only closed)."""
    hub.journal._pending.clear()
    hub.journal._f.close()


def test_a_crash_between_receiving_and_the_fsync_loses_no_acknowledged_result(tmp_path: Path) -> None:
    _, _, msgs, rows = night_and_game()
    hub, sent = hub_in(tmp_path)
    hub.start_round(0)  # (journaled at once: a director's action)
    for topic, payload in msgs:  # the committer has not run: nothing is on disk yet
        assert hub.receive(topic, payload)
    assert len(hub.state.results) == 3
    assert all(keys == [] for keys, _ in receipts(sent)), "a receipt before the fsync"
    assert on_disk(tmp_path) == set()
    crash(hub)

    hub2, sent2 = hub_in(tmp_path)  # the restart: the round is open, no result was acknowledged
    assert hub2.state.is_open(0) and hub2.state.results == {}
    hub2._committer.start()
    try:
        for topic, payload in msgs:  # the table's outbox sends again what has no receipt
            assert hub2.receive(topic, payload)
        for topic, payload in msgs:  # and again: copies are duplicates
            assert not hub2.receive(topic, payload)
        want = {T.parse_table_message("n1", t, p).key for t, p in msgs}
        assert wait_for(lambda: any(set(k) == want for k, _ in receipts(sent2)))
        for keys, disk in receipts(sent2):
            assert set(keys) <= disk, f"receipt for {set(keys) - disk} before they were on disk"
    finally:
        crash(hub2)  # (after the receipts: everything acknowledged must survive this)
    hub3, _ = hub_in(tmp_path)
    try:
        assert {k: r.points for k, r in hub3.state.results.items()} == {("t1", 0, h): rows[h] for h in range(3)}
        lines = [json.loads(x) for x in (tmp_path / JOURNAL).read_text().splitlines()]
        assert len([x for x in lines if x["t"] == "msg"]) == len(msgs)  # each message once
    finally:
        hub3.journal.close()


def test_results_received_together_share_one_fsync_and_are_receipted_after_it(tmp_path: Path) -> None:
    _, _, msgs, _ = night_and_game()
    hub, sent = hub_in(tmp_path)
    hub.start_round(0)
    fsyncs = hub.journal.fsyncs
    hub._committer.start()
    try:
        with hub.journal._sync_lock:  # a slow disk: the fsync of the first result takes a while
            for topic, payload in msgs:  # meanwhile the network thread goes on accepting
                assert hub.receive(topic, payload)
            assert all(keys == [] for keys, _ in receipts(sent))
        want = {T.parse_table_message("n1", t, p).key for t, p in msgs}
        assert wait_for(lambda: any(set(k) == want for k, _ in receipts(sent)))
        assert hub.journal.fsyncs - fsyncs == 1  # five results, one fsync
        for keys, disk in receipts(sent):
            assert set(keys) <= disk
    finally:
        hub.stop()


def test_the_standings_show_a_result_only_once_it_is_on_disk(tmp_path: Path) -> None:
    _, _, msgs, rows = night_and_game()
    hub, _ = hub_in(tmp_path)
    hub.start_round(0)
    gate = threading.Event()
    real_sync = hub.journal.sync
    seen: list[tuple[int, int]] = []  # (t1's hands the page shows, t1's hands on disk)

    def slow_sync(upto: int | None = None) -> int:
        gate.wait(10)
        return real_sync(upto)

    hub.journal.sync = slow_sync  # type: ignore[method-assign]
    hub._scorer.start()
    hub.add_listener(lambda: seen.append((hub.public["progress"]["t1"]["hands"],
                                          len([k for k in on_disk(tmp_path) if "/hand/" in k]))))
    try:
        for topic, payload in msgs[:2]:
            assert hub.receive(topic, payload)
        assert not hub.settle(0.3)  # computed, but held until the journal is on disk
        assert seen == []
        gate.set()
        assert hub.settle(10)
        assert wait_for(lambda: seen and seen[-1] == (1, 1))  # (the page is told just after)
        assert all(shown <= disk for shown, disk in seen), seen
    finally:
        hub.stop()
