#!/usr/bin/env bash
# trickref on the Raspberry Pi's own OS and CPU, emulated (not in CI: it takes an hour or more).
#
#     sudo bash scripts/pi-emulated.sh [STAGE ...]
#         (PI_NICE=5, PI_ROOT=..., PI_OUT=..., PI_OPT_LEVEL=1, PI_REINSTALL=1, PI_ROUNDS=10)
#
# Ctrl+C or a kill stops what runs in the root and unmounts its /proc, /sys and /dev
# (scripts/pi-mounts.sh) before the script ends.
#
# Raspberry Pi OS Bookworm is Debian 12 (Python 3.11.2) on aarch64. This script builds an arm64
# Debian bookworm root with mmdebstrap (its python3 and everything else run under qemu-user
# emulation through binfmt_misc), copies this checkout into it and, inside it:
#   install   installs trickref with the README's own command (`bash scripts/start.sh`, here with
#             `--version` so that it installs and says which engine build it got instead of
#             starting the kiosk): the engine compiled by mypyc for aarch64, the aarch64 wheels
#             of pygame-ce and the rest from PyPI
#   tests     the engine's tests (tests/engine) with pytest
#   games     one `trickref sim` game of every game, to the end
#   kiosk     a kiosk screenshot (SDL's offscreen driver; a 4-player Hearts trick, both sizes),
#             copied out
#   bot       a strong bot's decision timed there and on this machine, in alternating rounds
#             (benchmarks/pi_decision.py): under qemu emulation on this machine's CPU, not on a Pi
# With no STAGE it runs all of them. Every stage's output goes to $PI_OUT (default
# benchmarks/results/pi-emulated/), with the machine's load at its start and end and its time;
# summary.txt collects one line per stage.
#
# Needs root (apt-get, mmdebstrap, chroot, mount). The root is kept in $PI_ROOT (default
# /var/tmp/trickref-pi-root) and reused: delete it to start over. A finished install in it is
# reused too (PI_REINSTALL=1 redoes it), so a run stopped later resumes at its stage:
# `pi-emulated.sh tests games kiosk bot`. The apt mirror is this
# machine's own (its /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list).
# Raspberry Pi OS adds its own archive (archive.raspberrypi.com: its kernel, firmware,
# python3-lgpio); it is not used here, so the GPIO binding is not tried.
set -euo pipefail
cd "${PI_PROJECT:-$(dirname "$0")/..}"
project=$(pwd)
ROOT=${PI_ROOT:-/var/tmp/trickref-pi-root}
OUT=${PI_OUT:-$project/benchmarks/results/pi-emulated}
GAMES=${PI_GAMES:-"hearts:4 cancellation-hearts:6 spades-2p:2 german-whist:2 partnership-spades:4"}
ROUNDS=${PI_ROUNDS:-10}
# The C compiler's optimisation level for the engine (setup.py's TRICKREF_MYPYC_OPT): 3, like
# every install, unless PI_OPT_LEVEL says otherwise. gcc itself runs under emulation here and
# mypyc's one C file of ~5 MB at -O3 takes it an hour or more on a loaded 2-core machine; a
# lower level checks the same thing (mypyc's C compiles and runs on aarch64) sooner, but the
# compiled engine is then slower than a real install's: the summary says which level was used.
OPT=${PI_OPT_LEVEL:-3}
SHOTS=${PI_SHOTS:-play-hearts-4}  # the kiosk scenarios to render (trickref screenshots --only)
stages=("$@")
if [ ${#stages[@]} -eq 0 ]; then
    stages=(install tests games kiosk bot)
fi
mkdir -p "$OUT"
summary=$OUT/summary.txt

say() { printf '\n== %s\n' "$*"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
note() { printf '%s\n' "$*" | tee -a "$summary"; }

# Everything below runs at $PI_NICE (default 10; the emulated programs inherit it). On a machine
# whose other work keeps both cores busy, nice 10 gets almost nothing: PI_NICE=5 there.
renice -n "${PI_NICE:-10}" -p $$ >/dev/null

if [ "$(id -u)" != "0" ]; then
    echo "pi-emulated: run as root (apt-get, mmdebstrap, chroot and mount need it)" >&2
    exit 1
fi

say "host tools: qemu-user-static, mmdebstrap, binfmt-support"
need=()
for p in qemu-user-static mmdebstrap binfmt-support arch-test; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
fi
# binfmt_misc: the kernel hands aarch64 programs to qemu-aarch64-static (a container may not
# have it mounted; the F flag opens the interpreter now, so it works inside the chroot too)
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
if ! arch-test arm64 >/dev/null 2>&1; then
    echo "pi-emulated: this machine cannot run arm64 programs (binfmt_misc + qemu-aarch64): $(arch-test arm64 2>&1)" >&2
    exit 1
fi

if [ ! -f "$ROOT/.trickref-root-done" ]; then
    say "building the arm64 bookworm root in $ROOT (mmdebstrap; load $(load))"
    rm -rf "$ROOT"
    sources=/etc/apt/sources.list.d/debian.sources
    [ -f "$sources" ] || sources=/etc/apt/sources.list
    t0=$(date +%s)
    # python3 (3.11.2), venv, the headers and gcc for the engine's mypyc compile (the README
    # install path on a Pi: hardware/pi/setup.sh installs python3-venv python3-dev), git for
    # nothing but parity, ca-certificates for pip's https
    mmdebstrap --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,python3-dev,gcc,libc6-dev,ca-certificates \
        bookworm "$ROOT" "$sources" > "$OUT/root.log" 2>&1 \
        || { tail -20 "$OUT/root.log" >&2; echo "pi-emulated: mmdebstrap failed (log: $OUT/root.log)" >&2; exit 1; }
    t1=$(date +%s)
    touch "$ROOT/.trickref-root-done"
    note "root: mmdebstrap arm64 bookworm minbase in $((t1 - t0)) s (load at end $(load))"
fi

# /proc, /dev, /sys and DNS inside the root for the stages, taken down again however the script
# ends: its end, an error, Ctrl+C or a kill (scripts/pi-mounts.sh; the chroot commands run
# through pi_run, so a signal is handled at once)
# shellcheck source=scripts/pi-mounts.sh
source "$project/scripts/pi-mounts.sh"
pi_traps
pi_mount /proc /proc
pi_mount /sys /sys
pi_mount /dev /dev
# The network as this machine has it, so that pip and apt in the root reach the registries
# this machine reaches: its resolver, its hosts file (a sandbox may send the registries through
# an address of its own) and its trust store (with any CA it added, e.g. such a proxy's).
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp -L /etc/hosts "$ROOT/etc/hosts"
cp -L /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"

# The aarch64 wheels the install needs (the project's dependencies, the build's setuptools,
# wheel and mypy, the engine tests' pytest and hypothesis, pip itself), fetched here by pip
# from the same registries and handed to the root's pip as a local wheel folder: pip under
# emulation fetches slowly enough that long downloads were cut off mid-file. The root's pip
# still resolves and installs everything itself, with the README's command.
wheels=$ROOT/var/cache/trickref-wheels
say "aarch64 wheels for the root's pip ($wheels)"
mkdir -p "$wheels"
deps=$(python3 -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); print("\n".join(p["project"]["dependencies"] + p["build-system"]["requires"]))')
# shellcheck disable=SC2086
printf '%s\n' "$deps" pip pytest hypothesis pytest-timeout > "$OUT/wheels.txt"
python3 -m pip download --quiet --dest "$wheels" --only-binary=:all: --python-version 3.11 \
    --implementation cp --abi cp311 --abi abi3 --abi none \
    --platform manylinux2014_aarch64 --platform manylinux_2_17_aarch64 --platform manylinux_2_28_aarch64 \
    --platform any -r "$OUT/wheels.txt" > "$OUT/wheels.log" 2>&1 \
    || { tail -20 "$OUT/wheels.log" >&2; echo "pi-emulated: could not fetch the aarch64 wheels (log: $OUT/wheels.log)" >&2; exit 1; }
note "wheels: $(find "$wheels" -name '*.whl' | wc -l) aarch64/pure wheels for the root's pip"

inside() {  # a command in the root, as its own login-less shell, from the project folder
    pi_run chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin \
        LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DEFAULT_TIMEOUT=180 \
        PIP_FIND_LINKS=/var/cache/trickref-wheels PIP_NO_INDEX=1 TRICKREF_MYPYC_OPT="$OPT" SDL_VIDEODRIVER=offscreen SDL_AUDIODRIVER=dummy PYGAME_HIDE_SUPPORT_PROMPT=1 \
        /bin/bash -c "cd /home/pi/trickref && $1"
}

if [ "${PI_NO_COPY:-0}" = "0" ]; then  # PI_NO_COPY=1: another run is using the copy
    say "copying this checkout into $ROOT/home/pi/trickref (committed and uncommitted files, no .venv)"
    mkdir -p "$ROOT/home/pi/trickref"
    # the files git knows or would add, as they are in the work tree (links kept as links)
    (cd "$project" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) \
        | tar -xf - -C "$ROOT/home/pi/trickref"
fi
note "host: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); root: $(inside 'uname -m; python3 --version' | tr '\n' ' ')"

for stage in "${stages[@]}"; do
    case "$stage" in
    install)
        if [ "${PI_REINSTALL:-0}" = "0" ] && inside '[ -f .venv/.trickref-installed ]'; then
            # an earlier run finished the install: reuse it (PI_REINSTALL=1 starts it over)
            note "install: reused the root's finished install (PI_REINSTALL=1 redoes it); engine: $(inside '.venv/bin/python -c "from trickref.engine.build import describe; print(describe())"' 2>&1 | tail -1)"
            continue
        fi
        say "install: bash scripts/start.sh --version (README), in the root, C at -O$OPT (load $(load))"
        # an unfinished earlier try leaves a venv whose pip is upgraded; start.sh goes on from it
        [ "${PI_REINSTALL:-0}" = "0" ] || inside 'rm -rf .venv'
        t0=$(date +%s)
        set +e
        inside 'bash scripts/start.sh --version' > "$OUT/install.log" 2>&1
        rc=$?
        set -e
        t1=$(date +%s)
        tail -3 "$OUT/install.log"
        version=$(tail -1 "$OUT/install.log")
        engine=$(inside '.venv/bin/python -c "from trickref.engine.build import describe; print(describe())"' 2>&1 | tail -1)
        note "install: exit $rc in $((t1 - t0)) s (load $(load)), C compiled at -O$OPT; $version; engine: $engine"
        ;;
    tests)
        say "tests: pytest tests/engine in the root (load $(load))"
        inside '.venv/bin/python -m pip install --quiet pytest hypothesis pytest-timeout' > "$OUT/tests-install.log" 2>&1
        t0=$(date +%s)
        set +e
        inside '.venv/bin/python -m pytest -q -p no:cacheprovider --timeout=3600 tests/engine' > "$OUT/tests.log" 2>&1
        rc=$?
        set -e
        t1=$(date +%s)
        tail -15 "$OUT/tests.log"
        note "tests: tests/engine exit $rc in $((t1 - t0)) s (load $(load)): $(grep -E '^[0-9]+ (passed|failed)|(passed|failed).* in ' "$OUT/tests.log" | tail -1)"
        ;;
    games)
        for gp in $GAMES; do
            g=${gp%%:*} n=${gp##*:}
            say "games: trickref sim --game $g --players $n --seed 1 --to-end (load $(load))"
            t0=$(date +%s)
            set +e
            inside "mkdir -p /tmp/records && .venv/bin/trickref sim --game $g --players $n --seed 1 --to-end --records /tmp/records" > "$OUT/sim-$g.log" 2>&1
            rc=$?
            set -e
            t1=$(date +%s)
            tail -4 "$OUT/sim-$g.log"
            note "games: $g ($n players) exit $rc in $((t1 - t0)) s (load $(load)): $(grep -i -m1 'wins\|winner' "$OUT/sim-$g.log" || tail -1 "$OUT/sim-$g.log")"
        done
        ;;
    kiosk)
        say "kiosk: trickref screenshots --only $SHOTS (SDL offscreen), English (load $(load))"
        t0=$(date +%s)
        set +e
        inside "rm -rf /tmp/shots && .venv/bin/trickref screenshots /tmp/shots --language en --only $SHOTS" > "$OUT/kiosk.log" 2>&1
        rc=$?
        set -e
        t1=$(date +%s)
        tail -3 "$OUT/kiosk.log"
        rm -rf "$OUT/shots" && mkdir -p "$OUT/shots"
        cp -r "$ROOT/tmp/shots/." "$OUT/shots/" 2>/dev/null || true
        note "kiosk: screenshots exit $rc in $((t1 - t0)) s (load $(load)): $(find "$OUT/shots" -name '*.png' | wc -l) PNG files in $OUT/shots"
        ;;
    bot)
        say "bot: a strong bot's decision, $ROUNDS alternating rounds here and emulated (load $(load))"
        [ -x .venv/bin/python ] || { echo "pi-emulated: the bot stage needs this checkout's .venv (bash scripts/test.sh makes it)" >&2; exit 1; }
        # the root's install when it has one; else the engine straight from the copied checkout
        # (it needs only the standard library): the pure-Python engine, so this machine runs
        # its pure-Python engine too, like for like
        if inside '[ -x .venv/bin/trickref ]'; then  # the install finished
            pi_py=.venv/bin/python host_env=()
            inside '.venv/bin/python -c "from trickref.engine import ENGINE_BUILD as b; print(b)"' | grep -q python \
                && host_env=(env TRICKREF_PURE_PYTHON=1)
        else
            pi_py="env PYTHONPATH=. python3" host_env=(env TRICKREF_PURE_PYTHON=1)
        fi
        : > "$OUT/bot.jsonl"
        for ((r = 1; r <= ROUNDS; r++)); do
            "${host_env[@]}" .venv/bin/python benchmarks/pi_decision.py --where host >> "$OUT/bot.jsonl"
            inside "$pi_py benchmarks/pi_decision.py --where emulated-aarch64" >> "$OUT/bot.jsonl"
            echo "round $r of $ROUNDS (load $(load))"
        done
        note "bot: $(.venv/bin/python benchmarks/pi_decision.py --summarize "$OUT/bot.jsonl")"
        ;;
    *)
        echo "pi-emulated: unknown stage $stage (install, tests, games, kiosk, bot)" >&2
        exit 2
        ;;
    esac
done
say "summary ($summary)"
cat "$summary"
