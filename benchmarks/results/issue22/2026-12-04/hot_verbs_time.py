"""``hot_verbs_time.py MODE GAME``: benchmarks/engine.py's ``our_hands`` for 1.5 CPU s, with the C
prototype installed (MODE ``hot``) or not (``base``); prints hands per CPU second."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]


def main() -> None:
    mode, game = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("engine_bench", ROOT / "benchmarks" / "engine.py")
    assert spec is not None and spec.loader is not None
    eng = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(eng)
    if mode == "hot":
        sys.path.insert(0, str(HERE))
        import _hot  # the prototype (README.md)

        from trickref.engine import masks
        from trickref.engine import spades_common as S
        from trickref.engine.actions import Action

        _hot.install(S.SpadesTrickState, Action, masks.SEAT_PLAY, masks.BIT, masks.SEAT_CARD, S.SEATS,
                     masks.SUIT_PLAYS, S.NOT_SUIT)
    opts = eng.SPADES_LIKE_OPENSPIEL if game == "partnership-spades" else {}
    print(eng.our_hands(game, 4, opts, 1.5, 1)["hands_per_second"])


if __name__ == "__main__":
    main()
