"""The night as the hub knows it: which rounds are open, the results it accepted and the ones
it refused, and why. Pure (no network, no files): ``hub.Hub`` feeds it the tables' messages and
the director's actions, and its journal replays the same calls after a restart.

The hub scores every hand itself. A table's hand result carries the game's record up to that
hand (every deal, pass, bid, draw and play); the hub checks it against the night (game, seats,
options, first dealer), checks that every hand's deck is the board the hub dealt, replays the
plays with the engine and takes the hand's points from the replay. The points the table
claims are only compared: a mismatch or an illegal play is refused, with the reason, for the
director to see. Results are keyed by (table, round, board) and accepted only while the table's
round is open and the board was dealt to it; a refused message blocks nothing (the key stays
free for the genuine result). The plays of a hand, once accepted from a table, are fixed: a
later message of that table carrying other plays for it is refused.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.errors import IllegalAction, RecordError
from trickref.engine.games import game_class
from trickref.engine.options import resolve
from trickref.engine.records import Record, ReplayError, parse

from . import topics as T
from .movement import STYLES, Movement, make

MAX_REFUSALS = 2000  # distinct refused messages remembered (then only counted)
MAX_ROSTER = 4 * T.MAX_TABLES * 2  # players on a roster
CORRECTIONS = ("points", "adjusted", "remove", "note")
MAX_ADJUSTED = 10_000  # an adjusted board score's size
FIRST_DEALER = 0  # every table of a night deals its first hand from seat 1 (duplicate fairness)


class Refused(ValueError):
    """A message the hub will not accept: the text says why (shown to the director). ``final``
    False: the same message may be accepted later (its round has not started yet)."""

    def __init__(self, words: str, final: bool = True) -> None:
        super().__init__(words)
        self.final = final


@dataclass
class HandResult:
    table: str
    round: int
    hand: int
    points: list[int]  # computed by the hub from the plays
    digest: str  # sha256 of the accepted payload: an identical copy is a duplicate
    sent: float | None
    received: float


@dataclass
class RoundState:
    started: float
    ended: float | None = None
    forced: str | None = None  # the director's reason for ending it before every table was done


@dataclass
class Refusal:
    key: str  # the message's topic
    table: str
    reason: str
    first: float
    last: float
    count: int = 1
    final: bool = True  # the same bytes are refused again without looking (a copy sent again)


@dataclass
class Correction:
    """A director's correction, journaled: ``points`` (a table's points on a board replaced),
    ``adjusted`` (a table's board scores set by the director: "avg" or a number per seat; the
    table then leaves that board's comparison), ``remove`` (a table's result on a board no
    longer counts), ``note`` (a ruling, in words)."""
    id: int
    kind: str
    table: str
    round: int
    board: int
    reason: str
    at: float
    points: list[int] | None = None
    scores: list[str | float] | None = None
    withdrawn: float | None = None

    def words(self) -> str:
        where = f"table {self.table}, round {self.round + 1}, board {self.board + 1}"
        what = {"points": f"points set to {self.points}",
                "adjusted": f"adjusted score {', '.join(str(x) for x in self.scores or [])}",
                "remove": "result removed", "note": "ruling"}[self.kind]
        return f"#{self.id} {where}: {what}" + (f" ({self.reason})" if self.reason else "")


@dataclass
class TableRound:
    """What one table sent for one round."""
    players: list[str] | None = None  # cleaned names from its start message
    started: float | None = None
    over: float | None = None
    hands_in_over: int = 0


def digest(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def _actions_json(record: Record, h: int) -> str:
    return json.dumps([A.to_record(s, a) for s, a in record.hands[h][1]], separators=(",", ":"))


@dataclass
class NightState:
    night: Any  # hub.Night (its name, game, players, tables, rounds, boards, options)
    decks: Mapping[str, list[Mapping[str, Any]]]  # deals.json: round -> boards -> {"deck": [...]}
    rounds: dict[int, RoundState] = field(default_factory=dict)
    results: dict[tuple[str, int, int], HandResult] = field(default_factory=dict)
    tables: dict[tuple[str, int], TableRound] = field(default_factory=dict)
    plays: dict[tuple[str, int, int], str] = field(default_factory=dict)  # accepted actions, as JSON
    digests: dict[str, str] = field(default_factory=dict)  # accepted key -> payload digest
    topic_digests: dict[str, str] = field(default_factory=dict)  # accepted topic -> payload digest
    topic_where: dict[str, tuple[str, int]] = field(default_factory=dict)  # accepted topic -> (table, round)
    # accepted keys per (table, round), sorted: a receipt names them without a scan of the night
    round_keys: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    refusals: OrderedDict[tuple[str, str], Refusal] = field(default_factory=OrderedDict)
    # per (table, round): the game after the hands accepted so far (their number, their plays):
    # a table's next hand is replayed from there, not from the round's first hand
    games: dict[tuple[str, int], tuple[int, list[str], Any]] = field(default_factory=dict)
    refused_total: int = 0
    duplicates: int = 0
    changes: int = 0  # accepted results and director's actions: the standings follow this
    roster: list[str] = field(default_factory=list)  # the players' names; player i is "p<i+1>"
    movement: Movement | None = None
    corrections: list[Correction] = field(default_factory=list)
    ended: float | None = None  # the director ended the night (final results)

    def __post_init__(self) -> None:
        self._options = resolve(self.night.game, self.night.options)

    # ------------------------------------------------------------------ players and seats
    def dealt(self, r: int) -> list[str]:
        """The tables that play round ``r`` (all of them, or those the movement seats)."""
        if self.movement is not None:
            return self.movement.tables_in_round(r)
        return list(self.night.tables)

    def who(self, r: int, t: str, s: int) -> str:
        """The player at table ``t``, seat ``s`` (0-based) in round ``r``: a roster id ("p7") with
        a movement, else the seat where they started ("t3/2") as the night's moving seats go."""
        if self.movement is not None:
            return self.movement.seats(r)[t][s]
        h, seat = self.night.home(r, t, s)
        return f"{h}/{seat + 1}"

    def name_of(self, pid: str) -> str:
        if pid.startswith("p") and pid[1:].isdigit() and 0 < int(pid[1:]) <= len(self.roster):
            return self.roster[int(pid[1:]) - 1]
        return ""

    def seating(self, r: int) -> dict[str, list[dict[str, str]]]:
        """Round ``r``'s seating: per playing table, each seat's player (id and name)."""
        out: dict[str, list[dict[str, str]]] = {}
        for t in self.dealt(r):
            row = []
            for s in range(self.night.players):
                pid = self.who(r, t, s)
                row.append({"id": pid, "name": self.name_of(pid) or self._typed_name(r, t, s) or pid})
            out[t] = row
        return out

    def _typed_name(self, r: int, t: str, s: int) -> str:
        """The name typed at the table, for a night without a roster (its first-round seat's)."""
        pid = self.who(r, t, s)
        if "/" not in pid:
            return ""
        home, seat = pid.rsplit("/", 1)
        tr = self.tables.get((home, 0))
        if tr is not None and tr.players and int(seat) - 1 < len(tr.players):
            return tr.players[int(seat) - 1]
        return ""

    def set_roster(self, names: list[str], style: str, seed: int = 0, stored: dict[str, Any] | None = None) -> Movement:
        """The night's roster and its movement (before round 1 starts): Refused saying why not."""
        if self.rounds:
            raise Refused("the roster and the movement are set before round 1 starts")
        clean = [T.clean_name(n) for n in names]
        clean = [n for n in clean if n]
        if len(clean) > MAX_ROSTER:
            raise Refused(f"{len(clean)} players: a roster has at most {MAX_ROSTER}")
        seen: set[str] = set()
        for n in clean:
            if n.casefold() in seen:
                raise Refused(f"{n!r} is on the roster twice: give each player a name of their own")
            seen.add(n.casefold())
        if style not in STYLES:
            raise Refused(f"unknown movement {style!r} (one of {', '.join(STYLES)})")

        ids = [f"p{i + 1}" for i in range(len(clean))]
        try:
            mv = make(style, ids, self.night.tables, self.night.rounds, self.night.players,
                      bool(game_class(self.night.game).TEAMS), seed)
        except ValueError as e:
            raise Refused(str(e)) from None
        if stored is not None and stored != mv.to_json():
            raise Refused("the stored movement is not the one this roster and style make")
        self.roster, self.movement = clean, mv
        self.changes += 1
        return mv

    # ------------------------------------------------------------------ corrections
    def correct(self, kind: str, table: str, r: int, board: int, at: float, reason: str = "",
                points: list[int] | None = None, scores: list[Any] | None = None) -> Correction:
        """A director's correction (Refused saying why it cannot be)."""
        night = self.night
        if kind not in CORRECTIONS:
            raise Refused(f"unknown correction {kind!r} (one of {', '.join(CORRECTIONS)})")
        if not 0 <= r < night.rounds or not 0 <= board < night.boards:
            raise Refused(f"no round {r + 1}, board {board + 1} in this night")
        if table not in night.tables or (r in self.rounds and table not in self.dealt(r)):
            raise Refused(f"table {table} does not play round {r + 1}")
        if r not in self.rounds:
            raise Refused(f"round {r + 1} has not started")
        have = (table, r, board) in self.results
        if kind in ("points", "remove") and not have:
            raise Refused(f"table {table} has no result for round {r + 1}, board {board + 1}")
        c = Correction(len(self.corrections) + 1, kind, table, r, board, T.clean_name(reason, 300), at)
        if kind == "points":
            if (not isinstance(points, list) or len(points) != night.players or not all(
                    isinstance(p, int) and not isinstance(p, bool) and abs(p) <= T.MAX_POINTS for p in points)):
                raise Refused(f"points are {night.players} whole numbers, one per seat")
            c.points = list(points)
        elif kind == "adjusted":
            if not isinstance(scores, list) or len(scores) not in (1, night.players):
                raise Refused(f"an adjusted score is 'avg' or a number, for every seat or one per seat ({night.players})")
            out: list[str | float] = []
            for x in scores:
                if x == "avg":
                    out.append("avg")
                elif isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) <= MAX_ADJUSTED:
                    out.append(round(float(x), 2))
                else:
                    raise Refused(f"an adjusted score is 'avg' or a number up to {MAX_ADJUSTED}, not {_short(x)}")
            c.scores = out * night.players if len(out) == 1 else out
        elif kind == "note" and not c.reason:
            raise Refused("a ruling needs its words")
        if kind != "note" and not c.reason:
            raise Refused("a correction needs its reason (it is logged and printed with the results)")
        self.corrections.append(c)
        self.changes += 1
        return c

    def withdraw(self, cid: int, at: float) -> Correction:
        for c in self.corrections:
            if c.id == cid and c.withdrawn is None:
                c.withdrawn = at
                self.changes += 1
                return c
        raise Refused(f"no correction #{cid} to withdraw")

    def active_corrections(self) -> list[Correction]:
        return [c for c in self.corrections if c.withdrawn is None]

    def end_night(self, at: float) -> None:
        if self.ended is not None:
            raise Refused("the night has already ended")
        open_ = [r for r, rs in self.rounds.items() if rs.ended is None]
        if open_:
            raise Refused(f"round {open_[0] + 1} is still open: end it first")
        self.ended = at
        self.changes += 1

    # ------------------------------------------------------------------ rounds

    def is_open(self, r: int) -> bool:
        rs = self.rounds.get(r)
        return rs is not None and rs.ended is None

    def table_done(self, t: str, r: int) -> bool:
        tr = self.tables.get((t, r))
        if tr is not None and tr.over is not None:
            return True
        return all((t, r, b) in self.results for b in range(self.night.boards))

    def waiting(self, r: int) -> list[str]:
        """Tables of round ``r`` that have not finished it."""
        return [t for t in self.dealt(r) if not self.table_done(t, r)]

    def check_start(self, r: int) -> None:
        """Refused unless round ``r`` may start now: rounds start in order, each after the
        one before has ended."""
        n = self.night.rounds
        if not 0 <= r < n:
            raise Refused(f"there is no round {_short(r + 1)}: the night has {n}")
        if r in self.rounds:
            raise Refused(f"round {r + 1} has already started")
        for q in range(r):
            if q not in self.rounds:
                raise Refused(f"round {q + 1} has not started yet: rounds start in order")
            if self.rounds[q].ended is None:
                raise Refused(f"round {q + 1} has not ended yet: end it before starting round {r + 1}")
        if self.ended is not None:
            raise Refused("the night has ended")
        if not self.dealt(r):
            raise Refused(f"no table plays round {r + 1}")

    def start_round(self, r: int, at: float) -> None:
        self.check_start(r)
        self.rounds[r] = RoundState(at)
        self.changes += 1

    def check_end(self, r: int, forced: str | None) -> list[str]:
        """The tables still playing round ``r``; Refused when it cannot end now (ending before
        every table is done needs the director's reason)."""
        if r not in self.rounds:
            raise Refused(f"round {r + 1} has not started")
        if self.rounds[r].ended is not None:
            raise Refused(f"round {r + 1} has already ended")
        left = self.waiting(r)
        if left and not (forced or "").strip():
            done = len(self.dealt(r)) - len(left)
            raise Refused(f"round {r + 1}: {done} of {len(self.dealt(r))} tables are done (still playing: "
                          f"{', '.join(left[:12])}{'...' if len(left) > 12 else ''}); ending it now needs a reason")
        return left

    def end_round(self, r: int, at: float, forced: str | None = None) -> list[str]:
        left = self.check_end(r, forced)
        self.rounds[r].ended = at
        for k in [k for k in self.games if k[1] == r]:
            del self.games[k]
        self.rounds[r].forced = T.clean_name(forced, 300) if left else None
        self.changes += 1
        return left

    # ------------------------------------------------------------------ messages
    def offer(self, topic: str, payload: bytes, at: float, keep_refusals: bool = True
              ) -> tuple[str, str, T.TableMessage | None]:
        """One table message: ("accepted" | "duplicate" | "refused", words, message). With
        ``keep_refusals`` False (the journal's replay) a refusal is only returned."""
        if not keep_refusals:
            saved = (self.refusals.copy(), self.refused_total)
            try:
                return self.offer(topic, payload, at)
            finally:
                self.refusals, self.refused_total = saved
        dg = digest(payload)
        # a copy of what was decided already (a table's outbox sends until it has a receipt;
        # a flood sends the same bytes): answered from the digest, without reading it again
        if self.topic_digests.get(topic) == dg:
            self.duplicates += 1
            return "duplicate", f"{topic}: already accepted", None
        seen = self.refusals.get((topic[:200], dg))
        if seen is not None and seen.final:
            seen.count += 1
            seen.last = at
            self.refused_total += 1
            return "refused", seen.reason, None
        try:
            m = T.parse_table_message(self.night.name, topic, payload)
        except T.BadMessage as e:
            table = _table_of(self.night.name, topic)
            self._refuse(topic[:200], table, str(e), dg, at)
            return "refused", str(e), None
        if self.digests.get(m.key) is not None:
            why = f"a second, different result for {_what(m)}: the first one accepted stands"
            self._refuse(topic, m.table, why, dg, at)
            return "refused", why, m
        try:
            self._accept(m, dg, at)
        except Refused as e:
            self._refuse(topic, m.table, str(e), dg, at, e.final)
            return "refused", str(e), m
        self.digests[m.key] = dg
        self.topic_digests[topic] = dg
        self.topic_where[topic] = (m.table, m.round)
        bisect.insort(self.round_keys.setdefault((m.table, m.round), []), m.key)
        self.changes += 1
        return "accepted", f"{m.key}: accepted", m

    def remember(self, key: str, table: str, reason: str, at: float, count: int = 1) -> None:
        """A refusal read back from the journal (the director still sees it after a restart)."""
        k = (key, digest(reason.encode()))
        if k not in self.refusals and len(self.refusals) < MAX_REFUSALS:
            self.refusals[k] = Refusal(key, table, reason, at, at, count)
        self.refused_total += count

    def _refuse(self, key: str, table: str, reason: str, dg: str, at: float, final: bool = True) -> None:
        self.refused_total += 1
        k = (key, dg)
        have = self.refusals.get(k)
        if have is not None:
            have.count += 1
            have.last = at
            have.reason, have.final = reason, final
            return
        if len(self.refusals) >= MAX_REFUSALS:
            return
        self.refusals[k] = Refusal(key, table, reason, at, at, 1, final)

    def _accept(self, m: T.TableMessage, dg: str, at: float) -> None:
        night = self.night
        if m.table not in night.tables:
            raise Refused(f"no table {m.table!r} in night {night.name}")
        if not 0 <= m.round < night.rounds:
            raise Refused(f"no round {m.round + 1} (the night has {night.rounds})")
        if m.hand is not None and not 0 <= m.hand < night.boards:
            raise Refused(f"no board {m.hand + 1} (a round has {night.boards})")
        rs = self.rounds.get(m.round)
        if rs is None:
            raise Refused(f"{_what(m)}: round {m.round + 1} has not started (its boards are not dealt yet)", final=False)
        if rs.ended is not None:
            raise Refused(f"{_what(m)}: round {m.round + 1} has ended", final=False)
        if m.table not in self.dealt(m.round):
            raise Refused(f"{_what(m)}: table {m.table} does not play round {m.round + 1}")
        tr = self.tables.setdefault((m.table, m.round), TableRound())
        body = m.body
        sent = body.get("sent")
        sent_f = float(sent) if isinstance(sent, (int, float)) and not isinstance(sent, bool) else None
        if m.kind == "start":
            players = body["players"]
            if len(players) != night.players:
                raise Refused(f"{len(players)} players, the night has {night.players} at each table")
            if tr.players is None:
                tr.players = [T.clean_name(p) for p in players]
                tr.started = at
            return
        record = self._record(m)
        acts = [_actions_json(record, i) for i in range(len(record.hands))]
        if m.kind == "over":
            state = self._replay(m, record, acts)
            if len(state.hand_results) < len(record.hands):  # (its plays would be fixed unfinished)
                raise Refused(f"{_what(m)}: hand {len(record.hands)} has not ended in its plays "
                              f"({len(record.hands[-1][1])} actions)")
            if len(record.hands) < night.boards and not state.over:
                raise Refused(f"{_what(m)}: {len(record.hands)} of {night.boards} boards played and the game "
                              "is not over")
            self._fix_plays(m, acts)
            tr.over = at
            tr.hands_in_over = len(record.hands)
            self.games.pop((m.table, m.round), None)
            return
        assert m.hand is not None
        h = m.hand
        if len(record.hands) != h + 1:
            raise Refused(f"{_what(m)}: its record holds {len(record.hands)} hands, not the {h + 1} up to this one")
        state = self._replay(m, record, acts)
        if len(state.hand_results) <= h:
            raise Refused(f"{_what(m)}: the hand has not ended in its plays ({len(record.hands[h][1])} actions)")
        points = [int(p) for p in state.hand_results[h]["points"]]
        claimed = list(body["points"])
        if claimed != points:
            raise Refused(f"{_what(m)}: the table claims points {_short(claimed)} but its plays give {points}")
        self._fix_plays(m, acts)
        self.results[(m.table, m.round, h)] = HandResult(m.table, m.round, h, points, dg, sent_f, at)
        have = self.games.get((m.table, m.round))
        if self.table_done(m.table, m.round):
            self.games.pop((m.table, m.round), None)  # (its round is played: nothing more to replay)
        elif have is None or have[0] < len(acts):
            self.games[(m.table, m.round)] = (len(acts), acts, state.copy())

    def _record(self, m: T.TableMessage) -> Record:
        """The message's record, checked against the night and the boards dealt."""
        night = self.night
        try:
            record = parse(m.body["record"])
        except RecordError as e:
            raise Refused(f"{_what(m)}: its record: {e}") from None
        if record.game != night.game:
            raise Refused(f"{_what(m)}: a game of {record.game}, the night plays {night.game}")
        if len(record.players) != night.players:
            raise Refused(f"{_what(m)}: {len(record.players)} seats, the night has {night.players}")
        try:
            opts = resolve(record.game, record.options)
        except RecordError as e:
            raise Refused(f"{_what(m)}: its options: {e}") from None
        if opts != self._options:
            diff = sorted(k for k in opts if opts.get(k) != self._options.get(k))
            raise Refused(f"{_what(m)}: played with other options than the night's ({', '.join(diff)})")
        if record.first_dealer != FIRST_DEALER:
            raise Refused(f"{_what(m)}: the first hand was dealt by seat {record.first_dealer + 1}; every "
                          f"table of the night deals it from seat {FIRST_DEALER + 1}")
        if len(record.hands) > night.boards:
            raise Refused(f"{_what(m)}: {len(record.hands)} hands, a round has {night.boards} boards")
        boards = self.decks.get(str(m.round)) or []
        for i, (deck, acts) in enumerate(record.hands):
            if i >= len(boards) or C.names(deck) != list(boards[i]["deck"]):
                raise Refused(f"{_what(m)}: hand {i + 1} was not dealt board {i + 1}'s deck of round {m.round + 1}")
            if len(acts) > T.MAX_ACTIONS:
                raise Refused(f"{_what(m)}: hand {i + 1} has {len(acts)} actions")
        record.corrections = []  # a table's own score corrections: the director's are the night's
        return record

    def _replay(self, m: T.TableMessage, record: Record, acts: list[str]) -> Any:
        for i in range(len(record.hands)):  # (before replaying: the cheaper refusal first)
            prior = self.plays.get((m.table, m.round, i))
            if prior is not None and prior != acts[i]:
                raise Refused(f"{_what(m)}: hand {i + 1}'s plays differ from those accepted earlier from "
                              f"table {m.table}")
        start, state = 0, None
        have = self.games.get((m.table, m.round))
        if have is not None and have[0] <= len(acts) and acts[:have[0]] == have[1]:
            start, state = have[0], have[2].copy()  # the hands accepted already: not replayed again
        try:
            if state is None:
                state = game_class(record.game)(len(record.players), record.options, record.first_dealer,
                                                record.players)
            replay_hands(state, record, start)
        except ReplayError as e:
            raise Refused(f"{_what(m)}: an illegal play: {e}") from None
        except (RecordError, ValueError, KeyError, IndexError, TypeError) as e:
            raise Refused(f"{_what(m)}: its plays do not replay: {e}") from None
        return state

    def _fix_plays(self, m: T.TableMessage, acts: list[str]) -> None:
        for i, a in enumerate(acts):
            self.plays.setdefault((m.table, m.round, i), a)

    # ------------------------------------------------------------------ views
    def snapshot(self) -> NightState:
        """A copy the standings thread reads while results go on arriving."""
        out = NightState(self.night, self.decks)
        out.roster, out.movement, out.ended = list(self.roster), self.movement, self.ended
        out.corrections = [Correction(**{**c.__dict__}) for c in self.corrections]
        out.rounds = {r: RoundState(rs.started, rs.ended, rs.forced) for r, rs in self.rounds.items()}
        out.results = dict(self.results)
        out.tables = {k: TableRound(v.players, v.started, v.over, v.hands_in_over) for k, v in self.tables.items()}
        out.refused_total, out.duplicates, out.changes = self.refused_total, self.duplicates, self.changes
        return out

    def keys_of(self, table: str, r: int) -> list[str]:
        return list(self.round_keys.get((table, r), ()))

    def refusal_list(self) -> list[Refusal]:
        return list(self.refusals.values())


