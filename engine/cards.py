"""Cards as small integers, and their two-character names.

A card is an ``int`` from 0 to 51: ``suit * 13 + (rank - 2)``. Ranks run 2..14 (14 is the
ace); suits are numbered in the order of ``SUITS`` ("SHDC": spades, hearts, diamonds, clubs).
Integers keep the rules engine fast (bots live on it) and make hands cheap to copy; the
two-character names ("QS", "TD") are what records, messages and screens use.

With two decks (Cancellation Hearts) both copies of a card are the same integer: the rules
never need to tell them apart, and a hand is then a multiset (a list with repeats).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

RANKS: Final = "23456789TJQKA"
SUITS: Final = "SHDC"
SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
SUIT_SINGULAR = ("spade", "heart", "diamond", "club")
SUIT_SYMBOLS = ("\u2660", "\u2665", "\u2666", "\u2663")
RANK_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}

Card = int


def make(rank: int, suit: int) -> Card:
    """The card of ``rank`` (2..14) and ``suit`` (0..3)."""
    return suit * 13 + rank - 2


def rank(card: Card) -> int:
    """2..14, ace high."""
    return card % 13 + 2


def suit(card: Card) -> int:
    return card // 13


def name(card: Card) -> str:
    """The canonical two-character name: 'QS', 'TD', '2C'."""
    return RANKS[card % 13] + SUITS[card // 13]


NAMES: Final[tuple[str, ...]] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(52))
_BY_NAME: dict[str, Card] = {n: i for i, n in enumerate(NAMES)}

QS: Final = _BY_NAME["QS"]
TWO_CLUBS: Final = _BY_NAME["2C"]


def parse(text: object) -> Card:
    """A card from its name. Accepts 'QS', 'qs', '10D' and 'Td'; raises ValueError otherwise."""
    if isinstance(text, bool) or not isinstance(text, str):
        raise ValueError(f"not a card: {text!r} (cards are written like 'QS' or 'TD')")
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    card = _BY_NAME.get(t)
    if card is None:
        raise ValueError(f"not a card: {text!r} (cards are written like 'QS' or 'TD')")
    return card


def to_card(value: Card | str) -> Card:
    """Accept either a card integer or a card name."""
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < 52:
            return value
        raise ValueError(f"not a card: {value!r}")
    return parse(value)


def names(cards: Iterable[Card]) -> list[str]:
    return [NAMES[c] for c in cards]


def parse_all(texts: Iterable[object]) -> list[Card]:
    return [parse(t) for t in texts]


def full_deck(decks: int = 1) -> list[Card]:
    """A fresh deck order, every card ``decks`` times (2S first); callers shuffle it."""
    return [c for _ in range(decks) for c in range(52)]


def sort_key(card: Card) -> tuple[int, int]:
    """Display order: by suit (S H D C... see SUITS), high ranks first."""
    return (card // 13, -(card % 13))


def sorted_hand(cards: Sequence[Card]) -> list[Card]:
    return sorted(cards, key=sort_key)


def describe(card: Card) -> str:
    """'queen of spades', for spoken or long messages."""
    return f"{RANK_NAMES[rank(card)]} of {SUIT_NAMES[suit(card)]}"
