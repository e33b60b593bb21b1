"""``trickref screenshots DIR``: every scene at 800x480 and 1280x720 as PNG files.

Games are played by bots (the human seats too) from fixed seeds to realistic points: dealing
under way, mid-bidding, mid-trick for every game, a pass being chosen, a score sheet after
several hands, game over, a dealer fault, a game resumed from the journal. Every game runs on
the one path to a table, the table host through ui.table_client: dealing, the fault and the
resume in simulated mode (the simulated dealer on a pty, a journal in a scratch folder); the
staged positions in instant mode (the ideal dealer, no journal). Runs headless
(SDL_VIDEODRIVER=dummy).

The set is the screens of no game (home, keyboard, PIN, settings), then each game of the
catalog in its order: a built-in game's own staged screens (ui/shots/<game>.py, its features),
or for any other game (a plug-in) the generic ones: its rules page, mid-trick, a review, a score
sheet after two hands and its keep-score entry. ``scenarios()`` gives (name, setup) for every
screenshot; the names are stable (other tests run over them). Positions are staged by
ui.staging (re-exported here: ``start_game``, ``advance``, ``press``, ``correct`` ...).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .staging import (
    SIZES,
    advance,
    auto_step,
    correct,
    correct_hand,
    headless,
    keep,
    make_app,
    mid_trick,
    press,
    real_game,
    review,
    score_sheet,
    show,
    start_game,
    tricks,
    wait,
)

__all__ = ["SIZES", "add_parser", "advance", "auto_step", "correct", "correct_hand", "generic", "headless", "keep",
           "make_app", "press", "real_game", "render_all", "scenarios", "show", "start_game", "tricks", "wait"]


def scenarios() -> list[tuple[str, Callable[[Any], Any]]]:
    """(file stem, setup function) for every screenshot; each gets a fresh app."""
    from trickref.engine import catalog

    from . import shots

    out: list[tuple[str, Callable[[Any], Any]]] = []

    def add(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
        def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
            out.append((name, fn))
            return fn
        return deco

    @add("home")
    def _home(app: Any) -> Any:
        return show(app, scene="home")

    @add("keyboard")
    def _kb(app: Any) -> Any:
        from .i18n import _
        from .keyboard import KeyboardScene

        # a new player's name being typed from the roster (the only way a name is typed)
        show(app, scene="roster", seat=1)
        app.push(KeyboardScene(app, title=_("New player's name"), text="Ana", max_len=14))
        app.render(force=True)
        return app.scene

    @add("pin")
    def _pin(app: Any) -> Any:
        sc = show(app, scene="pin")
        sc.text = "12"
        app.render(force=True)
        return sc

    @add("settings")
    def _settings(app: Any) -> Any:
        import tempfile

        from .settings import load_settings

        old = os.environ.get("TRICKREF_CONFIG")
        language = app.settings.language  # the defaults, in the language being shot
        with tempfile.TemporaryDirectory() as d:
            os.environ["TRICKREF_CONFIG"] = os.path.join(d, "config.toml")
            try:
                app.settings = load_settings()
            finally:
                if old is None:
                    os.environ.pop("TRICKREF_CONFIG", None)
                else:
                    os.environ["TRICKREF_CONFIG"] = old
        app.settings.language = language
        sc = show(app, scene="settings")
        sc.area.scroll(sc.area.rect.height // 2)
        app.render(force=True)
        return sc

    @add("large-text-home")
    def _large_home(app: Any) -> Any:
        app.settings.large_text = True
        app.apply_settings()
        return show(app, scene="home")

    @add("roster")
    def _roster(app: Any) -> Any:
        _stage_roster(app)
        return show(app, scene="roster", seat=1)

    @add("roster-empty")
    def _roster_empty(app: Any) -> Any:
        return show(app, scene="roster", seat=0)

    @add("player-history")
    def _player(app: Any) -> Any:
        _stage_roster(app)
        return show(app, scene="player", player="Çağrı", seat=1)

    for game in catalog.game_ids():
        own = shots.of(game)
        out.extend(own if own is not None else generic(game))
    return out


def _stage_roster(app: Any) -> None:
    """A table's memory with players in the kiosk's languages' letters and some history (a
    game of each of the catalog's first games, at its smallest table)."""
    from trickref.engine import catalog

    from .memory import memory_of

    m = memory_of(app)
    names = ["Ana", "Çağrı", "Jàn-Pyè", "Œdipe", "İpek", "Maximiliana Ro", "Ben", "Zoë", "Dee"]
    for n in names:
        m.add_player(n)
    seats = [1, 0, 6, 8, 2, 3, 4, 5]
    for i, game in enumerate(catalog.game_ids()[:5]):
        n = catalog.info(game).player_counts[0]
        players = [names[s] for s in seats[i % 2:] if s != 1][:n - 1]
        players.insert(i % 2, "Çağrı")
        totals = [40 + 13 * ((i + k) % 7) for k in range(n)]
        m.count_game(f"{i:08x}", game, players, totals, [i % n])
    st = app.setup
    counts = catalog.info(catalog.DEFAULT).player_counts
    st.choose_game(catalog.DEFAULT)
    st.players = 4 if 4 in counts else counts[0]
    st.names[:4] = ["Ana", "Çağrı", "Ben", "Dee"]


