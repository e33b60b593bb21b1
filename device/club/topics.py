"""Club night topics and messages: the one place that names them and checks them.

Everything of a night lives under ``trickref/club/<night>/``:

============================  =====================  ==========================================
topic (under the night)        who writes              what
============================  =====================  ==========================================
``table/<t>/start/<r>``        table ``t``             a round's game started (players, options)
``table/<t>/hand/<r>/<h>``     table ``t``             hand ``h`` (0-based) of round ``r`` ended
``table/<t>/over/<r>``         table ``t``             the round's game is over: the full record
``to/<t>/deal/<r>/<b>``        hub, retained           board ``b``'s deck for table ``t``
``to/<t>/receipts/<r>``        hub, retained           keys of ``t``'s round ``r`` messages the hub holds
``to/<t>/seat/<r>``            hub, retained           who sits where at ``t`` in round ``r``
``public/night``               hub, retained           the night: game, tables, rounds, boards
``public/commit/<r>``          hub, retained           round ``r``'s deck commitments (before it)
``public/salt/<r>``            hub, retained           round ``r``'s salts (after it)
============================  =====================  ==========================================

No message grows with the night: receipts and seating are per table and round, the standings
are not on the broker at all (the page pulls them from the hub: ``web.py``). A table's messages
are idempotent by their key (night, table, kind, round, hand): the hub keeps the first it
accepts and counts repeats. ``parse_table_message`` checks a message's shape and bounds against
its topic and raises ``BadMessage`` saying what is wrong; the hub refuses it with that reason.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PREFIX = "trickref/club"
TABLE = "table"
TO = "to"
PUBLIC = "public"
HUB_USER = "hub"
DIRECTOR_USER = "director"  # the console's password (HTTP), never a broker user
RESERVED = (HUB_USER, DIRECTOR_USER, "viewer")
VERSION = 2  # a hand carries its plays (the game's record up to it); 1 carried points only
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
KINDS = ("start", "hand", "over")
# bounds on everything a table sends (a round of MAX_BOARDS Hearts hands is about 40 KiB)
MAX_BOARDS = 16  # boards per round
MAX_ROUNDS = 40
MAX_TABLES = 200
MAX_PAYLOAD = 96 * 1024  # Mosquitto's max_packet_size is this plus the topic and headers
MAX_POINTS = 100_000  # a claimed point value's size (the hub computes the points; it only compares)
MAX_ACTIONS = 400  # actions in one hand (Hearts has 52 plays, 12 passes)
PLAYER_NAME_MAX = 32  # characters of a player's name, once cleaned (``clean_name``)
MAX_STRING = 200  # any other string a table sends (a card, a commitment, an option value)
MAX_OPTIONS = 16


class BadMessage(ValueError):
    """A message the hub will not store: the text says what is wrong."""


def check_name(kind: str, name: str) -> str:
    """A night or table name: 1-32 of a-z 0-9 _ - (a topic level and a broker user name)."""
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError(f"{kind} name {name!r} must be 1 to 32 characters of a-z, 0-9, _ or -, "
                         "starting with a letter or digit")
    if name in RESERVED:
        raise ValueError(f"{kind} name {name!r} is reserved")
    return name


# Unicode controls that reorder or hide text: the bidirectional embeddings, overrides and
# isolates (U+202A-202E, U+2066-2069), the marks (U+200E, U+200F, U+061C), and every other
# format or control character (zero-width joiners, soft hyphens, tags...).
def clean_name(text: object, limit: int = PLAYER_NAME_MAX) -> str:
    """A player's name as shown: NFC, controls and format characters (bidirectional overrides
    and isolates among them) removed, runs of spaces made one, cut to ``limit`` characters.
    Empty when nothing is left (the caller names the seat instead)."""
    if not isinstance(text, str):
        return ""
    s = unicodedata.normalize("NFC", text[:limit * 8])
    out = []
    for ch in s:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(" " if ch in "\t\n\r\u2028\u2029" else "")
        elif cat == "Zs":
            out.append(" ")
        else:
            out.append(ch)
    return " ".join("".join(out).split())[:limit].strip()


def night_root(night: str) -> str:
    return f"{PREFIX}/{night}"


def table_topic(night: str, table: str, kind: str, round_: int, hand: int | None = None) -> str:
    base = f"{night_root(night)}/{TABLE}/{table}/{kind}/{round_}"
    return base if hand is None else f"{base}/{hand}"


def deal_topic(night: str, table: str, round_: int, board: int) -> str:
    return f"{night_root(night)}/{TO}/{table}/deal/{round_}/{board}"


def receipts_topic(night: str, table: str) -> str:
    return f"{night_root(night)}/{TO}/{table}/receipts"


def receipts_round_topic(night: str, table: str, round_: int) -> str:
    return f"{receipts_topic(night, table)}/{round_}"


def seat_topic(night: str, table: str, round_: int) -> str:
    return f"{night_root(night)}/{TO}/{table}/seat/{round_}"


def public_topic(night: str, what: str, round_: int | None = None) -> str:
    base = f"{night_root(night)}/{PUBLIC}/{what}"
    return base if round_ is None else f"{base}/{round_}"


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


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _parse_int(text: str) -> int:
    if len(text) > 30:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > 40:
        raise ValueError(f"a number of {len(text)} characters")
    return float(text)


def loads(payload: bytes | bytearray | str) -> Any:
    """JSON as a table may send it, refused when it is not plain JSON: no NaN or Infinity, no
    number longer than 30 digits (a 400-digit number is one a float cannot hold: it froze the
    old hub's standings), no nesting so deep the parser gives up (``bounded`` allows far
    less). ValueError says why."""
    try:
        text = payload.decode("utf-8") if isinstance(payload, (bytes, bytearray)) else payload
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 text: {e.reason}") from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_parse_int, parse_float=_parse_float)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"not JSON: {e}") from None


def _int(body: Mapping[str, Any], key: str, lo: int = 0, hi: int = 99999) -> int:
    v = body.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise BadMessage(f"{key!r} must be a whole number from {lo} to {hi}, not {_short(v)}")
    return v


def _short(v: object, n: int = 40) -> str:
    """A value named in a reason, never long: the reason is shown to the director."""
    r = repr(v)
    return r if len(r) <= n else r[:n] + f"... ({len(r)} characters)"


def bounded(obj: Any, where: str = "message", depth: int = 0) -> None:
    """Every number, string and list of a table's message within its bounds (BadMessage)."""
    if depth > 10:
        raise BadMessage(f"{where}: nested more than 10 deep")
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, int):
        if abs(obj) > 10 ** 9:
            raise BadMessage(f"{where}: the number {_short(obj)} is out of range")
    elif isinstance(obj, float):
        if not math.isfinite(obj) or abs(obj) > 1e12:
            raise BadMessage(f"{where}: the number {_short(obj)} is out of range")
    elif isinstance(obj, str):
        if len(obj) > MAX_STRING:
            raise BadMessage(f"{where}: a text of {len(obj)} characters ({MAX_STRING} at most)")
    elif isinstance(obj, list):
        if len(obj) > 2 * MAX_ACTIONS:
            raise BadMessage(f"{where}: a list of {len(obj)} items")
        for i, x in enumerate(obj):
            bounded(x, f"{where}[{i}]", depth + 1)
    elif isinstance(obj, dict):
        if len(obj) > 40:
            raise BadMessage(f"{where}: an object of {len(obj)} fields")
        for k, x in obj.items():
            if len(k) > 40:
                raise BadMessage(f"{where}: a field name of {len(k)} characters")
            bounded(x, f"{where}.{k[:40]}", depth + 1)
    else:
        raise BadMessage(f"{where}: {type(obj).__name__} is not JSON")


