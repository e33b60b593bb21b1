"""A table joined to a club night: its club settings, its one link to the hub, and the table
host's club hook.

``ClubSettings`` are kept in ``<storage home>/club.toml`` (0600: it holds the table's
password), apart from the appliance's ``config.toml``: joining and leaving a night is what the
kiosk's club scene does several times a season, and the file is the ``[club]`` table that
``trickref club table`` prints (``joined = true`` added by the scene). ``load_settings`` never
raises: a file it cannot use comes back not joined, with ``problem`` saying why.

One process has one link per table (the broker knows the table by a fixed client id, and a
second client with the same id would push the first off): ``links.open`` starts it (or returns
the one already running with the same settings) and ``links.close`` ends it. The kiosk's club
scene and the table host share it.

``ClubTable`` is the host's club hook (``TableHost.club``). For a club game (the night's game
and number of players) it

* deals the hub's boards: hand ``h`` of the game is board ``h`` of the table's round, the
  round being the first one the director has started that this table has not played yet
  (``shuffle`` waits, saying so, until that round's deck is here; the table's own salt keeps its
  own per-hand commitment);
* reports the game through ``ClubLink`` as it goes: started (at its first deal), every hand's end,
  and game over after the round's last board (or when the game ends first). Each call is on disk
  in the outbox before the host goes on, so a power cut loses nothing: after a restart the hook
  reports again every hand the journal holds, and the outbox refuses the ones it already has;
* after the round, deals nothing more and says so ("round 1 done").

A game of another game or size is not a club game: the hook stays out of its way and says why.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from trickref.engine.referee import fairness
from trickref.engine.referee.events import Event, NewGame, Shuffled

from . import topics as T
from .link import ClubConfig, ClubLink

log = logging.getLogger("trickref.club.table")

SETTINGS_FILE = "club.toml"
FOLDER = "club"  # under the storage home: the outbox and the round state


@dataclass(frozen=True)
class ClubSettings:
    joined: bool = False
    host: str = ""
    port: int = 1883
    night: str = ""
    table: str = ""
    password: str = ""
    user: str = ""  # empty: the table's name
    ca: str = ""  # the club's CA certificate (TLS); empty: plain MQTT

    def problems(self) -> list[str]:
        """What keeps these settings from joining a night, one line each (empty: usable)."""
        out: list[str] = []
        for key in ("host", "night", "table", "password"):
            if not getattr(self, key).strip():
                out.append(f"club.{key} is empty")
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not 1 <= self.port <= 65535:
            out.append(f"club.port must be a port number from 1 to 65535, not {self.port!r}")
        for key in ("night", "table", "user"):
            v = getattr(self, key)
            if v and not T.NAME.match(v):
                out.append(f"club.{key} {v!r} must be 1 to 32 characters of a-z, 0-9, _ or -")
        if self.ca and not Path(self.ca).expanduser().is_file():
            out.append(f"club.ca: no certificate file {self.ca}")
        return out

    def link_config(self, home: Path, retry: float = 10.0) -> ClubConfig:
        """The link's configuration (ValueError naming the setting when unusable)."""
        bad = self.problems()
        if bad:
            raise ValueError("; ".join(bad))
        return ClubConfig(self.night, self.table, self.password, self.host, self.port,
                          str(Path(home) / FOLDER / f"outbox-{self.night}-{self.table}.jsonl"), retry=retry,
                          user=self.user, ca=str(Path(self.ca).expanduser()) if self.ca else "")

    def with_(self, **changes: Any) -> ClubSettings:
        return replace(self, **changes)


@dataclass
class Loaded:
    settings: ClubSettings
    problem: str | None = None


def settings_path(home: str | os.PathLike[str]) -> Path:
    return Path(home) / SETTINGS_FILE


def load_settings(home: str | os.PathLike[str]) -> Loaded:
    """The table's club settings (not joined when there is no file); never raises."""
    return load_settings_at(settings_path(home))


