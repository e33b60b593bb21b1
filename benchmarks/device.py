"""Device layer speed: the journal's durable appends, reopening, the games store, debounce.

    .venv/bin/python benchmarks/device.py [--dir DIR] [--appends 300]

- journal append: wall time of ``Journal.append`` (encode, write, fsync) for a typical event
  (~120 bytes), p50 / p95 / max over ``--appends``; the referee waits for this before acting on a
  press, so it is the table's added latency per event. Run with ``--dir`` on the disk the table
  uses (an SD card is much slower than an SSD); the default is a temporary folder under the
  system's temp dir, and the filesystem type is printed (tmpfs fsyncs for free: not meaningful).
- journal open: ``Journal.open`` of a 10,000-record journal (read, check every CRC, parse).
- games store save: ``GamesStore.save`` of a 10-hand hearts record (atomic: tmp, fsync, rename,
  fsync dir), median of 20.
- panels: CPU time of ``ButtonLogic.feed`` per edge, and of one ``Panels.tick`` every 5 ms for
  the default 11 seats on three expanders (a fake I2C bus, so bus time is not included; it
  includes the 100 ms backstop read) with one LED blinking: the timer thread's work.
- admin PIN: one PBKDF2 check (100,000 iterations), what the settings screen's PIN entry costs.

Figures are printed and written to benchmarks/results/device.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trickref.device.config import AdminConfig, Config  # noqa: E402
from trickref.device.debounce import ButtonLogic, Timing  # noqa: E402
from trickref.device.games_store import GamesStore  # noqa: E402
from trickref.device.journal import Journal, encode  # noqa: E402
from trickref.device.mcp23017 import FakeBus  # noqa: E402
from trickref.engine import cards, records  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "trickref.device.json"
EVENT = {"type": "press", "seat": 7, "button": "ok", "at": 12345.678901, "hand": 3,
         "action": {"seat": 7, "play": "QS"}, "id": 1234}


def fs_type(path: Path) -> str:
    try:
        out = subprocess.run(["df", "-T", str(path)], capture_output=True, text=True, check=True).stdout
        return out.splitlines()[1].split()[1]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown"


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def bench_journal(folder: Path, appends: int) -> dict[str, Any]:
    path = folder / "journal.bin"
    journal, _, _ = Journal.open(path)
    times = []
    for i in range(appends):
        t0 = time.perf_counter()
        journal.append({**EVENT, "id": i})
        times.append(time.perf_counter() - t0)
    journal.close()
    big = folder / "big.bin"  # written in one go: only the reopen is measured
    big.write_bytes(b"".join(encode({**EVENT, "id": i}) for i in range(10_000)))
    t0 = time.perf_counter()
    j, recs, _ = Journal.open(big)
    open_s = time.perf_counter() - t0
    j.close()
    assert len(recs) == 10_000
    return {"append_p50_ms": statistics.median(times) * 1e3, "append_p95_ms": pct(times, 0.95) * 1e3,
            "append_max_ms": max(times) * 1e3, "appends": appends,
            "open_10k_records_ms": open_s * 1e3, "journal_bytes_10k": big.stat().st_size}


def bench_store(folder: Path) -> dict[str, Any]:
    hand = {"deck": list(cards.NAMES), "actions": [{"seat": s % 4, "play": c} for s, c in enumerate(cards.NAMES)]}
    store = GamesStore(folder / "games")
    times = []
    for i in range(20):
        record = {"format": records.FORMAT, "game": "hearts", "players": ["Ana", "Ben", "Cem", f"D{i}"],
                  "options": {}, "first_dealer": 0, "hands": [hand] * 10}
        t0 = time.perf_counter()
        store.save(record)
        times.append(time.perf_counter() - t0)
    return {"save_p50_ms": statistics.median(times) * 1e3, "save_max_ms": max(times) * 1e3}


def bench_panels() -> dict[str, Any]:
    logic = ButtonLogic("plus", Timing())
    n = 200_000
    t0 = time.process_time()
    t = 0.0
    for i in range(n):
        logic.feed(i % 2 == 0, t)
        t += 0.001
    feed_us = (time.process_time() - t0) / n * 1e6

    from gpiozero.pins.mock import MockFactory

    from trickref.device.panels import Panels

    config = Config()  # the default 11-seat map on three expanders (a fake I2C bus)
    clock = [0.0]
    panels = Panels(config.panels.seats, lambda e: None, expanders=config.panels.expanders,
                    bus=FakeBus(0x20, 0x21, 0x22), pin_factory=MockFactory(),
                    clock=lambda: clock[0], run_timer=False)
    panels.set_led(3, "blink")
    ticks = 20_000
    t0 = time.process_time()
    for _ in range(ticks):
        clock[0] += 0.005
        panels.tick()
    tick_us = (time.process_time() - t0) / ticks * 1e6
    panels.close()
    return {"feed_us_per_edge": feed_us, "tick_us_11_seats": tick_us}


def bench_pin() -> dict[str, Any]:
    admin = AdminConfig().with_pin("4321")
    t0 = time.perf_counter()
    assert admin.check("4321")
    return {"pin_check_ms": (time.perf_counter() - t0) * 1e3}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", help="folder to write the journal in (default: a temp folder)")
    p.add_argument("--appends", type=int, default=300)
    p.add_argument("--output", default=str(RESULTS))
    args = p.parse_args()
    base = Path(args.dir) if args.dir else Path(tempfile.gettempdir())
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        folder = Path(tmp)
        result: dict[str, Any] = {
            "platform": platform.platform(), "python": platform.python_version(),
            "cpus": os.cpu_count(), "folder": str(base), "filesystem": fs_type(folder),
        }
        result["journal"] = bench_journal(folder, args.appends)
        result["games_store"] = bench_store(folder)
    result["panels"] = bench_panels()
    result["admin"] = bench_pin()
    j, s, pa = result["journal"], result["games_store"], result["panels"]
    print(f"{result['platform']}, Python {result['python']}, {result['cpus']} CPUs; "
          f"journal on {result['folder']} ({result['filesystem']})")
    print(f"journal append (fsync): p50 {j['append_p50_ms']:.2f} ms, p95 {j['append_p95_ms']:.2f} ms, "
          f"max {j['append_max_ms']:.2f} ms over {j['appends']}")
    print(f"journal open, 10,000 records ({j['journal_bytes_10k'] / 1e6:.1f} MB): {j['open_10k_records_ms']:.1f} ms")
    print(f"games store save, 10-hand record: p50 {s['save_p50_ms']:.2f} ms, max {s['save_max_ms']:.2f} ms")
    print(f"debounce feed: {pa['feed_us_per_edge']:.2f} us/edge; Panels.tick, 11 seats: {pa['tick_us_11_seats']:.1f} us")
    print(f"admin PIN check (PBKDF2, 100k): {result['admin']['pin_check_ms']:.1f} ms")
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
