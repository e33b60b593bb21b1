"""Hands as 52-bit masks: bit ``c`` set when card ``c`` is held.

A suit is then 13 bits at ``suit * 13`` (cards are ``suit * 13 + rank - 2``, see cards.py), so
"holds a club", "the hearts of this hand" or "every card but the hearts" are one ``&`` each,
and the precomputed tables below turn a suit's 13 bits straight into the shared ``PLAY``
actions (``SUIT_PLAYS``) or card ints (``SUIT_CARDS``), low to high. The one-deck games keep
their hands this way (the Spades games, German Whist's and Hearts'); the two-deck Cancellation
Hearts keeps sorted lists, a card being held twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # the compiler's native 64-bit int (mypyc reads it); never imported at run time
    from mypy_extensions import i64

from .actions import PLAY, Action

FULL_SUIT: Final = 0x1FFF
ALL_CARDS: Final = (1 << 52) - 1
BIT: Final[tuple[int, ...]] = tuple(1 << c for c in range(52))
# SUIT_MASK[s]: the 13 bits of suit s in a hand mask
SUIT_MASK: Final[tuple[int, ...]] = tuple(FULL_SUIT << (13 * s) for s in range(4))


def _suit_tables() -> tuple[tuple[tuple[tuple[Action, ...], ...], ...], tuple[tuple[tuple[int, ...], ...], ...]]:
    ranks_of = [tuple(r for r in range(13) if b >> r & 1) for b in range(8192)]
    plays = tuple(tuple(tuple(PLAY[s * 13 + r] for r in rk) for rk in ranks_of) for s in range(4))
    cards = tuple(tuple(tuple(s * 13 + r for r in rk) for rk in ranks_of) for s in range(4))
    return plays, cards


# SUIT_PLAYS[suit][13 bits] -> the PLAY actions of those cards, low to high; SUIT_CARDS likewise ints.
_TABLES = _suit_tables()
SUIT_PLAYS: Final = _TABLES[0]
SUIT_CARDS: Final = _TABLES[1]
_P0: Final = SUIT_PLAYS[0]
_P1: Final = SUIT_PLAYS[1]
_P2: Final = SUIT_PLAYS[2]
_P3: Final = SUIT_PLAYS[3]
_C0: Final = SUIT_CARDS[0]
_C1: Final = SUIT_CARDS[1]
_C2: Final = SUIT_CARDS[2]
_C3: Final = SUIT_CARDS[3]

# SEAT_PLAY[seat][card]: the action log's entry (seat, PLAY[card]) and SEAT_CARD[seat][card] a
# trick's (seat, card), shared (immutable, equal to a new pair): a play appends them without
# allocating (seats 0 to 15). The pairs are typed ``Any``, not ``tuple[int, Action]``: mypyc
# keeps a fixed-length tuple in a C struct, so reading a typed pair out of the table unboxed
# it and appending it boxed a new tuple (two new tuples a play in the compiled build).
SEAT_PLAY: Final[tuple[tuple[Any, ...], ...]] = tuple(
    tuple((s, PLAY[c]) for c in range(52)) for s in range(16))
SEAT_CARD: Final[tuple[tuple[Any, ...], ...]] = tuple(
    tuple((s, c) for c in range(52)) for s in range(16))

# True when this module runs compiled (mypyc): a few helpers then take the plain loop, which
# compiles to native code, instead of the builtins that are fastest when interpreted.
_COMPILED: Final = not __file__.endswith((".py", ".pyc"))


def deal_masks(deck: list[int], n: int, first: int) -> list[int]:
    """The hands (masks) dealt from ``deck`` one card at a time to ``n`` seats, the first card
    to seat ``first``: card k goes to seat (first + k) % n."""
    if _COMPILED:  # one seat's cards at a time into a native int: no boxing per card
        masks = [0] * n
        size = len(deck)
        for k in range(n):
            m = 0
            i = k
            while i < size:
                m |= 1 << deck[i]
                i += n
            masks[(first + k) % n] = m
        return masks
    bit = BIT.__getitem__
    got = [sum(map(bit, deck[k::n])) for k in range(n)]  # got[k]: the cards to seat first + k
    return got[n - first:] + got[:n - first] if first else got


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(m: int) -> list[int]:
    """The cards of a mask in ascending order (spades first, low to high within a suit)."""
    return [*_C0[m & 0x1FFF], *_C1[(m >> 13) & 0x1FFF], *_C2[(m >> 26) & 0x1FFF], *_C3[m >> 39]]


def plays_of(m: int) -> list[Action]:
    """The shared PLAY actions of the cards of a mask, in ascending card order."""
    if _COMPILED:  # the empty suits skipped (native code: the tests cost less than the calls)
        out: list[Action] = []
        x: i64 = m  # a native 64-bit int: plain C arithmetic below
        a: i64 = x & 0x1FFF
        if a:
            out.extend(_P0[a])
        a = (x >> 13) & 0x1FFF
        if a:
            out.extend(_P1[a])
        a = (x >> 26) & 0x1FFF
        if a:
            out.extend(_P2[a])
        a = x >> 39
        if a:
            out.extend(_P3[a])
        return out
    return [*_P0[m & 0x1FFF], *_P1[(m >> 13) & 0x1FFF], *_P2[(m >> 26) & 0x1FFF], *_P3[m >> 39]]


def suit_mask(suit: int) -> int:
    return FULL_SUIT << (suit * 13)
