"""The serial link to the card dealer: port by URL, reader thread, stop-and-wait, recovery.

Why it is built this way (hardware/PROTOCOL.md section 3):

* The port is a pyserial URL (``/dev/trickref-dealer``, the simulator's pty, ``socket://``,
  ``loop://``, ``spy://`` for a wire log), opened by ``serial.serial_for_url``.
* One **reader thread** owns the port's receive side: it splits frames, matches replies to
  the one outstanding command, and delivers events in index order to the listeners. When the
  port fails (unplugged) it closes it and reopens the same URL until it is back: the udev
  name survives a replug.
* Commands are **stop-and-wait**: one outstanding, the identical bytes retransmitted on a
  timeout or on a NAK for an unreadable frame. The dealer replays its cached reply for a
  repeat, so a command acts exactly once even when replies are lost. A command the dealer
  refuses as malformed (it arrived damaged past its CRC) is sent again under a new seq. After ``retries`` silent
  tries the link is suspect and a HELLO handshake checks whether the dealer is the same boot
  (carry on) or rebooted (its state is gone: the command fails with DealerRebooted).
* A **supervisor thread** sends a PING when the host has been quiet for ``deadman_ms / 3``
  (the dealer stops its motors if the host is silent for ``deadman_ms``), redoes the handshake
  after a reconnect, and recovers missed events with EVENTS_SINCE.
* **Degrade, never die.** A command gives up after its timeout only when the dealer has been
  silent (not one byte, garbled or not) for that long: a noisy line whose replies arrive
  damaged keeps being retried (up to ``noise_limit`` seconds), because the dealer is there and
  answering. Only a link that is truly gone fails, and the link tells its listeners when it is
  back (LINK_UP after a port reopens, or after the first good handshake following a silence).

Callbacks run on the reader thread: they must return quickly and must not call ``request``
(that would wait for the very thread that has to deliver the reply; it raises instead).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import serial

from trickref.device.dealer import messages as m
from trickref.device.dealer.errors import (
    DealerError,
    DealerFault,
    DealerGarbled,
    DealerLinkDown,
    DealerProtocolError,
    DealerTimeout,
)
from trickref.device.dealer.frames import Frame, FrameReader
from trickref.device.dealer.messages import BodyError
from trickref.device.dealer.types import (
    EV_EVENTS_LOST,
    EV_LINK_DOWN,
    EV_LINK_UP,
    EV_REBOOTED,
    Event,
    Identity,
    Reply,
)

log = logging.getLogger(__name__)

REPLY_TYPES = frozenset((m.IDENTIFY, m.OK, m.NAK, m.STATUS_REPLY, m.EVENTS, m.STEP, m.INVENTORY_REPLY))
# The replies each command may get (hardware/PROTOCOL.md section 4); any other frame that carries
# the command's seq in its ack is a reply damaged past its CRC and is asked again. (A command type
# not listed here may get any reply: a test probing UNKNOWN_TYPE, say.)
_STEPPED = frozenset((m.OK, m.NAK, m.STEP))
EXPECTED_REPLIES: dict[int, frozenset[int]] = {
    m.HELLO: frozenset((m.IDENTIFY, m.NAK)),
    m.PING: frozenset((m.OK, m.NAK)),
    m.STATUS: frozenset((m.STATUS_REPLY, m.NAK)),
    m.EVENTS_SINCE: frozenset((m.EVENTS, m.NAK)),
    m.DEAL_PLAN: _STEPPED, m.ROUTE_PRESENTED: _STEPPED, m.FEED: _STEPPED, m.FETCH: _STEPPED,
    m.ABORT: _STEPPED, m.RESUME: _STEPPED, m.SELFTEST: _STEPPED,
    m.ESTOP: frozenset((m.OK, m.NAK)),
    m.RESET: frozenset((m.OK, m.NAK)),
    m.STEP_QUERY: frozenset((m.STEP, m.NAK)),
    m.INVENTORY: frozenset((m.INVENTORY_REPLY, m.NAK)),
}
# Commands whose effect depends on the dealer's state before they were sent: if the dealer
# rebooted while one was outstanding, resending it to the new boot would act on a state the
# referee no longer knows, so the command fails instead.
STATEFUL_COMMANDS = frozenset((
    m.DEAL_PLAN, m.ROUTE_PRESENTED, m.FEED, m.FETCH, m.RESUME, m.SELFTEST,
))


class DealerVersionError(DealerProtocolError):
    """The dealer's firmware speaks another version of the wire protocol: the handshake refuses
    it (nothing else is sent) and says which versions met and what to install."""


class DealerRebooted(DealerFault):
    """The dealer rebooted (a new boot id) while the host relied on its state: a plan, the
    stock magazine or a presented card is gone, and the referee must re-check the table."""


class SerialPort(Protocol):
    """The part of pyserial's Serial the link uses (so tests may pass their own)."""

    in_waiting: int

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


def _type_name(ftype: int) -> str:
    return m.TYPE_NAMES.get(ftype, f"type {ftype:#04x}")


def open_serial(url: str, baudrate: int) -> SerialPort:
    """Open a port by pyserial URL with a short read timeout (the reader thread polls)."""
    port = serial.serial_for_url(url, baudrate=baudrate, timeout=0.05, write_timeout=2.0)
    return port


