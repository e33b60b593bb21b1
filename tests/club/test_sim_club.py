"""``trickref sim --club``: the whole simulated table (dealer simulator behind a pty, mock
panels, bots, the table host) joins a served night over TLS and plays the round's boards; the
night made with ``trickref club new --tls`` and served with its TLS listener (subprocesses, real
Mosquitto, real openssl)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from club_rig import needs_mosquitto, wait_for
from test_tls import needs_openssl

from trickref.device.club.broker import free_port, port_open

CLUB = [sys.executable, "-m", "trickref.device.club.cli", "club"]
SIM = [sys.executable, "-c", "import sys; from trickref.ui.cli import main; sys.exit(main(sys.argv[1:]))", "sim"]
pytestmark = [needs_mosquitto, needs_openssl]


def run(cmd: list[str], *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.timeout(300)
def test_sim_with_club_settings_plays_the_hubs_boards_over_tls(tmp_path: Path) -> None:
    d = str(tmp_path / "night")
    r = run(CLUB, "new", d, "--name", "demo", "--tables", "2", "--rounds", "1", "--boards", "2", "--tls", "--rehearsal")
    assert r.returncode == 0, r.stderr
    assert "TLS: the club's CA" in r.stdout
    port, tls_port, web = free_port(), free_port(), free_port()
    serve = subprocess.Popen([*CLUB, "serve", d, "--port", str(port), "--tls-port", str(tls_port),
                              "--web-port", str(web)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert wait_for(lambda: port_open("127.0.0.1", web), 30)
        r = run(CLUB, "table", d, "t1")
        assert r.returncode == 0, r.stderr
        assert f"port = {tls_port}" in r.stdout and 'ca = "' in r.stdout
        settings = tmp_path / "t1" / "club.toml"
        settings.parent.mkdir()
        settings.write_text(r.stdout)
        # the round is not started yet: the table waits for it (then the director starts it)
        sim = subprocess.Popen([*SIM, "--game", "hearts", "--players", "4", "--seed", "3", "--club", str(settings),
                                "--club-wait", "60", "--records", str(tmp_path / "games")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        r2 = run(CLUB, "round", d, "start", "1")
        assert r2.returncode == 0, r2.stderr
        out, err = sim.communicate(timeout=240)
        assert sim.returncode == 0, err + out
        lines = out.splitlines()
        assert lines[-1] == "club night demo, table t1: round 1, every result acknowledged by the hub", out
        assert len([ln for ln in lines if ln.startswith("hand ")]) == 2  # the round's two boards
        # the other table plays the light way (trickref club sim), over TLS as well
        r3 = run(CLUB, "sim", d, "--tables", "t2")
        assert r3.returncode == 0, r3.stderr
        assert r3.stdout.strip() == "t2: round 1, 2 hands"

        def standings() -> dict:
            with urllib.request.urlopen(f"http://127.0.0.1:{web}/standings.json", timeout=5) as f:
                return json.loads(f.read())
        assert wait_for(lambda: standings().get("hands_received") == 4, 20)
        doc = standings()
        assert doc["progress"]["t1"] == {"round": 0, "hands": 2, "over": True}
        # the record the simulated table saved has the hub's boards: same decks at both tables
        rec = json.loads(next((tmp_path / "games").rglob("*.json")).read_text())
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/boards.json", timeout=5) as f:
            boards = json.loads(f.read())["board_results"]
        assert [b["tables"].keys() == {"t1", "t2"} for b in boards] == [True, True]
        assert len(rec["hands"]) == 2
        # bad settings are said, with the file and the setting
        bad = tmp_path / "bad.toml"
        bad.write_text(r.stdout.replace(f"port = {tls_port}", "port = 0"))
        r4 = run(SIM, "--game", "hearts", "--players", "4", "--club", str(bad))
        assert r4.returncode == 2 and "club.port must be a port number from 1 to 65535, not 0" in r4.stderr
        # the plain port is not open to the network with TLS on: only 127.0.0.1
        assert os.path.exists(Path(d) / "serve.json")
    finally:
        serve.send_signal(signal.SIGTERM)
        out, _ = serve.communicate(timeout=30)
    assert serve.returncode == 0, out
    assert f"TLS: tables connect to 127.0.0.1:{tls_port}" in out
