"""The keep-score sheet's journal: a table keeping score for its own cards loses nothing.

Like the referee's journal (``device.journal``, same file format, one fsync per record), every
change to the sheet is on disk before the kiosk shows it as done: the sheet is started, the
first dealer passed on, a hand entered, a correction made, the last of them undone. On the next
start the sheet is rebuilt from the journal and carries on where it stopped.

Records (JSON objects, in order; ``kind`` says which)::

    {"kind": "start", "record": <the sheet's record with no hands: game, players, options, first_dealer>}
    {"kind": "first_dealer", "seat": s}
    {"kind": "hand", "entries": {...}}          # the entries as the sheet keeps them
    {"kind": "correction", "seat": s, "points": p, "reason": "..."}
    {"kind": "amend", "hand": h, "entries": {...}, "reason": "...", "at": "..."}   # hand h (from 1) corrected
    {"kind": "undo"}                            # the last hand, correction or hand correction taken back

The file is ``scorekeep.journal`` in the journal folder, beside the referee's ``table.journal``:
one unfinished refereed game and one unfinished score sheet can wait at the same time. A sheet
ends with ``finish``: its record goes to the games folder (complete at game over, or as it
stands when the table abandons it: a partial record, which ``trickref replay`` reads like any
other) and the journal is emptied, in that order (``Journal.rotate``), so a power cut between
the two saves the same record again rather than losing it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from trickref.engine.errors import RecordError
from trickref.engine.scorekeeper import EntryError, ScoreSheet

from .journal import GameSaver, Journal, JournalError, OpenReport

JOURNAL_NAME = "scorekeep.journal"


class JournalledSheet(ScoreSheet):
    """A ``ScoreSheet`` whose every change is journalled (fsync'd) before it counts.

    A change the journal cannot write is taken back and ``JournalError`` (a ValueError) says
    why; a change the sheet refuses (``EntryError``) is never written."""

    journal: ScorekeepJournal | None = None

    def _log(self, record: dict[str, Any]) -> None:
        if self.journal is not None:
            self.journal.append(record)

    def enter(self, entries: Mapping[str, Any]) -> list[int]:
        pts = super().enter(entries)
        try:
            self._log({"kind": "hand", "entries": self.entries[-1]})
        except JournalError:
            super().undo()
            raise
        return pts

    def correct(self, seat: int, points: int, reason: str = "") -> None:
        super().correct(seat, points, reason)
        try:
            self._log({"kind": "correction", "seat": seat, "points": points, "reason": reason})
        except JournalError:
            super().undo()
            raise

    def amend(self, hand: int, entries: Mapping[str, Any], reason: str = "", at: str = "",
              by: str | None = None) -> dict[str, Any]:
        done = super().amend(hand, entries, reason, at, by)
        record = {"kind": "amend", "hand": hand, "entries": done["entries"], "reason": reason, "at": at}
        if by:
            record["by"] = by
        try:
            self._log(record)
        except JournalError:
            super().undo()
            raise
        return done

    def undo(self) -> dict[str, Any]:
        taken = super().undo()
        try:
            self._log({"kind": "undo"})
        except JournalError:
            self.redo(taken)
            raise
        return taken

    def set_first_dealer(self, seat: int) -> None:
        before = self.first_dealer
        super().set_first_dealer(seat)
        try:
            self._log({"kind": "first_dealer", "seat": seat})
        except JournalError:
            super().set_first_dealer(before)
            raise


def _replay(records: list[Any], path: Path) -> JournalledSheet | None:
    """The sheet the journal's records build, or None for an empty journal."""
    if not records:
        return None
    first = records[0]
    if not isinstance(first, dict) or first.get("kind") != "start" or not isinstance(first.get("record"), dict):
        raise JournalError(f"{path}: the first entry does not start a score sheet ({str(first)[:60]})")
    try:
        plain = ScoreSheet.from_json(first["record"])
    except (RecordError, EntryError) as e:
        raise JournalError(f"{path}: the score sheet it starts cannot be read: {e}") from None
    sheet = JournalledSheet(plain.GAME_ID, plain.n, plain.options, plain.first_dealer, plain.names)
    for i, r in enumerate(records[1:], start=2):
        kind = r.get("kind") if isinstance(r, dict) else None
        try:
            if kind == "hand":
                sheet.enter(r["entries"])
            elif kind == "correction":
                sheet.correct(r["seat"], r["points"], r.get("reason", ""))
            elif kind == "amend":
                sheet.amend(r["hand"], r["entries"], r.get("reason", ""), r.get("at", ""), r.get("by"))
            elif kind == "undo":
                sheet.undo()
            elif kind == "first_dealer":
                sheet.set_first_dealer(r["seat"])
            else:
                raise EntryError(f"unknown entry {str(r)[:60]}")
        except (EntryError, KeyError, TypeError) as e:
            raise JournalError(f"{path}: entry {i} ({kind}) cannot be replayed: {e}") from None
    return sheet


class ScorekeepJournal:
    """The open journal of the keep-score sheet (at most one sheet at a time)."""

    def __init__(self, journal: Journal, sheet: JournalledSheet | None, report: OpenReport) -> None:
        self.journal = journal
        self.sheet = sheet
        self.report = report
        if sheet is not None:
            sheet.journal = self

    @classmethod
    def open(cls, folder: str | os.PathLike[str], games: GameSaver | None = None,
             *, salvage: bool = False) -> ScorekeepJournal:
        """Open (or create) the journal in ``folder``; ``sheet`` is the unfinished sheet it
        holds, rebuilt, or None. ``JournalError`` (``JournalCorrupt`` for damage in the middle)
        says what is wrong with a journal that cannot be used."""
        path = Path(folder) / JOURNAL_NAME
        journal, records, report = Journal.open(path, salvage=salvage, games=games)
        try:
            sheet = _replay(records, path)
        except JournalError:
            journal.close()
            raise
        return cls(journal, sheet, report)

    @property
    def path(self) -> Path:
        return self.journal.path

    def append(self, record: dict[str, Any]) -> None:
        self.journal.append(record)

    def start(self, game: str, players: int, options: Mapping[str, Any] | None, first_dealer: int,
              names: list[str]) -> JournalledSheet:
        """A new sheet, journalled from its first record. The journal must hold no sheet
        (``finish`` the one it holds first)."""
        if self.sheet is not None:
            raise JournalError(f"{self.path}: an unfinished score sheet is still in the journal; finish it first")
        sheet = JournalledSheet(game, players, options, first_dealer, names)
        self.journal.append({"kind": "start", "record": sheet.to_json()})
        sheet.journal = self
        self.sheet = sheet
        return sheet

    def finish(self) -> Path | None:
        """Save the sheet's record (complete or partial) to the games folder and empty the
        journal; the record's path (None when there was no sheet or no hand to keep: an empty
        sheet is simply dropped)."""
        sheet, saved = self.sheet, None
        if sheet is None:
            return None
        if sheet.entries or sheet.corrections or sheet.amendments:
            saved = self.journal.rotate(sheet.to_json())
        else:
            self.journal.rotate()
        sheet.journal = None
        self.sheet = None
        return saved

    def close(self) -> None:
        self.journal.close()
