"""End to end: the tests' own sixth game (tests/plugin_game, Three-handed Whist), named to a
``trickref`` process only by the catalog's plug-in hook (``TRICKREF_GAMES`` with its folder on
``PYTHONPATH``), plays a whole game in ``trickref sim`` on the simulated table (the dealer
simulator's firmware deals 17 cards each and the 52nd to the reject pocket), and its record
replays and verifies (issue 19 point 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PLUGIN = Path(__file__).resolve().parents[1] / "plugin_game"


def _trickref(*args: str, plugin: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("TRICKREF_GAMES", None)
    if plugin:
        env["TRICKREF_GAMES"] = "whist3_info"
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGIN), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "trickref.ui.cli", *args], env=env, capture_output=True,
                          text=True, timeout=300)


def test_sim_plays_the_plugin_game_to_the_end_and_its_record_verifies(tmp_path: Path) -> None:
    run = _trickref("sim", "--json", "--game", "whist-3p", "--players", "3", "--seed", "5", "--to-end",
                    "--option", "target=12", "--records", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    res = json.loads(run.stdout.strip().splitlines()[-1])
    assert res["game"] == "whist-3p" and res["over"] and len(res["winners"]) == 1
    assert all(sum(h["points"]) == 17 for h in res["hands"]) and not res["dealer_faults"]
    replayed = _trickref("replay", "--json", res["record"])
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["totals"] == res["totals"]
    verified = _trickref("verify", res["record"])
    assert verified.returncode == 0 and "all hands verify" in verified.stdout
    # without the plug-in the game is unknown, said in words
    unknown = _trickref("sim", "--game", "whist-3p", "--players", "3", plugin=False)
    assert unknown.returncode == 2 and "unknown game 'whist-3p'" in unknown.stderr
