"""scripts/pi-mounts.sh (the arm64 root's mounts for scripts/pi-emulated.sh) takes /proc, /sys
and /dev of the root down however the script ends: its end, an error, Ctrl+C (INT), a kill
(TERM). Run without a root: the script's own functions under bash, with stand-in mount, umount
and mountpoint commands that write what they were asked to a log, and a long "chroot command"
(a sleep) that the signal must stop at once rather than when it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MOUNTS = ROOT / "scripts" / "pi-mounts.sh"

DRIVER = r"""
set -euo pipefail
ROOT=$1
source "$MOUNTS"
pi_traps
pi_mount /proc /proc
pi_mount /sys /sys
pi_mount /dev /dev
case $2 in
    wait) pi_run bash -c 'echo "child $$"; exec sleep 120' ;;
    end) echo "child none" ;;
    fail) echo "child none"; false ;;
esac
echo "after"
"""


def _fake_bin(tmp: Path, log: Path) -> Path:
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for name, rc in (("mount", 0), ("umount", 0), ("mountpoint", 1)):  # nothing mounted yet
        p = bin_dir / name
        p.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\nexit {rc}\n')
        p.chmod(0o755)
    return bin_dir


def _run(tmp_path: Path, how: str) -> tuple[subprocess.Popen[str], Path, Path, int | None]:
    log = tmp_path / "calls.log"
    root = tmp_path / "root"
    env = dict(os.environ, PATH=f"{_fake_bin(tmp_path, log)}:{os.environ['PATH']}", MOUNTS=str(MOUNTS))
    proc = subprocess.Popen(["bash", "-c", DRIVER, "driver", str(root), how], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    child = int(line[1]) if len(line) == 2 and line[1] != "none" else None
    return proc, log, root, child


def _unmounts(log: Path, root: Path) -> list[str]:
    calls = log.read_text().splitlines()
    assert f"mount --rbind /proc {root}/proc" in calls and f"mount --rbind /dev {root}/dev" in calls, calls
    return [c.split()[-1] for c in calls if c.startswith("umount")]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_root_command_and_unmounts(tmp_path: Path, sig: signal.Signals) -> None:
    proc, log, root, child = _run(tmp_path, "wait")
    assert child is not None
    os.kill(proc.pid, sig)  # the script only, as `kill PID` or a Ctrl+C reaching it would
    try:
        out, err = proc.communicate(timeout=60)  # a guard: the sleep alone lasts 120 s
    finally:
        proc.kill()
    assert proc.returncode == -sig, (proc.returncode, out, err)
    assert "after" not in out
    assert f"stopped (SIG{sig.name[3:]})" in err
    assert _unmounts(log, root) == [f"{root}/dev", f"{root}/sys", f"{root}/proc"]  # newest first
    for _ in range(100):  # the long command is gone, not left holding the mounts
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the command in the root (pid {child}) still runs")


@pytest.mark.parametrize("how, rc", [("end", 0), ("fail", 1)])
def test_the_end_or_an_error_unmounts(tmp_path: Path, how: str, rc: int) -> None:
    proc, log, root, _ = _run(tmp_path, how)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == rc, (out, err)
    assert _unmounts(log, root) == [f"{root}/dev", f"{root}/sys", f"{root}/proc"]


def test_pi_emulated_uses_the_mounts_and_runs_chroot_through_pi_run() -> None:
    text = (ROOT / "scripts" / "pi-emulated.sh").read_text()
    assert 'source "$project/scripts/pi-mounts.sh"' in text and "pi_traps" in text
    assert "pi_run chroot" in text and "\n    chroot " not in text
    assert all(f"pi_mount /{d} /{d}" in text for d in ("proc", "sys", "dev"))
    subprocess.run(["bash", "-n", str(ROOT / "scripts" / "pi-emulated.sh")], check=True)
