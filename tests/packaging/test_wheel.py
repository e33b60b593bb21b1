"""`pip install .` puts one package at the top of site-packages, `trickref`, and the command
runs from it: the wheel is built from this checkout and installed into a fresh venv."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # no build isolation: the build uses this venv's setuptools, no download. The layout is what
    # is tested here, not the compiled engine (setup.py; mypyc takes minutes on a busy machine):
    # TRICKREF_PURE_PYTHON=1 builds the wheel without it.
    env = {**os.environ, "TRICKREF_PURE_PYTHON": "1"}
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(out), str(ROOT)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    (whl,) = out.glob("trickref-*.whl")
    return whl


def test_the_wheel_holds_only_the_trickref_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"trickref", next(t for t in tops if t.endswith(".dist-info"))}
    for part in ("engine/games.py", "device/table/host.py", "device/dealer/driver.py", "ui/cli.py",
                 "firmware/main.py", "ui/help/en/hearts.md", "device/default_config.toml",
                 "device/verify_web/verify.html"):
        assert f"trickref/{part}" in names, part


def test_installed_into_a_fresh_venv_only_trickref_lands_and_the_command_runs(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    before = {p.name for p in site.iterdir()}
    # the runtime dependencies come from this test run's own environment (no download):
    # the wheel alone is installed, and must add nothing but trickref at the top
    r = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "-q", str(wheel)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    added = {p.name for p in site.iterdir()} - before
    assert {a for a in added if not a.endswith(".dist-info")} == {"trickref"}, added
    outer = [p for p in sys.path if p.endswith("site-packages")]
    env = {"PATH": str(env_dir / "bin"), "PYTHONPATH": ":".join(outer), "HOME": str(tmp_path)}
    help_ = subprocess.run([str(env_dir / "bin" / "trickref"), "--help"], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=120)
    assert help_.returncode == 0, help_.stderr
    assert "replay" in help_.stdout and "kiosk" in help_.stdout
    # the package's data comes from the installed copy: the commented default configuration
    cfg = subprocess.run([str(py), "-c", "from trickref.device.config import default_toml; print(default_toml()[:200])"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert cfg.returncode == 0 and "trickref appliance configuration" in cfg.stdout, cfg.stderr
    # and it is the installed copy that ran, not this checkout
    where = subprocess.run([str(py), "-c", "import trickref.engine.games as g; print(g.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, check=True).stdout
    assert str(site) in where and str(ROOT) not in where
