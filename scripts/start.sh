#!/usr/bin/env bash
# Install trickref into ./.venv (first run, or when pyproject.toml changed) and start it.
# On a laptop this is the kiosk in simulated mode (simulated dealer, on-screen seat panels,
# bots in empty seats); on a Pi whose configuration names a dealer port and GPIO pins, the
# same command drives the real table. Extra arguments go to `trickref` (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.trickref-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e .
    touch "$stamp"
fi
exec .venv/bin/trickref "$@"
