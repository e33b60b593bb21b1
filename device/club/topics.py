"""Club night topics and messages: the one place that names them and checks them.

Everything of a night lives under ``trickref/club/<night>/``:

============================  =====================  ==========================================
topic (under the night)        who writes              what
============================  =====================  ==========================================
``table/<t>/start/<r>``        table ``t``             a round's game started (players, options)
``table/<t>/hand/<r>/<h>``     table ``t``             hand ``h`` (0-based) of round ``r`` ended
``table/<t>/over/<r>``         table ``t``             the round's game is over: the full record
``to/<t>/deal/<r>/<b>``        hub, retained           board ``b``'s deck for table ``t``
``to/<t>/receipts``            hub, retained           keys of ``t``'s messages the hub has stored
``public/night``               hub, retained           the night: game, tables, rounds, boards
``public/commit/<r>``          hub, retained           round ``r``'s deck commitments (before it)
``public/seating/<r>``         hub, retained           who sits where in round ``r`` (at its start)
``public/salt/<r>``            hub, retained           round ``r``'s salts (after it)
``standings``                  hub, retained           standings, results and progress (JSON)
``control``                    director (hub user)     start or end a round
============================  =====================  ==========================================

A table's messages are idempotent by their key (night, table, round, hand): the hub stores the
first and ignores repeats. ``parse_table_message`` checks a message against its topic and
raises ``BadMessage`` saying what is wrong; the hub logs that and drops the message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PREFIX = "trickref/club"
TABLE = "table"
TO = "to"
PUBLIC = "public"
STANDINGS = "standings"
HUB_USER = "hub"
VIEWER_USER = "viewer"
MAX_PAYLOAD = 256 * 1024  # a whole game's record is well under 64 KiB
VERSION = 1
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
KINDS = ("start", "hand", "over")


class BadMessage(ValueError):
    """A message the hub will not store: the text says what is wrong."""


def check_name(kind: str, name: str) -> str:
    """A night or table name: 1-32 of a-z 0-9 _ - (a topic level and a broker user name)."""
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError(f"{kind} name {name!r} must be 1 to 32 characters of a-z, 0-9, _ or -, "
                         "starting with a letter or digit")
    if name in (HUB_USER, VIEWER_USER):
        raise ValueError(f"{kind} name {name!r} is reserved")
    return name


def night_root(night: str) -> str:
    return f"{PREFIX}/{night}"


def table_topic(night: str, table: str, kind: str, round_: int, hand: int | None = None) -> str:
    base = f"{night_root(night)}/{TABLE}/{table}/{kind}/{round_}"
    return base if hand is None else f"{base}/{hand}"


def deal_topic(night: str, table: str, round_: int, board: int) -> str:
    return f"{night_root(night)}/{TO}/{table}/deal/{round_}/{board}"


def receipts_topic(night: str, table: str) -> str:
    return f"{night_root(night)}/{TO}/{table}/receipts"


def public_topic(night: str, what: str, round_: int | None = None) -> str:
    base = f"{night_root(night)}/{PUBLIC}/{what}"
    return base if round_ is None else f"{base}/{round_}"


def control_topic(night: str) -> str:
    """The director's commands to the hub (only the hub user may write it)."""
    return f"{night_root(night)}/control"


def standings_topic(night: str) -> str:
    return f"{night_root(night)}/{STANDINGS}"


Key = tuple[str, str, int, str]  # (table, kind, round, hand or "")


@dataclass(frozen=True)
class TableMessage:
    night: str
    table: str
    kind: str
    round: int
    hand: int | None
    body: dict[str, Any]

    @property
    def key(self) -> str:
        """The idempotence key: night/table/kind/round[/hand]."""
        k = f"{self.night}/{self.table}/{self.kind}/{self.round}"
        return k if self.hand is None else f"{k}/{self.hand}"


def message_key(night: str, table: str, kind: str, round_: int, hand: int | None = None) -> str:
    k = f"{night}/{table}/{kind}/{round_}"
    return k if hand is None else f"{k}/{hand}"


def encode(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


def _int(body: Mapping[str, Any], key: str, lo: int = 0) -> int:
    v = body.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise BadMessage(f"{key!r} must be a whole number from {lo}, not {v!r}")
    return v


def parse_table_message(night: str, topic: str, payload: bytes) -> TableMessage:
    """A table's message checked against its topic; BadMessage says why not."""
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"{len(payload)} bytes, over the {MAX_PAYLOAD} byte limit")
    parts = topic.split("/")
    root = night_root(night).split("/")
    if parts[:len(root)] != root or len(parts) < len(root) + 4 or parts[len(root)] != TABLE:
        raise BadMessage(f"not a table topic of night {night}: {topic!r}")
    rest = parts[len(root) + 1:]
    table, kind = rest[0], rest[1]
    if kind not in KINDS:
        raise BadMessage(f"unknown message kind {kind!r} (one of {', '.join(KINDS)})")
    want_len = 4 if kind == "hand" else 3
    if len(rest) != want_len or not all(x.isdigit() and len(x) < 6 for x in rest[2:]):
        raise BadMessage(f"topic {topic!r} must end {kind}/<round>" + ("/<hand>" if kind == "hand" else ""))
    round_ = int(rest[2])
    hand = int(rest[3]) if kind == "hand" else None
    try:
        body = json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadMessage(f"not JSON: {e}") from None
    if not isinstance(body, dict):
        raise BadMessage(f"a message is a JSON object, not {type(body).__name__}")
    if body.get("v") != VERSION:
        raise BadMessage(f"version must be {VERSION}, not {body.get('v')!r}")
    for k, want in (("night", night), ("table", table), ("kind", kind)):
        if body.get(k) != want:
            raise BadMessage(f"{k} {body.get(k)!r} does not match the topic ({want!r})")
    if _int(body, "round") != round_:
        raise BadMessage(f"round {body.get('round')!r} does not match the topic ({round_})")
    if kind == "hand":
        if _int(body, "hand") != hand:
            raise BadMessage(f"hand {body.get('hand')!r} does not match the topic ({hand})")
        pts = body.get("points")
        if not isinstance(pts, list) or not pts or not all(isinstance(p, int) and not isinstance(p, bool) for p in pts):
            raise BadMessage("points must be a list of whole numbers, one per seat")
        entry = body.get("entry")
        if not isinstance(entry, dict) or not isinstance(entry.get("deck"), list):
            raise BadMessage("entry must be the hand's record entry (with its deck)")
    elif kind == "start":
        players = body.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise BadMessage("players must be a list of names")
    elif kind == "over":
        if not isinstance(body.get("record"), dict):
            raise BadMessage("record must be the game's record (a JSON object)")
    return TableMessage(night, table, kind, round_, hand, body)
