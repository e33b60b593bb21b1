"""A table's club outbox: every message is on disk (fsync) before the table goes on, and stays
there until the hub's receipt names its key, so a table that loses the broker, or a broker that
loses its memory, loses nothing: the table sends again and the hub ignores what it already has.

The file is JSON lines, created 0600: ``{"put": key, "topic": ..., "payload": ...}`` when a
message is queued and ``{"done": [keys]}`` when receipts arrive. Loading replays the lines; a
torn last line (power cut during a write) is dropped with a log line. When nothing is pending the
file is emptied; when it grows, it is rewritten with the pending messages only (write to a
temporary file, fsync, rename).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("trickref.club.outbox")

COMPACT_LINES = 2000


@dataclass
class Pending:
    key: str
    topic: str
    payload: bytes


class Outbox:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._pending: dict[str, Pending] = {}
        self._done: set[str] = set()
        self._lines = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._load()
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.chmod(self.path, 0o600)
        self._f = os.fdopen(fd, "a", encoding="utf-8")

    def _load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if "put" in obj:
                    k = str(obj["put"])
                    if k not in self._done:
                        self._pending[k] = Pending(k, str(obj["topic"]), str(obj["payload"]).encode())
                elif "done" in obj:
                    for k in obj["done"]:
                        self._pending.pop(str(k), None)
                        self._done.add(str(k))
                self._lines += 1
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                last = all(not rest.strip() for rest in lines[i + 1:])
                log.warning("club outbox %s line %d unreadable (%s)%s", self.path, i + 1, e,
                            ": a torn last write, dropped" if last else ", skipped")

    def _append(self, obj: dict[str, object]) -> None:
        self._f.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())
        self._lines += 1

    def put(self, key: str, topic: str, payload: bytes) -> bool:
        """Queue a message (on disk before returning); False if the key is already queued or
        was already acknowledged by the hub (the message is idempotent)."""
        with self._lock:
            if key in self._pending or key in self._done:
                return False
            self._append({"put": key, "topic": topic, "payload": payload.decode()})
            self._pending[key] = Pending(key, topic, payload)
            return True

    def done(self, keys: Iterable[str]) -> list[str]:
        """Mark keys received by the hub; returns those that were pending."""
        with self._lock:
            hit = [k for k in keys if k in self._pending]
            if not hit:
                return []
            for k in hit:
                del self._pending[k]
                self._done.add(k)
            self._append({"done": hit})
            if not self._pending or self._lines > COMPACT_LINES:
                self._compact()
            return hit

    def _compact(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            # keep the done keys too: a late duplicate put for them is refused after a restart
            if self._done:
                f.write(json.dumps({"done": sorted(self._done)}, separators=(",", ":")) + "\n")
            for p in self._pending.values():
                f.write(json.dumps({"put": p.key, "topic": p.topic, "payload": p.payload.decode()},
                                   separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        dfd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
        self._f.close()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND, 0o600)
        self._f = os.fdopen(fd, "a", encoding="utf-8")
        self._lines = (1 if self._done else 0) + len(self._pending)

    def pending(self) -> list[Pending]:
        with self._lock:
            return list(self._pending.values())

    def is_done(self, key: str) -> bool:
        with self._lock:
            return key in self._done

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)

    def close(self) -> None:
        with self._lock:
            self._f.close()
