#!/usr/bin/env bash
# Type-check firmware/ against the rp2 port's API: the MicroPython stubs for the Raspberry Pi
# Pico (PyPI micropython-rp2-rpi-pico-stubs, with micropython-stdlib-stubs as the standard
# library), so a name the rp2 port lacks (machine.SOFT_RESET, time.monotonic, an rp2.DMA
# method...) fails here, before it reboots a dealer. The firmware has no annotations: mypy
# checks the bodies (--check-untyped-defs) against the stubs. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
# the board stubs (machine, rp2, micropython, select...) into a folder of their own: mypy takes
# no site-packages on MYPYPATH; the stdlib stubs are a typeshed of their own
typeshed=$("$PY" - "$stubs" <<'PY'
import shutil, sys
from importlib import metadata
from pathlib import Path
dest = Path(sys.argv[1])
dist = metadata.distribution("micropython-rp2-rpi-pico-stubs")
files = list(dist.files or [])
std = metadata.distribution("micropython-stdlib-stubs")
files += [f for f in std.files or [] if f.parts[0] == "_mpy_shed"]
for f in files:
    if f.suffix == ".pyi":
        src = Path(f.locate())
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dest / f)
print(Path(std.locate_file("stdlib")).parent)
PY
)
# errors inside the stubs themselves are theirs: only firmware/ is judged
printf '[mypy]\nignore_errors = True\n[mypy-firmware.*]\nignore_errors = False\n' > "$stubs/mypy.ini"
MYPYPATH="$stubs" .venv/bin/mypy --config-file "$stubs/mypy.ini" --custom-typeshed-dir "$typeshed" \
    --no-site-packages --python-version 3.11 --check-untyped-defs \
    --no-strict-optional --disable-error-code var-annotated --disable-error-code assignment \
    --no-error-summary firmware
echo "firmware/: no name outside the rp2 port's API (micropython-rp2-rpi-pico-stubs)"
