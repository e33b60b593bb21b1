"""The kiosk's languages: English, French, Haitian Creole and Turkish, through stdlib ``gettext``.

Mark a string with ``_("Start game")`` where it is drawn or laid out (never at import time: the
language can change while the kiosk runs), ``ngettext`` for counts, and ``N_`` for a string kept
in a table and translated later with ``_``. ``set_language`` switches at run time; every scene
lays itself out again on its next frame (``Scene._ensure_layout`` keys on ``current()``).

The catalogs are the committed ``ui/locale/<lang>/LC_MESSAGES/trickref.po`` files, made and
refreshed with Babel's Python API by ``scripts/i18n_catalogs.py`` (extract, then update; ``--check``
in the tests; docs/LANGUAGES.md). No compiled ``.mo``
is committed or needed at run time: ``compile_po`` turns a ``.po`` into the ``.mo`` bytes in
memory when the language is first chosen (a few milliseconds for the kiosk's few hundred
strings), and ``gettext.GNUTranslations`` reads them. So an installed kiosk (``pip install``, a
git checkout, a read-only image) always speaks what the committed ``.po`` says: there is no
build step to forget, no cache folder to write, and no stale ``.mo`` to shadow an edited ``.po``.
Babel is only a development and test tool (the ``test`` extra); a test checks that this reader
and Babel's agree on every message of every catalog.
"""

from __future__ import annotations

import ast
import gettext
import io
import struct
from collections.abc import Iterator
from pathlib import Path

DOMAIN = "trickref"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES: dict[str, str] = {  # code -> the language's own name, as the chooser shows it
    "en": "English", "fr": "Français", "ht": "Kreyòl ayisyen", "tr": "Türkçe",
}

_current = "en"
_catalogs: dict[str, gettext.NullTranslations] = {}


class PoError(ValueError):
    """A .po file this reader cannot read: names the file and the line."""


def _entries(text: str, source: str) -> Iterator[dict[str, str]]:
    """The entries of a .po file as dicts: 'msgctxt', 'msgid', 'msgid_plural', 'msgstr' or
    'msgstr[n]'; comments and obsolete (#~) entries skipped."""
    entry: dict[str, str] = {}
    key: str | None = None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            if not line and entry:
                yield entry
                entry, key = {}, None
            continue
        if line.startswith('"'):
            if key is None:
                raise PoError(f"{source}:{n}: a string with no keyword before it")
            entry[key] += _unquote(line, source, n)
            continue
        word, _, rest = line.partition(" ")
        if word not in ("msgctxt", "msgid", "msgid_plural", "msgstr") and not word.startswith("msgstr["):
            raise PoError(f"{source}:{n}: unknown keyword {word!r}")
        if word in ("msgctxt", "msgid") and "msgid" in entry:
            yield entry
            entry = {}
        key = word
        entry[key] = _unquote(rest.strip(), source, n)
    if entry:
        yield entry


def _unquote(s: str, source: str, n: int) -> str:
    if len(s) < 2 or s[0] != '"' or s[-1] != '"':
        raise PoError(f"{source}:{n}: expected a quoted string, not {s!r}")
    try:
        value = ast.literal_eval(s)
    except (SyntaxError, ValueError) as e:
        raise PoError(f"{source}:{n}: bad string {s!r} ({e})") from None
    if not isinstance(value, str):
        raise PoError(f"{source}:{n}: bad string {s!r}")
    return value


def read_po(text: str, source: str = "catalog.po") -> dict[str, str]:
    """The catalog as the .mo keys and values: 'msgid' (with 'ctxt\\x04' before it and
    '\\0plural' after it as gettext wants) -> the translation ('\\0' between plural forms).
    Untranslated entries are left out (gettext then shows the English)."""
    out: dict[str, str] = {}
    for e in _entries(text, source):
        if "msgid" not in e:
            raise PoError(f"{source}: an entry without msgid: {e}")
        key = e["msgid"]
        if "msgid_plural" in e:
            key += "\0" + e["msgid_plural"]
            forms = [e[k] for k in sorted((k for k in e if k.startswith("msgstr[")),
                                          key=lambda k: int(k[7:-1]))]
            value = "\0".join(forms)
            translated = all(forms)
        else:
            value = e.get("msgstr", "")
            translated = bool(value)
        if "msgctxt" in e:
            key = e["msgctxt"] + "\x04" + key
        if translated or key == "":
            out[key] = value
    return out


def compile_po(text: str, source: str = "catalog.po") -> bytes:
    """The GNU .mo bytes of a .po file's text (what ``msgfmt`` or ``pybabel compile`` write)."""
    messages = read_po(text, source)
    keys = sorted(messages)
    ids = [k.encode("utf-8") for k in keys]
    strs = [messages[k].encode("utf-8") for k in keys]
    n = len(keys)
    start = 7 * 4 + 16 * n  # header, then the two tables of (length, offset)
    id_table, str_table, blob = [], [], b""
    for b in ids:
        id_table.append((len(b), start + len(blob)))
        blob += b + b"\0"
    for b in strs:
        str_table.append((len(b), start + len(blob)))
        blob += b + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, n, 7 * 4, 7 * 4 + 8 * n, 0, 0)
    tables = b"".join(struct.pack("<2I", *t) for t in id_table + str_table)
    return header + tables + blob


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def catalog(language: str) -> gettext.NullTranslations:
    """The translations for ``language`` (English: the marked strings themselves)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: one of {', '.join(LANGUAGES)}")
    got = _catalogs.get(language)
    if got is None:
        if language == "en":
            got = gettext.NullTranslations()
        else:
            p = po_path(language)
            got = gettext.GNUTranslations(io.BytesIO(compile_po(p.read_text(encoding="utf-8"), str(p))))
        _catalogs[language] = got
    return got


def set_language(language: str) -> None:
    """Speak ``language`` from now on (ValueError for a language the kiosk does not have)."""
    global _current
    catalog(language)
    _current = language


def current() -> str:
    return _current


class Translated(str):
    """A translated string that remembers its English ``msgid``: buttons keep that as their
    name, so tests and scripts find "Start game" whatever the language on screen."""

    msgid: str

    def __new__(cls, text: str, msgid: str) -> Translated:
        made = super().__new__(cls, text)
        made.msgid = msgid
        return made


def _(message: str) -> str:
    return Translated(catalog(_current).gettext(message), message)


def msgid(text: str) -> str:
    """The English behind a string ``_`` returned (the string itself otherwise)."""
    return getattr(text, "msgid", text)


def ngettext(singular: str, plural: str, n: int) -> str:
    return catalog(_current).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a string for extraction without translating it (translate it later with ``_``)."""
    return message


def elide(text: str) -> str:
    """French elision a format leaves undone: "de Ana" -> "d'Ana" (the name filled in starts
    with a vowel). Other languages: the text as it is."""
    if _current != "fr":
        return text
    import re

    return re.sub(r"\b([Dd])e ([AEIOUYÀÂÉÈÊËÎÏÔÙÛÜŒaeiouyàâéèêëîïôùûüœ])", r"\1'\2", text)
