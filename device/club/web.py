"""The hub's web pages: the public standings page and the director's console, served from the
hub's own process (``httpd.Server``: request timeouts, a connection cap, HEAD and OPTIONS, CSP
and frame headers).

The page pulls the standings from the hub instead of reading them from the broker, so no MQTT
message grows with the night, phones and the wall screen never see a broker port or a
password, and the page can say when the broker or the hub itself is down: every event carries
the hub's view of the broker, a ``ping`` event comes every few seconds, and a page that hears
nothing says so.

Public routes (GET/HEAD): ``/`` the page, ``/app.js``, ``/style.css``, ``/standings.json``
(the public standings: Bridgemate's rule, ``standings.py``), ``/boards.json`` (the shown boards'
results, fetched by the page when their ``boards_version`` changes), ``/events`` (the event
stream of standings).
``/games.json``: the games the hub knows (the catalog's ids, titles, who wins, teams: the page
names a game and orders its totals by it).
The director's routes are under ``/console`` behind HTTP Basic authentication (user
``director``, the night's director password): ``console.py``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re
import threading
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from trickref.engine import catalog

from .. import verify_web
from . import httpd
from . import topics as T
from .httpd import Request, Response, text

log = logging.getLogger("trickref.club.web")

ASSETS = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
CONSOLE_ASSETS = {"/console": ("console.html", "text/html; charset=utf-8"),
                  "/console/": ("console.html", "text/html; charset=utf-8"),
                  "/console/console.js": ("console.js", "text/javascript; charset=utf-8"),
                  "/console/console.css": ("console.css", "text/css; charset=utf-8"),
                  "/console/print.css": ("print.css", "text/css; charset=utf-8")}
PING_EVERY = 5.0


def games_json() -> bytes:
    """The catalog as the page reads it: ``{id: {"title", "lower_total_wins", "teams"}}``."""
    return json.dumps({g.id: {"title": g.title, "lower_total_wins": g.lower_total_wins, "teams": g.teams}
                       for g in catalog.games()}).encode("utf-8")


def asset(name: str) -> bytes:
    return (resources.files("trickref.device.club") / "web" / name).read_bytes()


def inline_csp(page: bytes) -> str:
    """The strict policy with the page's own inline scripts and styles allowed by their
    SHA-256 (the verify page is one self-contained file); nothing else inline runs."""
    html = page.decode("utf-8")

    def hashes(tag: str) -> str:
        found = re.findall(rf"<{tag}(?![^>]*application/json)[^>]*>(.*?)</{tag}>", html, re.S)
        digests = (base64.b64encode(hashlib.sha256(b.encode("utf-8")).digest()).decode() for b in found)
        return " ".join(f"'sha256-{d}'" for d in digests) or "'none'"

    return (f"default-src 'none'; script-src {hashes('script')}; style-src {hashes('style')}; "
            "img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
            "form-action 'none'; object-src 'none'")


class Site:
    """The routes, over a running ``hub.Hub``."""

    def __init__(self, hub: Any, host: str = "127.0.0.1", port: int = 8080, **server_kw: Any) -> None:
        self.hub = hub
        self.password = hub.night.passwords[T.DIRECTOR_USER]
        self._assets: dict[str, bytes] = {}
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self._last_public: tuple[int, bool] | None = None
        self._boards: tuple[Any, bytes] = (None, b"")  # /boards.json encoded once per version
        self._verify: tuple[bytes, str] | None = None
        from .console import Console

        self.console = Console(hub)
        self.server = httpd.Server(self.handle, host, port, ping=self.ping, ping_every=PING_EVERY, **server_kw)
        hub.add_listener(self._changed)

    def start(self) -> Site:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def server_address(self) -> Any:
        return self.server.server_address

    # ------------------------------------------------------------------ documents
    def status(self) -> dict[str, Any]:
        hub = self.hub
        return {"broker": hub.connected.is_set(), "at": time.time(), "since": hub.broker_since}

    def public_doc(self) -> bytes:
        doc = dict(self.hub.public)
        doc["status"] = self.status()
        return json.dumps(doc, separators=(",", ":")).encode()

    def boards_doc(self) -> bytes:
        """The shown boards (hundreds of KB at 200 tables), encoded once for every phone that
        fetches them after a change, not once per phone."""
        boards = self.hub.public_boards
        with self._lock:
            if self._boards[0] is boards:
                return self._boards[1]
        data = json.dumps(boards, separators=(",", ":")).encode()
        with self._lock:
            self._boards = (boards, data)
        return data

    def ping(self) -> bytes:
        return httpd.event(json.dumps(self.status(), separators=(",", ":")).encode(), "ping")

    def _changed(self) -> None:
        """The hub has new standings, or its broker connection changed: tell every page."""
        key = (int(self.hub.public.get("seq", 0)), self.hub.connected.is_set())
        with self._lock:
            if key == self._last_public:
                return
            self._last_public = key
        self.server.broadcast("public", httpd.event(self.public_doc()))
        self.server.broadcast("console", httpd.event(b"{}", "changed"))

    # ------------------------------------------------------------------ routes
    def _asset(self, name: str) -> bytes:
        data = self._assets.get(name)
        if data is None:
            data = self._assets[name] = asset(name)
        return data

    def handle(self, req: Request) -> Response:
        path = req.path
        if path == "/console" or path.startswith("/console/"):
            if not self.authorised(req):
                return text(401, "the director's console: sign in as director with the night's director password",
                            **{"WWW-Authenticate": 'Basic realm="trickref club director", charset="UTF-8"'})
            if path in CONSOLE_ASSETS and req.method in ("GET", "HEAD"):
                name, ctype = CONSOLE_ASSETS[path]
                return Response(200, self._asset(name), ctype)
            if path == "/console/events" and req.method == "GET":
                return Response(200, httpd.event(b"{}", "changed"), stream="console")
            return self.console.handle(req)
        if req.method not in ("GET", "HEAD"):
            return text(405, "the standings page is read-only", Allow="GET, HEAD, OPTIONS")
        if path in ASSETS:
            name, ctype = ASSETS[path]
            return Response(200, self._asset(name), ctype)
        if path in verify_web.PATHS:  # the fair-dealing check page the tables' QR codes can open
            if self._verify is None:
                page = verify_web.page()
                self._verify = (page, inline_csp(page))
            return Response(200, self._verify[0], "text/html; charset=utf-8",
                            headers={"Content-Security-Policy": self._verify[1]})
        if path == "/standings.json":
            return Response(200, self.public_doc(), "application/json")
        if path == "/games.json":  # the catalog, for the page to name the games and order their totals
            return Response(200, games_json(), "application/json")
        if path == "/boards.json":  # the shown boards' results (Bridgemate's rule), fetched when they change
            return Response(200, self.boards_doc(), "application/json")
        if path == "/events":
            return Response(200, b"retry: 2000\n\n" + httpd.event(self.public_doc()), stream="public")
        return text(404, "not found")

    def authorised(self, req: Request) -> bool:
        """HTTP Basic as ``director`` with the night's director password; an address that
        failed ten times in a minute waits."""
        now = time.monotonic()
        with self._lock:
            fails = [t for t in self._failures.get(req.client, []) if now - t < 60]
            self._failures[req.client] = fails
            if len(fails) >= 10:
                return False
        auth = req.headers.get("authorization", "")
        ok = False
        if auth.lower().startswith("basic "):
            try:
                user, _, pw = base64.b64decode(auth[6:].strip(), validate=True).decode("utf-8").partition(":")
                ok = hmac.compare_digest(user.encode(), T.DIRECTOR_USER.encode()) & hmac.compare_digest(
                    pw.encode(), self.password.encode())
            except (ValueError, UnicodeDecodeError):
                ok = False
        if not ok and auth:
            with self._lock:
                self._failures.setdefault(req.client, []).append(now)
        return ok


def serve(hub: Any, host: str = "127.0.0.1", port: int = 8080, **kw: Any) -> Site:
    return Site(hub, host, port, **kw).start()


Listener = Callable[[], None]
