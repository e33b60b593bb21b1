"""The dealer's side of the wire protocol (hardware/PROTOCOL.md): COBS, CRC, frames, parser.

Written for MicroPython first: no struct, no typing, no dataclasses; integers are packed by
hand (big-endian) so the same module runs unchanged on the Pico and on CPython (the dealer
simulator and the firmware tests). It shares no code with the host's codec on purpose: both
are checked against tests/golden_frames/frames.json, so a mistake in one shows up as a
disagreement instead of being copied into both.
"""

VERSION = 1  # the frame format (byte 0 of every frame), unchanged in protocols 2 and 3
PROTOCOL = 3  # HELLO host_protocol_version and IDENTIFY protocol_version (3: step ids)
MAX_BODY = 250
MIN_FRAME = 6
MAX_FRAME = 4 + MAX_BODY + 2
DAMAGED_MIN = 4  # a chunk this long that is no frame is answered as a damaged one (NAK BAD_CRC)

# Host -> dealer commands.
HELLO = 0x01
PING = 0x02
STATUS = 0x03
EVENTS_SINCE = 0x04
DEAL_PLAN = 0x05
PRESENT = 0x06
ROUTE_PRESENTED = 0x07
TURN_UP = 0x08
DEAL_STOCK = 0x09
ROUTE_FACEUP = 0x0A
FEED = 0x0B
FETCH = 0x0C
ABORT = 0x0D
ESTOP = 0x0E
RESET = 0x0F
RESUME = 0x10
SELFTEST = 0x11
STEP_QUERY = 0x12  # v3: what did step N do?
INVENTORY = 0x13  # v3: where the dealer believes the cards are (window, pockets, reject, loop)

HELLO_WANTS_FLAGS2 = 0x01  # HELLO's optional host_flags bit0: answer with IDENTIFY's flags2 byte

# Dealer -> host frames.
IDENTIFY = 0x81
OK = 0x82
NAK = 0x83
STATUS_REPLY = 0x84
EVENTS = 0x85
BUSY = 0x86
EVENT = 0x87
STEP = 0x88  # v3: reply to STEP_QUERY
INVENTORY_REPLY = 0x89  # v3: reply to INVENTORY

# v3: the commands whose body starts with a u16 step id (DEAL_PLAN's deal id is its step id)
STEP_COMMANDS = (0x07, 0x0B, 0x0C, 0x0D, 0x10, 0x11)  # ROUTE_PRESENTED FEED FETCH ABORT RESUME SELFTEST

FETCH_NEXT = 0x01  # v3 FETCH flags (an optional 4th byte): the eject brings the loop's next card to the window
FETCH_SWEEP = 0x02  # FETCH flags bit1 (sorting hopper): first read every loop card once, back in its places' order
FEED_NEXT = 0x01  # FEED flags (a 4th byte after the place byte; IDENTIFY flags2 bit1): the last fed card's eject brings the loop's next card to the window
PLAN_FRESH = 0x01  # v3 DEAL_PLAN flags: a fresh deal (every card gathered): the ledger starts again

# v3 step states (STEP reply)
STEP_UNKNOWN = 0  # never received, or forgotten (the dealer keeps the last STEP_MEMORY steps)
STEP_RUNNING = 1
STEP_DONE = 2
STEP_STOPPED = 3  # a jam, a full pocket, a double feed, a fault or the dead-man stopped it: RESUME
STEP_ABORTED = 4  # ABORT, ESTOP or RESET ended it before it finished
STEP_INTERRUPTED = 5  # the dealer rebooted while it ran
STEP_HELD = 6  # FEED with HOLD: the card read waits in the read window for ROUTE_PRESENTED

# v3 INVENTORY parts
INV_SUMMARY = 0  # window card, flags, loop count, reject count
INV_POCKETS = 1  # (target, count) pairs: cards delivered to each pocket since the last fresh deal
INV_REJECT = 2  # the cards sent to the reject pocket since the last fresh deal (0xFF unreadable)
INV_LOOP = 3  # the loop model, first card to come back first

# OK codes.
OK_DONE = 0
OK_ACCEPTED = 1
OK_STARTED = 2
OK_ALREADY = 3

# NAK reasons.
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
NAK_FULL = 12  # the slotted store named has no free slot (never overwrite a parked card)

