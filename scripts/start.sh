#!/usr/bin/env bash
# Install trickref into ./.venv (first run, or when pyproject.toml changed) and start it.
# On a laptop this is the kiosk in simulated mode (simulated dealer, on-screen seat panels,
# bots in empty seats); on a Pi whose configuration names a dealer port and GPIO pins, the
# same command drives the real table. Extra arguments go to `trickref` (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
stamp=.venv/.trickref-installed
if [ ! -x .venv/bin/python ]; then
    echo "Creating .venv with $PYTHON..."
    "$PYTHON" -m venv .venv
fi
if [ ! -f "$stamp" ]; then
    echo "Installing trickref into .venv (first run, about a minute)..."
elif [ pyproject.toml -nt "$stamp" ]; then
    echo "Updating trickref in .venv (pyproject.toml changed, about a minute)..."
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e .
    touch "$stamp"
    echo "Installed."
fi
if [ $# -eq 0 ] || [ "$1" = "kiosk" ]; then
    echo "Starting the kiosk. To quit: close its window, or press Ctrl+C in this terminal."
fi
exec .venv/bin/trickref "$@"
