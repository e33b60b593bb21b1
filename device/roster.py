"""The table's memory: its players, the last setup of each game, each player's history, and
which of its two journals was in use. A table at a club or a kitchen remembers who plays.

Why a journal: every change (a player added, a setup changed, a game counted) is one small
record appended and fsync'd before the screen moves on, in the referee journal's format
(``device.journal``: magic, length, CRC-32, JSON; the file is opened, appended to, fsync'd
and closed for each change, so nothing is held open between them), so a power cut at any moment loses nothing
that was confirmed and never leaves half a record that is read as good. The file is
``table-memory.journal`` in the storage home. Records (JSON objects; ``kind`` says which)::

    {"kind": "snapshot", "state": {...}}           # the whole memory (first record after compaction)
    {"kind": "player", "name": "Ana"}              # added to the roster
    {"kind": "forget", "name": "Ana"}              # taken off the roster (the history stays)
    {"kind": "setup", "game": "hearts", "setup": {...}}  # the last setup of a game (and the last game)
    {"kind": "in_use", "what": "referee" | "scorekeep" | null}
    {"kind": "game", "id": "3f9a1c2b", "game": "hearts", "players": [...], "totals": [...],
     "winners": [...]}                             # a finished game, counted in the history

When the file has grown past ``COMPACT_AFTER`` records it is replaced by one snapshot record,
atomically (tmp file, fsync, rename, fsync of the folder): a cut leaves the old file or the new.

History follows the games folder. A finished game is counted once, by its record's id (the
games store's name for it). A refereed game is counted by the table host's worker right after
its record is saved and before its journal is emptied (``CountingStore``), leaving out the bot
seats; a power cut in between leaves the game in the journal, and the resumed game is counted
when the kiosk shows its end. A keep-score sheet (every seat a person) is counted by
``reconcile``, which looks for finished sheets in the games folder not counted yet.

A damaged file (a CRC that does not check out with good records after it, a file that is not a
journal at all, or records that are not the memory's) is never dropped silently: its bytes are
copied aside (``table-memory.journal.damaged-<time>``), every record that still reads is kept
(before and after the damage), and ``notice`` says what happened in words for the screen. A
torn last record (the power went while it was being written; it was never confirmed) is
simply dropped, as the referee's journal does.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .journal import MAX_PAYLOAD, JournalError, encode, private_dir, scan, write_atomically

STORE_NAME = "table-memory.journal"
COMPACT_AFTER = 400  # records before the file is rewritten as one snapshot
MAX_TORN = 16 * 1024  # an unreadable tail longer than this is damage, not a torn last append
NAME_MAX = 14  # as the on-screen keyboard allows


def _low_wins(game: str) -> bool:
    """The lowest total is the best score in ``game`` (its descriptor says; a game this version
    no longer knows: the highest)."""
    from trickref.engine import catalog

    return catalog.known(game) and catalog.info(game).lower_total_wins


IN_USE = ("referee", "scorekeep")
VERSION = 1


class TableMemoryError(ValueError):
    """A change the memory cannot take (a bad name) or cannot write (the disk): in words."""


def clean_name(name: str) -> str:
    """A player's name as the roster keeps it: NFC, spaces collapsed, at most ``NAME_MAX``
    characters. TableMemoryError for an empty name or control characters."""
    text = " ".join(unicodedata.normalize("NFC", str(name)).split())
    if not text:
        raise TableMemoryError("a player's name cannot be empty")
    if any(not ch.isprintable() for ch in text):
        raise TableMemoryError(f"a player's name cannot hold control characters ({text!r})")
    return text[:NAME_MAX]


def name_key(name: str) -> str:
    """What makes two names the same player ("ana" is "Ana"; in Turkish "ÇAĞRI" is "Çağrı":
    the dotted and dotless i are one letter here, whatever the case)."""
    text = unicodedata.normalize("NFC", " ".join(str(name).split()))
    return text.replace("İ", "i").replace("ı", "i").casefold()


@dataclass
class Stats:
    """One player's record at one game."""

    played: int = 0
    won: int = 0
    best: int | None = None  # the best final total (lowest in the Hearts games)


def _empty_state() -> dict[str, Any]:
    """The memory: the roster, the setups, what is in use, the ids of the games counted, and
    per player (by ``name_key``) the name as first counted and their stats per game."""
    return {"version": VERSION, "players": [], "setups": {}, "last_game": None, "in_use": None,
            "counted": [], "history": {}, "results": {}}