# Targets.
SEAT_MAX = 10
REJECT = 0x80
DISCARD = 0x81
CENTRE = 0x82
FACEUP = 0x83
TRICK = 0x84
MAGAZINE = 0x85  # v1 name of 0x85
LOOP = 0x85  # v2: the return loop (the card goes round onto the top of the hopper)
STAGING = 0x86
HOLD = 0xFE
UNKNOWN_CARD = 0xFF
TRAYS = (REJECT, DISCARD, CENTRE, TRICK, LOOP)  # v2: 0x83 and 0x86 are gone

# Event kinds: fixed payload sizes for 0x01..0x3F; 0x40..0x7F carry a length byte.
EV_CARD_DEALT = 0x01
EV_PRESENTED = 0x02
EV_CARD_ROUTED = 0x03
EV_MISREAD = 0x04
EV_DUPLICATE = 0x05
EV_JAM = 0x06
EV_HOPPER_EMPTY = 0x07
EV_POCKET_FULL = 0x08  # u8 target: the pocket's card count reached its capacity (v1 TRAY_FULL)
EV_TRAY_FULL = EV_POCKET_FULL
EV_FAULT = 0x09
EV_ESTOP = 0x0A
EV_DEADMAN = 0x0B
EV_ABORTED = 0x0C
EV_BOOT = 0x0D
EV_FEED_DONE = 0x0E
EV_RESUMED = 0x0F
EV_STAGED = 0x10  # u8 card, u8 passes (capped 255): the card waits at the read window
EV_DOUBLE_FEED = 0x11  # u8 card read (0xFF unknown), u8 how: 1 length at the gate, 2 thickness
EV_DEAL_DONE = 0x40
EV_SELFTEST_DONE = 0x41

EVENT_SIZES = {
    EV_CARD_DEALT: 3, EV_PRESENTED: 3, EV_CARD_ROUTED: 2, EV_MISREAD: 2, EV_DUPLICATE: 2,
    EV_JAM: 2, EV_HOPPER_EMPTY: 1, EV_TRAY_FULL: 1, EV_FAULT: 2, EV_ESTOP: 1, EV_DEADMAN: 1,
    EV_ABORTED: 2, EV_BOOT: 1, EV_FEED_DONE: 1, EV_RESUMED: 1, EV_STAGED: 2, EV_DOUBLE_FEED: 2,
}

# The firmware's own card table (it must not import engine): suit*13 + rank-2, suits SHDC.
RANKS = "23456789TJQKA"
SUITS = "SHDC"


def card_name(card):
    """'QS' for 36... or '??' for the unknown card; used in logs and the simulator's output."""
    if 0 <= card < 52:
        return RANKS[card % 13] + SUITS[card // 13]
    return "??"


def valid_target(t, seats):
    """True for a seat this dealer has or one of its trays."""
    return (0 <= t < seats) or t in TRAYS


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xorout)."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def cobs_encode(data):
    """Standard COBS: the result has no zero byte and is at most len/254 + 1 bytes longer."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """Inverse of cobs_encode; raises ValueError on a zero byte or a code past the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("COBS data contains a zero byte")
        end = i + code
        if end > n:
            raise ValueError("COBS code runs past the end of the frame")
        # Byte by byte: ``0 in block`` is NotImplementedError on MicroPython's bytes/bytearray
        # (only a bytes needle is supported there), which Parser.feed would not catch.
        for j in range(i + 1, end):
            b = data[j]
            if b == 0:
                raise ValueError("COBS data contains a zero byte")
            out.append(b)
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def build_frame(ftype, seq, ack, body=b""):
    """The decoded frame (header, body, CRC) for one message."""
    if len(body) > MAX_BODY:
        raise ValueError("frame body too long")
    head = bytearray((VERSION, ftype & 0xFF, seq & 0xFF, ack & 0xFF))
    head.extend(body)
    c = crc16(head)
    head.append(c >> 8)
    head.append(c & 0xFF)
    return bytes(head)


def encode_frame(ftype, seq, ack, body=b""):
    """The wire bytes of one message: COBS(frame) + 0x00."""
    return cobs_encode(build_frame(ftype, seq, ack, body)) + b"\x00"


