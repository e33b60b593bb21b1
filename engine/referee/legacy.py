"""The v1 dealer's steps, for replaying games journaled before the v2 dealer.

The journal holds events, and each ``dealer_done`` names its step by number only: a v1 game
replays exactly only if the referee queues the same number of steps, in the same order, as the
v1 referee did. A game whose ``new_game`` event has no ``dealer`` field was journaled with the
v1 steps (``events.event_from_json`` gives it ``dealer=1``); for such a game the referee takes
its steps from here. Each v1 op maps to its v2 step where one exists (see
``commands.step_from_json``): parking a fed card in staging is parking it in the loop, a fetch
from staging is a Fetch from the loop. The v1 ops with no v2 counterpart (present,
route_presented, turn_up, deal_stock, route_faceup, a fetch from the discard tray) become
``V1Step``s: they keep the numbering while replaying, and the device layer refuses to run one
(a DealerFault naming the op), so such a hand cannot go on on a v2 dealer, and says why.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base import GameState
from .commands import DealerCommand, Fetch, V1Step, seat_target
from .flows import info_of


def after_deal_steps(state: GameState) -> list[DealerCommand]:
    from .. import cards as C

    info = info_of(state)
    if info.stock == "turn-up":
        return [V1Step("turn_up", {"expect": C.NAMES[state.deck[info.first_stock]]})]
    if info.stock == "draw" and state.to_move is not None:
        return [V1Step("present", {"seat": state.to_move, "expect": C.NAMES[state.deck[0]]})]
    return []


def draw_steps(deck: Sequence[int], pos: int, seat: int, keep: bool, next_seat: int | None) -> list[DealerCommand]:
    from .. import cards as C

    me, discard = seat_target(seat), "discard"
    first, second = (me, discard) if keep else (discard, me)
    steps: list[DealerCommand] = [
        V1Step("route_presented", {"target": first}),
        V1Step("present", {"seat": seat, "expect": C.NAMES[deck[pos + 1]]}),
        V1Step("route_presented", {"target": second}),
    ]
    if next_seat is not None and pos + 2 < len(deck):
        steps.append(V1Step("present", {"seat": next_seat, "expect": C.NAMES[deck[pos + 2]]}))
    return steps


def whist_steps(deck: Sequence[int], pos: int, winner: int, loser: int) -> list[DealerCommand]:
    from .. import cards as C

    steps: list[DealerCommand] = [
        V1Step("route_faceup", {"target": seat_target(winner)}),
        V1Step("deal_stock", {"target": seat_target(loser), "expect": C.NAMES[deck[pos + 1]]}),
    ]
    if pos + 2 < len(deck):
        steps.append(V1Step("turn_up", {"expect": C.NAMES[deck[pos + 2]]}))
    return steps


def exchange_steps(seat: int, get: Sequence[int], fed: Sequence[int]) -> list[DealerCommand]:
    """The Double Nil exchange: replacements from the discard tray, fed cards from staging."""
    from .. import cards as C

    steps: list[DealerCommand] = [
        V1Step("fetch", {"source": "discard", "card": C.NAMES[c], "target": seat_target(seat)}) for c in get]
    steps += [Fetch(C.NAMES[c], "discard") for c in fed]
    return steps


def release_steps(moves: Sequence[tuple[int, int]]) -> list[DealerCommand]:
    """Passes released one card at a time (v1: a fetch from staging per card)."""
    from .. import cards as C

    return [Fetch(C.NAMES[c], seat_target(to)) for c, to in moves]
