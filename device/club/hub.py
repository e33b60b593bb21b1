"""The club hub: the director's side of a night.

``Night`` is the night's description (game, players per table, tables, rounds, boards per
round, scoring method) with every user's password, kept in ``night.json`` (0600).
``Hub`` connects to the broker as the ``hub`` user and

* draws each round's deck orders with ``secrets`` and a 128-bit salt per board, publishes the
  commitments before the round (``public/commit/<r>``), releases each board's deck to each table
  at the round's start (``to/<t>/deal/<r>/<b>``, retained, readable by that table only) and
  reveals the salts after it (``public/salt/<r>``);
* scores every hand itself (``state.NightState``: the plays replayed against the board dealt),
  journals what it accepts and decides (``journal.Journal``, fsync) before acknowledging it with
  a retained receipt per table and round, and refuses the rest with the reason;
* keeps the standings (``standings.Incremental``: each pass rescores only the boards that
  changed; the director's, and the public page's under Bridgemate's rule) for the page and
  the console to pull (``web.py``): nothing on the broker grows with the night.
"""

from __future__ import annotations

import json
import logging
import os
import random
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from trickref.engine import cards as C
from trickref.engine.games import game_class
from trickref.engine.referee import fairness

from . import scoring
from . import topics as T
from .broker import Broker, acl_text
from .journal import Journal
from .standings import Incremental
from .state import NightState, Refused, digest

log = logging.getLogger("trickref.club.hub")


