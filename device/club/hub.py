"""The club hub: the director's side of a night.

``Night`` is the night's description (game, players per table, tables, rounds, boards per
round, scoring method) with every user's password, kept in ``night.json`` (0600).
``Hub`` connects to the broker as the ``hub`` user on a persistent session and

* draws each round's deck orders with ``secrets`` and a 128-bit salt per board, publishes the
  commitments before the round (``public/commit/<r>``), releases each board's deck to each table
  at the round's start (``to/<t>/deal/<r>/<b>``, retained, readable by that table only) and
  reveals the salts after it (``public/salt/<r>``);
* stores each table message once by its key in ``results.jsonl`` (fsync), answers with a
  retained receipt listing the keys it holds for that table, drops malformed or oversized
  messages with a log line, and refuses to score a hand whose deck is not the board's deck;
* publishes the standings (retained JSON on ``standings``) after every new result.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from trickref.engine import cards as C
from trickref.engine.games import game_class
from trickref.engine.records import parse, replay
from trickref.engine.referee import fairness

from . import scoring
from . import topics as T
from .broker import Broker, acl_text

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
        if self.rounds < 1 or self.boards < 1:
            raise ValueError("a night needs at least one round of at least one board")
        if self.method not in scoring.METHODS:
            raise ValueError(f"unknown scoring method {self.method!r} (one of {', '.join(scoring.METHODS)})")
        bad = [x for x in self.moving_seats if isinstance(x, bool) or not isinstance(x, int)
               or not 0 <= x < self.players]
        if bad or len(set(self.moving_seats)) != len(self.moving_seats):
            raise ValueError(f"moving seats must be different seats from 1 to {self.players}")
        if cls.TEAMS and sorted(self.moving_seats) not in ([], [0, 2], [1, 3]):
            raise ValueError("in partnership Spades a whole team moves: seats 1 and 3, or 2 and 4")
        for user in [T.HUB_USER, T.VIEWER_USER, *self.tables]:
            self.passwords.setdefault(user, secrets.token_urlsafe(18))

    def home(self, round_: int, table: str, seat: int) -> tuple[str, int]:
        """The player sitting at ``table``/``seat`` in round ``round_`` (0-based), named by
        where they sat in the first round."""
        if seat not in self.moving_seats:
            return table, seat
        i = self.tables.index(table)
        return self.tables[(i - round_) % len(self.tables)], seat

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


def draw_deals(night: Night) -> dict[str, Any]:
    """Every round's deck orders (``secrets``) with a fresh 128-bit salt and commitment each."""
    decks = game_class(night.game).DECKS
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
    def __init__(self, night: Night, folder: Path, host: str = "127.0.0.1", port: int = 1883) -> None:
        self.night = night
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.host, self.port = host, port
        self.lock = threading.RLock()
        deals_path = self.folder / "deals.json"
        if deals_path.exists():
            self.deals: dict[str, Any] = json.loads(deals_path.read_text())
        else:
            self.deals = draw_deals(night)
            write_private(deals_path, json.dumps(self.deals))
        self.committed: set[int] = set()
        self.released: set[int] = set()
        self.revealed: set[int] = set()
        self._started = False
        self._score_cache: dict[Any, Any] = {}
        self._record_points: dict[tuple[str, int], list[list[int]]] = {}
        self.messages: dict[str, dict[str, Any]] = {}  # key -> body
        self.dropped: list[str] = []
        self.duplicates = 0
        self.seq = 0
        self.standings: dict[str, Any] = {}
        self._results_path = self.folder / "results.jsonl"
        self._load_results()
        fd = os.open(self._results_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._results = os.fdopen(fd, "a", encoding="utf-8")
        self.connected = threading.Event()
        self.error: str | None = None
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"trickref-hub-{night.name}",
                        clean_session=False, protocol=mqtt.MQTTv311)
        c.username_pw_set(T.HUB_USER, night.passwords[T.HUB_USER])
        c.reconnect_delay_set(1, 5)
        c.on_connect = self._on_connect
        c.on_disconnect = lambda *a: self.connected.clear()
        c.on_message = self._on_message
        self.client = c
        self._changes = 0  # results stored; the standings thread catches up with this count
        self._shown = 0  # results included in self.standings
        self._new: dict[str, float | None] = {}  # hands stored since the last standings: sent time
        self._dirty = threading.Condition(self.lock)
        self._stopping = False
        self._recompute()
        self._scorer = threading.Thread(target=self._standings_loop, name="club-standings", daemon=True)

    # ------------------------------------------------------------------ life
    def start(self, timeout: float = 10.0) -> Hub:
        self.client.connect_async(self.host, self.port, keepalive=15)
        self.client.loop_start()
        if not self.connected.wait(timeout):
            raise RuntimeError(self.error or f"the hub could not reach the broker at {self.host}:{self.port}")
        self._started = True
        self.republish()
        self._scorer.start()
        return self

    def republish(self) -> None:
        """Every retained message the hub owns: the night, commitments, released decks,
        revealed salts, receipts and standings (idempotent for the tables)."""
        self._publish(T.public_topic(self.night.name, "night"), self.public_night(), retain=True)
        with self.lock:
            committed, released, revealed = set(self.committed), set(self.released), set(self.revealed)
        for r in sorted(committed):
            self.commit_round(r)
        for r in sorted(released):
            self.start_round(r)
        for r in sorted(revealed):
            self.reveal_round(r)
        for t in self.night.tables:
            self._publish_receipts(t)
        self._publish_standings()

    def stop(self) -> None:
        with self._dirty:
            self._stopping = True
            self._dirty.notify_all()
        if self._scorer.is_alive():
            self._scorer.join(5)
        self.client.disconnect()
        self.client.loop_stop()
        self._results.close()

    def public_night(self) -> dict[str, Any]:
        n = self.night
        return {"night": n.name, "game": n.game, "players": n.players, "tables": n.tables,
                "rounds": n.rounds, "boards": n.boards, "method": n.method, "options": n.options,
                "moving_seats": n.moving_seats}

    # ------------------------------------------------------------------ deals
    def commit_round(self, r: int) -> None:
        boards = self.deals[str(r)]
        with self.lock:
            self.committed.add(r)
        self._publish(T.public_topic(self.night.name, "commit", r),
                      {"round": r, "commitments": [b["commitment"] for b in boards]}, retain=True)

    def start_round(self, r: int) -> None:
        """Release round ``r``'s decks: every table gets every board (retained, its own topic)."""
        with self.lock:
            self.released.add(r)
        self._publish(T.public_topic(self.night.name, "seating", r),
                      {"round": r, "tables": self.night.seating(r)}, retain=True)
        for t in self.night.tables:
            for b, board in enumerate(self.deals[str(r)]):
                self._publish(T.deal_topic(self.night.name, t, r, b),
                              {"round": r, "board": b, "deck": board["deck"]}, retain=True)

    def reveal_round(self, r: int) -> None:
        boards = self.deals[str(r)]
        with self.lock:
            self.revealed.add(r)
        self._publish(T.public_topic(self.night.name, "salt", r),
                      {"round": r, "salts": [b["salt"] for b in boards], "decks": [b["deck"] for b in boards]},
                      retain=True)

    def commit_all(self) -> None:
        for r in range(self.night.rounds):
            self.commit_round(r)

    def control(self, payload: bytes) -> str:
        """The director's command (``trickref club round``): start or end a round; the answer
        in words, also logged."""
        try:
            obj = json.loads(payload)
            action, r = obj["action"], obj["round"]
            if action not in ("start", "end") or not isinstance(r, int) or not 0 <= r < self.night.rounds:
                raise ValueError
        except (ValueError, KeyError, TypeError, json.JSONDecodeError):
            words = f"ignored a director's command that is not start/end of a round: {payload[:100]!r}"
            log.warning("club hub: %s", words)
            return words
        if action == "start":
            self.start_round(r)
            words = f"round {r + 1} started: its decks are out to the tables"
        else:
            self.reveal_round(r)
            words = f"round {r + 1} ended: its salts are revealed"
        log.info("club hub: %s", words)
        return words

    # ------------------------------------------------------------------ messages
    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object, rc: Any,
                    props: object = None) -> None:
        code = rc.value if hasattr(rc, "value") else int(rc)
        if code != 0:
            self.error = f"the broker refused the hub: {rc}"
            log.error("%s", self.error)
            return
        client.subscribe(f"{T.night_root(self.night.name)}/{T.TABLE}/+/#", qos=1)
        client.subscribe(T.control_topic(self.night.name), qos=1)
        self.connected.set()
        if self._started:  # a broker that crashed may have lost its retained messages: restore them
            threading.Thread(target=self.republish, daemon=True).start()

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        if msg.topic == T.control_topic(self.night.name):
            self.control(bytes(msg.payload))
            return
        try:
            self.receive(msg.topic, bytes(msg.payload))
        except Exception:  # a bug must not stop the hub's network loop
            log.exception("club hub: message on %s", msg.topic)

    def receive(self, topic: str, payload: bytes) -> bool:
        """Store one table message; True if it was new. Bad ones are logged and dropped."""
        try:
            m = T.parse_table_message(self.night.name, topic, payload)
            if m.table not in self.night.tables:
                raise T.BadMessage(f"no table {m.table!r} in night {self.night.name}")
            if not 0 <= m.round < self.night.rounds:
                raise T.BadMessage(f"no round {m.round} (the night has {self.night.rounds})")
            if m.hand is not None and m.hand >= self.night.boards:
                raise T.BadMessage(f"no board {m.hand} (a round has {self.night.boards})")
        except T.BadMessage as e:
            line = f"dropped a message on {topic[:200]!r}: {e}"
            log.warning("club hub: %s", line)
            with self.lock:
                self.dropped.append(line)
            return False
        with self.lock:
            if m.key in self.messages:
                self.duplicates += 1
                self._publish_receipts(m.table)
                return False
            body = dict(m.body)
            problem = self._check(m)
            if problem:
                log.warning("club hub: %s: %s (stored, not scored)", m.key, problem)
                body["problem"] = problem
            body["received"] = time.time()
            self.messages[m.key] = body
            self._store(m.key, body)
            self._changes += 1
            if m.kind == "hand":
                self._new[m.key] = body.get("sent") if isinstance(body.get("sent"), (int, float)) else None
            self._dirty.notify_all()
        self._publish_receipts(m.table)
        return True

    def _check(self, m: T.TableMessage) -> str | None:
        """Why a new message cannot be scored, or None. The game's record is the authority: a
        hand whose points differ from what its table's record replays to is not scored,
        whichever of the two arrived first."""
        if m.kind == "hand":
            assert m.hand is not None
            want = self.deals[str(m.round)][m.hand]["deck"]
            if list(m.body["entry"]["deck"]) != want:
                return f"the deck of hand {m.hand + 1} is not board {m.hand + 1} of round {m.round + 1}"
            if len(m.body["points"]) != self.night.players:
                return f"{len(m.body['points'])} seats' points, the night has {self.night.players} seats"
            rows = self._record_points.get((m.table, m.round))
            if rows is not None and m.hand < len(rows) and rows[m.hand] != m.body["points"]:
                return f"points {m.body['points']} differ from the game record's {rows[m.hand]}"
        if m.kind == "over":
            try:
                state = replay(parse(m.body["record"]))
            except (ValueError, KeyError) as e:
                return f"the record does not replay: {e}"
            rows = [list(r["points"]) for r in state.hand_results]
            self._record_points[(m.table, m.round)] = rows
            for h, row in enumerate(rows):
                key = T.message_key(m.night, m.table, "hand", m.round, h)
                got = self.messages.get(key)
                if got is not None and got["points"] != row and not got.get("problem"):
                    got["problem"] = f"points {got['points']} differ from the game record's {row}"
                    log.warning("club hub: %s: %s (no longer scored)", key, got["problem"])
                    self._store(key, got)
        return None

    def _store(self, key: str, body: dict[str, Any]) -> None:
        """Append a message (or a later verdict on it: the last line of a key wins) to
        results.jsonl, fsync'd."""
        self._results.write(json.dumps({"key": key, "body": body}, separators=(",", ":")) + "\n")
        self._results.flush()
        os.fsync(self._results.fileno())

    def _load_results(self) -> None:
        try:
            lines = self._results_path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return
        for i, line in enumerate(lines):
            try:
                obj = json.loads(line)
                self.messages[str(obj["key"])] = dict(obj["body"])
            except (json.JSONDecodeError, KeyError, TypeError):
                log.warning("club hub: %s line %d unreadable, skipped", self._results_path, i + 1)
        for body in self.messages.values():
            if body.get("kind") == "over" and not body.get("problem"):
                try:
                    state = replay(parse(body["record"]))
                except (ValueError, KeyError):
                    continue
                self._record_points[(str(body["table"]), int(body["round"]))] = [
                    list(r["points"]) for r in state.hand_results]

    # ------------------------------------------------------------------ standings
    def _recompute(self, new: dict[str, float | None] | None = None) -> None:
        self.seq += 1
        self.standings = standings(self.night, self.messages, self.seq, new, self._score_cache)

    def _standings_loop(self) -> None:
        """Recompute and publish the standings whenever results arrived: one recomputation for
        everything stored meanwhile, so a burst (tables catching up) costs one pass, not one
        per message. Computed outside the lock: storing results never waits for it."""
        while True:
            with self._dirty:
                while self._shown == self._changes and not self._stopping:
                    self._dirty.wait()
                if self._stopping:
                    return
                target, new = self._changes, self._new
                self._new = {}
                snapshot = dict(self.messages)
                self.seq += 1
                seq = self.seq
            try:
                doc = standings(self.night, snapshot, seq, new, self._score_cache)
            except Exception:  # a bug must not stop the standings
                log.exception("club hub: recomputing the standings")
                doc = None
            with self._dirty:
                if doc is not None:
                    self.standings = doc
                self._shown = target
                self._dirty.notify_all()
            self._publish_standings()

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until the standings include every stored result (tests, benchmarks)."""
        deadline = time.monotonic() + timeout
        with self._dirty:
            while self._shown != self._changes:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._dirty.wait(left)
            return True

    def _publish_standings(self) -> None:
        with self.lock:
            body = self.standings
        self._publish(T.standings_topic(self.night.name), body, retain=True)

    def _publish_receipts(self, table: str) -> None:
        prefix = f"{self.night.name}/{table}/"
        with self.lock:
            keys = sorted(k for k in self.messages if k.startswith(prefix))
        self._publish(T.receipts_topic(self.night.name, table), {"keys": keys}, retain=True)

    def _publish(self, topic: str, body: Mapping[str, Any], retain: bool = False) -> None:
        self.client.publish(topic, T.encode(body), qos=1, retain=retain)


def board_results(night: Night, messages: Mapping[str, Mapping[str, Any]]) -> dict[scoring.Board, dict[str, list[int]]]:
    """(round, board) -> table -> points, from the stored hand messages that are scored."""
    out: dict[scoring.Board, dict[str, list[int]]] = {}
    for body in messages.values():
        if body.get("kind") != "hand" or body.get("problem"):
            continue
        out.setdefault((int(body["round"]), int(body["hand"])), {})[str(body["table"])] = list(body["points"])
    return out


def player_totals(night: Night, per_board: Mapping[scoring.Board, Mapping[str, list[Fraction]]]
                  ) -> dict[tuple[str, int], Fraction]:
    """Each player's night score (players named by their first-round table and seat): the sum
    of the board scores of wherever they sat in each round."""
    out: dict[tuple[str, int], Fraction] = {}
    for (r, _b), scores in per_board.items():
        for t, row in scores.items():
            for s, v in enumerate(row):
                who = night.home(r, t, s)
                out[who] = out.get(who, Fraction(0)) + v
    return out


def standings(night: Night, messages: Mapping[str, Mapping[str, Any]], seq: int = 0,
              new: Mapping[str, float | None] | None = None, cache: dict[Any, Any] | None = None) -> dict[str, Any]:
    """The standings document the page shows: players ranked, every board's results, progress."""
    boards = board_results(night, messages)
    _, per_board = scoring.night_scores(night.game, boards, night.method, cache)
    totals = player_totals(night, per_board)
    names: dict[tuple[str, int], str] = {}
    progress: dict[str, dict[str, Any]] = {t: {"round": None, "hands": 0, "over": False} for t in night.tables}
    for body in sorted(messages.values(), key=lambda b: (b.get("round", 0), b.get("kind") != "start")):
        t = str(body["table"])
        p = progress[t]
        if body["kind"] == "start":
            for s, nm in enumerate(body.get("players", [])):
                if s < night.players:
                    names.setdefault(night.home(int(body["round"]), t, s), str(nm))
            if p["round"] is None or body["round"] >= p["round"]:
                p.update(round=body["round"], over=False, hands=0)
    for body in messages.values():
        t = str(body["table"])
        p = progress[t]
        if body["round"] == p["round"]:
            if body["kind"] == "hand":
                p["hands"] += 1
            elif body["kind"] == "over":
                p["over"] = True
    played: dict[tuple[str, int], int] = {}
    for (r, _b), res in boards.items():
        for t, pts in res.items():
            for s in range(len(pts)):
                who = night.home(r, t, s)
                played[who] = played.get(who, 0) + 1
    players: list[dict[str, Any]] = [{"table": t, "seat": s, "name": names.get((t, s), f"{t} seat {s + 1}"),
                                      "score": round(float(v), 4), "boards": played.get((t, s), 0)}
                                     for (t, s), v in totals.items()]
    players.sort(key=lambda p: (-p["score"], p["table"], p["seat"]))
    board_rows = [{"round": r, "board": b,
                   "tables": {t: {"points": boards[(r, b)][t], "scores": [round(float(x), 4) for x in sc]}
                              for t, sc in sorted(per_board[(r, b)].items())}}
                  for (r, b) in sorted(per_board)]
    return {"night": night.name, "game": night.game, "method": night.method, "rounds": night.rounds,
            "boards": night.boards, "tables": night.tables, "seq": seq, "players": players,
            "board_results": board_rows, "progress": progress, "new_hands": dict(new or {}),
            "hands_received": sum(1 for b in messages.values() if b.get("kind") == "hand")}


def broker_for(night: Night, folder: Path, port: int = 0, host: str = "127.0.0.1") -> Broker:
    """A Mosquitto for ``night``: its users' passwords and the night's ACL, in ``folder``."""
    return Broker(Path(folder), dict(night.passwords), acl_text(night.name, night.tables), host, port)
