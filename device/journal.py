"""The referee's write-ahead journal: every accepted event on disk before the referee acts on it.

Why: the table must never lose a game to a power cut. The referee appends each event it has
accepted (a button press, a dealt card, a bid) and acts only once ``append`` has returned, which
is after the bytes and, for a new file, its directory entry have been fsync'd. On the next start
the journal is read back and the game is rebuilt from it.

File format (version 1). The file is a plain sequence of records, nothing before the first::

    offset  size  field
    0       4     magic b"TRJ1"
    4       4     length of the payload in bytes, unsigned little-endian
    8       4     CRC-32 (zlib.crc32) of the 4 length bytes followed by the payload, little-endian
    12      n     payload: one JSON value, UTF-8, compact separators

The CRC covers the length too, so a flipped length byte is caught rather than misread as a
different record boundary. A payload is at most ``MAX_PAYLOAD`` bytes. A payload can never
contain a valid header: JSON text has no raw bytes below 0x20, and a length made of bytes of
0x20 or more is far over the limit; so searching for the magic finds only real records.

Reading back (``Journal.open``) walks the records from offset 0. At the first record that does
not check out (short header, wrong magic, absurd length, length past the end of the file, CRC
mismatch, payload that is not JSON) it looks for *any* complete, valid record further on:

- none: the bad bytes are a torn tail (the power went while the last record was being written,
  which may also leave zeros or garbage up to a block boundary). The file is truncated to the
  last good record, fsync'd, and ``OpenReport`` says what was dropped and why. The record that
  was being written was never acknowledged (``append`` had not returned), so nothing confirmed
  is lost.
- one exists: the damage is in the middle, among confirmed events. That is never skipped
  silently: ``JournalCorrupt`` names the file, the offset and the reason. ``salvage=True`` keeps
  the records before the damage and truncates there (the report says how much was dropped).

Also here, because the journal is the durability module of the device layer: ``fsync_dir`` and
``write_atomically`` (tmp file, fsync, rename, fsync directory), used by the games store and
the configuration writer.

Privacy: the journal holds the deck order and the salt of the hand in play, so whoever reads it
knows every hand. The journal, the games folder's records and the configuration are created
private to the table's user (files 0600, folders 0700), and ``Journal.open`` tightens a journal
file, and its folder when the folder holds only the journal's files, left readable by others
(``private_dir`` / ``private_file``). A folder that holds other things, is not the user's own,
or is shared (sticky, like /tmp), is left as it is.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

MAGIC = b"TRJ1"
HEADER = struct.Struct("<4sII")
HEADER_SIZE = HEADER.size  # 12
MAX_PAYLOAD = 1 << 20  # 1 MiB: far above any event; a larger length means damage


class JournalError(ValueError):
    """A journal that cannot be used: what and why, in words."""


class JournalCorrupt(JournalError):
    """A bad record with good records after it: confirmed events would be lost by skipping it."""

    def __init__(self, path: Path, offset: int, reason: str, good_records: int, resumes_at: int) -> None:
        self.path = path
        self.offset = offset
        self.reason = reason
        self.good_records = good_records
        self.resumes_at = resumes_at
        super().__init__(
            f"{path}: damaged record at byte offset {offset} ({reason}) with valid records after it "
            f"(from offset {resumes_at}); {good_records} records before it are intact. Refusing to "
            f"skip confirmed events; open with salvage=True to keep only the first {good_records}."
        )


class JournalWriteError(JournalError):
    """The disk refused a record (full, gone, read-only): ``reason`` is the system's words.
    Nothing of the record stays in the file; the same append can be tried again."""

    def __init__(self, path: Path, reason: str, errno: int | None) -> None:
        self.path = path
        self.reason = reason
        self.errno = errno
        super().__init__(f"{path}: cannot append: {reason}")


class NotAJournal(JournalError):
    """A file that is not a journal at all (a game record, a photo): never truncated or
    written to; the caller names another file."""


def looks_like_journal(data: bytes) -> bool:
    """Whether ``data`` can be a journal: empty, starting with a record's magic or a piece of
    it (the power went during the first write), all zeros (a cut that left only a zeroed
    block), or holding a valid record further on (damage at the start, ``JournalCorrupt``)."""
    return MAGIC.startswith(data[:len(MAGIC)]) or not data.strip(b"\0") or _next_valid(data, 1) is not None


def _not_a_journal(path: Path, data: bytes) -> NotAJournal:
    if data.lstrip()[:1] in (b"{", b"["):
        what = "it is JSON text: a game record or a settings file?"
    elif data.lstrip()[:1].isalpha() and data[:64].isascii():
        what = f"it is text beginning {data[:24].decode(errors='replace')!r}"
    else:
        what = f"it begins with the bytes {data[:8].hex(' ')}, not a journal record's {MAGIC.decode()}"
    return NotAJournal(f"{path}: not a trickref journal ({what}); left untouched. Name a new file "
                       "for a new game, or the journal file of the game to resume.")


def peek(path: str | os.PathLike[str]) -> list[Any]:
    """The records of an existing journal, read without changing it (up to any damage).
    NotAJournal for a file that is not one; JournalError when it cannot be read."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise JournalError(f"{p}: cannot read the journal: {e.strerror}") from None
    if not looks_like_journal(data):
        raise _not_a_journal(p, data)
    return scan(data)[0]


