"""A table stopped by line noise goes on by itself when the line carries frames again (issue 18,
point 3: "only a link that is truly gone stops the table, ... and an automatic resume when it
returns").

The campaign on main 9829f42 (seed 500000) had one stop at 5 % corrupted bytes that needed a
person's Resume (seed 508025, Hearts): "the dealer did not answer EVENTS_SINCE after 2 tries. The
table goes on by itself when the dealer answers again." The screen promised what the table did
not do, for two reasons, both here:

- The link's event recovery gave up on a dealer that was there (its damaged answers kept coming)
  once the line had been too noisy for ``noise_limit`` seconds, without marking the dealer silent.
  A ``LINK_UP`` is told only after a silence (the next good handshake), so none ever came: the
  table waited for a Resume. Every other give-up of the link marks the dealer silent.
- The host went on by itself only on a ``LINK_UP`` that came while the stop stood and no dealer
  job was out. A ``LINK_UP`` that came first (the supervisor's handshake done before the host took
  the stop) or while the failed step's job was still being counted was dropped, and none followed.
  Now the host also looks when it takes a link stop and when the last job is done: a link that
  already answers again resumes the table at once.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from dealer_testkit import GENEROUS, wait_until
from test_dealer_link import FakeDealer, open_link, standard

from trickref.device.dealer import messages as m
from trickref.device.dealer.errors import DealerTimeout
from trickref.device.dealer.frames import Frame
from trickref.device.table.host import LinkBack, PortDone, TableHost, _Job
from trickref.engine.referee.events import DealerFault, DealerReady


def _damaged(frame: Frame) -> bytes:
    """``frame`` on a noisy line: one byte of its CRC flipped (the reader drops it, counted)."""
    raw = bytearray(frame.encode())
    raw[-2] ^= 0x5A
    return bytes(raw)


def test_events_recovery_given_up_on_a_noisy_line_tells_the_dealer_back() -> None:
    """Every EVENTS answer comes back damaged for longer than ``noise_limit`` (the dealer is
    there: its bytes keep coming): ``recover_events`` gives up with a typed timeout, and when the
    line is clean again the link tells its listeners the dealer is back (``LINK_UP``) by itself,
    with no command from the host. Before: the give-up did not mark the dealer silent, so no
    ``LINK_UP`` ever came and the table waited for a person's Resume."""
    noisy = threading.Event()
    noisy.set()

    def handler(fake: FakeDealer, cmd: Frame) -> list[Frame] | None:
        if cmd.type == m.EVENTS_SINCE and noisy.is_set():
            with fake._cv:  # noqa: SLF001 - the fake's far end writes raw (damaged) bytes
                fake._out += _damaged(fake.events_reply(cmd))  # noqa: SLF001
                fake._cv.notify_all()  # noqa: SLF001
            return None
        return standard(fake, cmd)

    fake = FakeDealer(handler)
    link = open_link(fake, keepalive=False, link_timeout=0.6)
    notices: list[str] = []
    link.add_listener(lambda e: notices.append(e.name))
    try:
        link.noise_limit = 0.8  # (60 s at a table) the same rule, sooner
        with pytest.raises(DealerTimeout, match="EVENTS_SINCE"):
            link.recover_events(timeout=0.6)
        assert link.stats.bad_frames >= 1  # the dealer was there: damaged answers came back
        assert "LINK_UP" not in notices
        noisy.clear()  # the line carries frames again
        assert wait_until(lambda: "LINK_UP" in notices, GENEROUS), notices
    finally:
        link.close()


class _Port:
    """A dealer port whose link state the test sets: ``up`` is what ``link_up`` says."""

    reads = False

    def __init__(self, fails: int = 0) -> None:
        self.up = False
        self.fails = fails  # recoveries that meet the noise again (a stop of their own)
        self.recovered: list[str] = []
        self.post: Any = None

    def start(self, post: Any) -> None:
        self.post = post

    def run(self, cmd: Any) -> None:
        pass

    def read(self) -> None:
        pass

    def stop_read(self) -> None:
        pass

    def recover(self, fault: str, dealing: bool) -> None:
        self.recovered.append(fault)
        if len(self.recovered) <= self.fails:
            self.post(DealerFault("timeout", SILENT, None))
        else:
            self.post(DealerReady(False))  # it answers: the table goes on
        self.post(PortDone("step"))

    def before_shuffle(self) -> None:
        pass

    def close(self) -> None:
        pass

    def waiting_for_person(self) -> bool:
        return False

    def link_up(self) -> bool:
        return self.up


def _host(port: _Port) -> TableHost:
    host = TableHost(port, auto_deal=False)
    host.start()
    return host


SILENT = "the dealer stopped answering (the dealer did not answer EVENTS_SINCE after 2 tries)"


@pytest.mark.parametrize("order", ["link_back_first", "link_back_while_a_job_is_out"])
def test_a_link_stop_whose_link_is_back_already_goes_on_by_itself(order: str) -> None:
    """The ``LINK_UP`` the host hears before it takes the stop, or while the failed step's job is
    still out: the stop goes on by itself all the same (the host asks the port whether its link
    answers). Before: the stop stood until Resume."""
    port = _Port()
    host = _host(port)
    try:
        if order == "link_back_first":
            port.up = True
            host.post(LinkBack())  # no stop yet: nothing to resume
            host.post(DealerFault("timeout", SILENT, None))
        else:
            # the failed step's job, still counted out when its fault is taken
            host.post(_Job(lambda: setattr(host, "_outstanding", host._outstanding + 1)))  # noqa: SLF001
            host.post(DealerFault("timeout", SILENT, None))
            port.up = True
            host.post(LinkBack())  # a job is out: the host waits for it
            host.post(PortDone("step"))
        assert host.wait(lambda: port.recovered != [] and host.referee.dealer_fault is None, GENEROUS), \
            host.referee.dealer_fault
        assert len(port.recovered) == 1 and "EVENTS_SINCE after 2 tries" in port.recovered[0], port.recovered
    finally:
        host.close()


def test_a_link_stop_with_the_link_still_down_waits_for_it() -> None:
    """The same stop while the port's link does not answer: nothing is resumed (the ``LINK_UP``
    will come), and the screen keeps the stop."""
    port = _Port()
    host = _host(port)
    try:
        host.post(DealerFault("timeout", SILENT, None))
        assert host.wait(lambda: host.referee.dealer_fault is not None, GENEROUS)
        host.post(PortDone("free"))
        assert not host.wait(lambda: port.recovered != [], 0.5)
        port.up = True
        host.post(LinkBack())
        assert host.wait(lambda: port.recovered != [] and host.referee.dealer_fault is None, GENEROUS)
        assert len(port.recovered) == 1
    finally:
        host.close()


def test_a_try_that_meets_the_noise_again_is_tried_again_once_a_stop() -> None:
    """The link answers, but the host's resume meets the noise again and stops once more (a stop of
    its own): the host tries once for each stop, never in a loop, and the table goes on when a
    try gets through."""
    port = _Port(fails=2)
    host = _host(port)
    try:
        port.up = True
        host.post(DealerFault("timeout", SILENT, None))
        assert host.wait(lambda: len(port.recovered) == 3 and host.referee.dealer_fault is None, GENEROUS), \
            (port.recovered, host.referee.dealer_fault)
        assert not host.wait(lambda: len(port.recovered) > 3, 0.5)
    finally:
        host.close()
