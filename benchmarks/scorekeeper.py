"""Scorekeeper mode: how long entering a hand, rebuilding a sheet from its record, replaying it
on the command line and drawing the entry screen take. Prints the figures and writes them to
benchmarks/results/scorekeeper.json.

    .venv/bin/python benchmarks/scorekeeper.py
"""

from __future__ import annotations

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

# this folder holds benchmarks/engine.py, which would shadow the engine package
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from trickref.engine.scorekeeper import ScoreSheet  # noqa: E402

HANDS = 100
OUT = Path(__file__).with_name("results") / "scorekeeper.json"


def hearts_hand(i: int) -> dict[str, Any]:
    """A non-moon hearts hand that varies with ``i`` (4 players)."""
    a = i % 6
    return {"hearts": [a, 6 - a, 4, 3], "qs": i % 4}


def spades_hand(i: int) -> dict[str, Any]:
    b = 2 + i % 3
    return {"bids": [b, 3, 3, 3], "tricks": [b + 1, 3, 3, 6 - b]}


def long_sheet(game: str, make: Any) -> ScoreSheet:
    sheet = ScoreSheet(game, 4, {"target": 100000})
    for i in range(HANDS):
        sheet.enter(make(i))
    return sheet


def time_enter(game: str, make: Any) -> dict[str, float]:
    """Per-hand cost of ``enter`` (the sheet is re-scored from the start on every change)."""
    sheet = ScoreSheet(game, 4, {"target": 100000})
    costs = []
    for i in range(HANDS):
        t = time.perf_counter()
        sheet.enter(make(i))
        costs.append(time.perf_counter() - t)
    return {"first_hand_us": costs[0] * 1e6, "hand_100_us": costs[-1] * 1e6,
            "mean_us": statistics.fmean(costs) * 1e6}


def time_from_json(sheet: ScoreSheet, repeats: int = 5) -> float:
    obj = json.loads(json.dumps(sheet.to_json()))
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        ScoreSheet.from_json(obj)
        best = min(best, time.perf_counter() - t)
    return best * 1000


def time_cli(sheet: ScoreSheet, repeats: int = 3) -> float:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "game.json"
        p.write_text(json.dumps(sheet.to_json()))
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "trickref.ui.cli", "replay", "--json", str(p)], capture_output=True)
            best = min(best, time.perf_counter() - t)
            assert r.returncode == 0, r.stderr
    return best * 1000


def time_frames(size: tuple[int, int], frames: int = 200) -> dict[str, float]:
    """Drawing the busiest entry screen (11-seat Cancellation Hearts) after each change."""
    from trickref.ui.scenes.scorekeeper_entry import start_scorekeeping
    from trickref.ui.screenshots import make_app

    app = make_app(size)
    app.setup.choose_game("cancellation-hearts")
    app.setup.players = 11
    sc = start_scorekeeping(app)
    app.render(force=True)
    wall, cpu = [], []
    for i in range(frames):
        sc.entries["hearts"][i % 11] = (sc.entries["hearts"][i % 11] + 1) % 5
        sc._changed()
        t, c = time.perf_counter(), time.process_time()
        app.render()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    wall.sort()
    cpu.sort()
    return {"wall_p50_ms": wall[len(wall) // 2] * 1000, "wall_p95_ms": wall[int(len(wall) * 0.95)] * 1000,
            "cpu_p50_ms": cpu[len(cpu) // 2] * 1000}


def main() -> int:
    results: dict[str, Any] = {
        "machine": f"{platform.platform()} (Python {platform.python_version()}, {os.cpu_count()} CPUs)",
        "load_average_1min": os.getloadavg()[0],
        "hands": HANDS,
        "enter_hearts": time_enter("hearts", hearts_hand),
        "enter_partnership_spades": time_enter("partnership-spades", spades_hand),
    }
    sheet = long_sheet("partnership-spades", spades_hand)
    results["from_json_100_hands_ms"] = time_from_json(sheet)
    results["cli_replay_100_hands_ms"] = time_cli(sheet)
    results["entry_frame_800x480"] = time_frames((800, 480))
    results["entry_frame_1280x720"] = time_frames((1280, 720))
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
