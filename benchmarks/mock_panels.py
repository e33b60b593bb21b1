"""Simulated mode's on-screen seat panels (``device.panels.MockPanels``): the real panel code on
gpiozero's mock pins, on its own timer thread, as the kiosk runs it.

    .venv/bin/python benchmarks/mock_panels.py [--taps 200] [--holds 5]

1. Tap latency: ``press`` (a click: hold, release put off to the debounce window) to the event
   on the callback, wall time. - and + fire on the settled press: the debounce window (20 ms)
   is the floor by design; OK fires on the settled release: twice the window.
2. Long press: ``hold`` of OK to "ok_long" on the callback, against the configured 1500 ms.
3. Idle CPU of 11 seats' mock panels (timer thread asleep, no LED blinking), and with one LED
   blinking, over a few seconds of process CPU time.

Figures are printed and written to benchmarks/results/mock_panels.json; the "On-screen seat
panels (MockPanels)" section of benchmarks/RESULTS.md is rewritten (other sections are kept).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the script's folder holds benchmarks/device.py, which would shadow the device package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trickref.device.debounce import Timing  # noqa: E402
from trickref.device.panels import MockPanels, PanelEvent  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "mock_panels.json"
SECTION = "On-screen seat panels (MockPanels)"


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--taps", type=int, default=200)
    p.add_argument("--holds", type=int, default=5)
    p.add_argument("--idle", type=float, default=5.0)
    args = p.parse_args()
    got: list[tuple[PanelEvent, float]] = []
    arrived = threading.Event()

    def on_event(e: PanelEvent) -> None:
        got.append((e, time.perf_counter()))
        arrived.set()

    timing = Timing()
    panels = MockPanels(11, on_event, timing=timing)
    try:
        taps: list[float] = []
        oks: list[float] = []
        for i in range(args.taps):
            arrived.clear()
            got.clear()
            t0 = time.perf_counter()
            panels.press(i % 11, ("minus", "plus", "ok")[i % 3])
            assert arrived.wait(10), "a tap was lost"
            (oks if got[0][0].button == "ok" else taps).append((got[0][1] - t0) * 1000)
            time.sleep(0.03)  # the release settles before the next tap
        holds: list[float] = []
        for i in range(args.holds):
            arrived.clear()
            got.clear()
            t0 = time.perf_counter()
            panels.hold(i % 11, "ok")
            assert arrived.wait(10) and got[0][0].button == "ok_long"
            holds.append((got[0][1] - t0) * 1000)
            panels.release(i % 11, "ok")
            time.sleep(0.05)
        c0, w0 = time.process_time(), time.perf_counter()
        time.sleep(args.idle)
        idle = 100 * (time.process_time() - c0) / (time.perf_counter() - w0)
        panels.set_led(0, "blink")
        c0, w0 = time.process_time(), time.perf_counter()
        time.sleep(args.idle)
        blink = 100 * (time.process_time() - c0) / (time.perf_counter() - w0)
    finally:
        panels.close()
    out = {
        "platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
        "taps": len(taps), "tap_ms_p50": statistics.median(taps), "tap_ms_p95": _pct(taps, 0.95),
        "tap_ms_max": max(taps), "ok_taps": len(oks), "ok_tap_ms_p50": statistics.median(oks),
        "ok_tap_ms_p95": _pct(oks, 0.95), "ok_tap_ms_max": max(oks), "debounce_ms": timing.debounce * 1000,
        "holds": args.holds, "long_press_ms_median": statistics.median(holds), "long_press_ms_max": max(holds),
        "long_press_setting_ms": timing.long_press * 1000, "idle_s": args.idle,
        "idle_cpu_pct": idle, "blink_cpu_pct": blink,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    for k, v in out.items():
        print(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}")
    write_section(out)


def write_section(r: dict[str, object]) -> None:
    md = ROOT / "benchmarks" / "RESULTS.md"
    text = md.read_text() if md.exists() else "# Benchmark results\n"
    body = (
        f"## {SECTION}\n\n"
        f"`benchmarks/mock_panels.py` on {r['platform']} (Python {r['python']}, {r['cpus']} CPUs): the kiosk's "
        "simulated-mode panels, the real `Panels` code on gpiozero's MockFactory with its own timer thread "
        "(default timing); figures in `benchmarks/results/mock_panels.json`.\n\n"
        "| measure | result |\n|---|---|\n"
        f"| on-screen tap (`press`) of - or + to its event, p50 / p95 / max of {r['taps']} (fires on the "
        f"settled press: the {r['debounce_ms']:.0f} ms debounce window is the floor by design) | "
        f"{r['tap_ms_p50']:.1f} / {r['tap_ms_p95']:.1f} / {r['tap_ms_max']:.1f} ms |\n"
        f"| on-screen tap of OK to its event, p50 / p95 / max of {r['ok_taps']} (fires on the settled "
        f"release: two windows) | {r['ok_tap_ms_p50']:.1f} / {r['ok_tap_ms_p95']:.1f} / "
        f"{r['ok_tap_ms_max']:.1f} ms |\n"
        f"| OK held to \"ok_long\", median / max of {r['holds']} (setting {r['long_press_setting_ms']:.0f} ms) | "
        f"{r['long_press_ms_median']:.1f} / {r['long_press_ms_max']:.1f} ms |\n"
        f"| idle CPU, 11 seats, no LED blinking, {r['idle_s']:.0f} s | {r['idle_cpu_pct']:.2f}% |\n"
        f"| idle CPU, the same with one LED blinking | {r['blink_cpu_pct']:.2f}% |\n\n"
        "Measured on the development machine, not on a Raspberry Pi.\n"
    )
    pattern = re.compile(rf"^## {re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(body + "\n", text).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + body
    md.write_text(text)


if __name__ == "__main__":
    main()
