"""Message bodies of the dealer protocol (hardware/PROTOCOL.md sections 2, 4 and 5), host side.

Each message type has a schema: an ordered list of (field, layout) pairs, so one table both
encodes and decodes every body and cannot disagree with itself. Decoded bodies are plain
dicts with the field names of PROTOCOL.md (the same names as the golden frames' ``fields``);
``device.dealer.link`` and ``device.dealer.driver`` wrap the ones they use in small dataclasses.

Layouts: ``u8``, ``u16`` (big-endian), ``u8*N`` (N bytes as a list), ``list8`` (a u8 count
then that many bytes), ``pairs`` (the rest of the body as [first, second] byte pairs) and
``events`` (the rest of the body as events, for EVENT/EVENTS after ``first_index``) and
``rest`` (the rest of the body as a list of bytes, for INVENTORY_REPLY's items).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Fields = dict[str, Any]

# --- message types -------------------------------------------------------------------------

PROTOCOL_VERSION = 3  # HELLO / IDENTIFY (the frame format's version byte stays 1); 3: step ids

HELLO = 0x01
PING = 0x02
STATUS = 0x03
EVENTS_SINCE = 0x04
DEAL_PLAN = 0x05
ROUTE_PRESENTED = 0x07  # (0x06 PRESENT, 0x08 TURN_UP, 0x09 DEAL_STOCK, 0x0A ROUTE_FACEUP: v1)
FEED = 0x0B
FETCH = 0x0C
ABORT = 0x0D
ESTOP = 0x0E
RESET = 0x0F
RESUME = 0x10
SELFTEST = 0x11
STEP_QUERY = 0x12  # v3
INVENTORY = 0x13  # v3

IDENTIFY = 0x81
OK = 0x82
NAK = 0x83
STATUS_REPLY = 0x84
EVENTS = 0x85
BUSY = 0x86
EVENT = 0x87
STEP = 0x88  # v3: reply to STEP_QUERY
INVENTORY_REPLY = 0x89  # v3: reply to INVENTORY

# v3: commands whose body starts with a u16 step id (DEAL_PLAN's deal id is its step id)
STEP_COMMANDS = frozenset((ROUTE_PRESENTED, FEED, FETCH, ABORT, RESUME, SELFTEST))

STEP_UNKNOWN, STEP_RUNNING, STEP_DONE, STEP_STOPPED, STEP_ABORTED, STEP_INTERRUPTED, STEP_HELD = range(7)
STEP_STATE_NAMES = {0: "UNKNOWN", 1: "RUNNING", 2: "DONE", 3: "STOPPED", 4: "ABORTED", 5: "INTERRUPTED",
                    6: "HELD"}
INV_SUMMARY, INV_POCKETS, INV_REJECT, INV_LOOP = 0, 1, 2, 3

TYPE_NAMES: dict[int, str] = {
    HELLO: "HELLO", PING: "PING", STATUS: "STATUS", EVENTS_SINCE: "EVENTS_SINCE",
    DEAL_PLAN: "DEAL_PLAN", ROUTE_PRESENTED: "ROUTE_PRESENTED", FEED: "FEED",
    FETCH: "FETCH", ABORT: "ABORT", ESTOP: "ESTOP", RESET: "RESET", RESUME: "RESUME",
    SELFTEST: "SELFTEST", STEP_QUERY: "STEP_QUERY", INVENTORY: "INVENTORY",
    IDENTIFY: "IDENTIFY", OK: "OK", NAK: "NAK", STATUS_REPLY: "STATUS_REPLY", EVENTS: "EVENTS",
    BUSY: "BUSY", EVENT: "EVENT", STEP: "STEP", INVENTORY_REPLY: "INVENTORY_REPLY",
}

# --- codes ---------------------------------------------------------------------------------

OK_DONE, OK_ACCEPTED, OK_STARTED, OK_ALREADY = 0, 1, 2, 3
OK_CODE_NAMES = {0: "DONE", 1: "ACCEPTED", 2: "STARTED", 3: "ALREADY"}

NAK_BAD_CRC = 1
NAK_BAD_VERSION = 2
NAK_UNKNOWN_TYPE = 3
NAK_BAD_BODY = 4
NAK_BUSY = 5
NAK_CONFLICT = 6
NAK_TOO_BIG = 7
NAK_EMPTY = 8
NAK_ESTOPPED = 9
NAK_JAMMED = 10
NAK_BAD_STATE = 11
NAK_FULL = 12
NAK_REASON_NAMES = {
    1: "BAD_CRC", 2: "BAD_VERSION", 3: "UNKNOWN_TYPE", 4: "BAD_BODY", 5: "BUSY",
    6: "CONFLICT", 7: "TOO_BIG", 8: "EMPTY", 9: "ESTOPPED", 10: "JAMMED", 11: "BAD_STATE",
    12: "FULL",
}

STATE_NAMES = {
    0: "IDLE", 1: "PLAN", 2: "DEALING", 3: "HOLDING", 4: "MOVING", 5: "FEEDING",
    6: "PAUSED", 7: "JAMMED", 8: "ESTOPPED", 9: "SELFTEST", 10: "FAULT",
}

# --- targets and cards ---------------------------------------------------------------------

MAX_SEATS = 11
REJECT = 0x80
DISCARD = 0x81
CENTRE = 0x82
FACEUP = 0x83  # v1
TRICK = 0x84
MAGAZINE = 0x85  # v1 name of 0x85
LOOP = 0x85  # v2: the return loop (onto the top of the hopper; FETCH takes cards back by identity)
STAGING = 0x86  # v1
HOLD = 0xFE
UNKNOWN_CARD = 0xFF
# FACEUP 0x83 and STAGING 0x86 are v1 targets, gone in protocol 2 (check_target refuses them)
TRAY_NAMES = {
    REJECT: "reject pocket", DISCARD: "discard pocket", CENTRE: "centre pocket",
    TRICK: "trick pocket", LOOP: "loop", HOLD: "hold at the reader",
}

_RANKS = "23456789TJQKA"
_SUITS = "SHDC"


def card_name(card: int) -> str:
    """'QS' for 36, '??' for the unknown card byte (the host's own table, like the firmware's)."""
    if 0 <= card < 52:
        return _RANKS[card % 13] + _SUITS[card // 13]
    return "??"


def target_name(target: int) -> str:
    if 0 <= target < MAX_SEATS:
        return f"seat {target}"
    return TRAY_NAMES.get(target, f"target {target:#04x}")


def check_card(card: int) -> int:
    if not 0 <= card < 52:
        raise ValueError(f"card byte {card!r} is not a card (0..51)")
    return card


def check_target(target: int, *, allow_hold: bool = False) -> int:
    ok = 0 <= target < MAX_SEATS or target in TRAY_NAMES
    if not ok or (target == HOLD and not allow_hold):
        raise ValueError(f"target {target!r} is neither a seat 0..10 nor a pocket or loop byte")
    return target


# --- events --------------------------------------------------------------------------------

EV_CARD_DEALT = 0x01
EV_PRESENTED = 0x02
EV_CARD_ROUTED = 0x03
EV_MISREAD = 0x04
EV_DUPLICATE = 0x05
EV_JAM = 0x06
EV_HOPPER_EMPTY = 0x07
EV_POCKET_FULL = 0x08
EV_TRAY_FULL = EV_POCKET_FULL  # v1 name
EV_FAULT = 0x09
EV_ESTOP = 0x0A
EV_DEADMAN = 0x0B
EV_ABORTED = 0x0C
EV_BOOT = 0x0D
EV_FEED_DONE = 0x0E
EV_RESUMED = 0x0F
EV_STAGED = 0x10
EV_DOUBLE_FEED = 0x11
EV_DEAL_DONE = 0x40
EV_SELFTEST_DONE = 0x41

Schema = tuple[tuple[str, str], ...]

EVENT_SCHEMAS: dict[int, tuple[str, Schema]] = {
    EV_CARD_DEALT: ("CARD_DEALT", (("card", "u8"), ("target", "u8"), ("confidence", "u8"))),
    EV_PRESENTED: ("PRESENTED", (("seat", "u8"), ("card", "u8"), ("confidence", "u8"))),
    EV_CARD_ROUTED: ("CARD_ROUTED", (("card", "u8"), ("target", "u8"))),
    EV_MISREAD: ("MISREAD", (("target", "u8"), ("attempts", "u8"))),
    EV_DUPLICATE: ("DUPLICATE", (("card", "u8"), ("target", "u8"))),
    EV_JAM: ("JAM", (("stage", "u8"), ("card", "u8"))),
    EV_HOPPER_EMPTY: ("HOPPER_EMPTY", (("remaining", "u8"),)),
    EV_POCKET_FULL: ("POCKET_FULL", (("target", "u8"),)),
    EV_FAULT: ("FAULT", (("code", "u8"), ("detail", "u8"))),
    EV_ESTOP: ("ESTOP", (("source", "u8"),)),
    EV_DEADMAN: ("DEADMAN", (("stage", "u8"),)),
    EV_ABORTED: ("ABORTED", (("deal_id", "u16"),)),
    EV_BOOT: ("BOOT", (("reason", "u8"),)),
    EV_FEED_DONE: ("FEED_DONE", (("count", "u8"),)),
    EV_RESUMED: ("RESUMED", (("stage", "u8"),)),
    EV_STAGED: ("STAGED", (("card", "u8"), ("passes", "u8"))),
    EV_DOUBLE_FEED: ("DOUBLE_FEED", (("card", "u8"), ("how", "u8"))),
    EV_DEAL_DONE: ("DEAL_DONE", (("deal_id", "u16"), ("dealt", "u8"), ("rejected", "u8"),
                                 ("missing", "list8"), ("duplicates", "list8"))),
    EV_SELFTEST_DONE: ("SELFTEST_DONE", (("read", "u8"), ("misreads", "u8"),
                                         ("missing", "list8"), ("duplicates", "list8"))),
}
EVENT_KINDS = {name: kind for kind, (name, _) in EVENT_SCHEMAS.items()}

JAM_STAGES = {0: "pocket full", 1: "feed", 2: "read", 3: "transport", 4: "misroute",
              5: "loop"}
FAULT_CODES = {1: "home not found (detail: 0 turntable, 1 magazine, 2 discard rack, 3 staging rack)", 2: "reader not responding",
               3: "a stepper driver did not answer on its UART (detail: its address)",
               4: "internal error", 5: "the motor bus stayed live after the e-stop (welded relay)"}

# --- message schemas -----------------------------------------------------------------------

SCHEMAS: dict[int, Schema] = {
    HELLO: (("host_version", "u8"), ("deadman_ms", "u16"), ("host_flags", "opt8")),
    PING: (),
    STATUS: (),
    EVENTS_SINCE: (("first_index", "u16"), ("max_events", "u8")),
    DEAL_PLAN: (("deal_id", "u16"), ("total", "u8"), ("offset", "u8"), ("flags", "u8"),
                ("entries", "pairs")),
    ROUTE_PRESENTED: (("step", "u16"), ("target", "u8"), ("place", "opt8"), ("flags", "opt8")),
    FEED: (("step", "u16"), ("count", "u8"), ("target", "u8"), ("place", "opt8"), ("flags", "opt8")),
    FETCH: (("step", "u16"), ("source", "u8"), ("card", "u8"), ("target", "u8"), ("flags", "opt8")),
    ABORT: (("step", "u16"),),
    ESTOP: (),
    RESET: (("mode", "u8"),),
    RESUME: (("step", "u16"),),
    SELFTEST: (("step", "u16"), ("mode", "u8")),
    STEP_QUERY: (("step", "u16"),),
    INVENTORY: (("part", "u8"), ("offset", "u8"), ("max_items", "u8")),
    IDENTIFY: (("protocol_version", "u8"), ("firmware_version", "u8*3"), ("boot_id", "u16"),
               ("config_crc", "u16"), ("seat_count", "u8"), ("reader_kind", "u8"),
               ("loop_capacity", "u8"), ("max_plan", "u8"), ("deadman_ms", "u16"),
               ("next_event_index", "u16"), ("flags", "u8"), ("trays", "list8"), ("flags2", "opt8")),
    OK: (("command_type", "u8"), ("code", "u8")),
    NAK: (("command_type", "u8"), ("reason", "u8")),
    STATUS_REPLY: (("state", "u8"), ("deal_id", "u16"), ("plan_total", "u8"), ("done", "u8"),
                   ("next_event_index", "u16"), ("flags", "u8"), ("loop_count", "u8"),
                   ("boot_id", "u16")),
    EVENTS: (("first_index", "u16"), ("events", "events")),
    BUSY: (("state", "u8"), ("done", "u8"), ("total", "u8")),
    EVENT: (("first_index", "u16"), ("events", "events")),
    STEP: (("step", "u16"), ("command_type", "u8"), ("state", "u8"), ("card", "u8"), ("target", "u8"),
           ("count", "u8"), ("first_index", "u16")),
    INVENTORY_REPLY: (("part", "u8"), ("offset", "u8"), ("total", "u8"), ("items", "rest")),
}

MAX_PLAN_CHUNK = 122  # (250 - 5) // 2 entries in one DEAL_PLAN frame
FETCH_NEXT = 0x01  # FETCH flags bit0 (an optional byte): the eject brings the loop's next card to the window
FETCH_SWEEP = 0x02  # FETCH flags bit1 (sorting hopper): first read every loop card once, back in its places' order
IDENT_FETCH_FLAGS = 0x40  # IDENTIFY flags bit6: the dealer takes FETCH's flags byte
IDENT_FEED_PLACE = 0x80  # IDENTIFY flags bit7: FEED and ROUTE_PRESENTED take a place byte (target 0x85)
# HELLO's optional host_flags byte, bit0: answer with IDENTIFY's second flags byte (flags2; a dealer
# before it ignores the byte and sends none: its flags2 reads as 0)
HELLO_WANTS_FLAGS2 = 0x01
IDENT2_AWAITS_PERSON = 0x01  # IDENTIFY flags2 bit0: STATUS flags bit6 is reported (a FEED waits for a person)
IDENT2_FEED_FLAGS = 0x02  # IDENTIFY flags2 bit1: FEED and ROUTE_PRESENTED take a flags byte after the place byte
FEED_NEXT = 0x01  # FEED / ROUTE_PRESENTED flags bit0: the fed card's eject brings the loop's next card to the window
NO_PLACE = 0xFF  # the place byte sent before a flags byte when the card has no place (firmware LAST)
PLAN_FRESH = 0x01  # DEAL_PLAN flags bit0: a fresh deal (every card gathered; the dealer's ledger starts again)


class BodyError(ValueError):
    """A message body does not match its type's layout (too short, too long, bad event)."""