def parse_table_message(night: str, topic: str, payload: bytes) -> TableMessage:
    """A table's message checked against its topic and within every bound; BadMessage says
    why not. (Whether the hub accepts it, replaying its plays, is the hub's business.)"""
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"{len(payload)} bytes, over the {MAX_PAYLOAD} byte limit")
    parts = topic.split("/")
    root = night_root(night).split("/")
    if parts[:len(root)] != root or len(parts) < len(root) + 4 or parts[len(root)] != TABLE:
        raise BadMessage(f"not a table topic of night {night}: {topic[:120]!r}")
    rest = parts[len(root) + 1:]
    table, kind = rest[0], rest[1]
    if kind not in KINDS:
        raise BadMessage(f"unknown message kind {kind[:40]!r} (one of {', '.join(KINDS)})")
    want_len = 4 if kind == "hand" else 3
    if len(rest) != want_len or not all(x.isdigit() and x.isascii() and len(x) < 6 for x in rest[2:]):
        raise BadMessage(f"topic {topic[:120]!r} must end {kind}/<round>" + ("/<hand>" if kind == "hand" else ""))
    round_ = int(rest[2])
    hand = int(rest[3]) if kind == "hand" else None
    try:
        body = loads(payload)
    except ValueError as e:
        raise BadMessage(str(e)) from None
    if not isinstance(body, dict):
        raise BadMessage(f"a message is a JSON object, not {type(body).__name__}")
    bounded(body)
    if body.get("v") != VERSION:
        raise BadMessage(f"version must be {VERSION}, not {_short(body.get('v'))} (a table older than the hub)")
    for k, want in (("night", night), ("table", table), ("kind", kind)):
        if body.get(k) != want:
            raise BadMessage(f"{k} {_short(body.get(k))} does not match the topic ({want!r})")
    if _int(body, "round") != round_:
        raise BadMessage(f"round {_short(body.get('round'))} does not match the topic ({round_})")
    sent = body.get("sent")
    if sent is not None and (isinstance(sent, bool) or not isinstance(sent, (int, float))):
        raise BadMessage(f"sent must be a time in seconds, not {_short(sent)}")
    if kind == "hand":
        if _int(body, "hand") != hand:
            raise BadMessage(f"hand {_short(body.get('hand'))} does not match the topic ({hand})")
        pts = body.get("points")
        if not isinstance(pts, list) or not pts or len(pts) > 8 or not all(
                isinstance(p, int) and not isinstance(p, bool) and abs(p) <= MAX_POINTS for p in pts):
            raise BadMessage(f"points must be a list of whole numbers up to {MAX_POINTS} in size, one per "
                             f"seat, not {_short(pts)}")
        if not isinstance(body.get("record"), dict):
            raise BadMessage("record must be the game's record up to this hand (its plays): "
                             "a result without its plays is not scored")
    elif kind == "start":
        players = body.get("players")
        if not isinstance(players, list) or not 0 < len(players) <= 8 or not all(isinstance(p, str) for p in players):
            raise BadMessage("players must be a list of names, one per seat")
    elif kind == "over":
        if not isinstance(body.get("record"), dict):
            raise BadMessage("record must be the game's record (a JSON object)")
    return TableMessage(night, table, kind, round_, hand, body)
