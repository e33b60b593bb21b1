"""The kiosk reads the table host's published snapshot, never the live referee under its lock
(issue 19 point 2): reads answer while another thread holds the lock, a reader's copy cannot
change what the next reader sees, and the snapshot is the state after each entry."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from trickref.ui.screenshots import advance, make_app, start_game


def test_reads_do_not_wait_for_the_referees_lock() -> None:
    app = make_app((800, 480))
    session = start_game(app, "hearts", 4, humans=(0,), seed=5)
    table = session.table
    advance(session, lambda st: st.phase == "play" and 0 in st.turn_seats())
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with table.host.lock:  # the referee's lock, held as a long change would
            held.set()
            release.wait(60)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(30)
        got: dict[str, object] = {}

        def read() -> None:
            got["view"] = table.public_view()
            got["seat"] = table.seat_view(0)
            got["bot_seat"] = table.seat_view(1)  # a bot's seat, which the simulated kiosk may reveal
            got["turn"] = table.turn()
            got["legal"] = table.legal(0)
            got["check"] = table.check(0, table.legal(0)[0])
            got["undo"] = table.can_undo()
            got["deal"] = table.needs_deal

        r = threading.Thread(target=read)
        r.start()
        r.join(30)
        assert not r.is_alive(), "a read waited for the referee's lock"
        assert got["turn"] == (0,) and got["legal"] and got["check"] is None
        assert got["view"]["game"]["phase"] == "play" and got["seat"]["game"]["hand"]
        assert 1 in table.bots and got["bot_seat"]["table"]["seat"] == 1 and got["bot_seat"]["game"]["hand"]
        assert got["bot_seat"]["game"]["hand"] != got["seat"]["game"]["hand"]
        with pytest.raises(ValueError, match="no seat 4 at this table"):
            table.seat_view(4)
    finally:
        release.set()
        t.join()
        app.end_session()


def test_the_snapshot_is_immutable_and_a_readers_copy_its_own() -> None:
    app = make_app((800, 480))
    session = start_game(app, "spades-2p", 2, humans=(0,), seed=3)
    table = session.table
    snap = table.snapshot
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.turn = (1,)  # type: ignore[misc]
    with pytest.raises(TypeError):
        snap.public["game"] = {}  # type: ignore[index]
    v = table.public_view()
    v["game"]["phase"] = "scribbled"
    v["table"].clear()
    assert table.public_view()["game"]["phase"] != "scribbled" and table.public_view()["table"]
    app.end_session()


def test_each_entry_is_published_before_the_tap_returns() -> None:
    app = make_app((800, 480))
    session = start_game(app, "hearts", 4, humans=(0, 1, 2, 3), seed=9)
    table = session.table
    advance(session, lambda st: st.phase == "play")
    for _ in range(6):
        before = table.snapshot
        seat = table.turn()[0]
        action = table.legal(seat)[0]
        table.submit(seat, action)
        after = table.snapshot
        assert after is not before and after.last_action == (seat, action)
        with table.host.lock:
            assert table.public_view() == table.host.read(lambda ref: table._extras(ref.public_view(), ref))
    app.end_session()
