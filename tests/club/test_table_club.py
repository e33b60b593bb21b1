"""A table host joined to a club night: the hub's boards dealt by the host, every hand reported
through ClubLink, the outbox kept across a power cut (real Mosquitto, the real table host)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from club_rig import ClubRig, check_against_records, needs_mosquitto, wait_for

from trickref.device.club import table as CT
from trickref.device.club.link import ClubConfig, ClubLink
from trickref.device.config import Config, StorageConfig
from trickref.ui import i18n
from trickref.ui.table_client import TableClient, journal_path, open_client, resume_table

pytestmark = needs_mosquitto


@pytest.fixture(autouse=True)
def _close_links(club):  # closed before the broker stops
    yield
    CT.links.close()


def join(rig: ClubRig, home: Path, table: str, **kw: Any) -> Config:
    s = CT.ClubSettings(joined=True, host="127.0.0.1", port=rig.broker.port, night=rig.night.name, table=table,
                        password=rig.night.passwords[table], **kw)
    CT.save_settings(home, s)
    assert oct((home / "club.toml").stat().st_mode & 0o777) == "0o600"
    return Config(storage=StorageConfig(home=str(home)))


def play(client: TableClient, until: Any, steps: int = 5000) -> None:
    """Bots play until ``until()``; a table waiting for the hub's deck is waited for."""
    for _ in range(steps):
        client.drain()
        if until():
            return
        if client.step_bot() is None:
            assert wait_for(lambda: until() or client.bot_on_turn() is not None, 20), words(client)
    raise AssertionError("too many steps")


def words(client: TableClient) -> str:
    club = client.host.club
    return "" if club is None else str(club.words)


def test_a_table_host_plays_the_hubs_boards_and_reports_every_hand(club, tmp_path) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=2, boards=2)
    rig.hub.commit_all()
    records = {}
    clients = {}
    for i, t in enumerate(rig.night.tables):
        config = join(rig, tmp_path / t, t)
        c = open_client("hearts", 4, [f"{t}-{s}" for s in range(4)], {}, bots=range(4), mode="instant",
                        config=config, seed=i, auto_deal=True)
        clients[t] = c
        assert c.host.club is not None
        # no round started: the table waits for its first board, and says so
        assert wait_for(lambda c=c: words(c) == "waiting for the director to start round 1", 10), words(c)
        assert c.host.referee.waiting == "shuffle"
        assert c.public_view()["table"]["dealer"]["message"] == "waiting for the director to start round 1"
        i18n.set_language("fr")  # the dealing screen says it in the kiosk's language
        try:
            assert c.public_view()["table"]["dealer"]["message"] == "en attente du directeur pour commencer la manche 1"
        finally:
            i18n.set_language("en")
    rig.hub.start_round(0)
    for t, c in clients.items():
        play(c, lambda c=c: words(c).startswith("round 1 done"))
        assert words(c) == "round 1 done: all 2 boards played; the next round is a new game"
        rec = c.host.referee.record()
        assert len(rec["hands"]) == 2  # the game stops at the round's last board
        for h, entry in enumerate(rec["hands"]):
            assert entry["deck"] == rig.hub.deals["0"][h]["deck"]  # the hub's board, dealt by the host
        records[(t, 0)] = rec
        c.close()
    for t in rig.night.tables:  # every result acknowledged by the hub
        link = CT.links.get(tmp_path / t)
        assert link is not None and link.flush(20), link.status()
        assert link.status()["last_receipt"] is not None and link.status()["acknowledged"] == 4
    # the round ends: its salts are revealed, and each table checks that the decks it dealt are
    # the ones the hub committed to before the round
    rig.hub.end_round(0)
    for t in rig.night.tables:
        link = CT.links.get(tmp_path / t)
        assert link is not None
        assert wait_for(lambda link=link: CT.check_round(link, 0) is not None, 10)
        assert CT.check_round(link, 0) == (True, (
            "round {round}: every deck the hub gave matches the commitment it published before the round",
            {"round": 1}))
    # (the engine's bots play the same deck the same way at both tables: every score is 0)
    check_against_records(rig, records, any_nonzero=False)
    # a new game on the same table plays the next round once the director starts it
    c = open_client("hearts", 4, ["a", "b", "c", "d"], {}, bots=range(4), mode="instant",
                    config=Config(storage=StorageConfig(home=str(tmp_path / "t1"))), seed=5, auto_deal=True)
    assert wait_for(lambda: words(c) == "waiting for the director to start round 2", 10), words(c)
    rig.hub.start_round(1)
    play(c, lambda: words(c).startswith("round 2 done"))
    assert [e["deck"] for e in c.host.referee.record()["hands"]] == [b["deck"] for b in rig.hub.deals["1"]]
    c.close()