def generic(game: str) -> list[tuple[str, Callable[[Any], Any]]]:
    """The screens of a game with no staged screens of its own (a plug-in): its rules page,
    mid-trick, a review, its score sheet after two hands, its keep-score entry (at its first
    player count)."""
    from trickref.engine import catalog

    n = catalog.info(game).player_counts[0]

    def rules(app: Any) -> Any:
        app.setup.choose_game(game)
        return show(app, scene="rules")

    def kept(app: Any) -> Any:
        return keep(app, game, n)

    return [(f"rules-{game}", rules), (f"play-{game}-{n}", mid_trick(game, n)),
            (f"review-{game}-{n}", review(game, n, lambda st: st.phase == "play" and tricks(st) >= 3
                                          and len(getattr(st, "trick", [])) >= 1)),
            (f"scoresheet-{game}", score_sheet(game, n, 2)), (f"keep-score-{game}", kept)]


def render_all(out_dir: str | os.PathLike[str], sizes: tuple[tuple[int, int], ...] | None = None,
               only: str | None = None, languages: tuple[str, ...] = ("en",),
               problems: list[str] | None = None) -> list[Path]:
    """Every scenario at every size (default: ``layoutcheck.LAYOUT_SIZES``), in each of
    ``languages`` (files of a language other than English end in ``-<code>``, e.g.
    ``home-800x480-fr.png``). Each scenario is staged once per language, in a scratch folder of
    its own, then drawn at each size (``layoutcheck.resize``); every frame written is checked
    by ``layoutcheck.check`` and what it finds is appended to ``problems`` (file: problem)."""
    headless()
    import tempfile

    import pygame

    from . import layoutcheck as L
    from .i18n import set_language
    from .settings import Settings

    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    written = []
    old = os.environ.get("TRICKREF_HOME")
    with tempfile.TemporaryDirectory() as scratch:  # the real-path games' journal and games folder
        try:
            for name, fn in scenarios():
                if only and only not in name:
                    continue
                for lang in languages:
                    home = Path(scratch) / f"{name}-{lang}"
                    home.mkdir()
                    os.environ["TRICKREF_HOME"] = str(home)
                    app = make_app((800, 480), Settings(language=lang))
                    try:
                        fn(app)
                        for size in sizes or L.LAYOUT_SIZES:
                            L.resize(app, size)
                            with L.recording() as log:
                                app.render(force=True)
                            tail = "" if lang == "en" else f"-{lang}"
                            p = d / f"{name}-{size[0]}x{size[1]}{tail}.png"
                            pygame.image.save(app.screen, str(p))
                            written.append(p)
                            if problems is not None:
                                found = L.check(log, size, bool(app.theme.large_text),
                                                physical=size not in L.GEOMETRY_ONLY)
                                problems.extend(f"{p.name}: {x}" for x in found)
                    finally:
                        app.end_session()  # its table's worker and ports stop
                        set_language("en")
        finally:
            if old is None:
                os.environ.pop("TRICKREF_HOME", None)
            else:
                os.environ["TRICKREF_HOME"] = old
    return written


def _cmd(args: argparse.Namespace) -> int:
    from .i18n import LANGUAGES

    languages = tuple(LANGUAGES) if args.language == "all" else (args.language,)
    problems: list[str] = []
    files = render_all(args.dir, only=args.only, languages=languages, problems=None if args.no_check else problems)
    for f in files:
        print(f)
    print(f"{len(files)} screenshots in {args.dir}")
    if args.no_check:
        return 0
    for x in problems:
        print(x)
    bad = len({x.split(": ")[0] for x in problems})
    print(f"layout check: {len(files) - bad} of {len(files)} frames pass" + (f"; {len(problems)} problems in {bad}" if bad else ""))
    return 1 if problems else 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("screenshots", help="render every kiosk scene at 800x480, 1024x600, 1280x720 and 720x1280 to "
                                          "PNG files, each checked by the layout rules (exit status 1 if one fails)")
    p.add_argument("dir", help="folder for the PNG files (created)")
    p.add_argument("--only", help="only scenarios whose name contains this")
    p.add_argument("--language", default="all", choices=["en", "fr", "ht", "tr", "all"],
                   help="the kiosk's language (en, fr, ht, tr), or all four (default: all)")
    p.add_argument("--no-check", action="store_true", help="write the files without checking their layout")
    p.set_defaults(func=_cmd)
