from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from device.club.broker import Broker, find_mosquitto
from device.club.hub import Hub, Night, broker_for
from device.club.link import ClubConfig, ClubLink

needs_mosquitto = pytest.mark.skipif(find_mosquitto() is None,
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


@pytest.fixture
def club(tmp_path: Path) -> Iterator:
    rigs: list[ClubRig] = []

    def make(**kw: object) -> ClubRig:
        args: dict = {"name": "n1", "game": "hearts", "players": 4, "tables": ["t1", "t2", "t3", "t4"],
                      "rounds": 2, "boards": 3}
        args.update(kw)
        rig = ClubRig(tmp_path, Night(**args))
        rigs.append(rig)
        return rig

    yield make
    for r in rigs:
        r.close()
