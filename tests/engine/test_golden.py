"""Every golden record under tests/golden/ replays to its .expected.json (the object that
``trickref replay --json`` prints). Game owners add their games' records there; a record
without its expected file fails, so a golden cannot be added half-done."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trickref.engine.records import load, replay, summary

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
RECORDS = sorted(p for p in GOLDEN.glob("*.json") if not p.name.endswith(".expected.json"))


def test_there_are_golden_records() -> None:
    assert any(p.name.startswith("german-whist") for p in RECORDS)


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_golden_record_replays_to_its_expected_result(path: Path) -> None:
    expected_path = path.with_name(path.stem + ".expected.json")
    assert expected_path.exists(), f"{path.name} has no {expected_path.name}"
    expected = json.loads(expected_path.read_text())
    record = load(str(path))
    state = replay(record)
    assert summary(state) == expected
    # the record is canonical: writing the replayed game gives the file's object back
    assert state.to_json() == json.loads(path.read_text())


def test_every_expected_file_has_its_record() -> None:
    for exp in GOLDEN.glob("*.expected.json"):
        assert exp.with_name(exp.name.replace(".expected.json", ".json")).exists(), exp.name
