"""Generate tests/golden_frames/frames.json from hardware/PROTOCOL.md.

This is a third, independent reading of the spec (it imports neither firmware.protocol nor the
host codec): each golden frame is written as named fields, packed here by the tables below,
CRC'd and COBS-encoded. The firmware tests and the host tests both decode every ``hex`` and
must find the same type/seq/ack/body/fields, and encode the fields back to the same bytes.

Run: .venv/bin/python tests/golden_frames/make_frames.py   (rewrites frames.json next to it)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

TYPES = {
    0x01: "HELLO", 0x02: "PING", 0x03: "STATUS", 0x04: "EVENTS_SINCE", 0x05: "DEAL_PLAN",
    0x07: "ROUTE_PRESENTED", 0x0B: "FEED", 0x0C: "FETCH", 0x0D: "ABORT", 0x0E: "ESTOP",
    0x0F: "RESET", 0x10: "RESUME", 0x11: "SELFTEST", 0x12: "STEP_QUERY", 0x13: "INVENTORY",
    0x81: "IDENTIFY", 0x82: "OK", 0x83: "NAK", 0x84: "STATUS_REPLY", 0x85: "EVENTS",
    0x86: "BUSY", 0x87: "EVENT", 0x88: "STEP", 0x89: "INVENTORY_REPLY",
}
BY_NAME = {v: k for k, v in TYPES.items()}

# Body layouts: (field, kind) with kinds u8, u16, version3, entries (card,target pairs to the
# end), trays (u8 count then bytes), events (event block), rest (the remaining bytes). Order is
# wire order. Protocol 3: the step commands start with a u16 step id (section 12).
LAYOUTS: dict[str, list[tuple[str, str]]] = {
    "HELLO": [("host_version", "u8"), ("deadman_ms", "u16"), ("host_flags", "opt8")],
    "PING": [], "STATUS": [], "ESTOP": [],
    "ABORT": [("step", "u16")], "RESUME": [("step", "u16")],
    "EVENTS_SINCE": [("first_index", "u16"), ("max_events", "u8")],
    "DEAL_PLAN": [("deal_id", "u16"), ("total", "u8"), ("offset", "u8"), ("flags", "u8"), ("entries", "entries")],
    "ROUTE_PRESENTED": [("step", "u16"), ("target", "u8")],
    "FEED": [("step", "u16"), ("count", "u8"), ("target", "u8")],
    "FETCH": [("step", "u16"), ("source", "u8"), ("card", "u8"), ("target", "u8")],
    "RESET": [("mode", "u8")],
    "SELFTEST": [("step", "u16"), ("mode", "u8")],
    "STEP_QUERY": [("step", "u16")],
    "INVENTORY": [("part", "u8"), ("offset", "u8"), ("max_items", "u8")],
    "STEP": [("step", "u16"), ("command_type", "u8"), ("state", "u8"), ("card", "u8"), ("target", "u8"),
             ("count", "u8"), ("first_index", "u16")],
    "INVENTORY_REPLY": [("part", "u8"), ("offset", "u8"), ("total", "u8"), ("items", "rest")],
    "IDENTIFY": [("protocol_version", "u8"), ("firmware_version", "version3"), ("boot_id", "u16"),
                 ("config_crc", "u16"), ("seat_count", "u8"), ("reader_kind", "u8"),
                 ("loop_capacity", "u8"), ("max_plan", "u8"), ("deadman_ms", "u16"),
                 ("next_event_index", "u16"), ("flags", "u8"), ("trays", "trays"), ("flags2", "opt8")],
    "OK": [("command_type", "u8"), ("code", "u8")],
    "NAK": [("command_type", "u8"), ("reason", "u8")],
    "STATUS_REPLY": [("state", "u8"), ("deal_id", "u16"), ("plan_total", "u8"), ("done", "u8"),
                     ("next_event_index", "u16"), ("flags", "u8"), ("loop_count", "u8"),
                     ("boot_id", "u16")],
    "BUSY": [("state", "u8"), ("done", "u8"), ("total", "u8")],
    "EVENTS": [("first_index", "u16"), ("events", "events")],
    "EVENT": [("first_index", "u16"), ("events", "events")],
}

EVENTS: dict[int, tuple[str, list[tuple[str, str]]]] = {
    0x01: ("CARD_DEALT", [("card", "u8"), ("target", "u8"), ("confidence", "u8")]),
    0x02: ("PRESENTED", [("seat", "u8"), ("card", "u8"), ("confidence", "u8")]),
    0x03: ("CARD_ROUTED", [("card", "u8"), ("target", "u8")]),
    0x04: ("MISREAD", [("target", "u8"), ("attempts", "u8")]),
    0x05: ("DUPLICATE", [("card", "u8"), ("target", "u8")]),
    0x06: ("JAM", [("stage", "u8"), ("card", "u8")]),
    0x07: ("HOPPER_EMPTY", [("remaining", "u8")]),
    0x08: ("POCKET_FULL", [("target", "u8")]),
    0x09: ("FAULT", [("code", "u8"), ("detail", "u8")]),
    0x0A: ("ESTOP", [("source", "u8")]),
    0x0B: ("DEADMAN", [("stage", "u8")]),
    0x0C: ("ABORTED", [("deal_id", "u16")]),
    0x0D: ("BOOT", [("reason", "u8")]),
    0x0E: ("FEED_DONE", [("count", "u8")]),
    0x0F: ("RESUMED", [("stage", "u8")]),
    0x10: ("STAGED", [("card", "u8"), ("passes", "u8")]),
    0x11: ("DOUBLE_FEED", [("card", "u8"), ("how", "u8")]),
    0x40: ("DEAL_DONE", [("deal_id", "u16"), ("dealt", "u8"), ("rejected", "u8"),
                         ("missing", "list"), ("duplicates", "list")]),
    0x41: ("SELFTEST_DONE", [("read", "u8"), ("misreads", "u8"), ("missing", "list"),
                             ("duplicates", "list")]),
}
EVENT_KIND = {name: kind for kind, (name, _) in EVENTS.items()}


def crc16(data: bytes) -> int:
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def cobs(data: bytes) -> bytes:
    out = bytearray()
    run = bytearray()
    for b in data:
        if b:
            run.append(b)
            if len(run) == 254:
                out += bytes([255]) + run
                run = bytearray()
        else:
            out += bytes([len(run) + 1]) + run
            run = bytearray()
    out += bytes([len(run) + 1]) + run
    return bytes(out)


def pack(layout: list[tuple[str, str]], fields: dict[str, Any]) -> bytes:
    out = bytearray()
    for name, kind in layout:
        if kind == "opt8" and name not in fields:
            continue  # a trailing optional byte (HELLO's host_flags, IDENTIFY's flags2): absent
        v = fields[name]
        if kind in ("u8", "opt8"):
            out.append(v)
        elif kind == "u16":
            out += v.to_bytes(2, "big")
        elif kind == "version3":
            out += bytes(v)
        elif kind == "entries":
            for card, target in v:
                out += bytes((card, target))
        elif kind == "rest":
            out += bytes(v)
        elif kind in ("trays", "list"):
            out.append(len(v))
            out += bytes(v)
        elif kind == "events":
            for e in v:
                kind_byte = EVENT_KIND[e["name"]]
                payload = pack(EVENTS[kind_byte][1], e)
                out.append(kind_byte)
                if kind_byte >= 0x40:
                    out.append(len(payload))
                out += payload
        else:
            raise ValueError(f"unknown field kind {kind!r}")
    return bytes(out)


def frame(name: str, type_name: str, seq: int, ack: int, **fields: Any) -> dict[str, Any]:
    ftype = BY_NAME[type_name]
    if "events" in fields:
        first = fields["first_index"]
        fields["events"] = [
            {"index": (first + i) & 0xFFFF, "kind": EVENT_KIND[e["name"]], **e} for i, e in enumerate(fields["events"])
        ]
    body = pack(LAYOUTS[type_name], fields)
    assert len(body) <= 250, name
    decoded = bytes((1, ftype, seq, ack)) + body
    decoded += crc16(decoded).to_bytes(2, "big")
    return {
        "name": name,
        "direction": "host" if ftype < 0x80 else "dealer",
        "type": ftype,
        "type_name": type_name,
        "seq": seq,
        "ack": ack,
        "body": body.hex(),
        "fields": fields,
        "frame": decoded.hex(),
        "hex": (cobs(decoded) + b"\x00").hex(),
    }


def _crc_with_zero_seq() -> int:
    """A PING seq whose CRC has a zero byte, so the CRC itself needs COBS stuffing."""
    for seq in range(256):
        c = crc16(bytes((1, 0x02, seq, 0)))
        if c & 0xFF == 0 or c >> 8 == 0:
            return seq
    raise AssertionError("no PING seq gives a CRC with a zero byte")


def golden() -> list[dict[str, Any]]:
    deck_order = [(7 * i + 3) % 52 for i in range(52)]
    plan52 = [[c, i % 4] for i, c in enumerate(deck_order)]
    plan104 = [[(5 * i + 1) % 52, (i % 6) if i < 96 else 0x85] for i in range(104)]
    nonzero_chunk = [[1 + (i % 51), 1 + (i % 3)] for i in range(122)]
    f = [
        frame("hello", "HELLO", 0, 0, host_version=3, deadman_ms=3000),
        frame("hello keep deadman", "HELLO", 1, 0, host_version=3, deadman_ms=0),
        frame("ping", "PING", 2, 1),
        frame("ping seq 255", "PING", 255, 254),
        frame("ping seq wraps to 0", "PING", 0, 255),
        frame("ping whose crc needs stuffing", "PING", _crc_with_zero_seq(), 0),
        frame("status", "STATUS", 3, 2),
        frame("events since 0", "EVENTS_SINCE", 4, 3, first_index=0, max_events=0),
        frame("events since 65535, max 10", "EVENTS_SINCE", 5, 4, first_index=65535, max_events=10),
        frame("deal plan 52 cards to 4 seats", "DEAL_PLAN", 6, 5, deal_id=1, total=52, offset=0, flags=1, entries=plan52),
        frame("deal plan 104 cards in one frame", "DEAL_PLAN", 7, 6, deal_id=258, total=104, offset=0, flags=1, entries=plan104),
        frame("deal plan split chunk 1 of 2", "DEAL_PLAN", 8, 7, deal_id=0x1234, total=200, offset=0, flags=1,
              entries=[[c, 0x80 if c < 2 else 0x82 if c > 49 else c % 6] for c in range(52)] * 2 + [[5, 0x85]] * 18),
        frame("deal plan chunk with a 250-byte run of non-zero bytes", "DEAL_PLAN", 9, 8, deal_id=0x1234,
              total=200, offset=77, flags=1, entries=nonzero_chunk),
        frame("deal plan of a hand-over (not a fresh deal: flags 0)", "DEAL_PLAN", 10, 9, deal_id=0x0203, total=3,
              offset=0, flags=0, entries=[[5, 1], [18, 2], [44, 0]]),
        frame("route presented to discard", "ROUTE_PRESENTED", 11, 10, step=0x0102, target=0x81),
        frame("route presented to seat 0 (step 0: zeros)", "ROUTE_PRESENTED", 12, 11, step=0, target=0),
        frame("feed 1 and hold", "FEED", 17, 16, step=0x8001, count=1, target=0xFE),
        frame("feed until abort to trick tray", "FEED", 18, 17, step=0x7FFF, count=0, target=0x84),
        frame("abort", "ABORT", 20, 19, step=0x8123),
        frame("estop", "ESTOP", 21, 20),
        frame("reset clear", "RESET", 22, 21, mode=0),
        frame("reset reboot", "RESET", 23, 22, mode=1),
        frame("resume", "RESUME", 24, 23, step=0x8124),
        frame("selftest round robin", "SELFTEST", 25, 24, step=0x8125, mode=1),
        frame("ok ping", "OK", 2, 2, command_type=0x02, code=0),
        frame("ok deal started", "OK", 3, 6, command_type=0x05, code=2),
        frame("ok deal already", "OK", 4, 6, command_type=0x05, code=3),
        frame("ok plan chunk accepted", "OK", 5, 8, command_type=0x05, code=1),
        frame("nak bad crc", "NAK", 6, 8, command_type=0, reason=1),
        frame("nak busy fetch", "NAK", 7, 10, command_type=0x0C, reason=5),
        frame("nak unknown type (v1 present)", "NAK", 7, 10, command_type=0x06, reason=3),
        frame("nak estopped", "NAK", 8, 11, command_type=0x07, reason=9),
        frame("status reply dealing", "STATUS_REPLY", 9, 3, state=2, deal_id=1, plan_total=52, done=17,
              next_event_index=18, flags=2, loop_count=0, boot_id=0xBEEF),
        frame("status reply estopped", "STATUS_REPLY", 10, 3, state=8, deal_id=0, plan_total=0, done=0,
              next_event_index=0, flags=0x21, loop_count=0, boot_id=1),
        frame("busy", "BUSY", 11, 7, state=2, done=30, total=52),
        frame("event card dealt", "EVENT", 12, 6, first_index=1,
              events=[{"name": "CARD_DEALT", "card": 36, "target": 2, "confidence": 97}]),
        frame("event card dealt 2S to seat 0 (zeros)", "EVENT", 13, 6, first_index=256,
              events=[{"name": "CARD_DEALT", "card": 0, "target": 0, "confidence": 100}]),
        frame("event index wraps", "EVENT", 14, 6, first_index=65535,
              events=[{"name": "CARD_DEALT", "card": 51, "target": 0x85, "confidence": 90},
                      {"name": "CARD_DEALT", "card": 12, "target": 0x80, "confidence": 60}]),
        frame("event boot", "EVENT", 0, 0, first_index=0, events=[{"name": "BOOT", "reason": 1}]),
        frame("event deal done with missing and duplicates", "EVENT", 15, 6, first_index=53,
              events=[{"name": "HOPPER_EMPTY", "remaining": 1},
                      {"name": "DEAL_DONE", "deal_id": 1, "dealt": 51, "rejected": 1, "missing": [36],
                       "duplicates": [5]}]),
        frame("event deal done clean", "EVENT", 16, 6, first_index=55,
              events=[{"name": "DEAL_DONE", "deal_id": 2, "dealt": 52, "rejected": 0, "missing": [],
                       "duplicates": []}]),
        frame("events every fixed kind", "EVENTS", 17, 30, first_index=100, events=[
            {"name": "PRESENTED", "seat": 0xFE, "card": 21, "confidence": 98},
            {"name": "CARD_ROUTED", "card": 20, "target": 0x81},
            {"name": "MISREAD", "target": 0x80, "attempts": 3},
            {"name": "DUPLICATE", "card": 7, "target": 0x80},
            {"name": "JAM", "stage": 4, "card": 9},
            {"name": "POCKET_FULL", "target": 0x84},
            {"name": "FAULT", "code": 2, "detail": 0},
            {"name": "ESTOP", "source": 2},
            {"name": "DEADMAN", "stage": 3},
            {"name": "ABORTED", "deal_id": 0x0102},
            {"name": "FEED_DONE", "count": 3},
            {"name": "RESUMED", "stage": 3},
            {"name": "SELFTEST_DONE", "read": 51, "misreads": 1, "missing": [0], "duplicates": []},
        ]),
        frame("events empty (host up to date)", "EVENTS", 18, 31, first_index=77, events=[]),
        frame("event double feed (dealer v2)", "EVENT", 19, 32, first_index=78, events=[
            {"name": "DOUBLE_FEED", "card": 0xFF, "how": 1},
            {"name": "DOUBLE_FEED", "card": 12, "how": 2},
        ]),
        # dealer v2 (hardware/PROTOCOL.md section 11): the loop, FETCH by identity, staging
        frame("identify v3 (loop, double-feed sensing, FETCH flags)", "IDENTIFY", 1, 0, protocol_version=3,
              firmware_version=[1, 2, 0], boot_id=0x0B0B, config_crc=0x2E2E, seat_count=11, reader_kind=1,
              loop_capacity=120, max_plan=208, deadman_ms=3000, next_event_index=1, flags=0xF3,
              trays=[0x80, 0x81, 0x82, 0x84, 0x85]),
        frame("deal plan german whist: hands, stock to the loop", "DEAL_PLAN", 26, 25, deal_id=7, total=52,
              offset=0, flags=1, entries=[[c, c % 2 if c < 26 else 0x85] for c in range(52)]),
        frame("feed 3 passes to the loop", "FEED", 27, 26, step=41, count=3, target=0x85),
        frame("fetch 9S from the loop to seat 1", "FETCH", 28, 27, step=42, source=0x85, card=7, target=1),
        frame("fetch 2S from the loop to the trick pocket (zeros)", "FETCH", 29, 28, step=43, source=0x85, card=0,
              target=0x84),
        frame("stage AS (fetch from the loop to hold)", "FETCH", 30, 29, step=44, source=0x85, card=12, target=0xFE),
        frame("status reply v2: loop model valid, 26 in the loop", "STATUS_REPLY", 20, 3, state=0, deal_id=7,
              plan_total=52, done=52, next_event_index=60, flags=0x0A, loop_count=26, boot_id=0x0B0B),
        frame("event staged, card routed from the loop", "EVENT", 21, 30, first_index=61, events=[
            {"name": "STAGED", "card": 12, "passes": 25},
            {"name": "STAGED", "card": 0, "passes": 255},
            {"name": "CARD_ROUTED", "card": 12, "target": 1},
        ]),
        frame("event pocket full, loop jams", "EVENT", 22, 30, first_index=64, events=[
            {"name": "POCKET_FULL", "target": 0x82},
            {"name": "JAM", "stage": 3, "card": 40},
            {"name": "JAM", "stage": 4, "card": 41},
            {"name": "JAM", "stage": 5, "card": 42},
            {"name": "CARD_DEALT", "card": 8, "target": 0x85, "confidence": 97},
        ]),
        frame("nak fetch: card not in the loop", "NAK", 23, 28, command_type=0x0C, reason=8),
        # protocol 3 (hardware/PROTOCOL.md section 12): step ids, STEP_QUERY, INVENTORY
        frame("step query", "STEP_QUERY", 31, 30, step=0x1234),
        frame("step reply: a routing done, 7H to the trick pocket", "STEP", 24, 31, step=0x1234, command_type=0x07,
              state=2, card=18, target=0x84, count=1, first_index=0x0100),
        frame("step reply: a fed card held (FEED HOLD)", "STEP", 25, 31, step=0x8001, command_type=0x0B, state=6,
              card=36, target=0xFE, count=1, first_index=77),
        frame("step reply: unknown step", "STEP", 26, 31, step=9, command_type=0, state=0, card=0xFF, target=0xFF,
              count=0, first_index=0),
        frame("nak conflict: a step id used for another step", "NAK", 27, 32, command_type=0x0C, reason=6),
        frame("inventory summary", "INVENTORY", 32, 31, part=0, offset=0, max_items=0),
        frame("inventory reject pocket, 16 at a time", "INVENTORY", 33, 32, part=2, offset=16, max_items=16),
        frame("inventory reply summary: 7D held in the window, loop valid", "INVENTORY_REPLY", 28, 32, part=0,
              offset=0, total=4, items=[31, 0x07, 26, 1]),
        frame("inventory reply pockets (target, count)", "INVENTORY_REPLY", 29, 33, part=1, offset=0, total=3,
              items=[0, 13, 1, 13, 0x80, 1]),
        frame("inventory reply reject pocket (unreadable, 7D)", "INVENTORY_REPLY", 30, 34, part=2, offset=0, total=2,
              items=[0xFF, 31]),
        frame("inventory reply loop, empty", "INVENTORY_REPLY", 31, 35, part=3, offset=0, total=0, items=[]),
        # IDENTIFY's second flags byte (hardware/PROTOCOL.md section 4): a host asks for it in HELLO's
        # optional host_flags; a dealer that has it answers with flags2 (bit0: STATUS flags bit6 reported)
        frame("hello asking for IDENTIFY's second flags byte", "HELLO", 34, 33, host_version=3, deadman_ms=3000,
              host_flags=0x01),
        frame("identify v3 with flags2 (STATUS bit6 reported)", "IDENTIFY", 32, 34, protocol_version=3,
              firmware_version=[1, 2, 0], boot_id=0x0B0B, config_crc=0x2E2E, seat_count=11, reader_kind=1,
              loop_capacity=120, max_plan=208, deadman_ms=3000, next_event_index=1, flags=0xF3,
              trays=[0x80, 0x81, 0x82, 0x84, 0x85], flags2=0x01),
    ]
    return f


def main() -> int:
    out = HERE / "frames.json"
    out.write_text(json.dumps(golden(), indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