@dataclass(frozen=True)
class OpenReport:
    """What ``Journal.open`` found: how many records, and what (if anything) it dropped."""

    path: Path
    records: int
    created: bool = False
    dropped_offset: int | None = None
    dropped_bytes: int = 0
    reason: str | None = None
    salvaged: bool = False

    @property
    def clean(self) -> bool:
        return self.dropped_bytes == 0

    def describe(self) -> str:
        if self.created:
            return f"{self.path}: new journal"
        if self.clean:
            return f"{self.path}: {self.records} records, clean"
        what = "salvaged: dropped damaged data" if self.salvaged else "dropped a torn last record"
        return (f"{self.path}: {self.records} records; {what} of {self.dropped_bytes} bytes "
                f"at offset {self.dropped_offset} ({self.reason})")


class GameSaver(Protocol):
    """Where ``Journal.rotate`` puts a finished game's record (``games_store.GamesStore``)."""

    def save(self, record: Mapping[str, Any]) -> Path: ...


def encode(obj: Any) -> bytes:
    """One record's bytes: header and JSON payload. ValueError for what JSON cannot hold."""
    try:
        payload = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    except (TypeError, ValueError) as e:
        raise JournalError(f"cannot journal {type(obj).__name__}: {e}") from None
    if len(payload) > MAX_PAYLOAD:
        raise JournalError(f"record of {len(payload)} bytes is over the {MAX_PAYLOAD}-byte limit")
    length = struct.pack("<I", len(payload))
    return HEADER.pack(MAGIC, len(payload), zlib.crc32(length + payload)) + payload


def _parse_at(data: bytes, offset: int) -> tuple[Any, int] | str:
    """(payload object, next offset) for a valid record at ``offset``, else why it is not one."""
    rest = len(data) - offset
    if rest < HEADER_SIZE:
        return f"header cut short: {rest} of {HEADER_SIZE} bytes"
    magic, length, crc = HEADER.unpack_from(data, offset)
    if magic != MAGIC:
        return f"bad magic {magic!r}"
    if length > MAX_PAYLOAD:
        return f"length {length} over the {MAX_PAYLOAD}-byte limit"
    end = offset + HEADER_SIZE + length
    if end > len(data):
        return f"payload cut short: {len(data) - offset - HEADER_SIZE} of {length} bytes"
    payload = data[offset + HEADER_SIZE:end]
    if zlib.crc32(data[offset + 4:offset + 8] + payload) != crc:
        return "CRC mismatch"
    try:
        obj = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return "payload is not JSON"
    return obj, end


def _next_valid(data: bytes, start: int) -> int | None:
    """Offset of the first complete valid record at or after ``start``, if any."""
    pos = data.find(MAGIC, start)
    while pos != -1:
        if not isinstance(_parse_at(data, pos), str):
            return pos
        pos = data.find(MAGIC, pos + 1)
    return None


def scan(data: bytes) -> tuple[list[Any], int, str | None, int | None]:
    """(records, end of the last good record, why the walk stopped, offset of a later good record).

    Reason and later offset are None when the whole buffer is good records.
    """
    records: list[Any] = []
    offset = 0
    while offset < len(data):
        got = _parse_at(data, offset)
        if isinstance(got, str):
            return records, offset, got, _next_valid(data, offset + 1)
        obj, offset = got
        records.append(obj)
    return records, offset, None, None


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make a directory's entries (a new or renamed file) durable."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


FILE_MODE = 0o600  # journal, records, configuration: the table's user only
DIR_MODE = 0o700


def private_dir(path: str | os.PathLike[str], ours: Callable[[str], bool] = lambda name: False) -> Path:
    """Create ``path`` (and missing parents) as 0700. An existing folder that others can read is
    tightened to 0700 only when it is evidently ours: every entry in it satisfies ``ours`` (an
    empty one counts); a folder holding other things (the current folder, a USB stick), one
    owned by someone else, or a shared one (sticky bit, like /tmp) is left as it is."""
    p = Path(path)
    if not p.exists():
        missing = [d for d in (p, *p.parents) if not d.exists()]
        p.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        for d in missing:  # mkdir's parents get the umask's mode; ours are private too
            _tighten(d, DIR_MODE)
    elif all(ours(name) for name in os.listdir(p)):
        _tighten(p, DIR_MODE)
    return p


