"""The handshake refuses a peer of another protocol version with words that say what to do
(protocol 3 adds step ids: a version-2 peer would misread every step command), on the real path:
the firmware behind a pty, pyserial, the real link."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from trickref.device.dealer import messages as m
from trickref.device.dealer.link import DealerLink, DealerVersionError
from trickref.device.dealer.sim import DealerSimulator

P: Any = importlib.import_module("trickref.firmware.protocol")


def test_a_dealer_on_the_version_2_firmware_refuses_and_the_host_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(P, "PROTOCOL", 2)  # a dealer still on the version-2 firmware
    with DealerSimulator(seats=4) as sim:
        link = DealerLink(sim.stable_path, link_timeout=3.0, keepalive=False)
        with pytest.raises(DealerVersionError) as err:
            link.open()
        words = str(err.value)
        assert "refused this host's protocol version 3" in words and "install the firmware" in words
        assert link.stats.commands == 1  # HELLO, nothing after it


def test_a_host_refuses_a_dealer_that_answers_in_another_version(monkeypatch: pytest.MonkeyPatch) -> None:
    C: Any = importlib.import_module("trickref.firmware.commands")
    identify = C.Dealer.identify_body
    monkeypatch.setattr(C.Dealer, "identify_body", lambda self, *a: bytes((4,)) + identify(self, *a)[1:])
    with DealerSimulator(seats=4) as sim:
        link = DealerLink(sim.stable_path, link_timeout=3.0, keepalive=False)
        with pytest.raises(DealerVersionError) as err:
            link.open()
        words = str(err.value)
        assert "speaks wire protocol version 4, this host 3: nothing is sent to it" in words
        assert link.stats.commands == 1


def test_a_dealer_refuses_a_host_of_another_version() -> None:
    with DealerSimulator(seats=4) as sim:
        link = DealerLink(sim.stable_path, link_timeout=3.0, keepalive=False)
        link.open()
        try:
            reply = link.request(m.HELLO, {"host_version": 2, "deadman_ms": 0})
            assert reply.type == m.NAK and reply.fields["reason"] == m.NAK_BAD_VERSION
        finally:
            link.close()


def test_the_host_says_what_a_refusal_by_the_dealer_means(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(m, "PROTOCOL_VERSION", 4)  # a host newer than the dealer
    with DealerSimulator(seats=4) as sim:
        link = DealerLink(sim.stable_path, link_timeout=3.0, keepalive=False)
        with pytest.raises(DealerVersionError, match="refused this host's protocol version 4.*install the firmware"):
            link.open()


# ---------------------------------------------------------------- IDENTIFY's second flags byte
# (hardware/PROTOCOL.md section 4): whether the dealer reports STATUS flags bit6, "a FEED waits for
# a person". A firmware from before bit6 never sets it; the driver then gives no stall verdict
# while a FEED is outstanding (tests/device/test_person_thinks.py)


def _older_firmware(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dealer on firmware from before flags2 and bit6: it ignores HELLO's 4th byte (as any
    byte after the 3rd), sends IDENTIFY without flags2, and never says a FEED waits for a person."""
    C: Any = importlib.import_module("trickref.firmware.commands")
    identify = C.Dealer.identify_body
    monkeypatch.setattr(C.Dealer, "identify_body", lambda self, *a: identify(self))
    monkeypatch.setattr(C.Dealer, "awaits_person", lambda self: False)


def test_the_host_knows_the_dealer_reports_a_feed_waiting_for_a_person() -> None:
    with DealerSimulator(seats=4) as sim:
        link = DealerLink(sim.stable_path, link_timeout=3.0, keepalive=False)
        ident = link.open()
        try:
            assert ident.flags2 & m.IDENT2_AWAITS_PERSON and ident.reports_awaits_person
            assert ident.flags == 0xF3  # the first flags byte as before
            # an older host's HELLO (no host_flags) gets the IDENTIFY it knows, nothing after the trays
            reply = link.request(m.HELLO, {"host_version": 3, "deadman_ms": 0})
            assert reply.type == m.IDENTIFY and "flags2" not in reply.fields
            assert reply.fields["trays"] == [0x80, 0x81, 0x82, 0x84, 0x85]
        finally:
            link.close()


def test_the_host_knows_an_older_dealer_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    _older_firmware(monkeypatch)
    with DealerSimulator(seats=4) as sim:
        link = DealerLink(sim.stable_path, link_timeout=3.0, keepalive=False)
        ident = link.open()
        try:
            assert ident.flags2 == 0 and not ident.reports_awaits_person
            assert link.stats.handshakes == 1  # the HELLO with host_flags was answered, not refused
        finally:
            link.close()
