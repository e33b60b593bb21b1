#!/usr/bin/env bash
# Install trickref with its test tools into ./.venv and run every check: ruff, mypy on
# engine/ and device/, and the whole pytest suite (headless: SDL's dummy video driver),
# with the firmware also run on MicroPython (Node + an npm package, installed below).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
# Reinstall only when pyproject.toml changed since the last install (or on the first run).
stamp=.venv/.trickref-test-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "== installing trickref and its test tools into .venv"
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[test]"
    touch "$stamp"
fi
# System packages (as root, only what is missing): Node + npm, Xvfb, Mosquitto, chromium.
bash scripts/system-deps.sh
# The MicroPython VM the firmware tests run on (tests/firmware/mp: the npm package
# @micropython/micropython-webassembly-pyscript, pinned by its package-lock.json).
if command -v npm >/dev/null 2>&1; then
    if [ ! -d tests/firmware/mp/node_modules ] || [ tests/firmware/mp/package-lock.json -nt tests/firmware/mp/node_modules ]; then
        (cd tests/firmware/mp && npm ci --no-audit --no-fund --loglevel=error >/dev/null) \
            || echo "warning: npm ci failed: the MicroPython firmware tests will be skipped (fail under CI=true)" >&2
    fi
else
    echo "warning: node/npm not found: the MicroPython firmware tests will be skipped (fail under CI=true)" >&2
fi
export SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy PYGAME_HIDE_SUPPORT_PROMPT=1
echo "== ruff"
.venv/bin/ruff check .
echo "== mypy (engine, device)"
.venv/bin/mypy
echo "== pytest"
.venv/bin/python -m pytest -n 2 -q "$@"
