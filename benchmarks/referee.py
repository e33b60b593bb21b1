"""Referee speed: event-to-command time over whole games, and resuming a long game from its journal.

1. Every game (every player count) is played to its end several times by the scripted table
   (``engine.referee.autotable.AutoTable``: an ideal dealer, seeded shuffles, engine bots; entries
   through panels, the reader, the touchscreen and bot actions, "mixed"). Each ``Referee.handle``
   call is timed (``time.perf_counter_ns``): p50, p99 and max per game and over all events.
   Bot thinking is outside the referee and not timed.
2. A whole partnership-spades game to 500 points is written to a real journal file
   (``device.journal``, one fsync'd record per event), then resumed the way ``trickref sim``
   does: ``Journal.open`` (read and check every record) and replay into a fresh Referee through
   ``device.table.host.TableHost.resume``. Median of 5.

Prints the figures, writes ``benchmarks/results/referee.json`` and the "Referee" section of
``benchmarks/RESULTS.md`` (other sections are kept). Targets: p99 < 1 ms, resume < 0.5 s.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trickref.device.journal import Journal  # noqa: E402
from trickref.device.table.host import IdealDealer, TableHost  # noqa: E402
from trickref.engine.games import GAME_IDS, player_counts  # noqa: E402
from trickref.engine.referee.autotable import AutoTable  # noqa: E402
from trickref.engine.referee.events import Event  # noqa: E402

RUNS_PER_CONFIG = 3


def pct(values: list[int], p: float) -> float:
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[k] / 1000.0  # ns -> µs


def timed_games() -> dict[str, Any]:
    per_game: dict[str, Any] = {}
    everything: list[int] = []
    all_cpu: list[int] = []
    for game in GAME_IDS:
        times: list[int] = []
        cpu: list[int] = []
        games = 0
        for n in player_counts(game):
            for run in range(RUNS_PER_CONFIG):
                t = AutoTable(seed=1000 * n + run, entry="mixed")
                ref = t.ref
                orig = ref.handle

                def timed(ev: Event, _orig: Any = orig, _times: list[int] = times, _cpu: list[int] = cpu) -> Any:
                    c = time.thread_time_ns()
                    a = time.perf_counter_ns()
                    out = _orig(ev)
                    _times.append(time.perf_counter_ns() - a)
                    _cpu.append(time.thread_time_ns() - c)
                    return out

                ref.handle = timed  # type: ignore[method-assign]
                t.run(game, n)
                assert ref.waiting == "over", (game, n, ref.waiting_text())
                games += 1
        everything += times
        all_cpu += cpu
        per_game[game] = {
            "cpu_p99_us": round(pct(cpu, 99), 1),
            "games": games,
            "events": len(times),
            "p50_us": round(pct(times, 50), 1),
            "p99_us": round(pct(times, 99), 1),
            "max_us": round(max(times) / 1000.0, 1),
        }
    return {
        "per_game": per_game,
        "all": {
            "events": len(everything),
            "p50_us": round(pct(everything, 50), 1),
            "p99_us": round(pct(everything, 99), 1),
            "max_us": round(max(everything) / 1000.0, 1),
            "cpu_p50_us": round(pct(all_cpu, 50), 1),
            "cpu_p99_us": round(pct(all_cpu, 99), 1),
        },
    }


def resume_figures() -> dict[str, Any]:
    t = AutoTable(seed=7, entry="mixed")
    ref = t.run("partnership-spades", 4, {"target": 500})
    g = ref.game
    assert g is not None and g.over
    events = t.events
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "table.journal")
        j, _, _ = Journal.open(path)
        a = time.perf_counter()
        for ev in events:
            j.append(ev.to_json())
        write_s = time.perf_counter() - a
        j.close()
        size = os.path.getsize(path)
        times = []
        for _ in range(5):
            a = time.perf_counter()
            j2, records, _report = Journal.open(path)
            table = TableHost(IdealDealer())  # not started: resume drives no port
            table.resume(records)
            times.append(time.perf_counter() - a)
            j2.close()
            assert table.referee == ref
    return {
        "game": "partnership-spades",
        "target": 500,
        "hands": len(g.hand_results),
        "events": len(events),
        "journal_bytes": size,
        "journal_write_s": round(write_s, 3),
        "resume_median_s": round(statistics.median(times), 4),
        "resume_max_s": round(max(times), 4),
    }


def sim_resume_figures() -> dict[str, Any]:
    """Resume from the journal ``trickref sim`` writes for a partnership-spades game to 500 (its
    own shuffles; every dealer step and reader read is an event there)."""
    from trickref.device.simulated.table import SimTable

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sim.journal")
        with SimTable("partnership-spades", 4, {"target": 500}, seed=7, journal_path=path) as t:
            t.start()
            t.run()
            ref = t.referee
            assert ref.waiting == "over"
            hands = len(ref.game.hand_results) if ref.game else 0
        times = []
        for _ in range(5):
            a = time.perf_counter()
            j2, records, _report = Journal.open(path)
            table = TableHost(IdealDealer())  # not started: resume drives no port
            table.resume(records)
            times.append(time.perf_counter() - a)
            j2.close()
            assert table.referee == ref
        return {"hands": hands, "events": len(records), "journal_bytes": os.path.getsize(path),
                "resume_median_s": round(statistics.median(times), 4), "resume_max_s": round(max(times), 4)}


def write_section(results: dict[str, Any]) -> None:
    path = ROOT / "benchmarks" / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    a, r, rs = results["events"]["all"], results["resume"], results["resume_sim_journal"]
    rows = "\n".join(
        f"| {game} | {v['games']} | {v['events']:,} | {v['p50_us']} | {v['p99_us']} | {v['cpu_p99_us']} | {v['max_us']} |"
        for game, v in results["events"]["per_game"].items()
    )
    section = f"""## Referee

