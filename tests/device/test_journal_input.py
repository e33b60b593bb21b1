"""The journal's bad inputs: a file that is not a journal is refused untouched (it used to be
truncated as a "torn tail"), a journal cut during its very first write still opens, and a full
disk refuses a record cleanly: nothing of it stays in the file, and the same append succeeds
once there is room (``full_disk``: a real tmpfs where the tests may mount, see tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trickref.device.journal import Journal, JournalWriteError, NotAJournal, encode, peek


@pytest.mark.parametrize("data,words", [
    (json.dumps({"format": "trickref-record/1", "hands": []}).encode(), "JSON text"),
    (b"Dear diary", "text beginning 'Dear diary'"),
    (bytes(range(200, 256)) * 10, "begins with the bytes c8 c9"),
    (b"\0" * 100 + b"x", "begins with the bytes 00 00"),
])
def test_a_file_that_is_not_a_journal_is_refused_and_left_as_it_was(tmp_path: Path, data: bytes, words: str) -> None:
    f = tmp_path / "precious"
    f.write_bytes(data)
    f.chmod(0o644)
    for attempt in (lambda: Journal.open(f), lambda: peek(f), lambda: Journal.open(f, salvage=True)):
        with pytest.raises(NotAJournal) as e:
            attempt()
        assert str(e.value).startswith(f"{f}: not a trickref journal") and words in str(e.value)
        assert "left untouched" in str(e.value)
    assert f.read_bytes() == data and f.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("start", [b"", b"T", b"TRJ", b"TRJ1\x05\x00", encode({"a": 1})[:-1], b"\0" * 4096])
def test_a_journal_cut_during_its_first_write_still_opens_empty(tmp_path: Path, start: bytes) -> None:
    f = tmp_path / "j"
    f.write_bytes(start)
    journal, records, report = Journal.open(f)
    journal.append({"a": 2})
    journal.close()
    assert records == [] and report.dropped_bytes == len(start)
    assert peek(f) == [{"a": 2}]


def test_damage_at_the_very_start_with_records_after_it_is_still_damage(tmp_path: Path) -> None:
    """Not "not a journal": a flipped first byte with good records after it is JournalCorrupt."""
    from trickref.device.journal import JournalCorrupt

    f = tmp_path / "j"
    f.write_bytes(b"X" + encode({"a": 1})[1:] + encode({"b": 2}))
    with pytest.raises(JournalCorrupt):
        Journal.open(f)


def test_a_full_disk_refuses_the_record_whole_and_takes_it_once_there_is_room(full_disk) -> None:
    path = full_disk.path / "table.journal"
    journal, _, _ = Journal.open(path)
    journal.append({"n": 0})
    full_disk.fill()
    big = {"n": 1, "pad": "x" * 6000}  # past the last page: a real disk writes part of it, then refuses
    with pytest.raises(JournalWriteError) as e:
        journal.append(big)
    assert e.value.reason == "No space left on device" and e.value.path == path
    assert peek(path) == [{"n": 0}]  # nothing of the refused record is left in the file
    full_disk.free()
    journal.append(big)
    journal.close()
    assert peek(path) == [{"n": 0}, big]
    assert Journal.open(path)[1] == [{"n": 0}, big]
