"""The engine's two builds (engine/build.py): the compiled one (mypyc, built by the install) and
the pure-Python one (its sources, TRICKREF_PURE_PYTHON=1). The suite runs on the build the
install made; scripts/test.sh runs tests/engine again on the pure-Python build. Here: which
build runs is said and honoured, and both play the same seeded games to the same records,
bit for bit (the other build runs in a subprocess)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import game_player_counts, random_action

from trickref.engine import ENGINE_BUILD, ENGINE_BUILD_NOTE, base, hearts
from trickref.engine import cards as C
from trickref.engine.build import COMPILED, describe
from trickref.engine.games import new_game
from trickref.engine.rand import Rand

HERE = Path(__file__).resolve().parent


def play_records(seed: int = 7, hands: int = 3) -> dict[str, Any]:
    """Seeded random games of every game and player count: each game's record (to_json) and
    the views after every hand; the same seed must give the same output in either build."""
    out: dict[str, Any] = {}
    for game, n in game_player_counts():
        rng = random.Random(f"{seed} {game} {n}")
        rand = Rand(rng.getrandbits(32))
        st = new_game(game, n)
        views = []
        for h in range(hands):
            if st.over:
                break
            if h % 2:  # the engine's own random deal (its generator, engine/rand.py)
                st.start_random_hand(rand)
            else:
                deck = C.full_deck(st.DECKS)
                rng.shuffle(deck)
                st.start_hand(deck)
            while st.turn_seats():
                seat, action = random_action(st, rng)
                st.apply(action, seat)
            views.append([st.view(s) for s in range(n)])
        if st.can_undo():  # undo and copies too
            st.undo()
        out[f"{game}:{n}"] = {"record": st.to_json(), "views": views, "copy_equal": st.copy() == st}
    return out


def _other_build() -> tuple[str, dict[str, str]]:
    env = dict(os.environ)
    if ENGINE_BUILD == "compiled":
        env["TRICKREF_PURE_PYTHON"] = "1"
        return "python", env
    env.pop("TRICKREF_PURE_PYTHON", None)
    return "compiled", env


def test_the_build_in_use_is_said_and_its_modules_are_that_build() -> None:
    assert ENGINE_BUILD in ("compiled", "python") and ENGINE_BUILD_NOTE
    assert describe().startswith("compiled" if ENGINE_BUILD == "compiled" else "pure Python")
    compiled = not str(hearts.__file__).endswith(".py")
    assert compiled == (ENGINE_BUILD == "compiled") == base.COMPILED
    if os.environ.get("TRICKREF_PURE_PYTHON", "") not in ("", "0"):
        assert ENGINE_BUILD == "python" and "TRICKREF_PURE_PYTHON" in ENGINE_BUILD_NOTE
    if os.environ.get("CI") == "true" and os.environ.get("TRICKREF_PURE_PYTHON", "") in ("", "0"):
        assert ENGINE_BUILD == "compiled", f"CI installs the compiled engine; here: {ENGINE_BUILD_NOTE}"
    for name in COMPILED:
        mod = sys.modules.get(f"trickref.engine.{name}")
        if mod is not None:
            assert str(mod.__file__).endswith(".py") != compiled, (name, mod.__file__)


def test_both_builds_play_the_same_seeded_games_to_the_same_records() -> None:
    other, env = _other_build()
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import test_engine_builds as t; "
            "from trickref.engine import ENGINE_BUILD; print(json.dumps([ENGINE_BUILD, t.play_records()]))")
    r = subprocess.run([sys.executable, "-c", code, str(HERE)], env=env, capture_output=True, text=True,
                       timeout=240, cwd=HERE)
    assert r.returncode == 0, r.stderr[-3000:]
    ran, theirs = json.loads(r.stdout)
    if ran != other:
        pytest.skip(f"only the {ENGINE_BUILD} build is installed here ({ENGINE_BUILD_NOTE})")
    ours = json.loads(json.dumps(play_records()))
    assert ours.keys() == theirs.keys()
    for key in ours:
        assert ours[key] == theirs[key], f"{key}: the {ENGINE_BUILD} and {other} builds differ"
