"""The games folder: atomic saves with readable names, listing, reading back through the engine."""

from __future__ import annotations

import importlib
import json
import sys
import types
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from trickref.device.games_store import GamesStore, GamesStoreError, file_name, game_id
from trickref.engine import cards, records
from trickref.engine.base import GameState


@pytest.fixture(autouse=True)
def hearts_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """``records.parse`` imports the game's module; stand one in while it is being written."""
    try:
        importlib.import_module("trickref.engine.hearts")
    except Exception:
        module = types.ModuleType("trickref.engine.hearts")

        class HeartsState(GameState):
            GAME_ID = "hearts"
            PLAYER_COUNTS = (4,)

        module.HeartsState = HeartsState  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "trickref.engine.hearts", module)


def a_record(players: list[str] | None = None, target: int = 100) -> dict[str, Any]:
    deck = list(cards.NAMES)
    return {
        "format": records.FORMAT,
        "game": "hearts",
        "players": players or ["Ana", "Ben", "Cem", "Dee"],
        "options": {} if target == 100 else {"target": target},
        "first_dealer": 0,
        "hands": [{"deck": deck, "actions": [{"seat": 1, "play": "2C"}]}],
    }


WHEN = datetime(2026, 11, 29, 21, 35)


def test_save_names_the_file_and_reads_back(tmp_path: Path) -> None:
    store = GamesStore(tmp_path / "games")
    rec = a_record()
    path = store.save(rec, when=WHEN)
    assert path.name == f"2026-11-29_2135_hearts_{game_id(rec)}_Ana-Ben-Cem-Dee.json"
    assert json.loads(path.read_text()) == rec
    back = store.read(path)
    assert isinstance(back, records.Record)
    assert records.dump(back) == rec
    assert store.read(path.name) == back, "a bare name is looked up in the folder"
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [path.name], "no tmp files"


def test_same_record_twice_is_one_file(tmp_path: Path) -> None:
    store = GamesStore(tmp_path)
    first = store.save(a_record(), when=WHEN)
    again = store.save(a_record(), when=datetime(2026, 11, 30, 8, 0))
    assert again == first
    assert len(store.list_games()) == 1


def test_list_games_oldest_first_and_skips_other_files(tmp_path: Path) -> None:
    store = GamesStore(tmp_path)
    assert store.list_games() == []
    late = store.save(a_record(target=50), when=datetime(2026, 12, 1, 9, 5))
    early = store.save(a_record(players=["Zoë Ünal", "B", "C!", "Dee"]), when=WHEN)
    (tmp_path / "notes.txt").write_text("hi")
    (tmp_path / "2026-11-29_2135_hearts_zzzzzzzz.json").write_text("{}")
    listed = store.list_games()
    assert [g.path for g in listed] == [early, late]
    assert listed[0].players == ("Zonal", "B", "C", "Dee")
    assert listed[0].saved_at == WHEN and listed[0].game == "hearts"
    assert listed[1].game_id == game_id(a_record(target=50))


def test_invalid_record_is_not_saved(tmp_path: Path) -> None:
    store = GamesStore(tmp_path)
    bad = a_record()
    bad["hands"][0]["deck"] = bad["hands"][0]["deck"][:51]
    with pytest.raises(GamesStoreError, match=r"hands\[0\]\.deck"):
        store.save(bad)
    assert list(tmp_path.iterdir()) == []


def test_reading_a_damaged_file_names_it(tmp_path: Path) -> None:
    store = GamesStore(tmp_path)
    path = store.save(a_record(), when=WHEN)
    path.write_text('{"format": "trickref-record/1", "game": "chess"}')
    with pytest.raises(GamesStoreError, match=f"{path.name}.*unknown game"):
        store.read(path)
    with pytest.raises(GamesStoreError, match="cannot read"):
        store.read(tmp_path / "missing.json")


def test_file_name_without_players() -> None:
    rec = a_record()
    rec["players"] = []
    assert file_name(rec, WHEN) == f"2026-11-29_2135_hearts_{game_id(rec)}.json"


def test_journal_rotation_into_the_store_survives_a_repeat(tmp_path: Path) -> None:
    """A cut between saving the record and emptying the journal: the game is saved once."""
    from trickref.device.journal import Journal

    store = GamesStore(tmp_path / "games")
    journal, _, _ = Journal.open(tmp_path / "journal" / "current.bin", games=store)
    journal.append({"event": 1})
    rec = a_record()
    first = store.save(rec)  # ... and then the power went before the journal was rotated
    journal.close()
    journal, records_, _ = Journal.open(tmp_path / "journal" / "current.bin", games=store)
    assert records_ == [{"event": 1}]
    assert journal.rotate(rec) == first
    assert [g.path for g in store.list_games()] == [first]
    journal.close()
    assert Journal.open(tmp_path / "journal" / "current.bin")[1] == []


def test_scorekept_games_are_saved_and_read_back(tmp_path: Path) -> None:
    from trickref.engine.scorekeeper import ScoreSheet

    sheet = ScoreSheet("hearts", 4, names=["Ana", "Ben", "Cem", "Dee"])
    sheet.enter({"hearts": [3, 5, 0, 5], "qs": 2})
    store = GamesStore(tmp_path)
    path = store.save(sheet.to_json())
    back = store.read(path)
    assert isinstance(back, ScoreSheet)
    assert back.totals == sheet.totals == [3, 5, 13, 5]
    broken = sheet.to_json()
    broken["hands"][0]["entries"]["hearts"] = [3, 5, 1, 5]
    with pytest.raises(GamesStoreError, match="hearts"):
        store.save(broken)


def _mode(p: Path) -> int:
    return p.stat().st_mode & 0o777


def test_games_folder_and_records_are_private(tmp_path: Path) -> None:
    """A record holds every deck order: 0700 folder, 0600 files, and loose modes tightened."""
    folder = tmp_path / "home" / "games"
    store = GamesStore(folder)
    path = store.save(a_record(), when=WHEN)
    assert _mode(folder) == 0o700 and _mode(folder.parent) == 0o700 and _mode(path) == 0o600
    # a folder and a record left world-readable (an older trickref, a copy by hand) are tightened
    folder.chmod(0o755)
    path.chmod(0o644)
    other = store.save(a_record(["Zoë", "Ben", "Cem", "Dee"]), when=WHEN)
    assert _mode(folder) == 0o700 and _mode(path) == 0o600 and _mode(other) == 0o600


def test_a_games_folder_shared_with_other_files_keeps_its_mode(tmp_path: Path) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    usb.chmod(0o755)
    (usb / "photos").mkdir()
    path = GamesStore(usb).save(a_record(), when=WHEN)
    assert _mode(usb) == 0o755 and _mode(path) == 0o600
