"""Finished games on disk: one JSON record file (RECORDS.md) per game in the games folder.

Why a folder of plain files: a record is the portable account of a game (``trickref replay``
reads it), so the table keeps them as files people can copy off the card. Each file is written
atomically (tmp, fsync, rename, fsync directory): a power cut leaves the old folder or the new
file, never half a record.

File names read well in a listing and sort by time::

    2026-11-29_2135_hearts_3f9a1c2b_Ana-Ben-Cem-Dee.json

date and time (local, when saved), game, game id, players. The game id is the first 8 hex
digits of the SHA-256 of the record's canonical JSON: the same record saved twice (the journal
saves a finished game again when a power cut came between saving it and starting the next
journal) finds its first file instead of writing a duplicate.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from trickref.engine import records
from trickref.engine.scorekeeper import ScoreSheet, is_scorekeeper_record

from .journal import fsync_dir, private_dir, private_file, write_atomically

_NAME = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})_(?P<time>\d{4})_(?P<game>[a-z0-9-]+)_(?P<id>[0-9a-f]{8})"
    r"(?:_(?P<players>.*))?\.json\Z"
)
_UNSAFE = re.compile(r"[^A-Za-z0-9]+")


class GamesStoreError(ValueError):
    """A games folder or record file that cannot be used, with the path and the reason."""


@dataclass(frozen=True)
class SavedGame:
    """One file in the games folder, described from its name (no need to open it to list it)."""

    path: Path
    saved_at: datetime
    game: str
    game_id: str
    players: tuple[str, ...]  # as in the file name: letters and digits only


def game_id(record: Mapping[str, Any]) -> str:
    """8 hex digits naming this record's content."""
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:8]


def file_name(record: Mapping[str, Any], when: datetime) -> str:
    game = _UNSAFE.sub("-", str(record.get("game", "game"))).strip("-").lower() or "game"
    names = [_UNSAFE.sub("", str(p))[:16] or f"P{i + 1}" for i, p in enumerate(record.get("players", []))]
    players = "-".join(names)
    tail = f"_{players}" if players else ""
    return f"{when:%Y-%m-%d_%H%M}_{game}_{game_id(record)}{tail}.json"


class GamesStore:
    """The games folder: ``save`` a finished game's record dict, ``list_games``, ``read`` one back."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def save(self, record: Mapping[str, Any], when: datetime | None = None) -> Path:
        """Write ``record`` (``engine.records.dump`` output) durably; return its path.

        The record is checked with ``engine.records.parse`` first, so the folder only ever holds
        files that ``trickref replay`` accepts. Saving the same record again returns the
        existing file.
        """
        try:
            _check(record)
        except ValueError as e:
            raise GamesStoreError(f"not saving an invalid game record: {e}") from None
        try:
            private_dir(self.folder, lambda name: bool(_NAME.match(name)) or name.startswith("."))
            for g in self.list_games():
                private_file(g.path)
        except OSError as e:
            raise GamesStoreError(f"{self.folder}: cannot create the games folder: {e.strerror}") from None
        gid = game_id(record)
        existing = self.find(gid)
        if existing is not None:
            return existing.path
        path = self.folder / file_name(record, when or datetime.now())
        data = (json.dumps(record, ensure_ascii=False, indent=1) + "\n").encode()
        try:
            write_atomically(path, data)
        except OSError as e:
            raise GamesStoreError(f"{path}: cannot write the game record: {e.strerror}") from None
        return path

    def replace(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> Path:
        """A saved game corrected after it ended: ``new`` (the same game with the correction,
        its reason and time in the record) saved under the old one's time, then the old file
        removed. A power cut in between leaves both (the corrected one is never lost)."""
        before = self.find(game_id(old))
        path = self.save(new, before.saved_at if before is not None else None)
        if before is not None and before.path != path:
            try:
                before.path.unlink()
                fsync_dir(self.folder)
            except OSError as e:
                raise GamesStoreError(f"{before.path}: the corrected game is saved ({path.name}) but the "
                                      f"uncorrected record could not be removed: {e.strerror}") from None
        return path

    def list_games(self) -> list[SavedGame]:
        """Every saved game, oldest first. Files not named by ``save`` are left out."""
        if not self.folder.is_dir():
            return []
        games: list[SavedGame] = []
        for entry in self.folder.iterdir():
            m = _NAME.match(entry.name)
            if m is None or not entry.is_file():
                continue
            try:
                at = datetime.strptime(f"{m['date']} {m['time']}", "%Y-%m-%d %H%M")
            except ValueError:
                continue
            players = tuple(p for p in (m["players"] or "").split("-") if p)
            games.append(SavedGame(entry, at, m["game"], m["id"], players))
        games.sort(key=lambda g: (g.saved_at, g.path.name))
        return games

    def find(self, gid: str) -> SavedGame | None:
        for g in self.list_games():
            if g.game_id == gid:
                return g
        return None

    def read(self, game: SavedGame | str | os.PathLike[str]) -> records.Record | ScoreSheet:
        """A saved game back: an ``engine.records.Record`` for a dealt game, a scored
        ``ScoreSheet`` for a scorekept one (a name is looked up in the folder)."""
        path = game.path if isinstance(game, SavedGame) else Path(game)
        if not path.is_absolute() and path.parent == Path("."):
            path = self.folder / path
        try:
            data = path.read_bytes()
        except OSError as e:
            raise GamesStoreError(f"{path}: cannot read: {e.strerror}") from None
        try:
            obj = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError):
            obj = None
        try:
            if isinstance(obj, dict) and is_scorekeeper_record(obj):
                return ScoreSheet.from_json(obj)
            return records.parse(data)
        except ValueError as e:
            raise GamesStoreError(f"{path}: {e}") from None


def _check(record: Mapping[str, Any]) -> None:
    """Raise ValueError unless ``record`` is a record ``trickref replay`` accepts: a dealt game's
    (RECORDS.md) or a scorekept game's (``"mode": "scorekeeper"``)."""
    if is_scorekeeper_record(record):
        ScoreSheet.from_json(record)
    else:
        records.parse(record)