class TableMemory:
    """The open memory. ``notice`` is set (words for the screen) when the file was damaged."""

    def __init__(self, path: Path, state: dict[str, Any], notice: str | None = None,
                 compact_after: int = COMPACT_AFTER, records: int = 0) -> None:
        self.path = path
        self._count = records  # records in the file (compacted past ``compact_after``)
        self.state = state
        self.notice = notice
        self.compact_after = compact_after
        self._ids: set[str] = set(state["counted"])
        self._lock = threading.RLock()
        # what was found damaged when opened (reason, offset, unread entries, aside, kept): the
        # kiosk says it in its language; ``notice`` is the same in English (logs, tests)
        self.damage: dict[str, Any] | None = None

    # ---------------------------------------------------------------- opening
    @classmethod
    def open(cls, folder: str | os.PathLike[str], *, compact_after: int = COMPACT_AFTER,
             clock: Any = time.localtime) -> TableMemory:
        """Open (or create) the memory in ``folder``. A damaged file is copied aside and what
        still reads is kept (``notice`` says so); TableMemoryError only when the folder or file
        cannot be opened at all."""
        p = Path(folder) / STORE_NAME
        try:
            private_dir(p.parent)
            data = p.read_bytes() if p.exists() else b""
        except OSError as e:
            raise TableMemoryError(f"{p}: cannot read the table's memory: {e.strerror}") from None
        records, problem = _read_all(data)
        state = _empty_state()
        ids: set[str] = set()
        bad = 0
        for r in records:
            if not _apply(state, r, ids):
                bad += 1
        notice = None
        damage: dict[str, Any] | None = None
        if problem is not None or bad:
            where, reason, lost = problem if problem is not None else (None, None, 0)
            torn = problem is not None and lost <= MAX_TORN and where is not None and where + lost == len(data) \
                and not bad and _is_tail(data, where)
            if not torn:
                aside = p.with_name(f"{p.name}.damaged-{time.strftime('%Y%m%d-%H%M%S', clock())}")
                try:
                    shutil.copyfile(p, aside)
                except OSError as e:
                    raise TableMemoryError(f"{p}: damaged, and it could not be copied aside: {e.strerror}") from None
                what = [f"{reason} at byte {where}" if reason else None,
                        f"{bad} entries it does not understand" if bad else None]
                damage = {"reason": reason, "offset": where, "unread": bad, "aside": aside.name,
                          "kept": len(records) - bad}
                notice = (f"The table's memory (players, setups, history) was damaged "
                          f"({'; '.join(w for w in what if w)}). The file is kept as {aside.name}; "
                          f"the {len(records) - bad} entries that could be read are kept.")
            # start the file afresh from what was read: one snapshot record, written atomically
            try:
                write_atomically(p, encode({"kind": "snapshot", "state": state}))
            except (OSError, JournalError) as e:
                raise TableMemoryError(f"{p}: cannot rewrite the table's memory: {e}") from None
        elif not p.exists():
            try:
                write_atomically(p, b"")  # the file and its folder entry durable
            except OSError as e:
                raise TableMemoryError(f"{p}: cannot create the table's memory: {e.strerror}") from None
        memory = cls(p, state, notice, compact_after, records=1 if problem is not None or bad else len(records))
        memory.damage = damage
        return memory

    def close(self) -> None:
        """Nothing is held open between changes (each one opens, appends, fsyncs, closes)."""

    # ---------------------------------------------------------------- writing
    def _write(self, record: dict[str, Any]) -> None:
        """Durable, then applied (a record the disk refused changes nothing). The kiosk's
        thread and the table host's worker (``CountingStore``) both write: one at a time."""
        with self._lock:
            self._write_locked(record)

    def _write_locked(self, record: dict[str, Any]) -> None:
        data = encode(record)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except OSError as e:
            raise TableMemoryError(f"the table's memory could not be saved: {self.path}: {e.strerror}") from None
        try:
            size = os.fstat(fd).st_size
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            except OSError as e:
                try:  # cut back whatever part went out, so the next record does not follow garbage
                    os.ftruncate(fd, size)
                except OSError:
                    pass
                raise TableMemoryError(f"the table's memory could not be saved: {self.path}: {e.strerror}") from None
        finally:
            os.close(fd)
        _apply(self.state, record, self._ids)
        self._count += 1
        if self._count >= self.compact_after:
            self._compact()

    def compact(self) -> None:
        """Replace the file by one snapshot of the memory (atomically)."""
        with self._lock:
            self._compact()

    def _compact(self) -> None:
        try:
            write_atomically(self.path, encode({"kind": "snapshot", "state": self.state}))
        except (JournalError, OSError) as e:
            raise TableMemoryError(f"the table's memory could not be rewritten: {e}") from None
        self._count = 1

    # ---------------------------------------------------------------- the roster
    @property
    def players(self) -> list[str]:
        """The roster, in the order the names were added."""
        return list(self.state["players"])

    def find(self, name: str) -> str | None:
        key = name_key(name)
        return next((p for p in self.state["players"] if name_key(p) == key), None)

    def add_player(self, name: str) -> str:
        """Add ``name`` to the roster (once: a name already there, in any case, is returned as
        it is kept). TableMemoryError for an empty name or one that cannot be saved."""
        text = clean_name(name)
        known = self.find(text)
        if known is not None:
            return known
        self._write({"kind": "player", "name": text})
        return text

    def forget_player(self, name: str) -> None:
        """Take ``name`` off the roster; its history stays (it comes back if added again)."""
        if self.find(name) is not None:
            self._write({"kind": "forget", "name": self.find(name)})

    # ---------------------------------------------------------------- setups
    @property
    def last_game(self) -> str | None:
        return self.state["last_game"]

    def setup(self, game: str) -> dict[str, Any] | None:
        s = self.state["setups"].get(game)
        return dict(s) if isinstance(s, dict) else None

    def save_setup(self, game: str, setup: Mapping[str, Any]) -> bool:
        """Remember ``game``'s setup (and that it is the last game chosen); False when it was
        already remembered exactly so (nothing written)."""
        plain = _plain(setup)
        if self.state["setups"].get(game) == plain and self.state["last_game"] == game:
            return False
        self._write({"kind": "setup", "game": game, "setup": plain})
        return True

    # ---------------------------------------------------------------- in use
    @property
    def in_use(self) -> str | None:
        """Which journal the table was last working from: the refereed game ("referee") or the
        keep-score sheet ("scorekeep"); a restart resumes that one."""
        return self.state["in_use"]

    def set_in_use(self, what: str | None) -> None:
        if what is not None and what not in IN_USE:
            raise TableMemoryError(f"in use is one of {', '.join(IN_USE)} or nothing, not {what!r}")
        if self.state["in_use"] != what:
            self._write({"kind": "in_use", "what": what})

    # ---------------------------------------------------------------- history
    def counted(self, gid: str) -> bool:
        return gid in self._ids

    def count_game(self, gid: str, game: str, players: list[str], totals: list[int], winners: list[int],
                   skip: Iterable[int] = ()) -> bool:
        """Count a finished game in its players' history (once per game id; ``skip``: seats
        not counted, the bots'); False when it was counted before."""
        record: dict[str, Any] = {"kind": "game", "id": gid, "game": game, "players": list(players),
                                  "totals": [int(t) for t in totals], "winners": [int(w) for w in winners]}
        skipped = sorted(int(s) for s in skip)
        if skipped:
            record["skip"] = skipped
        with self._lock:
            if self.counted(gid):
                return False
            self._write_locked(record)
        return True

    def recount(self, old: str, gid: str, game: str, players: list[str], totals: list[int], winners: list[int],
                skip: Iterable[int] = ()) -> bool:
        """A counted game (id ``old``) corrected after it ended: its players' history takes the
        corrected result (id ``gid``) instead, in one record. False when ``gid`` is counted."""
        record: dict[str, Any] = {"kind": "recount", "old": old, "id": gid, "game": game, "players": list(players),
                                  "totals": [int(t) for t in totals], "winners": [int(w) for w in winners]}
        skipped = sorted(int(s) for s in skip)
        if skipped:
            record["skip"] = skipped
        with self._lock:
            if self.counted(gid):
                return False
            self._write_locked(record)
        return True

    def history(self, name: str) -> dict[str, Stats]:
        """``name``'s games at this table, per game: played, won, best final total."""
        h = self.state["history"].get(name_key(name))
        if not isinstance(h, dict):
            return {}
        return {g: Stats(int(v.get("played", 0)), int(v.get("won", 0)), v.get("best"))
                for g, v in h.get("games", {}).items()}

    def reconcile(self, store: Any) -> int:
        """Count the finished keep-score sheets of ``store`` (a ``GamesStore``) not counted
        yet; how many. (A dealt game's record does not say which seats were bots: those are
        counted when they end, ``CountingStore``.) A record that cannot be read is left out
        (the games folder keeps it as it is)."""
        n = 0
        for saved in store.list_games():
            if self.counted(saved.game_id):
                continue
            result = finished_result(store, saved, sheets_only=True)
            if result is None:
                continue
            game, players, totals, winners = result
            n += self.count_game(saved.game_id, game, players, totals, winners)
        return n


