"""The dealer-link fault campaign (issue 18): every fault row, hundreds of trials, and power cuts.

    nice -n 10 .venv/bin/python benchmarks/faults.py [--trials 100] [--jobs 4] [--kills 1000]
        [--rows none,unplug_deal,...] [--no-cuts] [--no-trials] [--cut-jobs 4] [--until HH:MM]
        [--report-only [--from-progress]] (--results NAME | --record)

1. Fault rows. Each trial is one hand of a game (hearts, cancellation hearts, German Whist,
   two-player Spades, partnership Spades in turn; the Release row the passing games, the Fetch
   row German Whist) played by bots on ``SimTable``: the real firmware behind a pty, pyserial,
   the real driver, the table host and the referee (``device/simulated/fault_trials.py``). One
   fault per trial, struck at a moment drawn from the trial's seed: the cable pulled mid-deal
   (card 1-40, back after 0.5-4 s), the cable pulled or the dealer silent mid-Release, the
   cable pulled right after a fed card was routed (back after 1-5 s), the cable pulled mid-Fetch
   (German Whist, back after 0.5-3 s), and for the whole hand 1 % dropped bytes, 2 % or 5 %
   corrupted bytes, in both directions. Before every play every seat's pocket in the simulator
   is compared with the referee's hand; at the end the hand's result is compared with an
   uninterrupted run of the same seed. A trial is **right** (the hand ended, every pocket
   always matched, the same result), **stopped** (the table stopped with words and was not
   resumed), **stuck** (it hung, or the simulated person could not do what the screen said),
   **pocket ≠ referee** (a pocket differed before a play) or **changed** (another result).
2. Power cuts. ``trickref sim``'s table (SimTable with a journal) runs in a child process that
   SIGKILLs itself at a chosen moment: at random, while the dealer reads a fed card (before the
   host hears of it), right after a card read is journaled, during a Release (a card of it in
   its pocket), during a Fetch, during the deal (a card of it in its pocket); the child is
   started again on the same journal (the simulator is put back where the journal says the
   cards are) until the hand ends. Checked: no journaled event lost at any kill (the journal
   only grows), the hand's result the same as the uninterrupted run's, no resumed run stuck.

A stuck trial or power-cut run (or a trial whose pockets differed from the referee) leaves a
report and its journal in benchmarks/results/faults-stuck/ (faults-NAME-stuck/ for a named run),
named in its result ("kept"): every seat's pocket in the simulator beside the referee's hand (what
the simulated person believes it holds), the referee's places, the dealer's own view, the faults
and Resumes, the last messages and the person's last moves (``SimTable.explain``).

Trials run in ``--jobs`` processes (most of a trial is waiting on the link's timers); with
``--cut-jobs`` the power cuts run in that many more beside them. ``--until`` (UTC) stops starting
trials at that time, cuts off those still running three minutes later, and writes what was
reached (the table says it is partial, with the trials a row reached). Every trial and power-cut
hand is also appended to benchmarks/results/faults-progress.jsonl as it finishes (with the load
then), so a campaign killed before its end keeps what it reached: ``--report-only
--from-progress`` writes its table. The machine's load
average is sampled throughout and printed beside the table. Figures go to
benchmarks/results/faults.json and the "Dealer link fault campaign" section of
benchmarks/RESULTS.md only with ``--record`` (the campaign of record: a check run by hand must
not write over it, so a run with neither ``--record`` nor ``--results`` is refused before it
starts). ``--results NAME`` gives a run its own figures instead (a second run, a
slice, a run on another commit): benchmarks/results/faults-NAME.json, its own progress file
(faults-NAME-progress.jsonl: a campaign running beside it keeps its own) and its own subsection
of that section ("### Run NAME"), written again by each run of that name; the main table and the
other runs' subsections are left as they are (and a run without a name keeps the subsections).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS_JSON = ROOT / "benchmarks" / "results" / "faults.json"
RESULTS_MD = ROOT / "benchmarks" / "RESULTS.md"
PROGRESS = ROOT / "benchmarks" / "results" / "faults-progress.jsonl"  # every finished trial, as it finishes
SECTION = "## Dealer link fault campaign (issue 18)"
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def use_results(name: str | None) -> None:
    """Where this run writes: the main table (None), or run ``name``'s own files and subsection."""
    global RESULTS_JSON, PROGRESS
    results = ROOT / "benchmarks" / "results"
    if name is None:
        RESULTS_JSON, PROGRESS = results / "faults.json", results / "faults-progress.jsonl"
        return
    if not RUN_NAME.fullmatch(name):
        raise ValueError(f"--results {name!r}: a run's name is 1-40 letters, digits, '.', '_' or '-'")
    RESULTS_JSON, PROGRESS = results / f"faults-{name}.json", results / f"faults-{name}-progress.jsonl"


