"""Refresh the kiosk's gettext catalogs with Babel (a development tool: the `test` extra).

    .venv/bin/python scripts/i18n_catalogs.py          # extract, then update fr/ht/tr .po
    .venv/bin/python scripts/i18n_catalogs.py --check  # exit 1 when a .po misses a string

It extracts every ``_()``, ``N_()`` and ``ngettext()`` of the marked kiosk modules (MARKED; the
lead adds the table-facing scenes when they are marked) the games' titles and the rule
options' descriptions of the catalog (``engine.catalog``; shown translated on the kiosk) into
``ui/locale/trickref.pot``, then updates each ``ui/locale/<lang>/LC_MESSAGES/trickref.po``
keeping its translations (new strings come in empty, for a translator to fill). Nothing is
compiled here: ``ui.i18n`` reads the ``.po`` itself at run time (see its docstring for why).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOCALE = ROOT / "ui" / "locale"
MARKED = [
    "ui/setup.py", "ui/keyboard.py", "ui/widgets.py", "ui/scenes/home.py", "ui/scenes/options.py",
    "ui/scenes/players.py", "ui/scenes/rules.py", "ui/scenes/settings.py", "ui/scenes/pin.py",
    "ui/scenes/confirm.py", "ui/scenes/gameover.py", "ui/scenes/scoresheet.py", "ui/scenes/scorekeeper_entry.py",
    "ui/scenes/scorekeeper_sheet.py", "ui/resume.py", "ui/scenes/gamebase.py",
    "ui/tableview.py", "ui/scenes/play.py", "ui/scenes/summary.py", "ui/scenes/dealing.py", "ui/scenes/fault.py",
    "ui/scenes/handoff.py", "ui/scenes/bidding.py", "ui/scenes/club.py",
    "ui/faults.py", "ui/fairshow.py", "ui/scenes/faircheck.py", "ui/plot.py", "ui/table_client.py", "ui/referee_words.py",
    "ui/paperpad.py", "ui/scenes/handfix.py", "ui/scenes/review.py", "ui/gameinfo.py",
    "ui/undo_words.py", "ui/scenes/letter.py",
    "ui/memory.py", "ui/scenes/roster.py",
]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
# The catalogs this script makes and checks; each one's plural rule is Babel's locale data (a new
# catalog's header) or the committed catalog's own header.
TRANSLATED = ("fr", "ht", "tr")


def template() -> Catalog:
    cat = Catalog(project="trickref", version="0.1", charset="utf-8")
    for rel in MARKED:
        for lineno, message, comments, _ctx in extract_from_file("python", str(ROOT / rel), keywords=KEYWORDS):
            cat.add(message, locations=[(rel, lineno)], auto_comments=comments)
    from trickref.engine import catalog
    from trickref.engine.options import SPECS

    for info in catalog.games():  # the games' titles (ui.gameinfo.title translates them)
        cat.add(info.title, locations=[(f"engine/{info.id.replace('-', '_')}_info.py ({info.id}.title)", 0)])
    for game, specs in SPECS.items():
        for spec in specs:
            cat.add(spec.help, locations=[(f"engine/options.py ({game}.{spec.name})", 0)])
    return cat


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that every .po translates every string")
    args = ap.parse_args(argv)
    pot = template()
    missing = 0
    if not args.check:
        LOCALE.mkdir(exist_ok=True)
        with open(LOCALE / "trickref.pot", "wb") as f:
            write_po(f, pot, width=100)
    for lang in TRANSLATED:
        path = LOCALE / lang / "LC_MESSAGES" / "trickref.po"
        if path.exists():
            with open(path, "rb") as f:
                cat = read_po(f, locale=lang)
        else:
            cat = Catalog(locale=lang, project="trickref", version="0.1", charset="utf-8")
        if not args.check:
            cat.update(pot, no_fuzzy_matching=True, update_header_comment=False)
            cat.fuzzy = False
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb") as f:
                write_po(f, cat, width=100, ignore_obsolete=True)
        for m in pot:
            if not m.id:
                continue
            got = cat.get(m.id)
            if got is None or not (all(got.string) if isinstance(got.string, tuple | list) else got.string) \
                    or got.fuzzy:
                missing += 1
                print(f"{path.relative_to(ROOT)}: not translated: {m.id!r}")
    return 1 if missing and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