def finished_result(store: Any, saved: Any, sheets_only: bool = False) -> tuple[str, list[str], list[int], list[int]] | None:
    """(game, players, final totals, winners) of a finished saved game; None for an unfinished
    or unreadable one (or a dealt game's, with ``sheets_only``)."""
    import json

    from trickref.engine.scorekeeper import is_scorekeeper_record

    try:
        record = json.loads(Path(saved.path).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or (sheets_only and not is_scorekeeper_record(record)):
        return None
    return _result_of(record)


def _plain(obj: Any) -> Any:
    """JSON's own types (sets and tuples as sorted lists / lists, keys as strings)."""
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (set, frozenset)):
        return sorted(_plain(v) for v in obj)
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def _is_tail(data: bytes, where: int) -> bool:
    """Bytes from ``where`` look like one record cut short (its header, if there is one, says it
    would have been longer than what is there)."""
    rest = data[where:]
    if len(rest) < 12:
        return True
    if rest[:4] != b"TRJ1":
        return all(b == 0 for b in rest)  # zeros up to a block boundary after a cut
    length = int.from_bytes(rest[4:8], "little")
    return length <= MAX_PAYLOAD and 12 + length > len(rest)


def _read_all(data: bytes) -> tuple[list[Any], tuple[int, str, int] | None]:
    """Every record that reads, also past damage; and (offset, reason, bytes unread) of the
    first damage, if any."""
    records: list[Any] = []
    problem: tuple[int, str, int] | None = None
    offset = 0
    while offset < len(data):
        got, good_end, reason, later = scan(data[offset:])
        records.extend(got)
        if reason is None:
            break
        at = offset + good_end
        resume = len(data) if later is None else offset + later
        problem = (at, reason, resume - at) if problem is None else (problem[0], problem[1], problem[2] + resume - at)
        offset = resume
    return records, problem


