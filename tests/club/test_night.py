"""A small simulated night against real Mosquitto: 4 tables, 2 rounds, bots; faults on the way."""

from __future__ import annotations

import json
import time
from typing import Any

from club_relay import MangleRelay, Relay
from club_rig import ClubRig, check_against_records, needs_mosquitto, wait_for

from trickref.device.club.hub import Hub
from trickref.device.club.sim import play_round

pytestmark = needs_mosquitto


def test_small_night_with_a_broker_crash_and_a_table_offline(club, tmp_path) -> None:
    rig: ClubRig = club()
    night = rig.night
    relay = Relay(rig.broker.port)  # t4's Wi-Fi
    links = {t: rig.link(t, port=relay.port if t == "t4" else None) for t in night.tables}
    records: dict[tuple[str, int], dict[str, Any]] = {}
    try:
        for r in range(night.rounds):
            rig.hub.commit_round(r)
            rig.hub.start_round(r)
            for t in night.tables:  # every table has every board before play starts
                assert all(links[t].deck_for(r, b, 10) for b in range(night.boards))
            for i, t in enumerate(night.tables):
                on_hand = None
                if r == 1 and t == "t4":
                    def on_hand(ref: Any, h: int) -> None:
                        if h == 0:
                            relay.cut()  # t4 drops off after its first hand and plays on
                ref = play_round(links[t], r, night.game, night.players, {}, night.boards,
                                 seed=100 * r + i, on_hand=on_hand)
                records[(t, r)] = ref.record()
                if r == 0 and i == 1:
                    rig.broker.kill()  # SIGKILL mid-round: t3 and t4 play while it is down
            if r == 0:
                assert not rig.broker.running()
                rig.broker.start()  # same port, same persistence folder
            if r == 1:
                time.sleep(0.5)
                assert len(links["t4"].outbox) > 0  # t4 holds its hands while cut off
                assert not links["t4"].connected
                relay.restore()
            for t in night.tables:
                assert links[t].flush(30), (t, links[t].status())
            rig.hub.end_round(r)
        check_against_records(rig, records)
        assert all(p["over"] and p["round"] == 1 for p in rig.hub.standings["progress"].values())
    finally:
        relay.close()


def test_hub_restart_keeps_what_it_stored(club) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=2)
    rig.hub.commit_round(0)
    rig.hub.start_round(0)
    records = {}
    for i, t in enumerate(rig.night.tables):
        lk = rig.link(t)
        records[(t, 0)] = play_round(lk, 0, "hearts", 4, {}, 2, seed=i).record()
        assert lk.flush(20)
    assert rig.hub.settle(10)
    before = rig.hub.standings["players"]
    rig.hub.stop()
    rig.hub = Hub(rig.night, rig.hub.folder, port=rig.broker.port).start()
    assert json.loads((rig.hub.folder / "deals.json").read_text()) == rig.hub.deals
    assert rig.hub.standings["players"] == before
    check_against_records(rig, records)


def test_players_move_between_rounds(club) -> None:
    rig: ClubRig = club(tables=["t1", "t2", "t3"], rounds=3, boards=2, moving_seats=[1, 3])
    night = rig.night
    # worked by hand: seats 2 and 4 move t1 -> t2 -> t3 -> t1; seats 1 and 3 stay
    assert night.seating(0)["t2"] == ["t2/1", "t2/2", "t2/3", "t2/4"]
    assert night.seating(1)["t2"] == ["t2/1", "t1/2", "t2/3", "t1/4"]
    assert night.seating(2)["t1"] == ["t1/1", "t2/2", "t1/3", "t2/4"]
    links = {t: rig.link(t) for t in night.tables}
    records: dict[tuple[str, int], dict[str, Any]] = {}
    for r in range(night.rounds):
        rig.hub.commit_round(r)
        rig.hub.start_round(r)
        for i, t in enumerate(night.tables):
            records[(t, r)] = play_round(links[t], r, night.game, 4, {}, 2, seed=10 * r + i,
                                         names=night.seating(r)[t]).record()
        for lk in links.values():
            assert lk.flush(20)
        rig.hub.end_round(r)
    check_against_records(rig, records)
    players = rig.hub.standings["players"]
    assert len(players) == 12 and all(p["boards"] == 6 for p in players)
    assert all(p["name"] == f"{p['table']}/{p['seat'] + 1}" for p in players)


def test_duplicated_and_reordered_deliveries_are_stored_once(club) -> None:
    """Every table's publishes go through a relay that holds them, shuffles them, copies half
    of them into the same batch and some again seconds later; after the round every publish is
    sent once more, newest first. Nothing is lost, nothing counted twice."""
    rig: ClubRig = club(tables=["t1", "t2", "t3"], rounds=1, boards=3)
    relays = {t: MangleRelay(rig.broker.port, seed=i, window=0.3, dup=0.6, late=0.5, late_s=(0.5, 1.5))
              for i, t in enumerate(rig.night.tables)}
    links = {t: rig.link(t, port=relays[t].port) for t in rig.night.tables}
    records: dict[tuple[str, int], dict[str, Any]] = {}
    try:
        rig.hub.commit_round(0)
        rig.hub.start_round(0)
        for i, t in enumerate(rig.night.tables):
            records[(t, 0)] = play_round(links[t], 0, "hearts", 4, {}, 3, seed=i).record()
        for t in rig.night.tables:
            assert links[t].flush(30), (t, links[t].status())
        time.sleep(2)  # the late copies
        assert all(r.replay_all() == r.counts["publishes"] >= 5 for r in relays.values())
        counts = [r.counts for r in relays.values()]
        assert sum(c["copies"] + c["late_copies"] for c in counts) > 0
        assert sum(c["batches_reordered"] for c in counts) > 0
        assert wait_for(lambda: rig.hub.duplicates >= sum(c["publishes"] for c in counts), 20)
        check_against_records(rig, records)
    finally:
        for r in relays.values():
            r.close()
