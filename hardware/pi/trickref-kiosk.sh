#!/usr/bin/env bash
# Start the trickref kiosk full screen and restart it if it exits (labwc/wayfire autostart).
# SDL tries Wayland first (labwc and wayfire are Wayland compositors), then X11 (XWayland).
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
log_dir=${TRICKREF_HOME:-$HOME/.local/share/trickref}
mkdir -p "$log_dir"
export SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-wayland,x11}
export PYGAME_HIDE_SUPPORT_PROMPT=1
while true; do
    "$project/.venv/bin/trickref" kiosk --fullscreen >>"$log_dir/kiosk.log" 2>&1
    status=$?
    echo "$(date -Is) trickref kiosk exited with status $status; restarting in 3 s" >>"$log_dir/kiosk.log"
    sleep 3
done
