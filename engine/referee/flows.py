"""The physical side of each game's flow on the v2 dealer: where each card goes.

Pure helpers used by the referee. The rules engine decides who holds what; these functions turn
that into dealer steps (commands.py) following hardware/PROTOCOL.md section 11 and RULES.md, "What
the referee needs physically for each game". The dealer has a pocket per seat, trick, discard,
centre and reject pockets, and a return loop that parks cards in the hopper (a queue the dealer
knows), from which the referee FETCHes cards by identity:

- ``deal_plan``: every card of the deck order with its target, by identity: each seat's dealt
  hand to its pocket, Hearts' removed cards to the reject pocket, the Cancellation Hearts widow
  to the centre pocket; German Whist's stock (the 26 after the deal) and spades-2p's 52 cards
  to the loop (spades-2p's top card straight to the first player's pocket: it is shown to them).
- ``after_deal_steps``: German Whist stages its turned-up card (shown on the referee's screen,
  it stays in the loop); spades-2p stages the second card (the first decision fetches it).
- ``draw_steps``: a spades-2p draw turn: the second card is fetched to the player (it was
  staged); keep = the player feeds that second card back (checked) to the discards; discard = the
  player feeds the shown card back (checked); then the next player's card is fetched and the one
  after it staged.
- ``whist_steps``: German Whist after a stage-one trick: the face-up card fetched to the winner,
  the next to the loser, the new face-up card (on the referee's screen) staged: it waits as the
  next card the hopper gives while the next trick is played (cards fed through the play slot take
  no hopper card, PROTOCOL.md 11.1), so its fetch after that trick is quick.
- ``pass_moves``: who receives each seat's passed cards, from the engine's hands before and
  after the passes (so it works for every pass direction and the Blind Nil exchange); the cards
  parked in the loop then go to their receivers in one ``Release``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .. import catalog
from ..base import GameState
from .commands import DealerCommand, FeedBack, Fetch, Stage, seat_target

# Each game's own constants are in its descriptor (catalog.GameInfo): ``leftover`` (where the
# cards dealt to nobody go), ``pass_count``, ``stock`` ("draw": a card shown to the player in
# their pocket, to keep or feed back; "turn-up": a face-up stock card played for) and
# ``first_stock`` (the deck position of the first stock card shown).
PARK = "loop"  # where fed passes and gives wait until everyone has passed


BOT_HANDS = ("pocket", "loop")
LOOP_CAPACITY = 120  # cards the hopper and the loop may hold (PROTOCOL.md, IDENTIFY loop_capacity)


def info_of(state: GameState) -> catalog.GameInfo:
    """The descriptor of ``state``'s game: its dealer flow."""
    return catalog.info(state.GAME_ID)


def pass_count(state: GameState) -> int:
    """Cards one pass takes (the game's ``pass_count``)."""
    return info_of(state).pass_count


def first_stock(state: GameState) -> int:
    """The deck position of the first stock card shown (0 where there is no stock)."""
    return info_of(state).first_stock


def loop_bots_refused(state: GameState, bot_hands: str, bots: Sequence[int], dealer: int = 2) -> str | None:
    """Why bot seats cannot keep their cards in the dealer's loop for this game (None: they can,
    or the bots' cards go to their pockets)."""
    if bot_hands not in BOT_HANDS:
        return f"bot hands go to {' or '.join(BOT_HANDS)}, not {bot_hands!r}"
    if bot_hands != "loop" or not bots:
        return None
    if dealer == 1:
        return "bot seats inside the dealer need the v2 dealer's return loop"
    refused = info_of(state).loop_bots_refused
    if refused:
        return refused
    if state.DECKS * 52 > LOOP_CAPACITY:  # even every seat a bot fits: 52 or 104 cards
        return f"the bot seats' cards could exceed the dealer's loop ({LOOP_CAPACITY} cards)"
    return None


