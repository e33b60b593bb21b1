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
    monkeypatch.setattr(C.Dealer, "identify_body", lambda self: bytes((4,)) + identify(self)[1:])
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
