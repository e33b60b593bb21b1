"""The C-state spike (c_state_spike.c, built as ``_core`` in this folder like the prototype, see
README.md): ``check`` plays 300 random partnership Spades hands with and without it and compares
every legal list, every return of ``apply`` and each hand's totals, tricks taken, tricks and
actions; ``base``, ``core`` and ``plain`` print hands per CPU second over 1.5 s of
benchmarks/engine.py's loop for our engine, our engine with the spike, and OpenSpiel's spades
driven the plain way."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(HERE))

from trickref.engine import cards as C  # noqa: E402
from trickref.engine import masks  # noqa: E402
from trickref.engine import spades_common as S  # noqa: E402
from trickref.engine.actions import Action  # noqa: E402
from trickref.engine.games import game_class, new_game  # noqa: E402

OPTS = {"trump": "spades", "must_beat": False, "first_lead": "left"}


def install() -> None:
    import _core  # the spike (README.md)

    cls = game_class("partnership-spades")
    _core.install(cls, cls, Action, masks.SEAT_PLAY, masks.SEAT_CARD, S.SEATS, masks.SUIT_PLAYS)


def run(hands: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    deck = C.full_deck()
    out: list[Any] = []
    st = new_game("partnership-spades", 4, OPTS)
    for _ in range(hands):
        if st.over or st.hand_number >= 30:
            st = new_game("partnership-spades", 4, OPTS)
        rng.shuffle(deck)
        st.start_hand(deck)
        seats = st.turn_seats()
        while seats:
            seat = seats[0] if len(seats) == 1 else rng.choice(seats)
            legal = st.legal_actions(seat)
            a = rng.choice(legal)
            if a.kind == "exchange":
                a = Action("exchange", (a.value[0], tuple(sorted(rng.sample(st.discards, len(a.value[0]))))))
            seats = st.apply(a, seat)
            out.append((tuple(legal), seats))
        out.append((list(st.totals), list(st.tricks_taken), list(st.tricks), list(st.actions)))
    return out


def main() -> None:
    mode = sys.argv[1]
    if mode == "check":
        ref = run(300, 7)
        install()
        print("the same:", ref == run(300, 7))
        return
    spec = importlib.util.spec_from_file_location("engine_bench", ROOT / "benchmarks" / "engine.py")
    assert spec is not None and spec.loader is not None
    eng = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(eng)
    if mode == "plain":
        print(eng.openspiel_hands("spades", 1.5, 1)["hands_per_second"])
        return
    if mode == "core":
        install()
    print(eng.our_hands("partnership-spades", 4, OPTS, 1.5, 1)["hands_per_second"])


if __name__ == "__main__":
    main()
