"""The dealer link's framing: COBS, CRC-16/CCITT-FALSE, and the frame header.

On the wire every frame is COBS-encoded and followed by one 0x00 byte, so a receiver that
lost sync (a corrupted, dropped or inserted byte) finds the next frame at the next zero and
never has to guess lengths. Decoded, a frame is::

    version (1) | type (1) | seq (1) | ack (1) | body (0..MAX_BODY) | CRC-16 (2, big-endian)

The CRC (poly 0x1021, init 0xFFFF, no reflection, no xorout) covers everything before it, so a
damaged frame is dropped instead of acted on. This module is the host's own codec: it shares
no code with the firmware; both are checked against tests/golden_frames/frames.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field

VERSION = 1
HEADER_SIZE = 4
CRC_SIZE = 2
MAX_BODY = 250
MAX_FRAME = HEADER_SIZE + MAX_BODY + CRC_SIZE
# A COBS encoding adds at most one byte per 254 plus one; anything longer between two zeros is
# line noise, and the decoder drops it rather than growing a buffer without bound.
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 2
DELIMITER = b"\x00"


class FrameError(ValueError):
    """A received byte string is not a valid frame (bad COBS, bad CRC, too short, bad version).

    The link layer counts and drops such frames; it never acts on them."""


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (check value of b"123456789" is 0x29B1)."""
    table = _CRC_TABLE
    for byte in bytes(data):
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes | bytearray) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` without any zero byte (no delimiter added)."""
    out = bytearray()
    code_index = 0
    out.append(0)
    code = 1
    for byte in data:
        if byte == 0:
            out[code_index] = code
            code_index = len(out)
            out.append(0)
            code = 1
        else:
            out.append(byte)
            code += 1
            if code == 0xFF:
                out[code_index] = code
                code_index = len(out)
                out.append(0)
                code = 1
    out[code_index] = code
    return bytes(out)


def cobs_decode(data: bytes | bytearray) -> bytes:
    """Undo ``cobs_encode``; raises FrameError on a zero byte or a code that runs past the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("COBS data contains a zero byte")
        end = i + code
        if end > n:
            raise FrameError(f"COBS code {code} at offset {i} runs past the end ({n} bytes)")
        block = data[i + 1:end]
        if 0 in block:
            raise FrameError("COBS data contains a zero byte")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True)
class Frame:
    """One decoded frame. ``seq`` numbers the sender's frames; ``ack`` is the seq of the last
    frame the sender received from the other side."""

    type: int
    seq: int
    ack: int
    body: bytes = field(default=b"")
    version: int = VERSION

    def __post_init__(self) -> None:
        for label, value in (("type", self.type), ("seq", self.seq), ("ack", self.ack),
                             ("version", self.version)):
            if not 0 <= value <= 0xFF:
                raise ValueError(f"frame {label} {value!r} does not fit in one byte")
        if len(self.body) > MAX_BODY:
            raise ValueError(f"frame body of {len(self.body)} bytes exceeds {MAX_BODY}")

    def pack(self) -> bytes:
        """The decoded frame bytes with their CRC (no COBS)."""
        raw = bytes((self.version, self.type, self.seq, self.ack)) + bytes(self.body)
        return raw + crc16(raw).to_bytes(2, "big")

    def encode(self) -> bytes:
        """The bytes on the wire: COBS of ``pack()`` followed by the 0x00 delimiter."""
        return cobs_encode(self.pack()) + DELIMITER


def unpack(raw: bytes | bytearray) -> Frame:
    """A frame from its decoded bytes (CRC included); raises FrameError if damaged."""
    if len(raw) < HEADER_SIZE + CRC_SIZE:
        raise FrameError(f"frame of {len(raw)} bytes is shorter than header and CRC")
    if len(raw) > MAX_FRAME:
        raise FrameError(f"frame of {len(raw)} bytes is longer than {MAX_FRAME}")
    got = int.from_bytes(raw[-2:], "big")
    want = crc16(raw[:-2])
    if got != want:
        raise FrameError(f"CRC mismatch: frame says {got:#06x}, content gives {want:#06x}")
    if raw[0] != VERSION:
        raise FrameError(f"protocol version {raw[0]} is not the supported version {VERSION}")
    return Frame(type=raw[1], seq=raw[2], ack=raw[3], body=bytes(raw[4:-2]), version=raw[0])


def decode(wire: bytes | bytearray) -> Frame:
    """A frame from its wire bytes (COBS, with or without the trailing delimiter)."""
    data = bytes(wire)
    if data.endswith(DELIMITER):
        data = data[:-1]
    return unpack(cobs_decode(data))


class FrameReader:
    """Splits a byte stream at zero delimiters and decodes each piece.

    ``feed(data)`` returns the frames completed by ``data``; damaged pieces are counted in
    ``errors`` and dropped, so one corrupted byte costs at most the frame it hit."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False
        self.errors = 0
        self.last_error = ""

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        frames: list[Frame] = []
        for piece in self._split(data):
            if not piece:
                continue
            try:
                frames.append(unpack(cobs_decode(piece)))
            except FrameError as exc:
                self.errors += 1
                self.last_error = str(exc)
        return frames

    def _split(self, data: bytes | bytearray) -> list[bytes]:
        pieces: list[bytes] = []
        start = 0
        while True:
            zero = data.find(0, start)
            if zero < 0:
                self._buf += data[start:]
                if len(self._buf) > MAX_ENCODED:
                    self._buf.clear()
                    self._overflow = True
                return pieces
            self._buf += data[start:zero]
            if self._overflow:
                self._overflow = False
                self.errors += 1
                self.last_error = "oversized frame dropped"
            else:
                pieces.append(bytes(self._buf))
            self._buf.clear()
            start = zero + 1

    def reset(self) -> None:
        """Forget a partial frame (after a reconnect the old bytes mean nothing)."""
        self._buf.clear()
        self._overflow = False
