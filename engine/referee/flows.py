"""The physical side of each game's flow: where the dealer sends each card.

Pure helpers used by the referee. The rules engine decides who holds what; these functions turn
that into dealer steps (see commands.py for the ops) following RULES.md, "What the referee needs
physically for each game":

- ``deal_plan``: every card of the deck order with its target, by card identity: the cards of
  each seat's dealt hand to that seat, Hearts' removed cards to the reject tray, the Cancellation
  Hearts widow to the centre, and stock cards (spades-2p: all 52; German Whist: the 26 after the
  deal) to the stock magazine in deck order, so the magazine presents them in that order.
- ``draw_steps``: a spades-2p draw turn (the card shown, then kept or discarded; the second card
  shown, then discarded or kept).
- ``whist_steps``: German Whist after a stage-one trick (face-up card to the winner, the next
  face down to the loser, the next turned up).
- ``pass_moves``: who receives each seat's passed cards, from the engine's hands before and
  after the passes (so it works for every pass direction and the Blind Nil exchange).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..base import GameState
from .commands import (
    DealerCommand,
    DealStock,
    Present,
    RouteFaceup,
    RoutePresented,
    TurnUp,
    seat_target,
)

LEFTOVER = {
    "hearts": "reject",
    "cancellation-hearts": "centre",
    "spades-2p": "stock",
    "german-whist": "stock",
    "partnership-spades": "reject",
}

PASS_COUNT = {"partnership-spades": 2}  # cards per pass; the hearts games pass 3
WHIST_FIRST_STOCK = 26  # German Whist: the 27th card of the deck order is turned up first


def deal_plan(state: GameState) -> tuple[tuple[str, str], ...]:
    """((card name, target), ...) in deck order, right after ``state.start_hand``."""
    from .. import cards as C

    want = [Counter(state.hand_of(s)) for s in range(state.n)]
    leftover = LEFTOVER[state.GAME_ID]
    plan: list[tuple[str, str]] = []
    for c in state.deck:
        for s in range(state.n):
            if want[s][c] > 0:
                want[s][c] -= 1
                plan.append((C.NAMES[c], seat_target(s)))
                break
        else:
            plan.append((C.NAMES[c], leftover))
    return tuple(plan)


def after_deal_steps(state: GameState) -> list[DealerCommand]:
    """What the dealer does once the deal is verified, before anyone acts."""
    from .. import cards as C

    if state.GAME_ID == "german-whist":
        return [TurnUp(C.NAMES[state.deck[WHIST_FIRST_STOCK]])]
    if state.GAME_ID == "spades-2p":
        seat = state.to_move
        assert seat is not None
        return [Present(seat, C.NAMES[state.deck[0]])]
    return []


def draw_steps(deck: Sequence[int], pos: int, seat: int, keep: bool, next_seat: int | None) -> list[DealerCommand]:
    """A spades-2p draw turn at stock position ``pos`` (the card shown is ``deck[pos]``)."""
    from .. import cards as C

    me, discard = seat_target(seat), "discard"
    first, second = (me, discard) if keep else (discard, me)
    steps: list[DealerCommand] = [
        RoutePresented(first),
        Present(seat, C.NAMES[deck[pos + 1]]),
        RoutePresented(second),
    ]
    if next_seat is not None and pos + 2 < len(deck):
        steps.append(Present(next_seat, C.NAMES[deck[pos + 2]]))
    return steps


def whist_steps(deck: Sequence[int], pos: int, winner: int, loser: int) -> list[DealerCommand]:
    """German Whist after a stage-one trick; ``deck[pos]`` is the face-up card."""
    from .. import cards as C

    steps: list[DealerCommand] = [
        RouteFaceup(seat_target(winner)),
        DealStock(seat_target(loser), C.NAMES[deck[pos + 1]]),
    ]
    if pos + 2 < len(deck):
        steps.append(TurnUp(C.NAMES[deck[pos + 2]]))
    return steps


def gained(before: Sequence[int], after: Sequence[int], lost: Sequence[int] = ()) -> list[int]:
    """Cards in ``after`` that were not in ``before`` less ``lost`` (multisets)."""
    base = Counter(before)
    base.subtract(lost)
    out = Counter(after)
    out.subtract(base)
    return sorted(out.elements())


def pass_moves(
    snap: Sequence[Sequence[int]], after: Sequence[Sequence[int]], given: dict[int, tuple[int, ...]]
) -> dict[int, int]:
    """giver -> receiver: each seat's received cards matched to the giver who passed them."""
    received = {r: tuple(gained(snap[r], after[r], given.get(r, ()))) for r in range(len(snap))}
    out: dict[int, int] = {}
    taken: set[int] = set()
    for g, cards in sorted(given.items()):
        want = tuple(sorted(cards))
        for r in sorted(received, key=lambda x: (x == g, x)):
            if r not in taken and received[r] == want:
                out[g] = r
                taken.add(r)
                break
    return out
