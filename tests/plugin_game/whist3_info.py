"""Three-handed Whist's descriptor (a plug-in game of the tests: TRICKREF_GAMES=whist3_info, with
this folder on the import path, or ``catalog.register(INFO)``)."""

from __future__ import annotations

from pathlib import Path

from trickref.engine.catalog import GameInfo
from trickref.engine.optionspec import target

INFO = GameInfo(
    id="whist-3p",
    title="Three-handed Whist",
    player_counts=(3,),
    rules="whist3:Whist3State",
    bot="whist3",
    keeping="whist3:Whist3Keeping",
    options=(target(30, 1, (20, 30, 50)),),
    leftover="reject",
    check_letter="t",
    sheet_columns=("tricks", "score"),
    help_dir=str(Path(__file__).parent / "help"),
)
