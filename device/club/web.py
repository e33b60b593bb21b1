"""The standings page: a small read-only web server (standard library) relaying the hub's
retained standings to browsers with Server-Sent Events.

Why this and not MQTT over websockets in the page: the page needs no JavaScript library (no
third-party MQTT client to ship), phones and the wall screen never get broker credentials or a
broker port, and the server answers GET only, so the page is read-only by construction. The
server reads the broker as the ``viewer`` user, whose ACL lets it read the standings and the
public topics and write nothing. ``EventSource`` reconnects by itself after a Wi-Fi drop and
the first event it gets is the current standings.

Routes: ``/`` the page, ``/app.js`` and ``/style.css`` its assets (package data in ``web/``),
``/standings.json`` the current document, ``/events`` the event stream, ``/verify`` the
fair-dealing check page (device/verify_web; a table's ``[verify] address`` can point its QR codes
here). Anything else is 404;
any other method 405.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

import paho.mqtt.client as mqtt

from .. import verify_web
from . import topics as T

log = logging.getLogger("trickref.club.web")

ASSETS = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
KEEPALIVE = 15.0


def asset(name: str) -> bytes:
    return (resources.files("trickref.device.club") / "web" / name).read_bytes()


class StandingsFeed:
    """The latest standings from the broker (as the read-only viewer), with a change signal."""

    def __init__(self, night: str, password: str, host: str = "127.0.0.1", port: int = 1883,
                 user: str = T.VIEWER_USER) -> None:
        self.night = night
        self.doc: bytes = b"{}"
        self.version = 0
        self.changed = threading.Condition()
        self.error: str | None = None
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"trickref-web-{night}-{time.time_ns()}",
                        protocol=mqtt.MQTTv311)
        c.username_pw_set(user, password)
        c.reconnect_delay_set(1, 5)
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        self.client = c
        c.connect_async(host, port, keepalive=15)
        c.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object, rc: Any,
                    props: object = None) -> None:
        if getattr(rc, "value", rc) != 0:
            self.error = f"the broker refused the standings page's viewer: {rc}"
            log.error("%s", self.error)
            return
        client.subscribe(T.standings_topic(self.night), qos=1)

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        if len(msg.payload) > 8 * T.MAX_PAYLOAD:
            log.warning("standings of %d bytes dropped", len(msg.payload))
            return
        try:
            json.loads(msg.payload)
        except (json.JSONDecodeError, UnicodeDecodeError):
            log.warning("unreadable standings dropped")
            return
        with self.changed:
            self.doc = bytes(msg.payload)
            self.version += 1
            self.changed.notify_all()

    def wait(self, seen: int, timeout: float) -> tuple[int, bytes]:
        with self.changed:
            if self.version == seen:
                self.changed.wait(timeout)
            return self.version, self.doc

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class _Handler(BaseHTTPRequestHandler):
    server: StandingsServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        log.debug("%s " + format, self.address_string(), *args)

    def _send(self, code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        path = self.path.split("?", 1)[0]
        if path in ASSETS:
            name, ctype = ASSETS[path]
            self._send(200, asset(name), ctype)
        elif path in verify_web.PATHS:  # the fair-dealing check page the tables' QR codes can open
            self._send(200, verify_web.page(), "text/html; charset=utf-8")
        elif path == "/standings.json":
            self._send(200, self.server.feed.doc, "application/json")
        elif path == "/events":
            self._events()
        else:
            self._send(404, b"not found\n", "text/plain; charset=utf-8")

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"the standings page is read-only\n",
                   "text/plain; charset=utf-8", {"Allow": "GET"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815

    def _events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        feed = self.server.feed
        seen = -1
        try:
            while not self.server.stopping:
                version, doc = feed.wait(seen, KEEPALIVE if seen >= 0 else 0)
                if version != seen:
                    seen = version
                    self.wfile.write(b"data: " + doc.replace(b"\n", b" ") + b"\n\n")
                else:
                    self.wfile.write(b": keepalive\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


class StandingsServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, feed: StandingsFeed, host: str = "127.0.0.1", port: int = 8080) -> None:
        self.feed = feed
        self.stopping = False
        super().__init__((host, port), _Handler)

    def start(self) -> StandingsServer:
        threading.Thread(target=self.serve_forever, name="club-web", daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping = True
        with self.feed.changed:
            self.feed.changed.notify_all()
        self.shutdown()
        self.server_close()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"