def load_settings_at(path: Path) -> Loaded:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Loaded(ClubSettings())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        return Loaded(ClubSettings(), f"{path}: cannot read the club settings ({e})")
    club = data.get("club", data)
    if not isinstance(club, Mapping):
        return Loaded(ClubSettings(), f"{path}: [club] must be a table")
    known = {f.name: f.type for f in fields(ClubSettings)}
    values: dict[str, Any] = {}
    for key, value in club.items():
        if key not in known:
            return Loaded(ClubSettings(), f"{path}: club.{key}: unknown setting")
        want = bool if key == "joined" else int if key == "port" else str
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            return Loaded(ClubSettings(), f"{path}: club.{key} must be {want.__name__}, not {value!r}")
        values[key] = value
    s = ClubSettings(**values)
    bad = s.problems() if s.joined else []
    if bad:
        return Loaded(replace(s, joined=False), f"{path}: " + "; ".join(bad))
    return Loaded(s)


def save_settings(home: str | os.PathLike[str], settings: ClubSettings) -> Path:
    """Write ``club.toml`` atomically, 0600 (it holds the password)."""
    import tomlkit

    from .hub import write_private

    doc = tomlkit.document()
    doc.add(tomlkit.comment("trickref club night settings (the kiosk's Club scene writes this file)"))
    doc["club"] = asdict(settings)
    path = settings_path(home)
    Path(home).mkdir(parents=True, exist_ok=True)
    write_private(path, tomlkit.dumps(doc))
    return path


