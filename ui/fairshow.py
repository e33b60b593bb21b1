"""Fair dealing on the shared screen: the hand's commitment before the deal; after the hand, the
check in words and the QR code anyone can check on a phone.

The referee's public view carries ``table.commitment`` = {hand, short, full, salt}: ``short`` is
the first 24 hex digits of the SHA-256 commitment (96 bits, grouped in fours), enough that no
one can find another deck order that matches it; ``salt`` is None until the hand is over. Once
it is over the view also holds the hand's ``game``, ``deck``, ``points`` and ``chain`` (the
head of the chain of plays, engine/referee/chain.py). The kiosk does not take the table's word
for it: ``check`` hashes the deck and salt again and says whether they match the commitment
shown before the deal. The QR code holds the hand's check code (engine/referee/checkcode.py)
after the verify page's address (device/verify_web), so a phone's camera opens the page with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FairCheck:
    """One finished hand's check, as the kiosk shows it."""

    hand: int
    matches: bool  # the deck and salt hash to the commitment shown before the deal (checked here)
    short: str  # the commitment's first 24 hex digits, grouped
    chain_short: str  # the chain head's first 24 hex digits, grouped
    code: str  # the check code (checkcode.py)

    def qr_text(self, address: str | None) -> str:
        """What the QR code holds: the page's address and the code after ``#``, or the code."""
        from trickref.device.verify_web import address as join

        return join(address, self.code)


def check(table_view: dict[str, Any] | None, language: str | None = None) -> FairCheck | None:
    """The check of the hand just over; None while no hand is over (or no deck was committed)."""
    from trickref.engine.referee import checkcode, fairness

    c = table_view.get("commitment") if isinstance(table_view, dict) else None
    if not c or not c.get("salt") or not c.get("deck") or not c.get("chain") or not c.get("game"):
        return None
    salt, full, deck = str(c["salt"]), str(c["full"]), list(c["deck"])
    matches = fairness.check_salt(salt) is None and fairness.commitment(deck, salt) == full
    code = checkcode.make(c["game"], int(c["hand"]), full, salt, deck, str(c["chain"]), language)
    return FairCheck(int(c["hand"]), matches, fairness.short(full), fairness.short(str(c["chain"])), code)


def verdict(fc: FairCheck, with_code: bool = True) -> str:
    """The check in words: whether the deck and salt hash to the commitment shown before the deal."""
    from .i18n import _

    if not with_code:
        return (_("This deal matches the commitment shown before it.") if fc.matches else
                _("This deal does NOT match the commitment shown before it!"))
    if fc.matches:
        return _("Hand {hand}: this deal matches the commitment shown before it ({code}).").format(
            hand=fc.hand, code=fc.short)
    return _("Hand {hand}: this deal does NOT match the commitment shown before it ({code})!").format(
        hand=fc.hand, code=fc.short)


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
                _("Note it down or photograph it: after the hand the table shows a QR code, and anyone can "
                  "check on a phone that this deck was dealt.")]
    fc = check(table_view)
    if fc is None:
        return [_("Deck commitment for hand {hand}: {code} (the salt is shown when the hand is over)").format(
            hand=hand, code=c["short"])]
    return [verdict(fc), _("Chain of the plays: {code}. \"Check the deal\" shows its QR code.").format(
        code=fc.chain_short)]


def serve_page(app: Any, host: str = "0.0.0.0") -> Any:
    """Start the table's own verify page (``[verify] port``, 0: none) and set
    ``app.verify_address``, the page's address the QR code holds (``[verify] address`` when set).
    Returns the server (``stop()`` it at the end) or None. A port already taken is said on
    standard error and the kiosk goes on: the QR code then holds the bare check code."""
    import sys

    cfg = app.settings.config.verify
    app.verify_address = cfg.address or None
    if not cfg.port:
        return None
    from trickref.device.verify_web.server import VerifyServer

    try:
        server = VerifyServer(host, cfg.port).start()
    except OSError as e:
        print(f"trickref kiosk: cannot serve the verify page on port {cfg.port}: {e.strerror or e}; "
              "the QR codes after a hand hold the bare check code", file=sys.stderr)
        return None
    if not cfg.address:
        app.verify_address = server.page_address()
    return server
