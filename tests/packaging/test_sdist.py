"""The sdist builds, and installs everywhere it should: ``python -m build --sdist`` from this
checkout, then a fresh venv installs from that sdist twice (the engine compiled by mypyc, and
the pure-Python engine), and each runs ``trickref --version`` and a whole ``trickref sim`` game.
A checkout without symbolic links (git's default on Windows) refuses to build, saying why,
instead of quietly building a package without its engine.

Offline: the builds run without isolation on this venv's setuptools, mypy and build
(pyproject.toml's test extra), pip is given ``--no-index``, and the fresh venvs take the runtime
dependencies from this venv through PYTHONPATH; nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTER = [p for p in sys.path if p.endswith("site-packages")]
BUILD_TIMEOUT = 1200  # the compiled install runs mypyc and gcc: minutes on a loaded 2-core machine


PARTS = ("engine", "device", "ui", "firmware")
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "compiled.json", "node_modules", "*.egg-info")


def checkout_copy(where: Path, links: bool = True) -> Path:
    """What the build reads of this checkout, copied (a build writes beside its sources, and
    other tests build from the checkout at the same time); ``links=False``: trickref/engine etc.
    as git writes them where it makes no symbolic links, small files holding the link's target."""
    (where / "trickref").mkdir(parents=True)
    for name in ("setup.py", "pyproject.toml", "README.md", "MANIFEST.in"):
        shutil.copy(ROOT / name, where / name)
    for name in ("__init__.py", "__main__.py"):
        shutil.copy(ROOT / "trickref" / name, where / "trickref" / name)
    for part in PARTS:
        shutil.copytree(ROOT / part, where / part, ignore=LEFT_OUT)
        if links:
            (where / "trickref" / part).symlink_to(Path("..") / part)
        else:
            (where / "trickref" / part).write_text(f"../{part}")
    return where


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    tree = checkout_copy(tmp_path_factory.mktemp("checkout") / "trickref")
    r = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out), str(tree)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "mypyc" not in r.stdout + r.stderr  # the sdist compiles nothing
    (path,) = out.glob("trickref-*.tar.gz")
    return path


def test_the_sdist_holds_real_folders_and_no_compiled_engine(sdist: Path) -> None:
    with tarfile.open(sdist) as t:
        members = {m.name.split("/", 1)[1]: m for m in t.getmembers() if "/" in m.name}
    for part in ("setup.py", "pyproject.toml", "README.md", "trickref/engine/build.py", "trickref/engine/games.py",
                 "trickref/device/table/host.py", "trickref/ui/cli.py", "trickref/firmware/main.py",
                 "trickref/ui/locale/fr/LC_MESSAGES/trickref.po", "trickref/device/club/web/app.js"):
        assert part in members, part
    assert not any(m.issym() or m.islnk() for m in members.values())
    assert not [n for n in members if n.endswith((".so", ".pyd", "compiled.json"))]


def install(sdist: Path, where: Path, pure: bool) -> tuple[Path, dict[str, str]]:
    """A fresh venv with trickref installed from ``sdist`` by pip (no index, no isolation)."""
    venv.EnvBuilder(with_pip=False).create(where)
    py = where / "bin" / "python"
    # pip, setuptools, mypy (and the runtime dependencies) come from this test run's venv
    env = {"PATH": f"{where / 'bin'}:{os.environ.get('PATH', '')}", "PYTHONPATH": ":".join(OUTER),
           "HOME": str(where.parent), "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
    build_env = {**env, "TRICKREF_PURE_PYTHON": "1" if pure else "0"}
    r = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-build-isolation", str(sdist)],
                       capture_output=True, text=True, env=build_env, timeout=BUILD_TIMEOUT, cwd=where.parent)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return py, env


@pytest.mark.timeout(BUILD_TIMEOUT + 900)  # the install (mypyc, gcc) and a whole game, on a loaded machine
@pytest.mark.parametrize("build", ["compiled", "pure"])
def test_a_fresh_venv_installs_from_the_sdist_and_plays_a_whole_game(sdist: Path, tmp_path: Path, build: str) -> None:
    py, env = install(sdist, tmp_path / "venv", pure=build == "pure")
    trickref = str(tmp_path / "venv" / "bin" / "trickref")
    v = subprocess.run([trickref, "--version"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert v.returncode == 0, v.stderr
    assert v.stdout.startswith("trickref 0.") and ("engine compiled" if build == "compiled" else "engine pure Python") in v.stdout, v.stdout
    where = subprocess.run([str(py), "-c", "import trickref.engine.games as g; print(g.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, check=True).stdout
    assert str(tmp_path / "venv") in where and str(ROOT) not in where  # the installed copy ran
    game = subprocess.run([trickref, "sim", "--game", "hearts", "--players", "4", "--seed", "2", "--to-end",
                           "--option", "target=50", "--records", str(tmp_path / "games")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert game.returncode == 0, game.stderr[-2000:]
    assert "winner:" in game.stdout and "record:" in game.stdout, game.stdout[-1000:]


def test_a_checkout_without_symbolic_links_refuses_to_build_saying_why(tmp_path: Path) -> None:
    """What ``git -c core.symlinks=false clone`` leaves: trickref/engine etc. as small text files."""
    tree = checkout_copy(tmp_path / "checkout", links=False)
    env = {**os.environ, "TRICKREF_PURE_PYTHON": "1", "PIP_NO_INDEX": "1"}
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                        str(tmp_path / "out"), str(tree)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode != 0 and not list((tmp_path / "out").glob("*.whl"))
    said = r.stdout + r.stderr
    assert "trickref/engine is a plain file holding '../engine', not a link to ../engine" in said, said[-3000:]
    assert "checkout was made without symbolic links" in said and "core.symlinks=true" in said
