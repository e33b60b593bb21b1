"""Every game on a small club night (real Mosquitto), and a table's [club] settings."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from club_rig import ClubRig, check_against_records, needs_mosquitto

from trickref.device.club.link import ClubConfig
from trickref.device.club.sim import play_round


@needs_mosquitto
@pytest.mark.parametrize("game,players", [("partnership-spades", 4), ("spades-2p", 2),
                                          ("german-whist", 2), ("cancellation-hearts", 6)])
def test_a_night_of_each_game(club, game: str, players: int) -> None:
    rig: ClubRig = club(game=game, players=players, tables=["t1", "t2", "t3"], rounds=1, boards=2,
                        method="matchpoints" if game == "german-whist" else "average")
    rig.hub.commit_round(0)
    rig.hub.start_round(0)
    records: dict[tuple[str, int], dict[str, Any]] = {}
    for i, t in enumerate(rig.night.tables):
        lk = rig.link(t)
        records[(t, 0)] = play_round(lk, 0, game, players, {}, 2, seed=i).record()
        assert lk.flush(20)
    check_against_records(rig, records, any_nonzero=game != "german-whist")
    if game == "partnership-spades":  # partners share their team's score
        for p in rig.hub.standings["players"]:
            mate = next(q for q in rig.hub.standings["players"]
                        if q["table"] == p["table"] and q["seat"] == (p["seat"] + 2) % 4)
            assert p["score"] == mate["score"]


def test_club_settings_from_a_tables_config(tmp_path) -> None:
    text = 'night = "fri"\ntable = "t2"\npassword = "pw-123"\nhost = "192.0.2.1"\nport = 1883\n'
    cfg = ClubConfig.from_settings(tomllib.loads(text), str(tmp_path / "o.jsonl"))
    assert (cfg.night, cfg.table, cfg.password, cfg.host, cfg.port) == ("fri", "t2", "pw-123", "192.0.2.1", 1883)
    base = tomllib.loads(text)
    for change, words in [({"port": 0}, "club.port must be a port number from 1 to 65535, not 0"),
                          ({"password": ""}, "club.password must be a non-empty string"),
                          ({"table": "T 2"}, "club: table name 'T 2' must be 1 to 32 characters"),
                          ({"table": "hub"}, "club: table name 'hub' is reserved")]:
        with pytest.raises(ValueError) as e:
            ClubConfig.from_settings({**base, **change}, "o.jsonl")
        assert str(e.value).startswith(words)
