"""The link layer on its own: URLs (pty, socket://, spy://, loop://), and a scripted fake
dealer for the exact retransmit, NAK, stale-reply, event-gap and reboot rules."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dealer_testkit import GENEROUS, round_robin_plan, running, table_matches, wait_until

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.errors import DealerLinkDown, DealerProtocolError, DealerTimeout
from trickref.device.dealer.frames import Frame, FrameReader
from trickref.device.dealer.link import DealerLink, DealerRebooted
from trickref.device.dealer.sim import DealerSimulator
from trickref.device.dealer.types import Event

# --- a scripted dealer behind a fake port ----------------------------------------------------

Handler = Callable[["FakeDealer", Frame], list[Frame] | None]


class FakeDealer:
    """A port object whose far end is a Python function: frames the host writes are decoded
    and handed to ``handler``, whose answer frames the host then reads."""

    def __init__(self, handler: Handler, boot_id: int = 0x1234) -> None:
        self.handler = handler
        self.boot_id = boot_id
        self.seq = 0
        self.events_next = 0
        self.log: list[dict[str, Any]] = []
        self.received: list[Frame] = []
        self._reader = FrameReader()
        self._out = bytearray()
        self._cv = threading.Condition()
        self.closed = False

    # the port interface
    @property
    def in_waiting(self) -> int:
        with self._cv:
            return len(self._out)

    def read(self, size: int = 1) -> bytes:
        with self._cv:
            if not self._out:
                self._cv.wait(0.02)
            data = bytes(self._out[:size])
            del self._out[:size]
            return data

    def write(self, data: bytes) -> int:
        for frame in self._reader.feed(data):
            self.received.append(frame)
            for reply in self.handler(self, frame) or []:
                self.push(reply)
        return len(data)

    def close(self) -> None:
        self.closed = True

    # helpers for handlers
    def push(self, frame: Frame) -> None:
        with self._cv:
            self._out += frame.encode()
            self._cv.notify_all()

    def frame(self, ftype: int, fields: dict[str, Any], ack: int) -> Frame:
        self.seq = (self.seq + 1) & 0xFF
        return Frame(ftype, self.seq, ack, m.encode_body(ftype, fields))

    def identify(self, ack: int) -> Frame:
        return self.frame(m.IDENTIFY, {
            "protocol_version": m.PROTOCOL_VERSION, "firmware_version": [1, 2, 0], "boot_id": self.boot_id,
            "config_crc": 0, "seat_count": 4, "reader_kind": 2, "loop_capacity": 120,
            "max_plan": 208, "deadman_ms": 3000, "next_event_index": self.events_next,
            "flags": 15, "trays": [0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86]}, ack)

    def ok(self, cmd: Frame, code: int = 0) -> Frame:
        return self.frame(m.OK, {"command_type": cmd.type, "code": code}, cmd.seq)

    def add_event(self, name: str, **fields: Any) -> dict[str, Any]:
        ev = {"index": self.events_next, "kind": m.EVENT_KINDS[name], "name": name, **fields}
        self.log.append(ev)
        self.events_next = (self.events_next + 1) & 0xFFFF
        return ev

    def event_frame(self, events: list[dict[str, Any]], ack: int = 0) -> Frame:
        return self.frame(m.EVENT, {"first_index": events[0]["index"], "events": events}, ack)

    def events_reply(self, cmd: Frame) -> Frame:
        f = m.decode_body(cmd.type, cmd.body)
        first = f["first_index"]
        evs = [e for e in self.log if e["index"] >= first]
        limit = f["max_events"] or len(evs)
        evs = evs[:min(limit, 40)]  # like the firmware: no more than fit in one frame
        return self.frame(m.EVENTS, {"first_index": evs[0]["index"] if evs else
                                     self.events_next, "events": evs}, cmd.seq)


def standard(fake: FakeDealer, cmd: Frame) -> list[Frame]:
    if cmd.type == m.HELLO:
        return [fake.identify(cmd.seq)]
    if cmd.type == m.EVENTS_SINCE:
        return [fake.events_reply(cmd)]
    return [fake.ok(cmd)]


def open_link(fake: FakeDealer, **kw: Any) -> DealerLink:
    kw.setdefault("reply_timeout", 0.05)
    kw.setdefault("link_timeout", 3.0)
    link = DealerLink("fake://", opener=lambda url, baud: fake, **kw)
    link.open()
    return link


def test_nak_for_a_damaged_frame_resends_identical_bytes() -> None:
    naked = []

    def handler(fake: FakeDealer, cmd: Frame) -> list[Frame]:
        if cmd.type == m.PING and not naked:
            naked.append(cmd)
            return [fake.frame(m.NAK, {"command_type": 0, "reason": m.NAK_BAD_CRC}, 0)]
        return standard(fake, cmd)

    fake = FakeDealer(handler)
    link = open_link(fake, keepalive=False)
    try:
        reply = link.request(m.PING)
        assert reply.type == m.OK
        pings = [f for f in fake.received if f.type == m.PING]
        assert len(pings) == 2 and pings[0] == pings[1]  # same seq, same ack, same body
        assert link.stats.naks_for_resend == 1
    finally:
        link.close()


def test_stale_replies_are_ignored_and_a_nak_with_our_seq_is_an_answer() -> None:
    def handler(fake: FakeDealer, cmd: Frame) -> list[Frame]:
        if cmd.type == m.FETCH:
            stale = fake.frame(m.OK, {"command_type": m.FETCH, "code": 0}, (cmd.seq - 1) & 0xFF)
            nak = fake.frame(m.NAK, {"command_type": m.FETCH, "reason": m.NAK_EMPTY}, cmd.seq)
            return [stale, nak]
        return standard(fake, cmd)

    fake = FakeDealer(handler)
    link = open_link(fake, keepalive=False)
    try:
        reply = link.request(m.FETCH, {"step": 5, "source": m.LOOP, "card": 5, "target": 1})
        assert reply.type == m.NAK and reply.fields["reason"] == m.NAK_EMPTY
        assert link.stats.stale_replies >= 1
        assert sum(1 for f in fake.received if f.type == m.FETCH) == 1
    finally:
        link.close()


def test_a_silent_dealer_is_a_timeout_with_a_clear_message() -> None:
    fake = FakeDealer(lambda fake, cmd: standard(fake, cmd) if cmd.type == m.HELLO else None)
    link = open_link(fake, keepalive=False, link_timeout=0.6)
    try:
        with pytest.raises(DealerTimeout, match="did not answer PING"):
            link.request(m.PING)
        assert link.stats.retransmits >= 2
    finally:
        link.close()


def test_a_command_to_a_dealer_the_supervisor_found_silent_times_out() -> None:
    """The dealer falls silent while the link is idle: the supervisor's keep-alive finds it and
    it tries HELLO again and again. A command sent then must get the link and time out in its
    own budget. Before, each failed HELLO woke the supervisor at once and it took the link back
    before the command's thread could run: the command waited for good (a deal's STATUS poll
    with the twin's cable out, tests/e2e/test_sim_twin.py, about 1 run in 500; here every time)."""
    silent = [False]

    def handler(fake: FakeDealer, cmd: Frame) -> list[Frame] | None:
        return None if silent[0] else standard(fake, cmd)

    fake = FakeDealer(handler)
    link = open_link(fake, keepalive=True, link_timeout=0.5, deadman_ms=600)
    outcome: list[BaseException | None] = []

    def command() -> None:
        try:
            link.request(m.STATUS)
            outcome.append(None)
        except Exception as e:  # noqa: BLE001 - checked below
            outcome.append(e)

    try:
        silent[0] = True
        wait_until(lambda: link.stats.handshakes == 1 and any(f.type == m.HELLO for f in fake.received[1:]),
                   GENEROUS)  # the supervisor is at it
        for _ in range(3):
            t = threading.Thread(target=command, daemon=True)
            t.start()
            t.join(GENEROUS)
            assert not t.is_alive(), "the command never got the link"
        assert len(outcome) == 3 and all(isinstance(e, DealerTimeout) for e in outcome), outcome
    finally:
        link.close()


