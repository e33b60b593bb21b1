"""COBS, CRC and the byte-by-byte parser: round trips and resynchronisation."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trickref.firmware import protocol as P


def test_crc_check_value() -> None:
    assert P.crc16(b"123456789") == 0x29B1


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    enc = P.cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert P.cobs_decode(enc) == data


@given(st.integers(0, 0x3F), st.integers(0, 255), st.integers(0, 255), st.binary(max_size=250))
def test_frames_round_trip_through_the_parser(ftype: int, seq: int, ack: int, body: bytes) -> None:
    frames = P.Parser().feed_bytes(P.encode_frame(ftype, seq, ack, body))
    assert len(frames) == 1
    f = frames[0]
    assert f.ok and (f.type, f.seq, f.ack, f.body) == (ftype, seq, ack, body)


@settings(max_examples=60)
@given(st.binary(max_size=400), st.binary(min_size=0, max_size=250))
def test_parser_recovers_after_any_garbage(garbage: bytes, body: bytes) -> None:
    """Whatever came before, a delimiter then a good frame is received intact."""
    p = P.Parser()
    p.feed_bytes(garbage)
    frames = p.feed_bytes(b"\x00" + P.encode_frame(0x02, 9, 1, body))
    assert frames and frames[-1].ok and frames[-1].body == body


@given(st.binary(max_size=250), st.integers(0, 10_000), st.integers(0, 7))
def test_a_flipped_bit_is_always_caught_by_the_crc(body: bytes, pos: int, bit: int) -> None:
    raw = bytearray(P.build_frame(0x05, 1, 0, body))
    raw[pos % len(raw)] ^= 1 << bit
    f = P.parse_frame(bytes(raw))
    assert f is not None and not f.ok
    wire = P.cobs_encode(bytes(raw)) + b"\x00"
    assert all(not fr.ok for fr in P.Parser().feed_bytes(wire))


def test_overlong_run_is_dropped_and_memory_bounded() -> None:
    p = P.Parser()
    assert p.feed_bytes(b"\x01" * 5000) == []
    assert len(p.buf) <= P.MAX_FRAME + 3
    assert p.feed_bytes(b"\x00") == [] and p.dropped == 1
    assert p.feed_bytes(P.encode_frame(0x02, 1, 0))[0].ok


def test_wrong_version_is_reported_not_accepted() -> None:
    raw = bytearray(P.build_frame(0x02, 1, 0))
    raw[0] = 2
    c = P.crc16(bytes(raw[:-2]))
    raw[-2:] = bytes((c >> 8, c & 0xFF))
    f = P.Parser().feed_bytes(P.cobs_encode(bytes(raw)) + b"\x00")[0]
    assert not f.ok and f.reason == P.NAK_BAD_VERSION


def test_event_block_round_trip_and_errors() -> None:
    evs = [P.event_bytes(P.EV_CARD_DEALT, b"\x01\x02\x03"), P.event_bytes(P.EV_DEAL_DONE, b"\x00\x01\x34\x00\x00\x00")]
    block = P.event_block(65535, evs)
    parsed = P.parse_event_block(block)
    assert [(i, k) for i, k, _ in parsed] == [(65535, P.EV_CARD_DEALT), (0, P.EV_DEAL_DONE)]
    for broken in (b"\x00", b"\x00\x00\x01\x01", b"\x00\x00\x3f", b"\x00\x00\x40"):
        try:
            P.parse_event_block(broken)
        except ValueError:
            continue
        raise AssertionError(f"{broken!r} should be refused")