class _Links:
    """The process's club links, one per storage home (a kiosk has one)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, tuple[ClubConfig, ClubLink]] = {}

    def open(self, home: str | os.PathLike[str], settings: ClubSettings, retry: float = 10.0) -> ClubLink:
        """The link for these settings, started if need be (another night's is closed first);
        ValueError for unusable settings."""
        cfg = settings.link_config(Path(home), retry)
        key = str(Path(home).resolve())
        with self._lock:
            have = self._open.get(key)
            if have is not None and have[0] == cfg and not have[1].stopped:
                return have[1]
            if have is not None:
                have[1].close()
            link = ClubLink(cfg)
            self._open[key] = (cfg, link)
            return link

    def get(self, home: str | os.PathLike[str]) -> ClubLink | None:
        with self._lock:
            have = self._open.get(str(Path(home).resolve()))
            return have[1] if have is not None else None

    def close(self, home: str | os.PathLike[str] | None = None) -> None:
        with self._lock:
            keys = [str(Path(home).resolve())] if home is not None else list(self._open)
            for k in keys:
                have = self._open.pop(k, None)
                if have is not None:
                    have[1].close()


links = _Links()


Said = tuple[str, dict[str, Any]]  # English words with {fields}, and their values (the kiosk translates)


def check_round(link: ClubLink, r: int) -> tuple[bool, Said] | None:
    """Once round ``r``'s salts are revealed: whether every deck the hub gave this table is the
    deck it committed to before the round (``fairness.commitment``, the hash the table's own
    fair dealing uses). None until the commitments and salts are both here."""
    commits, salts = link.commitments.get(r), link.salts.get(r)
    if commits is None or salts is None:
        return None
    bad: list[str] = []
    for b in range(len(commits)):
        deck = link.deck_for(r, b)
        if deck is None:
            continue  # never released to this table
        if b >= len(salts) or fairness.commitment(deck, salts[b]) != commits[b]:
            bad.append(str(b + 1))
    if bad:
        return False, ("round {round}: the hub's deck for board {boards} is not the deck it committed to before "
                       "the round", {"round": r + 1, "boards": ", ".join(bad)})
    return True, ("round {round}: every deck the hub gave matches the commitment it published before the round",
                  {"round": r + 1})


class ClubTable:
    """The table host's club hook (see the module's docstring). ``shuffle`` and ``after`` run on
    the host's worker; ``words`` is what the screen shows."""

    def __init__(self, link: ClubLink, state_path: str | os.PathLike[str],
                 wake: Callable[[], None] | None = None) -> None:
        self.link = link
        self.state_path = Path(state_path)
        self.wake = wake  # the host's "look again" (a deck arrived)
        self.state = self._load_state()
        self.club_game: bool | None = None  # None: not decided yet (no game, or night unknown)
        self.said: Said = ("", {})  # (English words, their values): the kiosk translates
        self._seen: tuple[int, bool] | None = None  # (hands ended, over) at the last report
        self.checked: dict[int, tuple[bool, Said]] = {}  # round -> (decks match commitments, words)
        link.add_listener(self._on_change)

    # ---------------------------------------------------------------- state (which round)
    def _load_state(self) -> dict[str, Any]:
        try:
            obj = json.loads(self.state_path.read_text())
            if isinstance(obj, dict) and obj.get("night") == self.link.config.night:
                return obj
        except (OSError, ValueError):
            pass
        return {"night": self.link.config.night, "table": self.link.config.table, "round": None, "played": []}

    def _save_state(self) -> None:
        from .hub import write_private

        write_private(self.state_path, json.dumps(self.state) + "\n")

    @property
    def round(self) -> int | None:
        r = self.state.get("round")
        return r if isinstance(r, int) else None

    def boards(self) -> int | None:
        info = self.link.night_info
        b = info.get("boards") if info else None
        return b if isinstance(b, int) and b > 0 else None

    @property
    def words(self) -> str:
        """What the table waits for or plays now, in English (the kiosk translates ``said``)."""
        text, values = self.said
        return text.format(**values)

    def _say(self, text: str, **values: Any) -> None:
        self.said = (text, values)

    # ---------------------------------------------------------------- the host's calls
    def _is_club_game(self, ref: Any) -> bool | None:
        g = ref.game
        info = self.link.night_info
        if g is None:
            return None
        if info is None:
            self._say("waiting for club night {night}'s description from the hub", night=self.link.config.night)
            return None
        if info.get("game") != g.GAME_ID or info.get("players") != len(g.names):
            self._say("not a club game: night {night} plays {game} for {players} players",
                      night=self.link.config.night, game=str(info.get("game")), players=str(info.get("players")))
            return False
        return True

    def shuffle(self, ref: Any, decks: int, own: Callable[[], Shuffled]) -> Shuffled | None:
        """The next hand's shuffle: the hub's board for a club game, ``own()`` otherwise; None
        while the table must wait (the round's deck is not here yet, or the round is over)."""
        if self.link.closed:  # the table left the night: it deals its own decks again
            self._say("")
            return own()
        if self.club_game is None:
            self.club_game = self._is_club_game(ref)
            if self.club_game is None:
                return None
        if not self.club_game:
            return own()
        g = ref.game
        hand = len(g.hand_results)
        r = self.round
        if r is None or (hand == 0 and r in self.state.get("played", [])):
            fresh = [x for x in self.link.released_rounds() if x not in self.state.get("played", [])]
            if not fresh:
                done = self.state.get("played", [])
                nxt = (max(done) + 2) if done else 1
                self._say("waiting for the director to start round {round}", round=nxt)
                return None
            r = fresh[0]
            self.state.update(round=r)
            self._save_state()
        boards = self.boards()
        if boards is not None and hand >= boards:
            self._say("round {round} done: all {boards} boards played; the next round is a new game",
                      round=r + 1, boards=boards)
            return None
        deck = self.link.deck_for(r, hand)
        if deck is None:
            self._say("waiting for board {board} of round {round} from the club hub", board=hand + 1, round=r + 1)
            return None
        if hand == 0:
            self.link.game_started(r, g.GAME_ID, list(g.names), dict(g.options))
        if boards:
            self._say("club night {night}: round {round}, board {board} of {boards}", night=self.link.config.night,
                      round=r + 1, board=hand + 1, boards=boards)
        else:
            self._say("club night {night}: round {round}, board {board}", night=self.link.config.night,
                      round=r + 1, board=hand + 1)
        return Shuffled(tuple(deck), fairness.new_salt())

    def after(self, event: Event, ref: Any, out: list[Any]) -> None:
        """After every event the host handled: report the hands that ended (and the game)."""
        if isinstance(event, NewGame):
            self.club_game = None
            self._say("")
            self._seen = None
            return
        self.catch_up(ref)  # (a game resumed from the journal is decided here too)

    def catch_up(self, ref: Any) -> None:
        """On the host's worker when the link heard something (a deal, the night's
        description): the hands that ended while the night was not known yet are reported
        now. (A table resumed after a power cut can play a whole hand, the round's last,
        before the hub's description comes back; no event follows it to report it.)"""
        if self.link.closed or ref.game is None:
            return
        if self.club_game is None:
            self.club_game = self._is_club_game(ref)
        if not self.club_game or self.round is None:
            return
        g = ref.game
        seen = (len(g.hand_results), bool(g.over))
        if seen != self._seen:
            self._seen = seen
            self.report(ref)

    def report(self, ref: Any) -> None:
        """Every finished hand of the game (the outbox keeps each once), and the game's end."""
        g = ref.game
        r = self.round
        if g is None or r is None or not ref.fair:
            return
        boards = self.boards()
        done = len(g.hand_results)
        limit = done if boards is None else min(done, boards)
        if limit == 0 and not g.over:
            return
        record = ref.record()
        for h in range(limit):
            key = T.message_key(self.link.config.night, self.link.config.table, "hand", r, h)
            if not self.link.outbox.is_done(key):
                self.link.hand_finished(record, h, r)
        if g.over or (boards is not None and done >= boards):
            self.link.game_over(record, r)
            if r not in self.state.get("played", []):
                self.state.setdefault("played", []).append(r)
                self._save_state()
            if boards:
                self._say("round {round} done: all {boards} boards played; the next round is a new game",
                          round=r + 1, boards=boards)
            else:
                self._say("round {round} done; the next round is a new game", round=r + 1)

    def _on_change(self) -> None:
        for r in list(self.link.salts):
            if r not in self.checked:
                verdict = check_round(self.link, r)
                if verdict is not None:
                    self.checked[r] = verdict
                    if not verdict[0]:
                        text, values = verdict[1]
                        log.error("club: %s", text.format(**values))
        if self.wake is not None:
            self.wake()

    def close(self) -> None:
        self.link.remove_listener(self._on_change)


