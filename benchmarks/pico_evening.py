"""An evening at one dealer in a Pico-sized heap (issue 20 point 2), on the 32-bit MicroPython VM.

    nice -n 10 .venv/bin/python benchmarks/pico_evening.py [--seeds 0 1] [--short]

The firmware as shipped (the mpy-cross ``.mpy`` files of scripts/build_firmware.py) runs on
MicroPython's i386 unix port (scripts/micropython32.sh: 4-byte object pointers, as on the
RP2040) with a fixed heap (``-X heapsize``: 192 KiB for the firmware, the harness's own bytecode
measured and added; nothing grows it). One dealer, never rebuilt, goes through the evening of
issue 20: 500 deals of 52 cards to 4 seats (every tenth with a fault injected: a jam, a
shingled double feed, two misreads, the e-stop, the host falling silent into the dead-man),
100 German Whist stock hands (26 cards round the loop, each FETCHed back) and 50 two-player
Spades draws (52 cards round the loop, 52 FETCHes, 26 cards fed back through the play slot).
It must end with no MemoryError; the lowest free heap after a collection (every 250 loop
passes and between hands) is the figure. The checks are tests/firmware/mp/mpchecks.py's
``evening_full`` (the test command runs ``evening_short``, 47 hands of the same kinds).

Also run, once: the firmware's own board.py on the physical twin (device/dealer/twin.py as
``machine``/``rp2``), one 52-card deal in the same Pico heap (tests/firmware/mp/twinchecks.py).

Figures are printed, written to benchmarks/results/pico_evening.json, and the section "Firmware
in a Pico heap" of benchmarks/RESULTS.md is rewritten (other sections are kept). Each evening
is deterministic for its seed (the same deck orders, faults and twin draws): a seed's heap
figure does not vary between runs, so the spread given is across seeds; the run times carry
the machine's load beside them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MP = ROOT / "tests" / "firmware" / "mp"
RESULTS_MD = ROOT / "benchmarks" / "RESULTS.md"
OUT = ROOT / "benchmarks" / "results" / "pico_evening.json"
SECTION = "## Firmware in a Pico heap: an evening on the 32-bit VM (issue 20 point 2)"


def figures(out: str) -> dict[str, int]:
    return {ln.split()[1]: int(ln.split()[2]) for ln in out.splitlines() if ln.startswith("FIGURE ")}


def run_one(run_heap: Any, module: str, names: list[str]) -> dict[str, Any]:
    load0 = os.getloadavg()[0]
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    code, out, err = run_heap.run(module, names, timeout=4 * 3600)
    wall = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    load1 = os.getloadavg()[0]
    passed = [ln for ln in out.splitlines() if ln.startswith("PASS ")]
    res: dict[str, Any] = {
        "check": module + " " + " ".join(names), "ok": code == 0, "passed": passed,
        "memory_error": any("MemoryError" in ln for ln in (out + err).splitlines() if not ln.startswith("PASS ")), "figures": figures(out),
        "wall_s": round(wall, 1), "cpu_s": round((cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime), 1),
        "load_1min": [round(load0, 2), round(load1, 2)],
    }
    if code != 0:
        res["error"] = (err or out)[-2000:]
    return res


def write_md(res: dict[str, Any]) -> None:
    ev = res["evenings"]
    lows = [e["figures"].get("heap_lowest_free_bytes", 0) for e in ev]
    f0 = ev[0]["figures"]
    lines = [SECTION, "",
             f"`nice -n 10 .venv/bin/python benchmarks/pico_evening.py` ({res['date']}, {res['machine']['platform']}; "
             "figures in `benchmarks/results/pico_evening.json`). MicroPython "
             f"{res['vm']} (Debian's i386 unix port, {f0.get('vm_word_bits')}-bit object pointers as on the RP2040), "
             f"fixed heap: {f0.get('pico_heap_bytes')} bytes for the firmware + {f0.get('harness_bytes')} bytes of "
             "harness bytecode (measured in a large heap and added), nothing grows it. The firmware ships as "
             f"mpy-cross .mpy; its modules take {f0.get('firmware_modules_bytes')} bytes of that heap.", "",
             "| evening (deck seed) | hands | deals (with a fault) | German Whist stock hands | Spades draws "
             "| MemoryError | lowest free heap, bytes | heap in all, bytes | run: wall s, CPU s | load (1 min) before, after |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for e in ev:
        f = e["figures"]
        hands = f.get("evening_deals", 0) + f.get("evening_whist_hands", 0) + f.get("evening_spades_draws", 0)
        lines.append(
            f"| {e['check']} | {hands} | {f.get('evening_deals')} ({f.get('evening_faulted_deals')}) "
            f"| {f.get('evening_whist_hands')} | {f.get('evening_spades_draws')} "
            f"| {'yes' if e['memory_error'] else 'no'}{'' if e['ok'] else ' (FAILED)'} "
            f"| {f.get('heap_lowest_free_bytes')} | {f.get('heap_total_bytes')} "
            f"| {e['wall_s']}, {e['cpu_s']} | {e['load_1min'][0]}, {e['load_1min'][1]} |")
    if len(lows) > 1:
        lines += ["", f"Lowest free heap across the {len(lows)} seeds: min {min(lows)}, median "
                  f"{statistics.median(lows):.0f}, max {max(lows)} bytes (each seed's figure is deterministic)."]
    full = res.get("full_evening")
    if full:
        lines += ["", f"The whole evening (`{full['check']}`: 500 deals, 50 of them with a fault, 100 German Whist "
                  "stock hands, 50 Spades draws) was started on this machine and stopped unfinished after "
                  f"{full['wall_s']} s wall, {full['cpu_s']} s of CPU, at a load of {full['load']} on 2 cores "
                  f"(the team's sessions): {full['note']} The row above is the test command's slice "
                  "(`--short`), which runs every kind of hand of the evening."]
    tw = res.get("twin")
    if tw:
        f = tw["figures"]
        lines += ["", "The firmware's own board.py on the physical twin (the twin standing in for `machine`/`rp2`), "
                  f"one 52-card deal to 4 seats in the same Pico heap: {'passed' if tw['ok'] else 'FAILED'}, lowest "
                  f"free heap {f.get('heap_lowest_free_bytes')} of {f.get('heap_total_bytes')} bytes "
                  f"(harness {f.get('harness_bytes')} bytes, the twin included); {tw['wall_s']} s wall, "
                  f"{tw['cpu_s']} s CPU, load {tw['load_1min'][0]}, {tw['load_1min'][1]}."]
    lines += ["", "What the evening runs on: the firmware (main, commands, mechanics, protocol, steps, ...) "
              "unmodified, on the scripted board of tests/firmware/mp/mpboard.py (its motions take "
              "firmware/timing.py's times; it routes a card by the flap the firmware raised), because the "
              "physical twin on this VM costs about 2.5 s of CPU per deal (an evening would be about 40 min "
              "of CPU); the twin row above is the real board.py's share of the heap.", ""]
    section = "\n".join(lines)
    text = RESULTS_MD.read_text() if RESULTS_MD.exists() else "# Benchmark results\n\n"
    pattern = re.compile(r"^" + re.escape(SECTION) + r"\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _m: section + "\n", text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS_MD.write_text(text.rstrip("\n") + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="deck seeds, one evening each")
    ap.add_argument("--short", action="store_true", help="the test command's slice instead (no files written)")
    ap.add_argument("--no-twin", action="store_true", help="skip the deal on the physical twin")
    args = ap.parse_args()
    if subprocess.run(["bash", str(ROOT / "scripts" / "micropython32.sh")], capture_output=True).returncode:
        print("no 32-bit MicroPython VM (bash scripts/micropython32.sh)", file=sys.stderr)
        return 1
    sys.path.insert(0, str(MP))
    import run_heap

    vm = subprocess.run([str(run_heap.vm32()), "-c", "import sys; print(sys.version)"],
                        capture_output=True, text=True).stdout.strip()
    check = "evening_short" if args.short else "evening_full"
    evenings = []
    for seed in args.seeds:
        r = run_one(run_heap, "mpchecks", [f"{check}:{seed}"])
        print(json.dumps(r), flush=True)
        evenings.append(r)
    res: dict[str, Any] = {
        "date": datetime.date.today().isoformat(), "vm": vm, "evenings": evenings,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
    }
    if not args.no_twin:
        res["twin"] = run_one(run_heap, "twinchecks", ["twin_deal"])
        print(json.dumps(res["twin"]), flush=True)
    ok = all(e["ok"] and not e["memory_error"] for e in evenings) and (args.no_twin or res["twin"]["ok"])
    if not args.short:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(res, indent=1) + "\n")
        write_md(res)
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
