"""The firmware codec against tests/golden_frames/frames.json (the host's tests use the same file)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from trickref.device.dealer.sim import DealerSimulator
from trickref.firmware import commands
from trickref.firmware import protocol as P

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden_frames"
FRAMES: list[dict[str, Any]] = json.loads((GOLDEN_DIR / "frames.json").read_text())


def _make_frames() -> Any:
    spec = importlib.util.spec_from_file_location("make_frames", GOLDEN_DIR / "make_frames.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_golden_file_is_what_the_generator_writes() -> None:
    assert _make_frames().golden() == FRAMES


def test_golden_set_covers_every_message_type_and_event_kind() -> None:
    types = {f["type"] for f in FRAMES}
    commands_and_replies = {v for k, v in vars(P).items() if k.isupper() and isinstance(v, int)
                            and k in {"HELLO", "PING", "STATUS", "EVENTS_SINCE", "DEAL_PLAN",
                                      "ROUTE_PRESENTED", "FEED",
                                      "FETCH", "ABORT", "ESTOP", "RESET", "RESUME", "SELFTEST", "IDENTIFY",
                                      "OK", "NAK", "STATUS_REPLY", "EVENTS", "BUSY", "EVENT"}}
    assert commands_and_replies <= types
    kinds = {e["kind"] for f in FRAMES for e in f["fields"].get("events", [])}
    assert set(P.EVENT_SIZES) | {P.EV_DEAL_DONE, P.EV_SELFTEST_DONE} <= kinds
    assert any(f["seq"] == 255 for f in FRAMES) and any(f["ack"] == 255 for f in FRAMES)
    assert any(bytes.fromhex(f["hex"])[0] == 0xFF for f in FRAMES), "a frame with a 254-byte run of non-zero bytes"


@pytest.mark.parametrize("g", FRAMES, ids=[f["name"] for f in FRAMES])
def test_decode_and_encode_match_golden(g: dict[str, Any]) -> None:
    wire = bytes.fromhex(g["hex"])
    assert wire[-1] == 0 and 0 not in wire[:-1]
    assert P.cobs_decode(wire[:-1]) == bytes.fromhex(g["frame"])
    frames = P.Parser().feed_bytes(wire)
    assert len(frames) == 1
    f = frames[0]
    assert f.ok
    assert (f.type, f.seq, f.ack, f.body.hex()) == (g["type"], g["seq"], g["ack"], g["body"])
    assert P.encode_frame(g["type"], g["seq"], g["ack"], bytes.fromhex(g["body"])) == wire


@pytest.mark.parametrize("g", [f for f in FRAMES if f["type"] in (P.EVENT, P.EVENTS)],
                         ids=[f["name"] for f in FRAMES if f["type"] in (P.EVENT, P.EVENTS)])
def test_event_blocks_match_fields(g: dict[str, Any]) -> None:
    body = bytes.fromhex(g["body"])
    events = P.parse_event_block(body)
    want = g["fields"]["events"]
    assert [(i, k) for i, k, _ in events] == [(e["index"], e["kind"]) for e in want]
    mf = _make_frames()
    for (_, kind, payload), e in zip(events, want, strict=True):
        assert payload == mf.pack(mf.EVENTS[kind][1], e)
    # and the firmware's own encoder gives the same block
    encoded = [P.event_bytes(k, p) for _, k, p in events]
    assert P.event_block(g["fields"]["first_index"], encoded) == body


@pytest.mark.parametrize("g", [f for f in FRAMES if f["type"] in (P.OK, P.NAK, P.BUSY)],
                         ids=[f["name"] for f in FRAMES if f["type"] in (P.OK, P.NAK, P.BUSY)])
def test_small_replies_match_fields(g: dict[str, Any]) -> None:
    body = bytes.fromhex(g["body"])
    f = g["fields"]
    if g["type"] == P.BUSY:
        assert tuple(body) == (f["state"], f["done"], f["total"])
    else:
        first = "code" if g["type"] == P.OK else "reason"
        assert tuple(body) == (f["command_type"], f[first])


def test_identify_and_status_bodies_follow_the_golden_layout() -> None:
    mf = _make_frames()
    sim = DealerSimulator(seats=11)
    sim.board.boot = 0xBEEF
    sim.reboot()
    sim.board.boot = 0xBEEF
    d = commands.Dealer(sim.board, sim.cfg)
    golden = next(f for f in FRAMES if f["name"].startswith("identify v3"))["fields"]
    fields = dict(golden, config_crc=d.config_crc, next_event_index=d.next_event, reader_kind=2,
                  boot_id=0xBEEF)
    assert d.identify_body() == mf.pack(mf.LAYOUTS["IDENTIFY"], fields)
    # asked for by HELLO's host_flags: the same with the second flags byte at the end
    golden2 = next(f for f in FRAMES if f["name"].startswith("identify v3 with flags2"))["fields"]
    # (the golden frame's flags2 is a dealer's with bit0 only; this one has bit1 too: FEED and
    # ROUTE_PRESENTED take a flags byte)
    assert golden2["flags2"] == 0x01 and sim.cfg.FLAGS2 == 0x03
    fields2 = dict(golden2, config_crc=d.config_crc, next_event_index=d.next_event, reader_kind=2,
                   boot_id=0xBEEF, flags2=sim.cfg.FLAGS2)
    assert d.identify_body(True) == mf.pack(mf.LAYOUTS["IDENTIFY"], fields2)
    status = d.status_body()
    assert len(status) == len(bytes.fromhex(next(f for f in FRAMES if f["type"] == P.STATUS_REPLY)["body"]))
    assert status[0] == 0 and P.get_u16(status, 9) == 0xBEEF


@pytest.mark.parametrize("g", [f for f in FRAMES if f["direction"] == "host"],
                         ids=[f["name"] for f in FRAMES if f["direction"] == "host"])
def test_firmware_understands_every_host_golden_frame(g: dict[str, Any]) -> None:
    """Fed to a dealer, a golden command is never refused as unreadable or malformed."""
    sim = DealerSimulator(seats=11, speed=1.0)
    parser = P.Parser()
    sim.board.rx.extend(bytes.fromhex(g["hex"]))
    sim.step(20)
    replies = [f for f in parser.feed_bytes(bytes(sim.board.tx)) if f.type not in (P.EVENT, P.BUSY)]
    assert len(replies) == 1
    r = replies[0]
    assert r.ack == g["seq"]
    if r.type == P.NAK:
        assert r.body[1] not in (P.NAK_BAD_CRC, P.NAK_BAD_VERSION, P.NAK_UNKNOWN_TYPE, P.NAK_BAD_BODY), r


def test_step_and_inventory_bodies_follow_the_golden_layout() -> None:
    """Protocol 3: the firmware's STEP and INVENTORY_REPLY bodies are the golden frames' bytes."""
    from trickref.firmware import steps as S

    for g in (f for f in FRAMES if f["type"] == P.STEP):
        f = g["fields"]
        if f["state"] == P.STEP_UNKNOWN:
            assert S.unknown_body(f["step"]) == bytes.fromhex(g["body"])
            continue
        s = S.Step(f["step"], f["command_type"], 0, f["first_index"])
        s.state, s.card, s.target, s.count = f["state"], f["card"], f["target"], f["count"]
        assert s.body() == bytes.fromhex(g["body"]), g["name"]
    sim = DealerSimulator(seats=4)
    d = sim.firmware.dealer
    d.ledger.rejects = [0xFF, 31]
    d.ledger.pockets = {0: 13, 1: 13, 0x80: 1}
    for g in (f for f in FRAMES if f["type"] == P.INVENTORY_REPLY and f["fields"]["part"] in (1, 2)):
        f = g["fields"]
        assert S.inventory_body(d, f["part"], f["offset"], 0) == bytes.fromhex(g["body"]), g["name"]
