# The arm64 root's mounts for scripts/pi-emulated.sh (sourced, not run): this machine's /proc,
# /sys and /dev bound into $ROOT, and taken down again however the script ends: its normal end
# or an error (EXIT), Ctrl+C (INT), a kill or a closed terminal (TERM, HUP). On a signal the
# programs still running in the root are stopped first (they hold its mounts busy), then the
# mounts go, newest first, then the script dies of that signal. A chroot command runs through
# pi_run: in the background and waited for, so a signal is handled at once, not when an hour
# of emulated work ends. tests/packaging/test_pi_mounts.py runs these functions with stand-in
# mount, umount and mountpoint commands, without a root.
#
# Needs ROOT (the root's folder). Uses mount, umount, mountpoint from PATH.

pi_mounted=()
pi_child=

pi_mount() {  # pi_mount SRC DST: SRC bound at $ROOT$DST (unless something is mounted there)
    local src=$1 dst=$ROOT$2
    mkdir -p "$dst"
    if ! mountpoint -q "$dst"; then
        mount --rbind "$src" "$dst"
        pi_mounted+=("$dst")
        mount --make-rslave "$dst"
    fi
}

pi_unmount() {  # every mount pi_mount made, newest first (lazily when still busy)
    local i
    for ((i = ${#pi_mounted[@]} - 1; i >= 0; i--)); do
        umount -R "${pi_mounted[$i]}" 2>/dev/null || umount -lR "${pi_mounted[$i]}" 2>/dev/null \
            || echo "pi-emulated: could not unmount ${pi_mounted[$i]}" >&2
    done
    pi_mounted=()
}

pi_root_pids() {  # the processes whose root directory is $ROOT, and the chroot command
    local p root
    root=$(realpath -m "$ROOT")
    [ -z "$pi_child" ] || echo "$pi_child"
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" != "$root" ] || echo "${p#/proc/}"
    done
}

pi_stop_root() {  # TERM the root's programs, KILL those left after 5 s
    local pids n
    mapfile -t pids < <(pi_root_pids | sort -u)
    [ ${#pids[@]} -gt 0 ] || return 0
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for ((n = 0; n < 50; n++)); do
        kill -0 "${pids[@]}" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
}

pi_on_signal() {  # pi_on_signal INT|TERM|HUP
    local sig=$1
    trap - EXIT INT TERM HUP
    echo "pi-emulated: stopped (SIG$sig): stopping what runs in the root, unmounting its /proc, /sys, /dev" >&2
    pi_stop_root
    pi_unmount
    kill -s "$sig" $$  # die of the signal, as the caller expects
    exit $((128 + $(kill -l "$sig")))
}

pi_traps() {
    trap pi_unmount EXIT
    trap 'pi_on_signal INT' INT
    trap 'pi_on_signal TERM' TERM
    trap 'pi_on_signal HUP' HUP
}

pi_run() {  # pi_run CMD...: CMD in the background, waited for (a signal interrupts the wait)
    local rc=0
    "$@" &
    pi_child=$!
    wait "$pi_child" || rc=$?
    pi_child=
    return "$rc"
}