def test_another_game_is_not_a_club_game(club, tmp_path) -> None:
    rig: ClubRig = club(tables=["t1"], rounds=1, boards=1)
    rig.hub.start_round(0)
    config = join(rig, tmp_path / "t1", "t1")
    c = open_client("spades-2p", 2, ["a", "b"], {}, bots=range(2), mode="instant", config=config, seed=1,
                    auto_deal=True)
    try:
        c.drain()
        assert wait_for(lambda: c.host.referee.waiting != "shuffle", 10)  # dealt its own deck
        assert words(c) == "not a club game: night n1 plays hearts for 4 players"
        assert c.host.referee.record()["hands"][0]["deck"] != rig.hub.deals["0"][0]["deck"]
    finally:
        c.close()


def test_results_survive_the_broker_down_and_a_power_cut(club, tmp_path) -> None:
    rig: ClubRig = club(tables=["t1"], rounds=1, boards=3)
    rig.hub.commit_all()
    rig.hub.start_round(0)
    home = tmp_path / "t1"
    config = join(rig, home, "t1")
    c = open_client("hearts", 4, ["a", "b", "c", "d"], {}, bots=range(4), mode="instant", config=config, seed=3,
                    auto_deal=True, journal_file=journal_path(config))
    link = CT.links.get(home)
    assert link is not None
    assert wait_for(lambda: words(c).startswith("club night n1: round 1, board 1"), 10), words(c)
    rig.broker.kill()  # the hub's broker dies: the table plays on, its results queue on disk
    play(c, lambda: len(c.host.referee.game.hand_results) >= 2)
    assert wait_for(lambda: not link.connected, 10)
    assert len(link.outbox) >= 2  # start, hand 1 (and hand 2) wait in the outbox
    c.host.dead = True  # the power goes: nothing more is carried out
    c.close()
    CT.links.close()  # the process ends; the outbox file stays
    rig.broker.start()
    # the table boots again: the journal resumes the game, the club link sends what waited
    c = resume_table(config, auto_deal=True)
    assert c is not None and c.host.club is not None
    play(c, lambda: words(c).startswith("round 1 done"))
    rec = c.host.referee.record()
    c.close()
    link = CT.links.get(home)
    assert link is not None and link.flush(30), link.status()
    check_against_records(rig, {("t1", 0): rec}, any_nonzero=False)


def test_a_deck_that_is_not_the_committed_one_is_caught(club, tmp_path, caplog) -> None:
    """The hub (or someone with its password) swaps a salt: the table's check says which board."""
    import paho.mqtt.client as mqtt

    from trickref.device.club import topics as T

    rig: ClubRig = club(tables=["t1"], rounds=1, boards=2)
    rig.hub.commit_round(0)
    rig.hub.start_round(0)
    config = join(rig, tmp_path / "t1", "t1")
    c = open_client("hearts", 4, ["a", "b", "c", "d"], {}, bots=range(4), mode="instant", config=config, seed=2,
                    auto_deal=True)
    try:
        club_hook = c.host.club
        assert wait_for(lambda: len(club_hook.link.released_rounds()) == 1 and club_hook.link.deck_for(0, 1), 10)
        salts = [b["salt"] for b in rig.hub.deals["0"]]
        forged = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="forger")
        forged.username_pw_set(T.HUB_USER, rig.night.passwords[T.HUB_USER])
        forged.connect("127.0.0.1", rig.broker.port)
        forged.loop_start()
        body = {"round": 0, "salts": [salts[0], "0" * 32], "decks": []}
        forged.publish(T.public_topic("n1", "salt", 0), T.encode(body), qos=1, retain=True).wait_for_publish(5)
        forged.loop_stop()
        forged.disconnect()
        assert wait_for(lambda: 0 in club_hook.checked, 10)
        ok, (text, values) = club_hook.checked[0]
        assert not ok and text.format(**values) == (
            "round 1: the hub's deck for board 2 is not the deck it committed to before the round")
        assert "the hub's deck for board 2 is not the deck it committed to" in caplog.text
    finally:
        c.close()


def test_results_sent_before_the_hub_listened_go_again_when_it_comes(tmp_path) -> None:
    """A hub that starts (or comes back after a broker restart without its sessions) after a
    table sent results: those went to nobody; the hub's republished night tells the table to
    send them again at once, not after its retry time."""
    from trickref.device.club.hub import Hub, Night, broker_for

    night = Night("n2", "hearts", 4, ["t1"], 1, 1)
    broker = broker_for(night, tmp_path / "broker").start()
    hub = Hub(night, tmp_path / "hub", port=broker.port).start()
    hub.start_round(0)  # the round is open (journaled); then the hub is away
    hub.stop()
    hub = None
    lk = ClubLink(ClubConfig("n2", "t1", night.passwords["t1"], port=broker.port,
                             outbox=str(tmp_path / "t1.jsonl"), retry=120))
    try:
        assert wait_for(lambda: lk.connected, 10)
        lk.game_started(0, "hearts", ["a", "b", "c", "d"])
        time.sleep(1.0)  # sent (QoS 1, the broker acknowledged it) to a topic nobody reads yet
        assert len(lk.outbox) == 1
        hub = Hub(night, tmp_path / "hub", port=broker.port).start()
        assert lk.flush(20), lk.status()  # well before the 120 s retry
        assert list(hub.state.digests) == ["n2/t1/start/0"]
    finally:
        lk.close()
        if hub is not None:
            hub.stop()
        broker.stop()
