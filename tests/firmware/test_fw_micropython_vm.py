"""The firmware on a real MicroPython VM: MicroPython 1.27's WebAssembly port under Node.

tests/firmware/mp/run.mjs loads the npm package @micropython/micropython-webassembly-pyscript
(pinned in tests/firmware/mp/package.json and package-lock.json; scripts/test.sh runs
``npm ci`` there), copies firmware/*.py into the VM and runs the checks of
tests/firmware/mp/mpchecks.py: every golden frame through Parser.feed, main.Firmware dealing
whole hands of every game (52 and 104 cards, 2-11 seats) on a fake board, every NAK reason,
e-stop, dead-man, board faults and an exception in the loop, the tick counter across its
2**30 wrap, the heap after 60 deals, and firmware/board.py booting on an rp2-like ``machine``.

The same checks also run here on CPython, so a difference between the interpreters shows as a
test passing on one and failing on the other. The ``prefix_*`` checks run the three patterns
that crashed the firmware on MicroPython (issue 8) in the firmware's real path: on the VM each
one fails (which is what this file asserts), on CPython two of them pass silently, which is why
the suite needs the VM.

Without Node or the npm package the VM tests skip with the reason, except under CI (CI=true),
where they fail: CI must run the firmware on MicroPython.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
MP_DIR = ROOT / "tests" / "firmware" / "mp"
RUNNER = MP_DIR / "run.mjs"
PACKAGE = MP_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript" / "micropython.mjs"

N_FRAMES = len(json.loads((ROOT / "tests" / "golden_frames" / "frames.json").read_text()))
VM_CHECKS = ["golden", "deals", "naks", "loop_deal", "fetch_cycle", "fetch_under", "fetch_sweep", "feed_next", "steps", "misroute", "pocket_count", "ejection", "resumed_eject", "double_feed", "gate_debounce", "usb_stall", "estop", "deadman", "faults", "wrap", "heap", "rp2_board"]


def _vm_missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (apt-get install nodejs npm; scripts/test.sh does it as root)"
    if not PACKAGE.exists():
        return f"the MicroPython VM is not installed: run `npm ci` in {MP_DIR.relative_to(ROOT)}"
    return None


def run_vm(*checks: str) -> str:
    missing = _vm_missing()
    if missing is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the firmware on MicroPython, but {missing}")
        pytest.skip(missing)
    result = subprocess.run(["node", str(RUNNER), str(ROOT), "mpchecks", *checks],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, f"on MicroPython:\n{result.stdout}\n{result.stderr}"
    assert result.stdout.rstrip().endswith("DONE"), result.stdout
    return result.stdout


def result_line(out: str, name: str) -> str:
    lines = [ln for ln in out.splitlines() if ln.startswith(f"RESULT {name} ")]
    assert len(lines) == 1, out
    return lines[0]


@pytest.mark.parametrize("check", VM_CHECKS)
def test_check_passes_on_the_micropython_vm(check: str) -> None:
    out = run_vm(check)
    assert f"PASS {check}:" in out, out
    if check == "heap":
        figures = {ln.split()[1]: int(ln.split()[2]) for ln in out.splitlines() if ln.startswith("FIGURE")}
        assert figures["heap_after_60_deals_bytes"] > figures["heap_baseline_bytes"] > 0
        print(out)  # the figures, for firmware/README.md (pytest -s shows them)


def test_the_vm_is_micropython_1_27() -> None:
    out = run_vm("golden")
    assert f"{N_FRAMES} of {N_FRAMES}" in out
    version = subprocess.run(["node", "-e", "import('" + PACKAGE.as_uri() + "').then(async m => {"
                              "const mp = await m.loadMicroPython({stdout: s => console.log(s)});"
                              "mp.runPython('import sys; print(sys.implementation.name, sys.implementation.version[:2])');})"],
                             capture_output=True, text=True, timeout=60)
    assert version.stdout.strip() == "micropython (1, 27)", version


# ---- the three crashes of issue 8 would be caught ------------------------------------------------


def test_cobs_zero_check_of_before_the_fix_fails_every_golden_frame_on_the_vm() -> None:
    line = result_line(run_vm("prefix_cobs"), "prefix_cobs")
    assert line == f"RESULT prefix_cobs parsed=0 of={N_FRAMES} escaped=NotImplementedError"


def test_refused_of_before_the_fix_makes_a_nak_crash_the_loop_on_the_vm() -> None:
    line = result_line(run_vm("prefix_refused"), "prefix_refused")
    assert line == "RESULT prefix_refused loop_failed=True"


def test_soft_reset_does_not_exist_on_the_rp2_machine() -> None:
    line = result_line(run_vm("prefix_soft_reset"), "prefix_soft_reset")
    assert line == "RESULT prefix_soft_reset AttributeError module 'machine' has no attribute 'SOFT_RESET'"


# ---- the same checks on CPython --------------------------------------------------------------------


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(MP_DIR))
    import fake_machine
    import mpchecks

    monkeypatch.setitem(sys.modules, "machine", fake_machine)
    monkeypatch.setattr(mpchecks, "FRAMES_LOCAL", str(ROOT / "tests" / "golden_frames" / "frames.json"))
    return mpchecks


def _run_here(mod: Any, name: str) -> None:
    gen = mod.start(name)
    while isinstance(gen, types.GeneratorType) and mod.step(gen):
        gc.collect()


@pytest.mark.parametrize("check", [c for c in VM_CHECKS if c != "rp2_board"])  # board.py: test_fw_board.py
def test_check_passes_on_cpython(checks: Any, check: str, capsys: pytest.CaptureFixture[str]) -> None:
    _run_here(checks, check)
    assert f"PASS {check}:" in capsys.readouterr().out


def test_on_cpython_the_old_patterns_pass_silently(checks: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Why the VM is needed: CPython runs two of the three crashing patterns without error."""
    _run_here(checks, "prefix_cobs")
    _run_here(checks, "prefix_refused")
    out = capsys.readouterr().out
    assert f"RESULT prefix_cobs parsed={N_FRAMES} of={N_FRAMES} escaped=-" in out
    assert "RESULT prefix_refused loop_failed=False" in out