def _encode(schema: Schema, fields: Fields, what: str) -> bytes:
    out = bytearray()
    for name, layout in schema:
        if name not in fields:
            if layout == "opt8":  # a trailing optional byte (FETCH's flags): absent
                continue
            raise BodyError(f"{what}: field {name!r} is missing")
        value = fields[name]
        if layout in ("u8", "opt8"):
            out.append(_byte(value, name))
        elif layout == "u16":
            if not 0 <= int(value) <= 0xFFFF:
                raise BodyError(f"{what}: {name} {value!r} does not fit in 16 bits")
            out += int(value).to_bytes(2, "big")
        elif layout.startswith("u8*"):
            count = int(layout[3:])
            if len(value) != count:
                raise BodyError(f"{what}: {name} needs {count} bytes, got {len(value)}")
            out += bytes(_byte(v, name) for v in value)
        elif layout == "list8":
            out.append(_byte(len(value), name))
            out += bytes(_byte(v, name) for v in value)
        elif layout == "pairs":
            for pair in value:
                first, second = pair
                out += bytes((_byte(first, name), _byte(second, name)))
        elif layout == "events":
            for event in value:
                out += encode_event(event)
        elif layout == "rest":
            out += bytes(_byte(v, name) for v in value)
        else:  # pragma: no cover - a schema typo
            raise AssertionError(layout)
    return bytes(out)