@dataclass
class Night:
    name: str
    game: str
    players: int
    tables: list[str]
    rounds: int = 2
    boards: int = 4
    method: str = "average"
    options: dict[str, Any] = field(default_factory=dict)
    passwords: dict[str, str] = field(default_factory=dict)
    # seats whose players move one table on (t1 -> t2 -> ... -> t1) after every round, as
    # East-West move in a bridge Mitchell; the others stay. Partnership Spades moves a team.
    moving_seats: list[int] = field(default_factory=list)
    rehearsal: bool = False  # a rehearsal night (``club sim`` plays only these): never a live table's

    def __post_init__(self) -> None:
        T.check_name("night", self.name)
        cls = game_class(self.game)  # RecordError for an unknown game
        if self.players not in cls.PLAYER_COUNTS:
            raise ValueError(f"{self.game} is for {', '.join(map(str, cls.PLAYER_COUNTS))} players, not {self.players}")
        if not self.tables:
            raise ValueError("a night needs at least one table")
        for t in self.tables:
            T.check_name("table", t)
        if len(set(self.tables)) != len(self.tables):
            raise ValueError("table names must differ")
        if len(self.tables) > T.MAX_TABLES:
            raise ValueError(f"a night has at most {T.MAX_TABLES} tables, not {len(self.tables)}")
        if not 1 <= self.rounds <= T.MAX_ROUNDS or not 1 <= self.boards <= T.MAX_BOARDS:
            raise ValueError(f"a night has 1 to {T.MAX_ROUNDS} rounds of 1 to {T.MAX_BOARDS} boards, "
                             f"not {self.rounds} of {self.boards}")
        if self.method not in scoring.METHODS:
            raise ValueError(f"unknown scoring method {self.method!r} (one of {', '.join(scoring.METHODS)})")
        bad = [x for x in self.moving_seats if isinstance(x, bool) or not isinstance(x, int)
               or not 0 <= x < self.players]
        if bad or len(set(self.moving_seats)) != len(self.moving_seats):
            raise ValueError(f"moving seats must be different seats from 1 to {self.players}")
        if cls.TEAMS and sorted(self.moving_seats) not in ([], [0, 2], [1, 3]):
            raise ValueError("in partnership Spades a whole team moves: seats 1 and 3, or 2 and 4")
        for user in [T.HUB_USER, T.DIRECTOR_USER, *self.tables]:
            self.passwords.setdefault(user, secrets.token_urlsafe(18))
        self.passwords.pop("viewer", None)  # (an older night's page user: the page is the hub's now)

    def home(self, round_: int, table: str, seat: int) -> tuple[str, int]:
        """The player sitting at ``table``/``seat`` in round ``round_`` (0-based), named by
        where they sat in the first round."""
        if seat not in self.moving_seats:
            return table, seat
        i = self.tables.index(table)
        return self.tables[(i - round_) % len(self.tables)], seat

    def tables_in_round(self, round_: int) -> list[str]:
        """The tables dealt round ``round_``'s boards."""
        return list(self.tables)

    def broker_users(self) -> dict[str, str]:
        """The broker's users and passwords: the hub and the tables (the director's password is
        the console's, never the broker's)."""
        return {u: p for u, p in self.passwords.items() if u != T.DIRECTOR_USER}

    def seating(self, round_: int) -> dict[str, list[str]]:
        """Who sits where in a round: per table, each seat's player ("t3/2": the player who
        started at table t3, seat 2)."""
        return {t: [f"{h}/{s + 1}" for h, s in (self.home(round_, t, s) for s in range(self.players))]
                for t in self.tables}

    def save(self, path: Path) -> None:
        write_private(path, json.dumps(asdict(self), indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> Night:
        try:
            obj = json.loads(path.read_text())
        except OSError as e:
            raise ValueError(f"cannot read the night file {path}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"the night file {path} is not JSON: {e.msg} at line {e.lineno}") from None
        try:
            return cls(**obj)
        except TypeError as e:
            raise ValueError(f"the night file {path} does not describe a night: {e}") from None


def write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def draw_deals(night: Night, rng: random.Random | None = None) -> dict[str, Any]:
    """Every round's deck orders (``secrets``, or ``rng`` where a test needs the same boards
    every run) with a fresh 128-bit salt and commitment each."""
    decks = game_class(night.game).DECKS
    if rng is None:
        rng = secrets.SystemRandom()
    out: dict[str, Any] = {}
    for r in range(night.rounds):
        boards = []
        for _ in range(night.boards):
            order = C.full_deck(decks)
            rng.shuffle(order)
            deck = C.names(order)
            salt = fairness.new_salt()
            boards.append({"deck": deck, "salt": salt, "commitment": fairness.commitment(deck, salt)})
        out[str(r)] = boards
    return out


class Hub:
    """The director's side of a night on the broker: deals, rounds, results, receipts.

    Its state (``state.NightState``) is rebuilt at every start from ``journal.jsonl`` (each
    line through the same checks as live, a bad one quarantined). It connects as the ``hub``
    user with MQTT 5 on a persistent session and subscribes to the tables' topics with
    *retain as published*, so it sees a table that writes a retained message: that message is
    erased at once (an empty retained publish) and refused. On every connection (its first, a
    broker restart, a network cut) it republishes the night's state: the night, every round's
    commitments, each open round's seating and decks to the tables still playing it, ended
    rounds' salts, and every table's receipts.
    """

    def __init__(self, night: Night, folder: Path, host: str = "127.0.0.1", port: int = 1883,
                 clock: Callable[[], float] = time.time) -> None:
        self.night = night
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        self.host, self.port = host, port
        self.clock = clock
        self.lock = threading.RLock()
        self.problems: list[str] = []  # what went wrong with the stored data, for the director
        self.deals = self._load_deals()
        self.state = NightState(night, self.deals)
        self.journal = Journal(self.folder / JOURNAL)
        self._legacy_results()
        self._replay_journal()
        self.journal.open()
        self.log: list[dict[str, Any]] = []  # the director's actions and the refusals, newest last
        self.seq = 0
        self._standings: tuple[int, dict[str, Any]] = (-1, {})  # the director's: (changes, document)
        self.public: dict[str, Any] = {}  # the page's standings, without the boards (below)
        self.public_boards: dict[str, Any] = {}  # the page's board results (``/boards.json``)
        self.connected = threading.Event()
        self.broker_since = time.time()  # when the broker connection last came or went
        self.connects = 0
        self.boot = secrets.token_hex(4)
        self.error: str | None = None
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=T.HUB_USER, protocol=mqtt.MQTTv5)
        c.username_pw_set(T.HUB_USER, night.passwords[T.HUB_USER])
        c.reconnect_delay_set(1, 5)
        c.on_connect = self._on_connect
        c.on_subscribe = self._on_subscribe
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        self.client = c
        self._changes = 0  # what was accepted or decided; the standings thread catches up with this
        self._shown = 0
        self._new: dict[str, float | None] = {}  # hands accepted since the last standings: sent time
        self._dirty = threading.Condition(self.lock)
        self._stopping = False
        self._full_standings = Incremental(full=True)  # the director's, kept from pass to pass
        self._full_lock = threading.Lock()
        self._public_standings = Incremental()  # the page's: a pass rescores only what changed
        self._listeners: list[Callable[[], None]] = []
        self._receipted: dict[tuple[str, int], float] = {}  # (table, round) -> receipts last published
        self._to_receipt: set[tuple[str, int]] = set()  # accepted since the last group commit
        self._commit = threading.Condition(self.lock)
        self._recompute()
        self._scorer = threading.Thread(target=self._standings_loop, name="club-standings", daemon=True)
        self._committer = threading.Thread(target=self._commit_loop, name="club-commit", daemon=True)

    # ------------------------------------------------------------------ stored data
    def _load_deals(self) -> dict[str, Any]:
        path = self.folder / "deals.json"
        if path.exists():
            try:
                deals = json.loads(path.read_text())
                check_deals(self.night, deals)
                return dict(deals)
            except (OSError, ValueError, TypeError, KeyError, RecursionError) as e:
                bad = path.with_name(f"deals.json.bad-{int(time.time())}")
                os.replace(path, bad)
                words = (f"the stored decks ({path}) could not be used ({str(e)[:200]}): kept as {bad.name}; new "
                         "decks drawn and committed to (results of the old decks will not replay)")
                log.error("club hub: %s", words)
                self.problems.append(words)
        deals = draw_deals(self.night)
        write_private(path, json.dumps(deals))
        return deals

    def _legacy_results(self) -> None:
        """An older hub's results.jsonl (results without their plays) cannot be checked: it is
        quarantined whole, once."""
        old = self.folder / "results.jsonl"
        if not old.exists():
            return
        try:
            lines = old.read_bytes().split(b"\n")
        except OSError as e:
            lines = []
            self.problems.append(f"{old}: unreadable ({e.strerror})")
        for i, raw in enumerate(lines):
            if raw.strip():
                self.journal.quarantine(i + 1, raw[:MAX_LINE_TEXT].decode("utf-8", "replace"),
                                        "results.jsonl of an older hub: a result without its plays cannot be checked")
        os.replace(old, old.with_name("results.jsonl.old"))

    def _replay_journal(self) -> None:
        keep: list[str] = []
        bad = 0
        for line, obj, text, why in self.journal.read():
            if obj is None:
                self.journal.quarantine(line, text, why)
                bad += 1
                continue
            try:
                self._apply(obj)
            except Exception as e:  # noqa: BLE001 - whatever a stored line holds, the hub starts
                self.journal.quarantine(line, text, str(e)[:300] or type(e).__name__)
                bad += 1
                continue
            keep.append(text)
        if bad:
            self.problems.append(f"{bad} stored line(s) quarantined in {self.journal.quarantine_path} (see the reasons there)")
            self.journal.rewrite(keep)

    def _apply(self, obj: Mapping[str, Any]) -> None:
        """One journal line, as the hub did it live (ValueError when it cannot be)."""
        kind = obj["t"]
        at = float(obj.get("at", 0))
        if kind == "msg":
            topic, payload = str(obj["topic"]), str(obj["payload"]).encode("utf-8")
            verdict, words, _ = self.state.offer(topic, payload, at, keep_refusals=False)
            if verdict != "accepted":
                raise ValueError(f"{verdict}: {words}")
        elif kind == "round":
            r = obj["round"]
            if isinstance(r, bool) or not isinstance(r, int):
                raise ValueError(f"round {r!r}")
            try:
                if obj["action"] == "start":
                    self.state.start_round(r, at)
                elif obj["action"] == "end":
                    forced = obj.get("forced")
                    self.state.end_round(r, at, str(forced) if forced else None)
                else:
                    raise ValueError(f"unknown round action {obj['action']!r}")
            except Refused as e:
                raise ValueError(str(e)) from None
        elif kind == "roster":
            try:
                self.state.set_roster(list(obj["names"]), str(obj["style"]), int(obj.get("seed", 0)),
                                      stored=obj.get("movement"))
            except Refused as e:
                raise ValueError(str(e)) from None
        elif kind == "correction":
            try:
                c = self.state.correct(str(obj["kind"]), str(obj["table"]), int(obj["round"]), int(obj["board"]), at,
                                       str(obj.get("reason", "")), obj.get("points"), obj.get("scores"))
            except Refused as e:
                raise ValueError(str(e)) from None
            if c.id != obj.get("id"):
                raise ValueError(f"correction #{obj.get('id')} read back as #{c.id}")
        elif kind == "withdraw":
            try:
                self.state.withdraw(int(obj["id"]), at)
            except Refused as e:
                raise ValueError(str(e)) from None
        elif kind == "night":
            try:
                self.state.end_night(at)
            except Refused as e:
                raise ValueError(str(e)) from None
        elif kind == "refused":
            topic = str(obj.get("topic", "?"))[:200]
            self.state.remember(topic, _table_of(self.night.name, topic), str(obj.get("reason", "?"))[:500], at)
        else:
            raise ValueError(f"unknown journal entry {kind!r}")

    # ------------------------------------------------------------------ life
    def start(self, timeout: float = 10.0) -> Hub:
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 14 * 24 * 3600
        # at most RECEIVE_MAXIMUM unacknowledged results in flight to the hub: paho handles every
        # packet it has read before it writes, so a backlog of hundreds (a busy 200-table round
        # on a loaded machine) sent at once held back its acknowledgements and pings for longer
        # than its keepalive, and the broker dropped it (then every table sent again)
        props.ReceiveMaximum = RECEIVE_MAXIMUM
        self.client.connect_async(self.host, self.port, keepalive=15, clean_start=False, properties=props)
        self.client.loop_start()
        if not self.connected.wait(timeout):
            self.client.loop_stop()
            raise RuntimeError(self.error or f"the hub could not reach the broker at {self.host}:{self.port}")
        self._scorer.start()
        self._committer.start()
        return self

    def stop(self) -> None:
        with self._dirty:
            self._stopping = True
            self._dirty.notify_all()
            self._commit.notify_all()
        if self._scorer.is_alive():
            self._scorer.join(5)
        if self._committer.is_alive():
            self._committer.join(5)
        self.client.disconnect()
        self.client.loop_stop()
        self.journal.close()

    def republish(self) -> None:
        """The night's state, again: the night, every round's commitments, each open round's
        seating and decks to the tables that have not finished it, ended rounds' salts, every
        table's receipts (idempotent for the tables)."""
        self._publish(T.public_topic(self.night.name, "night"), self.public_night(), retain=True)
        for r in range(self.night.rounds):
            self.commit_round(r)
        with self.lock:
            rounds = {r: rs.ended is None for r, rs in self.state.rounds.items()}
        for r, open_ in sorted(rounds.items()):
            if open_:
                self._release(r, only_waiting=True)
            else:
                self._reveal(r)
        self._publish_receipts(*[(t, r) for t in self.night.tables for r in (rounds or [0])])
        self._publish_seating()

    def public_night(self) -> dict[str, Any]:
        n = self.night
        with self.lock:
            opened = sorted(r for r, rs in self.state.rounds.items() if rs.ended is None)
        return {"night": n.name, "game": n.game, "players": n.players, "tables": n.tables,
                "rounds": n.rounds, "boards": n.boards, "method": n.method, "options": n.options,
                "moving_seats": n.moving_seats, "open_rounds": opened, "rehearsal": n.rehearsal,
                # which connection of which hub: a table sends again what has no receipt only
                # when this changes (the hub may have missed it), not at every round's start
                "hub": f"{self.boot}:{self.connects}"}

    # ------------------------------------------------------------------ the director
    def commit_round(self, r: int) -> None:
        boards = self.deals[str(r)]
        self._publish(T.public_topic(self.night.name, "commit", r),
                      {"round": r, "commitments": [b["commitment"] for b in boards]}, retain=True)

    def commit_all(self) -> None:
        for r in range(self.night.rounds):
            self.commit_round(r)

    def start_round(self, r: int, who: str = "director") -> str:
        """Release round ``r``'s decks (Refused says why not: rounds go in order, each after
        the one before has ended). Journaled before anything is published."""
        with self.lock:
            at = self.clock()
            self.state.check_start(r)
            self.journal.append({"t": "round", "action": "start", "round": r, "at": at, "by": who})
            self.state.start_round(r, at)
            self._changed()
        self._publish(T.public_topic(self.night.name, "night"), self.public_night(), retain=True)
        self._release(r)
        self._publish_receipts(*[(t, r) for t in self.night.tables])
        words = f"round {r + 1} started: its decks are out to the tables"
        self._note(words)
        return words

    def end_round(self, r: int, forced: str | None = None, who: str = "director") -> str:
        """End round ``r``: its salts and decks are revealed, its results final. Before every
        table is done it needs ``forced``, the director's reason (logged); Refused otherwise."""
        with self.lock:
            at = self.clock()
            left = self.state.check_end(r, forced)
            entry: dict[str, Any] = {"t": "round", "action": "end", "round": r, "at": at, "by": who}
            if left:
                entry["forced"] = forced
            self.journal.append(entry)
            self.state.end_round(r, at, forced)
            self._changed()
        self._publish(T.public_topic(self.night.name, "night"), self.public_night(), retain=True)
        self._reveal(r)
        for t in self.night.tables:  # the decks are public now: nothing of them stays retained
            for b in range(self.night.boards):
                self._publish(T.deal_topic(self.night.name, t, r, b), None, retain=True)
        words = f"round {r + 1} ended: its salts are revealed"
        if left:
            words += f" (ended by the director before {', '.join(left)} finished: {T.clean_name(forced, 300)})"
        self._note(words)
        return words

    def set_roster(self, names: list[str], style: str, seed: int = 0) -> str:
        """The night's roster (names, once) and its movement, before round 1: journaled, and every
        round's seating sent to the tables (their kiosks show who sits where)."""
        with self.lock:
            mv = self.state.set_roster(names, style, seed)
            self.journal.append({"t": "roster", "names": list(self.state.roster), "style": style, "seed": seed,
                                 "movement": mv.to_json(), "at": self.clock()})
            self._changed()
        self._publish_seating()
        words = (f"roster of {len(self.state.roster)} players, {style} movement over "
                 f"{len(mv.rounds[0])} tables" + "".join(f"; {w}" for w in mv.warnings()))
        self._note(words)
        return words

    def _publish_seating(self) -> None:
        with self.lock:
            if self.state.movement is None:
                return
            seatings = {r: self.state.seating(r) for r in range(self.night.rounds)}
        for r, seating in seatings.items():
            for t in self.night.tables:
                self._publish(T.seat_topic(self.night.name, t, r),
                              {"round": r, "table": t, "seats": [x["name"] for x in seating.get(t, [])]}, retain=True)

    def correct(self, kind: str, table: str, r: int, board: int, reason: str = "",
                points: list[int] | None = None, scores: list[Any] | None = None) -> str:
        """A director's correction (``state.NightState.correct``): journaled, logged, in the
        standings at once."""
        with self.lock:
            at = self.clock()
            c = self.state.correct(kind, table, r, board, at, reason, points, scores)
            entry: dict[str, Any] = {"t": "correction", "id": c.id, "kind": kind, "table": table, "round": r,
                                     "board": board, "reason": reason, "at": at}
            if c.points is not None:
                entry["points"] = c.points
            if c.scores is not None:
                entry["scores"] = c.scores
            self.journal.append(entry)
            self._changed()
        words = "correction " + c.words()
        self._note(words)
        return words

    def withdraw(self, cid: int) -> str:
        with self.lock:
            at = self.clock()
            c = self.state.withdraw(cid, at)
            self.journal.append({"t": "withdraw", "id": cid, "at": at})
            self._changed()
        words = f"correction #{c.id} withdrawn"
        self._note(words)
        return words

    def end_night(self) -> str:
        with self.lock:
            at = self.clock()
            self.state.end_night(at)
            self.journal.append({"t": "night", "action": "end", "at": at})
            self._changed()
        words = "the night has ended: the results are final"
        self._note(words)
        return words

    def _release(self, r: int, only_waiting: bool = False) -> None:
        with self.lock:
            tables = self.state.dealt(r)
            if only_waiting:
                tables = [t for t in tables if not self.state.table_done(t, r)]
            seating = self.state.seating(r)
        for t in tables:
            self._publish(T.seat_topic(self.night.name, t, r),
                          {"round": r, "table": t, "seats": [x["name"] for x in seating.get(t, [])]}, retain=True)
            for b, board in enumerate(self.deals[str(r)]):
                self._publish(T.deal_topic(self.night.name, t, r, b),
                              {"round": r, "board": b, "deck": board["deck"]}, retain=True)

    def _reveal(self, r: int) -> None:
        boards = self.deals[str(r)]
        self._publish(T.public_topic(self.night.name, "salt", r),
                      {"round": r, "salts": [b["salt"] for b in boards], "decks": [b["deck"] for b in boards]},
                      retain=True)

    def _note(self, words: str, kind: str = "director") -> None:
        log.info("club hub: %s", words)
        with self.lock:
            self.log.append({"at": self.clock(), "kind": kind, "words": words})
            del self.log[:-500]

    # ------------------------------------------------------------------ messages
    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object, rc: Any,
                    props: object = None) -> None:
        code = rc.value if hasattr(rc, "value") else int(rc)
        if code != 0:
            self.error = f"the broker refused the hub: {rc}"
            log.error("%s", self.error)
            return
        self.error = None
        opts = mqtt.SubscribeOptions(qos=1, retainAsPublished=True)
        # connected (and ``start`` returns) only at the broker's SUBACK: a table message sent
        # between the CONNACK and the subscription's arrival would reach nobody on a new session
        client.subscribe(f"{T.night_root(self.night.name)}/{T.TABLE}/#", options=opts)

    def _on_subscribe(self, client: mqtt.Client, userdata: object, mid: int, codes: Any,
                      props: object = None) -> None:
        bad = [c for c in codes if (c.value if hasattr(c, "value") else int(c)) >= 0x80]
        if bad:
            self.error = f"the broker refused the hub's subscription to the tables' messages: {bad[0]}"
            log.error("%s", self.error)
            return
        self.connects += 1
        self.connected.set()
        self.broker_since = time.time()
        self._tell()
        # the broker may have lost what it held (a crash before its last save): say it all again
        threading.Thread(target=self.republish, name="club-republish", daemon=True).start()

    def _on_disconnect(self, *args: Any) -> None:
        if self.connected.is_set():
            self.broker_since = time.time()
        self.connected.clear()
        self._tell()

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        try:
            if msg.retain and msg.payload:
                # a table's message is never retained: erase it from the broker, and refuse it
                self._publish(msg.topic, None, retain=True)
                with self.lock:
                    self.state._refuse(msg.topic[:200], _table_of(self.night.name, msg.topic),
                                       "a retained message (a table's messages are never retained): erased",
                                       digest(bytes(msg.payload)), self.clock())
                return
            if not msg.payload:
                return
            self.receive(msg.topic, bytes(msg.payload))
        except Exception:  # a bug must not stop the hub's network loop
            log.exception("club hub: message on %s", msg.topic[:200])

    def receive(self, topic: str, payload: bytes) -> bool:
        """One table message: accepted (journaled, then acknowledged), a duplicate (acknowledged
        again) or refused (the reason kept for the director, logged once). True if accepted."""
        with self.lock:
            at = self.clock()
            refusals = len(self.state.refusals)
            verdict, words, m = self.state.offer(topic, payload, at)
            if verdict == "accepted":
                assert m is not None
                # queued: the committer writes it to disk with the others received meanwhile (one
                # fsync) before the receipt that acknowledges it, and the standings show it only then
                self.journal.write({"t": "msg", "topic": topic, "payload": payload.decode("utf-8"), "at": at})
                self._to_receipt.add((m.table, m.round))
                self._commit.notify()
                if m.kind == "hand":
                    sent = m.body.get("sent")
                    self._new[m.key] = float(sent) if isinstance(sent, (int, float)) else None
                self._changed()
            elif verdict == "refused" and len(self.state.refusals) > refusals:
                log.warning("club hub: refused a message on %s: %s", topic[:120], words)
                self.log.append({"at": at, "kind": "refused", "words": words})
                del self.log[:-500]
                if len(self.state.refusals) <= 200:  # the first ones are kept across a restart
                    self.journal.write({"t": "refused", "topic": topic[:200], "reason": words, "at": at})
                self._changed()
            if verdict == "duplicate":  # its receipt was lost, or is on its way: say it again
                where = self.state.topic_where.get(topic)
                # (not again within a few seconds: a hub behind its queue gets a table's copies just
                # after it receipted the first one, and a receipt per copy only made it later still)
                if where is not None and time.monotonic() - self._receipted.get(where, -DUPLICATE_RECEIPT_AFTER) \
                        >= DUPLICATE_RECEIPT_AFTER:
                    self._to_receipt.add(where)
                    self._commit.notify()
        return verdict == "accepted"

    def _commit_loop(self) -> None:
        """Group commit: the results accepted since the last pass go to disk with one write and
        one fsync (``Journal.sync``), then each (table, round) among them gets one receipt. The
        network thread meanwhile goes on reading and checking results: it never waits on the
        disk, and a burst costs one fsync, not one per result."""
        while True:
            with self._commit:
                while not self._to_receipt and not self._stopping:
                    self._commit.wait()
                if self._stopping and not self._to_receipt:
                    return
                wheres, self._to_receipt = self._to_receipt, set()
            try:
                self._publish_receipts(*sorted(wheres))
            except Exception:  # (a disk error: nothing is acknowledged; try again)
                log.exception("club hub: writing the journal")
                with self._commit:
                    self._to_receipt |= wheres
                    if self._stopping:
                        return
                    self._commit.wait(1.0)

    @property
    def dropped(self) -> list[str]:
        """The refusals' reasons (tests)."""
        with self.lock:
            return [r.reason for r in self.state.refusals.values()]

    @property
    def duplicates(self) -> int:
        return self.state.duplicates

    # ------------------------------------------------------------------ standings
    def _changed(self) -> None:
        self._changes += 1
        self._dirty.notify_all()

    def _recompute(self, new: dict[str, float | None] | None = None) -> None:
        self.seq += 1
        self.public, self.public_boards = split_boards(self._public_standings.update(self.state, self.seq, new),
                                                       self.state)

    @property
    def standings(self) -> dict[str, Any]:
        """The director's standings (every board): computed when asked (the console, the
        exports, tests), once per change, not with every result the page gets."""
        with self.lock:
            changes, seq = self._changes, self.seq
            if self._standings[0] == changes:
                return self._standings[1]
            snap = self.state.snapshot()
            upto = self.journal.written
        with self._full_lock:
            doc = self._full_standings.update(snap, seq)
        self.journal.sync(upto)
        with self.lock:
            self._standings = (changes, doc)
        return doc

    def _standings_loop(self) -> None:
        """Recompute the standings whenever something was accepted or decided: one pass for
        everything meanwhile, so a burst (tables catching up) costs one pass, not one per
        message. Computed on a copy, outside the lock: accepting results never waits for it."""
        while True:
            with self._dirty:
                while self._shown == self._changes and not self._stopping:
                    self._dirty.wait()
                if self._stopping:
                    return
                target, new = self._changes, self._new
                self._new = {}
                snap = self.state.snapshot()
                upto = self.journal.written
                self.seq += 1
                seq = self.seq
            public: dict[str, Any] | None
            try:
                public = self._public_standings.update(snap, seq, new)
                self.journal.sync(upto)  # (shown only once on disk: the committer has usually done it)
            except Exception:  # a bug must not stop the standings
                log.exception("club hub: recomputing the standings")
                public = None
            with self._dirty:
                if public is not None:
                    self.public, self.public_boards = split_boards(public, snap)
                self._shown = target
                self._dirty.notify_all()
            self._tell()

    def add_listener(self, fn: Callable[[], None]) -> None:
        """``fn()`` after new standings or a change of the broker connection (the page)."""
        self._listeners.append(fn)

    def _tell(self) -> None:
        for fn in list(self._listeners):
            try:
                fn()
            except Exception:
                log.exception("club hub: a listener failed")

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until the standings include every accepted result (tests, benchmarks)."""
        deadline = time.monotonic() + timeout
        with self._dirty:
            while self._shown != self._changes:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._dirty.wait(left)
            return True

    def _publish_receipts(self, *wheres: tuple[str, int]) -> None:
        """The receipts of each (table, round) in ``wheres``: every key the hub accepted, once
        the journal holds it on disk (a receipt is the acknowledgement: the table then forgets
        the message)."""
        with self.lock:
            keys = {w: self.state.keys_of(*w) for w in wheres}
            upto = self.journal.written  # (every key above was journaled before this)
            now = time.monotonic()
            for w in wheres:
                self._receipted[w] = now
        self.journal.sync(upto)
        for (table, r), ks in keys.items():
            self._publish(T.receipts_round_topic(self.night.name, table, r), {"round": r, "keys": ks}, retain=True)

    def _publish(self, topic: str, body: Mapping[str, Any] | None, retain: bool = False) -> None:
        self.client.publish(topic, b"" if body is None else T.encode(body), qos=1, retain=retain)


def split_boards(doc: dict[str, Any], state: NightState) -> tuple[dict[str, Any], dict[str, Any]]:
    """The page's standings and its board results apart: the boards (the largest part, at 200
    tables some hundreds of KB) go to a page only when they changed (``/boards.json``), the
    standings with every result. ``boards_version`` says when they changed."""
    rows = doc.pop("board_results")
    version = (f"{len(rows)}:{sum(len(b['tables']) for b in rows)}:{len(state.corrections)}:"
               f"{sum(1 for c in state.corrections if c.withdrawn is not None)}")
    doc["boards_version"] = version
    return doc, {"seq": doc["seq"], "boards_version": version, "board_results": rows}


JOURNAL = "journal.jsonl"
RECEIVE_MAXIMUM = 20  # table messages in flight to the hub at once (MQTT 5 Receive Maximum)
DUPLICATE_RECEIPT_AFTER = 3.0  # seconds: a copy gets the receipts again only this long after the last
MAX_LINE_TEXT = 64 * 1024


def check_deals(night: Night, deals: Any) -> None:
    """deals.json as the hub wrote it for this night (ValueError naming what is not)."""
    if not isinstance(deals, dict):
        raise ValueError("not an object of rounds")
    decks = game_class(night.game).DECKS
    want = C.names(C.full_deck(decks))
    for r in range(night.rounds):
        boards = deals.get(str(r))
        if not isinstance(boards, list) or len(boards) != night.boards:
            raise ValueError(f"round {r + 1} has no {night.boards} boards")
        for b, board in enumerate(boards):
            if not isinstance(board, dict) or sorted(board.get("deck") or []) != sorted(want):
                raise ValueError(f"round {r + 1}, board {b + 1}: not a deck of the game")
            if fairness.commitment(board["deck"], str(board.get("salt"))) != board.get("commitment"):
                raise ValueError(f"round {r + 1}, board {b + 1}: its commitment does not match its deck and salt")


def _table_of(night: str, topic: str) -> str:
    parts = topic.split("/")
    root = T.night_root(night).split("/")
    return parts[len(root) + 1][:32] if len(parts) > len(root) + 1 else "?"


def broker_for(night: Night, folder: Path, port: int = 0, host: str = "127.0.0.1") -> Broker:
    """A Mosquitto for ``night``: its users' passwords and the night's ACL, in ``folder``."""
    return Broker(Path(folder), night.broker_users(), acl_text(night.name, night.tables, night.rounds, night.boards),
                  host, port)
