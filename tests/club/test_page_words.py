"""The standings page speaks the players' languages: every English text the page writes (its
``say("...")`` calls, the ``data-i18n`` headings, the method names and the titles of the games the
hub serves in ``games.json``) has a French, Haitian
Creole and Turkish form in the page's word list, with the same {fields}; and a real browser
asked for ``?lang=tr`` shows the Turkish headings (where Debian's chromium and Playwright are)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import threading

import pytest

from trickref.device.club.web import asset, games_json
from trickref.engine import catalog

CHROMIUM = "/usr/bin/chromium"


def _words() -> dict[str, dict[str, str]]:
    html = asset("index.html").decode("utf-8")
    m = re.search(r'<script type="application/json" id="words">(.*?)</script>', html, re.S)
    assert m, "the word list is missing from index.html"
    return json.loads(m.group(1))


def _english() -> set[str]:
    js = asset("app.js").decode("utf-8")
    html = asset("index.html").decode("utf-8")
    keys = set(re.findall(r'\bsay\("((?:[^"\\]|\\.)*)"', js))
    keys |= set(re.findall(r'data-i18n="([^"]*)"', html))
    m = re.search(r"METHODS = \{(.*?)\};", js, re.S)
    assert m, "METHODS"
    keys |= set(re.findall(r':\s*"([^"]*)"', m.group(1)))
    return keys | {g.title for g in catalog.games()[:5]}  # the built-in games (games.json)


def test_every_text_of_the_page_is_in_every_language() -> None:
    words = _words()
    keys = _english()
    assert len(keys) > 25  # the texts were found
    assert set(words) == {"fr", "ht", "tr"}
    for lang, table in words.items():
        missing = sorted(keys - set(table))
        assert not missing, f"{lang}: {missing}"
        for k in keys:
            assert set(re.findall(r"\{\w+\}", k)) == set(re.findall(r"\{\w+\}", table[k])), (lang, k, table[k])
        unused = sorted(set(table) - keys)
        assert not unused, f"{lang}: words the page never asks for: {unused}"


# the one page text whose kiosk msgid means something else: the kiosk's "waiting" is a game state
# (a move is awaited: tr "bekleniyor"), the page's a table that waits for its round (tr "bekliyor")
OTHER_SENSE = {"waiting"}


def test_the_page_says_what_the_kiosk_says() -> None:
    """Translated like the kiosk: every text the page shares with the kiosk (the games' names,
    "Club night", ...) reads as the kiosk's own catalog (ui/locale) has it, so a player sees the
    same words at the table and on the wall."""
    from trickref.ui.i18n import catalog

    shared = 0
    for lang, table in _words().items():
        kiosk = catalog(lang)
        for en, said in table.items():
            theirs = kiosk.gettext(en)
            if theirs == en or en in OTHER_SENSE:
                continue
            shared += 1
            assert said == theirs, f"{lang}: the page says {said!r} for {en!r}, the kiosk {theirs!r}"
    assert shared >= 15  # the games' names in three languages, at least


def test_a_browser_asked_for_turkish_shows_turkish(tmp_path) -> None:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright's Python package is not installed (pip install -e .[test])")
    for name in ("index.html", "app.js", "style.css"):
        (tmp_path / name).write_bytes(asset(name))
    (tmp_path / "games.json").write_bytes(games_json())
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html?lang=tr")
            page.wait_for_function("Object.keys(GAMES).length > 0")  # the hub's catalog came
            assert page.inner_text("#h-standings") == "Sıralama"
            assert page.inner_text("#standings thead").split("\t")[1].strip() == "Oyuncu"
            assert page.evaluate("document.documentElement.lang") == "tr"
            # a night's standings drawn in Turkish (the page's own render, given a small document)
            doc = {"night": "n1", "game": "hearts", "method": "average", "rounds": 2, "boards": 3, "hands_received": 4,
                   "tables": ["t1", "t2"], "progress": {"t1": {"round": 0, "hands": 2, "over": False},
                                                        "t2": {"round": 0, "hands": 3, "over": True}},
                   "players": [{"name": "Çağla", "table": "t1", "seat": 0, "score": 1.5, "boards": 2}],
                   "board_results": [{"round": 0, "board": 0, "tables": {"t1": {"points": [3, 4], "scores": [1, -1]}}}],
                   "seq": 1}
            page.evaluate("doc => { render(doc); renderBoards(doc.board_results); }", doc)
            assert page.inner_text("#title") == "Kulüp gecesi n1"
            assert "Kupa" in page.inner_text("#subtitle") and "4 el geldi" in page.inner_text("#subtitle")
            assert page.inner_text("#tables li[data-table=t1]").split("\n")[-1] == "1. tur · 2/3. el"
            assert page.inner_text("#tables li[data-table=t2]").split("\n")[-1] == "1. tur · bitti"
            assert "t1, 1. yer" in page.inner_text("#standings tbody")
            assert "1. tur, 1. el" in page.inner_text("#boards")
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html?lang=en")
            assert page.inner_text("#h-standings") == "Standings"
            browser.close()
    finally:
        server.shutdown()
