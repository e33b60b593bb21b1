"""Bad input to the command line (issue 18): a file made to break the reader, a deck of numbers,
a record without hands, a --journal that is not a journal or holds another game, and a full
disk under the journal. Each ends in a message naming what and why and the exit status the
README gives; nothing the person handed in is changed.

The full disk is a real one: a 16 KiB tmpfs mounted in a mount namespace of its own
(``unshare``: as root, or as a user where user namespaces are allowed), so the journal's
write gets ENOSPC from the kernel, exactly as on a full SD card."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parents[1] / "golden"
TRICKREF = [sys.executable, "-m", "trickref.ui.cli"]


def run(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.run([*TRICKREF, *args], capture_output=True, text=True, timeout=timeout, env=env, **kw)


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def a_record() -> dict:
    path = next(p for p in sorted(GOLDEN.glob("*.json")) if '"deck"' in p.read_text() and "scorekeeper" not in p.read_text())
    return json.loads(path.read_text())


def bad_records() -> list[tuple[str, str, str]]:
    """(name, file text, words the refusal must hold)."""
    rec = a_record()
    numbers = json.loads(json.dumps(rec))
    numbers["hands"][0]["deck"][0] = 7
    no_hands = {k: v for k, v in rec.items() if k != "hands"}
    deep = '{"format": "trickref-record/1", "game": "hearts", "options": ' + "[" * 100_000 + "]" * 100_000 + "}"
    deep_object = '{"format": "trickref-record/1", "hands": [' + '{"a":' * 50_000 + "1" + "}" * 50_000 + "]}"
    return [("deck-with-a-number", json.dumps(numbers), "hands[0].deck[0]: not a card: 7"),
            ("no-hands", json.dumps(no_hands), "hands: missing"),
            ("deep-lists", deep, "nested too deeply"),
            ("deep-objects", deep_object, "nested too deeply")]


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_broken_records_are_one_line_and_exit_2(command: str, tmp_path: Path) -> None:
    for name, text, words in bad_records():
        f = tmp_path / f"{name}.json"
        f.write_text(text)
        r = run(command, str(f))
        assert r.returncode == 2, (name, r.returncode, r.stderr[-500:])
        line = one_line(r)
        assert line.startswith(f"trickref {command}: {f}: invalid record") and words in line, (name, line)
        assert r.stdout == ""


def test_the_record_used_above_is_itself_good(tmp_path: Path) -> None:
    f = tmp_path / "good.json"
    f.write_text(json.dumps(a_record()))
    assert run("replay", str(f)).returncode == 0


def test_a_rule_option_out_of_range_is_one_line_and_exit_2() -> None:
    r = run("sim", "--game", "hearts", "--players", "4", "--option", "target=40")
    assert r.returncode == 2 and "options.target: must be at least 50, not 40" in one_line(r), r.stderr


def sim(*args: str, journal: Path, **kw) -> subprocess.CompletedProcess[str]:
    return run("sim", *args, "--seed", "4", "--journal", str(journal), **kw)


@pytest.mark.parametrize("content", [
    "record", "random", "text",
])
def test_a_journal_option_naming_a_file_that_is_not_a_journal_leaves_it_untouched(content: str, tmp_path: Path) -> None:
    f = tmp_path / "not-a-journal"
    data = {"record": json.dumps(a_record()).encode(), "random": bytes(range(256)) * 4,
            "text": b"Shopping list: eggs, flour\n"}[content]
    f.write_bytes(data)
    f.chmod(0o644)
    before = f.stat()
    r = sim("--game", "hearts", "--players", "4", "--hands", "1", journal=f)
    assert r.returncode == 2, r.stderr
    line = one_line(r)
    assert f"--journal {f}: not a trickref journal" in line and "left untouched" in line, line
    after = f.stat()
    assert f.read_bytes() == data and (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)


def test_a_journal_of_another_game_is_refused_saying_which_game_it_holds(tmp_path: Path) -> None:
    j = tmp_path / "hearts.journal"
    first = sim("--game", "hearts", "--players", "4", "--hands", "1", journal=j)
    assert first.returncode == 0, first.stderr
    data = j.read_bytes()
    for game, n in (("spades-2p", "2"), ("hearts", "5")):
        r = sim("--game", game, "--players", n, journal=j)
        assert r.returncode == 2, r.stderr
        line = one_line(r)
        assert "holds a hearts game of 4 players" in line and "--game hearts --players 4" in line, line
        assert j.read_bytes() == data
    again = sim("--game", "hearts", "--players", "4", "--hands", "2", journal=j)
    assert again.returncode == 0 and "resumed from" in again.stdout, again.stderr
    # the hands in their order: the earlier run's first (they were printed last, after hand 2)
    lines = again.stdout.splitlines()
    assert lines[0].startswith("resumed from") and lines[1].startswith("hand 1: ") and "(before the restart)" in lines[1]
    assert lines[2].startswith("hand 2: ") and "(before the restart)" not in lines[2], lines


def _unshare() -> list[str] | None:
    """A command prefix that runs in a new mount namespace where this process may mount."""
    exe = shutil.which("unshare")
    if exe is None:
        return None
    for prefix in ([exe, "-m"] if os.geteuid() == 0 else [], [exe, "-Urm"]):
        if prefix and subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return None


def test_a_full_disk_under_the_journal_is_named_and_the_game_resumes_once_there_is_room(tmp_path: Path) -> None:
    prefix = _unshare()
    if prefix is None:
        pytest.skip("no unshare that may mount here (util-linux, root or user namespaces): no real full disk")
    disk = tmp_path / "disk"
    disk.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    game = ["--game", "hearts", "--players", "4", "--seed", "3", "--option", "target=60"]
    cmd = " ".join([*TRICKREF, "sim", *game, "--journal", str(disk / "j")])
    # one shell in one namespace: mount a 16 KiB tmpfs, play until the journal fills it, make
    # room (a bigger tmpfs: the same file system, remounted), play the same command again
    script = (f"mount -t tmpfs -o size=16k tmpfs {disk} && "
              f"{{ {cmd} > {out}/1.out 2> {out}/1.err; echo $? > {out}/1.rc; }} && "
              f"cp {disk}/j {out}/full.journal && mount -o remount,size=4m {disk} && "
              f"{{ {cmd} > {out}/2.out 2> {out}/2.err; echo $? > {out}/2.rc; }}")
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    r = subprocess.run([*prefix, "sh", "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert (out / "1.rc").read_text().strip() == "1"
    err = (out / "1.err").read_text()
    assert "Traceback" not in err and "never read" not in err, err
    line = one_line(subprocess.CompletedProcess([], 1, "", err))
    assert f"writing its journal {disk / 'j'} failed (No space left on device)" in line, line
    assert f"The disk at {disk} (tmpfs) has 0 bytes free of 16 KiB" in line and "Make room on that disk" in line
    assert "run the same command again" in line
    # the second run resumed and ended as an uninterrupted one does
    assert (out / "2.rc").read_text().strip() == "0", (out / "2.err").read_text()
    resumed = (out / "2.out").read_text()
    whole = run("sim", *game)
    assert whole.returncode == 0, whole.stderr
    assert "resumed from" in resumed
    assert resumed.strip().splitlines()[-1] == whole.stdout.strip().splitlines()[-1]  # the winner line
