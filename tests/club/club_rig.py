"""The club tests' rig: a night with its real Mosquitto, hub and table links; checks."""

from __future__ import annotations

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


def wait_for(cond: Any, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return bool(cond())


def check_against_records(rig: ClubRig, records: dict[tuple[str, int], dict[str, Any]],
                          any_nonzero: bool = True) -> None:
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
    got_keys = {k for k, b in hub.messages.items() if b["kind"] == "hand"}
    assert got_keys == want_keys
    for k in want_keys:
        _, t, _, r, h = k.split("/")
        assert hub.messages[k]["points"] == boards[(int(r), int(h))][t]
        assert "problem" not in hub.messages[k]
    lines = (hub.folder / "results.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines)) == len(hub.messages)  # stored once each
    _, per_board = scoring.night_scores(night.game, boards, night.method)
    totals: dict[tuple[str, int], Any] = {}
    n = len(night.tables)
    for (r, _b), scores in per_board.items():  # players who move go one table on each round
        for t, row in scores.items():
            for s, v in enumerate(row):
                home = night.tables[(night.tables.index(t) - r) % n] if s in night.moving_seats else t
                totals[(home, s)] = totals.get((home, s), 0) + v
    got = {(p["table"], p["seat"]): p["score"] for p in hub.standings["players"]}
    assert got == {k: round(float(v), 4) for k, v in totals.items()}
    assert hub.standings["hands_received"] == len(want_keys)
    if any_nonzero:
        assert any(v != 0 for v in got.values())  # the bots' noise makes the tables differ
    assert hub.dropped == []