def _byte(value: Any, name: str) -> int:
    v = int(value)
    if not 0 <= v <= 0xFF:
        raise BodyError(f"{name} {value!r} does not fit in one byte")
    return v


def _decode(schema: Schema, body: bytes, what: str, first_index: int = 0) -> Fields:
    fields: Fields = {}
    i = 0
    n = len(body)

    def need(size: int, name: str) -> None:
        if i + size > n:
            raise BodyError(f"{what}: body of {n} bytes ends inside {name}")

    for name, layout in schema:
        if layout == "u8":
            need(1, name)
            fields[name] = body[i]
            i += 1
        elif layout == "u16":
            need(2, name)
            fields[name] = (body[i] << 8) | body[i + 1]
            i += 2
        elif layout.startswith("u8*"):
            count = int(layout[3:])
            need(count, name)
            fields[name] = list(body[i:i + count])
            i += count
        elif layout == "list8":
            need(1, name)
            count = body[i]
            need(1 + count, name)
            fields[name] = list(body[i + 1:i + 1 + count])
            i += 1 + count
        elif layout == "pairs":
            if (n - i) % 2:
                raise BodyError(f"{what}: {name} has an odd number of bytes")
            fields[name] = [[body[j], body[j + 1]] for j in range(i, n, 2)]
            i = n
        elif layout == "events":
            fields[name] = decode_events(body[i:], fields.get("first_index", first_index))
            i = n
        elif layout == "rest":
            fields[name] = list(body[i:])
            i = n
        elif layout == "opt8":  # a trailing optional byte: absent when the body ends here
            if i < n:
                fields[name] = body[i]
                i += 1
        else:  # pragma: no cover
            raise AssertionError(layout)
    if i != n:
        raise BodyError(f"{what}: {n - i} bytes left over after the last field")
    return fields


