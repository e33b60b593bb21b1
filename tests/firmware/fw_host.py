"""A scripted host for the firmware tests: frames in, frames and events out, no pty.

The dealer simulator's board and clock are used without its pty thread: ``Host.send`` puts a
frame's bytes in the board's receive buffer, ``Host.run`` advances simulated time and decodes
what the firmware wrote. Frames are built with firmware.protocol, whose encoding is itself
pinned by the golden frames (test_fw_golden.py).
"""

from __future__ import annotations

from typing import Any

from trickref.device.dealer.sim import DealerSimulator
from trickref.firmware import protocol as P


class Host:
    def __init__(self, sim: DealerSimulator) -> None:
        self.sim = sim
        self.board = sim.board
        self.parser = P.Parser()
        self.seq = 0
        self.frames: list[Any] = []
        self.events: list[tuple[int, int, bytes]] = []
        self.cursor = 0  # events before this were returned by until() or skipped past
        self.step_id = 0x4000  # the ids this host gives its steps (protocol 3)

    def send(self, ftype: int, body: bytes = b"", seq: int | None = None) -> bytes:
        if seq is None:
            self.seq = (self.seq + 1) & 0xFF
            seq = self.seq
        wire = P.encode_frame(ftype, seq, 0, body)
        self.board.rx.extend(wire)
        return wire

    def raw(self, data: bytes) -> None:
        self.board.rx.extend(data)

    def run(self, ms: int = 50) -> list[Any]:
        self.sim.step(ms)
        return self.collect()

    def collect(self) -> list[Any]:
        out = self.parser.feed_bytes(bytes(self.board.tx))
        self.board.tx.clear()
        for f in out:
            if f.type == P.EVENT:
                self.events.extend(P.parse_event_block(f.body))
        self.frames.extend(out)
        return out

    def command(self, ftype: int, body: bytes = b"", ms: int = 20, seq: int | None = None,
                step: int | bool | None = None) -> Any:
        """Send one command and return its reply (the frame whose ack is the command's seq). A
        step command (protocol 3) gets the next step id in front of ``body`` (``step``: that id
        instead; False: ``body`` as it is)."""
        if ftype in P.STEP_COMMANDS and step is not False:
            if step is None or step is True:
                self.step_id += 1
                step = self.step_id
            body = P.u16(int(step)) + bytes(body)
        self.send(ftype, body, seq)
        want = self.seq if seq is None else seq
        replies = [f for f in self.run(ms) if f.type != P.EVENT and f.type != P.BUSY and f.ack == want]
        assert len(replies) == 1, f"expected one reply to 0x{ftype:02x}, got {replies}"
        return replies[0]

    def until(self, kind: int, max_ms: int = 120000) -> tuple[int, int, bytes]:
        """Run until an event of ``kind`` not yet returned by until() arrives, and return it."""
        waited = 0
        while True:
            for n in range(self.cursor, len(self.events)):
                if self.events[n][1] == kind:
                    self.cursor = n + 1
                    return self.events[n]
            if waited >= max_ms:
                raise AssertionError(f"no event 0x{kind:02x} within {max_ms} simulated ms; events: {self.events[-5:]}")
            self.run(200)
            waited += 200

    def kinds(self) -> list[int]:
        return [e[1] for e in self.events]


def plan_body(deal_id: int, entries: list[tuple[int, int]], total: int | None = None, offset: int = 0,
              flags: int = 1) -> bytes:
    body = bytearray(P.u16(deal_id) + bytes((len(entries) if total is None else total, offset, flags)))
    for card, target in entries:
        body += bytes((card, target))
    return bytes(body)




def make_host(deck: list[int] | None = None, seats: int = 4, decks: int = 1) -> Host:
    """A fresh simulated dealer (new-deck order unless ``deck`` is given) and a host for it."""
    order = deck if deck is not None else [c for _ in range(decks) for c in range(52)]
    return Host(DealerSimulator(seats=seats, deck=order, speed=1.0))


def park(host: Host, cards: tuple[int, ...]) -> None:
    """Feed ``cards`` through the play slot one at a time and route each into the loop (cards a
    player passed, parked in the dealer), then let the mechanism come to rest."""
    for card in cards:
        host.board.slot.append(card)
        host.command(P.FEED, bytes((1, P.HOLD)))
        host.until(P.EV_PRESENTED)
        host.command(P.ROUTE_PRESENTED, bytes((P.LOOP,)))
        host.until(P.EV_CARD_ROUTED)
    host.run(3000)