def stuck_dir() -> str:
    """Where a stuck trial or power-cut hand leaves its report and journal (SimTable.keep):
    benchmarks/results/faults-stuck/ (faults-NAME-stuck/ for a named run); each result names
    its file ("kept")."""
    return str(RESULTS_JSON.parent / f"{RESULTS_JSON.stem}-stuck")


def place_section(text: str, body: str, name: str | None) -> str:
    """RESULTS.md with the campaign's section (``name`` None: its main part, before its first
    "### " subsection, which are kept) or run ``name``'s subsection (replaced where it is, else
    added at the end of the section; the section is made if there is none) written as ``body``."""
    sec = re.compile(r"^" + re.escape(SECTION) + r"\n.*?(?=^## |\Z)", re.S | re.M)
    found = sec.search(text)
    if found is None:
        main = body if name is None else SECTION + "\n"
        text, found = text.rstrip("\n") + "\n\n" + main.rstrip("\n") + "\n\n", None
        if name is None:
            return text
        found = sec.search(text)
        assert found is not None
    old = found.group(0)
    if name is None:
        sub = re.search(r"^### ", old, re.M)
        new = body.rstrip("\n") + "\n\n" + (old[sub.start():] if sub else "")
    else:
        head = f"### Run {name}"
        run = re.compile(r"^" + re.escape(head) + r"( .*)?\n.*?(?=^### |\Z)", re.S | re.M)
        if run.search(old):
            new = run.sub(lambda _m: body.rstrip("\n") + "\n\n", old)
        else:
            new = old.rstrip("\n") + "\n\n" + body.rstrip("\n") + "\n\n"
    return text[:found.start()] + new + text[found.end():]
sys.path.insert(0, str(ROOT))

GRACE_S = 180.0  # at the deadline, how long the trials already running may still take
TWIN_ROWS = ("estop_fetch", "estop_deal")  # rows that strike through the firmware, not SimBoard's attributes
MOMENTS = ("random", "read", "after_read", "release", "fetch", "deal")
GAMES_FOR_CUTS = (("hearts", 4), ("german-whist", 2), ("spades-2p", 2), ("partnership-spades", 4),
                  ("cancellation-hearts", 6))


# ---------------------------------------------------------------------------------------- trials

def _trial(row: str, seed: int, keep: str | None = None, twin: bool = False, guard: float = 1200.0) -> dict[str, Any]:
    from trickref.device.simulated.fault_trials import run_trial

    return run_trial(row, seed, guard_s=guard, keep=keep, twin=twin).to_json()


def _load() -> float:
    return os.getloadavg()[0]


class LoadSampler:
    """The 1-minute load average every ``every`` seconds while the campaign runs."""

    def __init__(self, every: float = 10.0) -> None:
        self.samples: list[float] = [_load()]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self._thread.start()

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            self.samples.append(_load())

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self.samples.append(_load())
        s = sorted(self.samples)
        return {"median": round(statistics.median(s), 2), "min": round(s[0], 2), "max": round(s[-1], 2),
                "samples": len(s)}


def _progress(kind: str, record: dict[str, Any]) -> None:
    """One finished trial (or power-cut hand) appended to PROGRESS at once, so a campaign killed or
    cut off keeps what it reached, row by row (``--report-only --from-progress`` writes its table)."""
    PROGRESS.parent.mkdir(parents=True, exist_ok=True)
    with PROGRESS.open("a") as f:
        f.write(json.dumps({"kind": kind, "at": time.strftime("%H:%M:%S"), "load": round(_load(), 2),
                            **record}) + "\n")
        f.flush()


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.time() >= deadline


