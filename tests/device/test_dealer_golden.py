"""The host codec against the golden frames (tests/golden_frames/frames.json).

The golden frames are the meeting point of the host and the firmware, which share no code:
the host must decode every frame to the same header and fields and encode those fields back
to exactly the same wire bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trickref.device.dealer import frames as fr
from trickref.device.dealer import messages as m

GOLDEN = Path(__file__).resolve().parents[1] / "golden_frames" / "frames.json"
FRAMES: list[dict[str, Any]] = json.loads(GOLDEN.read_text())


def test_the_golden_file_covers_every_message_type() -> None:
    assert {f["type"] for f in FRAMES} == set(m.SCHEMAS)


@pytest.mark.parametrize("golden", FRAMES, ids=[f["name"] for f in FRAMES])
def test_decode_golden(golden: dict[str, Any]) -> None:
    wire = bytes.fromhex(golden["hex"])
    frame = fr.decode(wire)
    assert frame.version == 1
    assert frame.type == golden["type"]
    assert frame.seq == golden["seq"]
    assert frame.ack == golden["ack"]
    assert frame.body.hex() == golden["body"]
    assert frame.pack().hex() == golden["frame"]
    assert m.TYPE_NAMES[frame.type] == golden["type_name"]
    assert m.decode_body(frame.type, frame.body) == golden["fields"]
    # The stream reader finds the same frame, also after garbage and split into bytes.
    reader = fr.FrameReader()
    got = []
    for b in b"\x13\x37\x00" + wire:
        got += reader.feed(bytes((b,)))
    assert got == [frame]


@pytest.mark.parametrize("golden", FRAMES, ids=[f["name"] for f in FRAMES])
def test_encode_golden(golden: dict[str, Any]) -> None:
    body = m.encode_body(golden["type"], golden["fields"])
    assert body.hex() == golden["body"]
    frame = fr.Frame(golden["type"], golden["seq"], golden["ack"], body)
    assert frame.encode().hex() == golden["hex"]


@pytest.mark.parametrize("golden", FRAMES[:8], ids=[f["name"] for f in FRAMES[:8]])
def test_every_single_bit_flip_is_rejected(golden: dict[str, Any]) -> None:
    raw = bytes.fromhex(golden["frame"])
    for i in range(len(raw)):
        for bit in range(8):
            bad = bytearray(raw)
            bad[i] ^= 1 << bit
            with pytest.raises(fr.FrameError):
                fr.unpack(bytes(bad))
