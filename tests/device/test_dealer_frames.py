"""The host's frame codec: COBS, CRC, headers, the stream splitter, body schemas."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trickref.device.dealer import frames as fr
from trickref.device.dealer import messages as m


def test_crc_check_value() -> None:
    assert fr.crc16(b"123456789") == 0x29B1
    assert fr.crc16(b"") == 0xFFFF


@pytest.mark.parametrize(("raw", "encoded"), [
    (b"", b"\x01"),
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x01"),
    (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255)) + b"\x01"),
])
def test_cobs_reference_vectors(raw: bytes, encoded: bytes) -> None:
    # The examples of Cheshire & Baker's paper / the Wikipedia table.
    assert fr.cobs_encode(raw) == encoded
    assert fr.cobs_decode(encoded) == raw


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    enc = fr.cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert fr.cobs_decode(enc) == data


@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255),
       st.binary(max_size=fr.MAX_BODY))
def test_frame_round_trip(ftype: int, seq: int, ack: int, body: bytes) -> None:
    frame = fr.Frame(ftype, seq, ack, body)
    wire = frame.encode()
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert fr.decode(wire) == frame


@given(st.lists(st.binary(max_size=60), min_size=1, max_size=8), st.data())
def test_reader_splits_any_chunking(bodies: list[bytes], data: st.DataObject) -> None:
    frames = [fr.Frame(0x87, i, 0, b) for i, b in enumerate(bodies)]
    stream = b"".join(f.encode() for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    reader = fr.FrameReader()
    got = []
    last = 0
    for cut in [*cuts, len(stream)]:
        got += reader.feed(stream[last:cut])
        last = cut
    assert got == frames
    assert reader.errors == 0


@given(st.binary(min_size=1, max_size=40), st.integers(0, 10_000), st.integers(0, 7))
def test_a_flipped_bit_costs_at_most_that_frame(body: bytes, where: int, bit: int) -> None:
    frames = [fr.Frame(0x87, i, 0, body) for i in range(3)]
    stream = bytearray(b"".join(f.encode() for f in frames))
    pos = where % len(stream)
    stream[pos] ^= 1 << bit
    got = fr.FrameReader().feed(bytes(stream))
    # Never a damaged frame delivered; at most the hit frame (or two, if a delimiter was hit).
    assert all(g in frames for g in got)
    assert len(got) >= 1


def test_reader_drops_garbage_and_oversized_runs() -> None:
    reader = fr.FrameReader()
    good = fr.Frame(0x82, 1, 2, b"\x02\x00")
    assert reader.feed(b"\x05\x01\x02\x00") == []       # COBS code past the end
    assert reader.feed(b"\x01" * 2000) == []              # no delimiter for far too long
    assert reader.feed(b"\x00" + good.encode()) == [good]  # resyncs at the next zero
    assert reader.errors == 2


def test_unpack_errors_say_what_is_wrong() -> None:
    with pytest.raises(fr.FrameError, match="shorter"):
        fr.unpack(b"\x01\x02\x03")
    raw = bytearray(fr.Frame(1, 0, 0).pack())
    raw[0] = 2
    raw[-2:] = fr.crc16(raw[:-2]).to_bytes(2, "big")
    with pytest.raises(fr.FrameError, match="version 2"):
        fr.unpack(bytes(raw))
    with pytest.raises(ValueError, match="one byte"):
        fr.Frame(256, 0, 0)
    with pytest.raises(ValueError, match="exceeds"):
        fr.Frame(1, 0, 0, bytes(251))


def test_body_errors() -> None:
    with pytest.raises(m.BodyError, match="ends inside"):
        m.decode_body(m.OK, b"\x01")
    with pytest.raises(m.BodyError, match="left over"):
        m.decode_body(m.PING, b"\x01")
    with pytest.raises(m.BodyError, match="odd"):
        m.decode_body(m.DEAL_PLAN, b"\x00\x01\x02\x00\x01\x05")
    with pytest.raises(m.BodyError, match="missing"):
        m.encode_body(m.ROUTE_PRESENTED, {})
    with pytest.raises(m.BodyError, match="unknown fixed-size"):
        m.decode_body(m.EVENT, b"\x00\x00\x3f")
    with pytest.raises(m.BodyError, match="unknown message type"):
        m.decode_body(0x40, b"")


def test_unknown_variable_event_is_skipped_with_its_bytes() -> None:
    fields = m.decode_body(m.EVENT, b"\x00\x07\x7e\x02\xaa\xbb\x0e\x03")
    assert fields["events"][0] == {"index": 7, "kind": 0x7E, "name": "EVENT_7E",
                                   "raw": [0xAA, 0xBB]}
    assert fields["events"][1]["name"] == "FEED_DONE"
    assert fields["events"][1]["index"] == 8


def test_plan_chunks_split_in_order() -> None:
    entries = [(i % 52, i % 4) for i in range(200)]
    chunks = m.plan_chunks(9, entries)
    assert [c["offset"] for c in chunks] == [0, 122]
    assert all(c["total"] == 200 for c in chunks)
    assert sum(len(c["entries"]) for c in chunks) == 200
    for c in chunks:
        assert len(m.encode_body(m.DEAL_PLAN, c)) <= fr.MAX_BODY
    with pytest.raises(ValueError):
        m.plan_chunks(1, [])


def test_names() -> None:
    assert m.card_name(10) == "QS"
    assert m.card_name(51) == "AC"
    assert m.card_name(0xFF) == "??"
    assert m.target_name(3) == "seat 3"
    assert m.target_name(m.CENTRE) == "centre pocket"


def _fields_for(schema: m.Schema, draw: st.DrawFn) -> dict[str, object]:
    fields: dict[str, object] = {}
    for name, layout in schema:
        if layout == "u8":
            fields[name] = draw(st.integers(0, 255))
        elif layout == "u16":
            fields[name] = draw(st.integers(0, 0xFFFF))
        elif layout.startswith("u8*"):
            n = int(layout[3:])
            fields[name] = draw(st.lists(st.integers(0, 255), min_size=n, max_size=n))
        elif layout in ("list8", "rest"):
            fields[name] = draw(st.lists(st.integers(0, 255), max_size=20))
        elif layout == "pairs":
            fields[name] = draw(st.lists(st.lists(st.integers(0, 255), min_size=2, max_size=2),
                                         max_size=20))
        elif layout == "events":
            first = fields["first_index"]
            assert isinstance(first, int)
            events = []
            for i, kind in enumerate(draw(st.lists(st.sampled_from(sorted(m.EVENT_SCHEMAS)),
                                                   max_size=8))):
                name_, ev_schema = m.EVENT_SCHEMAS[kind]
                ev = {"index": (first + i) & 0xFFFF, "kind": kind, "name": name_}
                ev.update(_fields_for(ev_schema, draw))
                events.append(ev)
            fields[name] = events
    return fields


@st.composite
def messages(draw: st.DrawFn) -> tuple[int, dict[str, object]]:
    ftype = draw(st.sampled_from(sorted(m.SCHEMAS)))
    return ftype, _fields_for(m.SCHEMAS[ftype], draw)


@given(messages())
def test_every_message_body_round_trips(msg: tuple[int, dict[str, object]]) -> None:
    ftype, fields = msg
    body = m.encode_body(ftype, fields)
    assert m.decode_body(ftype, body) == fields
    assert m.encode_body(ftype, m.decode_body(ftype, body)) == body
