# Sourced by start.sh and test.sh: ``progress WHAT COMMAND...`` says WHAT, runs COMMAND, and
# every 30 s (TRICKREF_PROGRESS_EVERY) while it runs says it still is, with the time so far, then
# how long it took. A quiet pip install that compiles the engine takes minutes; a silent
# terminal looks like a hang.
progress() {
    local what=$1
    shift
    local start=$SECONDS
    echo "   $what..."
    "$@" &
    local pid=$!
    local every=${TRICKREF_PROGRESS_EVERY:-30}
    local next=$((start + every))
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        if [ "$SECONDS" -ge "$next" ] && kill -0 "$pid" 2>/dev/null; then
            local t=$((SECONDS - start))
            echo "   ... still $what ($((t / 60))m$(printf '%02d' $((t % 60)))s so far)"
            next=$((next + every))
        fi
    done
    local rc=0
    wait "$pid" || rc=$?
    local t=$((SECONDS - start))
    if [ "$rc" -ne 0 ]; then
        echo "   failed after $((t / 60))m$(printf '%02d' $((t % 60)))s: $what (exit status $rc)" >&2
        return "$rc"
    fi
    echo "   done in $((t / 60))m$(printf '%02d' $((t % 60)))s"
}