def _apply(state: dict[str, Any], r: Any, ids: set[str]) -> bool:
    """One record into ``state`` (``ids``: the counted games' ids, kept beside it); False for a
    record that is not the memory's (left out)."""
    if not isinstance(r, dict):
        return False
    kind = r.get("kind")
    try:
        if kind == "snapshot":
            s = r["state"]
            fresh = _empty_state()
            for k in fresh:
                if k in s:
                    fresh[k] = s[k]
            if not (isinstance(fresh["players"], list) and isinstance(fresh["setups"], dict)
                    and isinstance(fresh["counted"], list) and isinstance(fresh["history"], dict)
                    and isinstance(fresh["results"], dict)):
                return False
            state.clear()
            state.update(fresh)
            ids.clear()
            ids.update(str(i) for i in fresh["counted"])
        elif kind == "player":
            name = clean_name(r["name"])
            if all(name_key(p) != name_key(name) for p in state["players"]):
                state["players"].append(name)
        elif kind == "forget":
            key = name_key(r["name"])
            state["players"] = [p for p in state["players"] if name_key(p) != key]
        elif kind == "setup":
            if not isinstance(r["game"], str) or not isinstance(r["setup"], dict):
                return False
            state["setups"][r["game"]] = r["setup"]
            state["last_game"] = r["game"]
        elif kind == "in_use":
            if r["what"] is not None and r["what"] not in IN_USE:
                return False
            state["in_use"] = r["what"]
        elif kind == "game":
            gid = str(r["id"])
            if gid in ids:
                return True
            _count_result(state, gid, _result(r))
            ids.add(gid)
            state["counted"].append(gid)
        elif kind == "recount":  # a counted game corrected after it ended: its new result instead
            gid, old = str(r["id"]), str(r["old"])
            if gid in ids:
                return True
            res = _result(r)
            was = state["results"].pop(old, None)
            if was is not None:
                _uncount_result(state, was)
            _count_result(state, gid, res)
            ids.add(gid)
            state["counted"].append(gid)
        else:
            return False
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
    return True


