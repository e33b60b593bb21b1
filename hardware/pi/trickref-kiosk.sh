#!/usr/bin/env bash
# Start the trickref kiosk full screen and restart it if it exits (labwc/wayfire autostart).
# SDL tries Wayland first (labwc and wayfire are Wayland compositors), then X11 (XWayland).
#
# Screen: the Raspberry Pi Touch Display 2 is portrait-native (720x1280). With
# TRICKREF_ROTATE=auto (the default) and wlr-randr available, a DSI output whose current mode
# is 720x1280 is turned to landscape (--transform 90, or TRICKREF_TRANSFORM) before the kiosk
# starts, and the kiosk then lays out at 1280x720. The original 7-inch display (800x480) is
# left alone and the kiosk lays out at 800x480. TRICKREF_SIZE overrides the layout size;
# TRICKREF_ROTATE=off leaves every output as it is and lays out at 800x480 unless TRICKREF_SIZE
# says otherwise (a panel the Screen Configuration tool already rotated needs neither: the
# default finds it turned and lays out at 1280x720; see hardware/PI-SETUP.md). TRICKREF_KIOSK_DRY_RUN=1 prints the kiosk
# command it would run and exits (tests/hardware/test_kiosk_launcher.py).
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
log_dir=${TRICKREF_HOME:-$HOME/.local/share/trickref}
mkdir -p "$log_dir"
export SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-wayland,x11}
export PYGAME_HIDE_SUPPORT_PROMPT=1
log() { echo "$(date -Is) $*" >>"$log_dir/kiosk.log"; }

# The first DSI output, its current mode and its transform, e.g. "DSI-1 720x1280 normal",
# from wlr-randr's listing (the mode stays 720x1280 when the output is rotated).
dsi_mode() {
    wlr-randr 2>/dev/null | awk '
        /^[^ ]/ { if (out != "" && mode != "") { print out, mode, tr; done = 1; exit }
                  out = ($1 ~ /^DSI-/) ? $1 : ""; mode = ""; tr = "normal" }
        out != "" && /current/ && mode == "" { mode = $1 }
        out != "" && /Transform:/ { tr = $2 }
        END { if (!done && out != "" && mode != "") print out, mode, tr }'
}

size=${TRICKREF_SIZE:-}
if [ "${TRICKREF_ROTATE:-auto}" = auto ] && command -v wlr-randr >/dev/null; then
    read -r output mode transform_now <<<"$(dsi_mode)"
    if [ "${mode:-}" = 720x1280 ] && [ "${transform_now:-normal}" != normal ]; then
        size=${size:-1280x720}  # already turned (Screen Configuration, or an earlier start)
    elif [ "${mode:-}" = 720x1280 ]; then
        transform=${TRICKREF_TRANSFORM:-90}
        if wlr-randr --output "$output" --transform "$transform"; then
            log "rotated $output (720x1280) with --transform $transform"
            size=${size:-1280x720}
        else
            log "wlr-randr could not rotate $output; the kiosk keeps 800x480"
        fi
    fi
fi
size=${size:-800x480}
if [ -n "${TRICKREF_KIOSK_DRY_RUN:-}" ]; then  # tests: say what would start, start nothing
    echo "trickref kiosk --fullscreen --size $size"
    exit 0
fi

while true; do
    "$project/.venv/bin/trickref" kiosk --fullscreen --size "$size" >>"$log_dir/kiosk.log" 2>&1
    status=$?
    log "trickref kiosk exited with status $status; restarting in 3 s"
    sleep 3
done
