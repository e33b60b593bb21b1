"""The table's memory (device/roster.py): players, setups, history and what is in use, on real
files with fsync; a real process killed with SIGKILL while it writes loses nothing it had
confirmed; damage is copied aside and said, never dropped silently."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trickref.device.games_store import GamesStore
from trickref.device.journal import encode
from trickref.device.roster import (
    STORE_NAME,
    CountingStore,
    TableMemory,
    TableMemoryError,
    clean_name,
)
from trickref.engine import records
from trickref.engine.bots import bot_for
from trickref.engine.games import new_game
from trickref.engine.scorekeeper import ScoreSheet


def finished_game(game: str, names: list[str], seed: int, target: int) -> dict:
    """A whole game played by rule bots, as its record (what the games folder holds)."""
    rng = random.Random(seed)
    g = new_game(game, len(names), {"target": target}, 0, names)
    bot = bot_for(game)
    while not g.over:
        deck = list(range(52)) * g.DECKS
        rng.shuffle(deck)
        g.start_hand(deck)
        while g.phase not in ("deal", "over"):
            seat = g.turn_seats()[0]
            g.apply(bot.choose(g.copy(), seat, rng), seat)
    return records.dump(records.record_of(g))


def test_players_are_added_once_in_any_language(tmp_path):
    m = TableMemory.open(tmp_path)
    for name in ("Ana", "  Çağrı  Öz ", "İpek", "Jàn-Pyè", "Œdipe", "ana", "ANA", "Ben"):
        m.add_player(name)
    assert m.players == ["Ana", "Çağrı Öz", "İpek", "Jàn-Pyè", "Œdipe", "Ben"]
    assert m.add_player("çağrı öz") == "Çağrı Öz"
    with pytest.raises(TableMemoryError):
        m.add_player("   ")
    assert clean_name("Maximiliana Rosa") == "Maximiliana Ro"  # the keyboard's 14 characters
    m.forget_player("BEN")
    m.close()
    again = TableMemory.open(tmp_path)
    assert again.players == ["Ana", "Çağrı Öz", "İpek", "Jàn-Pyè", "Œdipe"] and again.notice is None


def test_each_games_last_setup_and_what_is_in_use_survive_a_restart(tmp_path):
    m = TableMemory.open(tmp_path)
    hearts = {"players": 5, "names": ["Ana", "Ben", "Cem", "Dee", "Eli"], "bots": {4, 2}, "levels": {2: "strong"},
              "options": {"target": 50, "omnibus": True}}
    assert m.save_setup("hearts", hearts)
    assert not m.save_setup("hearts", hearts)  # unchanged: nothing written
    assert m.save_setup("spades-2p", {"players": 2, "names": ["Ana", "Ben"], "bots": [1], "levels": {}, "options": {}})
    m.set_in_use("scorekeep")
    m.close()
    again = TableMemory.open(tmp_path)
    assert again.setup("hearts") == {"players": 5, "names": ["Ana", "Ben", "Cem", "Dee", "Eli"], "bots": [2, 4],
                                     "levels": {"2": "strong"}, "options": {"target": 50, "omnibus": True}}
    assert again.last_game == "spades-2p" and again.in_use == "scorekeep"
    with pytest.raises(TableMemoryError):
        again.set_in_use("poker")


def test_history_counts_each_game_once_without_the_bots_and_reconciles_sheets(tmp_path):
    store = GamesStore(tmp_path / "games")
    m = TableMemory.open(tmp_path)
    whist = finished_game("german-whist", ["Ana", "Ben"], seed=1, target=60)
    hearts = finished_game("hearts", ["Ana", "Ben", "Cem", "Dee"], seed=2, target=60)
    # the table host saves each finished refereed game through the counting store
    p1 = CountingStore(store, m).save(whist)
    CountingStore(store, m, skip=lambda: (3,)).save(hearts)  # Dee was a bot
    unfinished = dict(hearts, hands=hearts["hands"][:1])
    CountingStore(store, m).save(unfinished)  # a game left part way is not a game played
    assert len(m.state["counted"]) == 2 and m.history("Dee") == {}
    # a keep-score sheet saved by the sheet's own journal: found by reconcile
    sheet = ScoreSheet("german-whist", 2, {"target": 10}, 0, ["ana", "Cem"])
    while not sheet.over:
        sheet.enter({"tricks": [10, 3]})
    store.save(sheet.to_json())
    assert m.reconcile(store) == 1
    assert m.reconcile(store) == 0
    ana = m.history("ANA")
    assert set(ana) == {"german-whist", "hearts"} and ana["german-whist"].played == 2
    h = records.replay(records.parse(hearts))
    assert ana["hearts"].played == 1 and ana["hearts"].won == (0 in h.winners) and ana["hearts"].best == h.totals[0]
    assert m.history("Cem")["hearts"].best == h.totals[2]  # low is best in Hearts
    w = records.replay(records.parse(whist))
    assert ana["german-whist"].best == max(w.totals[0], sheet.totals[0])  # high is best in German Whist
    gid = p1.name.split("_")[3]
    assert not m.count_game(gid, "german-whist", ["Ana", "Ben"], [1, 2], [1])  # counted before
    m.close()
    assert TableMemory.open(tmp_path).history("Ana") == ana


def test_a_game_corrected_after_it_ended_replaces_its_record_and_its_count(tmp_path):
    """The table host saves a finished game corrected after its end through ``replace``: one
    record of the game in the folder (the corrected one), its players counted once with the new
    result (won, best found again), the same after a reopen and after compaction."""
    store = GamesStore(tmp_path / "games")
    m = TableMemory.open(tmp_path, compact_after=4)
    old = finished_game("hearts", ["Ana", "Ben", "Cem", "Dee"], seed=2, target=60)
    counting = CountingStore(store, m, skip=lambda: (3,))
    counting.save(old)
    m.count_game("00000001", "hearts", ["Ana", "Zed"], [40, 70], [0])  # another game of Ana's
    g = records.replay(records.parse(old))
    loser = max(range(3), key=lambda s: g.totals[s])
    new = json.loads(json.dumps(old))
    # the corrections as the record keeps them: every other seat 200 points more (low wins)
    new["corrections"] = [{"after_hand": len(new["hands"]), "seat": s, "points": 200, "reason": "revoke",
                           "by": "admin"} for s in range(4) if s != loser]
    corrected = records.replay(records.parse(new))
    assert corrected.winners == [loser]
    path = counting.replace(old, new)
    assert [s.path for s in store.list_games()] == [path] and json.loads(path.read_text()) == new
    for mem in (m, TableMemory.open(tmp_path)):
        who = ["Ana", "Ben", "Cem"][loser]
        st = mem.history(who)["hearts"]
        assert st.played == (2 if who == "Ana" else 1) and st.won == 1 + (who == "Ana")
        assert st.best == corrected.totals[loser]
        for s in {0, 1, 2} - {loser}:
            other = mem.history(["Ana", "Ben", "Cem"][s])["hearts"]
            assert other.won == (1 if s == 0 else 0)  # Ana's other game
            assert other.best == (min(40, corrected.totals[0]) if s == 0 else corrected.totals[s])
        assert mem.history("Dee") == {}  # the bot seat, still left out
    # replaced again (a second correction), and the memory compacted meanwhile
    for i in range(6):
        m.add_player(f"P{i}")
    newer = dict(new, corrections=new["corrections"] + [{"after_hand": len(new["hands"]), "seat": loser,
                                                          "points": 400, "reason": "", "by": "admin"}])
    counting.replace(new, newer)
    last = records.replay(records.parse(newer))
    assert last.over and loser not in last.winners
    m.close()
    again = TableMemory.open(tmp_path)
    for s, who in enumerate(["Ana", "Ben", "Cem"]):
        st = again.history(who)["hearts"]
        assert st.played == 1 + (s == 0) and st.won == (s == 0) + (s in last.winners)
        assert st.best == (min(40, last.totals[0]) if s == 0 else last.totals[s])
    assert len(store.list_games()) == 1


def test_compaction_keeps_everything(tmp_path):
    m = TableMemory.open(tmp_path, compact_after=10)
    for i in range(35):
        m.add_player(f"P{i}")
        m.count_game(f"{i:08x}", "hearts", [f"P{i}", "Zed"], [10 + i, 90], [0])
    size = (tmp_path / STORE_NAME).stat().st_size
    m.close()
    again = TableMemory.open(tmp_path)
    assert again.players == [f"P{i}" for i in range(35)]
    assert again.history("Zed")["hearts"].played == 35 and again.history("Zed")["hearts"].won == 0
    assert again.history("Zed")["hearts"].best == 90 and again.history("P3")["hearts"].best == 13
    assert size < 35 * 2 * 200  # compacted, not one record per change


def test_a_torn_last_record_is_dropped_quietly(tmp_path):
    m = TableMemory.open(tmp_path)
    m.add_player("Ana")
    m.close()
    p = tmp_path / STORE_NAME
    p.write_bytes(p.read_bytes() + encode({"kind": "player", "name": "Ben"})[:-5])  # cut while written
    again = TableMemory.open(tmp_path)
    assert again.players == ["Ana"] and again.notice is None
    assert not list(tmp_path.glob(f"{STORE_NAME}.damaged-*"))
    again.add_player("Cem")
    again.close()
    assert TableMemory.open(tmp_path).players == ["Ana", "Cem"]


def test_damage_in_the_middle_is_copied_aside_and_said_and_the_rest_is_kept(tmp_path):
    m = TableMemory.open(tmp_path)
    for name in ("Ana", "Ben", "Cem", "Dee"):
        m.add_player(name)
    m.close()
    p = tmp_path / STORE_NAME
    data = bytearray(p.read_bytes())
    second = len(encode({"kind": "player", "name": "Ana"}))
    data[second + 14] ^= 0xFF  # a flipped bit in Ben's record
    p.write_bytes(bytes(data))
    again = TableMemory.open(tmp_path)
    assert again.players == ["Ana", "Cem", "Dee"]  # what reads is kept, past the damage too
    aside = list(tmp_path.glob(f"{STORE_NAME}.damaged-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == bytes(data)  # the damaged file, byte for byte
    assert again.notice is not None and "CRC mismatch" in again.notice and aside[0].name in again.notice
    again.add_player("Eli")
    again.close()
    third = TableMemory.open(tmp_path)
    assert third.players == ["Ana", "Cem", "Dee", "Eli"] and third.notice is None


def test_a_file_that_is_not_the_memory_is_kept_aside_not_emptied(tmp_path):
    p = tmp_path / STORE_NAME
    p.write_text(json.dumps({"players": ["Ana"]}) * 2000)  # someone's JSON, far more than a torn record
    m = TableMemory.open(tmp_path)
    assert m.players == [] and m.notice is not None and "bad magic" in m.notice
    aside = list(tmp_path.glob(f"{STORE_NAME}.damaged-*"))
    assert len(aside) == 1 and aside[0].read_text().startswith('{"players"')
    # records the memory does not understand (valid CRC) are said too
    m.close()
    p.write_bytes(encode({"kind": "player", "name": "Ana"}) + encode({"kind": "teleport"}))
    m = TableMemory.open(tmp_path)
    assert m.players == ["Ana"] and m.notice is not None and "1 entries it does not understand" in m.notice


WRITER = r"""
import sys
from trickref.device.roster import TableMemory
m = TableMemory.open(sys.argv[1], compact_after=int(sys.argv[2]))
i = int(sys.argv[3])
while True:
    m.add_player(f"P{i}")
    m.count_game(f"{i:08x}", "hearts", [f"P{i}", "Zed"], [i, 100], [0])
    m.save_setup("hearts", {"players": 4, "names": [f"P{i}"], "bots": [1], "levels": {}, "options": {}})
    print(i, flush=True)  # confirmed: every change above returned
    i += 1
