#!/usr/bin/env bash
# Install trickref into ./.venv (first run, or when pyproject.toml changed) and start it.
# On a laptop this is the kiosk in simulated mode (simulated dealer, on-screen seat panels,
# bots in empty seats); on a Pi whose configuration names a dealer port and GPIO pins, the
# same command drives the real table. Extra arguments go to `trickref` (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
stamp=.venv/.trickref-installed
# say what each long step is doing, and every 30 s that it still is (an install is minutes)
. scripts/progress.sh
if [ ! -x .venv/bin/python ]; then
    echo "[1/3] Creating .venv with $PYTHON..."
    "$PYTHON" -m venv .venv
fi
if [ ! -f "$stamp" ]; then
    echo "Installing trickref into .venv (first run: a few minutes, longer on a busy or small machine)."
elif [ pyproject.toml -nt "$stamp" ]; then
    echo "Updating trickref in .venv (pyproject.toml changed: a few minutes)."
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    progress "[2/3] upgrading pip" .venv/bin/python -m pip install --quiet --upgrade pip
    progress "[3/3] installing pygame-ce, pyserial, gpiozero and trickref; compiling the rules engine to C with mypyc" \
        .venv/bin/python -m pip install --quiet -e .
    touch "$stamp"
    echo "Installed."
fi
if [ $# -eq 0 ] || [ "$1" = "kiosk" ]; then
    echo "Starting the kiosk. To quit: close its window, or press Ctrl+C in this terminal."
fi
exec .venv/bin/trickref "$@"