def encode_body(ftype: int, fields: Fields | None = None) -> bytes:
    """The body bytes of message ``ftype`` from its fields (raises BodyError if they do not fit)."""
    schema = SCHEMAS.get(ftype)
    if schema is None:
        raise BodyError(f"unknown message type {ftype:#04x}")
    return _encode(schema, fields or {}, TYPE_NAMES[ftype])


def decode_body(ftype: int, body: bytes) -> Fields:
    """The fields of a body of message ``ftype`` (raises BodyError if malformed or unknown)."""
    schema = SCHEMAS.get(ftype)
    if schema is None:
        raise BodyError(f"unknown message type {ftype:#04x}")
    return _decode(schema, bytes(body), TYPE_NAMES[ftype])


def encode_event(event: Fields) -> bytes:
    """One event of a block: kind, [length,] payload. ``event`` holds kind and payload fields."""
    kind = int(event["kind"])
    entry = EVENT_SCHEMAS.get(kind)
    if entry is None:
        raise BodyError(f"unknown event kind {kind:#04x}")
    name, schema = entry
    payload = _encode(schema, event, name)
    if kind >= 0x40:
        return bytes((kind, len(payload))) + payload
    return bytes((kind,)) + payload


def decode_events(data: bytes, first_index: int) -> list[Fields]:
    """The events of a block body after its u16 first index; indices are consecutive from
    ``first_index`` (mod 65536). Unknown variable-length kinds are kept with their raw bytes,
    as the spec allows; an unknown fixed-size kind cannot be skipped and is an error."""
    events: list[Fields] = []
    i = 0
    n = len(data)
    index = first_index
    while i < n:
        kind = data[i]
        entry = EVENT_SCHEMAS.get(kind)
        if kind >= 0x40:
            if i + 1 >= n:
                raise BodyError(f"event {kind:#04x} has no length byte")
            size = data[i + 1]
            start = i + 2
        elif entry is not None:
            size = sum(1 if lay == "u8" else 2 for _, lay in entry[1])
            start = i + 1
        else:
            raise BodyError(f"unknown fixed-size event kind {kind:#04x}")
        if start + size > n:
            raise BodyError(f"event {kind:#04x} runs past the end of the block")
        payload = bytes(data[start:start + size])
        event: Fields = {"index": index & 0xFFFF, "kind": kind}
        if entry is None:
            event["name"] = f"EVENT_{kind:02X}"
            event["raw"] = list(payload)
        else:
            event["name"] = entry[0]
            event.update(_decode(entry[1], payload, entry[0]))
        events.append(event)
        index += 1
        i = start + size
    return events


def plan_chunks(deal_id: int, entries: Sequence[tuple[int, int]],
                chunk: int = MAX_PLAN_CHUNK, flags: int = 0) -> list[Fields]:
    """The DEAL_PLAN fields for a plan: one frame up to 122 entries, split in order beyond."""
    total = len(entries)
    if not 1 <= total <= 255:
        raise ValueError(f"a deal plan holds 1..255 entries, this one has {total}")
    return [{"deal_id": deal_id, "total": total, "offset": offset, "flags": flags,
             "entries": [list(e) for e in entries[offset:offset + chunk]]}
            for offset in range(0, total, chunk)]
