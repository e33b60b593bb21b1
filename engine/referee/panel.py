"""The seat panels' minus / plus / OK buttons, turned into choices.

A panel has three buttons and an LED, so discrete decisions are made by stepping through a
list with minus and plus (the value shows on the screen as it changes) and confirming with OK:

- bidding (spades games): Blind Nil (when allowed) < Nil < 1 < ... < 13; the first press shows
  1 (or the lowest choice above Nil), minus and plus step down and up, OK confirms.
- the moon choice (hearts games): "themself" < "the others".
- the spades-2p draw is quicker: plus keeps the card shown, minus discards it; OK, before the
  seat's first draw decision, declares Double Nil.
- a long OK asks to undo that seat's last entry; while the question is on screen, that seat's
  OK confirms and minus cancels.

Cards (plays, passes, the Double Nil give) come through the dealer's reader or the touchscreen;
during a Double Nil exchange OK ends the give early (fewer than three cards).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import Action

CHOICE_KINDS = ("blind_nil", "bid", "moon")


def choice_list(legal: Sequence[Action]) -> list[Action]:
    """The panel's choices from the legal actions, in the order minus/plus walk them."""
    blind = [a for a in legal if a.kind == "blind_nil"]
    bids = sorted((a for a in legal if a.kind == "bid"), key=lambda a: a.value)
    moon = sorted((a for a in legal if a.kind == "moon"), key=lambda a: a.value != "self")
    return blind + bids + moon


def start_index(choices: list[Action]) -> int:
    """Where the first press lands: bid 1 if offered, else the first choice."""
    for i, a in enumerate(choices):
        if a.kind == "bid" and a.value >= 1:
            return i
    return 0


def label(action: Action) -> str:
    """The short words the screen shows for a pending choice."""
    if action.kind == "bid":
        return "Nil" if action.value == 0 else str(action.value)
    if action.kind == "blind_nil":
        return "Blind Nil"
    if action.kind == "moon":
        return "moon: themself" if action.value == "self" else "moon: the others"
    return action.describe()