@dataclass
class LinkStats:
    """Counters for benchmarks and diagnostics; bytes are on the wire (COBS + delimiter)."""

    tx_bytes: int = 0
    rx_bytes: int = 0
    tx_frames: int = 0
    rx_frames: int = 0
    commands: int = 0
    retransmits: int = 0
    bad_frames: int = 0
    naks_for_resend: int = 0
    resends_for_damage: int = 0
    malformed: int = 0  # frames whose CRC passed but whose body did not parse or answer the command
    refused_resent: int = 0  # commands the dealer refused as malformed (BAD_BODY, CONFLICT), sent again
    stale_replies: int = 0
    reconnects: int = 0
    handshakes: int = 0
    events: int = 0
    events_recovered: int = 0
    events_lost: int = 0

    def snapshot(self) -> dict[str, int]:
        return dict(self.__dict__)


EventCallback = Callable[[Event], None]


class DealerLink:
    """A framed, acknowledged, self-healing link to one dealer. See the module docstring."""

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        reply_timeout: float = 0.25,
        retries: int = 5,
        deadman_ms: int = 3000,
        link_timeout: float = 10.0,
        reconnect_interval: float = 0.1,
        keepalive: bool = True,
        opener: Callable[[str, int], SerialPort] = open_serial,
    ) -> None:
        self.url = url
        self.baudrate = baudrate
        self.reply_timeout = reply_timeout
        self.retries = max(1, retries)
        self.deadman_ms = deadman_ms
        self.link_timeout = link_timeout
        self.reconnect_interval = reconnect_interval
        self.keepalive = keepalive
        self._opener = opener
        self.stats = LinkStats()

        self._port: SerialPort | None = None
        self._port_lock = threading.Lock()  # guards _port swaps and writes
        self._reader = FrameReader()
        self._request_lock = threading.RLock()
        # host commands waiting for the request lock (``_commanding``): the supervisor leaves the
        # link to them
        self._waiters = 0
        self._waiters_lock = threading.Lock()
        self._cv = threading.Condition()
        self._waiting_seq: int | None = None
        self._reply: Frame | None = None
        self._resend_now = False
        self._seq = int.from_bytes(os.urandom(1), "big")
        self._seq_lock = threading.Lock()
        self._rx_seq = 0
        self._connected = threading.Event()
        self._closing = threading.Event()
        self._wake = threading.Event()
        self._need_hello = True
        self._need_recovery = False
        self._abort_pending = False
        self._srtt: float | None = None
        self._rto = reply_timeout
        # Backing off further than this only slows a noisy link down: a lost frame is far
        # more common than a round trip of over a second on a USB cable.
        self._max_rto = max(1.0, 4 * reply_timeout)
        self._batch = 0  # EVENTS_SINCE max_events: 0 = as many as fit, smaller on a noisy link
        self._last_tx = 0.0
        self.last_rx = 0.0
        self.last_bytes = 0.0  # when the last byte (damaged or not) came from the dealer
        self.noise_limit = max(60.0, 20.0 * link_timeout)
        # Replies damaged past their CRC (a body that does not parse, or does not answer the
        # command) are asked again; this many in a row is no line noise: DealerGarbled.
        self.garble_limit = 4 * self.retries
        # A command the dealer refused as malformed (BAD_BODY) or as another step's id (CONFLICT)
        # is sent again under a new seq this many times before the refusal goes to the caller.
        self.refusal_retries = 3
        self._garbled = 0  # malformed replies in a row (any command); a good reply resets it
        self._silent = False  # a command found the dealer silent: LINK_UP when it answers again
        self.last_busy: tuple[int, int, int] | None = None

        self._ev_lock = threading.RLock()
        self._next_event = 0
        self._early: dict[int, dict[str, Any]] = {}
        self._listeners: list[EventCallback] = []
        self.identity: Identity | None = None

        self._reader_thread: threading.Thread | None = None
        self._supervisor: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def open(self, timeout: float | None = None) -> Identity:
        """Open the port, start the threads and do the HELLO handshake; returns IDENTIFY."""
        if self._reader_thread is not None:
            raise RuntimeError("dealer link already open")
        self._closing.clear()
        try:
            self._attach(self._opener(self.url, self.baudrate))
        except (serial.SerialException, OSError) as exc:
            raise DealerLinkDown(f"cannot open the dealer port {self.url!r}: {exc}") from exc
        self._reader_thread = threading.Thread(
            target=self._read_loop, name="dealer-reader", daemon=True)
        self._reader_thread.start()
        try:
            with self._commanding():
                self._write(b"\x00")  # flush whatever half frame the dealer holds
                identity = self._handshake(time.monotonic() + (timeout or self.link_timeout))
        except BaseException:
            self.close()
            raise
        self._supervisor = threading.Thread(
            target=self._supervise, name="dealer-supervisor", daemon=True)
        self._supervisor.start()
        return identity

    def close(self) -> None:
        """Stop the threads and close the port (idempotent)."""
        self._closing.set()
        self._wake.set()
        with self._cv:
            self._cv.notify_all()
        me = threading.current_thread()
        for t in (self._supervisor, self._reader_thread):
            if t is not None and t is not me:
                t.join(timeout=5)
        self._supervisor = None
        self._reader_thread = None
        self._detach()

    def __enter__(self) -> DealerLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def answering(self) -> bool:
        """The port is open and the dealer answered the last handshake since any silence (a
        ``LINK_UP`` after a silence or a reconnect has been told, or none was needed)."""
        return self.connected and not self._silent and not self._need_hello

    @property
    def next_event_index(self) -> int:
        """The index of the next event the host expects (everything before was delivered)."""
        with self._ev_lock:
            return self._next_event

    def byte_error_rate(self) -> float:
        """Roughly the line's byte error rate (one bad byte spoils one frame), the larger of two
        estimates: damaged frames received per byte received (floored by 2000 bytes so one early
        hit is not read as a terrible line), and the frames that had to be sent again, spread
        over the bytes of a round trip (a frame of ours the dealer could not read shows only
        as a retransmission)."""
        st = self.stats
        received = st.bad_frames / max(st.rx_bytes, 2000)
        if st.tx_frames < 8:
            return received
        lost = min(0.95, st.retransmits / st.tx_frames)
        trip = max(8.0, (st.tx_bytes + st.rx_bytes) / st.tx_frames)
        return max(received, 1.0 - (1.0 - lost) ** (1.0 / trip))

    def add_listener(self, callback: EventCallback) -> None:
        """Call ``callback(event)`` for every dealer event, in index order, and for the link
        notices (events lost, rebooted, link down/up); called from the reader thread."""
        with self._ev_lock:
            self._listeners.append(callback)

    def remove_listener(self, callback: EventCallback) -> None:
        with self._ev_lock, contextlib.suppress(ValueError):
            self._listeners.remove(callback)

    # --- port handling --------------------------------------------------------------------

    def _attach(self, port: SerialPort) -> None:
        with self._port_lock:
            self._port = port
            self._reader.reset()
        self._need_hello = True
        self._connected.set()

    def _detach(self) -> None:
        with self._port_lock:
            port, self._port = self._port, None
        self._connected.clear()
        if port is not None:
            with contextlib.suppress(Exception):
                port.close()

    def _drop(self, why: str) -> None:
        """The port failed: close it; the reader thread will reopen the same URL."""
        if self._closing.is_set():
            return
        was = self._port is not None
        self._detach()
        self._need_hello = True
        with self._cv:
            self._cv.notify_all()
        if was:
            log.warning("dealer link down: %s", why)
            self._notify(Event(-1, EV_LINK_DOWN, "LINK_DOWN", {"reason": why}))

    def _write(self, data: bytes) -> None:
        with self._port_lock:
            port = self._port
            if port is None:
                raise DealerLinkDown(f"the dealer port {self.url!r} is not open")
            try:
                port.write(data)
            except (serial.SerialException, OSError) as exc:
                port = None
                error = exc
            else:
                self.stats.tx_bytes += len(data)
                self._last_tx = time.monotonic()
                return
        self._drop(f"write failed: {error}")
        raise DealerLinkDown(f"writing to the dealer port {self.url!r} failed: {error}")

    def _read_loop(self) -> None:
        while not self._closing.is_set():
            port = self._port
            if port is None:
                self._try_reopen()
                continue
            try:
                waiting = port.in_waiting
                data = port.read(max(1, min(waiting, 4096)))
            except Exception as exc:  # serial raises many types when a device vanishes
                self._drop(f"read failed: {exc}")
                continue
            if not data:
                continue
            self.stats.rx_bytes += len(data)
            errors = self._reader.errors
            frames = self._reader.feed(data)
            if self._reader.errors != errors or any(f.type >= 0x80 for f in frames):
                # the dealer is there (a frame of its, or a damaged one); bytes count when their
                # frame ends: our own frames coming back (an echo: TX wired to RX, loop://) are no
                # dealer, and taken for one they made a silent link look noisy, retried for a
                # minute ("the line is too noisy to carry a frame")
                self.last_bytes = time.monotonic()
            for frame in frames:
                try:
                    self._dispatch(frame)
                except Exception:  # never let one bad frame or callback kill the reader
                    log.exception("dealer link: error handling %r", frame)
            if self._reader.errors != errors:
                self.stats.bad_frames = self._reader.errors
                self._damaged_frame()

    def _damaged_frame(self) -> None:
        """A damaged frame arrived while a command waits: most likely its reply, so resend
        at once (the dealer replays its cached reply) instead of waiting out the timeout."""
        with self._cv:
            if self._waiting_seq is not None and self._reply is None:
                self.stats.resends_for_damage += 1
                self._resend_now = True
                self._cv.notify_all()

    def _try_reopen(self) -> None:
        if self._closing.wait(self.reconnect_interval):
            return
        try:
            port = self._opener(self.url, self.baudrate)
        except Exception:
            return
        if self._closing.is_set():
            with contextlib.suppress(Exception):
                port.close()
            return
        self.stats.reconnects += 1
        self._attach(port)
        log.info("dealer link: port %s reopened", self.url)
        self._notify(Event(-1, EV_LINK_UP, "LINK_UP", {}))
        self._wake.set()  # the supervisor redoes the handshake and recovers events
        with self._cv:
            self._cv.notify_all()

    # --- receiving ------------------------------------------------------------------------

    def _dispatch(self, frame: Frame) -> None:
        if frame.type < 0x80:
            return  # our own frames echoed (loop://) or garbage: never a dealer message
        self.stats.rx_frames += 1
        self.last_rx = time.monotonic()
        try:
            fields = m.decode_body(frame.type, frame.body)
        except BodyError as exc:
            # Damaged past its CRC-16 (cut short by a zero the line made, say): line noise. A
            # reply goes to the command waiting for it, which asks again; an event frame is
            # dropped, and its events are fetched again (EVENTS_SINCE) as a lost frame's are.
            log.info("dealer link: malformed %s frame dropped: %s", _type_name(frame.type), exc)
            if frame.type in REPLY_TYPES and self._offer_reply(frame):
                return
            self.stats.malformed += 1
            if frame.type == m.EVENT:
                self._need_recovery = True
                self._wake.set()
            self._damaged_frame()
            return
        self._rx_seq = frame.seq
        if frame.type in (m.EVENT, m.EVENTS):
            self._accept_events(fields["first_index"], fields["events"],
                                from_reply=frame.type == m.EVENTS)
        if frame.type == m.BUSY:
            self.last_busy = (fields["state"], fields["done"], fields["total"])
            return
        if frame.type in REPLY_TYPES:
            self._offer_reply(frame)

    def _offer_reply(self, frame: Frame) -> bool:
        """Hand ``frame`` to the command waiting for it; False when it answers none."""
        with self._cv:
            if self._waiting_seq is None:
                self.stats.stale_replies += 1
                return False
            if frame.type == m.NAK and len(frame.body) == 2 and frame.body[0] == 0 and \
                    frame.body[1] in (m.NAK_BAD_CRC, m.NAK_BAD_VERSION):
                # The dealer saw a damaged frame (command type 0: it could not tell which):
                # ours, most likely. Resend now rather than after the timeout.
                self.stats.naks_for_resend += 1
                self._resend_now = True
                self._cv.notify_all()
                return True
            if frame.ack != self._waiting_seq:
                self.stats.stale_replies += 1
                return False
            self._reply = frame
            self._cv.notify_all()
            return True

    def _accept_events(self, first_index: int, raw_events: list[dict[str, Any]],
                       *, from_reply: bool) -> None:
        """Deliver events in index order. Events past a gap wait in ``_early`` (so recovery
        only has to fetch the missing ones) and the gap is flagged for EVENTS_SINCE."""
        deliver: list[Event] = []
        with self._ev_lock:
            expected = self._next_event
            if from_reply and raw_events:
                ahead = (raw_events[0]["index"] - expected) & 0xFFFF
                if 0 < ahead < 0x8000:
                    # The dealer no longer has the events we missed: say so, then go on.
                    self.stats.events_lost += ahead
                    deliver.append(Event(-1, EV_EVENTS_LOST, "EVENTS_LOST",
                                         {"first": expected, "lost": ahead}))
                    expected = raw_events[0]["index"]
            for raw in raw_events:
                d = (raw["index"] - expected) & 0xFFFF
                if d == 0:
                    deliver.append(Event.from_fields(raw))
                    expected = (expected + 1) & 0xFFFF
                    if from_reply:
                        self.stats.events_recovered += 1
                    while expected in self._early:
                        deliver.append(Event.from_fields(self._early.pop(expected)))
                        expected = (expected + 1) & 0xFFFF
                elif d >= 0x8000:
                    if raw["kind"] == m.EV_BOOT and not from_reply:
                        self._need_hello = True  # an index from 0 again: a reboot
                        self._wake.set()
                elif len(self._early) < 512:
                    self._early[raw["index"]] = raw
            # Whatever is still early now sits behind a gap.
            self._early = {i: r for i, r in self._early.items()
                           if 0 < (i - expected) & 0xFFFF < 0x8000}
            if self._early:
                self._need_recovery = True
                self._wake.set()
            self._next_event = expected
            self.stats.events += sum(1 for e in deliver if not e.is_notice)
            for event in deliver:
                self._notify_locked(event)

    def _gap(self) -> int:
        """How many events are missing before the first early one (0: unknown)."""
        with self._ev_lock:
            if not self._early:
                return 0
            return min((i - self._next_event) & 0xFFFF for i in self._early)

    def _notify(self, event: Event) -> None:
        with self._ev_lock:
            self._notify_locked(event)

    def _notify_locked(self, event: Event) -> None:
        for callback in list(self._listeners):
            try:
                callback(event)
            except Exception:
                log.exception("dealer event listener failed on %s", event)

    # --- commands -------------------------------------------------------------------------

    def request(self, ftype: int, fields: dict[str, Any] | None = None, *,
                timeout: float | None = None, max_tries: int | None = None) -> Reply:
        """Send one command and return its reply (stop-and-wait, retransmit, reconnect).

        Raises DealerTimeout when no reply came within ``timeout`` (default ``link_timeout``),
        DealerLinkDown when the port stayed closed, DealerRebooted when the dealer rebooted
        under a state-dependent command. A reply that does not parse or does not answer the
        command (damaged past its CRC) is line noise: the identical frame is sent again, and
        only ``garble_limit`` of them in a row raise DealerGarbled. A command the dealer refused
        as malformed (NAK BAD_BODY or CONFLICT: it reached the dealer damaged past its CRC) is
        sent again under a new seq, up to ``refusal_retries`` times. Any other NAK is a reply
        like any other: the caller decides what it means."""
        if threading.current_thread() is self._reader_thread:
            raise RuntimeError("dealer commands cannot be sent from the dealer's event "
                               "callback (it runs on the reader thread); hand them off")
        body = m.encode_body(ftype, fields)
        deadline = time.monotonic() + (self.link_timeout if timeout is None else timeout)
        with self._commanding():
            # The supervisor may have held the link for up to its own budget, retrying a
            # command of its own on a silent link (a pending ABORT). A command that spent its
            # time waiting for the link still gets one retransmit timeout to be sent and
            # answered, so it never fails unsent just as the dealer comes back; a dealer that
            # is really silent is still found out about that long after the budget.
            deadline = max(deadline, time.monotonic() + self._base_rto())
            reply = self._transact(ftype, body, deadline, max_tries)
            if self._need_recovery and ftype != m.EVENTS_SINCE:
                with contextlib.suppress(DealerError):
                    self._recover(deadline)
            return reply

    @contextlib.contextmanager
    def _commanding(self) -> Iterator[None]:
        """The request lock for a command of the host's. While one waits for it the supervisor
        does not take the link again: after its own try on a silent dealer failed (a HELLO, a
        keep-alive) it came straight back for another (``_went_silent`` wakes it) and took the
        lock before the waiting command's thread could run, try after try, so the command never
        went out, never timed out, and the table waited for good (the deal's STATUS poll with
        the twin's cable out, tests/e2e/test_sim_twin.py; a command sent to a dealer found
        silent by a keep-alive waited the same way)."""
        with self._waiters_lock:
            self._waiters += 1
        try:
            self._request_lock.acquire()
        finally:
            with self._waiters_lock:
                self._waiters -= 1
        try:
            yield
        finally:
            self._request_lock.release()

    def _next_seq(self) -> int:
        with self._seq_lock:
            self._seq = (self._seq + 1) & 0xFF
            return self._seq

    def send_now(self, ftype: int, fields: dict[str, Any] | None = None) -> None:
        """Write one command at once, without the request lock and without waiting for a
        reply: the emergency stop must not queue behind a command being retransmitted (the
        dealer acts on ESTOP as soon as its CRC checks). Follow it with ``request`` to get
        the acknowledgement."""
        body = m.encode_body(ftype, fields)
        self._write(Frame(ftype, self._next_seq(), self._rx_seq, body).encode())
        self.stats.tx_frames += 1

    def _transact(self, ftype: int, body: bytes, deadline: float, max_tries: int | None = None,
                  soft: bool = False) -> Reply:
        """Stop-and-wait for one command; the caller holds the request lock. ``max_tries``: give
        up after that many sends even on a live line (the caller then sends it another way);
        ``soft``: the deadline is the caller's budget for one attempt (it then asks for less),
        kept even on a live line, and never taken for the dealer's silence."""
        if self._closing.is_set():
            raise DealerLinkDown("the dealer link is closed")
        seq = self._next_seq()
        wire: bytes | None = None  # built once: a retransmission must be byte-identical
        boot = self.identity.boot_id if self.identity else None
        tries = 0
        first_sent = 0.0
        started = time.monotonic()
        self.stats.commands += 1
        name = m.TYPE_NAMES.get(ftype, hex(ftype))
        garbled = ""  # what was wrong with this command's last answer, if it was malformed
        refused = 0  # times the dealer refused this command as damaged on its way (sent again)
        while True:
            if self._closing.is_set():
                raise DealerLinkDown(f"the dealer link was closed ({name} abandoned)")
            now = time.monotonic()
            if now >= deadline:
                if not self.connected:
                    self._went_silent()
                    raise DealerLinkDown(
                        f"the dealer port {self.url!r} is gone and did not come back "
                        f"({name} not delivered)")
                # the dealer was heard lately (a damaged reply, a NAK, an event): it is there,
                # only the line is noisy
                heard = self.alive()
                if soft or (max_tries is not None and tries >= max_tries):
                    raise DealerTimeout(f"the dealer did not answer {name} after {tries} tries"
                                        + (f" (its last answer was malformed: {garbled})" if garbled else ""))
                if heard and now < started + self.noise_limit:
                    # bytes keep coming back, damaged: the dealer is there, the line is noisy;
                    # keep trying (slowly is better than a table stopped by line noise)
                    deadline = now + max(self._rto, self.reply_timeout)
                    continue
                self._went_silent()
                if heard:
                    raise DealerTimeout(
                        f"the dealer did not answer {name} after {tries} tries in "
                        f"{now - started:.0f} s: the line is too noisy to carry a frame"
                        + (f" (its last answer was malformed: {garbled})" if garbled else ""))
                raise DealerTimeout(
                    f"the dealer did not answer {name} after {tries} tries; the link is "
                    "silent")
            if not self.connected:
                self._connected.wait(min(0.1, deadline - now))
                continue
            if self._abort_pending and ftype not in (m.ABORT, m.ESTOP):
                try:
                    self._send_pending_abort(deadline)
                except (DealerTimeout, DealerLinkDown):
                    continue
            if self._need_hello and ftype not in (m.HELLO, m.ABORT, m.ESTOP):
                try:
                    identity = self._handshake(deadline)
                except DealerTimeout:
                    continue
                except DealerLinkDown:
                    continue
                if boot is not None and identity.boot_id != boot and ftype in STATEFUL_COMMANDS:
                    raise DealerRebooted(
                        f"the dealer rebooted while {name} was outstanding (boot id "
                        f"{boot:#06x} -> {identity.boot_id:#06x}); its plan, magazine and "
                        "presented card are gone", code=3, name="REBOOTED")
            if wire is None:
                wire = Frame(ftype, seq, self._rx_seq, body).encode()
            with self._cv:
                self._waiting_seq = seq
                self._reply = None
                self._resend_now = False
            try:
                self._write(wire)
            except DealerLinkDown:
                continue
            self.stats.tx_frames += 1
            if tries:
                self.stats.retransmits += 1
            else:
                first_sent = time.monotonic()
            tries += 1
            frame = self._await_reply(min(deadline, time.monotonic() + self._rto))
            reply: Reply | None = None
            if frame is not None:
                reply, why = self._parse_reply(ftype, body, frame)
                if reply is None:
                    garbled = why
                    self._garble(name, why)
            if reply is not None and self._refused_as_damaged(ftype, reply) and refused < self.refusal_retries \
                    and (max_tries is None or tries < max_tries):
                # The command reached the dealer damaged past its CRC-16 (1 damaged frame in
                # 65,536 passes it): its body did not parse (BAD_BODY) or its step id became
                # another step's (CONFLICT). Refused, it did nothing (a refused step is not
                # remembered), so it is sent again. The identical bytes would do on a dealer that
                # got a damaged copy (its reply cache is keyed by seq and CRC), but under a new
                # seq it is dispatched afresh whatever the cache holds; a step id still answers
                # a step that was done with what it did. A refusal that comes back every time is
                # the dealer's real answer and goes to the caller. (Before, one such frame at 5 %
                # corrupted bytes stopped the table until a person pressed Resume.)
                refused += 1
                self._garbled = 0
                self.stats.refused_resent += 1
                log.info("dealer link: the dealer refused %s as %s (damaged on the line): sent again",
                         name, m.NAK_REASON_NAMES.get(reply.fields["reason"]))
                seq = self._next_seq()
                wire = None
                continue
            if reply is not None:
                self._garbled = 0
                if tries == 1:
                    self._learn_rtt(time.monotonic() - first_sent)
                else:
                    # The dealer is there and answering: the silence was a lost frame, not
                    # a slow link, so the next command starts from the learnt timeout again.
                    self._rto = self._base_rto()
                return reply
            if max_tries is not None and tries >= max_tries:
                deadline = min(deadline, time.monotonic())  # the caller asked for so many tries
                continue
            if not self._resend_now and self.last_bytes < first_sent:
                self._rto = min(self._rto * 2, self._max_rto)  # back off (Karn)
            elif tries > self.retries:
                # NAK after NAK: the line is bad; do not hammer it at full speed.
                self._closing.wait(min(self._rto, max(0.0, deadline - time.monotonic())))
            if tries % self.retries == 0 and ftype != m.HELLO and self.last_bytes < first_sent:
                # Not a byte from the dealer since the command went out: check who is at the
                # other end (a slow but live link keeps its replies coming and is left alone,
                # and so is a noisy one: its replies come, damaged).
                self._need_hello = True

    @staticmethod
    def _refused_as_damaged(ftype: int, reply: Reply) -> bool:
        """The dealer's NAK says the command it got was malformed (BAD_BODY) or named another
        step (CONFLICT): what a frame damaged on its way past the CRC gets. (HELLO's NAK is the
        handshake's to read.)"""
        return reply.type == m.NAK and ftype != m.HELLO and reply.fields["reason"] in (m.NAK_BAD_BODY, m.NAK_CONFLICT)

    def alive(self) -> bool:
        """The dealer sent something (a byte, damaged or not) within the link timeout: it is
        there, whatever the line does to its frames."""
        return time.monotonic() - self.last_bytes < self.link_timeout

    def _went_silent(self) -> None:
        """A command found the dealer silent (or its port gone): the next good handshake tells
        the listeners it is back (LINK_UP), and the supervisor keeps trying it meanwhile."""
        self._silent = True
        self._need_hello = True
        self._wake.set()

    def abort_when_back(self) -> None:
        """The host gave up on an action while the dealer could not be told: make ABORT the
        first command the dealer hears when the link is back. (Any host frame ends the
        dealer's dead-man pause and would restart the abandoned action; ABORT stops it.)"""
        self._abort_pending = True
        self._wake.set()

    def _send_pending_abort(self, deadline: float) -> None:
        self._abort_pending = False
        step = 0x8000 | (int.from_bytes(os.urandom(2), "big") & 0x7FFF)
        try:
            self._transact(m.ABORT, m.encode_body(m.ABORT, {"step": step}), deadline)
        except DealerError:
            self._abort_pending = True
            raise

    def _learn_rtt(self, sample: float) -> None:
        """Adapt the retransmit timeout to the link, as TCP does (Karn's rule): a slow link
        must not be flooded with resends whose replies all arrive too late to count. Only a
        reply to a first send is a clean sample; each timeout doubles the timeout until one
        comes. The timeout stays between the configured reply timeout and ``_max_rto``."""
        self._srtt = sample if self._srtt is None else 0.875 * self._srtt + 0.125 * sample
        self._rto = self._base_rto()

    def _base_rto(self) -> float:
        if self._srtt is None:
            return self.reply_timeout
        return min(max(self.reply_timeout, 2.0 * self._srtt), self._max_rto)

    def _await_reply(self, until: float) -> Frame | None:
        with self._cv:
            try:
                while True:
                    if self._reply is not None:
                        return self._reply
                    if self._resend_now or self._closing.is_set() or not self.connected:
                        return None
                    left = until - time.monotonic()
                    if left <= 0:
                        return None
                    self._cv.wait(left)
            finally:
                self._waiting_seq = None

    def _parse_reply(self, ftype: int, body: bytes, frame: Frame) -> tuple[Reply | None, str]:
        """The reply ``frame`` is to the command ``ftype`` with ``body``, or (None, what is
        wrong with it): a body that does not parse, a frame no answer to this command (another
        reply type, an OK or NAK naming another command, a STEP of another step, another
        INVENTORY part or a part of the wrong shape). With a 16-bit CRC one damaged frame in
        65,536 passes it; on a noisy line that is every few hundred deals."""
        rname = _type_name(frame.type)
        try:
            fields = m.decode_body(frame.type, frame.body)
        except BodyError as exc:
            text = str(exc)
            return None, text if text.startswith(rname) else f"{rname}: {text}"
        name = _type_name(ftype)
        allowed = EXPECTED_REPLIES.get(ftype)
        if allowed is not None and frame.type not in allowed:
            return None, f"{rname} is no answer to {name}"
        if frame.type in (m.OK, m.NAK) and fields["command_type"] != ftype:
            return None, f"{rname} names command {fields['command_type']:#04x}, not {name}"
        if frame.type in (m.STEP, m.INVENTORY_REPLY):
            sent = m.decode_body(ftype, body) if ftype in m.SCHEMAS else {}
            step = sent.get("step", sent.get("deal_id"))
            if frame.type == m.STEP and step is not None and fields["step"] != step:
                return None, f"STEP of step {fields['step']:#06x}, not {step:#06x}"
            if frame.type == m.INVENTORY_REPLY and "part" in sent:
                items, total = fields["items"], fields["total"]
                if fields["part"] != sent["part"]:
                    return None, f"INVENTORY_REPLY of part {fields['part']}, not {sent['part']}"
                if sent["part"] == m.INV_SUMMARY and len(items) != 4:
                    return None, f"INVENTORY_REPLY summary of {len(items)} bytes, not 4"
                if sent["part"] == m.INV_POCKETS and len(items) % 2:
                    return None, "INVENTORY_REPLY pockets with an odd number of bytes"
                size = 2 if sent["part"] == m.INV_POCKETS else 1
                if fields["offset"] + len(items) // size > total:
                    return None, f"INVENTORY_REPLY with items past its total of {total}"
        return Reply(frame.type, frame.seq, frame.ack, fields), ""

    def _garble(self, name: str, why: str) -> None:
        """The answer to ``name`` was malformed: count it; the caller sends the identical frame
        again (the dealer replays its cached reply, or answers a step's id with what it did).
        ``garble_limit`` of them in a row is no line noise: DealerGarbled."""
        self.stats.malformed += 1
        self._garbled += 1
        log.info("dealer link: the answer to %s is malformed (%s): asked again", name, why)
        if self._garbled >= self.garble_limit:
            count, self._garbled = self._garbled, 0
            raise DealerGarbled(
                f"the dealer's answers to {name} were malformed {count} times in a row (the last: "
                f"{why}): its firmware may speak another layout, or the line no longer carries "
                "frames whole; check the cable and the firmware version")

    def _handshake(self, deadline: float) -> Identity:
        """HELLO -> IDENTIFY; notices a reboot and schedules event recovery."""
        self._need_hello = False
        try:
            reply = self._transact(
                m.HELLO, m.encode_body(m.HELLO, {"host_version": m.PROTOCOL_VERSION, "deadman_ms": self.deadman_ms,
                                                 "host_flags": m.HELLO_WANTS_FLAGS2}),
                deadline)
        except DealerError:
            self._need_hello = True
            raise
        if reply.type == m.NAK:
            reason = m.NAK_REASON_NAMES.get(reply.fields["reason"], str(reply.fields["reason"]))
            if reply.fields["reason"] == m.NAK_BAD_VERSION:
                raise DealerVersionError(
                    f"the dealer refused this host's protocol version {m.PROTOCOL_VERSION} "
                    "(BAD_VERSION): its firmware speaks another version of the wire protocol; "
                    "install the firmware that comes with this version of trickref on the "
                    "dealer (firmware/README.md), or run the trickref that matches its firmware")
            raise DealerProtocolError(
                f"the dealer refused HELLO (protocol version {m.PROTOCOL_VERSION}): {reason}")
        if reply.type != m.IDENTIFY:
            raise DealerProtocolError(f"the dealer answered HELLO with {reply.name}, not IDENTIFY")
        try:
            identity = Identity.from_fields(reply.fields)
        except (KeyError, TypeError, IndexError) as exc:
            raise DealerProtocolError(f"the dealer's IDENTIFY cannot be read: {exc}") from exc
        if identity.protocol_version != m.PROTOCOL_VERSION:
            raise DealerVersionError(
                f"the dealer's firmware {identity.firmware_version} speaks wire protocol version "
                f"{identity.protocol_version}, this host {m.PROTOCOL_VERSION}: nothing is sent to it; "
                "install the firmware that comes with this version of trickref on the dealer "
                "(firmware/README.md), or run the trickref that matches its firmware")
        self.stats.handshakes += 1
        old = self.identity
        self.identity = identity
        if self._silent:
            self._silent = False
            log.info("dealer link: the dealer answers again")
            self._notify(Event(-1, EV_LINK_UP, "LINK_UP", {"after": "silence"}))
        with self._ev_lock:
            if old is None:
                self._next_event = identity.next_event_index
                self._early.clear()
            elif old.boot_id != identity.boot_id:
                self._next_event = 0
                self._early.clear()
                self._need_recovery = True
                self._notify_locked(Event(-1, EV_REBOOTED, "REBOOTED", {
                    "old_boot_id": old.boot_id, "boot_id": identity.boot_id}))
            elif identity.next_event_index != self._next_event:
                self._need_recovery = True
        return identity

    def _recover(self, deadline: float) -> None:
        """EVENTS_SINCE until the host has every event the dealer still keeps.

        A full EVENTS reply is ~250 bytes, which a noisy line rarely carries intact; so when
        one does not come back the batch is halved (down to one event a reply) and grown
        again after successes. EVENTS_SINCE is idempotent, so changing it is safe."""
        began = time.monotonic()
        for _ in range(1000):
            self._need_recovery = False
            want = self.next_event_index
            gap = self._gap()
            batch = min(gap, self._batch) if gap and self._batch else gap or self._batch
            batch = min(batch, 255)  # max_events is one byte; 0 still means "as many as fit"
            body = m.encode_body(m.EVENTS_SINCE, {"first_index": want, "max_events": batch})
            attempt_end = min(deadline, time.monotonic() + 3 * self._rto)
            try:
                reply = self._transact(m.EVENTS_SINCE, body, attempt_end, soft=True)
            except DealerTimeout:
                self._need_recovery = True
                now = time.monotonic()
                if now >= deadline:
                    if not (self.alive() and now < began + self.noise_limit):
                        # given up, the dealer there or not: the next good handshake tells the
                        # listeners it answers again (LINK_UP), and the table that stopped for
                        # it goes on by itself (given up on a noisy line without this, no
                        # LINK_UP came: the campaign's corrupt_5 seed 508025 waited for Resume)
                        self._went_silent()
                        raise
                    deadline = now + self.link_timeout  # a live dealer on a noisy line: go on
                self._batch = 16 if self._batch == 0 else max(1, self._batch // 2)
                continue
            if reply.type != m.EVENTS:
                raise DealerProtocolError(f"the dealer answered EVENTS_SINCE with {reply.name}")
            if self._batch and len(reply.fields["events"]) == self._batch:
                self._batch = 0 if self._batch >= 64 else self._batch * 2
            if gap and not self._need_recovery:
                continue  # the gap is filled: one more round to see whether more followed
            if not reply.fields["events"] and not self._need_recovery:
                return
        self._need_recovery = True

    def fetch_events(self, first: int, *, timeout: float | None = None) -> list[Event]:
        """The events the dealer logged from index ``first`` up to the newest the host has had
        delivered, re-read from its log (EVENTS_SINCE) without delivering them again: a step
        sent again after its answer was lost takes its own events from here. Fewer when the
        dealer no longer keeps the oldest (its log holds 256)."""
        deadline = time.monotonic() + (self.link_timeout if timeout is None else timeout)
        out: list[Event] = []
        want = first & 0xFFFF
        with self._commanding():
            stop = self.next_event_index
            for _ in range(300):
                left = (stop - want) & 0xFFFF
                if left == 0 or left >= 0x8000:
                    break
                batch = min(left, self._batch or 64, 255)
                body = m.encode_body(m.EVENTS_SINCE, {"first_index": want, "max_events": batch})
                try:
                    reply = self._transact(m.EVENTS_SINCE, body,
                                           min(deadline, time.monotonic() + 3 * self._rto), soft=True)
                except DealerTimeout:
                    now = time.monotonic()
                    if now >= deadline:
                        if not self.alive():
                            raise
                        deadline = now + self.link_timeout
                    self._batch = 16 if self._batch == 0 else max(1, self._batch // 2)
                    continue
                if reply.type != m.EVENTS:
                    raise DealerProtocolError(f"the dealer answered EVENTS_SINCE with {reply.name}")
                events = reply.fields["events"]
                if not events:
                    break
                for raw in events:
                    if 0 < (stop - raw["index"]) & 0xFFFF < 0x8000:
                        out.append(Event.from_fields(raw))
                want = (events[-1]["index"] + 1) & 0xFFFF
        return out

    def recover_events(self, timeout: float | None = None) -> None:
        """Fetch every event the host missed (EVENTS_SINCE); listeners get them in order."""
        deadline = time.monotonic() + (self.link_timeout if timeout is None else timeout)
        with self._commanding():
            self._recover(deadline)

    def handshake(self, timeout: float | None = None) -> Identity:
        """Redo HELLO now (e.g. after the referee was told the dealer was reset)."""
        deadline = time.monotonic() + (self.link_timeout if timeout is None else timeout)
        with self._commanding():
            identity = self._handshake(deadline)
            if self._need_recovery:
                self._recover(deadline)
            return identity

    # --- supervision ----------------------------------------------------------------------

    @property
    def keepalive_interval(self) -> float:
        return max(0.05, self.deadman_ms / 3000.0)

    def _supervise(self) -> None:
        while not self._closing.is_set():
            self._wake.wait(self.keepalive_interval / 2)
            self._wake.clear()
            if self._closing.is_set() or not self.connected:
                continue
            idle = time.monotonic() - self._last_tx >= self.keepalive_interval
            if not (self._need_hello or self._need_recovery or self._abort_pending
                    or (self.keepalive and idle)):
                continue
            if self._waiters or not self._request_lock.acquire(timeout=0.01):
                continue  # a command is under way or waits: it keeps the link alive itself
            try:
                deadline = time.monotonic() + self.link_timeout
                if self._abort_pending:
                    self._send_pending_abort(deadline)
                if self._need_hello:
                    self._handshake(deadline)
                if self._need_recovery:
                    self._recover(deadline)
                elif self.keepalive and time.monotonic() - self._last_tx >= \
                        self.keepalive_interval:
                    self._transact(m.PING, b"", deadline)
            except DealerError as exc:
                log.info("dealer supervisor: %s", exc)
            except Exception:
                log.exception("dealer supervisor failed")
            finally:
                self._request_lock.release()
