"""TLS: the night's own CA and hub certificate (openssl), Mosquitto's TLS listener, and a table
link that checks the hub's certificate (real Mosquitto, real openssl)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from club_rig import check_against_records, needs_mosquitto, wait_for

from trickref.device.club.hub import Hub, Night, broker_for
from trickref.device.club.link import ClubConfig, ClubLink
from trickref.device.club.sim import play_round
from trickref.device.club.tls import TlsError, TlsFiles, alt_names, find_openssl, make_certs

needs_openssl = pytest.mark.skipif(find_openssl() is None and os.environ.get("CI", "").lower() != "true",
                                   reason="openssl not installed (scripts/system-deps.sh installs it)")
pytestmark = [needs_mosquitto, needs_openssl]


def test_alt_names_and_bad_names() -> None:
    assert alt_names(["hub.club.lan", "192.168.1.20", "localhost"]) == \
        "DNS:localhost,IP:127.0.0.1,DNS:hub.club.lan,IP:192.168.1.20"
    with pytest.raises(TlsError, match="'hub club' is neither an IP address nor a host name"):
        alt_names(["hub club"])


def test_a_table_over_tls_checks_the_hubs_certificate(tmp_path: Path) -> None:
    files = make_certs(tmp_path / "tls", ["hub.club.lan"], night="n1")
    assert files.exist() and TlsFiles.in_folder(tmp_path / "tls") == files
    for key in (files.key, tmp_path / "tls" / "ca.key"):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
    night = Night("n1", "hearts", 4, ["t1", "t2"], rounds=1, boards=2)
    broker = broker_for(night, tmp_path / "broker")
    broker.tls_files = files
    broker.start()
    hub = None
    links: list[ClubLink] = []
    try:
        assert "listener" in (tmp_path / "broker" / "conf.d" / "trickref-tls.conf").read_text()
        hub = Hub(night, tmp_path / "hub", port=broker.port).start()  # the hub on the local plain port
        hub.commit_all()
        hub.start_round(0)
        assert broker.tls_port
        records = {}
        for i, t in enumerate(night.tables):
            lk = ClubLink(ClubConfig("n1", t, night.passwords[t], "127.0.0.1", broker.tls_port,
                                     str(tmp_path / f"{t}.jsonl"), ca=str(files.ca)))
            links.append(lk)
            assert wait_for(lambda lk=lk: lk.connected, 10), lk.status()
            records[(t, 0)] = play_round(lk, 0, "hearts", 4, {}, 2, seed=i).record()
            assert lk.flush(20)

        class Rig:  # what check_against_records reads
            pass

        rig = Rig()
        rig.hub, rig.night = hub, night  # type: ignore[attr-defined]
        check_against_records(rig, records, any_nonzero=False)  # type: ignore[arg-type]

        # a hub whose certificate another CA signed (a machine pretending to be the hub)
        other = make_certs(tmp_path / "other", night="other")
        bad = ClubLink(ClubConfig("n1", "t1", night.passwords["t1"], "127.0.0.1", broker.tls_port,
                                  str(tmp_path / "bad.jsonl"), ca=str(other.ca)))
        links.append(bad)
        assert wait_for(lambda: bad.error_kind == "tls", 15), bad.status()
        assert "is not the club's: its certificate fails the check (self-signed certificate in certificate chain)" \
            in str(bad.error)
        assert not bad.connected
        # a CA file that is not there: said, never a crash
        gone = ClubLink(ClubConfig("n1", "t1", night.passwords["t1"], "127.0.0.1", broker.tls_port,
                                   str(tmp_path / "gone.jsonl"), ca=str(tmp_path / "nope.crt")))
        links.append(gone)
        assert gone.error_kind == "tls" and "cannot read the club's CA certificate" in str(gone.error)
    finally:
        for lk in links:
            lk.close()
        if hub is not None:
            hub.stop()
        broker.stop()