def test_a_command_that_waited_for_the_link_is_still_sent() -> None:
    """The supervisor may hold the link for up to its own budget (retrying a pending ABORT on a
    silent link): a command whose budget ran out meanwhile still gets one retransmit timeout
    once the link is its own, so it is sent and answered when the dealer is back, never failed
    unsent ("after 0 tries")."""
    fake = FakeDealer(standard)
    # the one retransmit timeout it gets is the link's reply timeout: a generous one here, so
    # the reply (read by the link's own thread) is in time however loaded the machine is
    link = open_link(fake, keepalive=False, reply_timeout=GENEROUS)
    result: list[Any] = []
    started = threading.Event()

    def command() -> None:
        started.set()
        try:
            result.append(link.request(m.PING, timeout=0.3))
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            result.append(e)

    try:
        link._request_lock.acquire()  # another command on the wire, for longer than 0.3 s
        t = threading.Thread(target=command)
        t.start()
        started.wait(GENEROUS)
        time.sleep(0.5)
        link._request_lock.release()
        t.join(GENEROUS)
        assert len(result) == 1 and getattr(result[0], "type", None) == m.OK, result
    finally:
        link.close()


def test_event_gap_is_recovered_in_order() -> None:
    fake = FakeDealer(standard)
    link = open_link(fake, keepalive=False)
    seen: list[int] = []
    link.add_listener(lambda e: seen.append(e.index))
    try:
        evs = [fake.add_event("CARD_DEALT", card=i, target=0, confidence=90) for i in range(5)]
        fake.push(fake.event_frame(evs[0:1]))
        fake.push(fake.event_frame(evs[3:5]))  # 1 and 2 were lost on the wire
        assert wait_until(lambda: seen == [0, 1, 2, 3, 4], GENEROUS)
        assert link.stats.events_recovered >= 2
    finally:
        link.close()


