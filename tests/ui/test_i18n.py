"""The kiosk's languages: complete catalogs, no missing glyph (tofu), the home screen laid out in
each language, the language kept across a restart, the players' pages in every language, and
Unicode player names through the journal, the record and ``trickref replay``."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pygame
import pytest
from babel.messages.pofile import read_po as babel_read_po
from kiosk_helpers import tap_button

from trickref.device import config as dc
from trickref.engine.games import GAME_IDS
from trickref.ui import i18n
from trickref.ui.scenes.rules import HELP, rules_blocks
from trickref.ui.settings import Settings, load_settings
from trickref.ui.theme import Theme

ROOT = Path(__file__).resolve().parents[2]
OTHER = [lang for lang in i18n.LANGUAGES if lang != "en"]
NAMES = ["Zoë", "Çağla", "Émile", "Ti Jan"]


@pytest.fixture(autouse=True)
def _english_after():
    yield
    i18n.set_language("en")


def _catalog_script():
    spec = importlib.util.spec_from_file_location("i18n_catalogs", ROOT / "scripts" / "i18n_catalogs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _marked() -> list[tuple[str, str | tuple[str, ...]]]:
    """Every string marked in the kiosk's marked modules and the options' descriptions, as Babel
    extracts them now (not the committed .pot, which could be stale)."""
    return [(m.id if isinstance(m.id, str) else m.id[0], m.id) for m in _catalog_script().template() if m.id]


def _placeholders(s: str) -> set[str]:
    return set(re.findall(r"\{(\w*)\}", s))


@pytest.mark.parametrize("lang", OTHER)
def test_every_marked_string_is_translated(lang):
    with open(i18n.po_path(lang), "rb") as f:
        cat = babel_read_po(f, locale=lang)
    marked = _marked()
    assert len(marked) > 100  # the extraction found the marked modules
    untranslated = []
    for _first, mid in marked:
        m = cat.get(mid)
        forms = [] if m is None else ([m.string] if isinstance(m.string, str) else list(m.string))
        if m is None or not all(forms) or m.fuzzy:
            untranslated.append(mid)
            continue
        english = [mid] if isinstance(mid, str) else list(mid)
        for form in forms:  # "{game}" in English is "{game}" in the translation
            assert _placeholders(form) == _placeholders(english[0]), (lang, mid, form)
    assert not untranslated, f"{lang}: not translated: {untranslated}"


@pytest.mark.parametrize("lang", OTHER)
def test_the_run_time_reader_agrees_with_babel(lang):
    """trickref.ui.i18n compiles the .po itself; it reads every message as Babel does."""
    text = i18n.po_path(lang).read_text(encoding="utf-8")
    ours = i18n.read_po(text)
    with open(i18n.po_path(lang), "rb") as f:
        cat = babel_read_po(f, locale=lang)
    for m in cat:
        if not m.id:
            continue
        if isinstance(m.id, str):
            assert ours[m.id] == m.string
        else:
            assert ours["\0".join(m.id)] == "\0".join(m.string)
    i18n.set_language(lang)
    assert i18n._("Start game") == cat.get("Start game").string
    assert i18n._("not a marked string") == "not a marked string"


def test_switching_language_at_run_time():
    i18n.set_language("fr")
    assert i18n._("Settings") == "Réglages"
    assert i18n.ngettext("{humans} + {n} bot", "{humans} + {n} bots", 3).format(humans="Zoë", n=3) == "Zoë + 3 robots"
    i18n.set_language("tr")
    assert i18n._("Settings") == "Ayarlar"
    assert i18n.msgid(i18n._("Settings")) == "Settings"
    i18n.set_language("en")
    assert i18n._("Settings") == "Settings"
    with pytest.raises(ValueError, match="unknown language 'de'"):
        i18n.set_language("de")


def test_a_broken_po_is_named_with_its_line():
    with pytest.raises(i18n.PoError, match=r"x.po:3: unknown keyword 'msgstring'"):
        i18n.read_po('msgid ""\nmsgstr ""\nmsgstring "a"\n', "x.po")


def _all_translated_text() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for lang in OTHER:
        texts = [v for k, v in i18n.read_po(i18n.po_path(lang).read_text(encoding="utf-8")).items() if k]
        texts = [part for t in texts for part in t.split("\0")]
        texts += [text for game in GAME_IDS for _kind, text in rules_blocks(game, lang) if text]
        out[lang] = texts
    out["names"] = [*i18n.LANGUAGES.values(), *NAMES]
    return out


@pytest.mark.parametrize("large", [False, True], ids=["normal", "large-text"])
@pytest.mark.parametrize("size", [(800, 480), (1280, 720)], ids=["800x480", "1280x720"])
def test_no_missing_glyph_in_any_translation(size, large):
    """pygame's default font (freesansbold.ttf, shipped in pygame-ce) at every text size the
    kiosk uses: Font.metrics gives None for a glyph the font lacks."""
    pygame.font.init()
    th = Theme(*size, large_text=large)
    missing: set[tuple[str, str]] = set()
    texts = _all_translated_text()
    for role in ("small", "body", "large", "title", "huge"):
        for bold in (False, True):
            font = th.font(role, bold)
            for lang, strings in texts.items():
                for s in strings:
                    for ch, m in zip(s, font.metrics(s), strict=True):
                        if m is None:
                            missing.add((lang, ch))
    assert not missing, f"glyphs missing from the kiosk's font: {sorted(missing)}"


def _home(lang: str, size=(800, 480), large: bool = False):
    from trickref.ui.app import start_home
    from trickref.ui.screenshots import make_app

    app = make_app(size, Settings(language=lang, large_text=large))
    app.setup.names[:4] = NAMES
    start_home(app)
    app.render(force=True)
    return app


@pytest.mark.parametrize("large", [False, True], ids=["normal", "large-text"])
@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_home_screen_in_every_language_fits_800x480(lang, large):
    from trickref.ui.widgets import find_buttons

    app = _home(lang, large=large)
    assert app.scene.name == "home"
    screen = pygame.Rect(0, 0, 800, 480)
    buttons = [b for b in find_buttons(app.scene.widgets) if b.visible]
    assert len(buttons) >= 12
    for b in buttons:
        assert screen.contains(b.rect), (lang, b.name, b.rect)
        # the label fits its button at its own size (no squeezing a long French or Turkish word)
        # (a long one on two lines when the button is tall enough)
        for line in b.lines(app.theme):
            w = app.theme.font(b.role).size(line)[0]
            assert w <= b.rect.width - 4, (lang, line, w, b.rect.width)
    for a, b in combinations(buttons, 2):
        assert not a.rect.colliderect(b.rect), (lang, a.name, b.name)
    # the words are this language's
    if lang != "en":
        i18n.set_language(lang)
        assert app.scene.button("Start game").text == i18n._("Start game") != "Start game"


def test_the_language_chosen_on_home_is_kept_across_a_restart(tmp_path):
    from trickref.ui.app import start_home
    from trickref.ui.screenshots import make_app

    path = tmp_path / "config.toml"
    app = make_app((800, 480), load_settings(path))
    start_home(app)
    app.render(force=True)
    assert app.scene.button("language").text == "English"
    tap_button(app, "language")
    assert app.scene.button("language").text == "Français"
    assert app.scene.button("Start game").text == "Commencer"  # the screen changed at once
    tap_button(app, "language")
    assert app.scene.button("language").text == "Kreyòl ayisyen"
    assert 'language = "ht"' in path.read_text(encoding="utf-8")
    # a new start of the kiosk (the same configuration file) speaks Haitian Creole
    i18n.set_language("en")
    again = make_app((800, 480), load_settings(path))
    start_home(again)
    again.render(force=True)
    assert again.scene.button("Settings").text == "Paramèt"
    assert dc.load(path).config.display.language == "ht"


def test_the_settings_screen_cycles_the_language_and_saves_on_done(tmp_path):
    from trickref.ui.app import start_home
    from trickref.ui.screenshots import make_app

    path = tmp_path / "config.toml"
    app = make_app((800, 480), load_settings(path))
    start_home(app)
    app.go("settings")
    app.render(force=True)
    for want in ("Français", "Kreyòl ayisyen", "Türkçe"):
        tap_button(app, "language")
        assert app.scene.button("language").text == want
    assert app.scene.button("Done").text == "Tamam"
    tap_button(app, "Done")
    assert app.scene.name == "home"
    assert dc.load(path).config.display.language == "tr"
    assert load_settings(path).language == "tr"


def test_a_bad_language_in_the_file_is_reported_and_english_used():
    config, problems = dc.loads('[display]\nlanguage = "klingon"\n')
    assert config.display.language == "en"
    assert [str(p) for p in problems] == ["display.language: must be one of en, fr, ht, tr, not 'klingon'"]


def test_help_pages_for_every_game_in_every_language():
    english = {g: rules_blocks(g, "en") for g in GAME_IDS}
    for lang in i18n.LANGUAGES:
        for game in GAME_IDS:
            page = HELP / lang / f"{game}.md"
            assert page.is_file(), f"missing {page}"
            blocks = rules_blocks(game, lang)
            headings = [t for k, t in blocks if k == "h"]
            # a faithful translation: the same sections, and about as much to read
            assert len(headings) == sum(1 for k, _t in english[game] if k == "h"), (lang, game)
            text = "\n".join(t for _k, t in blocks)
            for developer_words in ("seed", ".txt", "`", "_", "0..n"):  # written for players
                assert developer_words not in text, (lang, game, developer_words)
            words = sum(len(t.split()) for _k, t in blocks)
            english_words = sum(len(t.split()) for _k, t in english[game])
            assert 0.6 * english_words < words < 1.8 * english_words, (lang, game, words, english_words)


def test_rules_scene_shows_the_page_of_the_chosen_language():
    app = _home("fr")
    app.setup.choose_game("german-whist")
    app.go("rules")
    app.render(force=True)
    lines = app.scene.model()["lines"]
    assert lines[0] == rules_blocks("german-whist", "fr")[0][1]
    assert app.scene.button("Done").text == "Terminé"


def test_unicode_player_names_through_journal_record_and_replay(tmp_path):
    """Zoë, Çağla, Émile and Ti Jan play Hearts on the referee path: the journal holds their
    names, a restart resumes with them, the finished record keeps them, and ``trickref replay``
    prints them."""
    from referee_helpers import play_to_end, pump, referee_app, start

    from trickref.device.journal import Journal
    from trickref.engine import records
    from trickref.ui.app import start_home

    app = referee_app()
    app.setup.names[:4] = NAMES
    session = start(app, "hearts", 4, humans=(0,), options={"target": 50})
    pump(app)
    journal_path = dc.load().config.storage.journal_dir() / "table.journal"
    raw = journal_path.read_bytes()
    for name in NAMES:
        assert name.encode("utf-8") in raw
    assert list(session.table.referee.game.names) == NAMES
    app.end_session()  # the kiosk stops; the journal holds the game
    j, recs, _report = Journal.open(journal_path)
    j.close()
    assert any(NAMES[1] in json.dumps(r, ensure_ascii=False) for r in recs)

    again = referee_app()
    start_home(again)  # resumes from the journal
    assert again.session is not None
    tap_button(again, "yes")
    play_to_end(again)
    assert again.scene.name == "gameover"
    again.render(force=True)
    saved = sorted((dc.load().config.storage.games_dir()).glob("*.json"))
    assert len(saved) == 1
    rec = records.load(str(saved[0]))
    assert list(rec.players) == NAMES
    assert json.loads(saved[0].read_text(encoding="utf-8"))["players"] == NAMES
    done = subprocess.run([sys.executable, "-m", "trickref.ui.cli", "replay", str(saved[0])], capture_output=True,
                          text=True, encoding="utf-8", cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if line.startswith("hand "))
    assert header.split()[1:] == ["Zoë", "Çağla", "Émile", "Ti", "Jan"]
    state = records.replay(rec)
    assert state.over


@pytest.mark.parametrize("large", [False, True], ids=["normal", "large-text"])
@pytest.mark.parametrize("lang", OTHER)
@pytest.mark.parametrize("scene", ["options", "players", "rules", "settings", "pin"])
def test_marked_scenes_keep_their_buttons_on_screen_in_every_language(scene, lang, large):
    """The fixed buttons of the marked screens (Done, Defaults, Up, Down, Back, the keys of the
    PIN pad) stay on an 800x480 screen, apart, with their translated label fitting."""
    from trickref.ui.widgets import Button

    app = _home(lang, large=large)
    app.setup.choose_game("cancellation-hearts")
    app.go(scene)
    app.render(force=True)
    screen = pygame.Rect(0, 0, 800, 480)
    buttons = [w for w in app.scene.widgets if isinstance(w, Button) and w.visible]
    assert buttons, scene
    for b in buttons:
        assert screen.contains(b.rect), (scene, lang, b.name, b.rect)
        for line in b.lines(app.theme):
            w = app.theme.font(b.role).size(line)[0]
            assert w <= b.rect.width - 4, (scene, lang, line, w, b.rect.width)
    for a, b in combinations(buttons, 2):
        assert not a.rect.colliderect(b.rect), (scene, lang, a.name, b.name)


def test_screenshots_in_another_language(tmp_path):
    from trickref.ui.screenshots import render_all

    files = render_all(tmp_path, sizes=((800, 480),), only="home", languages=("en", "tr"))
    names = sorted(p.name for p in files)
    assert any(n.endswith("-800x480-tr.png") for n in names) and any(n.endswith("-800x480.png") for n in names)
    assert all(p.stat().st_size > 0 for p in files)
    # the Turkish frames differ from the English ones (the words changed)
    pairs = [(p, p.with_name(p.name.replace("-tr.png", ".png"))) for p in files if p.name.endswith("-tr.png")]
    assert pairs and all(a.read_bytes() != b.read_bytes() for a, b in pairs)
