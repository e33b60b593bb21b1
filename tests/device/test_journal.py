"""The write-ahead journal: round trips, torn tails of every length, flipped bytes, crashes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickref.device.journal import (
    HEADER_SIZE,
    Journal,
    JournalCorrupt,
    JournalError,
    encode,
    scan,
    write_atomically,
)

EVENTS: list[Any] = [
    {"type": "deal", "deck": ["2C", "3C", "QS"]},
    {"type": "press", "seat": 3, "button": "ok", "at": 12.5},
    {"type": "play", "seat": 1, "card": "QS", "name": "Zoë"},
    [1, 2, 3],
    "just text",
]


def write_events(path: Path, events: list[Any]) -> list[int]:
    """Append ``events``; return the file size after each one."""
    journal, records, report = Journal.open(path)
    assert records == [] and report.created
    sizes = []
    for e in events:
        journal.append(e)
        sizes.append(path.stat().st_size)
    journal.close()
    return sizes


def test_round_trip_and_continue(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "journal.bin"
    write_events(path, EVENTS)
    journal, records, report = Journal.open(path)
    assert records == EVENTS
    assert report.clean and not report.created and report.records == len(EVENTS)
    journal.append({"type": "more"})
    assert journal.count == len(EVENTS) + 1
    journal.close()
    _, records, _ = Journal.open(path)
    assert records == [*EVENTS, {"type": "more"}]


def test_record_layout_is_the_documented_one(tmp_path: Path) -> None:
    import struct
    import zlib

    data = encode({"a": 1})
    magic, length, crc = struct.unpack_from("<4sII", data)
    assert magic == b"TRJ1" and length == len(b'{"a":1}')
    assert data[HEADER_SIZE:] == b'{"a":1}'
    assert crc == zlib.crc32(data[4:8] + data[HEADER_SIZE:])


@pytest.mark.parametrize("bad", [float("nan"), {1, 2}, object()])
def test_unjournalable_values_are_refused(tmp_path: Path, bad: Any) -> None:
    journal, _, _ = Journal.open(tmp_path / "j")
    with pytest.raises(JournalError, match="cannot journal"):
        journal.append({"x": bad})
    journal.append({"ok": True})
    journal.close()
    assert Journal.open(tmp_path / "j")[1] == [{"ok": True}]


def test_torn_tail_of_every_length_is_dropped(tmp_path: Path) -> None:
    """Cut the last record at every byte: the good ones survive, the file is truncated."""
    path = tmp_path / "j"
    sizes = write_events(path, EVENTS)
    full = path.read_bytes()
    last_good = sizes[-2]
    for cut in range(last_good + 1, len(full)):
        path.write_bytes(full[:cut])
        journal, records, report = Journal.open(path)
        assert records == EVENTS[:-1], cut
        assert report.dropped_offset == last_good and report.dropped_bytes == cut - last_good
        assert "cut short" in (report.reason or "")
        journal.close()
        assert path.stat().st_size == last_good


def test_torn_tail_followed_by_zeros_or_garbage(tmp_path: Path) -> None:
    """A power cut can leave a block of zeros (or junk) past the last good record."""
    path = tmp_path / "j"
    sizes = write_events(path, EVENTS[:2])
    for junk in (b"\0" * 4096, b"TRJ1" + b"\xff" * 40, encode({"x": 1})[:-1] + b"\0" * 100):
        path.write_bytes(path.read_bytes()[: sizes[-1]] + junk)
        journal, records, report = Journal.open(path)
        assert records == EVENTS[:2]
        assert report.dropped_bytes == len(junk)
        journal.append("after")
        journal.close()
        assert Journal.open(path)[1] == [*EVENTS[:2], "after"]
        path.write_bytes(path.read_bytes()[: sizes[-1]])


def test_bad_crc_on_the_last_record_is_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "j"
    sizes = write_events(path, EVENTS)
    data = bytearray(path.read_bytes())
    data[-2] ^= 0x01
    path.write_bytes(bytes(data))
    journal, records, report = Journal.open(path)
    journal.close()
    assert records == EVENTS[:-1]
    assert report.reason == "CRC mismatch" and report.dropped_offset == sizes[-2]


def test_flipped_byte_in_the_middle_is_an_error_naming_the_offset(tmp_path: Path) -> None:
    """Every single flipped byte before the last record: a clear error, never a silent skip."""
    path = tmp_path / "j"
    sizes = write_events(path, EVENTS)
    original = path.read_bytes()
    starts = [0, *sizes[:-1]]
    for pos in range(0, sizes[-2]):
        data = bytearray(original)
        data[pos] ^= 0x40
        path.write_bytes(bytes(data))
        record = max(i for i, s in enumerate(starts) if s <= pos)
        with pytest.raises(JournalCorrupt) as err:
            Journal.open(path)
        assert err.value.offset == starts[record], pos
        assert err.value.good_records == record
        assert f"offset {starts[record]}" in str(err.value)
        assert path.read_bytes() == bytes(data), "a refused journal must not be modified"


def test_salvage_keeps_the_records_before_the_damage(tmp_path: Path) -> None:
    path = tmp_path / "j"
    sizes = write_events(path, EVENTS)
    data = bytearray(path.read_bytes())
    data[sizes[1] + HEADER_SIZE + 2] ^= 0xFF  # inside record 2's payload
    path.write_bytes(bytes(data))
    journal, records, report = Journal.open(path, salvage=True)
    assert records == EVENTS[:2]
    assert report.salvaged and report.dropped_offset == sizes[1]
    assert report.dropped_bytes == sizes[-1] - sizes[1]
    assert "salvaged" in report.describe()
    journal.append("next")
    journal.close()
    assert Journal.open(path)[1] == [*EVENTS[:2], "next"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
    max_leaves=8), max_size=6), st.integers(min_value=0))
def test_scan_reads_back_any_json_and_any_prefix_is_a_clean_cut(events: list[Any], cut: int) -> None:
    data = b"".join(encode(e) for e in events)
    records, end, reason, later = scan(data)
    assert records == events and end == len(data) and reason is None
    prefix = data[: cut % (len(data) + 1)]
    records, end, reason, later = scan(prefix)
    assert later is None  # a cut never looks like damage in the middle
    assert records == events[: len(records)]
    assert data[:end] == b"".join(encode(e) for e in records)


def test_rotate_saves_the_finished_game_then_starts_empty(tmp_path: Path) -> None:
    saved: list[dict[str, Any]] = []

    class Store:
        def save(self, record: Any) -> Path:
            assert Journal.open(tmp_path / "j")[1] == ["a", "b"], "journal kept until saved"
            saved.append(dict(record))
            return tmp_path / "game.json"

    journal, _, _ = Journal.open(tmp_path / "j", games=Store())
    journal.append("a")
    journal.append("b")
    assert journal.rotate({"game": "hearts"}) == tmp_path / "game.json"
    assert saved == [{"game": "hearts"}]
    assert journal.count == 0 and (tmp_path / "j").stat().st_size == 0
    journal.append("c")
    assert journal.rotate() is None
    journal.append("d")
    journal.close()
    assert Journal.open(tmp_path / "j")[1] == ["d"]
    assert [p.name for p in tmp_path.iterdir()] == ["j"], "no temporary files left"


def test_rotate_with_a_record_needs_a_store(tmp_path: Path) -> None:
    journal, _, _ = Journal.open(tmp_path / "j")
    with pytest.raises(JournalError, match="games store"):
        journal.rotate({"game": "hearts"})
    journal.close()


def test_closed_journal_refuses_appends(tmp_path: Path) -> None:
    journal, _, _ = Journal.open(tmp_path / "j")
    journal.close()
    assert journal.closed
    with pytest.raises(JournalError, match="closed"):
        journal.append(1)


def test_write_atomically_replaces(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    write_atomically(target, b"one")
    write_atomically(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


# ---------------------------------------------------------------- crashes in a real process

CHILD = textwrap.dedent(
    """
    import os, sys
    from trickref.device.journal import Journal

    class Crashing(Journal):
        stop_after = None  # bytes of the next record to write before dying

        def _write(self, fd, data):
            if self.stop_after is not None:
                os.write(fd, data[: self.stop_after])
                os._exit(3)
            super()._write(fd, data)

    path, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    j, records, report = Crashing.open(path)
    print("start", len(records), flush=True)
    i = 0
    while True:
        if mode == "exit" and i == n:
            j.stop_after = int(sys.argv[4])
        j.append({"i": len(records) + i, "pad": "x" * (i % 50)})
        print("ok", len(records) + i, flush=True)
        i += 1
    """
)


def run_child(path: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, "-c", CHILD, str(path), *args],
                            stdout=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("stop_after", [0, 1, 5, HEADER_SIZE, HEADER_SIZE + 3])
def test_process_dies_mid_record_then_reopen_and_continue(tmp_path: Path, stop_after: int) -> None:
    path = tmp_path / "j"
    child = run_child(path, "exit", "7", str(stop_after))
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 3
    assert out.splitlines()[-1] == "ok 6"
    journal, records, report = Journal.open(path)
    assert [r["i"] for r in records] == list(range(7))
    assert report.dropped_bytes == stop_after
    journal.append({"i": 7})
    journal.close()
    assert [r["i"] for r in Journal.open(path)[1]] == list(range(8))


def test_sigkill_loses_no_acknowledged_record(tmp_path: Path) -> None:
    """Kill the writer at an arbitrary moment, twice: everything it acknowledged is there."""
    path = tmp_path / "j"
    acknowledged = -1
    for _round in range(2):
        child = run_child(path, "loop", "0")
        assert child.stdout is not None
        first = child.stdout.readline().split()
        assert first[0] == "start"
        for line in child.stdout:
            acknowledged = int(line.split()[1])
            if acknowledged >= int(first[1]) + 40:
                break
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
        journal, records, report = Journal.open(path)
        journal.close()
        ids = [r["i"] for r in records]
        assert ids == list(range(len(ids)))
        assert len(ids) >= acknowledged + 1


def test_journal_and_its_folder_are_private(tmp_path: Path) -> None:
    """The journal holds the deck order and salt of the hand in play: 0600 in a 0700 folder,
    and a journal left readable by others (an older version) is tightened on open."""
    path = tmp_path / "home" / "journal" / "table.journal"
    j, _, _ = Journal.open(path)
    j.append({"type": "deal", "salt": "ab" * 16})
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700 and path.parent.parent.stat().st_mode & 0o777 == 0o700
    j.rotate()
    assert path.stat().st_mode & 0o777 == 0o600, "the fresh journal after a game too"
    j.close()
    path.chmod(0o644)
    path.parent.chmod(0o755)
    j, records, _ = Journal.open(path)
    j.close()
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    # a folder holding other things (a journal named in the current folder) is not ours to change
    mixed = tmp_path / "work"
    mixed.mkdir()
    mixed.chmod(0o755)
    (mixed / "notes.txt").write_text("mine")
    j, _, _ = Journal.open(mixed / "t.journal")
    j.close()
    assert mixed.stat().st_mode & 0o777 == 0o755 and (mixed / "t.journal").stat().st_mode & 0o777 == 0o600
    # a shared folder (sticky, like /tmp) is not ours to change
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    j, _, _ = Journal.open(shared / "t.journal")
    j.close()
    assert shared.stat().st_mode & 0o7777 == 0o1777 and (shared / "t.journal").stat().st_mode & 0o777 == 0o600


def test_write_atomically_is_private(tmp_path: Path) -> None:
    target = tmp_path / "c.toml"
    target.write_text("old")
    target.chmod(0o644)
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o600