def read_settings_file(path: str | os.PathLike[str]) -> Loaded:
    """Club settings from any file (``trickref club table``'s output saved, for ``trickref sim
    --club``): joined unless it says ``joined = false``."""
    p = Path(path)
    if not p.is_file():
        return Loaded(ClubSettings(), f"{p}: no such file")
    loaded = load_settings_at(p)
    if loaded.problem is None and not loaded.settings.joined:
        try:
            says = tomllib.loads(p.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            says = {}
        if "joined" not in says.get("club", says):
            joined = replace(loaded.settings, joined=True)
            bad = joined.problems()
            return Loaded(joined) if not bad else Loaded(loaded.settings, f"{p}: " + "; ".join(bad))
    return loaded


def attach_settings(host: Any, settings: ClubSettings, home: str | os.PathLike[str],
                    retry: float = 10.0) -> ClubTable:
    """Join ``host`` to the night of ``settings`` (its outbox and round state under ``home``);
    ValueError naming the setting when they cannot be used."""
    link = links.open(home, settings, retry)
    club = ClubTable(link, Path(home) / FOLDER / f"state-{settings.night}-{settings.table}.json",
                     wake=lambda: host.job(lambda: club.catch_up(host.referee)))
    host.club = club
    return club


def attach(host: Any, home: str | os.PathLike[str]) -> ClubTable | None:
    """Join ``host`` to the club night of ``home``'s club settings, if the table has joined
    one; None otherwise (or when the settings cannot be used: the club scene says why)."""
    loaded = load_settings(home)
    if not loaded.settings.joined:
        return None
    try:
        return attach_settings(host, loaded.settings, home)
    except ValueError as e:
        log.error("club: %s", e)
        return None
