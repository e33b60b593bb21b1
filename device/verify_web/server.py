"""The table's own copy of the verify page, on the local network: a read-only web server
(standard library) that answers GET for ``/verify`` (and ``/``) with the page and nothing else.

The kiosk starts it when ``[verify] port`` is not 0 and puts its address in the QR code it
shows after a hand: ``http://<the table's address>:<port>/verify#<check code>``. A phone on the
same network opens the page from the table; the check code after ``#`` is never sent (browsers
keep an address's fragment to themselves), so the table learns only that the page was loaded.
Over plain http the browser gives the page no ``crypto.subtle``; the page then uses its own
SHA-256 (tested against the browser's, tests/device/test_verify_page.py).
"""

from __future__ import annotations

import logging
import socket
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from . import PATHS, page

log = logging.getLogger("trickref.verify_web")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        log.debug("%s " + format, self.address_string(), *args)

    def _send(self, code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path in PATHS or path == "/":
            self._send(200, page(), "text/html; charset=utf-8")
        else:
            self._send(404, b"not found: this table serves only its verify page, /verify\n", "text/plain; charset=utf-8")

    do_HEAD = do_GET  # noqa: N815

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"the verify page is read-only\n", "text/plain; charset=utf-8",
                   {"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815


class VerifyServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str = "0.0.0.0", port: int = 8088) -> None:
        super().__init__((host, port), _Handler)

    def start(self) -> VerifyServer:
        threading.Thread(target=self.serve_forever, name="verify-web", daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def page_address(self, host: str | None = None) -> str:
        """The page's address for a phone: on ``host``, else this machine's address on its network."""
        return f"http://{host or lan_address()}:{self.port}/verify"


VIRTUAL = ("lo", "docker", "veth", "br-", "virbr", "tun", "tap")  # interfaces no phone is on


def lan_address() -> str:
    """This machine's IPv4 address on its local network (Wi-Fi or Ethernet), read from its
    interfaces (Linux's SIOCGIFADDR; nothing is sent anywhere). 127.0.0.1 when there is none."""
    try:
        import fcntl
        import struct
    except ImportError:  # not Linux
        return "127.0.0.1"
    found: list[tuple[int, str]] = []
    for _index, name in socket.if_nameindex():
        if name.startswith(VIRTUAL):
            continue
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
        except OSError:  # no IPv4 address on it (down, or not configured)
            continue
        finally:
            s.close()
        addr = socket.inet_ntoa(packed[20:24])
        if not addr.startswith("127.") and not addr.startswith("169.254."):
            found.append((0 if name.startswith(("wlan", "eth", "en", "wl")) else 1, addr))
    return min(found)[1] if found else "127.0.0.1"