`benchmarks/referee.py` on {results['platform']} (Python {results['python']}, {results['cpus']} CPUs); figures in `benchmarks/results/referee.json`.

Event-to-command time: every `Referee.handle` call timed over whole games played by the scripted table (every player count, {RUNS_PER_CONFIG} games each, entries by panel, reader, touchscreen and bot; bot thinking not included).

| game | games | events | wall p50 µs | wall p99 µs | CPU p99 µs | wall max µs |
|---|---|---|---|---|---|---|
{rows}
| **all** | | {a['events']:,} | {a['p50_us']} | {a['p99_us']} | {a['cpu_p99_us']} | {a['max_us']} |

Target p99 < 1 ms: {'met' if a['p99_us'] < 1000 else 'NOT met'} (wall clock; CPU time of the thread p99 {a['cpu_p99_us']} µs). The slowest events are the ones that end a hand (score, reveal the salt, build the record) and the shuffle that starts one (check the deck, hash the commitment, deal, build the plan); the max is a one-off (the first pass of a game builds the engine's table of passes) or the machine's load.

Resume from the journal: a whole {r['game']} game to {r['target']} ({r['hands']} hands, {r['events']:,} events, {r['journal_bytes']:,} bytes of journal) read back with `Journal.open` and replayed into a fresh Referee by `device.table.host.TableHost.resume`: median {r['resume_median_s'] * 1000:.0f} ms, max {r['resume_max_s'] * 1000:.0f} ms of 5 (target < 0.5 s: {'met' if r['resume_max_s'] < 0.5 else 'NOT met'}). Writing that journal (one fsync per event) took {r['journal_write_s']:.2f} s. The journal of a partnership-spades game to 500 played by the simulated table (`SimTable`, as `trickref sim --seed 7 --journal`; every dealer step and card read is an event: {rs['hands']} hands, {rs['events']:,} events, {rs['journal_bytes']:,} bytes) resumes in median {rs['resume_median_s'] * 1000:.0f} ms, max {rs['resume_max_s'] * 1000:.0f} ms of 5 ({'met' if rs['resume_max_s'] < 0.5 else 'NOT met'}).

Measured on the development machine (1-minute load average {results['load_average_1min_before']} when the run started: other work shared the CPUs, which shows in the wall-clock max), not on a Raspberry Pi (expect it to be several times slower).
"""
    start = text.find("## Referee")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


def main() -> None:
    results: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_1min_before": round(os.getloadavg()[0], 2),
        "events": timed_games(),
        "resume": resume_figures(),
        "resume_sim_journal": sim_resume_figures(),
    }
    a = results["events"]["all"]
    print(f"event-to-command over {a['events']} events: p50 {a['p50_us']} µs, p99 {a['p99_us']} µs "
          f"(CPU p99 {a['cpu_p99_us']} µs), max {a['max_us']} µs")
    for game, v in results["events"]["per_game"].items():
        print(f"  {game:20s} {v['games']:3d} games {v['events']:7d} events  p50 {v['p50_us']:7.1f} µs  p99 {v['p99_us']:7.1f} µs  max {v['max_us']:8.1f} µs")
    r = results["resume"]
    print(f"resume {r['game']} to {r['target']}: {r['hands']} hands, {r['events']} events, "
          f"median {r['resume_median_s'] * 1000:.0f} ms, max {r['resume_max_s'] * 1000:.0f} ms")
    rs = results["resume_sim_journal"]
    print(f"resume the sim's journal of a game to 500: {rs['hands']} hands, {rs['events']} events, "
          f"median {rs['resume_median_s'] * 1000:.0f} ms, max {rs['resume_max_s'] * 1000:.0f} ms")
    out = ROOT / "benchmarks" / "results" / "referee.json"
    out.write_text(json.dumps(results, indent=1) + "\n")
    write_section(results)


if __name__ == "__main__":
    main()
