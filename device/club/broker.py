"""Run the real Mosquitto broker for a club night: a generated config with persistence on, a
password file made by ``mosquitto_passwd`` and an ACL (a table publishes only its own topics and
reads only its own deals; the page's viewer only reads; the hub reads and writes the night).

``Broker(folder, users, acl).start()`` writes ``mosquitto.conf``, ``passwd`` and ``acl`` into
``folder`` (all 0600; a club's additions go in ``folder/conf.d/*.conf``), starts ``mosquitto -c`` on 127.0.0.1 and a free port unless told one,
and waits until the port accepts connections. ``stop()`` ends it (SIGTERM, then SIGKILL);
``kill()`` ends it at once, as a crash would, keeping the persistence file for a restart.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import topics as T
from .tls import TlsFiles, listener_conf

MOSQUITTO = "mosquitto"
MOSQUITTO_PASSWD = "mosquitto_passwd"
TLS_CONF = "trickref-tls.conf"  # in conf.d: the TLS listener, written when the night has TLS


PERSISTENCE_FILE = "mosquitto.db"
DB_ERRORS = ("Unable to restore persistent database", "Couldn't open database", "Couldn't restore")


def _read_from(path: Path, start: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(start)
            return f.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        return ""


class BrokerError(RuntimeError):
    """The broker could not be set up or started: the message says what and why."""


def find_mosquitto() -> tuple[str, str] | None:
    """(mosquitto, mosquitto_passwd) paths, or None when Debian's package is not installed."""
    paths = os.environ.get("PATH", "") + os.pathsep + "/usr/sbin" + os.pathsep + "/usr/local/sbin"
    m = shutil.which(MOSQUITTO, path=paths)
    p = shutil.which(MOSQUITTO_PASSWD, path=paths)
    return (m, p) if m and p else None


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def acl_text(night: str, tables: Sequence[str], rounds: int = T.MAX_ROUNDS, boards: int = T.MAX_BOARDS,
             hub: str = T.HUB_USER) -> str:
    """The ACL: what each user may read or write (nothing else is allowed). A table (``%u``: the
    user name, which is also its client id) writes exactly the topics of its own messages, one
    per round and board, so it cannot make the broker keep more than a fixed number of messages
    for it; it reads its own ``to/`` topics and the public ones. (``tables`` is for the
    record: the patterns cover every table.)"""
    root = T.night_root(night)
    lines = [f"# trickref club night {night}: generated, do not edit ({len(tables)} tables)", "",
             f"user {hub}", f"topic readwrite {root}/#", "",
             "# every user below is a table of the night; %u is its user name (and client id)",
             f"pattern read {root}/{T.TO}/%u/#",
             f"pattern read {root}/{T.PUBLIC}/#"]
    for r in range(rounds):
        lines += [f"pattern write {root}/{T.TABLE}/%u/start/{r}", f"pattern write {root}/{T.TABLE}/%u/over/{r}"]
        lines += [f"pattern write {root}/{T.TABLE}/%u/hand/{r}/{b}" for b in range(boards)]
    return "\n".join(lines) + "\n"


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(path, 0o600)