def _abandon(pool: ProcessPoolExecutor) -> None:
    """At the deadline: the trials still running are cut off (counted as such, not as results);
    their workers and whatever the workers started are killed."""
    workers = [p.pid for p in getattr(pool, "_processes", {}).values() if p.pid]
    doomed = [c for w in workers for c in _children_of(w)] + workers
    pool.shutdown(wait=False, cancel_futures=True)
    for pid in doomed:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def run_rows(rows: list[str], trials: int, jobs: int, base: int, deadline: float | None = None,
             cut_off: list[tuple[str, int]] | None = None, twin: bool = False,
             guard: float = 1200.0) -> list[dict[str, Any]]:
    """The trials, rows interleaved (trial i of every row before trial i + 1 of any): at the deadline
    no trial is started any more and those running get ``grace`` seconds, then are cut off
    (appended to ``cut_off``), so a partial campaign has every row at about the same count."""
    from trickref.device.simulated.fault_trials import EXTRA_ROWS, ROWS

    every = ROWS + EXTRA_ROWS
    work = [(row, base + 1000 * (every.index(row) + 1) + i) for i in range(trials) for row in rows]
    out: list[dict[str, Any]] = []
    ctx = get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
    try:
        pending: dict[Future[dict[str, Any]], tuple[str, int]] = {}
        todo = list(work)
        while todo or pending:
            if _past(deadline):
                todo = []
            while todo and len(pending) < jobs:
                row, seed = todo.pop(0)
                pending[pool.submit(_trial, row, seed, stuck_dir(), twin, guard)] = (row, seed)
            if not pending:
                break
            grace = None if deadline is None else max(1.0, deadline + GRACE_S - time.time())
            done, _ = wait(pending, timeout=grace, return_when=FIRST_COMPLETED)
            if not done and _past(deadline):
                if cut_off is not None:
                    cut_off.extend(pending.values())
                print(f"deadline: {len(pending)} trials still running cut off", flush=True)
                _abandon(pool)
                return out
            for f in done:
                row, seed = pending.pop(f)
                try:
                    r = f.result()
                except Exception as e:  # noqa: BLE001 - a crashed worker is a stuck trial
                    r = {"row": row, "seed": seed, "game": "?", "outcome": "stuck",
                         "detail": _crash_words(e), "seconds": 0.0, "struck": False,
                         "deals": 0, "mismatches": [], "faults": []}
                out.append(r)
                _progress("trial", r)
                print(f"{row:15s} seed {seed:6d} {r['game']:20s} {r['outcome']:9s} {r['seconds']:7.1f} s "
                      f"{r['detail'][:90]}" + (f" (kept: {r['kept']})" if r.get("kept") else ""), flush=True)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return out


