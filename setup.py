"""The build's one step beyond pyproject.toml: the rules engine's modules compiled with mypyc.

mypyc (part of mypy, a build requirement in pyproject.toml) turns the engine's type-hinted
modules (``COMPILED`` in trickref/engine/build.py) into C extension modules next to their
sources; the sources stay in the package as the pure-Python engine. Compiling needs a C
compiler and the Python headers (scripts/system-deps.sh installs build-essential and
python3-dev where they are missing). When they are not there, or mypyc is not, or a module
fails to compile, the install goes on without the compiled modules and trickref runs the
pure-Python engine (``trickref --version`` and ``trickref.engine.ENGINE_BUILD`` say which).

``TRICKREF_PURE_PYTHON=1`` at install time builds no compiled module at all.
``TRICKREF_MYPYC_OPT=0|1|2|3`` sets the C compiler's optimisation level (default 3, what every
install uses; scripts/pi-emulated.sh may lower it, where gcc itself runs under emulation).

Everything is read through the package folder, ``trickref/engine/...``: in a checkout that
folder is a link to the top-level ``engine/`` (the design card's layout), in an sdist it is the
folder itself (the sdist holds the links' contents). mypyc runs only when the extensions are
built (a wheel, an install: ``BUILDS``), never for the metadata or the sdist.

A checkout made without symbolic links (git's default on Windows, ``core.symlinks=false``) has
small text files where the links should be; the build stops there with a message saying so,
rather than quietly building a package without its engine, device and ui.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "trickref"
PARTS = ("engine", "device", "ui", "firmware")  # the top-level folders linked into the package


def _check_layout() -> None:
    """Stop the build when trickref/engine, device, ui or firmware is not a package folder."""
    bad = []
    for part in PARTS:
        p = PACKAGE / part
        if not (p / "__init__.py").is_file():
            what = "missing"
            if p.is_symlink():
                what = f"a link to {os.readlink(p)} that leads nowhere"
            elif p.is_file():
                text = p.read_text(errors="replace").strip()[:40]
                what = f"a plain file holding {text!r}, not a link to ../{part}"
            elif p.is_dir():
                what = "a folder without __init__.py"
            bad.append(f"trickref/{part} is {what}")
    if bad:
        raise SystemExit(
            "trickref setup: the package folder is incomplete: " + "; ".join(bad) + ".\n"
            "trickref/engine, device, ui and firmware are symbolic links to the top-level folders. "
            "This checkout was made without symbolic links (git's default on Windows: core.symlinks=false), "
            "so a build would leave out the engine, device and ui. Clone again with links "
            "(git -c core.symlinks=true clone ...; on Windows turn on Developer Mode first), "
            "or install from the sdist (python -m build --sdist on a checkout with links), which holds real folders.")


def _build_constant(name: str) -> object:
    """A constant of trickref/engine/build.py, read without importing the package (its
    dependencies may not be installed while building)."""
    tree = ast.parse((PACKAGE / "engine" / "build.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
                return ast.literal_eval(node.value)
    raise LookupError(f"trickref/engine/build.py has no {name}")


def _pure() -> bool:
    return os.environ.get("TRICKREF_PURE_PYTHON", "") not in ("", "0")


class TrickrefDistribution(Distribution):
    """The wheel of a build that compiles is tagged for this platform and Python, also when the
    extensions are not made in this invocation (``BUILDS``)."""

    def has_ext_modules(self) -> bool:
        return not _pure()


class BuildExt(build_ext):
    """build_ext, then ``compiled.json`` beside the extension modules: the sha256 of each
    source they were compiled from (engine/build.py loads them only while it matches)."""

    def run(self) -> None:
        super().run()
        if not self.extensions:
            return
        shared_lib = str(_build_constant("SHARED_LIB"))
        compiled = _compiled()
        lib = Path(self.get_ext_fullpath(f"trickref.engine.{shared_lib}"))
        built = [Path(self.get_ext_fullpath(f"trickref.engine.{m}")) for m in compiled]
        if not lib.exists() or not all(p.exists() for p in built):
            _say("the compiled engine was not built (see the compiler's messages above): "
                 "the pure-Python engine only")
            return
        hashes = {m: hashlib.sha256((PACKAGE / "engine" / f"{m}.py").read_bytes()).hexdigest() for m in compiled}
        (lib.parent / str(_build_constant("HASHES"))).write_text(json.dumps(hashes, indent=1) + "\n")


# The setuptools commands that build the package's files (pip and python -m build run setup.py
# with one of them: bdist_wheel, editable_wheel; metadata is egg_info or dist_info, the sdist is
# sdist). mypyc writes and checks the C sources when the extensions are declared, which takes
# minutes on a slow machine, so only these declare them.
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop", "bdist_egg"}


def _compiled() -> tuple[str, ...]:
    return tuple(_build_constant("COMPILED"))  # type: ignore[arg-type]


def _say(message: str) -> None:
    print(f"trickref setup: {message}", file=sys.stderr)


def ext_modules() -> list:
    """The engine's extension modules, generated by mypyc now (minutes on a slow machine)."""
    if _pure():
        _say("TRICKREF_PURE_PYTHON is set: the pure-Python engine only, nothing compiled")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as e:
        _say(f"mypyc is not available ({e}): the pure-Python engine only")
        return []
    opt_level = os.environ.get("TRICKREF_MYPYC_OPT", "3")
    if opt_level not in ("0", "1", "2", "3"):
        _say(f"TRICKREF_MYPYC_OPT={opt_level!r} is not 0, 1, 2 or 3: compiling at 3")
        opt_level = "3"
    elif opt_level != "3":
        _say(f"TRICKREF_MYPYC_OPT={opt_level}: the C compiled at -O{opt_level}, not the usual -O3")
    shared_lib = str(_build_constant("SHARED_LIB"))
    paths = [f"trickref/engine/{m}.py" for m in _compiled()]
    cwd = os.getcwd()
    os.chdir(ROOT)  # mypyc names the modules from paths relative to here
    try:
        exts = mypycify(paths, opt_level=opt_level, debug_level="0",
                        group_name="trickref.engine." + shared_lib.removesuffix("__mypyc"))
    except BaseException as e:  # a type error in the sources, a mypyc crash: never fail the install
        _say(f"mypyc could not compile the engine ({type(e).__name__}: {e}): the pure-Python engine only")
        return []
    finally:
        os.chdir(cwd)
    for ext in exts:
        ext.optional = True  # no C compiler or no headers: a warning, and the install goes on
    return exts


_check_layout()
setup(distclass=TrickrefDistribution, cmdclass={"build_ext": BuildExt},
      ext_modules=ext_modules() if BUILDS & set(sys.argv[1:]) else [])
