"""The club tests' rig: a night with its real Mosquitto, hub and table links; checks."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import pytest

from trickref.device.club import scoring
from trickref.device.club.broker import Broker, find_mosquitto
from trickref.device.club.hub import Hub, Night, broker_for
from trickref.device.club.link import ClubConfig, ClubLink
from trickref.engine.records import parse, replay

# skipped without Mosquitto on a developer's machine; under CI (CI=true) the tests run and fail
needs_mosquitto = pytest.mark.skipif(find_mosquitto() is None and os.environ.get("CI", "").lower() != "true",
                                     reason="Mosquitto not installed (scripts/system-deps.sh installs it)")


class ClubRig:
    """A night, its real Mosquitto on a free 127.0.0.1 port, the hub, and table links."""

    def __init__(self, tmp: Path, night: Night) -> None:
        self.tmp = tmp
        self.night = night
        self.broker: Broker = broker_for(night, tmp / "broker")
        self.broker.start()
        self.hub = Hub(night, tmp / "hub", port=self.broker.port).start()
        self.links: list[ClubLink] = []

    def link(self, table: str, password: str | None = None, port: int | None = None,
             retry: float = 2.0) -> ClubLink:
        cfg = ClubConfig(self.night.name, table, password or self.night.passwords[table],
                         port=port or self.broker.port, outbox=str(self.tmp / "tables" / f"{table}.jsonl"),
                         retry=retry)
        lk = ClubLink(cfg)
        self.links.append(lk)
        return lk

    def close(self) -> None:
        for lk in self.links:
            try:
                lk.close()
            except Exception:
                logging.exception("closing a link")
        self.hub.stop()
        self.broker.stop()


def raw_client(rig: ClubRig, user: str, password: str | None = None, client_id: str | None = None,
               connect: bool = True) -> tuple[Any, list[Any]]:
    """A plain MQTT client as ``user`` (what an attacker with that login would use)."""
    import paho.mqtt.client as mqtt

    got: list[Any] = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"raw-{user}-{time.monotonic_ns()}")
    c.username_pw_set(user, password or rig.night.passwords[user])
    c.on_message = lambda cl, u, m: got.append((m.topic, m.payload))
    if connect:
        c.connect("127.0.0.1", rig.broker.port)
        c.loop_start()
    return c, got


def offline_round(rig: ClubRig, table: str, r: int, seed: int = 0, boards: int | None = None,
                  names: list[str] | None = None) -> tuple[list[Any], dict[str, Any]]:
    """Table ``table``'s genuine messages of round ``r`` (an offline link's outbox, filled as at
    a table: start, every hand, over) and the game's record."""
    from trickref.device.club.sim import play_game

    boards = boards or rig.night.boards
    cfg = ClubConfig(rig.night.name, table, rig.night.passwords[table], port=9,
                     outbox=str(rig.tmp / "offline" / f"{table}-{r}-{seed}.jsonl"))
    off = ClubLink(cfg)
    decks = [b["deck"] for b in rig.hub.deals[str(r)]]
    names = names or [f"{table}/{s + 1}" for s in range(rig.night.players)]
    off.game_started(r, rig.night.game, names, rig.night.options)
    ref = play_game(lambda b: decks[b], rig.night.game, rig.night.players, rig.night.options, boards, seed=seed,
                    names=names, on_hand=lambda ref, h: off.hand_finished(ref.record(), h, r))
    off.game_over(ref.record(), r)
    pending = off.outbox.pending()
    off.close()
    return pending, ref.record()


def publish_all(rig: ClubRig, table: str, messages: list[tuple[str, bytes]], retain: bool = False) -> None:
    c, _ = raw_client(rig, table)
    for topic, payload in messages:
        c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)
    c.loop_stop()
    c.disconnect()


def wait_for(cond: Any, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return bool(cond())


def journal_results(hub: Hub) -> list[str]:
    """The topics of the table messages the hub's journal holds, one per line."""
    out = []
    for line in (hub.folder / "journal.jsonl").read_text().splitlines():
        obj = json.loads(line)
        if obj["t"] == "msg":
            out.append(obj["topic"])
    return out


def key_of(hub: Hub, table: str, kind: str, r: int, h: int | None = None) -> str:
    k = f"{hub.night.name}/{table}/{kind}/{r}"
    return k if h is None else f"{k}/{h}"


def check_against_records(rig: ClubRig, records: dict[tuple[str, int], dict[str, Any]],
                          any_nonzero: bool = True, refused: bool = False) -> None:
    """Every hand of every record is in the hub exactly once, with the record's points, and the
    standings equal the duplicate scores computed from replaying the records."""
    hub = rig.hub
    night = rig.night
    assert hub.settle(20)
    boards: dict[tuple[int, int], dict[str, list[int]]] = {}
    want_keys = set()
    for (t, r), rec in records.items():
        state = replay(parse(rec))
        for h, row in enumerate(state.hand_results):
            boards.setdefault((r, h), {})[t] = row["points"]
            want_keys.add(f"{night.name}/{t}/hand/{r}/{h}")
    got_keys = {f"{night.name}/{t}/hand/{r}/{h}" for (t, r, h) in hub.state.results}
    assert got_keys == want_keys
    for (t, r, h), res in hub.state.results.items():
        assert res.points == boards[(r, h)][t]  # the hub's own points: the records' replay
    stored = journal_results(hub)
    assert len(stored) == len(set(stored)) == len(hub.state.digests)  # stored once each
    _, per_board = scoring.night_scores(night.game, boards, night.method)
    totals: dict[tuple[str, int], Any] = {}
    n = len(night.tables)
    for (r, _b), scores in per_board.items():  # players who move go one table on each round
        for t, row in scores.items():
            for s, v in enumerate(row):
                home = night.tables[(night.tables.index(t) - r) % n] if s in night.moving_seats else t
                totals[(home, s)] = totals.get((home, s), 0) + v
    got = {(p["table"], p["seat"]): p["score"] for p in hub.standings["players"] if p["boards"]}
    assert got == {k: round(float(v), 4) for k, v in totals.items()}
    assert hub.standings["hands_received"] == len(want_keys)
    if any_nonzero:
        assert any(v != 0 for v in got.values())  # the bots' noise makes the tables differ
    if not refused:
        assert hub.dropped == []