def replay_hands(state: Any, record: Record, start: int) -> None:
    """``record``'s hands from ``start`` on, played on ``state`` (the game after the hands
    before): ``records.replay``'s loop, without corrections (the night's are the director's)."""
    for h in range(start, len(record.hands)):
        deck, acts = record.hands[h]
        if state.over:
            s, a = acts[0] if acts else (0, A.Action("deal", None))
            raise ReplayError(h, 0, s, a, "the game was already over before this hand")
        if not state.needs_deck:
            s, a = acts[0] if acts else (0, A.Action("deal", None))
            raise ReplayError(h, 0, s, a, f"hand {h - 1} had not ended (the record is missing its last actions)")
        state.start_hand(deck)
        for i, (seat, action) in enumerate(acts):
            try:
                state.apply(action, seat)
            except IllegalAction as e:
                raise ReplayError(h, i, seat, action, e.reason) from None


def _what(m: T.TableMessage) -> str:
    if m.kind == "hand":
        assert m.hand is not None
        return f"table {m.table}, round {m.round + 1}, board {m.hand + 1}"
    return f"table {m.table}'s {'start' if m.kind == 'start' else 'end'} of round {m.round + 1}"


def _short(v: object) -> str:
    r = repr(v)
    return r if len(r) <= 80 else r[:80] + "..."


def _table_of(night: str, topic: str) -> str:
    parts = topic.split("/")
    root = T.night_root(night).split("/")
    if parts[:len(root)] == root and len(parts) > len(root) + 1 and parts[len(root)] == T.TABLE:
        return parts[len(root) + 1][:32]
    return "?"
