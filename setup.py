"""The build's one step beyond pyproject.toml: the rules engine's modules compiled with mypyc.

mypyc (part of mypy, a build requirement in pyproject.toml) turns the engine's type-hinted
modules (``COMPILED`` in trickref/engine/build.py) into C extension modules next to their
sources; the sources stay in the package as the pure-Python engine. Compiling needs a C
compiler and the Python headers (scripts/system-deps.sh installs build-essential and
python3-dev where they are missing). When they are not there, or mypyc is not, or a module
fails to compile, the install goes on without the compiled modules and trickref runs the
pure-Python engine (``trickref --version`` and ``trickref.engine.ENGINE_BUILD`` say which).

``TRICKREF_PURE_PYTHON=1`` at install time builds no compiled module at all.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _build_constant(name: str) -> object:
    """A constant of engine/build.py, read without importing the package (its dependencies
    may not be installed while building)."""
    tree = ast.parse((ROOT / "engine" / "build.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
                return ast.literal_eval(node.value)
    raise LookupError(f"engine/build.py has no {name}")


COMPILED: tuple[str, ...] = tuple(_build_constant("COMPILED"))  # type: ignore[arg-type]
SHARED_LIB = str(_build_constant("SHARED_LIB"))
HASHES = str(_build_constant("HASHES"))


class BuildExt(build_ext):
    """build_ext, then ``compiled.json`` beside the extension modules: the sha256 of each
    source they were compiled from (engine/build.py loads them only while it matches)."""

    def run(self) -> None:
        super().run()
        if not self.extensions:
            return
        lib = Path(self.get_ext_fullpath(f"trickref.engine.{SHARED_LIB}"))
        built = [Path(self.get_ext_fullpath(f"trickref.engine.{m}")) for m in COMPILED]
        if not lib.exists() or not all(p.exists() for p in built):
            _say("the compiled engine was not built (see the compiler's messages above): "
                 "the pure-Python engine only")
            return
        hashes = {m: hashlib.sha256((ROOT / "engine" / f"{m}.py").read_bytes()).hexdigest() for m in COMPILED}
        (lib.parent / HASHES).write_text(json.dumps(hashes, indent=1) + "\n")


def _say(message: str) -> None:
    print(f"trickref setup: {message}", file=sys.stderr)


def ext_modules() -> list:
    if os.environ.get("TRICKREF_PURE_PYTHON", "") not in ("", "0"):
        _say("TRICKREF_PURE_PYTHON is set: the pure-Python engine only, nothing compiled")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as e:
        _say(f"mypyc is not available ({e}): the pure-Python engine only")
        return []
    paths = [f"trickref/engine/{m}.py" for m in COMPILED]
    cwd = os.getcwd()
    os.chdir(ROOT)  # mypyc names the modules from paths relative to here
    try:
        exts = mypycify(paths, opt_level="3", debug_level="0",
                        group_name="trickref.engine." + SHARED_LIB.removesuffix("__mypyc"))
    except BaseException as e:  # a type error in the sources, a mypyc crash: never fail the install
        _say(f"mypyc could not compile the engine ({type(e).__name__}: {e}): the pure-Python engine only")
        return []
    finally:
        os.chdir(cwd)
    for ext in exts:
        ext.optional = True  # no C compiler or no headers: a warning, and the install goes on
    return exts


setup(ext_modules=ext_modules(), cmdclass={"build_ext": BuildExt})
