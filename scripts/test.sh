#!/usr/bin/env bash
# Install trickref with its test tools into ./.venv and run every check: ruff, mypy on
# engine/ and device/, and the whole pytest suite (headless: SDL's dummy video driver),
# with the firmware also run on MicroPython (Node + an npm package, installed below).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
# say what each long step is doing, and every 30 s that it still is (an install is minutes)
. scripts/progress.sh
if [ ! -x .venv/bin/python ]; then
    echo "== creating .venv with $PYTHON"
    "$PYTHON" -m venv .venv
fi
# System packages (as root, only what is missing): a C compiler and the Python headers (the
# install compiles the engine with mypyc, setup.py), Node + npm, Xvfb, Mosquitto, chromium.
echo "== system packages: checking (apt-get installs only what is missing)"
bash scripts/system-deps.sh
# Reinstall only when pyproject.toml or setup.py changed since the last install (or on the first run).
stamp=.venv/.trickref-test-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ]; then
    echo "== installing trickref and its test tools into .venv"
    progress "upgrading pip" .venv/bin/python -m pip install --quiet --upgrade pip
    progress "installing the packages and compiling the rules engine to C with mypyc" \
        .venv/bin/python -m pip install --quiet -e ".[test]"
    touch "$stamp"
fi
# The compiled engine (engine/build.py) runs only while it matches its sources: compile it again
# when an engine module was edited since (mypyc from the venv, no download).
engine_build() { .venv/bin/python -c 'from trickref.engine.build import describe; print(describe())'; }
if [ "${TRICKREF_PURE_PYTHON:-0}" = "0" ] && engine_build | grep -q "do not match their sources"; then
    echo "== engine sources changed since the last build: compiling the engine again"
    progress "compiling the rules engine to C with mypyc" \
        .venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
fi
echo "== engine: $(engine_build)"
if [ "${CI:-}" = "true" ] && [ "${TRICKREF_PURE_PYTHON:-0}" = "0" ] && ! engine_build | grep -q "^compiled"; then
    echo "CI: the engine did not compile (see the install's messages); TRICKREF_PURE_PYTHON=1 tests the pure-Python build alone" >&2
    exit 1
fi
# The MicroPython VM the firmware tests run on (tests/firmware/mp: the npm package
# @micropython/micropython-webassembly-pyscript, pinned by its package-lock.json).
if command -v npm >/dev/null 2>&1; then
    if [ ! -d tests/firmware/mp/node_modules ] || [ tests/firmware/mp/package-lock.json -nt tests/firmware/mp/node_modules ]; then
        echo "== installing the MicroPython VM for the firmware tests (npm ci)"
        (cd tests/firmware/mp && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
            || echo "warning: npm ci failed: the MicroPython firmware tests will be skipped (fail under CI=true)" >&2
    fi
else
    echo "warning: node/npm not found: the MicroPython firmware tests will be skipped (fail under CI=true)" >&2
fi
# The 32-bit MicroPython VM of the Pico-heap tests (Debian's i386 unix port, unpacked into
# .venv/micropython32 by scripts/micropython32.sh; nothing installed into the system).
bash scripts/micropython32.sh >/dev/null \
    || echo "warning: no 32-bit MicroPython VM: the Pico-heap tests will be skipped (fail under CI=true)" >&2
export SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy PYGAME_HIDE_SUPPORT_PROMPT=1
echo "== ruff"
.venv/bin/ruff check .
echo "== mypy (engine, device)"
.venv/bin/mypy
echo "== firmware against the rp2 port's API (micropython-rp2-rpi-pico-stubs)"
bash scripts/check_firmware_types.sh
echo "== pytest"
.venv/bin/python -m pytest -n 2 -q "$@"
# The other build: the whole suite above ran the compiled engine; the engine's own tests (the
# golden records, the properties, the fast paths) run again on the pure-Python one, its
# reference and fallback. Only on a full run (no arguments).
if [ $# -eq 0 ] && engine_build | grep -q "^compiled"; then
    echo "== pytest tests/engine on the pure-Python engine (TRICKREF_PURE_PYTHON=1)"
    TRICKREF_PURE_PYTHON=1 .venv/bin/python -m pytest -n 2 -q tests/engine
fi
