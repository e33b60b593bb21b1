"""``trickref replay FILE [--json]`` as RECORDS.md describes it: exit 0 with the result, 1 at
the first illegal action (its place and rule on stderr, an error object with --json), 2 for a
file that is not a valid record (the field named, never a traceback). A few cases run the real
console script in a subprocess; the rest call ``ui.cli.main`` in-process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_records import _illegal_follow, gw_record

from trickref.ui.cli import main

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SCRIPT = Path(sys.executable).parent / "trickref"
GAME = GOLDEN / "german-whist-bot-game.json"


def run_script(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    assert SCRIPT.exists(), f"the console script is not installed at {SCRIPT}"
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, timeout=60)


def write(tmp_path: Path, obj: Any, name: str = "game.json") -> Path:
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


# ---------------------------------------------------------------------------- the real script
def test_script_replays_a_golden_record_as_one_json_object() -> None:
    before = GAME.read_bytes()
    r = run_script("replay", str(GAME), "--json")
    assert r.returncode == 0, r.stderr
    assert r.stderr == b""
    out = json.loads(r.stdout)  # exactly one JSON object, nothing else on stdout
    assert out == json.loads(GAME.with_name(GAME.stem + ".expected.json").read_text())
    assert set(out) == {"game", "hands", "totals", "bags", "over", "winners"}
    assert GAME.read_bytes() == before  # nothing is written to the input


def test_script_reads_standard_input() -> None:
    r = run_script("replay", "-", "--json", stdin=GAME.read_bytes())
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["winners"] == [0]


def test_script_exits_1_at_the_first_illegal_action(tmp_path: Path) -> None:
    bad, i, seat, card, suit = _illegal_follow(gw_record())
    path = write(tmp_path, bad)
    r = run_script("replay", str(path), "--json")
    assert r.returncode == 1
    assert json.loads(r.stdout) == {"error": {"hand": 0, "action": i, "seat": seat, "reason": f"must follow {suit}"}}
    err = r.stderr.decode()
    # words for people count from 1 and name the player; the JSON keeps RECORDS.md's indices
    who = f"{bad['players'][seat]} (seat {seat + 1})"
    assert f"hand 1, action {i + 1}: {who} cannot play {card}: must follow {suit}" in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_script_exits_2_for_an_invalid_file(tmp_path: Path) -> None:
    path = write(tmp_path, "{not json")
    r = run_script("replay", str(path))
    assert r.returncode == 2 and r.stdout == b""
    err = r.stderr.decode()
    assert "file: not valid JSON" in err and "Traceback" not in err


# ---------------------------------------------------------------------------- in-process
def test_text_mode_prints_the_score_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GAME)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("german-whist: ")
    assert "Ana" in out and "Ben" in out and "game over; winner(s): Ana" in out
    assert main(["replay", str(GOLDEN / "german-whist-in-progress.json")]) == 0
    assert capsys.readouterr().out.rstrip().endswith("game in progress")


def test_text_mode_illegal_action_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad, i, seat, card, suit = _illegal_follow(gw_record())
    assert main(["replay", str(write(tmp_path, bad))]) == 1
    cap = capsys.readouterr()
    assert cap.out == ""
    who = f"{bad['players'][seat]} (seat {seat + 1})"
    assert f"hand 1, action {i + 1}: {who} cannot play {card}: must follow {suit}" in cap.err


def _rec(**change: Any) -> dict[str, Any]:
    rec = gw_record()
    rec.update(change)
    return rec


def _deck(deck: list[str]) -> dict[str, Any]:
    rec = gw_record()
    rec["hands"][0]["deck"] = deck
    return rec


INVALID = [
    ("bad JSON", "[1, 2,", "file", "not valid JSON"),
    ("unknown game", _rec(game="skat"), "game", "unknown game 'skat'"),
    ("wrong player count", _rec(players=["A", "B", "C", "D"]), "players", "german-whist is for 2 players, not 4"),
    ("deck not full", _deck(gw_record()["hands"][0]["deck"][:-1]), "hands[0].deck", "has 51 cards"),
    ("deck with a repeat", _deck(["AS"] * 52), "hands[0].deck", "AS appears too often"),
    ("unknown card", _deck(["XX", *gw_record()["hands"][0]["deck"][1:]]), "hands[0].deck", "not a card: 'XX'"),
    ("bad option", _rec(options={"score_all_tricks": 1}), "options.score_all_tricks", "must be true or false"),
    ("unknown option", _rec(options={"omnibus": True}), "options.omnibus", "unknown option"),
]


@pytest.mark.parametrize(("what", "content", "field", "words"), INVALID, ids=[x[0] for x in INVALID])
def test_invalid_files_exit_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, content: Any, field: str, words: str
) -> None:
    path = write(tmp_path, content)
    assert main(["replay", str(path), "--json"]) == 2
    cap = capsys.readouterr()
    assert json.loads(cap.out) == {"error": {"field": field, "reason": json.loads(cap.out)["error"]["reason"]}}
    assert words in json.loads(cap.out)["error"]["reason"]
    assert f"invalid record: {field}: " in cap.err and words in cap.err
    assert "Traceback" not in cap.err
    assert main(["replay", str(path)]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and f"{field}: " in cap.err


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert "file: cannot read" in capsys.readouterr().err
