"""What every test folder shares: the skip policy under CI, and a disk that fills up.

**No silent skips under CI.** A test skips when a real part it needs is missing here: Debian's
chromium or Playwright (the club page), mpy-cross or the MicroPython VM (the firmware), Xvfb,
Mosquitto, openssl, a game module that does not import (engine_helpers.load_class), a way to
mount a real full disk. On a developer's laptop that is a skip with its reason (``-ra`` lists
them); with ``CI=true`` every such skip is a failure, since CI installs all of them
(scripts/system-deps.sh, pyproject.toml, tests/firmware/mp). The only skips CI allows are the
ones marked ``skip_ok``: a test of the other engine build (it runs in that build's pass of
scripts/test.sh) and a test that needs a machine without a screen.

**A full disk** (``full_disk``): a folder whose disk the test fills and frees again. Where this
process may mount (root: CI, and the developers' machines) it is a real 1 MiB tmpfs mounted on
the folder, so the kernel answers the journal's write with ENOSPC; elsewhere the same folder
with ENOSPC injected at the journal's raw write (``device.journal.Journal._write``), and
``real`` says which.

**A benchmark script as a module** (``bench_module``): ``bench_module("bots")`` loads
benchmarks/bots.py (benchmarks/ is no package), a fresh module on every call, so a test that
patches one never leaks into another.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from benchkit import load_bench

CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture
def bench_module() -> Callable[[str], ModuleType]:
    """``bench_module("world_draws")``: benchmarks/world_draws.py as a module (``load_bench``)."""
    return load_bench


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "skip_ok(why): a skip that is no missing real part (allowed under CI=true; say why)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if CI and report.skipped and not hasattr(report, "wasxfail") and item.get_closest_marker("skip_ok") is None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = (f"CI=true: this test skipped, and under CI a skip is a failure (a real part is "
                           f"missing or broken; mark it skip_ok only if it is not): {reason}")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """A whole module skipped at import (``pytest.skip(allow_module_level=True)``): the same rule."""
    if CI and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"CI=true: this module skipped, and under CI a skip is a failure: {reason}"


class Disk:
    """A folder on a small disk: ``fill`` takes its last byte, ``free`` gives the room back."""

    def __init__(self, path: Path, real: bool, monkeypatch: pytest.MonkeyPatch) -> None:
        self.path = path
        self.real = real
        self.full = False
        self._filler = path / ".filler"
        if not real:
            from trickref.device.journal import Journal

            original = Journal._write

            def write(journal: Journal, fd: int, data: bytes) -> None:
                if self.full:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                original(journal, fd, data)

            monkeypatch.setattr(Journal, "_write", write)

    def fill(self) -> None:
        self.full = True
        if not self.real:
            return
        with open(self._filler, "ab", buffering=0) as f:
            for chunk in (65536, 4096, 512, 1):
                try:
                    while True:
                        f.write(b"\0" * chunk)
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise

    def free(self) -> None:
        self.full = False
        self._filler.unlink(missing_ok=True)


def _mount_tmpfs(path: Path, size: str) -> bool:
    if os.geteuid() != 0:
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
                       capture_output=True, text=True)
    return r.returncode == 0


@pytest.fixture
def full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Disk]:
    path = tmp_path / "disk"
    path.mkdir()
    real = _mount_tmpfs(path, "1m")
    try:
        yield Disk(path, real, monkeypatch)
    finally:
        if real:
            if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", str(path)], capture_output=True)
