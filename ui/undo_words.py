"""What an Undo would take back, in words a player reads ("Ana played 7♥").

``TableClient.undo`` takes back entries from the end of the hand up to and including the last
one a person made (the bots' moves after it go with it); ``undo_preview`` lists the same moves,
oldest first, read from the snapshot the table host published (a read, nothing changes).
"""

from __future__ import annotations

from typing import Any

from . import card_art as A
from .i18n import _


def undo_preview(table: Any) -> list[str]:
    snap = getattr(table, "snapshot", None)  # the table host's published snapshot (no lock)
    g = getattr(snap, "game", None)
    if g is None:
        return []
    bots = set(getattr(table, "bots", ()))
    taken = []
    for seat, action in reversed(list(g.actions)):
        taken.append((seat, action))
        if seat not in bots:
            break
    else:
        return []
    names = [str(x) for x in g.names]
    return [move_words(names[s] if s < len(names) else str(s + 1), a) for s, a in reversed(taken)]


def _cards(value: Any) -> str:
    return " ".join(A.card_text(c) for c in value if isinstance(c, int))


def move_words(name: str, action: Any) -> str:
    kind, value = action
    if kind == "play":
        return _("{name} played {card}").format(name=name, card=A.card_text(value))
    if kind == "bid":
        return _("{name} bid {bid}").format(name=name, bid=_("Nil") if value == 0 else value)
    if kind == "pass":
        return _("{name} passed {cards}").format(name=name, cards=_cards(value))
    if kind == "draw":
        return (_("{name} kept the shown card") if value == "keep" else _("{name} discarded the shown card")).format(
            name=name)
    if kind == "exchange":
        return _("{name} exchanged {cards}").format(name=name, cards=_cards(value[0]) if value else "")
    if kind == "moon":
        return _("{name} chose the moon's points").format(name=name)
    if kind == "double_nil":
        return _("{name} bid Double Nil").format(name=name)
    if kind == "blind_nil":
        return _("{name} bid Blind Nil").format(name=name)
    return _("{name}: {move}").format(name=name, move=kind)

