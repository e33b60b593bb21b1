"""Fair dealing on the shared screen: the hand's commitment before the deal, the salt after.

The referee's public view carries ``table.commitment`` = {hand, short, full, salt}: ``short`` is
the first 24 hex digits of the SHA-256 commitment (96 bits, grouped in fours), enough that no
one can find another deck order that matches it; ``salt`` is None until the hand is over. The
table writes both into the game record, and ``trickref verify RECORD`` checks every hand.
"""

from __future__ import annotations

from typing import Any


def commitment_lines(table_view: dict[str, Any], *, after: bool) -> list[str]:
    """The words for the dealing screen (``after`` False) or the hand summary (True); empty
    when the table deals no committed deck (scorekeeping, the in-memory test table)."""
    from .i18n import _

    c = table_view.get("commitment") if isinstance(table_view, dict) else None
    if not c or not c.get("short"):
        return []
    hand = c.get("hand")
    if not after:
        return [_("Deck commitment for hand {hand}: {code}").format(hand=hand, code=c["short"]),
                _("Note it down or photograph it: after the hand the secret salt is shown, and "
                  "anyone can check that this deck was dealt (trickref verify on the game record).")]
    salt = c.get("salt")
    if not salt:
        return [_("Deck commitment for hand {hand}: {code} (the salt is shown when the hand is over)").format(
            hand=hand, code=c["short"])]
    grouped = " ".join(salt[i:i + 8] for i in range(0, len(salt), 8))
    return [_("Hand {hand} commitment {code}, salt {salt}").format(hand=hand, code=c["short"], salt=grouped),
            _("Check the deal: trickref verify <game record> (the records folder) recomputes it.")]
