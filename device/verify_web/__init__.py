"""The verify page: one static HTML file (``verify.html``, package data) that checks a hand's
check code (the QR code the kiosk shows after a hand) and whole game records in a browser, with
no program installed: the table serves it (``server.VerifyServer``), so does the club hub's
standings server (device/club/web.py, ``/verify``), and a copy saved on a phone works offline.

``page()`` is the file's bytes with the games of the catalog put in (their ids, titles, decks and
check-code letters: a saved copy keeps them); ``address(base, code)`` the address a QR code holds.
"""

from __future__ import annotations

import json
from importlib import resources

from trickref.engine import catalog

PAGE = "verify.html"
PATHS = ("/verify", "/verify.html")


def page() -> bytes:
    games = [{"id": g.id, "title": g.title, "decks": g.decks, "letter": g.check_letter} for g in catalog.games()]
    text = (resources.files(__name__) / PAGE).read_text(encoding="utf-8")
    return text.replace("/*GAMES*/[]", json.dumps(games).replace("</", "<\\/"), 1).encode("utf-8")


def address(base: str | None, code: str) -> str:
    """What the QR code holds: ``base#code`` (the code after ``#`` never leaves the phone), or
    the bare code when there is no page address to give (a saved copy of the page reads it)."""
    return f"{base}#{code}" if base else code
