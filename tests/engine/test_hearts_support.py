"""Helpers for the Hearts and Cancellation Hearts tests: deck orders that deal chosen hands.

RULES.md deals one card at a time from the dealer's left (seat dealer+1 first); in Hearts the
removed cards are skipped wherever they come off the deck; in Cancellation Hearts the cards
left after the even deal are the widow. ``deck_for`` inverts that: given the hands we want
(some seats fully or partly given, the rest filled from what is left), it builds the deck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from trickref.engine import cards as C
from trickref.engine.base import GameState
from trickref.engine.cancellation_hearts import CARDS_EACH as CH_EACH
from trickref.engine.hearts import CARDS_EACH as H_EACH
from trickref.engine.hearts import REMOVED


def _cards(names: Iterable[str]) -> list[int]:
    return [C.parse(x) for x in names]


def deck_for(
    game: str,
    n: int,
    hands: Mapping[int, Iterable[str]],
    dealer: int = 0,
    voids: Mapping[int, str] = {},  # noqa: B006 - read only
    widow: Iterable[str] = (),
) -> list[int]:
    """A deck order that deals ``hands`` (seat -> card names, possibly fewer than a full hand;
    the rest is filled from the unused cards, never of a suit in ``voids[seat]`` like "SH").
    Hearts' removed cards are placed at the top and in the middle to show they are skipped."""
    if game == "hearts":
        each, decks = H_EACH[n], 1
        removed = list(REMOVED[n])
    else:
        each, decks = CH_EACH[n], 2
        removed = []
    pool = Counter({c: decks for c in range(52)})
    for c in removed:
        pool[c] -= 1
    want: dict[int, list[int]] = {s: _cards(hands.get(s, ())) for s in range(n)}
    wid = _cards(widow)
    for c in [c for h in want.values() for c in h] + wid:
        pool[c] -= 1
        assert pool[c] >= 0, f"{C.NAMES[c]} used too often"
    free = sorted(pool.elements(), key=lambda c: (c // 13 in (1,), c == C.QS, -c))  # safe cards first
    order = sorted(range(n), key=lambda s: -len(voids.get(s, "")))
    for s in order:
        banned = {C.SUITS.index(x) for x in voids.get(s, "")}
        while len(want[s]) < each:
            pick = next(c for c in free if c // 13 not in banned)
            free.remove(pick)
            want[s].append(pick)
        assert len(want[s]) == each, f"seat {s} has {len(want[s])} cards, not {each}"
    wid += free
    deck: list[int] = []
    for i in range(each):
        for k in range(n):
            deck.append(want[(dealer + 1 + k) % n][i])
    if removed:
        deck = removed[:1] + deck[: len(deck) // 2] + removed[1:] + deck[len(deck) // 2 :]
    return deck + wid


def play(state: GameState, *cards: str) -> None:
    """Play ``cards`` in turn order (each by the seat on turn)."""
    from trickref.engine import actions as A

    for name in cards:
        state.apply(A.play(name), state.to_move)


def names(cards: Iterable[int]) -> list[str]:
    return sorted(C.names(cards))


def test_deck_for_deals_what_it_promises() -> None:
    """The helper itself: the dealt hands hold the requested cards and respect the voids."""
    from trickref.engine.games import new_game

    st = new_game("hearts", 5, first_dealer=2)
    st.start_hand(deck_for("hearts", 5, {3: ["AS", "KS"], 0: ["2H"]}, dealer=2, voids={4: "C"}))
    assert {"AS", "KS"} <= set(C.names(st.hand_of(3)))
    assert "2H" in C.names(st.hand_of(0))
    assert not [c for c in st.hand_of(4) if c // 13 == C.CLUBS]
