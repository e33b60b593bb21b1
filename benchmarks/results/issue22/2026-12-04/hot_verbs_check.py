"""The C prototype against the compiled engine: 200 random partnership Spades hands (2 % illegal
attempts), every legal list, return value and state field compared. Run with the prototype's
``_hot`` module built in this folder (README.md)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from trickref.engine import cards as C  # noqa: E402
from trickref.engine import masks  # noqa: E402
from trickref.engine import spades_common as S  # noqa: E402
from trickref.engine.actions import Action  # noqa: E402
from trickref.engine.games import new_game  # noqa: E402

OPTS = {"trump": "spades", "must_beat": False, "first_lead": "left"}


def snapshot(st: Any) -> tuple[Any, ...]:
    return (st.phase, st.on_turn, list(st.masks), list(st.trick), list(st.tricks), st.led, st.win_card,
            st.broken, list(st.actions), list(st.totals))


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
            if rng.random() < 0.02:  # an illegal attempt: a seat not on turn
                try:
                    st.apply(a, (seat + 1) % 4)
                except Exception as e:  # noqa: BLE001 - the refusal is compared
                    out.append(f"{type(e).__name__}: {e}")
            if a.kind == "exchange":
                a = Action("exchange", (a.value[0], tuple(sorted(rng.sample(st.discards, len(a.value[0]))))))
            seats = st.apply(a, seat)
            out.append((tuple(legal), seats, snapshot(st)))
    return out


def main() -> None:
    ref = run(200, 5)
    import _hot  # the prototype (README.md)

    _hot.install(S.SpadesTrickState, Action, masks.SEAT_PLAY, masks.BIT, masks.SEAT_CARD, S.SEATS,
                 masks.SUIT_PLAYS, S.NOT_SUIT)
    got = run(200, 5)
    print("the same:", ref == got, len(ref), "decisions")


if __name__ == "__main__":
    main()