def summarize(results: list[dict[str, Any]], rows: list[str]) -> list[dict[str, Any]]:
    table = []
    for row in rows:
        rs = [r for r in results if r["row"] == row]
        if not rs:
            continue
        secs = sorted(r["seconds"] for r in rs)
        q = statistics.quantiles(secs, n=4) if len(secs) >= 4 else [secs[0], secs[len(secs) // 2], secs[-1]]
        table.append({
            "row": row, "trials": len(rs), "struck": sum(1 for r in rs if r["struck"]),
            "right": sum(1 for r in rs if r["outcome"] == "right"),
            "stopped": sum(1 for r in rs if r["outcome"] == "stopped"),
            "stuck": sum(1 for r in rs if r["outcome"] == "stuck"),
            "mismatch": sum(1 for r in rs if r["mismatches"]),
            "changed": sum(1 for r in rs if r["outcome"] == "changed"),
            "deals_complete": sum(1 for r in rs if r["deals"] >= 1),
            "faults_shown": sum(len([f for f in r["faults"] if not f.startswith("msg:")]) for r in rs),
            "pressed": sum(r.get("pressed", 0) for r in rs),
            "seconds_median": round(statistics.median(secs), 1), "seconds_q1": round(q[0], 1),
            "seconds_q3": round(q[-1], 1),
            "games": sorted({r["game"] for r in rs}),
        })
    return table


# ---------------------------------------------------------------------------------- power cuts

CHILD = r'''
import time
T0 = time.monotonic()
import json, os, random, signal, sys, threading
sys.path.insert(0, {root!r})
from trickref.device.dealer import messages as m
from trickref.device.simulated.table import SimTable
from trickref.engine.referee.commands import DealPlan, Fetch, Release
from trickref.engine.referee.events import CardRead

game, players, seed, journal, moment, n, delay, starve, keep = {args!r}

def die():
    os.kill(os.getpid(), signal.SIGKILL)

starved = None
if starve and os.path.exists(journal):  # a restart on a starved machine (--slow-restarts)
    from trickref.device.simulated.fault_trials import Starved
    starved = Starved(starve).start()
t = SimTable(game, players, {{}}, seed=seed, journal_path=journal)
if moment != "none":
    sim = t.sim
    fw = sim.firmware.dealer
    count = [0]
    def head():
        steps = t.referee.steps
        return steps[0] if steps else None
    if moment == "random":
        threading.Timer(delay, die).start()
    elif moment == "read":
        emit = fw.emit
        def e(kind, payload):
            emit(kind, payload)
            if kind == m.EV_PRESENTED:
                count[0] += 1
                if count[0] == n:
                    die()
        fw.emit = e
    elif moment == "after_read":
        j = t.host.journal
        append = j.append
        def a(obj):
            append(obj)
            if isinstance(obj, dict) and obj.get("type") == CardRead.TYPE:
                count[0] += 1
                if count[0] == n:
                    die()
        j.append = a
    elif moment in ("release", "deal"):
        kind_ = Release if moment == "release" else DealPlan
        landed = fw.landed
        def l(card, target, conf, kind):
            landed(card, target, conf, kind)
            if kind == m.EV_CARD_DEALT and isinstance(head(), kind_):
                count[0] += 1
                if count[0] == n:
                    die()
        fw.landed = l
    elif moment == "fetch":
        emit = fw.emit
        def f(kind, payload):
            emit(kind, payload)
            if isinstance(head(), Fetch):
                count[0] += 1
                if count[0] == n:
                    die()
        fw.emit = f
try:
    t.start()
    print("STARTED", time.monotonic() - T0, flush=True)
    if starved is not None:
        starved.stop()
    t.run(max_hands=1)
except Exception as e:  # a stuck run leaves its report and journal (SimTable.keep), then fails
    print("KEPT", t.keep(keep, e), flush=True)
    raise
g = t.referee.game
print(json.dumps({{"results": [dict(r) for r in g.hand_results] if g else None}}))
t.close()
'''


def _crash_words(e: BaseException) -> str:
    """A worker's crash in words that say where: the exception and the last frames of the
    worker's own traceback (ProcessPoolExecutor keeps it as the exception's cause), so a harness
    crash is told apart from a stuck table ("IndexError: list index out of range" alone said
    neither where nor which run)."""
    words = f"{type(e).__name__}: {e}"
    tb = str(getattr(e.__cause__, "tb", "") or "")
    first = tb.split("The above exception was the direct cause")[0]  # the innermost failure's frames
    frames = [ln.strip() for ln in first.splitlines() if ln.strip().startswith("File ")]
    return words + (" at " + " <- ".join(reversed(frames[-3:])) if frames else "")


def _journal_events(path: Path) -> list[Any]:
    from trickref.device.journal import scan

    if not path.exists():
        return []
    records, _end, _reason, _later = scan(path.read_bytes())
    return records


def _clean(game: str, players: int, seed: int) -> Any:
    from trickref.device.simulated.fault_trials import clean_run

    return clean_run(game, players, {}, seed)


def cut_trial(index: int, kills_wanted: int, tmp: str, starve: float = 0.0,
              keep: str | None = None) -> dict[str, Any]:
    """One hand killed up to ``kills_wanted`` times at the moments drawn from ``index``; with
    ``starve``, every restart runs starved of CPU (fault_trials.Starved: pauses of that many
    seconds) until the table is back. A run that ends stuck leaves its report and journal in
    ``keep`` (default: ``stuck_dir()``), named in the result ("kept")."""
    keep = keep or stuck_dir()
    game, players = GAMES_FOR_CUTS[index % len(GAMES_FOR_CUTS)]
    seed = 9000 + index
    rng = random.Random(f"cuts/{index}")
    journal = Path(tmp) / f"cut-{index}.journal"
    if journal.exists():
        journal.unlink()
    try:
        want = _clean(game, players, seed)
    except Exception as e:  # the uninterrupted reference run (in this worker) failed: say so
        raise RuntimeError(f"the uninterrupted run of {game} seed {seed} failed: {type(e).__name__}: {e}") from e
    kills: list[str] = []
    lost = 0
    confirmed: list[Any] = []
    resumes: list[float] = []
    result = None
    detail = ""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    kept = ""
    for attempt in range(kills_wanted + 3):
        if len(kills) < kills_wanted:
            # after a kill the rest of the hand is shorter: later moments come sooner (a deal or
            # a Release a kill interrupted is done again whole, so those moments come again)
            moment = rng.choice(MOMENTS)
            later = 1 if not kills else 3
            n = {"read": rng.randint(1, 12 // later), "after_read": rng.randint(1, 12 // later),
                 "fetch": rng.randint(1, 8 // later), "release": rng.randint(1, 6 // later),
                 "deal": rng.randint(1, 40 // later)}.get(moment, 0)
            delay = rng.uniform(0.5, 3.0)
        else:
            moment, n, delay = "none", 0, 0.0
        report = str(Path(keep) / f"cut-{index}-run{attempt + 1}.txt")
        code = CHILD.format(root=str(ROOT), args=(game, players, seed, str(journal), moment, n, delay, starve,
                                                  report))
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                              timeout=900)
        if kills:  # a restart: how long until the table was back (journal replayed, cards restored)
            started = [ln for ln in proc.stdout.splitlines() if ln.startswith("STARTED ")]
            if started:
                resumes.append(float(started[0].split()[1]))
        if proc.returncode == -signal.SIGKILL:
            kills.append(moment)
            now = _journal_events(journal)
            if now[:len(confirmed)] != confirmed:
                lost += 1
            confirmed = now
            continue
        if proc.returncode != 0:
            detail = (proc.stderr.strip().splitlines() or ["?"])[-1]
            kept = next((ln[5:] for ln in proc.stdout.splitlines() if ln.startswith("KEPT ")), "")
            break
        try:
            result = json.loads(proc.stdout.strip().splitlines()[-1])["results"]
        except (ValueError, IndexError, KeyError):
            detail = "no result printed"
        break
    if journal.exists():
        journal.unlink()
    outcome = "right" if result is not None and result == want and not lost else \
        ("stuck" if result is None else "changed" if result != want else "lost")
    return {"index": index, "game": game, "seed": seed, "kills": kills, "lost": lost,
            "outcome": outcome, "detail": detail, "resume_s": resumes, "kept": kept}


def run_cuts(kills_total: int, jobs: int, per_trial: int, tmp: str, deadline: float | None = None,
             cut_off: list[int] | None = None, starve: float = 0.0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    killed = 0
    index = 0
    ctx = get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
    try:
        pending: dict[Future[dict[str, Any]], int] = {}
        while killed < kills_total or pending:
            while (not _past(deadline) and killed + per_trial * len(pending) < kills_total
                   and len(pending) < jobs):
                pending[pool.submit(cut_trial, index, per_trial, tmp, starve, stuck_dir())] = index
                index += 1
            if not pending:
                break
            grace = None if deadline is None else max(1.0, deadline + GRACE_S - time.time())
            done, _ = wait(pending, timeout=grace, return_when=FIRST_COMPLETED)
            if not done and _past(deadline):
                if cut_off is not None:
                    cut_off.extend(pending.values())
                print(f"deadline: {len(pending)} power-cut trials still running cut off", flush=True)
                _abandon(pool)
                return out
            for f in done:
                i = pending.pop(f)
                try:
                    r = f.result()
                except Exception as e:  # noqa: BLE001
                    game, _players = GAMES_FOR_CUTS[i % len(GAMES_FOR_CUTS)]
                    r = {"index": i, "game": game, "seed": 9000 + i, "kills": [], "lost": 0, "outcome": "stuck",
                         "detail": _crash_words(e), "resume_s": []}
                out.append(r)
                _progress("cut", r)
                killed += len(r["kills"])
                print(f"cut trial {i:4d} {r['game']:20s} kills {len(r['kills']):2d} (total {killed:5d}) "
                      f"{r['outcome']:8s} {r['detail'][:80]}"
                      + (f" (kept: {r['kept']})" if r.get("kept") else ""), flush=True)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return out


def _children_of(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc), deepest first."""
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(d.name))
    out: list[int] = []

    def walk(p: int) -> None:
        for c in kids.get(p, []):
            walk(c)
            out.append(c)

    walk(pid)
    return out


def summarize_cuts(cuts: list[dict[str, Any]]) -> dict[str, Any]:
    kills = [k for c in cuts for k in c["kills"]]
    resumes = sorted(s for c in cuts for s in c["resume_s"])
    return {
        "trials": len(cuts), "kills": len(kills),
        "by_moment": {mo: kills.count(mo) for mo in MOMENTS},
        "right": sum(1 for c in cuts if c["outcome"] == "right"),
        "changed": sum(1 for c in cuts if c["outcome"] == "changed"),
        "lost": sum(c["lost"] for c in cuts),
        "stuck": sum(1 for c in cuts if c["outcome"] == "stuck"),
        "games": sorted({c["game"] for c in cuts}),
        "resume_median_s": round(statistics.median(resumes), 2) if resumes else None,
        "resume_q": [round(x, 2) for x in statistics.quantiles(resumes, n=4)] if len(resumes) >= 4 else None,
    }


# ---------------------------------------------------------------------------------- the report

def write_report(data: dict[str, Any], name: str | None = None) -> None:
    """The figures to RESULTS_JSON (merged over the last run's: a part not run keeps its figures)
    and the table to RESULTS.md: the campaign's section, or run ``name``'s subsection of it."""
    from trickref.device.simulated.fault_trials import ROW_WORDS

    RESULTS_JSON.parent.mkdir(parents=True, exist_ok=True)
    old: dict[str, Any] = {}
    if RESULTS_JSON.exists():
        try:
            old = json.loads(RESULTS_JSON.read_text())
        except ValueError:
            old = {}
    merged = dict(old)
    merged.update(data)  # a part not run this time keeps its last figures
    RESULTS_JSON.write_text(json.dumps(merged, indent=1) + "\n")
    d = merged
    where = f"`benchmarks/results/{RESULTS_JSON.name}`"
    twin = (" **The dealer is the physical twin** (device/dealer/twin.py: every card goes where the flaps and "
            "the belt send it, with the servos', belt's and reader's timings), the hand compared with stays on the "
            "simulated board.") if d.get("twin") else ""
    lines = [SECTION if name is None else f"### Run {name}", "",
             f"`benchmarks/faults.py{'' if name is None else ' --results ' + name}"
             f"{' --twin' if d.get('twin') else ''}` on {d['machine']}; "
             f"every figure in {where}. "
             "Each trial is one hand on `SimTable` (the real firmware behind a pty, pyserial, the real driver, "
             "the table host and referee; bots in every seat, the simulated person doing only what the screen "
             "says), one fault per trial; every seat's pocket is compared with the referee's hand before every "
             "play, and the hand's result with an uninterrupted run of the same seed. The machine is 2 cores "
             "shared by several helpers: times are inflated by waiting for a core." + twin, ""]
    if d.get("rows"):
        ld = d["rows_load"]
        wanted = d.get("rows_wanted")
        short = [r for r in d["rows"] if wanted and r["trials"] < wanted]
        partial = (f" **Partial: stopped at the deadline before the {wanted} trials a row asked for** "
                   f"({', '.join(str(r['trials']) for r in d['rows'])} trials reached; "
                   f"{sum(r.get('cut_off', 0) for r in d['rows'])} trials still running were cut off and are "
                   "not counted).") if short else ""
        lines += [f"Fault rows: {d['rows_when']}, {d['rows_wall_s'] / 60:.0f} min in all, load average (1 min) "
                  f"median {ld['median']} (min {ld['min']}, max {ld['max']}, {ld['samples']} samples).{partial}", "",
                  "| fault | trials (struck) | right | typed stop | stuck | pocket ≠ referee | changed | deals "
                  "complete | stops shown / Resume pressed | seconds a trial, median (IQR) |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in d["rows"]:
            lines.append(f"| {ROW_WORDS[r['row']]} | {r['trials']} ({r['struck']}) | {r['right']} | {r['stopped']} | "
                         f"**{r['stuck']}** | **{r['mismatch']}** | {r['changed']} | "
                         f"{r['deals_complete']} ({100 * r['deals_complete'] / r['trials']:.0f} %) | "
                         f"{r['faults_shown']} / {r['pressed']} | "
                         f"{r['seconds_median']} ({r['seconds_q1']}-{r['seconds_q3']}) |")
        lines.append("")
    if d.get("cuts"):
        c = d["cuts"]
        ld = d["cuts_load"]
        moments = ", ".join(f"{n} {mo.replace('_', ' ')}" for mo, n in c["by_moment"].items())
        if c.get("kills_wanted") and c["kills"] < c["kills_wanted"]:
            lines += [f"**Power cuts partial: stopped at the deadline at {c['kills']} of the {c['kills_wanted']} "
                      f"SIGKILLs asked for** ({c.get('cut_off', 0)} hands still running cut off, not counted).", ""]
        lines += [f"Power cuts: {d['cuts_when']}, {d['cuts_wall_s'] / 60:.0f} min, load average median {ld['median']} "
                  f"(min {ld['min']}, max {ld['max']}). `trickref sim`'s table with a journal in a child process "
                  "that SIGKILLs itself at a drawn moment, started again on the journal until the hand ends."
                  + (f" **Every restart starved of CPU** (`--slow-restarts {c['slow_restarts']}`: the interpreter "
                     f"held {c['slow_restarts']} s at a time until the table was back)." if c.get("slow_restarts")
                     else ""), "",
                  "| trials | SIGKILLs | at the moments | right | changed | lost | stuck | restart to the table back, median (IQR) |",
                  "|---|---|---|---|---|---|---|---|",
                  f"| {c['trials']} ({', '.join(c['games'])}) | {c['kills']} | {moments} | {c['right']} | **{c['changed']}** | "
                  f"**{c['lost']}** | **{c['stuck']}** | {c['resume_median_s']} s ({c['resume_q']}) |", ""]
    for note in d.get("notes") or []:
        lines += [note, ""]
    section = "\n".join(lines)
    text = RESULTS_MD.read_text() if RESULTS_MD.exists() else "# Benchmark results\n\n"
    RESULTS_MD.write_text(place_section(text, section, name).rstrip("\n") + "\n")


def from_progress(rows: list[str], trials_wanted: int, kills_wanted: int) -> dict[str, Any]:
    """The campaign's figures from the progress file: what was reached so far, row by row; the
    load is the 1-minute load average sampled as each trial finished."""
    recs = [json.loads(ln) for ln in PROGRESS.read_text().splitlines() if ln.strip()]
    trials = [r for r in recs if r["kind"] == "trial"]
    cuts = [r for r in recs if r["kind"] == "cut"]
    machine = f"{platform.platform()} (Python {platform.python_version()}, {os.cpu_count()} CPUs)"
    out: dict[str, Any] = {"machine": machine}

    def load(rs: list[dict[str, Any]]) -> dict[str, float]:
        s = sorted(r["load"] for r in rs)
        return {"median": round(statistics.median(s), 2), "min": s[0], "max": s[-1], "samples": len(s)}

    def span(rs: list[dict[str, Any]]) -> tuple[str, float]:
        t = [time.strptime(r["at"], "%H:%M:%S") for r in rs]
        secs = [x.tm_hour * 3600 + x.tm_min * 60 + x.tm_sec for x in t]
        return f"{time.strftime('%Y-%m-%d')} {rs[0]['at'][:5]}-{rs[-1]['at'][:5]} UTC (progress file)", \
            float(max(secs) - min(secs))

    if trials:
        out["rows"] = summarize(trials, rows)
        out["rows_wanted"] = trials_wanted
        out["rows_load"] = load(trials)
        out["rows_when"], out["rows_wall_s"] = span(trials)
        out["trials"] = trials
    if cuts:
        out["cuts"] = summarize_cuts(cuts)
        out["cuts"]["kills_wanted"] = kills_wanted
        out["cuts_load"] = load(cuts)
        out["cuts_when"], out["cuts_wall_s"] = span(cuts)
        out["cut_trials"] = cuts
    return out


def _deadline(text: str | None) -> float | None:
    """``HH:MM`` (UTC) as a time.time() value: the next such time (``--until 00:40`` given at
    23:37 means 00:40 after midnight, not the past 00:40 of today, which would run nothing)."""
    if not text:
        return None
    hh, mm = (int(x) for x in text.split(":"))
    now = time.gmtime()
    at = float(time.mktime((now.tm_year, now.tm_mon, now.tm_mday, hh, mm, 0, 0, 0, 0)) - time.timezone)
    return at + 86400.0 if at <= time.time() else at


def main() -> int:
    from trickref.device.simulated.fault_trials import ROWS

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=100, help="trials per fault row")
    ap.add_argument("--rows", default=",".join(ROWS), help="the rows to run (comma-separated)")
    ap.add_argument("--jobs", type=int, default=4, help="trials at once (processes)")
    ap.add_argument("--cut-jobs", type=int, default=None,
                    help="power-cut trials at once; given, the power cuts run beside the rows, not after them")
    ap.add_argument("--kills", type=int, default=1000, help="SIGKILLs in the power-cut part")
    ap.add_argument("--kills-per-trial", type=int, default=5)
    ap.add_argument("--slow-restarts", type=float, default=0.0, metavar="PAUSE",
                    help="power cuts: every restart runs starved of CPU until the table is back (a thread that "
                         "holds the interpreter PAUSE seconds at a time: 3 makes a restart take ~30 s); costs a "
                         "core per restart running")
    ap.add_argument("--seed", type=int, default=0, help="added to every trial's seed")
    ap.add_argument("--guard", type=float, default=1200.0, metavar="SECONDS",
                    help="a trial with no end after this long is stuck (wall time)")
    ap.add_argument("--twin", action="store_true",
                    help="the dealer is the physical twin (device/dealer/twin.py: cards go where the flaps and "
                         "belt send them) instead of the simulated board; only for rows that strike through the "
                         f"firmware ({', '.join(TWIN_ROWS)}); the uninterrupted run compared with stays on the "
                         "simulated board")
    ap.add_argument("--until", default=None, metavar="HH:MM",
                    help="UTC: start nothing after it, cut off what still runs 3 min later, and write "
                         "the table of what was reached")
    ap.add_argument("--no-trials", action="store_true")
    ap.add_argument("--no-cuts", action="store_true")
    ap.add_argument("--tmp", default=None, help="folder for the power cuts' journals")
    ap.add_argument("--note", action="append", default=None,
                    help="a paragraph under the table (what was fixed since the run, say); replaces the last notes")
    ap.add_argument("--report-only", action="store_true",
                    help="write RESULTS.md again from benchmarks/results/faults.json, running nothing")
    ap.add_argument("--results", default=None, metavar="NAME",
                    help="this run's own figures: benchmarks/results/faults-NAME.json, its own progress file "
                         "and RESULTS.md subsection ('### Run NAME'); the main table is left as it is")
    ap.add_argument("--record", action="store_true",
                    help="this run is the campaign of record: its figures go to benchmarks/results/faults.json "
                         "and the main table of RESULTS.md's 'Dealer link fault campaign' section")
    ap.add_argument("--from-progress", action="store_true",
                    help="with --report-only: the table from what the progress file holds (a campaign "
                         "still running or killed), with --trials and --kills as the counts asked for")
    args = ap.parse_args()
    if args.record and args.results is not None:
        print("faults.py: --record and --results NAME: one or the other", file=sys.stderr)
        return 2
    if not args.record and args.results is None:
        print("faults.py: say where the figures go: --results NAME (this run's own file and RESULTS.md "
              "subsection) or --record (the campaign of record: benchmarks/results/faults.json and the main "
              "table of the 'Dealer link fault campaign' section, written over)", file=sys.stderr)
        return 2
    try:
        use_results(args.results)
    except ValueError as e:
        print(f"faults.py: {e}", file=sys.stderr)
        return 2
    if args.twin and not set(r for r in args.rows.split(",") if r) <= set(TWIN_ROWS):
        print(f"faults.py: --twin runs only the rows {', '.join(TWIN_ROWS)}", file=sys.stderr)
        return 2
    notes = {"notes": args.note} if args.note is not None else {}
    if args.report_only:
        if args.from_progress:
            notes.update(from_progress([r for r in args.rows.split(",") if r], args.trials, args.kills))
        write_report(notes, args.results)
        return 0
    if PROGRESS.exists():
        PROGRESS.rename(PROGRESS.with_suffix(".jsonl.old"))
    machine = f"{platform.platform()} (Python {platform.python_version()}, {os.cpu_count()} CPUs)"
    data: dict[str, Any] = {"machine": machine, "notes": args.note or []}
    rows = [r for r in args.rows.split(",") if r]
    deadline = _deadline(args.until)

    def do_rows() -> None:
        sampler = LoadSampler()
        t0 = time.monotonic()
        data["rows_when"] = time.strftime("%Y-%m-%d %H:%M")
        cut_off: list[tuple[str, int]] = []
        results = run_rows(rows, args.trials, args.jobs, args.seed, deadline, cut_off, args.twin, args.guard)
        data["guard_s"] = args.guard
        data["twin"] = args.twin
        data["rows_wall_s"] = time.monotonic() - t0
        data["rows_load"] = sampler.stop()
        data["rows"] = summarize(results, rows)
        for r in data["rows"]:
            r["cut_off"] = sum(1 for row, _seed in cut_off if row == r["row"])
        data["rows_wanted"] = args.trials
        data["trials"] = results
        for r in data["rows"]:
            print(r)

    def do_cuts() -> None:
        import tempfile

        tmp = args.tmp or tempfile.mkdtemp(prefix="trickref-cuts-")
        sampler = LoadSampler()
        t0 = time.monotonic()
        data["cuts_when"] = time.strftime("%Y-%m-%d %H:%M")
        cut_off: list[int] = []
        cuts = run_cuts(args.kills, args.cut_jobs or args.jobs, args.kills_per_trial, tmp, deadline, cut_off,
                        args.slow_restarts)
        data["cuts_wall_s"] = time.monotonic() - t0
        data["cuts_load"] = sampler.stop()
        data["cuts"] = summarize_cuts(cuts)
        data["cuts"]["cut_off"] = len(cut_off)
        data["cuts"]["kills_wanted"] = args.kills
        data["cuts"]["slow_restarts"] = args.slow_restarts
        data["cut_trials"] = cuts
        print(data["cuts"])

    beside = None
    if not args.no_cuts and not args.no_trials and args.cut_jobs:
        beside = threading.Thread(target=do_cuts)
        beside.start()
    if not args.no_trials:
        do_rows()
    if beside is not None:
        beside.join()
    elif not args.no_cuts:
        do_cuts()
    ran = len(data.get("trials", [])) + len(data.get("cut_trials", []))
    if not ran:  # never overwrite a campaign's figures with an empty table
        print(f"faults.py: no trial finished: benchmarks/results/{RESULTS_JSON.name} and RESULTS.md left as they were",
              file=sys.stderr)
        return 1
    write_report(data, args.results)
    print(f"wrote {RESULTS_JSON.relative_to(ROOT)} and the campaign's "
          f"{'section' if args.results is None else 'subsection Run ' + args.results} of {RESULTS_MD.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
