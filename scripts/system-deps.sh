#!/usr/bin/env bash
# System packages the tests need and pip cannot bring: a C compiler and the Python headers (the
# compiled engine), Node.js + npm (the MicroPython VM the
# firmware runs on, tests/firmware/mp), Xvfb + libX11 (the kiosk in a real X window), the
# Mosquitto MQTT broker (club night, device/club) and Debian's chromium (the standings page's
# browser test; TRICKREF_BROWSER=0 leaves it out).
# As root: 'apt-get update' once, then 'apt-get install -y' only what is missing. Not root:
# say what is missing and carry on (those tests skip, saying why).
set -euo pipefail
want=(xvfb libx11-6 mosquitto mosquitto-clients openssl)
# The install compiles the rules engine (setup.py, mypyc): a C compiler and the headers of the
# Python that runs the install (Debian's python3-dev for Debian's python3; a Python built
# elsewhere, e.g. pyenv, brings its own). Without them the engine runs as pure Python.
if ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
    want+=(build-essential)
fi
if ! "${PYTHON:-python3}" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null; then
    want+=(python3-dev)
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    want+=(nodejs npm)
fi
if [ "${TRICKREF_BROWSER:-1}" != "0" ]; then
    want+=(chromium)
fi
missing=()
# (each command's output is taken whole before it is searched: with pipefail, 'cmd | grep -q'
# fails when grep stops at its first match and cmd, still writing, dies of SIGPIPE; apt-cache
# policy does, and every package was then called missing from apt)
for p in "${want[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    if [[ "$status" != *"install ok installed"* ]]; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "system-deps: not root, not installing: ${missing[*]} (the tests that need them skip)" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "system-deps: no apt-get here, not installing: ${missing[*]}" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Only what this system's apt has: a name it does not know (Ubuntu has no 'chromium' package,
# its browser is a snap) would stop the whole install; it is said and left out instead, and the
# tests that need it skip (TRICKREF_BROWSER=0 leaves the browser out without asking apt).
have=()
for p in "${missing[@]}"; do
    policy=$(LC_ALL=C apt-cache policy "$p" 2>/dev/null || true)
    if grep -q 'Candidate: [^(]' <<<"$policy"; then
        have+=("$p")
    else
        echo "system-deps: apt has no package '$p' here, not installing it (the tests that need it skip)" >&2
    fi
done
if [ ${#have[@]} -eq 0 ]; then
    exit 0
fi
echo "system-deps: installing ${have[*]}"
apt-get install -y -qq --no-install-recommends "${have[@]}" >/dev/null
# Debian starts a system-wide mosquitto on port 1883 when it is installed under systemd; the
# tests start their own on free ports and never use it.
