"""The dealer simulator through its pty, opened with pyserial exactly like the real port."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest
import serial

from trickref.device.dealer.sim import DealerSimulator
from trickref.firmware import protocol as P


def crc16(data: bytes) -> int:
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def by_hand(ftype: int, seq: int, body: bytes = b"") -> bytes:
    """A frame built by hand from the spec, without the firmware's codec."""
    raw = bytes((1, ftype, seq, 0)) + body
    raw += crc16(raw).to_bytes(2, "big")
    out, run = bytearray(), bytearray()
    for b in raw:
        if b:
            run.append(b)
        else:
            out += bytes((len(run) + 1,)) + run
            run = bytearray()
    out += bytes((len(run) + 1,)) + run
    return bytes(out) + b"\x00"


class Link:
    """A minimal stop-and-wait host over pyserial, enough to drive the simulator in tests."""

    def __init__(self, path: str) -> None:
        self.port = serial.Serial(path, 115200, timeout=0.05)
        self.parser = P.Parser()
        self.seq = 0
        self.events: list[tuple[int, int, bytes]] = []
        self.bytes_in = 0
        self.bytes_out = 0

    def close(self) -> None:
        self.port.close()

    def _read(self) -> list[P.Frame]:
        data = self.port.read(4096)
        self.bytes_in += len(data)
        frames = [f for f in self.parser.feed_bytes(data) if f.ok]
        for f in frames:
            if f.type == P.EVENT:
                for e in P.parse_event_block(f.body):
                    if all(e[0] != old[0] for old in self.events[-300:]):
                        self.events.append(e)
        return frames

    def command(self, ftype: int, body: bytes = b"", timeout: float = 0.3, tries: int = 20) -> P.Frame:
        if ftype in P.STEP_COMMANDS:  # protocol 3: a step id first
            self.step = getattr(self, "step", 0x4000) + 1
            body = P.u16(self.step) + body
        self.seq = (self.seq + 1) & 0xFF
        wire = P.encode_frame(ftype, self.seq, 0, body)
        for _ in range(tries):
            self.port.write(wire)
            self.bytes_out += len(wire)
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                for f in self._read():
                    if f.type == P.NAK and f.body[0] == 0:
                        end = 0  # retransmit now
                    elif f.type not in (P.EVENT, P.BUSY) and f.ack == self.seq:
                        return f
        raise AssertionError(f"no reply to 0x{ftype:02x} after {tries} tries")

    def wait_event(self, kind: int, timeout: float = 10.0) -> tuple[int, int, bytes]:
        end = time.monotonic() + timeout
        last_ping = time.monotonic()
        while time.monotonic() < end:
            for e in self.events:
                if e[1] == kind:
                    return e
            self._read()
            if time.monotonic() - last_ping > 0.5:
                # recover anything lost on the way, and keep the dead-man happy
                first = self.events[-1][0] + 1 if self.events else 0
                r = self.command(P.EVENTS_SINCE, P.u16(first & 0xFFFF))
                for e in P.parse_event_block(r.body):
                    if all(e[0] != old[0] for old in self.events[-300:]):
                        self.events.append(e)
                last_ping = time.monotonic()
        raise AssertionError(f"no event 0x{kind:02x} in {timeout} s")


@pytest.fixture
def sim():
    s = DealerSimulator(seats=4, deck_order_seed=3, speed=400.0)
    yield s
    s.stop()


def test_hello_by_hand_over_pyserial_gets_identify(sim: DealerSimulator) -> None:
    path = sim.start()
    assert os.path.realpath(sim.stable_path) == path
    with serial.Serial(path, 115200, timeout=0.05) as port:
        port.write(by_hand(0x01, 7, b"\x03\x0b\xb8"))
        data = b""
        end = time.monotonic() + 3
        while time.monotonic() < end:
            data += port.read(256)
            frames = [f for f in P.Parser().feed_bytes(data) if f.type == 0x81]
            if frames:
                break
    assert frames, data
    ident = frames[0]
    assert ident.ok and ident.ack == 7
    assert ident.body[0] == 3 and ident.body[8] == 4  # protocol version 3, 4 seats
    assert ident.body[9] == 2  # reader kind: simulated


