"""The journal cannot be written (a full disk, a card gone read-only): what the table says.

The table acts on an event only once the journal holds it, so when the disk refuses a write the
table stops right there: the event is kept in memory, with any that come after it, in order,
and the table waits. The words name the journal's file, the disk that holds it (its mount
point, kind and free space) and what to do: make room on that disk, then Resume (the kiosk), or
run the same ``trickref sim`` again (the game resumes from the journal). Nothing before the
refused event is lost, and the event itself is taken again once it can be saved.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

RESUME = "press Resume: the table saves the waiting entry and goes on; nothing is lost."
RUN_AGAIN = ("run the same command again: the game resumes from the journal where it stopped; nothing "
             "before this entry is lost.")


@dataclass(frozen=True)
class StorageFault:
    """Why the journal at ``path`` could not be written, and the disk it is on."""

    path: str
    reason: str  # the system's words: "No space left on device"
    mount: str  # the mount point of the file system holding the journal
    kind: str  # its type (ext4, vfat, tmpfs), or "" when unknown
    free: int  # bytes free for the table's user, when the fault was seen
    total: int

    @property
    def full(self) -> bool:
        return "space" in self.reason.lower() or "quota" in self.reason.lower() or self.free == 0

    def disk(self) -> str:
        """'the disk at /media/usb (vfat)'."""
        return f"the disk at {self.mount}" + (f" ({self.kind})" if self.kind else "")

    def words(self, then: str = RESUME) -> str:
        """One paragraph for a person: what, where, and what to do (``then``: the kiosk's
        Resume; ``RUN_AGAIN`` for ``trickref sim``)."""
        return (f"The table cannot save the game: writing its journal {self.path} failed ({self.reason}). "
                f"{self.disk()[0].upper()}{self.disk()[1:]} has {size(self.free)} free of {size(self.total)}. "
                f"{self.fix()} then {then}")

    def fix(self) -> str:
        if self.full:
            return "Make room on that disk (delete old game records or other files there),"
        return "Check that disk (is it still plugged in, or has it become read-only?),"


def size(n: int) -> str:
    """A byte count for people: '0 bytes', '12 KiB', '3.4 GiB'."""
    if n < 1024:
        return f"{n} byte" + ("" if n == 1 else "s")
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def mount_point(path: str | os.PathLike[str]) -> str:
    """The mount point of the file system holding ``path`` (its folder when it does not exist)."""
    p = Path(os.path.abspath(path))
    while not p.exists():
        p = p.parent
    dev = p.stat().st_dev
    while p.parent != p and p.parent.stat().st_dev == dev:
        p = p.parent
    return str(p)


def fs_kind(mount: str) -> str:
    """The file system type mounted at ``mount`` (Linux: /proc/self/mounts), or ""."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    kind = ""
    for line in lines:  # the last mount at that point is the one in use
        parts = line.split()
        if len(parts) >= 3 and parts[1].replace("\\040", " ") == mount:
            kind = parts[2]
    return kind


def storage_fault(path: str | os.PathLike[str], reason: str) -> StorageFault:
    """The StorageFault for a failed write of ``path``, with its disk's state now."""
    mount = mount_point(path)
    try:
        st = os.statvfs(mount)
        free, total = st.f_bavail * st.f_frsize, st.f_blocks * st.f_frsize
    except OSError:
        free = total = 0
    return StorageFault(str(path), reason, mount, fs_kind(mount), free, total)