class Frame:
    """One received frame: ok False means it decoded but failed the CRC or version check."""

    def __init__(self, ok, version, ftype, seq, ack, body, crc, reason=0):
        self.ok = ok
        self.version = version
        self.type = ftype
        self.seq = seq
        self.ack = ack
        self.body = body
        self.crc = crc
        self.reason = reason

    def __repr__(self):
        body = "".join("{:02x}".format(b) for b in self.body)  # noqa: UP032 - no bytes.hex() needed
        return f"Frame(ok={self.ok} type=0x{self.type:02x} seq={self.seq} ack={self.ack} body={body})"


def parse_frame(raw):
    """A Frame from decoded bytes; None when too short or too long to be a frame at all."""
    n = len(raw)
    if n < MIN_FRAME or n > MAX_FRAME:
        return None
    crc = (raw[n - 2] << 8) | raw[n - 1]
    body = bytes(raw[4:n - 2])
    if crc16(raw[:n - 2]) != crc:
        return Frame(False, raw[0], raw[1], raw[2], raw[3], body, crc, NAK_BAD_CRC)
    if raw[0] != VERSION:
        return Frame(False, raw[0], raw[1], raw[2], raw[3], body, crc, NAK_BAD_VERSION)
    return Frame(True, raw[0], raw[1], raw[2], raw[3], body, crc)


class Parser:
    """Byte-by-byte receiver: collects bytes up to each 0x00, then COBS-decodes and checks.

    feed() takes one byte and returns a Frame when a delimiter completes one (ok or not),
    else None. Garbage that cannot be a frame is counted in ``dropped`` and forgotten; an
    over-long run without delimiter is cut off so memory stays bounded on the Pico.
    """

    def __init__(self):
        self.buf = bytearray()
        self.overflow = False
        self.dropped = 0

    def feed(self, b):
        if b != 0:
            if len(self.buf) < MAX_FRAME + 3:
                self.buf.append(b)
            else:
                self.overflow = True
            return None
        data = self.buf
        self.buf = bytearray()
        if self.overflow:
            self.overflow = False
            self.dropped += 1
            return None
        if not data:
            return None
        try:
            raw = cobs_decode(data)
        except ValueError:
            self.dropped += 1
            return self._damaged(data)
        frame = parse_frame(raw)
        if frame is None:
            self.dropped += 1
            return self._damaged(data)
        return frame

    def _damaged(self, data):
        """A chunk of DAMAGED_MIN bytes or more that is no frame: most likely a frame the line
        spoilt (a flipped COBS code byte), reported as a CRC failure so the dealer answers
        NAK and the host resends at once instead of waiting out its timeout (protocol 3).
        Shorter chunks are noise and forgotten."""
        if len(data) < DAMAGED_MIN:
            return None
        return Frame(False, 0, 0, 0, 0, b"", 0, NAK_BAD_CRC)

    def feed_bytes(self, data):
        """All frames completed by ``data`` (a convenience for tests and the simulator)."""
        out = []
        for b in data:
            f = self.feed(b)
            if f is not None:
                out.append(f)
        return out


def u16(value):
    return bytes(((value >> 8) & 0xFF, value & 0xFF))


def get_u16(data, offset):
    return (data[offset] << 8) | data[offset + 1]


def event_bytes(kind, payload):
    """One event as it sits in an event block: kind, [length,] payload."""
    if kind >= 0x40:
        return bytes((kind, len(payload))) + bytes(payload)
    return bytes((kind,)) + bytes(payload)


def event_block(first_index, encoded_events):
    """The body of EVENTS/EVENT: u16 first index then the events back to back."""
    out = bytearray(u16(first_index))
    for e in encoded_events:
        out.extend(e)
    return bytes(out)


def parse_event_block(body):
    """[(index, kind, payload bytes)] from an event block; raises ValueError if malformed."""
    if len(body) < 2:
        raise ValueError("event block shorter than its first index")
    index = get_u16(body, 0)
    i = 2
    out = []
    while i < len(body):
        kind = body[i]
        if kind >= 0x40:
            if i + 1 >= len(body):
                raise ValueError("event length byte missing")
            size = body[i + 1]
            start = i + 2
        else:
            if kind not in EVENT_SIZES:
                raise ValueError(f"unknown fixed-size event kind 0x{kind:02x}")
            size = EVENT_SIZES[kind]
            start = i + 1
        if start + size > len(body):
            raise ValueError("event payload runs past the end of the block")
        out.append((index & 0xFFFF, kind, bytes(body[start:start + size])))
        index += 1
        i = start + size
    return out
