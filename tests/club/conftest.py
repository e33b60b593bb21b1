from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from club_rig import ClubRig

from trickref.device.club.hub import Night


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
