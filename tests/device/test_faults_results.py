"""benchmarks/faults.py's results naming (issue 18): a run given ``--results NAME`` writes its own
figures (faults-NAME.json), its own progress file and its own RESULTS.md subsection, and never
the main table; a run without a name writes the main table and keeps the named runs'
subsections. Text only: no trial runs here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("faults_bench", ROOT / "benchmarks" / "faults.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "faults_bench", mod)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(mod, "ROOT", tmp_path)
    monkeypatch.setattr(mod, "RESULTS_MD", tmp_path / "RESULTS.md")
    return mod


DOC = """# Benchmark results

## Before

a

## Dealer link fault campaign (issue 18)

the main table, first run

### Second run, on the merged main (by hand)

kept

## After

b
"""


def _data(n: int) -> dict[str, Any]:
    return {"machine": "m", "notes": [f"note {n}"]}


def test_a_named_run_writes_its_own_files_and_subsection(faults: Any, tmp_path: Path) -> None:
    (tmp_path / "RESULTS.md").write_text(DOC)
    faults.use_results("slow-restarts")
    assert faults.RESULTS_JSON == tmp_path / "benchmarks" / "results" / "faults-slow-restarts.json"
    assert faults.PROGRESS.name == "faults-slow-restarts-progress.jsonl"
    faults.write_report(_data(1), "slow-restarts")
    text = (tmp_path / "RESULTS.md").read_text()
    assert "the main table, first run" in text and "### Second run, on the merged main (by hand)\n\nkept" in text
    assert text.index("kept") < text.index("### Run slow-restarts") < text.index("## After")
    assert "faults-slow-restarts.json" in text and "note 1" in text
    assert not (tmp_path / "benchmarks" / "results" / "faults.json").exists()
    # the same name again replaces its subsection, in place; another name gets its own
    faults.write_report(_data(2), "slow-restarts")
    faults.use_results("other")
    faults.write_report(_data(3), "other")
    text = (tmp_path / "RESULTS.md").read_text()
    assert text.count("### Run slow-restarts") == 1 and "note 1" not in text and "note 2" in text
    assert text.index("### Run slow-restarts") < text.index("### Run other") < text.index("## After")
    # a run without a name: the main table, the subsections kept
    faults.use_results(None)
    faults.write_report(_data(4))
    text = (tmp_path / "RESULTS.md").read_text()
    assert "the main table, first run" not in text and "note 4" in text
    assert "kept" in text and "note 2" in text and "note 3" in text
    assert text.index("note 4") < text.index("### Second run") and text.endswith("## After\n\nb\n")
    assert (tmp_path / "benchmarks" / "results" / "faults.json").exists()


def test_a_bad_name_is_refused(faults: Any) -> None:
    for bad in ("", "../x", "a b", "x" * 41):
        with pytest.raises(ValueError, match="a run's name"):
            faults.use_results(bad)


def _reference_run_fails() -> None:
    try:
        [].pop()  # where the worker's own run fails
    except IndexError as e:
        raise RuntimeError(f"the uninterrupted run of spades-2p seed 9002 failed: {type(e).__name__}: {e}") from e


def test_a_crashed_worker_is_told_with_where_it_failed(faults: Any) -> None:
    """A trial whose worker process raised (not a stuck table: the harness or its reference run)
    is reported with the innermost failure's place, from the worker's own traceback (the last
    campaign's "IndexError: list index out of range" said neither where nor which run)."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:
        with pytest.raises(RuntimeError) as caught:
            pool.submit(_reference_run_fails).result()
    words = faults._crash_words(caught.value)
    assert words.startswith("RuntimeError: the uninterrupted run of spades-2p seed 9002 failed: IndexError")
    assert "in _reference_run_fails" in words and "test_faults_results.py" in words


@pytest.mark.parametrize("argv, said", [
    (["--rows", "estop_fetch", "--trials", "1", "--no-cuts"], "say where the figures go"),
    (["--record", "--results", "check", "--no-cuts"], "one or the other"),
    (["--report-only"], "say where the figures go"),
])
def test_the_campaign_of_record_is_written_only_when_asked(
        faults: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], said: str) -> None:
    """A check run by hand (the fifteenth session's estop_fetch seeds, run without ``--results``)
    wrote its one row over the campaign of record, eight rows and the power cuts: a run must say
    ``--record`` or ``--results NAME``, and is refused before it starts (no trial, no file)."""
    (tmp_path / "RESULTS.md").write_text(DOC)
    monkeypatch.setattr(faults, "RESULTS_JSON", tmp_path / "benchmarks" / "results" / "faults.json")
    monkeypatch.setattr(sys, "argv", ["faults.py", *argv])
    assert faults.main() == 2
    assert said in capsys.readouterr().err
    assert (tmp_path / "RESULTS.md").read_text() == DOC
    assert not (tmp_path / "benchmarks").exists()