def deal_plan(state: GameState, loop_seats: Sequence[int] = ()) -> tuple[tuple[str, str], ...]:
    """((card name, target), ...) in deck order, right after ``state.start_hand``. The seats in
    ``loop_seats`` (bots at a physical table) are dealt into the loop: nobody sees their cards."""
    from .. import cards as C

    want = [Counter(state.hand_of(s)) for s in range(state.n)]
    info = info_of(state)
    leftover = info.leftover
    plan: list[tuple[str, str]] = []
    for c in state.deck:
        for s in range(state.n):
            if want[s][c] > 0:
                want[s][c] -= 1
                plan.append((C.NAMES[c], PARK if s in loop_seats else seat_target(s)))
                break
        else:
            plan.append((C.NAMES[c], leftover))
    if info.stock == "draw" and state.to_move is not None:
        plan[0] = (plan[0][0], seat_target(state.to_move))  # the first card shown: to its pocket
    return tuple(plan)


def after_deal_steps(state: GameState) -> list[DealerCommand]:
    """What the dealer does once the deal is verified, in the background."""
    from .. import cards as C

    info = info_of(state)
    if info.stock == "turn-up":
        return [Stage(C.NAMES[state.deck[info.first_stock]])]
    if info.stock == "draw":
        return [Stage(C.NAMES[state.deck[info.first_stock + 1]])]
    return []


def discard_target(state: GameState) -> str:
    """spades-2p, after a draw is applied: the discards go to the loop while a Double Nil is
    declared or still possible (until the second player's first decision: the pile is drawn
    from), else to the discard pocket."""
    double = getattr(state, "double", ())
    pos = getattr(state, "pos", 52)
    return PARK if any(double) or pos < 4 else "discard"


CANDIDATE_PLACE = 0xF0  # a sorting hopper's place for exchange/2's candidates: over the stock, under other discards


def candidate_place(candidates: Sequence[int], turn: int) -> int | None:
    """The loop place of the discard of draw turn ``turn`` (0-25): a Double Nil's replacement
    candidates (rule exchange/2: their places in the pile, in the order taken) lie under the
    other discards in that order, so after the draw the exchange takes the loop's bottom cards;
    None for the other discards (on top, first in first out)."""
    if turn in candidates:
        return CANDIDATE_PLACE + list(candidates).index(turn)
    return None


def draw_steps(deck: Sequence[int], pos: int, seat: int, keep: bool, next_seat: int | None,
               discard_to: str, place: int | None = None) -> list[DealerCommand]:
    """A spades-2p draw turn at stock position ``pos``: ``deck[pos]`` is in ``seat``'s pocket;
    ``place``: the discard's place in the loop (``candidate_place``)."""
    from .. import cards as C

    me, shown, second = seat_target(seat), C.NAMES[deck[pos]], C.NAMES[deck[pos + 1]]
    # the second card first: it is the staged one
    fetch_next = next_seat is not None and pos + 2 < len(deck)
    steps: list[DealerCommand] = [Fetch(second, me), FeedBack(seat, second if keep else shown, discard_to,
                                                              place=place if discard_to == PARK else None,
                                                              then_next=fetch_next)]
    if next_seat is not None and pos + 2 < len(deck):
        steps.append(Fetch(C.NAMES[deck[pos + 2]], seat_target(next_seat), then_next=pos + 3 < len(deck)))
        if pos + 3 < len(deck):
            steps.append(Stage(C.NAMES[deck[pos + 3]]))
    return steps


def whist_steps(deck: Sequence[int], pos: int, winner: int, loser: int,
                loop_seats: Sequence[int] = ()) -> list[DealerCommand]:
    """German Whist after a stage-one trick; ``deck[pos]`` is the face-up card (on the screen).
    A seat in ``loop_seats`` (a bot whose hand is in the loop) takes its stock card where it is:
    no fetch."""
    from .. import cards as C

    fetch = [(k, s) for k, s in ((0, winner), (1, loser)) if s not in loop_seats]
    steps: list[DealerCommand] = [  # the winner's card makes way for the loser's (FETCH NEXT)
        Fetch(C.NAMES[deck[pos + k]], seat_target(s), then_next=i + 1 < len(fetch))
        for i, (k, s) in enumerate(fetch)
    ]
    if pos + 2 < len(deck):
        steps.append(Stage(C.NAMES[deck[pos + 2]]))
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
