"""Which build of the engine runs: compiled (mypyc) or pure Python.

The install (setup.py) compiles the modules named in ``COMPILED`` with mypyc into C extension
modules beside their sources, and records the sources' hashes in ``compiled.json``. Python
would import an extension module in preference to its source; this module, imported first by
the package's ``__init__``, decides once per process which build to use:

- ``"compiled"`` when every module of ``COMPILED`` has its extension module, ``compiled.json``
  matches the sources (none was edited since the build), and they load;
- ``"python"`` otherwise, and always when the environment variable ``TRICKREF_PURE_PYTHON``
  is set (to anything but ``0``): an import hook then loads those modules from their ``.py``
  sources (the pure-Python engine, the reference), and the extension modules are left alone.

Both builds give the same results (the engine tests run on both). ``ENGINE_BUILD`` says which
runs and ``ENGINE_BUILD_NOTE`` why; ``trickref --version`` prints them. This module is never
compiled itself.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# The modules compiled by setup.py, in this package (setup.py reads this list from here).
COMPILED: tuple[str, ...] = (
    "rand", "cards", "masks", "base", "hearts_common", "hearts", "spades_common", "partnership_spades",
    "spades_2p", "german_whist", "cancellation_hearts", "hearts_core",
    "spades_core", "whist_core", "chearts_core",
)
SHARED_LIB = "compiled__mypyc"  # mypyc's runtime for the group, one extension module
HASHES = "compiled.json"  # written by the build beside the extension modules: the sources' sha256

PACKAGE = __name__.rpartition(".")[0]  # trickref.engine
HERE = Path(__file__).parent


def source_hashes(directory: Path = HERE) -> dict[str, str]:
    """sha256 of each compiled module's source (what the build records in ``HASHES``)."""
    return {m: hashlib.sha256((directory / f"{m}.py").read_bytes()).hexdigest() for m in COMPILED}


def _extension(name: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        p = HERE / f"{name}{suffix}"
        if p.exists():
            return p
    return None


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Loads the compiled modules from their ``.py`` sources (the pure-Python build)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        pkg, _, name = fullname.rpartition(".")
        if pkg != PACKAGE or name not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, HERE / f"{name}.py")


def _choose() -> tuple[str, str]:
    flag = os.environ.get("TRICKREF_PURE_PYTHON", "")
    if flag not in ("", "0"):
        return "python", "TRICKREF_PURE_PYTHON is set"
    found = {m: _extension(m) for m in (*COMPILED, SHARED_LIB)}
    missing = [m for m, p in found.items() if p is None]
    if len(missing) == len(found):
        return "python", "not compiled at install time (no C compiler, Python headers or mypyc then)"
    if missing:
        return "python", f"the compiled build is incomplete (no {', '.join(missing)})"
    try:
        built = json.loads((HERE / HASHES).read_text())
    except (OSError, ValueError):
        built = None
    if built != source_hashes():
        return "python", ("the compiled modules do not match their sources (edited since the build): "
                          "reinstall (pip install -e .) to compile them again")
    try:
        cards = importlib.import_module(f"{PACKAGE}.cards")
    except ImportError as e:
        for m in (*COMPILED, SHARED_LIB):
            sys.modules.pop(f"{PACKAGE}.{m}", None)
        return "python", f"the compiled modules do not load ({e})"
    if str(cards.__file__).endswith(".py"):
        return "python", "the sources were imported before the build was chosen"
    return "compiled", "mypyc"


ENGINE_BUILD, ENGINE_BUILD_NOTE = _choose()
if ENGINE_BUILD == "python" and not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _SourceFinder())


def describe() -> str:
    """One line for ``--version`` and logs: 'compiled (mypyc)' or 'pure Python (why)'."""
    return f"compiled ({ENGINE_BUILD_NOTE})" if ENGINE_BUILD == "compiled" else f"pure Python ({ENGINE_BUILD_NOTE})"