def private_file(path: str | os.PathLike[str]) -> None:
    """Tighten an existing file of ours to 0600 if others can read or write it."""
    _tighten(Path(path), FILE_MODE)


def _tighten(p: Path, mode: int) -> None:
    st = p.stat()
    if st.st_uid != os.getuid() or st.st_mode & 0o1000 or not st.st_mode & 0o077:
        return
    os.chmod(p, (st.st_mode & 0o777) & mode)


def write_atomically(path: str | os.PathLike[str], data: bytes, mode: int = FILE_MODE) -> None:
    """Replace ``path`` with ``data`` so a crash leaves the old file or the new, never half of one.
    The new file is private (0600) unless ``mode`` says otherwise."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(fd, mode)  # an old tmp file keeps its mode through O_CREAT
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, target)
    fsync_dir(target.parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class Journal:
    """An open journal file. ``append`` is durable on return; safe to call from several threads."""

    def __init__(self, path: Path, fd: int, size: int, games: GameSaver | None) -> None:
        self.path = path
        self._fd: int | None = fd
        self._size = size
        self._games = games
        self._lock = threading.Lock()
        self.count = 0  # records in the file

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        salvage: bool = False,
        games: GameSaver | None = None,
    ) -> tuple[Journal, list[Any], OpenReport]:
        """Open (or create) the journal; return it, its records and what was found.

        A torn tail is dropped (the file is truncated to the last good record); damage with good
        records after it raises ``JournalCorrupt`` unless ``salvage``. ``games`` is where
        ``rotate`` saves finished games. A file that is not a journal at all raises
        ``NotAJournal`` and is left as it is.
        """
        p = Path(path)
        created = not p.exists()
        if not created and p.is_file():
            peek(p)  # NotAJournal (before anything touches it, its mode included)
        new_dirs = [d for d in (p.parent, *p.parent.parents) if not d.exists()] if created else []
        try:
            # the journal holds the deck order and salt of the hand in play
            private_dir(p.parent, lambda name: name.startswith((p.name, f".{p.name}.tmp")))
            fd = os.open(p, os.O_RDWR | os.O_CREAT | os.O_APPEND, FILE_MODE)
            private_file(p)
        except OSError as e:
            raise JournalError(f"{p}: cannot open the journal: {e.strerror}") from None
        try:
            if created:
                os.fsync(fd)
                for d in (p.parent, *(n.parent for n in new_dirs)):  # the file's entry, and new folders'
                    fsync_dir(d)
            with os.fdopen(os.dup(fd), "rb") as f:
                data = f.read()
            records, good_end, reason, later = scan(data)
            report = OpenReport(p, len(records), created=created)
            if reason is not None:
                if later is not None and not salvage:
                    raise JournalCorrupt(p, good_end, reason, len(records), later)
                os.ftruncate(fd, good_end)
                os.fsync(fd)
                report = OpenReport(p, len(records), dropped_offset=good_end,
                                    dropped_bytes=len(data) - good_end, reason=reason,
                                    salvaged=later is not None)
        except BaseException:
            os.close(fd)
            raise
        journal = cls(p, fd, good_end, games)
        journal.count = len(records)
        return journal, records, report

    def append(self, obj: Any) -> None:
        """Write one record and fsync it; the event is durable once this returns."""
        data = encode(obj)
        with self._lock:
            fd = self._require_open()
            try:
                self._write(fd, data)
                os.fsync(fd)
            except OSError as e:
                # Cut back whatever part went out, so the next append does not follow garbage.
                try:
                    os.ftruncate(fd, self._size)
                except OSError:
                    pass
                raise JournalWriteError(self.path, e.strerror or str(e), e.errno) from None
            self._size += len(data)
            self.count += 1

    def _write(self, fd: int, data: bytes) -> None:
        """The raw write; a seam for crash tests (a subclass may stop part way)."""
        _write_all(fd, data)

    def rotate(self, finished: Mapping[str, Any] | None = None) -> Path | None:
        """Start an empty journal for the next game; save ``finished`` (a record dict) first.

        Order matters for power cuts: the record is durable in the games folder before the old
        journal is replaced, and the empty journal replaces it atomically. A cut in between
        leaves the old journal, so the game is rebuilt and saved again (the store names files
        by content, so that second save finds the first).
        """
        saved: Path | None = None
        with self._lock:
            fd = self._require_open()
            if finished is not None:
                if self._games is None:
                    raise JournalError(f"{self.path}: rotate with a finished game needs a games store")
                saved = self._games.save(finished)
            write_atomically(self.path, b"")
            new_fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
            os.close(fd)
            self._fd = new_fd
            self._size = 0
            self.count = 0
        return saved

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    @property
    def closed(self) -> bool:
        return self._fd is None

    def _require_open(self) -> int:
        if self._fd is None:
            raise JournalError(f"{self.path}: journal is closed")
        return self._fd

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