def _result(r: Mapping[str, Any]) -> dict[str, Any]:
    """A counted game's result as the memory keeps it (checked: ValueError/TypeError/KeyError)."""
    return {"game": str(r["game"]), "players": [str(p) for p in r["players"]],
            "totals": [int(t) for t in r["totals"]], "winners": sorted({int(w) for w in r["winners"]}),
            "skip": sorted({int(x) for x in r.get("skip", ())})}


def _seats(res: Mapping[str, Any]) -> list[tuple[int, str]]:
    """The counted seats of a result (the bots' left out) and their players."""
    return [(seat, who) for seat, who in enumerate(res["players"][:len(res["totals"])]) if seat not in res["skip"]]


def _count_result(state: dict[str, Any], gid: str, res: dict[str, Any]) -> None:
    game = res["game"]
    for seat, who in _seats(res):
        h = state["history"].setdefault(name_key(who), {"name": who, "games": {}})
        st = h["games"].setdefault(game, {"played": 0, "won": 0, "best": None})
        st["played"] += 1
        st["won"] += seat in res["winners"]
        best, total = st["best"], res["totals"][seat]
        if best is None or (total < best if _low_wins(game) else total > best):
            st["best"] = total
    state["results"][gid] = res


def _uncount_result(state: dict[str, Any], res: dict[str, Any]) -> None:
    """Take a result back out of its players' history; their best is found again among the
    results kept (a game counted before results were kept keeps its best)."""
    game = res["game"]
    for seat, who in _seats(res):
        st = state["history"].get(name_key(who), {}).get("games", {}).get(game)
        if st is None:
            continue
        st["played"] = max(0, st["played"] - 1)
        st["won"] = max(0, st["won"] - (seat in res["winners"]))
        if st["best"] == res["totals"][seat]:
            kept = [o["totals"][s] for o in state["results"].values() if o["game"] == game
                    for s, w in _seats(o) if name_key(w) == name_key(who)]
            st["best"] = (min(kept) if _low_wins(game) else max(kept)) if kept else None


class CountingStore:
    """A games store (``GamesStore``) that counts each finished game it saves in the table's
    memory, leaving out the seats ``skip()`` names (the bots). The table host saves a finished
    game's record, then empties its journal: counted in between, a power cut can only leave the
    game in the journal (counted again, once, when it is resumed). A memory that cannot be
    written does not stop the save: ``problem`` is told why."""

    def __init__(self, store: Any, memory: TableMemory, skip: Any = tuple,
                 problem: Any = None) -> None:
        self.store = store
        self.memory = memory
        self.skip = skip
        self.problem = problem

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def save(self, record: Mapping[str, Any], when: Any = None) -> Path:
        path: Path = self.store.save(record, when) if when is not None else self.store.save(record)
        self.count(record)
        return path

    def replace(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> Path:
        """A finished game corrected after it ended: the store keeps the corrected record in
        place of the old, the history counts the corrected result instead of the old one."""
        from .games_store import game_id

        path: Path = self.store.replace(old, new)
        result = _result_of(new)
        if result is None or self.memory.counted(game_id(new)):
            return path
        try:
            if self.memory.counted(game_id(old)):
                self.memory.recount(game_id(old), game_id(new), *result, skip=self.skip())
            else:
                self.memory.count_game(game_id(new), *result, skip=self.skip())
        except TableMemoryError as e:
            if self.problem is not None:
                self.problem(str(e))
        return path

    def count(self, record: Mapping[str, Any]) -> bool:
        from .games_store import game_id

        gid = game_id(record)
        if self.memory.counted(gid):
            return False
        result = _result_of(record)
        if result is None:
            return False
        try:
            return self.memory.count_game(gid, *result, skip=self.skip())
        except TableMemoryError as e:
            if self.problem is not None:
                self.problem(str(e))
            return False


def _result_of(record: Mapping[str, Any]) -> tuple[str, list[str], list[int], list[int]] | None:
    """(game, players, totals, winners) of a finished dealt game's record; None otherwise."""
    from trickref.engine import records as R
    from trickref.engine.scorekeeper import ScoreSheet, is_scorekeeper_record

    try:
        if is_scorekeeper_record(record):
            state: Any = ScoreSheet.from_json(record)
            players = list(state.names)
        else:
            rec = R.parse(record)
            state = R.replay(rec)
            players = list(rec.players)
    except ValueError:
        return None
    if not state.over:
        return None
    return str(state.GAME_ID), players, [int(t) for t in state.totals], [int(w) for w in state.winners]

