"""The catalog of games (engine/catalog.py): one descriptor per game, and no game id compared
anywhere else (issue 19 point 1)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from trickref.engine import catalog
from trickref.engine.bots import bot_for
from trickref.engine.bots.levels import search_class
from trickref.engine.errors import RecordError
from trickref.engine.games import GAME_IDS, game_class
from trickref.engine.options import SPECS, resolve
from trickref.engine.scorekeeper import ScoreSheet, keeping_class

ROOT = Path(__file__).resolve().parents[2]


def test_the_five_games_in_their_order() -> None:
    assert catalog.BUILTIN == tuple(f"{g.replace('-', '_')}_info" for g in catalog.game_ids()[:5])
    assert list(GAME_IDS)[:5] == ["spades-2p", "cancellation-hearts", "german-whist", "partnership-spades", "hearts"]
    assert catalog.DEFAULT in GAME_IDS


@pytest.mark.parametrize("game", list(GAME_IDS))
def test_a_descriptor_agrees_with_its_rules_class_and_loads_everything_it_names(game: str) -> None:
    info = catalog.info(game)
    cls = game_class(game)
    assert (cls.GAME_ID, cls.TITLE, cls.PLAYER_COUNTS, cls.DECKS, cls.HAS_BAGS, cls.TEAMS) == (
        info.id, info.title, info.player_counts, info.decks, info.has_bags, info.teams)
    assert SPECS[game] == info.options and resolve(game, None) == info.defaults()
    assert hasattr(bot_for(game), "choose")
    assert search_class(game)(game, iterations=1).info is info
    sheet = ScoreSheet(game, info.player_counts[0])
    assert isinstance(sheet.keeping, keeping_class(game)) and sheet.TEAMS == info.teams
    assert set(info.columns()) <= {"bid", "made", "bags", "score", "taken", "tricks"}
    assert set(info.columns(compact=True)) <= {"bidmade", "bags", "score", "takentotal", "tricks"}


def test_letters_are_distinct_and_read_back() -> None:
    letters = [g.check_letter for g in catalog.games() if g.check_letter]
    assert len(letters) == len(set(letters)) == 5
    for g in catalog.games():
        if g.check_letter:
            assert catalog.by_letter(g.check_letter) is g


def test_an_unknown_game_is_a_record_error_naming_the_known_ones() -> None:
    with pytest.raises(RecordError, match=r"unknown game 'bridge' \(one of spades-2p, .*hearts\)") as e:
        catalog.info("bridge")
    assert e.value.field == "game"
    assert "bridge" not in GAME_IDS and "bridge" not in SPECS


def test_a_descriptor_refuses_what_cannot_be() -> None:
    base = catalog.info("hearts")
    fields = {k: getattr(base, k) for k in base.__dataclass_fields__}
    for bad in ({"leftover": "floor"}, {"stock": "pile"}, {"teams": True}, {"options": ()}, {"player_counts": ()}):
        with pytest.raises(ValueError):
            catalog.GameInfo(**{**fields, **bad})


def test_register_adds_a_game_everywhere_and_unregister_takes_it_away() -> None:
    base = catalog.info("german-whist")
    fields = {k: getattr(base, k) for k in base.__dataclass_fields__}
    twin = catalog.GameInfo(**{**fields, "id": "german-whist-twin", "check_letter": ""})
    try:
        catalog.register(twin)
        assert "german-whist-twin" in GAME_IDS and GAME_IDS[-1] == "german-whist-twin"
        assert [s.name for s in SPECS["german-whist-twin"]] == ["target", "score_all_tricks"]
        with pytest.raises(ValueError, match="declared twice"):
            catalog.register(catalog.GameInfo(**{**fields, "id": "german-whist-twin", "title": "Other"}))
        catalog.register(twin)  # the same descriptor again is no conflict
    finally:
        catalog.unregister("german-whist-twin")
    assert "german-whist-twin" not in GAME_IDS


def test_the_environment_names_plugin_modules(tmp_path: Path) -> None:
    (tmp_path / "extra_info.py").write_text(
        "from trickref.engine import catalog\n"
        "base = catalog.info('german-whist')\n"
        "INFO = catalog.GameInfo(**{**{k: getattr(base, k) for k in base.__dataclass_fields__},\n"
        "                           'id': 'whist-plugin', 'title': 'Plug-in Whist', 'check_letter': ''})\n")
    code = "from trickref.engine import catalog; print(catalog.game_ids()[-1], catalog.info('whist-plugin').title)"
    env = {"PYTHONPATH": str(tmp_path), catalog.ENV: "extra_info", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["whist-plugin", "Plug-in", "Whist"]


# ---------------------------------------------------------------------- no id outside its modules
_IDS = ("spades-2p", "cancellation-hearts", "german-whist", "partnership-spades")
# "hearts" is also a field's name (hearts taken): only a comparison with it is an id
_HEARTS = re.compile(r"""[=!]=\s*["']hearts["']|["']hearts["']\s*[=!]=|\(\s*["']hearts["']\s*,|,\s*["']hearts["']\s*\)""")


def _own_files() -> dict[str, set[Path]]:
    """Each game's own modules: the ones its descriptor names (rules, bots, keep-score rules),
    its descriptor and its staged kiosk screens (ui/shots/<game>.py)."""
    out: dict[str, set[Path]] = {}
    for g in catalog.games():
        mods = {g.rules, g.bot, g.search_bot, g.keeping, f".{g.id.replace('-', '_')}_info"}
        own = set()
        for m in mods:
            name = m.partition(":")[0]
            if name.startswith("."):
                own.add(ROOT / "engine" / (name[1:].replace(".", "/") + ".py"))
        own.add(ROOT / "ui" / "shots" / f"{g.id.replace('-', '_')}.py")  # its staged kiosk screens
        out[g.id] = own
    return out


def _product_files(*folders: str) -> list[Path]:
    files: list[Path] = []
    for folder in folders:
        for ext in ("py", "js", "html"):
            files += sorted((ROOT / folder).rglob(f"*.{ext}"))
    return files


def test_no_game_id_outside_its_own_modules_and_the_catalog() -> None:
    own = _own_files()
    catalog_file = ROOT / "engine" / "catalog.py"
    found = []
    for path in _product_files("engine", "device", "ui"):
        text = path.read_text(encoding="utf-8")
        for game in _IDS:
            if path in own[game] or path == catalog_file:
                continue
            for m in re.finditer(rf"""["']{game}["']""", text):
                found.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {game}")
        if path not in own["hearts"] and path != catalog_file:
            for m in _HEARTS.finditer(text):
                found.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: hearts")
    assert not found, "game ids outside their games' modules:\n" + "\n".join(found)


@pytest.mark.parametrize("game", ["partnership-spades", "cancellation-hearts"])
def test_the_public_view_carries_the_flags_the_screens_draw_by(game: str) -> None:
    from trickref.engine.referee import Referee
    from trickref.engine.referee.events import NewGame

    info = catalog.info(game)
    ref = Referee()
    ref.handle(NewGame(game, tuple(f"P{i}" for i in range(info.player_counts[0])), {}, 0, ()))
    flags = ref.public_view()["game"]["info"]
    assert flags == info.public()
    assert flags["teams"] == (game == "partnership-spades") and flags["cancels"] == (game == "cancellation-hearts")
    assert flags["nil_word"] == ("Blind Nil" if info.teams else "") and flags["lower_total_wins"] == (not info.teams)