def test_a_gap_wider_than_one_request_is_recovered_in_several() -> None:
    fake = FakeDealer(standard)
    link = open_link(fake, keepalive=False)
    seen: list[int] = []
    link.add_listener(lambda e: seen.append(e.index))
    try:
        evs = [fake.add_event("CARD_DEALT", card=i % 52, target=0, confidence=90) for i in range(300)]
        fake.push(fake.event_frame(evs[0:1]))
        fake.push(fake.event_frame(evs[299:300]))  # 298 lost: more than max_events' one byte
        assert wait_until(lambda: seen == list(range(300)), GENEROUS)
        asked = [m.decode_body(f.type, f.body)["max_events"] for f in fake.received if f.type == m.EVENTS_SINCE]
        assert asked and max(asked) <= 255
    finally:
        link.close()


def test_events_gone_for_good_are_announced() -> None:
    fake = FakeDealer(standard)
    link = open_link(fake, keepalive=False)
    notices: list[Event] = []
    link.add_listener(notices.append)
    try:
        for i in range(6):
            fake.add_event("CARD_DEALT", card=i, target=0, confidence=90)
        del fake.log[:4]  # the dealer no longer keeps events 0..3
        fake.push(fake.event_frame(fake.log[-1:]))
        assert wait_until(lambda: any(e.name == "EVENTS_LOST" for e in notices), GENEROUS)
        lost = next(e for e in notices if e.name == "EVENTS_LOST")
        assert lost["lost"] == 4
        assert wait_until(lambda: [e.index for e in notices if not e.is_notice] == [4, 5])
    finally:
        link.close()


def test_reboot_under_a_stateful_command_fails_it() -> None:
    state = {"boot": 0x1111, "calls": 0}

    def handler(fake: FakeDealer, cmd: Frame) -> list[Frame] | None:
        if cmd.type == m.HELLO:
            fake.boot_id = state["boot"]
            return [fake.identify(cmd.seq)]
        if cmd.type == m.FEED:
            state["calls"] += 1
            state["boot"] = 0x2222  # the dealer reboots and never answers
            return None
        return standard(fake, cmd)

    fake = FakeDealer(handler)
    link = open_link(fake, keepalive=False, retries=2, link_timeout=2.0)
    try:
        with pytest.raises(DealerRebooted, match="rebooted while FEED"):
            link.request(m.FEED, {"step": 1, "count": 1, "target": m.HOLD})
        assert link.identity is not None and link.identity.boot_id == 0x2222
    finally:
        link.close()


def test_bad_protocol_version_and_malformed_replies() -> None:
    fake = FakeDealer(lambda fake, cmd: [fake.frame(
        m.NAK, {"command_type": m.HELLO, "reason": m.NAK_BAD_VERSION}, cmd.seq)])
    with pytest.raises(DealerProtocolError, match="refused this host.s protocol version 3"):
        open_link(fake)

    def handler(fake: FakeDealer, cmd: Frame) -> list[Frame]:
        if cmd.type == m.STATUS:
            return [Frame(m.STATUS_REPLY, 9, cmd.seq, b"\x01")]
        return standard(fake, cmd)

    fake = FakeDealer(handler)
    link = open_link(fake, keepalive=False)
    try:
        with pytest.raises(DealerProtocolError, match="malformed"):
            link.request(m.STATUS)
    finally:
        link.close()


