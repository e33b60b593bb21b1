#!/usr/bin/env bash
# Install trickref with its test tools into ./.venv and run every check: ruff, mypy on
# engine/ and device/, and the whole pytest suite (headless: SDL's dummy video driver).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]"
export SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy PYGAME_HIDE_SUPPORT_PROMPT=1
echo "== ruff"
.venv/bin/ruff check .
echo "== mypy (engine, device)"
.venv/bin/mypy
echo "== pytest"
.venv/bin/python -m pytest -n 2 -q "$@"
