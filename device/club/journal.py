"""The hub's durable journal: one JSON object a line, appended and fsync'd before the hub acts
on it (acknowledges a result, releases a round's decks, applies a correction), 0600.

Group commit: the hub queues the results it accepts (``write``) and a sync writes every line
queued meanwhile with one write and one fsync (``sync``); the hub acknowledges a result (its
receipt) and shows it (the standings) only after a sync that covers it.

On a restart the hub replays the journal through the same checks it applied live. A line that
cannot be read (a torn write, a disk error, a hand edit) or that the checks now refuse is
*quarantined*: copied with its line number and the reason into ``quarantine.jsonl`` beside the
journal, and the journal is rewritten without it (a temporary file, fsync, rename, fsync of the
folder). A bad line never stops a restart, and is never read twice.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger("trickref.club.journal")

MAX_LINE = 512 * 1024  # a line longer than this is not one the hub wrote


class Journal:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.quarantine_path = self.path.with_name("quarantine.jsonl")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # the queue of lines not yet on disk
        self._sync_lock = threading.Lock()  # one write + fsync at a time
        self._pending: list[str] = []
        self._written = 0  # lines queued since open (numbered from 1)
        self._synced = 0  # of which on disk
        self.fsyncs = 0  # fsyncs done (benchmarks: lines per fsync)
        self._f: Any = None
        self.quarantined: list[dict[str, Any]] = []  # this start's: {"line", "reason", "text"}

    def read(self) -> Iterator[tuple[int, dict[str, Any] | None, str, str]]:
        """(line number, the object or None, the line's text, why it is unreadable)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        for i, raw in enumerate(data.split(b"\n")):
            if not raw.strip():
                continue
            text = raw[:MAX_LINE].decode("utf-8", errors="replace")
            if len(raw) > MAX_LINE:
                yield i + 1, None, text, f"a line of {len(raw)} bytes"
                continue
            try:
                obj = json.loads(raw)
            except (ValueError, RecursionError) as e:
                yield i + 1, None, text, f"unreadable ({str(e)[:120]})"
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("t"), str):
                yield i + 1, None, text, "not a journal entry (an object with its type \"t\")"
                continue
            yield i + 1, obj, text, ""

    def quarantine(self, line: int, text: str, reason: str) -> None:
        entry = {"line": line, "reason": reason, "text": text[:MAX_LINE], "at": time.time()}
        self.quarantined.append({"line": line, "reason": reason, "text": text[:2000]})
        log.error("club hub: %s line %d quarantined: %s", self.path.name, line, reason)
        fd = os.open(self.quarantine_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def rewrite(self, keep: list[str]) -> None:
        """The journal made of ``keep`` (lines as read) only: after a quarantine."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for line in keep:
                f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        _fsync_dir(self.path.parent)

    def open(self) -> Journal:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.chmod(self.path, 0o600)
        self._f = os.fdopen(fd, "a", encoding="utf-8")
        return self

    @property
    def written(self) -> int:
        """Lines handed to the journal so far (``write``/``append``), durable or not yet."""
        with self._lock:
            return self._written

    @property
    def synced(self) -> int:
        """Lines on disk (written and fsync'd)."""
        return self._synced

    def write(self, entry: Mapping[str, Any]) -> int:
        """Queue ``entry``: it is neither on disk nor anybody's to see until a ``sync`` covers
        its number (returned). Queued lines live in memory only, so a hub that dies before the
        sync loses exactly the lines it has acknowledged to nobody (group commit: the lines
        queued meanwhile go to disk with one write and one fsync)."""
        line = json.dumps(entry, separators=(",", ":"), ensure_ascii=False)
        with self._lock:
            self._pending.append(line)
            self._written += 1
            return self._written

    def sync(self, upto: int | None = None) -> int:
        """Every line queued (at least up to line number ``upto``) written and fsync'd, with one
        write and one fsync for all of them; returns the number of lines on disk. A sync
        already done (another thread's) is not repeated."""
        if upto is not None and self._synced >= upto:
            return self._synced
        with self._sync_lock:
            if upto is not None and self._synced >= upto:
                return self._synced
            with self._lock:
                lines, self._pending = self._pending, []
                target = self._written
            if lines:
                try:
                    self._f.write("".join(line + "\n" for line in lines))
                    self._f.flush()
                    os.fsync(self._f.fileno())
                except BaseException:
                    with self._lock:  # (put back: a later sync tries again; nothing was acknowledged)
                        self._pending[:0] = lines
                    raise
                self.fsyncs += 1
            self._synced = target
            return target

    def append(self, entry: Mapping[str, Any]) -> None:
        """``entry`` on disk (with every line queued before it) when this returns."""
        self.sync(self.write(entry))

    def close(self) -> None:
        if self._f is not None:
            self.sync()
        with self._sync_lock, self._lock:
            if self._f is not None:
                self._f.close()
                self._f = None


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
