#!/usr/bin/env bash
# Install the trickref kiosk on Raspberry Pi OS Bookworm (desktop image, labwc or wayfire).
#
# Run once, from the project folder, as the user who will be logged in at the table:
#     bash hardware/pi/setup.sh
# It asks for sudo for the system steps. It is safe to run again (every step checks first).
#
# What it does:
#   1. Debian packages: python3-venv, the lgpio binding gpiozero uses on Bookworm, i2c-tools,
#      wlr-randr (the launcher turns the portrait Touch Display 2 to landscape with it).
#   2. A venv in ./.venv that can see the system's lgpio (--system-site-packages), trickref in it.
#   3. I2C on (the seat panels' MCP23017 expanders), screen blanking off.
#   4. The dealer's udev rule (a stable /dev/trickref-dealer, ModemManager kept away).
#   5. The user's groups: dialout (serial), gpio, i2c, video, render, input (touch).
#   6. Autostart: labwc's (or wayfire's) autostart runs hardware/pi/trickref-kiosk.sh, which
#      starts `trickref kiosk --fullscreen` with the right SDL video driver and restarts it if
#      it ever exits.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
user=${SUDO_USER:-$(id -un)}
home=$(getent passwd "$user" | cut -d: -f6)

say() { printf '\n== %s\n' "$*"; }

if ! grep -q "bookworm\|trixie" /etc/os-release 2>/dev/null; then
    echo "warning: this script is written for Raspberry Pi OS Bookworm; carrying on" >&2
fi

say "1. Debian packages"
sudo apt-get update
sudo apt-get install -y python3-venv python3-dev python3-lgpio i2c-tools git wlr-randr

say "2. The venv in $project/.venv"
if [ ! -x "$project/.venv/bin/python" ]; then
    python3 -m venv --system-site-packages "$project/.venv"
fi
"$project/.venv/bin/python" -m pip install --upgrade pip
"$project/.venv/bin/python" -m pip install -e "$project"

say "3. I2C on, screen blanking off"
if command -v raspi-config >/dev/null; then
    sudo raspi-config nonint do_i2c 0
    sudo raspi-config nonint do_blanking 1
else
    echo "raspi-config not found: enable I2C and turn screen blanking off by hand" >&2
fi

say "4. The dealer's udev rule"
sudo install -m 0644 "$project/hardware/99-trickref-dealer.rules" /etc/udev/rules.d/99-trickref-dealer.rules
sudo udevadm control --reload-rules
sudo udevadm trigger --subsystem-match=tty || true

say "5. Groups for $user"
for g in dialout gpio i2c video render input; do
    if getent group "$g" >/dev/null; then sudo usermod -aG "$g" "$user"; fi
done

say "6. Autostart"
launcher="$here/trickref-kiosk.sh"
chmod +x "$launcher"
line="$launcher &"
labwc_dir="$home/.config/labwc"
mkdir -p "$labwc_dir"
touch "$labwc_dir/autostart"
grep -qF "$launcher" "$labwc_dir/autostart" || echo "$line" >> "$labwc_dir/autostart"
wayfire_ini="$home/.config/wayfire.ini"
if [ -f "$wayfire_ini" ] && ! grep -qF "$launcher" "$wayfire_ini"; then
    if grep -q '^\[autostart\]' "$wayfire_ini"; then
        sed -i "/^\[autostart\]/a trickref = $launcher" "$wayfire_ini"
    else
        printf '\n[autostart]\ntrickref = %s\n' "$launcher" >> "$wayfire_ini"
    fi
fi
sudo chown -R "$user": "$labwc_dir"

cat <<TXT

Done. Reboot (sudo reboot) so that the groups, I2C and the autostart take effect.
The kiosk then starts full screen at login. Its configuration is
$home/.config/trickref/config.toml (defaults until Settings saves one; the admin PIN starts as 0000:
change it in Settings). The kiosk log is ~/.local/share/trickref/kiosk.log.
To stop it for maintenance: pkill -f trickref-kiosk.sh; pkill -f "trickref kiosk".
TXT