def test_deal_plan_puts_every_card_in_its_planned_tray(sim: DealerSimulator) -> None:
    order = list(range(52))
    random.Random(8).shuffle(order)
    targets = [i % 3 for i in range(39)] + [0x82] * 3 + [0x80] * 2 + [0x85] * 8
    hopper = list(sim.board.hopper)  # the physical order (not the plan's)
    path = sim.start()
    link = Link(path)
    try:
        link.command(P.HELLO, b"\x03\x00\x00")
        body = P.u16(41) + bytes((52, 0, 1)) + bytes(x for c, t in zip(order, targets, strict=True) for x in (c, t))
        assert link.command(P.DEAL_PLAN, body).body == bytes((P.DEAL_PLAN, P.OK_STARTED))
        done = link.wait_event(P.EV_DEAL_DONE)
        assert done[2] == P.u16(41) + bytes((52, 0, 0, 0))
    finally:
        link.close()
    board = sim.board
    for seat in range(3):
        assert sorted(board.seat(seat)) == sorted(order[seat:39:3])
    assert sorted(board.tray(0x82)) == sorted(order[39:42])
    assert sorted(board.tray(0x80)) == sorted(order[42:44])
    # the loop cards went round onto the hopper in read order; the last feed move held the
    # hopper's pickup, so the first of them is the next card the hopper gives
    read_order = [c for c in hopper if c in order[44:]]
    assert board.tray(0x85) == read_order and board.gate is None
    assert board.collisions == [] and board.loop_passes == 8


def test_noisy_link_still_deals_every_card(sim: DealerSimulator) -> None:
    order = list(range(52))
    random.Random(9).shuffle(order)
    sim.set_link_faults(corrupt=0.003, drop=0.003, duplicate=0.003)
    link = Link(sim.start())
    try:
        body = P.u16(3) + bytes((52, 0, 1)) + bytes(x for i, c in enumerate(order) for x in (c, i % 4))
        assert link.command(P.DEAL_PLAN, body).body[1] in (P.OK_STARTED, P.OK_ALREADY)
        link.wait_event(P.EV_DEAL_DONE, timeout=20)
    finally:
        link.close()
    for seat in range(4):
        assert sorted(sim.board.seat(seat)) == sorted(order[seat::4])
    assert sum(sim.to_dealer.counts.values()) + sum(sim.to_host.counts.values()) > 0


def test_silence_disconnect_and_reboot_are_visible_to_the_host(sim: DealerSimulator) -> None:
    link = Link(sim.start())
    boot = P.get_u16(link.command(P.HELLO, b"\x03\x00\x00").body, 4)
    sim.go_silent()
    with pytest.raises(AssertionError):
        link.command(P.PING, tries=2, timeout=0.1)
    sim.go_silent(False)
    assert link.command(P.PING).type == P.OK
    sim.reboot()
    assert P.get_u16(link.command(P.HELLO, b"\x03\x00\x00").body, 4) != boot
    link.close()
    opened = sim.connections
    sim.disconnect(come_back_after=0.2)
    assert sim.master is None
    with pytest.raises(OSError):  # the stable name leads nowhere (never to a recycled pty)
        os.open(sim.stable_path, os.O_RDWR | os.O_NOCTTY)
    deadline = time.monotonic() + 60  # a bound on a hang: the pty is back 0.2 s later on a quiet machine
    while sim.connections == opened:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    link = Link(sim.stable_path)
    try:
        assert link.command(P.HELLO, b"\x03\x00\x00").type == P.IDENTIFY
    finally:
        link.close()


# How a command gets started: from a terminal, or as a background job of a script (``cmd &`` in
# a shell without job control starts it with SIGINT ignored, and Python then installs no Ctrl+C
# handler: the command must still stop on Ctrl+C; trickref.ui.cli.ctrl_c_stops).
STARTED = {"terminal": [], "background-job": ["sh", "-c", 'trap "" INT; exec "$@"', "sh"]}


@pytest.mark.parametrize("started", sorted(STARTED))
def test_cli_prints_the_pty_path_and_stops_on_ctrl_c(started: str) -> None:
    proc = subprocess.Popen([*STARTED[started], sys.executable, "-m", "trickref.ui.cli", "dealer-sim", "--seats", "2",
                             "--deck-order-seed", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        path = proc.stdout.readline().strip() if proc.stdout else ""
        assert path.startswith("/dev/")
        link = Link(path)
        try:
            assert link.command(P.HELLO, b"\x03\x00\x00").body[8] == 2
        finally:
            link.close()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) == 0  # a bound on a hang, not a speed: a loaded machine takes seconds
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_reboot_forgets_the_sensor_edges_the_firmware_had_not_taken() -> None:
    """The counts of sensor edges the firmware has not taken yet (a loop station's, a pocket
    mouth's) are the Pico's RAM (firmware/board.py Board starts them at zero): a reboot loses
    them. The cards themselves stay where they are. They carried over a reboot in the simulated
    board once, so a card seen before the boot could be taken for one after it."""
    sim = DealerSimulator(seed=3)
    board = sim.board
    board.loop_hits = [1, 2, 1]
    board.arrived = {2: 1}
    board.trays.setdefault(2, []).append(30)
    sim.reboot()
    assert sim.board is board and board.loop_hits == [0, 0, 0] and board.arrived == {}
    assert board.trays[2] == [30]
    assert not board.loop_seen(0) and not board.confirmed(2)
