"""A small HTTP/1.1 server that holds up on a club's Wi-Fi (standard library only).

One thread reads requests: every connection is non-blocking in one selector, and a connection
costs a socket, not a thread, until its request has fully arrived. A request must arrive whole
within ``header_timeout`` seconds (else 408 and closed) and within ``max_request`` bytes (else
413/431). At most ``max_conns`` connections are open: past that, the oldest one still sending
its request is closed to make room (a thousand half-open connections cost a thousand sockets
for a few seconds, and never a thread or a genuine visitor). Complete requests go to a few
worker threads (``workers``), which answer with ``Connection: close`` and a write timeout.

Server-Sent Event streams are written by the selector thread too, non-blocking: ``broadcast``
queues one event for every stream of a channel, and a stream that cannot keep up (over
``stream_backlog`` bytes unsent) is closed; the browser's EventSource reconnects by itself.

Every answer carries the same security headers (a strict Content-Security-Policy, no framing,
no sniffing, no referrer, no caching); HEAD is answered as GET without the body, OPTIONS with
the allowed methods.
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

log = logging.getLogger("trickref.club.httpd")

SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
                                "object-src 'none'"),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes
    client: str

    def arg(self, name: str, default: str = "") -> str:
        v = self.query.get(name)
        return v[0] if v else default


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    ctype: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    stream: str | None = None  # an event stream on this channel: ``body`` is its first event


def text(status: int, words: str, **headers: str) -> Response:
    return Response(status, (words.rstrip("\n") + "\n").encode("utf-8"), headers=dict(headers))


Handler = Callable[[Request], Response]


@dataclass
class _Conn:
    sock: socket.socket
    addr: str
    opened: float
    buf: bytearray = field(default_factory=bytearray)
    state: str = "reading"  # reading, working, stream
    channel: str = ""
    out: bytearray = field(default_factory=bytearray)


class Server:
    def __init__(self, handler: Handler, host: str = "127.0.0.1", port: int = 8080, *,
                 max_conns: int = 256, header_timeout: float = 5.0, max_request: int = 64 * 1024,
                 workers: int = 4, write_timeout: float = 10.0, max_streams: int = 200,
                 stream_backlog: int = 4 * 1024 * 1024, methods: tuple[str, ...] = ("GET", "HEAD", "OPTIONS", "POST"),
                 ping: Callable[[], bytes] | None = None, ping_every: float = 5.0) -> None:
        self.handler = handler
        self.max_conns, self.header_timeout, self.max_request = max_conns, header_timeout, max_request
        self.write_timeout, self.max_streams, self.stream_backlog = write_timeout, max_streams, stream_backlog
        self.methods = methods
        self.ping, self.ping_every = ping, ping_every
        self.sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(512)
        self.sock.setblocking(False)
        self.server_address = self.sock.getsockname()
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.sock, selectors.EVENT_READ, None)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self.sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        self.conns: dict[int, _Conn] = {}  # fd -> connection (reading or streaming)
        self.working = 0
        self._lock = threading.Lock()
        self._todo: list[Callable[[], None]] = []  # run on the selector thread
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="club-web")
        self.stopping = False
        self.counts = {"accepted": 0, "evicted": 0, "timed_out": 0, "refused": 0, "requests": 0}
        self.latest: dict[str, bytes] = {}  # channel -> its last event (a stream that opens meanwhile gets it)
        self._thread = threading.Thread(target=self._loop, name="club-web-io", daemon=True)

    # ------------------------------------------------------------------ life
    def start(self) -> Server:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping = True
        self._wake()
        self._thread.join(5)
        self.pool.shutdown(wait=False, cancel_futures=True)
        for c in list(self.conns.values()):
            _close(c.sock)
        self.conns.clear()
        self.sel.close()
        self.sock.close()
        self._wake_r.close()
        self._wake_w.close()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def open_connections(self) -> int:
        with self._lock:
            return len(self.conns) + self.working

    def streams(self, channel: str | None = None) -> int:
        with self._lock:
            return sum(1 for c in self.conns.values() if c.state == "stream" and channel in (None, c.channel))

    def broadcast(self, channel: str, data: bytes) -> None:
        """Queue ``data`` (a whole SSE event) for every stream of ``channel``."""
        def run() -> None:
            self.latest[channel] = data
            for c in list(self.conns.values()):
                if c.state == "stream" and c.channel == channel:
                    self._queue_out(c, data)
        self._call(run)

    # ------------------------------------------------------------------ the selector thread
    def _call(self, fn: Callable[[], None]) -> None:
        with self._lock:
            self._todo.append(fn)
        self._wake()

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"x")
        except (BlockingIOError, OSError):
            pass

    def _loop(self) -> None:
        next_ping = time.monotonic() + self.ping_every
        while not self.stopping:
            now = time.monotonic()
            deadline = min([next_ping] + [c.opened + self.header_timeout for c in self.conns.values()
                                          if c.state == "reading"])
            try:
                events = self.sel.select(max(0.0, min(1.0, deadline - now)))
            except (OSError, ValueError):
                if self.stopping:
                    return
                raise
            for key, mask in events:
                if key.data is None:
                    self._accept()
                elif key.data == "wake":
                    try:
                        while self._wake_r.recv(4096):
                            pass
                    except (BlockingIOError, OSError):
                        pass
                else:
                    c = self.conns.get(key.fd)
                    if c is None:
                        continue
                    if mask & selectors.EVENT_READ:
                        self._readable(c)
                    if mask & selectors.EVENT_WRITE and key.fd in self.conns:
                        self._flush(c)
            with self._lock:
                todo, self._todo = self._todo, []
            for fn in todo:
                try:
                    fn()
                except Exception:
                    log.exception("club web: a queued call failed")
            now = time.monotonic()
            for c in [c for c in self.conns.values() if c.state == "reading" and now - c.opened > self.header_timeout]:
                self.counts["timed_out"] += 1
                self._answer_now(c, 408, "the request did not arrive in time")
            if now >= next_ping:
                next_ping = now + self.ping_every
                if self.ping is not None:
                    try:
                        data = self.ping()
                    except Exception:
                        log.exception("club web: the ping failed")
                        data = b": keepalive\n\n"
                else:
                    data = b": keepalive\n\n"
                for c in list(self.conns.values()):
                    if c.state == "stream":
                        self._queue_out(c, data)

    def _accept(self) -> None:
        for _ in range(64):
            try:
                sock, addr = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            sock.setblocking(False)
            self.counts["accepted"] += 1
            if self.open_connections() >= self.max_conns:
                reading = [c for c in self.conns.values() if c.state == "reading"]
                if reading:  # the oldest one still sending its request makes room
                    oldest = min(reading, key=lambda c: c.opened)
                    self.counts["evicted"] += 1
                    self._drop(oldest)
                else:
                    self.counts["refused"] += 1
                    try:
                        sock.send(_head(503, "text/plain; charset=utf-8", 16, {}) + b"server is full\n\n")
                    except OSError:
                        pass
                    _close(sock)
                    continue
            c = _Conn(sock, str(addr[0]), time.monotonic())
            with self._lock:
                self.conns[sock.fileno()] = c
            self.sel.register(sock, selectors.EVENT_READ, "conn")

    def _readable(self, c: _Conn) -> None:
        try:
            data = c.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(c)
            return
        if c.state != "reading":
            return  # (a stream's client has nothing to say)
        c.buf += data
        end = c.buf.find(b"\r\n\r\n")
        if end < 0:
            if len(c.buf) > 16 * 1024:
                self._answer_now(c, 431, "request headers too large")
            return
        head = bytes(c.buf[:end]).decode("latin-1")
        lines = head.split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            self._answer_now(c, 400, "not an HTTP/1 request")
            return
        headers: dict[str, str] = {}
        for line in lines[1:]:
            k, sep, v = line.partition(":")
            if not sep:
                self._answer_now(c, 400, "a header line without a colon")
                return
            headers[k.strip().lower()] = v.strip()
        try:
            length = int(headers.get("content-length", "0") or "0")
        except ValueError:
            self._answer_now(c, 400, "a Content-Length that is not a number")
            return
        if length < 0 or length > self.max_request:
            self._answer_now(c, 413, f"a request body of at most {self.max_request} bytes")
            return
        if "transfer-encoding" in headers:
            self._answer_now(c, 411, "send a Content-Length")
            return
        if len(c.buf) < end + 4 + length:
            return  # the body is still coming
        body = bytes(c.buf[end + 4:end + 4 + length])
        method, target = parts[0], parts[1]
        url = urlsplit(target)
        req = Request(method, unquote(url.path), parse_qs(url.query), headers, body, c.addr)
        self.sel.unregister(c.sock)
        with self._lock:
            del self.conns[c.sock.fileno()]
            self.working += 1
        c.state = "working"
        c.sock.setblocking(True)
        c.sock.settimeout(self.write_timeout)
        self.counts["requests"] += 1
        try:
            self.pool.submit(self._work, c, req)
        except RuntimeError:  # shutting down
            with self._lock:
                self.working -= 1
            _close(c.sock)

    def _answer_now(self, c: _Conn, status: int, words: str) -> None:
        body = (words + "\n").encode()
        try:
            c.sock.send(_head(status, "text/plain; charset=utf-8", len(body), {}) + body)
        except OSError:
            pass
        self._drop(c)

    def _drop(self, c: _Conn) -> None:
        with self._lock:
            self.conns.pop(c.sock.fileno(), None)
        try:
            self.sel.unregister(c.sock)
        except (KeyError, ValueError, OSError):
            pass
        _close(c.sock)

    def _queue_out(self, c: _Conn, data: bytes) -> None:
        if len(c.out) + len(data) > self.stream_backlog:
            self._drop(c)  # too slow a reader: its browser reconnects and gets the latest
            return
        c.out += data
        self._flush(c)

    def _flush(self, c: _Conn) -> None:
        try:
            while c.out:
                n = c.sock.send(c.out)
                del c.out[:n]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(c)
            return
        try:
            self.sel.modify(c.sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if c.out else 0), "conn")
        except (KeyError, ValueError, OSError):
            pass

    # ------------------------------------------------------------------ workers
    def _work(self, c: _Conn, req: Request) -> None:
        keep = False
        try:
            if req.method not in self.methods:
                resp = text(405, f"{req.method} is not answered here", Allow=", ".join(self.methods))
            elif req.method == "OPTIONS":
                resp = Response(204, headers={"Allow": ", ".join(self.methods)})
            else:
                try:
                    resp = self.handler(req)
                except Exception:
                    log.exception("club web: %s %s", req.method, req.path[:200])
                    resp = text(500, "the hub could not answer this request (see its log)")
            if resp.stream is not None:
                if self.streams() >= self.max_streams:
                    resp = text(503, "too many live pages open; try again in a minute", **{"Retry-After": "30"})
                else:
                    head = _head(200, "text/event-stream", None, resp.headers)
                    c.sock.sendall(head + resp.body)
                    keep = True
                    c.state, c.channel = "stream", str(resp.stream)
                    c.sock.setblocking(False)

                    def register() -> None:
                        if self.stopping:
                            _close(c.sock)
                            return
                        with self._lock:
                            self.conns[c.sock.fileno()] = c
                        self.sel.register(c.sock, selectors.EVENT_READ, "conn")
                        last = self.latest.get(c.channel)
                        if last is not None and last != first:  # it changed meanwhile
                            self._queue_out(c, last)
                    first = resp.body
                    self._call(register)
                    return
            body = b"" if req.method == "HEAD" else resp.body
            c.sock.sendall(_head(resp.status, resp.ctype, len(resp.body), resp.headers) + body)
        except OSError:
            pass
        finally:
            with self._lock:
                self.working -= 1
            if not keep:
                _close(c.sock)


def _head(status: int, ctype: str, length: int | None, extra: dict[str, str]) -> bytes:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Status"
    lines = [f"HTTP/1.1 {status} {phrase}", f"Content-Type: {ctype}", "Connection: close"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    headers = dict(SECURITY_HEADERS)
    headers.update(extra)
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")


def _close(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass


def event(data: bytes, name: str | None = None) -> bytes:
    """One Server-Sent Event (``data`` on one line)."""
    head = f"event: {name}\n".encode() if name else b""
    return head + b"data: " + data.replace(b"\n", b" ") + b"\n\n"


def clients_info(server: Server) -> dict[str, Any]:
    return {"open": server.open_connections(), "streams": server.streams(), **server.counts}
