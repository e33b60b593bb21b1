"""trickref club from the command line: new, table, serve, round, sim (subprocesses)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request

from club_rig import needs_mosquitto, wait_for

from trickref.device.club.broker import free_port, port_open

CMD = [sys.executable, "-m", "trickref.device.club.cli", "club"]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, timeout=timeout)


class Served:
    """``club serve`` of a night folder in a process of its own, on free ports, until ``stop``."""

    def __init__(self, d: str) -> None:
        self.port, self.web = free_port(), free_port()
        self.proc = subprocess.Popen([*CMD, "serve", d, "--port", str(self.port), "--web-port", str(self.web)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def stop(self) -> str:
        """SIGTERM, as systemd stops it; what it printed."""
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=20)
        return out


def test_new_and_its_errors(tmp_path) -> None:
    d = str(tmp_path / "night")
    r = run("new", d, "--name", "fri", "--game", "partnership-spades", "--tables", "3", "--boards", "2")
    assert r.returncode == 0, r.stderr
    assert "club night fri: partnership-spades, 3 tables of 4, 2 rounds of 2 boards" in r.stdout
    night = json.loads((tmp_path / "night" / "night.json").read_text())
    assert stat.S_IMODE(os.stat(tmp_path / "night" / "night.json").st_mode) == 0o600
    assert night["tables"] == ["t1", "t2", "t3"] and len(night["passwords"]["t2"]) >= 20
    r = run("table", d, "t2")
    assert r.returncode == 0 and f'password = "{night["passwords"]["t2"]}"' in r.stdout
    for args, words in [
        (("new", d), "already exists: a night is never overwritten"),
        (("new", str(tmp_path / "x"), "--game", "bridge"), "unknown game 'bridge'"),
        (("new", str(tmp_path / "x"), "--players", "5", "--game", "partnership-spades"), "not 5"),
        (("new", str(tmp_path / "x"), "--name", "Bad Name"), "night name 'Bad Name' must be"),
        (("new", str(tmp_path / "x"), "--method", "imps"), "unknown scoring method 'imps'"),
        (("new", str(tmp_path / "x"), "--game", "partnership-spades", "--move", "2"),
         "in partnership Spades a whole team moves"),
        (("new", str(tmp_path / "x"), "--move", "2,east"), "--move must be seat numbers"),
        (("new", str(tmp_path / "x"), "--move", "5"), "moving seats must be different seats from 1 to 4"),
        (("table", d, "t9"), "no table 't9' in night fri"),
        (("round", d, "start", "1"), "is not being served"),
        (("serve", str(tmp_path / "none")), "no club night in"),
    ]:
        r = run(*args)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1


@needs_mosquitto
def test_serve_round_sim_end_to_end(tmp_path) -> None:
    d = str(tmp_path / "night")
    assert run("new", d, "--name", "demo", "--tables", "2", "--rounds", "1", "--boards", "2", "--rehearsal").returncode == 0
    serve = Served(d)
    port, web = serve.port, serve.web
    try:
        assert wait_for(lambda: port_open("127.0.0.1", web), 20)
        taken = run("serve", d, "--port", str(port), "--web-port", str(free_port()))
        assert taken.returncode == 2 and "is taken (a broker already running?" in taken.stderr
        r = run("round", d, "start", "1")
        assert r.returncode == 0, r.stderr
        r = run("sim", d, "--round", "1")
        assert r.returncode == 0, r.stderr
        assert sorted(r.stdout.splitlines()) == ["t1: round 1, 2 hands", "t2: round 1, 2 hands"]

        def standings() -> dict:
            with urllib.request.urlopen(f"http://127.0.0.1:{web}/standings.json", timeout=5) as f:
                return json.loads(f.read())
        assert wait_for(lambda: standings().get("hands_received") == 4, 10)
        doc = standings()
        assert all(p == {"round": 0, "hands": 2, "over": True} for p in doc["progress"].values())
        assert len(doc["players"]) == 8 and all(p["boards"] == 2 for p in doc["players"])
    finally:
        out = serve.stop()
    assert serve.proc.returncode == 0, out
    assert "round 1 started: its decks are out to the tables" in out
    time.sleep(0.2)
    assert not port_open("127.0.0.1", port)  # the broker it started is stopped


def test_a_tables_settings_never_land_in_a_world_readable_file(tmp_path) -> None:
    """Was: 'club table night/ t1 > t1.toml' left the table's password in a 0644 file."""
    d = str(tmp_path / "night")
    assert run("new", d, "--name", "fri", "--tables", "2").returncode == 0
    out = tmp_path / "t1.toml"
    cmd = " ".join([*CMD, "table", d, "t1"])
    r = subprocess.run(["sh", "-c", f"umask 022; {cmd} > {out}"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert "now 0600" in r.stderr and 'password = "' in out.read_text()
    r = run("table", d, "t2", "--out", str(tmp_path / "t2.toml"))
    assert r.returncode == 0 and stat.S_IMODE(os.stat(tmp_path / "t2.toml").st_mode) == 0o600


def test_club_table_gives_an_address_the_tables_can_reach(tmp_path, monkeypatch, capsys) -> None:
    """Was: after 'serve --host 0.0.0.0', 'club table' printed host = "0.0.0.0"."""
    from trickref.device.club import cli

    d = tmp_path / "night"
    assert cli.main(["club", "new", str(d), "--name", "fri", "--tables", "2"]) == 0
    (d / "serve.json").write_text(json.dumps({"host": "0.0.0.0", "port": 1883, "web_port": 8080}))
    monkeypatch.setattr(cli, "lan_addresses", lambda: ["192.168.1.20", "10.0.0.5"])
    capsys.readouterr()
    assert cli.main(["club", "table", str(d), "t1"]) == 0
    out = capsys.readouterr().out
    assert 'host = "192.168.1.20"  # this machine\'s other addresses: 10.0.0.5' in out and "0.0.0.0" not in out
    assert cli.main(["club", "table", str(d), "t1", "--host", "hub.club.lan"]) == 0
    assert 'host = "hub.club.lan"' in capsys.readouterr().out
    monkeypatch.setattr(cli, "lan_addresses", lambda: [])
    assert cli.main(["club", "table", str(d), "t1"]) == 2
    assert "name it with --host" in capsys.readouterr().err
    monkeypatch.undo()
    assert all(not a.startswith("127.") and a != "0.0.0.0" for a in cli.lan_addresses())


def test_the_console_is_asked_where_the_night_is_served(tmp_path, capsys) -> None:
    """'club round' and 'club sim' ask the hub's console. Served on one address (serve --host
    192.168.1.20) the console listens there only; it was asked on 127.0.0.1 whatever the address,
    and said it could not reach the hub. Here the console stands on 127.0.0.2."""
    import http.server
    import threading

    from trickref.device.club import cli

    asked: list[str] = []

    class Console(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            asked.append(self.path)
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps({"ok": True}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.2", 0), Console)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        d = tmp_path / "night"
        assert cli.main(["club", "new", str(d), "--name", "fri", "--tables", "2"]) == 0
        (d / "serve.json").write_text(json.dumps({"host": "127.0.0.2", "port": 1883,
                                                  "web_port": server.server_address[1]}))
        assert cli._console(str(d), "round", {"round": 1, "action": "start"}) == {"ok": True}
        assert asked == ["/console/api/round"]
        (d / "serve.json").write_text(json.dumps({"host": "127.0.0.3", "port": 1883, "web_port": free_port()}))
        try:
            cli._console(str(d), "round", {"round": 1, "action": "start"})
        except cli.CliError as e:
            assert "127.0.0.3:" in str(e), e  # the address it was served on, named
        else:
            raise AssertionError("a console nobody serves answered")
    finally:
        server.shutdown()
        server.server_close()


def test_a_tls_night_certifies_the_names_the_tables_use(tmp_path, monkeypatch) -> None:
    """Was: the README's '--tls' example made a certificate for localhost only. Without
    --tls-name the certificate now names this machine: its host name, name.local and its
    network addresses."""
    import shutil

    from trickref.device.club import cli

    if shutil.which("openssl") is None:
        import pytest
        pytest.skip("openssl is not installed")
    monkeypatch.setattr(cli, "machine_names", lambda: ["clubhub", "clubhub.local", "192.168.1.20"])
    d = tmp_path / "night"
    assert cli.main(["club", "new", str(d), "--name", "fri", "--tables", "2", "--tls"]) == 0
    text = subprocess.run(["openssl", "x509", "-in", str(d / "tls" / "hub.crt"), "-noout", "-text"],
                          capture_output=True, text=True).stdout
    for name in ("DNS:clubhub", "DNS:clubhub.local", "IP Address:192.168.1.20", "DNS:localhost"):
        assert name in text
    monkeypatch.undo()
    real = cli.machine_names()  # this machine's own: never only loopback
    assert real and all(n not in ("localhost", "127.0.0.1") for n in real)


@needs_mosquitto
def test_club_sim_starts_a_rehearsal_round_nobody_started(tmp_path) -> None:
    """Was: the README's rehearsal lines (club new --rehearsal, club serve, club sim --round 1) left
    the bots waiting two minutes in silence for decks nobody had released, then 'no deck from the
    hub'. Now club sim starts the rehearsal's round when nobody has; a round that may not start
    yet is said at once; --wait leaves it to the director."""
    d = str(tmp_path / "night")
    assert run("new", d, "--name", "demo", "--tables", "2", "--rounds", "2", "--boards", "1", "--rehearsal").returncode == 0
    serve = Served(d)
    try:
        assert wait_for(lambda: port_open("127.0.0.1", serve.web), 20)
        r = run("sim", d, "--round", "2")
        assert r.returncode == 2 and "round 2 cannot start: round 1 has not started yet" in r.stderr, r.stderr
        r = run("sim", d, "--round", "1")
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines()[0] == "round 1 started: its decks are out to the tables"
        assert sorted(r.stdout.splitlines()[1:]) == ["t1: round 1, 1 hand", "t2: round 1, 1 hand"]
        r = run("sim", d, "--round", "1")  # started already: played again, nothing started
        assert r.returncode == 0 and "started" not in r.stdout, (r.stdout, r.stderr)
    finally:
        serve.stop()


def test_club_sim_refuses_a_live_night(tmp_path) -> None:
    """Was: the README's rehearsal 'club sim NIGHT --round 1', run while a real table played,
    took that table's client id and its boards. It now plays only a rehearsal night."""
    d = str(tmp_path / "night")
    assert run("new", d, "--name", "fri", "--tables", "2").returncode == 0
    r = run("sim", d, "--round", "1")
    assert r.returncode == 2 and "night fri is a live night: club sim plays only rehearsal nights" in r.stderr


@needs_mosquitto
def test_serve_restarts_cleanly_over_any_stored_data(tmp_path) -> None:
    """'club serve' stopped after a round, then every file it keeps damaged as a power cut, a
    full disk or a hand edit would leave it (torn and garbage journal lines, a number no float
    holds, an older hub's results.jsonl, a torn Mosquitto persistence file, a broken serve.json):
    it starts again, says what it kept aside and why, shows the same standings, and the night
    goes on (round 2 played and counted)."""
    d = tmp_path / "night"
    assert run("new", str(d), "--name", "demo", "--tables", "2", "--rounds", "2", "--boards", "2",
               "--rehearsal").returncode == 0
    port, web = free_port(), free_port()

    def serve() -> subprocess.Popen[str]:
        p = subprocess.Popen([*CMD, "serve", str(d), "--port", str(port), "--web-port", str(web)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not wait_for(lambda: port_open("127.0.0.1", web) or p.poll() is not None, 30) or p.poll() is not None:
            out, _ = p.communicate(timeout=20)
            raise AssertionError(f"club serve did not start: {out}")
        return p

    def stop(p: subprocess.Popen[str]) -> str:
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=30)
        assert p.returncode == 0, out
        return out

    def standings() -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/standings.json", timeout=5) as f:
            doc = json.loads(f.read())
        return {"players": doc["players"], "hands": doc["hands_received"]}

    p = serve()
    try:
        assert run("round", str(d), "start", "1").returncode == 0
        r = run("sim", str(d), "--round", "1")
        assert r.returncode == 0, r.stderr
        assert wait_for(lambda: standings()["hands"] == 4, 20)
        before = standings()
    finally:
        stop(p)
    db = d / "broker" / "data" / "mosquitto.db"
    assert db.stat().st_size > 100  # Mosquitto saved its state at the clean stop
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])  # torn
    journal = d / "hub" / "journal.jsonl"
    with open(journal, "ab") as f:
        f.write(b'{"t": "msg", "topic": "trickref/club/demo/table/t1/hand/1/0", "payload": "{\\"points\\": [' + b"9" * 400
                + b']}", "at": 1}\n\x00\xff garbage\n[' * 3 + b'{"t": "round", "action": "start", "round": 1e999}\n'
                + b'{"t": "msg", "topic": "x"')  # torn: no newline
    (d / "hub" / "results.jsonl").write_text('{"key": "demo/t1/hand/0/0", "body": {"points": [' + "9" * 400 + "]}}\n")
    (d / "serve.json").write_bytes(b"\x00{not json")
    p = serve()
    try:
        assert standings() == before  # the same night, nothing forged or torn counted
        r = run("round", str(d), "end", "1")
        assert r.returncode == 0, r.stderr
        r = run("round", str(d), "start", "2")
        assert r.returncode == 0, r.stderr
        r = run("sim", str(d), "--round", "2")
        assert r.returncode == 0, r.stderr
        assert wait_for(lambda: standings()["hands"] == 8, 20)
    finally:
        out = stop(p)
    said = [line for line in out.splitlines() if line.startswith("stored data: ")]
    assert any("broker's saved state" in w and "kept aside as mosquitto.db.bad-" in w for w in said), out
    assert any("quarantine" in w for w in said), out
    assert list((d / "broker" / "data").glob("mosquitto.db.bad-*"))
    assert "Traceback" not in out
    p = serve()  # and once more: everything bad was set aside the first time
    try:
        assert standings()["hands"] == 8
    finally:
        out = stop(p)
    assert not [line for line in out.splitlines() if line.startswith("stored data: ")], out


@needs_mosquitto
def test_sigterm_while_serve_is_still_starting_stops_it_cleanly(tmp_path) -> None:
    """systemd stops the service (SIGTERM) a moment after it started: the broker already listens,
    the hub and the page are still starting. The night stops as Ctrl+C stops it, exit 0, and no
    Mosquitto is left running (the loaded suite saw serve killed by a SIGTERM that came before its
    handler was installed: exit -15, the broker left behind)."""
    d = str(tmp_path / "night")
    assert run("new", d, "--name", "demo", "--tables", "2", "--rounds", "1", "--boards", "2",
               "--rehearsal").returncode == 0
    port, web = free_port(), free_port()
    p = subprocess.Popen([*CMD, "serve", d, "--port", str(port), "--web-port", str(web)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while not port_open("127.0.0.1", port) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert p.poll() is None, p.communicate()[0]
        p.send_signal(signal.SIGTERM)  # the broker listens; the hub and the page are starting
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, out
    assert "stopping" in out and "Traceback" not in out, out
    assert wait_for(lambda: not port_open("127.0.0.1", port), 10), "Mosquitto was left running"