def test_keepalive_pings_a_quiet_link() -> None:
    fake = FakeDealer(standard)
    link = open_link(fake, deadman_ms=600)  # a PING every 0.2 s of silence
    try:
        assert wait_until(lambda: sum(1 for f in fake.received if f.type == m.PING) >= 3)
    finally:
        link.close()


def test_cannot_open_a_missing_port() -> None:
    link = DealerLink("/nonexistent/trickref-dealer")
    with pytest.raises(DealerLinkDown, match="cannot open"):
        link.open()


def test_loop_url_hears_only_itself() -> None:
    # loop:// echoes the host's own frames: they are not dealer messages, so no handshake; nor
    # are they a dealer on a noisy line (taken for one, HELLO was retried for a minute and the
    # message blamed the line)
    link = DealerLink("loop://", reply_timeout=0.05, link_timeout=0.5)
    started = time.monotonic()
    with pytest.raises(DealerTimeout, match="did not answer HELLO .*the link is silent"):
        link.open()
    assert time.monotonic() - started < 30  # (60 s before, the noise limit)


# --- URLs against the simulator ------------------------------------------------------------

def test_spy_url_writes_a_wire_log(tmp_path: Path) -> None:
    sim = DealerSimulator(seats=4, deck_order_seed=3, speed=1000)
    sim.start()
    log = tmp_path / "wire.txt"
    dealer = Dealer(f"spy://{sim.stable_path}?file={log}", reply_timeout=0.1)
    try:
        dealer.open()
        plan = round_robin_plan(4)
        dealer.deal(plan)
        assert table_matches(sim, plan) == []
    finally:
        dealer.close()
        sim.stop()
    text = log.read_text()
    assert "TX" in text.upper() and "RX" in text.upper()


def test_socket_url_through_a_tcp_bridge() -> None:
    sim = DealerSimulator(seats=4, deck_order_seed=4, speed=1000)
    sim.start()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    stop = threading.Event()

    def bridge() -> None:
        conn, _ = server.accept()
        conn.settimeout(0.01)
        fd = os.open(sim.stable_path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            while not stop.is_set():
                with contextlib.suppress(TimeoutError, BlockingIOError):
                    data = conn.recv(4096)
                    if not data:
                        return
                    os.write(fd, data)
                with contextlib.suppress(BlockingIOError):
                    out = os.read(fd, 4096)
                    if out:
                        conn.sendall(out)
                time.sleep(0.001)
        finally:
            os.close(fd)
            conn.close()

    t = threading.Thread(target=bridge, daemon=True)
    t.start()
    dealer = Dealer(f"socket://127.0.0.1:{port}", reply_timeout=0.1)
    try:
        dealer.open()
        plan = round_robin_plan(4, shuffle_seed=9)
        dealer.deal(plan)
        assert table_matches(sim, plan) == []
    finally:
        dealer.close()
        stop.set()
        t.join(5)
        server.close()
        sim.stop()


def test_reconnect_by_the_same_name_after_unplugging() -> None:
    with running(seats=4) as (sim, dealer):
        notices: list[str] = []
        dealer.add_listener(lambda e: notices.append(e.name))
        with sim.lock:
            sim.disconnect(come_back_after=0.3)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(sim.stable_path)  # as udev removes the name
        assert wait_until(lambda: "LINK_DOWN" in notices)
        st = dealer.status()  # waits for the port to come back, then asks
        assert st.state_name == "IDLE"
        assert "LINK_UP" in notices
        assert dealer.link.stats.reconnects >= 1


def test_close_ends_a_command_in_flight_without_spinning() -> None:
    fake = FakeDealer(lambda fake, cmd: standard(fake, cmd) if cmd.type == m.HELLO else None)
    link = open_link(fake, keepalive=False, link_timeout=GENEROUS)
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            link.request(m.PING)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    t = threading.Thread(target=ask)
    t.start()
    assert wait_until(lambda: sum(1 for f in fake.received if f.type == m.PING) >= 2)
    link.close()
    t.join(GENEROUS)
    assert not t.is_alive()
    assert isinstance(errors[0], DealerLinkDown)
    sent = sum(1 for f in fake.received if f.type == m.PING)
    assert sent < 100  # closing does not turn the retransmit loop into a busy loop
