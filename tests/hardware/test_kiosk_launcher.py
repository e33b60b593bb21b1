"""hardware/pi/trickref-kiosk.sh: the Touch Display 2 is turned to landscape and the kiosk laid
out to match, with a stand-in ``wlr-randr`` on PATH that prints what the real one prints and
records how it was called."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "hardware" / "pi" / "trickref-kiosk.sh"

TD2 = """DSI-1 "Raspberry Pi Touch Display 2"
  Enabled: yes
  Modes:
    720x1280 px, 60.000000 Hz (preferred, current)
  Position: 0,0
  Transform: {transform}
  Scale: 1.000000
"""
OLD_7INCH = """DSI-1 "Raspberry Pi 7inch Touchscreen"
  Enabled: yes
  Modes:
    800x480 px, 60.000000 Hz (preferred, current)
  Transform: normal
"""
HDMI = """HDMI-A-1 "Some monitor"
  Enabled: yes
  Modes:
    1920x1080 px, 60.000000 Hz (preferred, current)
  Transform: normal
"""


def _launch(tmp_path: Path, listing: str, **env: str) -> tuple[str, list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    calls = tmp_path / "calls"
    (tmp_path / "listing").write_text(listing)
    fake = bin_dir / "wlr-randr"
    fake.write_text(f'#!/bin/sh\nif [ $# -gt 0 ]; then echo "$@" >> "{calls}"; exit 0; fi\ncat "{tmp_path}/listing"\n')
    fake.chmod(0o755)
    full_env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "TRICKREF_HOME": str(tmp_path / "home"),
                "TRICKREF_KIOSK_DRY_RUN": "1", **env}
    done = subprocess.run(["bash", str(LAUNCHER)], env=full_env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    made = calls.read_text().splitlines() if calls.exists() else []
    return done.stdout.strip(), made


def test_touch_display_2_is_rotated_and_the_kiosk_lays_out_landscape(tmp_path: Path) -> None:
    out, calls = _launch(tmp_path, HDMI + TD2.format(transform="normal"))
    assert out == "trickref kiosk --fullscreen --size 1280x720"
    assert calls == ["--output DSI-1 --transform 90"]


def test_the_other_landscape_way_round(tmp_path: Path) -> None:
    out, calls = _launch(tmp_path, TD2.format(transform="normal"), TRICKREF_TRANSFORM="270")
    assert out.endswith("--size 1280x720")
    assert calls == ["--output DSI-1 --transform 270"]


@pytest.mark.parametrize("transform", ["90", "270"])
def test_an_already_rotated_display_is_left_alone(tmp_path: Path, transform: str) -> None:
    out, calls = _launch(tmp_path, TD2.format(transform=transform))
    assert out.endswith("--size 1280x720")
    assert calls == []


def test_original_display_keeps_800x480(tmp_path: Path) -> None:
    out, calls = _launch(tmp_path, OLD_7INCH)
    assert out.endswith("--size 800x480") and calls == []


def test_no_compositor_answer_keeps_800x480(tmp_path: Path) -> None:
    out, calls = _launch(tmp_path, "")  # wlr-randr prints nothing (no Wayland session)
    assert out.endswith("--size 800x480") and calls == []


def test_rotation_off_and_size_override(tmp_path: Path) -> None:
    out, calls = _launch(tmp_path, TD2.format(transform="normal"), TRICKREF_ROTATE="off", TRICKREF_SIZE="1280x720")
    assert out.endswith("--size 1280x720") and calls == []
    assert os.access(LAUNCHER, os.R_OK)
