"""The web pages get the games from the catalog (issue 19 point 1): the club page reads the
hub's ``/games.json``; the verify page is sent with the catalog's games put in."""

from __future__ import annotations

import json
import re

from trickref.device import verify_web
from trickref.device.club.web import games_json
from trickref.engine import catalog


def test_the_hub_serves_the_catalog() -> None:
    got = json.loads(games_json())
    assert list(got) == list(catalog.game_ids())
    assert got["hearts"] == {"title": "Hearts", "lower_total_wins": True, "teams": False}
    assert got["partnership-spades"]["teams"] and not got["spades-2p"]["lower_total_wins"]


def test_the_verify_page_carries_the_catalog() -> None:
    page = verify_web.page().decode("utf-8")
    m = re.search(r"const CATALOG = (\[.*?\]);", page)
    assert m is not None
    games = json.loads(m.group(1))
    assert [g["id"] for g in games] == list(catalog.game_ids())
    assert {g["letter"]: g["decks"] for g in games if g["id"] == "cancellation-hearts"} == {"c": 2}


def test_the_club_page_names_no_game_itself() -> None:
    from importlib import resources

    text = (resources.files("trickref.device.club") / "web" / "app.js").read_text(encoding="utf-8")
    assert 'fetch("games.json")' in text
    assert not any(g in text for g in ("Two-player Spades", "German Whist", "spades-2p"))