"""


def test_a_kill_at_any_moment_loses_nothing_confirmed_and_never_corrupts(tmp_path):
    """A real process writes the memory as fast as it can (compacting every 25 records) and is
    killed with SIGKILL at random moments, eight times; each time the file opens clean (at most
    a torn last record, dropped quietly) and holds every change the process had confirmed."""
    rng = random.Random(17)
    start = 0
    confirmed: list[int] = []
    for _ in range(8):
        p = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), "25", str(start)], stdout=subprocess.PIPE,
                             text=True)
        assert p.stdout is not None
        first = p.stdout.readline()  # it runs
        assert first.strip().isdigit()
        time.sleep(rng.uniform(0.0, 0.15))
        p.send_signal(signal.SIGKILL)
        rest = p.stdout.read()
        p.wait()
        confirmed += [int(x) for x in (first + rest).split()]
        m = TableMemory.open(tmp_path)
        assert m.notice is None, m.notice
        assert not list(tmp_path.glob(f"{STORE_NAME}.damaged-*"))
        players = set(m.players)
        for i in confirmed:
            assert f"P{i}" in players and m.counted(f"{i:08x}"), i
        assert m.setup("hearts") is not None
        assert m.history("Zed")["hearts"].played == len(m.state["counted"])
        # the next run goes on after whatever this one wrote, confirmed or not
        start = max(int(n[1:]) for n in players) + 1
        m.close()
    assert len(confirmed) > 8


def test_a_store_that_cannot_be_written_says_why(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    m = TableMemory.open(folder)
    (folder / STORE_NAME).unlink()
    folder.chmod(0o500)  # the card turned read-only
    with pytest.raises(TableMemoryError, match="could not be saved"):
        m.add_player("Ana")
    assert m.players == []  # nothing applied that is not on disk


def test_games_store_record_names_match_the_history_key(tmp_path):
    """The games folder's id for a record is the one the history counts it by."""
    store = GamesStore(tmp_path / "games")
    rec = finished_game("german-whist", ["Ana", "Ben"], seed=3, target=40)
    m = TableMemory.open(tmp_path)
    path = CountingStore(store, m).save(rec)
    assert m.counted(Path(path).name.split("_")[3])
