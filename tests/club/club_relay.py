"""A loopback TCP relay that can cut a table's network and bring it back (a Wi-Fi drop)."""

from __future__ import annotations

import select
import socket
import threading


def _shut(socks: list[socket.socket] | tuple[socket.socket, ...], close: bool = False) -> None:
    """Shut both directions of each socket (and close it), ignoring ones already gone."""
    for s in socks:
        try:
            s.shutdown(socket.SHUT_RDWR)
            if close:
                s.close()
        except OSError:
            pass


class _Listener:
    """A loopback listening socket in front of ``upstream_port`` and the sockets it opened."""

    def __init__(self, upstream_port: int, host: str) -> None:
        self.upstream = (host, upstream_port)
        self.srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.srv.bind((host, 0))
        self.srv.listen(16)
        self.port: int = self.srv.getsockname()[1]
        self.closed = False
        self.socks: list[socket.socket] = []
        self.lock = threading.Lock()

    def _drop_all(self) -> None:
        with self.lock:
            _shut(self.socks, close=True)
            self.socks.clear()

    def close(self) -> None:
        self.closed = True
        self._drop_all()
        self.srv.close()


class Relay(_Listener):
    def __init__(self, upstream_port: int, host: str = "127.0.0.1") -> None:
        super().__init__(upstream_port, host)
        self.down = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                c, _ = self.srv.accept()
            except OSError:
                return
            if self.down:
                c.close()
                continue
            try:
                u = socket.create_connection(self.upstream, timeout=2)
            except OSError:
                c.close()
                continue
            with self.lock:
                self.socks += [c, u]
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        _shut((a, b))

    def cut(self) -> None:
        self.down = True
        self._drop_all()

    def restore(self) -> None:
        self.down = False


def _packets(buf: bytearray) -> list[bytes]:
    """Whole MQTT control packets taken off the front of ``buf`` (a partial one stays)."""
    out = []
    while len(buf) >= 2:
        n, mult, i = 0, 1, 1
        while True:
            if i >= len(buf):
                return out
            b = buf[i]
            n += (b & 0x7F) * mult
            mult *= 128
            i += 1
            if not b & 0x80:
                break
        if len(buf) < i + n:
            return out
        out.append(bytes(buf[:i + n]))
        del buf[:i + n]
    return out


def _remaining_length(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n % 128, n // 128
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def qos0_copy(packet: bytes) -> bytes:
    """The same PUBLISH (topic and payload) at QoS 0: no packet id, so the broker sends no
    PUBACK for it and the table's client never hears of the copy."""
    i = 1
    while packet[i] & 0x80:
        i += 1
    body = packet[i + 1:]
    qos = (packet[0] >> 1) & 3
    tlen = int.from_bytes(body[:2], "big")
    rest = body[:2 + tlen] + body[2 + tlen + (2 if qos else 0):]
    return bytes([0x30 | (packet[0] & 0x01)]) + _remaining_length(len(rest)) + rest


class MangleRelay(_Listener):
    """A loopback relay that speaks enough MQTT to mangle a table's publishes on their way to
    the broker: they are held ``window`` seconds and sent on shuffled (reordered), each copied
    with probability ``dup`` into the same batch, and with probability ``late`` copied again
    ``late_s`` seconds later (a stale duplicate). The copies go at QoS 0 so the broker does not
    acknowledge them to the client (its PUBACK would name a packet id the client may have
    reused). Other packets (CONNECT, SUBSCRIBE, PINGREQ, PUBACK) go at once, after the batch
    held so far. The broker's side comes back unchanged. ``replay_all()`` sends every publish
    seen so far once more, newest first."""

    def __init__(self, upstream_port: int, seed: int = 0, window: float = 0.3, dup: float = 0.5,
                 late: float = 0.3, late_s: tuple[float, float] = (2.0, 6.0), host: str = "127.0.0.1") -> None:
        import random

        super().__init__(upstream_port, host)
        self.rng = random.Random(seed)
        self.window, self.dup, self.late, self.late_s = window, dup, late, late_s
        self.seen: list[bytes] = []
        self.counts = {"publishes": 0, "copies": 0, "late_copies": 0, "batches_reordered": 0, "replayed": 0}
        self.up: socket.socket | None = None
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                c, _ = self.srv.accept()
            except OSError:
                return
            try:
                u = socket.create_connection(self.upstream, timeout=2)
                u.settimeout(None)
            except OSError:
                c.close()
                continue
            with self.lock:
                self.up = u
                self.socks += [c, u]
            threading.Thread(target=self._from_client, args=(c, u), daemon=True).start()
            threading.Thread(target=Relay._pump, args=(u, c), daemon=True).start()

    def _send(self, u: socket.socket, data: bytes) -> None:
        with self.lock:
            try:
                u.sendall(data)
            except OSError:
                pass

    def _flush(self, u: socket.socket, held: list[bytes]) -> None:
        if not held:
            return
        batch = list(held)
        for p in held:
            if self.rng.random() < self.dup:
                batch.append(qos0_copy(p))
                self.counts["copies"] += 1
            if self.rng.random() < self.late:
                t = threading.Timer(self.rng.uniform(*self.late_s), self._send, args=(u, qos0_copy(p)))
                t.daemon = True
                t.start()
                self.counts["late_copies"] += 1
        order = list(range(len(batch)))
        self.rng.shuffle(order)
        if order[:len(held)] != list(range(len(held))):
            self.counts["batches_reordered"] += 1
        self._send(u, b"".join(batch[i] for i in order))
        held.clear()

    def _from_client(self, c: socket.socket, u: socket.socket) -> None:
        import time

        buf = bytearray()
        held: list[bytes] = []
        since = 0.0
        try:
            while True:
                ready, _, _ = select.select([c], [], [], 0.05)
                if ready:
                    data = c.recv(65536)
                    if not data:
                        break
                    buf += data
                for p in _packets(buf):
                    if p[0] >> 4 == 3:  # PUBLISH
                        if not held:
                            since = time.monotonic()
                        held.append(p)
                        self.seen.append(p)
                        self.counts["publishes"] += 1
                    else:
                        self._flush(u, held)
                        self._send(u, p)
                if held and time.monotonic() - since >= self.window:
                    self._flush(u, held)
        except (OSError, ValueError):  # the connection closed (by the other direction: fd -1)
            pass
        self._flush(u, held)
        _shut((c, u))

    def replay_all(self) -> int:
        """Every publish seen so far once more (QoS 0), newest first; how many."""
        u = self.up
        if u is None:
            return 0
        copies = [qos0_copy(p) for p in reversed(self.seen)]
        self._send(u, b"".join(copies))
        self.counts["replayed"] += len(copies)
        return len(copies)