@dataclass
class Broker:
    folder: Path
    users: Mapping[str, str]  # user -> password
    acl: str
    host: str = "127.0.0.1"
    port: int = 0
    max_packet: int = T.MAX_PAYLOAD + 2048
    # a TLS listener too (``device.club.tls``): its port (0: a free one), address and files
    tls_port: int | None = None
    tls_host: str = ""
    tls_files: TlsFiles | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _configured: bool = field(default=False, repr=False)
    # what was wrong with the stored data and what was done about it (a persistence file
    # Mosquitto cannot read is kept aside and the broker starts without it)
    problems: list[str] = field(default_factory=list, repr=False)

    def write_config(self) -> Path:
        found = find_mosquitto()
        if found is None:
            raise BrokerError("Mosquitto is not installed (Debian package 'mosquitto'; "
                              "scripts/system-deps.sh installs it)")
        _, passwd_tool = found
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        (self.folder / "data").mkdir(exist_ok=True)
        (self.folder / "conf.d").mkdir(exist_ok=True)
        if not self.port:
            self.port = free_port(self.host)
        tls_conf = self.folder / "conf.d" / TLS_CONF
        if self.tls_files is not None:
            if not self.tls_port:
                self.tls_port = free_port(self.tls_host or self.host)
            _write_private(tls_conf, listener_conf(self.tls_port, self.tls_host or self.host, self.tls_files,
                                                      2 * len(self.users) + 16))
        else:
            tls_conf.unlink(missing_ok=True)
        pw = self.folder / "passwd"
        _write_private(pw, "".join(f"{u}:{p}\n" for u, p in self.users.items()))
        r = subprocess.run([passwd_tool, "-U", str(pw)], capture_output=True, text=True)
        if r.returncode != 0:
            raise BrokerError(f"mosquitto_passwd could not hash {pw}: {(r.stderr or r.stdout).strip()}")
        os.chmod(pw, 0o600)
        _write_private(self.folder / "acl", self.acl)
        conf = self.folder / "mosquitto.conf"
        _write_private(conf, "\n".join([
            "# trickref club night broker: generated",
            "per_listener_settings false",
            # run as whoever started us (as root Mosquitto would switch to the 'mosquitto' user,
            # who cannot read this private folder)
            f"user {pwd.getpwuid(os.getuid()).pw_name}",
            "allow_anonymous false",
            f"password_file {pw}",
            f"acl_file {self.folder / 'acl'}",
            "persistence true",
            f"persistence_location {self.folder / 'data'}/",
            # saved every 10 s and at a clean stop: a crash loses at most the last seconds,
            # which the tables' outboxes send again and the hub publishes again on reconnect
            "autosave_interval 10",
            # bounds (a table may lie, or flood): a message's size (the broker closes the
            # connection of a client that sends more); what is queued for one client (the hub's
            # queue, while it is away: the tables send again what it did not acknowledge)
            f"max_packet_size {self.max_packet}",
            "max_queued_messages 20000",
            f"max_queued_bytes {64 * 1024 * 1024}",
            "max_inflight_messages 20",
            "max_keepalive 120",
            # and the broker's whole heap: past it Mosquitto drops the message and closes the
            # connection of whoever sent it (an honest 200-table night needs a tenth of this)
            f"memory_limit {256 * 1024 * 1024}",
            "set_tcp_nodelay true",  # small messages go at once (no Nagle delay)
            "persistent_client_expiration 14d",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "connection_messages true",
            f"listener {self.port} {self.host}",
            f"max_connections {2 * len(self.users) + 16}",
            # a client's id is its user name: nobody can push another client off by taking its
            # id (a listener's setting: the TLS listener has it too)
            "use_username_as_clientid true",
            "# a club's own additions (a TLS listener: docs/CLUB.md) go in conf.d/*.conf",
            f"include_dir {self.folder / 'conf.d'}",
            "",
        ]))
        return conf

    def start(self, timeout: float = 10.0) -> Broker:
        """Start Mosquitto: the first time with a freshly written config (this port, these
        users); a restart of the same Broker keeps it, and its persistence."""
        conf = self.folder / "mosquitto.conf"
        if not self._configured:
            conf = self.write_config()
            self._configured = True
        found = find_mosquitto()
        assert found is not None
        log_path = self.folder / "mosquitto.log"
        start_at = log_path.stat().st_size if log_path.exists() else 0
        try:
            return self._start(found[0], conf, timeout)
        except BrokerError:
            db = self.folder / "data" / PERSISTENCE_FILE
            said = _read_from(log_path, start_at)
            if not db.exists() or not any(w in said for w in DB_ERRORS):
                raise
        # Mosquitto will not start over a persistence file it cannot read (a torn write, a disk
        # error, another version's format): keep it aside and start without it. Nothing the night
        # needs is lost: the hub publishes the night's state again when it connects, and the
        # tables send again every result the hub has not receipted.
        aside = db.with_name(f"{PERSISTENCE_FILE}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
        db.rename(aside)
        why = next(line.split("Error: ", 1)[-1] for line in said.splitlines() if any(w in line for w in DB_ERRORS))
        self.problems.append(f"the broker's saved state {db} could not be read ({why.strip()}): kept aside as "
                             f"{aside.name}; the broker started without it (the hub republishes the night, "
                             "the tables send again what was not receipted)")
        return self._start(found[0], conf, timeout)

    def _start(self, mosquitto: str, conf: Path, timeout: float) -> Broker:
        log = open(self.folder / "mosquitto.log", "ab")
        self.proc = subprocess.Popen([mosquitto, "-c", str(conf)], stdout=log, stderr=log,
                                     stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrokerError(f"mosquitto exited with code {self.proc.returncode}: "
                                  f"{self.log_tail()}")
            if port_open(self.host, self.port) and (
                    not self.tls_port or port_open(self.tls_host or self.host, self.tls_port)):
                return self
            time.sleep(0.05)
        self.stop()
        raise BrokerError(f"mosquitto did not listen on {self.host}:{self.port} within {timeout:.0f} s")

    def log_tail(self, lines: int = 5) -> str:
        try:
            text = (self.folder / "mosquitto.log").read_text(errors="replace")
        except OSError:
            return "(no log)"
        return " | ".join(text.strip().splitlines()[-lines:])

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        p = self.proc
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)

    def kill(self) -> None:
        p = self.proc
        if p is not None and p.poll() is None:
            p.kill()
            p.wait(5)

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
